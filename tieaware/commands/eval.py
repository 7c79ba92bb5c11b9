"""``tieaware eval``: tie-aware evaluation of a TREC run, beside what trec_eval would report.

Every value is shown twice: **tie-aware** (the exact expected value over every
ordering of documents with equal scores) and **trec_eval order** (the ordinary
value after breaking ties as trec_eval does, by docno descending), with the
difference.  With no files it evaluates the bundled sample, whose scores are
coarse in-degree buckets, so the difference is plain to see.

The whole output is built first and printed at once, so bad input prints
nothing to stdout, only the one-line error on stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, Iterator, Optional

from tieaware.model.errors import bad
from tieaware.model.tie_presets import NAMES as TIE_PRESETS, describe
from tieaware.io.columns import prepare, read_table
from tieaware.runs.evaluate import LAYERS, Evaluation, evaluate_prepared, measure_list
from tieaware.commands.options import add_jobs
from tieaware.runs.stream import check_jobs, evaluate_files, read_qrels
from tieaware.model.exact import Exact, is_rational, to_decimal, to_exact_string, to_float
from tieaware.io.exact_print import big_ints, decimal, missing, short_form, signed
from tieaware.io.prefs import FORMATS as RELEVANCE_FORMATS
from tieaware.io.trec_format import (
    TREC_DEFAULT,
    TrecMeasures,
    at_level,
    completeness,
    read_zscores,
    relstrings,
    render,
    trec_measures,
    with_docs,
)

__all__ = ["add_parser", "run", "DEFAULT_MEASURES", "FORMATS"]

DEFAULT_MEASURES = "P@5 P@10 R@10 F1@10 AP RR nDCG@10 nDCG"
FORMATS = ("table", "json", "trec", "csv", "parquet")
#: --digits' largest value (a decimal of more digits than this says nothing a float or the exact form does not).
MAX_DIGITS = 1000
#: Above this many run documents, exact mode suggests --float (on stderr).
LARGE_EXACT = 200_000
#: Exact values longer than this are abbreviated in the table (json has them in full).
SHORT_EXACT = 44

_DESCRIPTION = """\
Evaluate a TREC run against qrels with tie-aware measures: each value is the
exact expected value over every ordering of the documents whose scores tie.
Beside it stands what trec_eval reports (ties broken by docno, descending) and
the difference.  With no QRELS and RUN, a bundled sample is evaluated.

Conventions (as trec_eval's defaults): queries in the run that have qrels are
evaluated; unjudged documents are non-relevant; num_rel counts every judged
document with label >= rel; nDCG's ideal uses every qrels label of the query;
scores tie when their text has the same exact value ("2" and "2.0" tie).
Means over queries (MAP, MRR, ...) are exact."""

_EPILOG = """\
measures (ir_measures syntax; trec_eval names such as P_5, map, ndcg_cut_10 also work):
{measures}
  with options such as P(rel=2)@5, nDCG(dcg='exp-log2')@10 and RBP(p=0.8)

trec_eval's options: -q (per query), -c (average over every judged query),
-l N (relevance level), -m repeated, with trec_eval's families (P.5,10,
ndcg_cut.10) and sets (official, all_trec); --format trec prints trec_eval's exact
layout and names (map, P_5, ndcg_cut_10, recip_rank) with its counters
num_q, num_ret, num_rel, num_rel_ret (name them in -m); the values printed
are tie-aware unless --tie-break trec_eval.

examples:
  tieaware eval                                  # the bundled sample
  tieaware eval qrels.txt run.txt -m 'AP nDCG@10 P@5'
  tieaware eval qrels.txt run.txt --format trec -c -q -m num_q -m map -m P.5,10
  tieaware eval qrels.txt run.txt --format trec --tie-break trec_eval   # trec_eval's own numbers
  tieaware eval qrels.txt run.txt --format json --digits 6
  tieaware eval qrels.txt run.txt --float        # big runs: float arithmetic

See docs/eval.md."""


def _measure_forms() -> str:
    """Every measure eval computes, from tieaware.model.names (RBO compares two rankings: `tieaware rbo`)."""
    import textwrap

    from tieaware.model.names import forms

    return textwrap.fill(" ".join(f for f in forms() if not f.startswith("RBO")), width=78, initial_indent="  ", subsequent_indent="  ")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tieaware eval`` on the ``tieaware`` command's subparsers."""
    parser = subparsers.add_parser(
        "eval",
        help="evaluate a TREC run tie-aware, beside trec_eval's tie-breaking",
        description=_DESCRIPTION,
        epilog=_EPILOG.replace("{measures}", _measure_forms()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", nargs="?", metavar="QRELS", help="qrels file: qid iter docno label; or an ir_datasets id (irds:ID), its qrels")
    parser.add_argument("run_file", nargs="?", metavar="RUN", help="run file: qid Q0 docno rank score run_id; or irds:ID, the dataset's official run")
    parser.add_argument(
        "-m",
        "--measures",
        action="append",
        metavar="MEASURES",
        help=f"space-separated measures; may be repeated, as trec_eval's -m (default: '{DEFAULT_MEASURES}'; "
        "with --format trec, trec_eval's default measures and counters)",
    )
    parser.add_argument("-q", "--per-query", action="store_true", help="also show every query's values")
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="average over every judged query, one missing from the run counting as 0 (trec_eval -c)",
    )
    parser.add_argument(
        "-l",
        "--level",
        default="1",
        metavar="N",
        help="relevance level: rel=N on every measure that takes rel and names none (trec_eval -l; default 1)",
    )
    parser.add_argument(
        "-n",
        "--no-summary",
        action="store_true",
        help="with --format trec: no summary lines, only the per-query ones of -q (trec_eval -n)",
    )
    parser.add_argument(
        "-N",
        "--docs",
        type=int,
        default=None,
        metavar="N",
        help="documents in the collection, for utility's fourth coefficient (trec_eval -N; default 0)",
    )
    parser.add_argument(
        "-M",
        "--max-docs",
        type=int,
        default=None,
        metavar="M",
        help="evaluate only the first M documents of each query; tie-aware, those of a random tie-breaking (trec_eval -M)",
    )
    parser.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="remove the documents not judged (not in the qrels, or a negative label) before evaluating; ties kept (trec_eval -J)",
    )
    parser.add_argument(
        "-Z",
        "--zscores",
        default=None,
        metavar="FILE",
        help="with --format trec: print z-scores (value - mean)/sd from FILE's lines 'qid measure mean sd' (trec_eval -Z)",
    )
    parser.add_argument(
        "-R",
        "--relevance-format",
        choices=("qrels", *RELEVANCE_FORMATS),
        default="qrels",
        metavar="FORMAT",
        help="QRELS's format, as trec_eval's -R: qrels (default); prefs (qid jg jsg docno level: preferences), "
        "qrels_prefs (a qrels file read as preferences) or qrels_jg (qid jg docno label: judgment groups), "
        "with their measures (-m all_prefs, prefs, qrels_jg); --format trec only (docs/eval.md)",
    )
    parser.add_argument(
        "--tie-break",
        choices=("none", *TIE_PRESETS),
        default="none",
        metavar="RULE|LIBRARY",
        help="reproduce a library's number: break ties as RULE (input, reverse-input, docno-asc, docno-desc, "
        "pessimistic, optimistic) or LIBRARY (trec_eval, pytrec_eval, ir_measures.pytrec_eval, ir_measures.msmarco, "
        "ir_measures.trectools, mteb, sentence-transformers, pytorch-ignite) does; table, json, csv and parquet show "
        "that value beside the tie-aware one and its range, --format trec prints it in trec_eval's layout "
        "(default: none: tie-aware; the table's second column is trec_eval's order); docs/conformance.md",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="output format (default: table); csv and parquet: PyTerrier's long rows name,qid,measure,value "
        "(tie-aware), exact, trec_eval (its order's value), with --spread min and max, per query with -q, "
        "then the means as qid 'all'; "
        "parquet is written to stdout (redirect it to a file)",
    )
    parser.add_argument("--float", action="store_true", help="fast float arithmetic instead of exact values")
    parser.add_argument(
        "--exact-form",
        action="store_true",
        help="print every exact value in full in the table (p/q or sympy text, however long); "
        "by default long ones are abbreviated and only json has them whole",
    )
    parser.add_argument("--digits", type=int, default=4, metavar="N", help="digits after the decimal point (default: 4)")
    parser.add_argument(
        "--layer",
        choices=LAYERS,
        default="fast",
        help="fast: closed forms (default); reference: enumerates every ordering, small inputs only",
    )
    parser.add_argument(
        "--spread",
        action="store_true",
        help="also show per measure the min and max of the mean over every tie-breaking, "
        "the sd of the mean due to ties, and how many queries depend on the tie-breaking (docs/uncertainty.md)",
    )
    add_jobs(parser)
    parser.set_defaults(run=run)
    return parser


@dataclass(frozen=True)
class _Report:
    title: str
    tied: Evaluation
    trec: Evaluation
    docs: int
    groups: int
    exact: bool
    digits: int
    layer: str
    #: {measure: Spread} with --spread (docs/uncertainty.md), else None.
    spread: Optional[dict[str, Any]] = None
    #: --exact-form: the table's exact column in full.
    exact_form: bool = False
    #: The tie-breaking preset of the second column (:attr:`trec`): trec_eval unless --tie-break names another.
    broken: str = "trec_eval"
    #: {(qid, or None for the mean, measure): text}: "trec_eval order" cells printing trec_eval's digits
    trec_cells: Optional[dict] = None


def run(args: argparse.Namespace) -> int:
    """Read, evaluate twice (tie-aware and in trec_eval's order), then print once."""
    if args.digits < 0:
        raise bad("--digits", args.digits, "must be an int >= 0")
    if args.digits > MAX_DIGITS:
        raise bad("--digits", args.digits, f"must be at most {MAX_DIGITS}")
    spread_on = getattr(args, "spread", False)
    if spread_on and args.format == "trec":
        raise bad("--spread", "--format trec", "needs --format table or json (trec_eval's layout has no place for it)")
    if (args.qrels is None) != (args.run_file is None):
        raise bad("files", [args.qrels], "must be both QRELS and RUN, or neither for the bundled sample")
    if getattr(args, "relevance_format", "qrels") != "qrels":
        sys.stdout.write(_other_relevance(args))
        return 0
    if args.qrels is None:
        title = "bundled sample (tieaware/data/sample.qrels, sample.run)"
    else:
        title = f"qrels {args.qrels}, run {args.run_file}"
    exact = not args.float
    broken = "trec_eval" if args.tie_break == "none" else args.tie_break
    # --tie-break: the library's number beside the tie-aware value and its range (min, max over tie-breakings)
    spread_on = spread_on or (args.tie_break != "none" and args.format != "trec" and args.max_docs is None and not args.judged_only)
    spec, measures = _measures(args)
    common = dict(layer=args.layer, exact=exact, complete=args.complete)
    restrict = dict(depth=args.max_docs, judged_only=args.judged_only)
    if args.format == "trec":
        text = _trec_eval_layout(args, spec, measures, {**common, **restrict})
        sys.stdout.write(text + "\n" if text else "")  # -n without -q prints nothing at all, as trec_eval
        return 0
    if args.max_docs is not None or args.judged_only:
        # -M and -J: each query cut and filtered on its own, the run streamed as without them
        if spread_on:
            raise bad("--spread", "-M/-J", "is not computed with -M or -J (the spread of a cut or filtered run)")
        result, cells = _streamed(args, measures, {**common, **restrict}, False, exact, broken)
    else:
        result, cells = _streamed(args, measures, common, spread_on, exact, broken)
    _warn_summary_name(list(result.tied.queries), args.per_query and args.format == "table")
    report = _Report(
        title=title,
        tied=result.tied,
        trec=result.trec,  # type: ignore[arg-type]
        docs=result.docs,
        groups=result.groups,
        exact=exact,
        digits=args.digits,
        layer=args.layer,
        spread=result.spread,
        exact_form=getattr(args, "exact_form", False),
        broken=broken,
        trec_cells=cells,
    )
    if args.format in ("csv", "parquet"):
        _write_long(report, args)
        return 0
    text = {"table": _table, "json": _json}[args.format](report, args.per_query)
    print(text)  # one print, after all the work: no half-written output
    return 0


def _write_long(r: _Report, args: argparse.Namespace) -> None:
    """--format csv|parquet: tieaware.io.frames' long rows, with trec_eval's order beside; written at once."""
    import os

    from tieaware.io import frames

    name = {None: "sample.run", "-": "stdin"}.get(args.run_file) or os.path.basename(str(args.run_file))
    names = [str(m) for m in r.tied.measures]
    queries = list(r.tied.queries) if args.per_query else []
    rows = frames.long_rows(name, queries, r.tied.per_query, names)
    rows += [(name, "all", m, r.tied.mean[m]) for m in names]
    extra = [(r.broken, [r.trec.per_query[q][m] for q in queries for m in names] + [r.trec.mean[m] for m in names])]
    if r.spread:  # --spread: the smallest and largest value over every tie-breaking (of the mean, on the 'all' rows)
        stats = r.tied.per_query_spread or {}
        for column, worst, mean_key in (("min", "worst", "min_mean"), ("max", "best", "max_mean")):
            values = [getattr(stats[q][m], worst) for q in queries for m in names]
            extra.append((column, values + [getattr(r.spread[m], mean_key) for m in names]))
    if args.format == "csv":
        sys.stdout.write(frames.to_csv(rows, extra))
        return
    if sys.stdout.isatty():
        raise bad("--format", "parquet", "writes binary to stdout: redirect it to a file (> results.parquet)")
    data = frames.to_parquet(rows, extra)
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _streamed(args: argparse.Namespace, measures: tuple, common: dict, spread_on: bool, exact: bool, broken: str = "trec_eval") -> tuple[Any, dict]:
    """Table and json: the run read a few whole queries at a time (tieaware.runs.stream), each piece
    evaluated tie-aware and in the *broken* preset's order (trec_eval's), in --jobs processes; memory stays
    bounded.  Also the table's "trec_eval order" cells that print trec_eval's digits (:func:`_trec_cells`)."""
    from tieaware.io import stream

    with _sources(args) as (qrels_source, run_source):
        _note_large_exact(run_source, exact)
        trec_qrels = qrels_source
        if broken == "trec_eval":  # the trec_eval order column reads the labels as trec_eval does
            qrels_source, trec_qrels = _read_labels(qrels_source, False, args.format)
        with stream.spooled(run_source, "run") as run:  # stdin copied once: a second pass may need it
            if trec_qrels is qrels_source:
                result = evaluate_files(qrels_source, run, measures, trec=broken, spread=spread_on, jobs=_jobs(args), **common)
            else:
                result = evaluate_files(qrels_source, run, measures, spread=spread_on, jobs=_jobs(args), **common)
                trec = evaluate_files(trec_qrels, run, measures, tie_break="trec_eval", jobs=_jobs(args), **common)
                result = dataclasses.replace(result, trec=trec.tied, doubles=trec.doubles, empty=trec.empty)

            def more(wanted: tuple) -> dict:
                again = {k: v for k, v in common.items() if k != "complete"}
                return evaluate_files(trec_qrels, run, (), tie_break="trec_eval", jobs=_jobs(args), doubles=wanted, **again).doubles

            cells = _trec_cells(args, result, measures, more) if args.format == "table" and broken == "trec_eval" else {}
    if broken == "trec_eval" and (common.get("depth") is not None or common.get("judged_only")):
        _note_empty(result.empty, measures)
    return result, cells


def _read_labels(qrels: Any, trec_eval: bool, where: str) -> tuple[Any, Any]:
    """(the qrels as tieaware reads them, as trec_eval reads them): a label such as 1.5 or 1e3 is 1 to trec_eval (atol).

    With *trec_eval* (``--tie-break trec_eval``) both are trec_eval's reading; otherwise, when the readings differ,
    one warning (stderr) names the file and first line.
    """
    from tieaware.io.trec import trec_eval_labels

    read, differs = trec_eval_labels(qrels)
    if differs is None:
        return qrels, qrels
    if trec_eval:
        return read, read
    column = "the trec_eval order column reads them so" if where in ("table", "csv", "parquet") else "--tie-break trec_eval reads them so"
    if where == "json":
        column = "json's trec_eval_order values read them so"
    print(f"tieaware eval: warning: {differs}; tie-aware values use the exact label, {column}", file=sys.stderr)
    return qrels, read


def _trec_cells(args: argparse.Namespace, result: Any, measures: tuple, more: Any) -> dict:
    """{(qid or None for the mean, measure): text}: the table's "trec_eval order" cells that print trec_eval's
    digits rather than the exact value's, where they differ: a value within 10^-9 of a rounding half, whose last
    digit is that of trec_eval's double (its sum of per-query doubles for a mean; :mod:`tieaware.io.trec_doubles`
    for a measure computed in more than one rounding, in a second pass over the run)."""
    from tieaware.io.exact_print import nearest_float
    from tieaware.io.trec_doubles import emulated
    from tieaware.io.trec_format import near_half, trec_eval_mean, trec_name

    trec = result.trec
    digits = args.digits
    if digits > 15:  # past a double's digits: the exact value's are printed, there is no trec_eval digit to follow
        return {}
    ours = [m for m in measures if trec_name(m, args.level) is not None and m.aggregate != "sum"]
    wanted, cells = [], {}
    def close(value: Any) -> bool:
        # an irrational exact value (nDCG) is never a rounding half: not worth an interval evaluation per query
        return (isinstance(value, float) or is_rational(value)) and near_half(nearest_float(value), digits)

    for m in ours:
        key = str(m)
        mean = trec.mean[key]
        unsure = not missing(mean) and close(mean)
        rows = [q for q in trec.queries if args.per_query and not missing(trec.per_query[q][key]) and close(trec.per_query[q][key])]
        if (unsure or rows) and emulated(m):
            wanted.append(m)
        if unsure:
            cells[None, key] = None
        for q in rows:
            cells[q, key] = None
    if not cells:
        return {}
    doubles = more(tuple(wanted)) if wanted else {}
    divisor = len(trec.queries) + (len(trec.skipped_qrels) if trec.complete else 0)
    for (q, key), _ in list(cells.items()):
        m = next(x for x in ours if str(x) == key)
        per_query = {p: doubles.get(p, {}).get(key, nearest_float(trec.per_query[p][key])) for p in trec.queries}
        value = per_query[q] if q is not None else trec_eval_mean(m, per_query, divisor)
        exact = trec.per_query[q][key] if q is not None else trec.mean[key]
        text = f"{value:.{digits}f}"
        if text == decimal(exact, digits):
            del cells[q, key]  # the same digits either way
        else:
            cells[q, key] = text
    return cells


def _tables(args: argparse.Namespace) -> tuple[Any, Any]:
    """The qrels and run files (or the bundled sample) read whole as columns."""
    if args.qrels is not None:
        return _read(args.qrels, "qrels"), _read(args.run_file, "run")
    from importlib.resources import as_file, files

    data = files("tieaware") / "data"
    with as_file(data / "sample.qrels") as q, as_file(data / "sample.run") as r:
        return _named(q, "sample.qrels", "qrels"), _named(r, "sample.run", "run")


def _read(source: Any, kind: str) -> Any:
    """A qrels or run file as columns, whatever its format: TREC text (plain, .gz, .bz2, stdin), Parquet or Arrow."""
    from tieaware.io import parquet

    if parquet.is_columnar_path(source):
        return parquet.read(source, kind)
    return read_table(source, kind, progress=True)


def _named(path: Any, name: str, kind: str) -> Any:
    table = read_table(path, kind)
    table.name = name
    return table


def _warn_summary_name(qids: list[str], shown: bool) -> None:
    """Say so (stderr) when a query's per-query rows carry the summary rows' name, "all"."""
    if shown and "all" in qids:
        print(
            "tieaware eval: warning: a query is named 'all', as the summary rows are; "
            "the summary's rows are the last ones (or use --format json, which keeps them apart)",
            file=sys.stderr,
        )


def _jobs(args: argparse.Namespace) -> Optional[int]:
    jobs = getattr(args, "jobs", None)
    check_jobs(jobs, "--jobs")
    return jobs


def _note_large_exact(run_source: Any, exact: bool) -> None:
    """Exact mode on a large run: suggest --float (stderr), judging the number of lines by the file's bytes and
    the lines of its first 64 KiB (tieaware.io.stream.estimated_lines: one long line claims nothing)."""
    from tieaware.io.stream import estimated_lines

    documents = estimated_lines(run_source, _BYTES_PER_LINE) if exact else 0
    if documents > LARGE_EXACT:
        print(
            f"tieaware eval: note: exact evaluation of about {documents:,} documents may take a while; "
            "--float gives the same values to 1e-12 in seconds",
            file=sys.stderr,
        )


#: A TREC run line's usual length, to judge a run's size from its file.
_BYTES_PER_LINE = 40


@contextmanager
def _sources(args: argparse.Namespace) -> Iterator[tuple[Any, Any]]:
    """The qrels (read whole, as columns) and the run's path (streamed), or the bundled sample's."""
    if args.qrels is not None:
        yield read_qrels(args.qrels), args.run_file
        return
    from importlib.resources import as_file, files

    data = files("tieaware") / "data"
    with as_file(data / "sample.qrels") as q, as_file(data / "sample.run") as r:
        qrels = read_table(q, "qrels")
        qrels.name = "sample.qrels"
        yield qrels, r


def _measures(args: argparse.Namespace) -> tuple[TrecMeasures, tuple]:
    """What -m names, read as trec_eval reads it, and the measures to evaluate (at -l, with -N)."""
    arguments = args.measures or [TREC_DEFAULT if args.format == "trec" else DEFAULT_MEASURES]
    at_level((), args.level)  # a bad -l is refused even when only runid is asked for
    for option, value in (("--no-summary", args.no_summary), ("--zscores", args.zscores)):
        if value and args.format != "trec":
            raise bad(option, value, "applies to --format trec only (trec_eval's layout)")
    if args.max_docs is not None and args.max_docs < 0:
        raise bad("-M", args.max_docs, "must be an int >= 0 (documents per query)")
    spec = trec_measures(arguments, args.level)
    if spec.left_out:  # asked for by name: say what is left out (stderr; stdout stays trec_eval's)
        print(
            f"tieaware eval: note: {' '.join(spec.left_out)} read other relevance formats, not computed from qrels: "
            "give -R prefs, qrels_prefs or qrels_jg (as trec_eval's -R)",
            file=sys.stderr,
        )
    measures = with_docs(at_level(spec.measures, args.level), args.docs)
    if not measures and (args.format != "trec" or not (spec.runid or spec.relstring)):
        raise bad("-m", arguments, "names no measure tieaware computes")
    return spec, measures


# -- shared -------------------------------------------------------------------


def _rows(r: _Report, per_query: bool) -> list[tuple[str, str, Exact, Exact]]:
    """(qid or "all", measure, tie-aware, trec_eval order), per-query rows first."""
    rows = []
    if per_query:
        for q in r.tied.queries:
            rows += [(q, str(m), r.tied.per_query[q][str(m)], r.trec.per_query[q][str(m)]) for m in r.tied.measures]
    rows += [("all", str(m), r.tied.mean[str(m)], r.trec.mean[str(m)]) for m in r.tied.measures]
    return rows


def _difference(a: Exact, b: Exact) -> Exact:
    """a - b, exact.  Symbolic values are built canonically (equal DCG
    coefficients give equal expressions, see tieaware.model.gains), so values that
    are equal by construction give an exact Fraction 0 without simplify()."""
    if missing(a) or missing(b):  # norel=nan or skip: no difference to take
        return a if missing(a) else b
    if (is_rational(a) and is_rational(b)) or isinstance(a, float):
        return a - b
    import sympy  # a symbolic value: subtract exactly

    a, b = sympy.sympify(a), sympy.sympify(b)
    return Fraction(0) if a == b else a - b


def _signed(a: Exact, b: Exact, digits: int) -> str:
    """a - b with its sign, the exact difference's even when its digits round to zero
    (-0.0000); "0" only when it is exactly zero.  Symbolic values are compared
    structurally (canonical forms, see tieaware.model.gains) and their difference
    printed by interval arithmetic, never expanded."""
    if missing(a) or missing(b):
        return missing(a) or missing(b)  # type: ignore[return-value]
    if (is_rational(a) and is_rational(b)) or isinstance(a, float):
        if a == b:
            return "0"
        return signed(a - b, digits)
    import sympy

    if sympy.sympify(a) == sympy.sympify(b):
        return "0"
    return signed(a, digits, minus=b)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _skipped(r: _Report) -> str:
    parts = []
    if r.tied.skipped_run:
        parts.append(_count(len(r.tied.skipped_run), "run query", "run queries") + " without qrels")
    if r.tied.skipped_qrels and not r.tied.complete:
        parts.append(_count(len(r.tied.skipped_qrels), "judged query", "judged queries") + " not in the run")
    text = f"; skipped {' and '.join(parts)}" if parts else ""
    if r.tied.complete and r.tied.skipped_qrels:
        missing = _count(len(r.tied.skipped_qrels), "judged query", "judged queries")
        text += f"; -c: means over every judged query, {missing} missing from the run counted as 0"
    return text


def _header(r: _Report) -> str:
    mode = "exact" if r.exact else "float"
    return (
        f"{r.title}: {len(r.tied.queries)} queries, {r.docs} docs, {r.groups} tie groups with >1 doc"
        f"{_skipped(r)} (layer {r.layer}, {mode})"
    )


# -- table --------------------------------------------------------------------


def _short_exact(value: Exact) -> str:
    """p/q, or a note of its size when long; short sympy text, or "irrational" (sizes judged without str)."""
    return short_form(value)


def _full_exact(value: Exact) -> str:
    """The whole exact form, however long (--exact-form; json)."""
    with big_ints():
        return to_exact_string(value)


def _table(r: _Report, per_query: bool) -> str:
    from tabulate import tabulate

    head = (["query"] if per_query else []) + ["measure", "tie-aware"] + (["exact"] if r.exact else [])
    head += [f"{r.broken} order", "difference"]
    head += _SPREAD_HEAD if r.spread else []
    body = []
    abbreviated = False
    rows = _rows(r, per_query)
    cells = r.trec_cells or {}
    for i, (q, m, tied, trec) in enumerate(rows):
        row = ([q] if per_query else []) + [m, decimal(tied, r.digits)]
        trec_text = cells.get((q if i < len(rows) - len(r.tied.measures) else None, m)) or decimal(trec, r.digits)
        if r.exact:
            form = _full_exact(tied) if r.exact_form else _short_exact(tied)
            abbreviated = abbreviated or form == "irrational" or form.endswith("-digit p/q")
            row.append(form)
        row += [trec_text, _signed(tied, trec, r.digits)]
        row += _spread_cells(r, q, m) if r.spread else []
        body.append(row)
    footer = "tie-aware: expected value over every ordering of tied documents; " + describe(r.broken)
    if r.spread:
        footer += (
            "\nmin, max: of the mean over every tie-breaking (mean of per-query extremes); sd (ties): "
            "standard deviation of the mean due to ties, √(Σ var)/n; moved: queries whose value depends on the tie-breaking."
        )
        if any(r.tied.mean and m.aggregate != "mean" for m in r.tied.measures):
            footer += (
                "\nThe counts (NumRet, ...) aggregate by the sum, and so do their min, max and sd; GMAP and GMBpref by "
                "the geometric mean, of the per-query extremes for min and max (it grows with every query's value); "
                "its sd over tie-breakings is not computed (n/a)."
            )
    if cells:
        footer += (
            "\nsome trec_eval order values are printed with trec_eval's own digits: the exact value is a rounding half, "
            "and trec_eval's double falls on one side of it (the difference is exact)."
        )
    if abbreviated:
        footer += "\nlong exact values are abbreviated; --exact-form or --format json prints them in full."
    table = tabulate(body, headers=head, disable_numparse=True, colalign=_align(head))
    return f"{_header(r)}\n{table}\n{footer}"


_SPREAD_HEAD = ["min", "max", "sd (ties)", "moved"]


def _spread_cells(r: _Report, q: str, m: str) -> list[str]:
    """--spread's columns: on the mean rows only (a query's own extremes are for `compare`)."""
    if q != "all":
        return [""] * len(_SPREAD_HEAD)
    s = r.spread[m]  # type: ignore[index]
    # decimal(): interval arithmetic, not sympy's evalf (minutes for an exact nDCG sd over 1,000 ranks)
    sd = "n/a" if s.sd_mean is None else decimal(s.sd_mean, r.digits)  # GMAP, GMBpref: not computed
    return [decimal(s.min_mean, r.digits), decimal(s.max_mean, r.digits), sd, f"{s.queries_moved}/{s.queries}"]


def _align(head: list[str]) -> tuple[str, ...]:
    return tuple("left" if h in ("query", "measure", "exact") else "right" for h in head)


# -- json ---------------------------------------------------------------------


def _value(value: Exact, r: _Report) -> dict[str, Any]:
    gap = missing(value)
    if gap is not None:  # norel=nan or norel=skip: JSON has no NaN, so every field says it
        return {**({"exact": gap, "rational": False} if r.exact else {}), "decimal": gap, "float": None}
    out: dict[str, Any] = {}
    if r.exact:
        out["exact"] = _full_exact(value)
        out["rational"] = is_rational(value)
        if is_rational(value):  # also as a pair of integers, for readers that want no parsing
            f = Fraction(value)
            with big_ints():
                out["numerator"], out["denominator"] = str(f.numerator), str(f.denominator)
    out["decimal"] = decimal(value, r.digits)
    out["float"] = value if isinstance(value, float) else (float(value) if is_rational(value) else float(decimal(value, 20)))
    return out


def _json(r: _Report, per_query: bool) -> str:
    def triple(tied: Exact, trec: Exact) -> dict[str, Any]:
        return {
            "tie_aware": _value(tied, r),
            ("trec_eval_order" if r.broken == "trec_eval" else "tie_break_order"): _value(trec, r),
            "difference": _value(_difference(tied, trec), r),
        }

    out: dict[str, Any] = {
        "title": r.title,
        "layer": r.layer,
        "exact": r.exact,
        "digits": r.digits,
        "queries": list(r.tied.queries),
        "docs": r.docs,
        "tie_groups": r.groups,
        "skipped": {
            "run_queries_without_qrels": list(r.tied.skipped_run),
            "judged_queries_not_in_run": list(r.tied.skipped_qrels),
        },
        "complete": r.tied.complete,
        "measures": [str(m) for m in r.tied.measures],
        "tie_break": r.broken,
        "mean": {str(m): triple(r.tied.mean[str(m)], r.trec.mean[str(m)]) for m in r.tied.measures},
    }
    if r.spread:
        out["spread"] = {
            m: {
                "min_mean": _value(s.min_mean, r),
                "max_mean": _value(s.max_mean, r),
                "sd_mean": None if s.sd_mean is None else _value(s.sd_mean, r),  # GMAP, GMBpref: not computed
                "queries_moved": s.queries_moved,
                "queries": s.queries,
            }
            for m, s in r.spread.items()
        }
    if per_query:
        out["per_query"] = {
            q: {str(m): triple(r.tied.per_query[q][str(m)], r.trec.per_query[q][str(m)]) for m in r.tied.measures}
            for q in r.tied.queries
        }
    with big_ints():
        return json.dumps(out, indent=2)


# -- trec ---------------------------------------------------------------------


def _trec_eval_layout(args: argparse.Namespace, spec: TrecMeasures, measures: tuple, common: dict) -> str:
    """trec_eval's output (tieaware.io.trec_format): one evaluation, tie-aware or in trec_eval's order."""
    zscores = read_zscores(args.zscores) if args.zscores else None  # a bad file stops before any work
    tie_break = None if args.tie_break == "none" else args.tie_break
    if measures and not spec.runid and spec.relstring is None:
        if args.qrels is not None:
            # the common case: the run streamed a few whole queries at a time in --jobs processes, as the table is
            # (stdin copied to a temporary file first, a block at a time; -M and -J too: each query is cut and
            # filtered on its own)
            return _trec_eval_layout_streamed(args, measures, common, tie_break, zscores)
    qrels_table, run_table = _tables(args)
    qrels_table = _read_labels(qrels_table, tie_break is not None, "--format trec")[0]
    restricted = args.max_docs is not None or args.judged_only
    # one order is printed; -M and -J find the queries they leave empty in trec_eval's
    prepared = prepare(qrels_table, run_table, trec_order=tie_break or ("trec_eval" if restricted else False))
    _warn_summary_name(prepared.qids, args.per_query)
    if measures:
        per_query = evaluate_prepared(prepared, measures, tie_break=tie_break, **common).per_query
    else:  # runid or relstring only: the queries trec_eval evaluates, run ∩ qrels
        per_query = {q: {} for q in prepared.qids}
        if not per_query:
            n = len(prepared.skipped_qrels)
            raise bad("run", sorted(prepared.skipped_run)[:5], f"has no query that appears in the qrels ({n} judged)")
    tally = completeness(prepared, qrels_table)
    layout = dict(show_queries=args.per_query, summary=not args.no_summary, complete=args.complete, level=args.level, digits=args.digits, zscores=zscores, memo={})
    doubles = None
    if measures and (tie_break == "trec_eval" or (tie_break is None and restricted)):
        from tieaware.runs.parts import trec_eval_doubles

        def more(wanted: tuple) -> dict:
            return trec_eval_doubles(prepared, measures, wanted, args.max_docs, args.judged_only)[0]

        first, empty = trec_eval_doubles(prepared, measures, (), args.max_docs, args.judged_only)
        if tie_break == "trec_eval":
            doubles = first
            _trec_doubles(measures, per_query, tally, layout, doubles, more)
        else:
            _note_empty(empty, measures)
    relstring = None
    if spec.relstring is not None:
        from tieaware.runs.engine import trec_eval_view

        view = trec_eval_view(prepared) if tie_break else prepared
        name, length = spec.relstring
        relstring = (name, relstrings(view, length, args.max_docs, args.judged_only))
    return render(
        measures,
        per_query,
        tally,
        runid=(run_table.run_id or "") if spec.runid else None,
        relstring=relstring,
        doubles=doubles,
        **layout,
    )


def _trec_eval_layout_streamed(args: argparse.Namespace, measures: tuple, common: dict, tie_break: Optional[str], zscores: Any) -> str:
    """trec_eval's output from :func:`tieaware.runs.stream.evaluate_files` (bounded memory, --jobs)."""
    from tieaware.io import stream

    qrels_table = _read_labels(_read(args.qrels, "qrels"), tie_break is not None, "--format trec")[0]
    options = dict(common)
    _note_large_exact(args.run_file, options["exact"])
    with stream.spooled(args.run_file, "run") as run:  # stdin copied once: trec_eval's doubles may need a second pass
        combined = evaluate_files(qrels_table, run, measures, tie_break=tie_break, jobs=_jobs(args), **options)
        result = combined.tied
        _warn_summary_name(list(result.queries), args.per_query)
        from tieaware.io.trec_format import Completeness

        full = completeness(SimpleNamespace(qids=(), skipped_qrels=()), qrels_table)  # the relevant judgements
        judged = Completeness(judged_queries=len(result.queries) + len(result.skipped_qrels), judged_relevant=full.judged_relevant)
        layout = dict(show_queries=args.per_query, summary=not args.no_summary, complete=args.complete, level=args.level, digits=args.digits, zscores=zscores, memo={})
        doubles = None
        if tie_break == "trec_eval":
            doubles = {q: dict(v) for q, v in combined.doubles.items()}

            def more(wanted: tuple) -> dict:
                again = dict(depth=options.get("depth"), judged_only=options.get("judged_only", False), exact=options["exact"], layer=options["layer"])
                return evaluate_files(qrels_table, run, (), tie_break="trec_eval", jobs=_jobs(args), doubles=wanted, **again).doubles

            _trec_doubles(measures, result.per_query, judged, layout, doubles, more)
        elif tie_break is None:
            _note_empty(combined.empty, measures)
    return render(measures, result.per_query, judged, runid=None, relstring=None, doubles=doubles, **layout)


def _trec_doubles(measures: tuple, per_query: Any, tally: Any, layout: dict, doubles: dict, more: Any) -> None:
    """Add to *doubles* trec_eval's own doubles of the measures whose printed digit depends on them (a rounding
    half): ``more(measures)`` computes them ({qid: {measure: double}}), in a second pass over the run."""
    from tieaware.io.trec_format import unsure

    wanted = unsure(measures, per_query, tally, doubles=doubles, **layout)
    if wanted:
        for q, values in more(wanted).items():
            doubles.setdefault(q, {}).update(values)


def _note_empty(empty: Any, measures: tuple) -> None:
    """Tie-aware -M/-J: say (stderr) what is printed where trec_eval prints -nan (a query left with no document)."""
    if empty and any(m.name in ("IPrec", "IPrecAvg") for m in measures):
        shown = ", ".join(list(empty)[:3]) + (", ..." if len(empty) > 3 else "")
        print(
            f"tieaware eval: note: -M/-J leave {_count(len(empty), 'query', 'queries')} ({shown}) with no document in "
            "trec_eval's order; trec_eval prints -nan there for iprec_at_recall at recall 0 and 11pt_avg (0/0) and in "
            "their means; tie-aware, such a query's interpolated precision counts as 0 (--tie-break trec_eval prints -nan)",
            file=sys.stderr,
        )


def _other_relevance(args: argparse.Namespace) -> str:
    """-R prefs, qrels_prefs, qrels_jg: read, evaluate (tieaware.runs.prefs), render trec_eval's layout."""
    from tieaware.io.prefs import read_relevance, relevance_measures, render
    from tieaware.io.trec import parse_run
    from tieaware.io.text import text_lines
    from tieaware.runs.prefs import evaluate_relevance

    kind = args.relevance_format
    if args.format != "trec":
        raise bad("-R", kind, "needs --format trec (trec_eval's layout; the table and json read qrels only)")
    if args.qrels is None:
        raise bad("-R", kind, "needs QRELS and RUN files (the bundled sample has qrels only)")
    for option, value in (("--zscores", args.zscores), ("-N", args.docs)):
        if value is not None:
            raise bad(option, value, f"does not apply to -R {kind}")
    if args.digits < 0:
        raise bad("--digits", args.digits, "must be an int >= 0")
    at_level((), args.level)  # a bad -l is refused as for qrels
    if args.max_docs is not None and args.max_docs < 0:
        raise bad("-M", args.max_docs, "must be an int >= 0 (documents per query)")
    asked = relevance_measures(args.measures or ["qrels_jg" if kind == "qrels_jg" else "all_prefs"], kind)
    if args.tie_break not in ("none", "trec_eval"):
        raise bad("--tie-break", args.tie_break, f"with -R {kind} must be none or trec_eval")
    tie_break = None if args.tie_break == "none" else "trec_eval"
    if args.max_docs is not None and tie_break is None:
        raise bad("-M", args.max_docs, f"with -R {kind} is computed under --tie-break trec_eval only (its cut depends on the order)")
    judgments = read_relevance(args.qrels, kind)  # a bad file stops before the run is read
    with text_lines(args.run_file, "<run>") as (lines, name):
        kept = list(lines)
    run = parse_run(kept, name)
    runid = next((line.split()[5] for line in reversed(kept) if len(line.split()) >= 6), "")
    per_query = evaluate_relevance(
        judgments, run, kind, asked, tie_break=tie_break, exact=not args.float, layer=args.layer,
        depth=args.max_docs, judged_only=args.judged_only, level=args.level,
    )
    text = render(
        asked, per_query, show_queries=args.per_query, summary=not args.no_summary,
        divisor=len(judgments) if args.complete else None, runid=runid, digits=args.digits,
    )
    return text + "\n" if text else ""
