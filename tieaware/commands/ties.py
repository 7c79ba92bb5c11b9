"""``tieaware ties``: where a run's ties come from (the census, the float formats of tied scores) and what they cost.

Parses, calls :func:`tieaware.runs.ties.ties_files`, prints; see docs/ties.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from tieaware.io.ties_text import as_json, plot, render
from tieaware.model.errors import bad
from tieaware.runs.ties import DEFAULT_MEASURES, ties_files

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Where did the ties come from?  The tie census of a run (per query and
overall: tie groups, tied documents, the largest group, the tied share of the
top k), the narrowest float format holding each tie group's score exactly
(bfloat16, float16, float32, float64, or decimal:d for text scores) and the
ties left once every score is rounded to each format (a lower bound on the
ties a computation in that format gives).  With QRELS, the cost per measure:
the tie-aware expected value, the worst and best over tie-breakings, the
value a tie-oblivious library reports (--tie-break) and the queries the ties
move most.  With --reference (the same run scored at high precision): its
values beside them and the share of the tie groups it separates.  With
--versus (a second system): per measure, the narrowest score format
(bfloat16, float16, float32, float64) from which on the verdict between the
two no longer depends on ties."""

_EPILOG = f"""\
RUN: a TREC run file (qid Q0 docno rank score run_id; scores are the exact
decimals written), or a .npy score matrix (queries x candidates, any float
dtype; QRELS then a .npy array of grades of the same shape).
Default measures (with QRELS): {DEFAULT_MEASURES}.

examples:
  tieaware ties run.txt                                   # census and formats only
  tieaware ties run.txt qrels.txt -m "nDCG@10 RR@10" -k 10,100 --tie-break trec_eval
  tieaware ties bf16.run qrels.txt --reference fp32.run --format json
  tieaware ties scores.npy grades.npy --plot ties.png
  tieaware ties a.run qrels.txt --versus b.run -m "nDCG@10"  # from which precision is a vs b settled?
See docs/ties.md."""


def _ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise bad("-k", text, "must be cutoffs separated by commas, like 10,100") from None
    if not ks or min(ks) < 1:
        raise bad("-k", text, "must be cutoffs >= 1 separated by commas, like 10,100")
    return ks


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tieaware ties`` on the ``tieaware`` command's subparsers."""
    parser = subparsers.add_parser(
        "ties",
        help="where a run's ties come from (census, float formats) and what they cost",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_file", metavar="RUN", help="run file, or .npy score matrix")
    parser.add_argument("qrels", metavar="QRELS", nargs="?", help="qrels file (or .npy grades): adds the cost per measure")
    parser.add_argument("-m", "--measures", default=None, help=f"measures of the cost (default: {DEFAULT_MEASURES!r})")
    parser.add_argument("-k", default="10,100", help="cutoffs of the tied share of the top k (default: 10,100)")
    parser.add_argument("--reference", metavar="RUN", help="the same run scored at high precision")
    parser.add_argument("--versus", metavar="RUN", help="a second system: from which score format on the verdict between the two no longer depends on ties")
    parser.add_argument("--tie-break", metavar="RULE", default=None, help="also the value of a library breaking ties by RULE (a rule or preset, as eval's)")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    parser.add_argument("--plot", metavar="FILE", help="save a plot: tie group sizes and per-query ranges (matplotlib)")
    parser.add_argument("--float", action="store_true", help="float arithmetic instead of exact Fractions (long runs)")
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Compute the whole report, then print once."""
    if (args.measures is not None or args.tie_break is not None or args.versus is not None) and args.qrels is None:
        raise bad("QRELS", None, "is needed for -m, --tie-break and --versus (the cost of the ties)")
    report = ties_files(
        args.run_file, args.qrels, reference=args.reference, versus=args.versus, k=_ks(args.k), measures=args.measures,
        tie_break=args.tie_break, exact=not args.float,
    )
    text = as_json(report) if args.format == "json" else render(report)
    if args.plot:
        plot(report, args.plot)
    print(text)
    return 0

