"""``tieaware conformance``: do the IR libraries installed here compute tie-aware values?

Runs :func:`tieaware.check.implementation` on scikit-learn, pytrec_eval,
ir_measures, ranx and rbo (see :mod:`tieaware.check.conformance`) and prints a
table of library × measure → conforms / differs / not installed, with the
smallest counterexample and the diagnosed cause.  ``--markdown FILE`` also
writes the table as a Markdown page (docs/conformance.md is made this way).

Exit status is 0 whatever the verdicts: a tie-oblivious library differing is
a finding, not an error.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from tieaware.check.conformance import LIBRARIES, markdown, run_all, table
from tieaware.model.errors import bad

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "conformance",
        help="check the installed IR libraries (scikit-learn, pytrec_eval, ir_measures, ranx, rbo) against tie-aware values",
        description="Check the IR libraries installed here against the exact tie-aware values.",
        epilog="examples:\n  tieaware conformance\n  tieaware conformance --library pytrec_eval --markdown conformance.md\n\nSee docs/conformance.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--library", action="append", choices=LIBRARIES, help="only this library (repeatable)")
    parser.add_argument("--max-size", type=int, default=4, metavar="N", help="every tie structure up to N documents (default: 4)")
    parser.add_argument("--max-examples", type=int, default=50, metavar="N", help="hypothesis inputs per call (default: 50)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as a Markdown page to FILE")
    parser.set_defaults(run=run)
    return parser


def _writable(path: str) -> None:
    """Refuse a --markdown path that cannot be written, before the (long) checks run."""
    if os.path.isdir(path):
        raise bad("--markdown", path, "must be a file, not a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise bad("--markdown", path, f"must be in an existing directory ({parent!r} does not exist)")


def run(args: argparse.Namespace) -> int:
    if args.markdown:
        _writable(args.markdown)
    rows = run_all(libraries=args.library, max_size=args.max_size, max_examples=args.max_examples, progress=True)
    text = table(rows)
    if args.markdown:
        page = markdown(rows, max_size=args.max_size, max_examples=args.max_examples)
        tmp = f"{args.markdown}.tmp-{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(page)
            os.replace(tmp, args.markdown)
        except OSError as exc:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise bad("--markdown", args.markdown, f"cannot be written ({exc.strerror or exc})") from None
    print(text)  # after the file: an error leaves no table behind on stdout
    return 0
