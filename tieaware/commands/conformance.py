"""``tieaware conformance``: do the IR and recommender libraries compute tie-aware values?

Runs :func:`tieaware.check.implementation` on each library call of
:mod:`tieaware.check.conformance` (scikit-learn, pytrec_eval, ir_measures and
its providers, ranx, rank_eval, trectools, TRM, cornac, rankereval, rectools,
recommenders, torchmetrics, torcheval, pytorch-ignite, sentence-transformers,
MTEB, RecBole, recpack, implicit, catboost, keras-rs, rs-metrics, rexmex, rbo:
:mod:`tieaware.check.peers`) and prints a table: the verdict, the measure each
call computes (its convention), the tie rule the probes found with the largest
tie group it held on, the precision of its results and every other finding
with its smallest input; a call that answers one input in several ways is
reported as non-deterministic, with its answers against the exact distribution.
A library installed in another environment runs there: ``--python
LIBRARY=PYTHON`` (repeatable).  ``--format markdown`` prints the report as a
Markdown page instead of the table: the table, each library's summary, and a
reproducer for every row with a finding, which its row links; ``--markdown
FILE`` also writes that page to FILE (docs/conformance.md is made this way).

Exit status is 0 whatever the verdicts: a tie-oblivious library differing is
a finding, not an error.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from tieaware.check.conformance import ENVIRONMENTS, LIBRARIES, markdown, run_all, table
from tieaware.model.errors import bad

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "conformance",
        help="check IR and recommender libraries (here or in their own environments) against tie-aware values",
        description="Check IR and recommender libraries against the exact tie-aware values: verdict, convention, tie rule, precision, findings.",
        epilog=(
            "examples:\n  tieaware conformance\n  tieaware conformance --library pytrec_eval --markdown conformance.md\n"
            "  tieaware conformance --library catboost --python catboost=/envs/catboost/bin/python --format markdown\n"
            "  tieaware conformance --library torchmetrics --python torchmetrics=/envs/torch/bin/python\n\nSee docs/conformance.md."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--library", action="append", choices=LIBRARIES, help="only this library (repeatable)")
    parser.add_argument("--max-size", type=int, default=4, metavar="N", help="every tie structure up to N documents (default: 4)")
    parser.add_argument("--max-examples", type=int, default=50, metavar="N", help="hypothesis inputs per call (default: 50)")
    parser.add_argument("--format", choices=("table", "markdown"), default="table",
                        help="table (default) or markdown: the report page, every row linking its reproducer")
    parser.add_argument("--markdown", metavar="FILE", help="also write the report as a Markdown page to FILE")
    parser.add_argument(
        "--python",
        action="append",
        metavar="LIBRARY=PYTHON",
        help="run LIBRARY's calls in a worker of this Python (its own environment, without tieaware); LIBRARY/ENV for its calls of one "
        "environment only (e.g. ir_measures/pandas2 for the ranx provider); repeatable",
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="check N calls at a time, in forked processes (default: 1)")
    parser.set_defaults(run=run)
    return parser


def _writable(path: str) -> None:
    """Refuse a --markdown path that cannot be written, before the (long) checks run."""
    if os.path.isdir(path):
        raise bad("--markdown", path, "must be a file, not a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise bad("--markdown", path, f"must be in an existing directory ({parent!r} does not exist)")


def _pythons(items: Any) -> dict[str, str]:
    out = {}
    for item in items or []:
        library, eq, python = item.partition("=")
        if not eq or not library or not python:
            raise bad("--python", item, "must be LIBRARY=PYTHON, e.g. torchmetrics=/envs/torch/bin/python")
        name, _, env = library.partition("/")
        if name not in LIBRARIES or (env and env not in ENVIRONMENTS):
            raise bad("--python", item, f"names no library of {list(LIBRARIES)} (or LIBRARY/ENV, ENV one of {list(ENVIRONMENTS)})")
        if not os.path.isfile(python) or not os.access(python, os.X_OK):
            raise bad("--python", item, "must name an executable Python")
        out[library] = python
    return out


def run(args: argparse.Namespace) -> int:
    if args.markdown:
        _writable(args.markdown)
    pythons = _pythons(args.python)
    if args.jobs < 1:
        raise bad("--jobs", args.jobs, "must be at least 1")
    if args.max_size < 1:
        raise bad("--max-size", args.max_size, "must be an int >= 1 (documents in a tie structure)")
    if args.max_examples < 0:
        raise bad("--max-examples", args.max_examples, "must be an int >= 0")
    rows = run_all(libraries=args.library, pythons=pythons, max_size=args.max_size, max_examples=args.max_examples, progress=True, jobs=args.jobs)
    text = table(rows)
    if args.markdown or args.format == "markdown":
        page = markdown(rows, max_size=args.max_size, max_examples=args.max_examples, command=_command(args))
        if args.format == "markdown":
            text = page
    if args.markdown:
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


def _command(args: argparse.Namespace) -> str:
    """The command line that made the page, with each --python shown by its library only (paths are local)."""
    parts = ["tieaware conformance"]
    parts += [f"--library {name}" for name in args.library or []]
    parts += [f"--python {item.partition('=')[0]}=PYTHON" for item in args.python or []]
    if args.max_examples != 50:
        parts.append(f"--max-examples {args.max_examples}")
    if args.markdown:
        parts.append(f"--markdown {os.path.basename(args.markdown)}")
    else:
        parts.append("--format markdown")
    return " ".join(parts)
