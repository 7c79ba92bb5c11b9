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
from typing import Any

from tieaware.check.conformance import LIBRARIES, markdown, run_all, table

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


def run(args: argparse.Namespace) -> int:
    rows = run_all(libraries=args.library, max_size=args.max_size, max_examples=args.max_examples, progress=True)
    print(table(rows))
    if args.markdown:
        page = markdown(rows, max_size=args.max_size, max_examples=args.max_examples)
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(page)
    return 0
