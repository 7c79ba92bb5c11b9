"""``tieaware compare``: does run A beat run B whatever the ties? Is the difference significant?

For two runs, each measure: the expected (tie-aware) mean of each run, the
exact expected difference, the smallest and largest difference over every
tie-breaking of both runs, whether A beats B for every tie-breaking, for
some or for none, and the probability that A beats B under independent
uniform tie-breaking of both runs (exact where the per-query distributions
allow; docs/uncertainty.md says how it degrades otherwise).

With more runs, ``--test``, ``--baseline``, ``--plot`` or a markdown or
LaTeX format: a leaderboard per measure (expected means, their ranges and
rank intervals over tie-breakings) and the pairs, with a significance
test whose p-value is bounded over every joint tie-breaking
(:func:`tieaware.runs.leaderboard.compare_prepared`).

The whole output is built first and printed at once, so bad input prints
nothing to stdout, only the one-line error on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional

from tieaware.io.columns import prepare, read_table
from tieaware.commands.options import add_jobs
from tieaware.runs.comparison import MAX_SUPPORT, Comparison, compare_runs_prepared
from tieaware.runs.stream import check_jobs, compare_runs_files
from tieaware.model.errors import bad
from tieaware.runs.evaluate import LAYERS
from tieaware.runs.broken import broken_means
from tieaware.model.tie_presets import NAMES as TIE_PRESETS
from tieaware.io.exact_print import decimal, nearest_float
from tieaware.model.exact import is_rational, to_exact_string
from tieaware.runs.leaderboard import ALPHA, DRAW_BUDGET, FORMATS, MIN_DRAWS, SAMPLES
from tieaware.runs.intervals import check_ci
from tieaware.runs.significance import CORRECTIONS, ENUMERATION_LIMIT, RESAMPLES, SEED, TESTS

__all__ = ["add_parser", "run", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = "AP nDCG@10 P@10 RR"
#: Above this many documents (both runs together), exact mode suggests --float on stderr, as eval does.
LARGE_EXACT = 100_000
#: A run file's bytes per line, roughly, to judge LARGE_EXACT from a file's size before reading it.
_BYTES_PER_LINE = 40

_DESCRIPTION = """\
Compare TREC runs on the same qrels, taking ties into account.  Each run's
tied documents can be ordered in many ways.  For two runs this says whether
run A beats run B (mean over queries) for every tie-breaking of both runs,
for some, or for none, with the exact expected difference, the smallest and
largest difference, and P(A > B) when both runs' ties are broken
independently and uniformly at random.

With --test (or more than two runs, --baseline, --plot, --format markdown or
latex) it prints a leaderboard per measure: each run's expected mean, its
range and its best and worst rank over tie-breakings; and the pairs (all,
or each run against --baseline) with the test's p-value on the expected
per-query values, bounds on the p-value of every joint tie-breaking (exact
when enumerable, certified otherwise), the probability that a random
tie-breaking flips the verdict, and whether the verdict is robust."""

_EPILOG = """\
P(A > B) is exact (a convolution of the per-query distributions) when every
per-query distribution is known and their convolution has at most
--max-support values; otherwise it is a normal approximation from the exact
mean and variance of the difference, and the output says so.  Irrational
measures (nDCG with log discounts), --float, and convolutions too large to
do exactly convolve floats; the work is bounded, so thousands of queries
end in the normal approximation rather than in hours.

Tests (two-sided): t (paired Student t, scipy's ttest_rel), wilcoxon (signed
rank, scipy's wilcoxon), sign (binomial), randomization (sign flips of the
differences, --resamples of them, seeded; exact when 2^queries <= resamples),
bootstrap (shifted paired bootstrap, seeded).  They need scipy
(pip install 'tieaware[stats]'); --plot needs matplotlib ('tieaware[plots]').

Memory: two runs are streamed a few whole queries at a time in --jobs
processes (a run on stdin is copied to a temporary file first, a block at a
time).  For the leaderboard (--test, --baseline, --plot, markdown, latex, or
more than two runs) every run is partitioned by one query hash into
temporary files, partition k of every run is evaluated together in --jobs
processes, and the tests run on the gathered per-query values: the same
results as reading the runs whole, in bounded memory; shuffled tie-breakings
of a measure without a cutoff hold its varying queries' rows as compact
columns while drawn (docs/scale.md).

examples:
  tieaware compare qrels.txt runA.txt runB.txt
  tieaware compare qrels.txt runA.txt runB.txt -m 'P@10 RR' --format json
  tieaware compare qrels.txt runA.txt runB.txt --float    # big runs: float arithmetic
  tieaware compare qrels.txt runA.txt runB.txt --test t
  tieaware compare qrels.txt base.txt x.txt y.txt --test wilcoxon --baseline base.txt --correction holm
  tieaware compare qrels.txt *.run --test t --format latex --plot board.png
  tieaware compare qrels.txt base.txt x.txt y.txt --ci 95 --baseline base.txt --test t --format html -o board.html
  tieaware compare qrels.txt *.run --ci 95 --resamples 2000 --format csv -o board.csv
See docs/uncertainty.md ("Significance")."""

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
    parser.add_argument("qrels", metavar="QRELS", help="qrels file: qid iter docno label; or an ir_datasets id (irds:ID), its qrels")
    parser.add_argument("run_a", metavar="RUN_A", help="run file: qid Q0 docno rank score run_id")
    parser.add_argument("run_b", metavar="RUN_B", help="run file: qid Q0 docno rank score run_id")
    parser.add_argument("more_runs", metavar="RUN", nargs="*", help="more run files (a leaderboard of every run)")
    parser.add_argument(
        "-m", "--measures", default=DEFAULT_MEASURES, metavar="MEASURES", help=f"measures (default: '{DEFAULT_MEASURES}')"
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="table",
        help="output format (default: table; markdown, latex, csv and html: the leaderboard; html: one self-contained page)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE (written whole at the end) instead of stdout")
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
    parser.add_argument(
        "--tie-break",
        choices=TIE_PRESETS,
        default=None,
        metavar="RULE|LIBRARY",
        help="two runs: also each run's mean and the difference with ties broken as RULE or LIBRARY does (mteb, "
        "sentence-transformers, trec_eval, docno-asc, input, ...; eval --help lists them), the numbers that library reports",
    )
    add_jobs(parser)
    tests = parser.add_argument_group("significance (leaderboard output)")
    tests.add_argument("--test", choices=TESTS, help="paired significance test on every pair (default: none)")
    tests.add_argument("--alpha", type=float, default=ALPHA, metavar="A", help=f"significance level (default: {ALPHA})")
    tests.add_argument(
        "--correction", choices=CORRECTIONS, default="none", help="multiple-comparison correction across the pairs of a measure, applied to the p-value and to each bound (adjusted bounds are certified)"
    )
    tests.add_argument(
        "--baseline", metavar="RUN", action="append",
        help="compare every other run with this one (one of the RUN files) instead of all pairs; repeat for several "
        "baselines (the correction then spans every pair of the table)",
    )
    tests.add_argument(
        "--ci", type=float, metavar="PERCENT",
        help="confidence intervals at this level (e.g. 95): t and paired bootstrap percentile intervals of every mean and "
        "difference, at the expected values and over every tie-breaking; Cohen's d_z, P(A > B) per query, win/tie/loss; "
        "rank intervals over ties, topics and both (the bootstrap uses --resamples and --seed)",
    )
    tests.add_argument(
        "--resamples", type=int, default=RESAMPLES, metavar="N",
        help=f"randomization and bootstrap resamples, of the tests and of --ci (default: {RESAMPLES:,})"
    )
    tests.add_argument(
        "--samples",
        type=int,
        metavar="N",
        help=f"tie-breakings drawn for a flip probability neither enumerated nor decided by the bounds (default: {SAMPLES:,} "
        f"from the per-query distributions when known; else shuffled orderings, each evaluated, as many as "
        f"{DRAW_BUDGET:,} row evaluations allow, at most {SAMPLES:,} and at least {MIN_DRAWS}; 0: none)",
    )
    tests.add_argument("--seed", type=int, default=SEED, metavar="N", help=f"seed of the resamples and draws (default: {SEED})")
    tests.add_argument(
        "--max-outcomes",
        type=int,
        default=ENUMERATION_LIMIT,
        metavar="N",
        help=f"enumerate a pair's joint outcomes (exact bounds and flip probability) up to N (default: {ENUMERATION_LIMIT:,})",
    )
    tests.add_argument("--plot", metavar="FILE", help="save a plot of the means, tie ranges and rank intervals (matplotlib)")
    parser.set_defaults(run=run)
    return parser


def _leaderboard_wanted(args: argparse.Namespace) -> bool:
    return bool(
        args.more_runs or args.test or args.baseline or args.plot or args.ci is not None
        or args.format in ("markdown", "latex", "csv", "html")
    )


def _systems(args: argparse.Namespace) -> int:
    """The leaderboard path: every run read as columns once, compared with compare_prepared, printed at once."""
    from tieaware.runs.board_stream import compare_systems_files

    files = [args.run_a, args.run_b, *args.more_runs]
    if len(set(files)) < len(files):
        raise bad("RUN", files, "must name each run file once")
    for baseline in args.baseline or ():
        if baseline not in files:
            raise bad("--baseline", baseline, f"must be one of the run files: {', '.join(files)}")
    if args.baseline and len(set(args.baseline)) < len(args.baseline):
        raise bad("--baseline", args.baseline, "must name each baseline once")
    if args.ci is not None:
        check_ci(args.ci, "--ci")
    if args.plot:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise bad("--plot", args.plot, "needs matplotlib, which is not installed: pip install 'tieaware[plots]'")
        _check_plot(args.plot)
    # every run partitioned by one query hash into temporary files, partition k of every run evaluated
    # together in --jobs processes, the per-query values gathered (tieaware.runs.board_stream): bounded memory,
    # the results of compare_prepared on the runs read whole
    result = compare_systems_files(
        args.qrels,
        files,
        args.measures,
        test=args.test,
        alpha=args.alpha,
        correction=args.correction,
        baseline=args.baseline,
        layer=args.layer,
        ci=args.ci,
        exact=not args.float,
        resamples=args.resamples,
        seed=args.seed,
        samples=args.samples,
        limit=args.max_outcomes,
        jobs=_jobs(args),
        progress=True,
    )
    text = result.render(args.format, args.digits)
    if args.format not in ("json", "csv", "html"):
        title = f"qrels {args.qrels}: {result.queries} queries in every run"
        if result.skipped:
            title += f"; {len(result.skipped)} in only some runs skipped"
        text = title + "\n" + text
    if args.plot:
        result.plot(args.plot)
    _emit(text, args)
    return 0


def _check_output(args: argparse.Namespace) -> None:
    """Refuse an --output path that cannot be written, before any work."""
    path = getattr(args, "output", None)
    if path is None:
        return
    if path == "-" or os.path.isdir(path):
        raise bad("--output", path, "must be a file path (not a directory, not '-')")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise bad("--output", path, "cannot be written: its folder does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise bad("--output", path, "cannot be written: permission denied")


def _emit(text: str, args: argparse.Namespace) -> None:
    """Print *text*, or write it to --output whole: a temporary file beside it, renamed at the end."""
    path = getattr(args, "output", None)
    if path is None:
        print(text)  # one print, after all the work
        return
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".tieaware-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as an ordinary new file (mkstemp makes it private)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _check_plot(path: str) -> None:
    """--plot's file, before any work: a format matplotlib writes, named by the extension, in a folder that exists
    and is writable, and not a device or other special file (a plot goes to a regular file only)."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    if not extension:
        raise bad("--plot", path, f"needs a file name ending in a format, such as board.png ({', '.join(sorted(formats))})")
    if extension not in formats:
        raise bad("--plot", path, f"has a format matplotlib does not write (it writes {', '.join(sorted(formats))})")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise bad("--plot", path, f"is in a folder that does not exist ({folder})")
    if os.path.exists(path) and not os.path.isfile(path):
        raise bad("--plot", path, "is not a regular file (a plot is written to a file)")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise bad("--plot", path, "cannot be written (no permission)")


def _check_tests(args: argparse.Namespace) -> None:
    """The test options' values, refused whatever the mode (two runs ignore them, but a bad one is a mistake)."""
    if not 0 < args.alpha < 1:  # nan fails both comparisons
        raise bad("--alpha", args.alpha, "must be strictly between 0 and 1")
    for name, value, least in (("--resamples", args.resamples, 1), ("--seed", args.seed, 0), ("--max-outcomes", args.max_outcomes, 1)):
        if value < least:
            raise bad(name, value, f"must be an int >= {least}")
    if args.samples is not None and args.samples < 0:
        raise bad("--samples", args.samples, "must be an int >= 0")


def run(args: argparse.Namespace) -> int:
    if args.digits < 0:
        raise bad("--digits", args.digits, "must be an int >= 0")
    if args.max_support < 1:
        raise bad("--max-support", args.max_support, "must be an int >= 1")
    _check_output(args)
    _check_tests(args)
    tie_break = getattr(args, "tie_break", None)
    if _leaderboard_wanted(args):
        if tie_break is not None:
            raise bad("--tie-break", tie_break, "applies to two runs without a leaderboard option (the table and json of A against B)")
        return _systems(args)
    # Read as columns and evaluated as eval does (tieaware.runs.comparison.compare_runs_prepared):
    # the vectorised engines in float mode, group summaries counted in numpy in exact mode.
    jobs = _jobs(args)
    qrels = read_table(args.qrels, "qrels", progress=True)
    if args.run_a != args.run_b or args.run_a != "-":
        # each run streamed by query (bounded memory) in --jobs processes, as eval --spread reads it
        # (tieaware.runs.stream.compare_runs_files; stdin copied to a temporary file first, a block at a time);
        # the same results as the in-memory path below
        from tieaware.io.stream import estimated_lines

        lines = sum(estimated_lines(f, _BYTES_PER_LINE) for f in (args.run_a, args.run_b) if _rereadable(f))
        if not args.float and lines > LARGE_EXACT:
            _note_exact(f"about {lines:,}")
        results, ev_a, ev_b = compare_runs_files(
            qrels, args.run_a, args.run_b, args.measures, layer=args.layer, exact=not args.float, max_support=args.max_support, jobs=jobs
        )
        skipped = sorted(set(ev_a.queries) ^ set(ev_b.queries))
        shared = [q for q in ev_a.queries if q in set(ev_b.queries)]
        sources, prepared = (args.run_a, args.run_b), False
    else:
        prepared_a = prepare(qrels, read_table(args.run_a, "run", progress=True), trec_order=tie_break or False)
        prepared_b = prepare(qrels, read_table(args.run_b, "run", progress=True), trec_order=tie_break or False)
        rows = prepared_a.rows + prepared_b.rows
        if not args.float and rows > LARGE_EXACT:
            _note_exact(f"{rows:,}")
        results = compare_runs_prepared(
            prepared_a,
            prepared_b,
            args.measures,
            layer=args.layer,
            exact=not args.float,
            progress=True,
            max_support=args.max_support,
        )
        skipped = sorted(set(prepared_a.qids) ^ set(prepared_b.qids))
        shared = [q for q in prepared_a.qids if q in set(prepared_b.qids)]
        sources, prepared = (prepared_a, prepared_b), True
    broken = None
    if tie_break is not None:  # the library's numbers, over the same shared queries
        options = dict(qrels=qrels, prepared=prepared, exact=not args.float, layer=args.layer, jobs=jobs)
        broken = tie_break, [broken_means(s, args.measures, tie_break, shared, **options) for s in sources]  # type: ignore[arg-type]
    title = f"A = {args.run_a}, B = {args.run_b}, qrels {args.qrels}: {results[0].queries} shared queries"
    if skipped:
        title += f"; {len(skipped)} in only one run skipped"
    title += f" ({'exact' if not args.float else 'float'})"
    text = _json(title, results, args, broken) if args.format == "json" else _table(title, results, args.digits, broken)
    _emit(text, args)
    return 0


def _note_exact(rows: str) -> None:
    print(
        f"tieaware compare: note: exact comparison of {rows} documents may take a while; "
        "--float gives the same values to 1e-12 in seconds",
        file=sys.stderr,
    )


def _jobs(args: argparse.Namespace) -> Optional[int]:
    jobs = getattr(args, "jobs", None)
    check_jobs(jobs, "--jobs")
    return jobs


def _rereadable(path: str) -> bool:
    return path != "-" and os.path.isfile(path)


def _table(title: str, results: list[Comparison], digits: int, broken: Any = None) -> str:
    from tabulate import tabulate

    head = ["measure", "mean A", "mean B", "E[A-B]", "min A-B", "max A-B", "sd (ties)", "A > B", "P(A > B)"]
    if broken is not None:
        head += [f"A ({broken[0]})", f"B ({broken[0]})", f"A-B ({broken[0]})"]
    body = []
    for c in results:
        body.append(
            [
                c.measure,
                decimal(c.mean_a, digits),
                decimal(c.mean_b, digits),
                decimal(c.expected_difference, digits),
                decimal(c.min_difference, digits),
                decimal(c.max_difference, digits),
                decimal(c.sd_difference, digits),
                c.verdict,
                ("≈" if c.method == "normal" else "") + decimal(c.p_greater, digits),
            ]
            + ([] if broken is None else [decimal(x, digits) for x in _broken_row(broken, c.measure)])
        )
    notes = [f"{c.measure}: {_VERDICT[c.verdict]}; P(A > B) {c.note}" for c in results]
    table = tabulate(body, headers=head, disable_numparse=True, colalign=("left",) + ("right",) * (len(head) - 1))
    footer = (
        "min/max: over every tie-breaking of both runs (queries independent); "
        "sd (ties): standard deviation of the mean difference due to ties."
    )
    if broken is not None:
        footer += (
            f"\nA ({broken[0]}), B ({broken[0]}): each run's mean with ties broken as {broken[0]} does, the number it "
            "reports; A-B: their difference, one tie-breaking among those min/max bound."
        )
    return "\n".join([title, table, footer] + notes)


def _broken_row(broken: Any, measure: str) -> list[Any]:
    """A's and B's means in the preset's order, and A - B."""
    a, b = broken[1][0][measure], broken[1][1][measure]
    return [a, b, a - b]


def _value(value: Any, digits: int, exact: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if exact and not isinstance(value, float):
        out["exact"] = to_exact_string(value)
        out["rational"] = is_rational(value)
    out["decimal"] = decimal(value, digits)
    out["float"] = nearest_float(value)
    return out


def _json(title: str, results: list[Comparison], args: argparse.Namespace, broken: Any = None) -> str:
    exact = not args.float
    out: dict[str, Any] = {
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
    if broken is not None:
        out["tie_break"] = broken[0]
        for c in results:
            a, b, difference = _broken_row(broken, c.measure)
            out["measures"][c.measure]["tie_break"] = {
                "mean_a": _value(a, args.digits, exact), "mean_b": _value(b, args.digits, exact), "difference": _value(difference, args.digits, exact),
            }
    return json.dumps(out, indent=2)
