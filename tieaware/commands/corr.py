"""``tieaware corr``: Kendall's τ or τ_AP with ties, between two runs or between system rankings.

Two modes (docs/correlation.md, Command line):

- ``tieaware corr RUN_A RUN_B``: per query, the correlation between the two
  runs' document rankings (documents with exactly equal scores tie), over
  the documents both runs retrieved (``--docs common``) or all of them, a
  run's missing documents tied below its last (``--docs union``).  RUN_A is
  the reference ranking x of τ_AP.
- ``tieaware corr --systems RESULTS.tsv``: rows are systems, columns are
  measures (one value per system); each column ranks the systems (higher
  is better, equal values tie), and every pair of columns is correlated:
  do two measures rank the systems alike?

``--spread`` adds, over every tie-breaking of both rankings, the expected
value, the smallest and largest value and the standard deviation.

The output is built in full before anything is printed, so bad input
prints nothing to stdout, only the one-line error on stderr.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from fractions import Fraction
from typing import Any, Optional

from tabulate import tabulate

from tieaware.io.systems import read_systems
from tieaware.model.corr_input import ranking_from_scores
from tieaware.model.errors import bad
from tieaware.model.exact import to_decimal, to_exact_string
from tieaware.runs.corr_rows import CorrRow, correlation_row, query_rows

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Rank correlation with ties: Kendall's tau or Yilmaz et al.'s tau_AP, in the
two senses of a tie (Kendall 1945; Urbano & Marrero, ICTIR 2017): variant a,
the average over every tie-breaking (for tau_AP: x, the reference, untied),
and variant b, corrected for the pairs ties hide.  Between two TREC runs,
query by query, or between the system rankings that the columns of a results
table give (--systems).  Exact values by default; --float for long rankings."""

_EPILOG = """\
RUN_A (or, with --systems, the first column of each pair, or --reference) is
x, the reference ranking of tau_AP.  --spread: over every tie-breaking of
both rankings, the expected value (E), the smallest and largest (min, max) and
the standard deviation (sd) of tau or tau_AP of the untied rankings.

RESULTS.tsv: a header line (a name for the system column, then the measure
names), then one line per system: its name and one decimal value per measure,
tab-separated.  Higher values rank first; --ascending NAME for a column where
lower is better.

examples:
  tieaware corr run1.txt run2.txt                       # tau_b per query
  tieaware corr run1.txt run2.txt -m tauap --variant a --spread
  tieaware corr --systems results.tsv --spread          # do the measures rank systems alike?
  tieaware corr --systems results.tsv -m tauap --reference AP
See docs/correlation.md."""

_NAMES = {("tau", "a"): "Kendall's tau_a", ("tau", "b"): "Kendall's tau_b", ("tauap", "a"): "tau_AP,a", ("tauap", "b"): "tau_AP,b"}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tieaware corr`` on the ``tieaware`` command's subparsers."""
    parser = subparsers.add_parser(
        "corr",
        help="Kendall's tau or tau_AP with ties, between two runs or between system rankings",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_a", metavar="RUN_A", nargs="?", help="run file (qid Q0 docno rank score run_id): x")
    parser.add_argument("run_b", metavar="RUN_B", nargs="?", help="run file: y")
    parser.add_argument("--systems", metavar="RESULTS.tsv", help="correlate the system rankings of a results table's columns")
    parser.add_argument("-m", dest="measure", choices=("tau", "tauap"), default="tau", help="tau (default) or tauap")
    parser.add_argument("--variant", choices=("a", "b"), default="b", help="a: average over tie-breakings; b: corrected (default)")
    parser.add_argument("--spread", action="store_true", help="add E, min, max and sd over every tie-breaking")
    parser.add_argument("--docs", choices=("common", "union"), default="common", help="runs: the documents both retrieved (default), or all")
    parser.add_argument("--reference", metavar="NAME", help="--systems: correlate only this column with each other one")
    parser.add_argument("--ascending", metavar="NAME", action="append", default=[], help="--systems: a column where lower is better (repeatable)")
    parser.add_argument("--float", action="store_true", help="float arithmetic instead of exact values")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    parser.add_argument("--digits", type=int, default=4, metavar="N", help="digits after the decimal point (default: 4)")
    parser.add_argument(
        "-j", "--jobs", type=int, metavar="N", help="runs: read and compare large runs in N processes (default: every core)"
    )
    parser.set_defaults(run=run)
    return parser


def _sqrt(variance: Any) -> Any:
    if isinstance(variance, float):
        return math.sqrt(variance)
    p, q = variance.numerator, variance.denominator
    rp, rq = math.isqrt(p), math.isqrt(q)
    if rp * rp == p and rq * rq == q:
        return Fraction(rp, rq)
    import sympy

    return sympy.sqrt(sympy.Rational(p, q))


def _query_rows(args: argparse.Namespace) -> tuple[list[CorrRow], list[str]]:
    got, only_a, only_b = query_rows(
        args.run_a, args.run_b, exact=not args.float, measure=args.measure, variant=args.variant, spread=args.spread, docs=args.docs,
        jobs=getattr(args, "jobs", None),
    )
    if not got:
        raise bad("RUN_A and RUN_B", [args.run_a, args.run_b], "must share at least one query")
    rows = sorted(got, key=lambda row: row.names[0])
    shared = rows
    skipped = only_a + only_b
    documents = "the documents both runs retrieved" if args.docs == "common" else "all documents, a run's missing ones tied below its last"
    notes = [f"{len(shared)} shared queries; {skipped} in only one run skipped; over {documents}"]
    return rows, notes


def _system_rows(args: argparse.Namespace) -> tuple[list[CorrRow], list[str]]:
    table = read_systems(args.systems)
    for name in args.ascending + ([args.reference] if args.reference else []):
        if name not in table.values:
            raise bad("--ascending" if name in args.ascending else "--reference", name, f"must be one of the columns {table.columns}")
    rankings = {c: ranking_from_scores(table.values[c], decreasing=c not in args.ascending) for c in table.columns}
    if args.reference:
        pairs = [(args.reference, c) for c in table.columns if c != args.reference]
    elif args.measure == "tau":
        pairs = list(itertools.combinations(table.columns, 2))  # τ is symmetric
    else:
        pairs = list(itertools.permutations(table.columns, 2))  # τ_AP is not: x is the reference
    rows = [
        correlation_row((a, b), rankings[a], rankings[b], exact=not args.float, measure=args.measure, variant=args.variant, spread=args.spread)
        for a, b in pairs
    ]
    tied = sum(1 for c in table.columns if len(rankings[c]) < len(table.systems))
    notes = [f"{len(table.systems)} systems, {len(table.columns)} measures ({tied} with tied systems); x is the first column of each pair"]
    return rows, notes


def run(args: argparse.Namespace) -> int:
    """Compute every row, then print once."""
    if args.digits < 0:
        raise bad("--digits", args.digits, "must be an int >= 0")
    if args.systems is not None:
        if args.run_a is not None:
            raise bad("RUN_A", args.run_a, "must not be given with --systems (one or the other)")
        rows, notes = _system_rows(args)
        headers = ["x", "y"]
    else:
        if args.run_b is None:
            raise bad("RUN_A RUN_B", [args.run_a, args.run_b], "must be two run files (or use --systems RESULTS.tsv)")
        for option in ("reference", "ascending"):
            if getattr(args, option):
                raise bad(f"--{option}", getattr(args, option), "applies to --systems only")
        rows, notes = _query_rows(args)
        headers = ["qid"]
    report = {"table": _table, "json": _json}[args.format](args, headers, rows, notes)
    print(report)  # one print, after all the work
    return 0


def _mean(values: list[Any]) -> Any:
    if not values:
        return None
    if all(isinstance(v, float) for v in values):
        return math.fsum(values) / len(values)
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0)) / len(values)
    import sympy  # τ_b is irrational: an exact sum

    total = sympy.Add(*values) / len(values)
    return Fraction(int(total.p), int(total.q)) if total.is_Rational else total


def _shown_spread(spread: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
    expected, low, high, variance = spread
    return expected, low, high, _sqrt(variance)


def _mean_spread(rows: list[CorrRow], independent: bool) -> tuple[Any, Any, Any, Any]:
    """E, min, max and sd of the mean over the rows.

    E is always the mean of the E's.  Queries' tie-breakings are
    independent, so there the mean's extremes are the means of the extremes
    and its variance is Σ var / count².  Pairs of columns share columns
    (and their ties), so for --systems only E is given.
    """
    spreads = [r.spread for r in rows if r.spread]
    if not spreads:
        return None, None, None, None
    expected = _mean([s[0] for s in spreads])
    if not independent:
        return expected, None, None, None
    low, high = (_mean([s[i] for s in spreads]) for i in (1, 2))
    return expected, low, high, _sqrt(_mean([s[3] for s in spreads]) / len(spreads))


def _title(args: argparse.Namespace) -> str:
    name = _NAMES[args.measure, args.variant]
    between = f"the columns of {args.systems}" if args.systems else f"{args.run_a} (x) and {args.run_b} (y)"
    return f"{name} between {between}: {'float' if args.float else 'exact'}"


def _table(args: argparse.Namespace, headers: list[str], rows: list[CorrRow], notes: list[str]) -> str:
    digits = args.digits
    show = lambda v: "n/a" if v is None else to_decimal(v, digits)  # noqa: E731
    name = "tau" if args.measure == "tau" else "tau_AP"
    columns = headers + ["n", f"{name}_{args.variant}"] + (["E", "min", "max", "sd"] if args.spread else [])
    body = []
    for row in rows:
        line = list(row.names) + [str(row.items), show(row.value)]
        if args.spread:
            line += [show(v) for v in _shown_spread(row.spread)] if row.spread else ["n/a"] * 4
        body.append(line)
    defined = [r for r in rows if r.value is not None]
    mean = ["mean"] + [""] * (len(headers) - 1) + ["", show(_mean([r.value for r in defined]))]
    if args.spread:
        mean += ["" if v is None else show(v) for v in _mean_spread(rows, args.systems is None)]
    body.append(mean)
    lines = [_title(args)] + notes
    undefined = [r for r in rows if r.value is None]
    if undefined:
        reasons = sorted({r.reason for r in undefined})
        lines.append(f"{len(undefined)} n/a, left out of the mean: {'; '.join(reasons)}")
    align = ("left",) * len(headers) + ("right",) * (len(columns) - len(headers))
    lines.append(tabulate(body, headers=columns, disable_numparse=True, colalign=align))
    return "\n".join(lines)


def _json(args: argparse.Namespace, headers: list[str], rows: list[CorrRow], notes: list[str]) -> str:
    def value(v: Any) -> Optional[dict[str, Any]]:
        if v is None:
            return None
        return {"exact": None if isinstance(v, float) else to_exact_string(v), "decimal": to_decimal(v, args.digits)}

    out_rows = []
    for row in rows:
        entry: dict[str, Any] = dict(zip(headers, row.names))
        entry["items"] = row.items
        entry["value"] = value(row.value)
        if row.reason:
            entry["undefined"] = row.reason
        if args.spread:
            entry["spread"] = None if row.spread is None else dict(zip(("expected", "min", "max", "sd"), map(value, _shown_spread(row.spread))))
        out_rows.append(entry)
    defined = [r.value for r in rows if r.value is not None]
    document = {
        "measure": _NAMES[args.measure, args.variant],
        "exact": not args.float,
        "notes": notes,
        "rows": out_rows,
        "mean": value(_mean(defined)),
    }
    if args.spread:
        document["mean_spread"] = dict(zip(("expected", "min", "max", "sd"), map(value, _mean_spread(rows, args.systems is None))))
    return json.dumps(document, indent=2, ensure_ascii=False)
