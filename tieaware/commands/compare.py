"""``tieaware compare``: does run A beat run B whatever the ties?

For each measure: the expected (tie-aware) mean of each run, the exact
expected difference, the smallest and largest difference over every
tie-breaking of both runs, whether A beats B for every tie-breaking, for
some or for none, and the probability that A beats B under independent
uniform tie-breaking of both runs (exact where the per-query distributions
allow; docs/uncertainty.md says how it degrades otherwise).

The whole output is built first and printed at once, so bad input prints
nothing to stdout, only the one-line error on stderr.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tieaware.runs.comparison import MAX_SUPPORT, Comparison, compare_runs
from tieaware.model.errors import bad
from tieaware.runs.evaluate import LAYERS
from tieaware.model.exact import is_rational, to_decimal, to_exact_string, to_float
from tieaware.io.trec import read_qrels, read_run

__all__ = ["add_parser", "run", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = "AP nDCG@10 P@10 RR"

_DESCRIPTION = """\
Compare two TREC runs on the same qrels, taking ties into account.  Each
run's tied documents can be ordered in many ways; this says whether run A
beats run B (mean over queries) for every tie-breaking of both runs, for
some, or for none, with the exact expected difference, the smallest and
largest difference, and P(A > B) when both runs' ties are broken
independently and uniformly at random."""

_EPILOG = """\
P(A > B) is exact (a convolution of the per-query distributions) when every
per-query distribution is known and their convolution has at most
--max-support values; otherwise it is a normal approximation from the exact
mean and variance of the difference, and the output says so.  Irrational
measures (nDCG with log discounts) and --float convolve floats.

examples:
  tieaware compare qrels.txt runA.txt runB.txt
  tieaware compare qrels.txt runA.txt runB.txt -m 'P@10 RR' --format json
See docs/uncertainty.md."""

_VERDICT = {"every": "A > B for every tie-breaking", "some": "A > B for some tie-breakings", "none": "A > B for no tie-breaking"}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tieaware compare`` on the ``tieaware`` command's subparsers."""
    parser = subparsers.add_parser(
        "compare",
        help="does run A beat run B for every, some or no tie-breaking?",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels file: qid iter docno label")
    parser.add_argument("run_a", metavar="RUN_A", help="run file: qid Q0 docno rank score run_id")
    parser.add_argument("run_b", metavar="RUN_B", help="run file: qid Q0 docno rank score run_id")
    parser.add_argument(
        "-m", "--measures", default=DEFAULT_MEASURES, metavar="MEASURES", help=f"measures (default: '{DEFAULT_MEASURES}')"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    parser.add_argument("--float", action="store_true", help="float arithmetic instead of exact values")
    parser.add_argument("--digits", type=int, default=4, metavar="N", help="digits after the decimal point (default: 4)")
    parser.add_argument(
        "--max-support",
        type=int,
        default=MAX_SUPPORT,
        metavar="N",
        help=f"largest exact convolution, in values, before the normal approximation (default: {MAX_SUPPORT:,})",
    )
    parser.add_argument("--layer", choices=LAYERS, default="fast", help="fast (default) or reference (small inputs)")
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.digits < 0:
        raise bad("--digits", args.digits, "must be an int >= 0")
    if args.max_support < 1:
        raise bad("--max-support", args.max_support, "must be an int >= 1")
    qrels, run_a, run_b = read_qrels(args.qrels), read_run(args.run_a), read_run(args.run_b)
    results = compare_runs(
        qrels, run_a, run_b, args.measures, layer=args.layer, exact=not args.float, progress=True, max_support=args.max_support
    )
    skipped = sorted((set(run_a) ^ set(run_b)) & set(qrels))
    title = f"A = {args.run_a}, B = {args.run_b}, qrels {args.qrels}: {results[0].queries} shared queries"
    if skipped:
        title += f"; {len(skipped)} in only one run skipped"
    title += f" ({'exact' if not args.float else 'float'})"
    text = _json(title, results, args) if args.format == "json" else _table(title, results, args.digits)
    print(text)  # one print, after all the work
    return 0


def _table(title: str, results: list[Comparison], digits: int) -> str:
    from tabulate import tabulate

    head = ["measure", "mean A", "mean B", "E[A-B]", "min A-B", "max A-B", "sd (ties)", "A > B", "P(A > B)"]
    body = []
    for c in results:
        body.append(
            [
                c.measure,
                to_decimal(c.mean_a, digits),
                to_decimal(c.mean_b, digits),
                to_decimal(c.expected_difference, digits),
                to_decimal(c.min_difference, digits),
                to_decimal(c.max_difference, digits),
                to_decimal(c.sd_difference, digits),
                c.verdict,
                ("≈" if c.method == "normal" else "") + to_decimal(c.p_greater, digits),
            ]
        )
    notes = [f"{c.measure}: {_VERDICT[c.verdict]}; P(A > B) {c.note}" for c in results]
    table = tabulate(body, headers=head, disable_numparse=True, colalign=("left",) + ("right",) * (len(head) - 1))
    footer = (
        "min/max: over every tie-breaking of both runs (queries independent); "
        "sd (ties): standard deviation of the mean difference due to ties."
    )
    return "\n".join([title, table, footer] + notes)


def _value(value: Any, digits: int, exact: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if exact and not isinstance(value, float):
        out["exact"] = to_exact_string(value)
        out["rational"] = is_rational(value)
    out["decimal"] = to_decimal(value, digits)
    out["float"] = to_float(value)
    return out


def _json(title: str, results: list[Comparison], args: argparse.Namespace) -> str:
    exact = not args.float
    out = {
        "title": title,
        "exact": exact,
        "queries": results[0].queries,
        "measures": {
            c.measure: {
                "mean_a": _value(c.mean_a, args.digits, exact),
                "mean_b": _value(c.mean_b, args.digits, exact),
                "expected_difference": _value(c.expected_difference, args.digits, exact),
                "min_difference": _value(c.min_difference, args.digits, exact),
                "max_difference": _value(c.max_difference, args.digits, exact),
                "sd_difference": _value(c.sd_difference, args.digits, exact),
                "verdict": c.verdict,
                "p_greater": _value(c.p_greater, args.digits, exact),
                "p_greater_method": c.method,
                "p_greater_note": c.note,
            }
            for c in results
        },
    }
    return json.dumps(out, indent=2)
