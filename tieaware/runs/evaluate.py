"""Evaluate a TREC run against qrels: per-query tie-aware values and exact means.

Conventions (they follow trec_eval's defaults; docs/eval.md explains them):

- **Query set.** A query is evaluated when it appears in the run *and* has
  qrels.  Queries judged in the qrels but absent from the run are skipped,
  as trec_eval does without ``-c``; run queries without qrels are skipped
  too.  Both are reported in :attr:`Evaluation.skipped_qrels` and
  :attr:`Evaluation.skipped_run`.
- **Unjudged documents** count as non-relevant (label 0).
- **num_rel** for R, F1 and AP is the number of judged documents of the query
  whose label is >= the measure's ``rel`` (retrieved or not), as in trec_eval.
- **Ideal** for nDCG is every qrels label of the query.
- **Ties** are documents whose score strings have equal exact value.
- **Means** (MAP, MRR, ...) are exact arithmetic means of the per-query
  values: Fractions, or an exact sympy sum for symbolic nDCG values.

>>> from tieaware.io.trec import parse_qrels, parse_run
>>> qrels = parse_qrels(["q1 0 a 1", "q1 0 x 1", "q2 0 a 1"])
>>> run = parse_run(["q1 Q0 a 1 2 r", "q1 Q0 b 2 2 r", "q2 Q0 a 1 5 r"])
>>> ev = evaluate(qrels, run, "AP P@1")
>>> ev.per_query["q1"]["AP"], ev.mean["AP"], ev.mean["P@1"]
(Fraction(3, 8), Fraction(11, 16), Fraction(3, 4))
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any, Optional, Union

import numpy as np

from tieaware.model.dispatch import NOT_ON_A_RUN, UNJUDGED, measure_value
from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact
from tieaware.io.inputs import to_qrels, to_run
from tieaware.model.names import Measure, parse, parse_list
from tieaware.model.params import flag
from tieaware.model.ranking import Ranking, judged_only as drop_unjudged
from tieaware.io.tie_break import broken_ranking
from tieaware.io.trec import run_ranking
from tieaware.model.tie_presets import NAMES as TIE_PRESETS, preset

__all__ = [
    "Evaluation", "evaluate", "evaluate_prepared", "compute", "measure_list", "check_arguments", "no_query", "exact_mean", "aggregate", "geometric_mean",
    "LAYERS", "TIE_BREAKS", "GEO_MEAN_FLOOR",
    "layer_module",
    "check_layer",
    "finish",
    "Unjudged",
]  # fmt: skip

LAYERS = ("fast", "reference")
#: None: tie-aware (expected value over tie orderings); "trec_eval": ties broken by docno, descending, on
#: float32 scores; any other preset of :mod:`tieaware.model.tie_presets` (a rule or a library) as it names.
TIE_BREAKS = (None, *TIE_PRESETS)


MeasureSpec = Union[str, Measure, Iterable[Union[str, Measure]]]


def layer_module(layer: object) -> ModuleType:
    """The module of *layer*: tieaware.fast or tieaware.reference (TieawareError otherwise)."""
    if layer == "fast":
        from tieaware import fast

        return fast
    if layer == "reference":
        from tieaware import reference

        return reference
    raise bad("layer", layer, f"must be one of {LAYERS}")


def check_layer(layer: object) -> None:
    """Refuse a *layer* that is not one of LAYERS, without importing it."""
    if layer not in LAYERS:
        raise bad("layer", layer, f"must be one of {LAYERS}")


def measure_list(spec: MeasureSpec) -> tuple[Measure, ...]:
    """Normalise a measure list: ``"AP nDCG@10"``, a Measure, or a list of either; duplicates dropped.

    >>> [str(m) for m in measure_list("map AP P_5 P@5")]
    ['AP', 'P@5']
    """
    if isinstance(spec, str):
        parsed = parse_list(spec)
    elif isinstance(spec, Measure):
        parsed = [spec]
    elif isinstance(spec, Iterable):
        parsed = [m if isinstance(m, Measure) else parse(m) for m in spec]
    else:
        raise bad("measures", spec, "must be a string such as 'AP nDCG@10' or a list of measures")
    if not parsed:
        raise bad("measures", spec, "names no measure")
    return tuple(dict.fromkeys(parsed))


def check_arguments(measures: MeasureSpec, layer: object, exact: object, tie_break: object, complete: object) -> tuple[tuple[Measure, ...], bool, bool]:
    """The whole-run entry points' common arguments, checked before any work: (measures, exact, complete).

    :func:`evaluate`, :func:`evaluate_prepared` and
    :func:`tieaware.runs.stream.evaluate` take them alike, so one function
    checks them, with one message per argument.

    >>> check_arguments("P@1", "fast", True, None, False)
    ((Measure(name='P', k=1, params=()),), True, False)
    >>> check_arguments("RBO", "fast", True, None, False)
    Traceback (most recent call last):
    tieaware.model.errors.TieawareError: measure cannot be computed on one run ranking (RBO compares two rankings; use `tieaware rbo`), got 'RBO'
    """
    ms = measure_list(measures)
    exact_, complete_ = flag(exact, "exact"), flag(complete, "complete")
    if tie_break is not None:
        preset(tie_break)  # one message naming every choice
    check_layer(layer)  # reject a bad layer before any work (without importing it)
    for m in ms:
        if m.name == "RBO":
            raise bad("measure", str(m), NOT_ON_A_RUN)
    return ms, exact_, complete_


def no_query(run_qids: Iterable[Any], judged: int) -> TieawareError:
    """The error for a run that shares no query with the qrels: its first query ids (natural order) and the judged count."""
    return bad("run", sorted(run_qids, key=natural_key)[:5], f"has no query that appears in the qrels ({judged} judged quer{'y' if judged == 1 else 'ies'})")


def compute(
    measure: Union[Measure, str],
    ranking: Ranking,
    *,
    num_rel: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    layer: str = "fast",
    exact: bool = True,
) -> Exact:
    """The value of one parsed *measure* on one tied *ranking*, through *layer* ("fast" or "reference").

    *ideal* is every judged label of the query.  It is nDCG's ideal ranking,
    and when *num_rel* is None it also gives num_rel for R, F1 and AP: the
    labels >= the measure's ``rel``.  Without either, the ranking's own labels
    are used (each layer's default).  See :func:`tieaware.model.dispatch.measure_value`.

    >>> compute("AP", [[1, 0], 1], ideal=[1, 1, 2])   # (5/9 + 7/18) / 2
    Fraction(17, 36)
    >>> compute("R(rel=2)@1", [[1, 0], 2], ideal=[1, 2], layer="reference")
    Fraction(0, 1)
    """
    return measure_value(layer_module(layer), measure, ranking, num_rel=num_rel, ideal=ideal, exact=exact)


class Unjudged(dict):
    """One query's qrels whose ``get`` answers None for an unjudged docno (run_ranking then writes None)."""

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, key)


_NEGATIVE = Fraction(-1)


def _mark_unjudged(ranking: list, seen: list, negative: Optional[list] = None) -> list:
    """*ranking* (labels and tie groups, in row order) with None where *seen* is False,
    and -1 where *negative* is True (a negative qrels label: in the qrels, not judged)."""

    def mark(x: Any, i: int) -> Any:
        if not seen[i]:
            return None
        return _NEGATIVE if negative is not None and negative[i] else x

    out: list = []
    i = 0
    for element in ranking:
        if isinstance(element, list):
            out.append([mark(x, i + j) for j, x in enumerate(element)])
            i += len(element)
        else:
            out.append(mark(element, i))
            i += 1
    return out


def exact_mean(values: Sequence[Optional[Exact]]) -> Optional[Exact]:
    """The arithmetic mean, exact: a Fraction, an exact sympy value, or a float in float mode.

    >>> exact_mean([Fraction(1, 2), Fraction(1, 3)])
    Fraction(5, 12)
    >>> import sympy
    >>> exact_mean([Fraction(1), sympy.log(2) / sympy.log(3)])
    log(2)/(2*log(3)) + 1/2

    None (a query ``norel=skip`` leaves out) is not counted; a mean of no
    value at all is None.  NaN (``norel=nan``) makes the mean NaN.

    >>> exact_mean([Fraction(1, 2), None]), exact_mean([None])
    (Fraction(1, 2), None)
    """
    if not values:
        raise bad("values", values, "must not be empty")
    values = [v for v in values if v is not None]  # norel=skip: a query with no value is left out
    if not values:
        return None
    n = len(values)
    if all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values):
        return sum(values, Fraction(0)) / n
    if any(isinstance(v, float) for v in values):
        return math.fsum(values) / n
    import sympy  # only symbolic values get here

    total = sympy.Add(*(sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v for v in values))
    mean = total / n
    return Fraction(int(mean.p), int(mean.q)) if mean.is_Rational else mean


#: trec_eval's floor for the geometric mean (MIN_GEO_MEAN in trec_eval.h): a query's value below it counts as it.
GEO_MEAN_FLOOR = Fraction(1, 100000)


def geometric_mean(values: Sequence[Optional[Exact]]) -> Optional[Exact]:
    """trec_eval's geometric mean (gm_map, gm_bpref): exp(mean of log(max(v, 0.00001))), exact.

    Exact: (Π max(v, 1/100000))^(1/n), an exact algebraic number (sympy), a
    Fraction when it is one; float mode: trec_eval's own exp(Σ log / n).
    None (``norel=skip``) is left out.

    >>> geometric_mean([Fraction(1, 4), Fraction(1)])
    Fraction(1, 2)
    >>> geometric_mean([Fraction(1, 2), Fraction(1)])
    sqrt(2)/2
    >>> geometric_mean([0.0, 1.0])      # the floor: sqrt(0.00001)
    0.003162277660168379

    Beware: on tie-aware values this is the geometric mean of the expectations,
    not the expectation of the geometric mean over tie-breakings (which is
    smaller: the geometric mean is concave).
    """
    values = [v for v in values if v is not None]
    if not values:
        return None
    n = len(values)
    if any(isinstance(v, float) for v in values):
        floor = float(GEO_MEAN_FLOOR)
        return math.exp(math.fsum(math.log(max(float(v), floor)) for v in values) / n)
    import sympy

    product = Fraction(1)
    for v in values:
        value = Fraction(v) if isinstance(v, (int, Fraction)) else v
        product *= max(value, GEO_MEAN_FLOOR) if isinstance(value, Fraction) else value
    if n == 1:
        return product
    root = sympy.Pow(sympy.Rational(product.numerator, product.denominator), sympy.Rational(1, n))
    return Fraction(int(root.p), int(root.q)) if root.is_Rational else root


def aggregate(m: Measure, values: Sequence[Optional[Exact]]) -> Optional[Exact]:
    """A measure's value over queries: the mean, the sum (trec_eval's counters) or the geometric mean (GMAP, GMBpref).

    >>> from tieaware.model.names import parse
    >>> aggregate(parse("NumRet"), [Fraction(3), Fraction(4)]), aggregate(parse("AP"), [Fraction(1), Fraction(0)])
    (Fraction(7, 1), Fraction(1, 2))
    """
    if m.aggregate == "gm":
        return geometric_mean(values)
    if m.aggregate == "sum":
        kept = [v for v in values if v is not None]
        if not kept:
            return None
        if any(isinstance(v, float) for v in kept):
            return math.fsum(kept)
        return sum(kept, Fraction(0))
    return exact_mean(values)


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`; values are keyed by ``str(measure)``."""

    #: The measures, in the order asked for.
    measures: tuple[Measure, ...]
    #: The evaluated queries, in natural order (q2 before q10).
    queries: tuple[str, ...]
    #: {qid: {measure: value}}
    per_query: dict[str, dict[str, Exact]]
    #: {measure: exact mean over :attr:`queries`}; the sum for the counts (NumRet, ...) and the
    #: geometric mean for GMAP and GMBpref (:func:`aggregate`).
    mean: dict[str, Exact]
    #: Run queries without qrels (not evaluated).
    skipped_run: tuple[str, ...]
    #: Judged queries absent from the run (not evaluated, as trec_eval without -c).
    skipped_qrels: tuple[str, ...]
    #: True when :attr:`mean` is over every judged query, a missing one counting as 0 (trec_eval -c).
    complete: bool = False
    #: With ``spread=True`` (:func:`tieaware.evaluate_matrix`, :func:`tieaware.dask.evaluate`): {measure:
    #: :class:`tieaware.Spread`} of the means, and {qid: {measure: QueryStats}} (worst, best, variance).
    spread: Optional[dict[str, Any]] = None
    per_query_spread: Optional[dict[str, dict[str, Any]]] = None

    def to_pandas(self) -> Any:
        """The per-query values as a pandas DataFrame: one row per query (index ``query_id``), one column per measure.

        With a spread, each measure also has ``<measure> worst``, ``<measure> best`` and
        ``<measure> variance`` columns.  Exact values stay Fractions (object columns).

        >>> from tieaware.io.trec import parse_qrels, parse_run
        >>> ev = evaluate(parse_qrels(["q1 0 a 1"]), parse_run(["q1 Q0 a 1 2 r", "q1 Q0 b 2 2 r"]), "P@1", exact=False)
        >>> ev.to_pandas()
                  P@1
        query_id     
        q1        0.5
        """
        import pandas as pd

        names = [str(m) for m in self.measures]
        data: dict[str, list[Any]] = {}
        for name in names:
            data[name] = [self.per_query[q][name] for q in self.queries]
            if self.per_query_spread is not None:
                stats = [self.per_query_spread[q][name] for q in self.queries]
                data[f"{name} worst"] = [s.worst for s in stats]
                data[f"{name} best"] = [s.best for s in stats]
                data[f"{name} variance"] = [s.variance for s in stats]
        return pd.DataFrame(data, index=pd.Index(list(self.queries), name="query_id"))

    def to_long(self, name: str = "run", *, exact: bool = False) -> Any:
        """The per-query values as PyTerrier's long DataFrame: ``name, qid, measure, value``, one row per query and measure.

        The shape of ``pt.Experiment(..., perquery=True)``: ``pd.concat`` it with
        PyTerrier's.  ``value`` is float64 (each exact value rounded once); with
        *exact* it holds the exact values (object column).  With a spread
        (``evaluate_matrix(..., spread=True)``) ``min`` and ``max`` follow: each
        query's smallest and largest value over every tie-breaking, as in
        :meth:`tieaware.SystemsComparison.per_query_dataframe`.

        >>> from tieaware.io.trec import parse_qrels, parse_run
        >>> ev = evaluate(parse_qrels(["q1 0 a 1"]), parse_run(["q1 Q0 a 1 2 r", "q1 Q0 b 2 2 r"]), "P@1 RR")
        >>> ev.to_long("bm25")
           name qid measure  value
        0  bm25  q1     P@1   0.50
        1  bm25  q1      RR   0.75
        """
        from tieaware.io.frames import to_pandas

        rows, extra = _long_rows(self, name)
        return to_pandas(rows, exact=flag(exact, "exact"), extra=extra)

    def to_polars(self, name: str = "run") -> Any:
        """:meth:`to_long` as a polars DataFrame, with ``exact``: each exact value's text (empty in float mode)."""
        from tieaware.io.frames import to_polars

        rows, extra = _long_rows(self, name)
        return to_polars(rows, extra)


def _long_rows(ev: Evaluation, name: str) -> tuple[list, list]:
    """The long rows, and with a spread the ``min`` and ``max`` columns (each query's worst and best value)."""
    from tieaware.io.frames import long_rows

    if not isinstance(name, str):
        raise bad("name", name, "must be a string, the system's name in the name column")
    names = [str(m) for m in ev.measures]
    rows = long_rows(name, ev.queries, ev.per_query, names)
    stats = ev.per_query_spread
    if stats is None:
        return rows, []
    return rows, [(c, [getattr(stats[q][m], attr) for q in ev.queries for m in names]) for c, attr in (("min", "worst"), ("max", "best"))]


def natural_key(qid: str) -> tuple:
    """Sort key putting q2 before q10.

    >>> sorted(["q10", "q2", "a"], key=natural_key)
    ['a', 'q2', 'q10']
    """
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(qid) if part)


_DIGITS = re.compile(r"(\d+)")


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    tie_break: Optional[str] = None,
    progress: bool = False,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
) -> Evaluation:
    """Evaluate *run* against *qrels* on *measures*.

    *qrels* and *run* are as :mod:`tieaware.io.trec` reads them, or in any shape
    :mod:`tieaware.io.inputs` takes: pytrec_eval dicts, ir_measures namedtuples,
    ir_measures or PyTerrier DataFrames.  Scores are taken exactly.

    With ``complete=True`` (trec_eval's ``-c``) the means are over every
    judged query, a judged query missing from the run counting as 0;
    :attr:`Evaluation.per_query` still holds only the evaluated queries.

    With ``tie_break=None`` (the default) each value is tie-aware: the exact
    expectation over every ordering of the tied documents.  With
    ``tie_break="trec_eval"`` ties are broken as trec_eval breaks them
    (docno descending) and the ordinary tie-oblivious value is computed, so
    the numbers match trec_eval's; any other preset of
    :mod:`tieaware.model.tie_presets` (``"mteb"``, ``"sentence-transformers"``,
    ``"docno-asc"``, ``"input"``, ``"pessimistic"``, ...) reproduces that
    library's or rule's number the same way.

    Parquet and Arrow files (by their name's ending), polars DataFrames and
    pyarrow Tables are read as columns (:mod:`tieaware.io.parquet`).
    ``tieaware.evaluate`` (:func:`tieaware.runs.stream.evaluate`) also takes
    *jobs*, query shards evaluated in that many processes.

    With *depth* (trec_eval's ``-M``) only the first *depth* documents of
    each query count: tie-aware, those of a uniformly random tie-breaking
    (:func:`tieaware.fast.at_depth`).  With *judged_only* (trec_eval's
    ``-J``) the documents not judged (not in the qrels, or with a negative
    label) are removed first, the ties of the rest kept.  trec_eval cuts at
    M, then removes; so does this.

    Beware: the tie-oblivious value depends on docnos, which carry no
    information about relevance; the tie-aware value does not.
    """
    ms, exact, complete = check_arguments(measures, layer, exact, tie_break, complete)
    depth, judged_only = _options(depth, judged_only)
    if columnar(qrels) or columnar(run):
        # Parquet/Arrow files, polars DataFrames, pyarrow Tables: read as columns (tieaware.io.parquet)
        from tieaware.io.columns import prepare

        prepared = prepare(table_of(qrels, "qrels"), table_of(run, "run"), trec_order=tie_break or False)
        return evaluate_prepared(
            prepared, ms, layer=layer, exact=exact, tie_break=tie_break, progress=progress, complete=complete,
            depth=depth, judged_only=judged_only,
        )
    qrels, run = to_qrels(qrels), to_run(run)
    queries = tuple(sorted((q for q in run if q in qrels), key=natural_key))
    if not queries:
        raise no_query(run, len(qrels))
    if layer == "fast" and not exact:
        # the vectorised float engine (tieaware.runs.engine), per query only for measures it lacks
        from tieaware.io.columns import prepare_dicts

        prepared = prepare_dicts(qrels, run, queries, trec_order=tie_break or False)  # trec_order: untied, its order
        per_query = _restricted(prepared, ms, layer, exact, progress, tie_break, depth, judged_only)
    else:
        to_rank = run_ranking if tie_break is None else (lambda docs, judged: broken_ranking(docs, judged, tie_break))
        per_query = {}
        marks = judged_only or any(m.name in UNJUDGED for m in ms)
        for qid in _progress(queries, progress, tie_break):
            judged = qrels[qid]
            ranking = to_rank(run[qid], Unjudged(judged) if marks else judged)
            ideal = list(judged.values())
            try:
                per_query[qid] = {
                    str(m): _value(m, ranking, ideal, layer, exact, depth, judged_only) for m in ms
                }
            except TieawareError as exc:
                raise TieawareError(f"query {qid!r}: {exc}") from None
    skipped_qrels = tuple(sorted((q for q in qrels if q not in run), key=natural_key))
    skipped_run = tuple(sorted((q for q in run if q not in qrels), key=natural_key))
    return finish(ms, queries, per_query, skipped_run, skipped_qrels, exact=exact, complete=complete)


def columnar(data: Any) -> bool:
    """A Parquet/Arrow path, a polars DataFrame or a pyarrow Table (pandas DataFrames keep the dict path)."""
    from tieaware.io.parquet import is_columnar_path

    kind = type(data).__module__.split(".")[0]
    return is_columnar_path(data) or (kind in ("polars", "pyarrow") and hasattr(data, "columns"))


def table_of(data: Any, kind: str) -> Any:
    """One input as a :class:`tieaware.io.columns.Table`: a file by its name's ending, or a DataFrame."""
    from tieaware.io import parquet
    from tieaware.io.columns import read_table

    if parquet.is_columnar_path(data):
        return parquet.read(data, kind)
    if parquet.is_frame(data):
        return parquet.table(data, kind, kind)
    import os

    if isinstance(data, (str, os.PathLike)):
        return read_table(data, kind)
    # any other shape: through the dict readers, then written as columns
    from tieaware.io.columns import Table

    rows = to_qrels(data) if kind == "qrels" else to_run(data)
    qid, docno, value = [], [], []
    for q, entries in rows.items():
        items = entries.items() if kind == "qrels" else entries
        for d, x in items:
            qid.append(q.encode())
            docno.append(d.encode())
            value.append(_decimal_text(x))
    import numpy as np

    as_bytes = lambda xs: np.array(xs, dtype="S") if xs else np.array([], dtype="S1")  # noqa: E731
    return Table(kind, kind, as_bytes(qid), as_bytes(docno), as_bytes(value), np.arange(1, len(qid) + 1, dtype=np.int64))


def _decimal_text(x: Fraction) -> bytes:
    """An exact decimal text of a Fraction read from a decimal (its denominator divides a power of 10)."""
    from decimal import Decimal, localcontext

    if x.denominator == 1:
        return str(x.numerator).encode()
    d = x.denominator
    for prime in (2, 5):
        while d % prime == 0:
            d //= prime
    if d != 1:
        raise bad("run", x, "holds a value with no finite decimal form; pass qrels and run in the same form (both DataFrames, or both dicts)")
    with localcontext() as ctx:
        ctx.prec = 10_000
        return format(Decimal(x.numerator) / Decimal(x.denominator), "f").encode()


def finish(
    ms: tuple[Measure, ...],
    queries: tuple[str, ...],
    per_query: dict[str, dict[str, Exact]],
    skipped_run: tuple[str, ...],
    skipped_qrels: tuple[str, ...],
    *,
    exact: bool,
    complete: bool,
) -> Evaluation:
    """The Evaluation of per-query values: means (with -c's zeros for judged queries the run lacks) and the skipped queries."""
    # -c: every judged query missing from the run adds a 0 to each mean (and a query to NumQ).
    missing = len(skipped_qrels) if complete else 0
    zero, one = (Fraction(0), Fraction(1)) if exact else (0.0, 1.0)
    mean = {
        key: aggregate(m, [per_query[q][key] for q in queries] + [one if m.name == "NumQ" else zero] * missing)
        for m, key in ((m, str(m)) for m in ms)
    }
    return Evaluation(
        measures=ms,
        queries=queries,
        per_query=per_query,
        mean=mean,
        skipped_run=skipped_run,
        skipped_qrels=skipped_qrels,
        complete=complete,
    )


def evaluate_prepared(
    prepared: Any,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    tie_break: Optional[str] = None,
    progress: bool = False,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
) -> Evaluation:
    """:func:`evaluate` on a run already joined and grouped by :func:`tieaware.io.columns.prepare`.

    This is the path of ``tieaware eval``: the files are read as columns, not
    dicts, and queries are evaluated one at a time (exact mode) or all at
    once (float mode, :mod:`tieaware.runs.engine`).
    """
    ms, exact, complete = check_arguments(measures, layer, exact, tie_break, complete)
    depth, judged_only = _options(depth, judged_only)
    if not prepared.qids:
        raise no_query(prepared.skipped_run, len(prepared.skipped_qrels))
    if tie_break is not None:
        from tieaware.runs.engine import trec_eval_view

        if getattr(prepared, "broken_by", None) not in (None, tie_break):
            raise ValueError(f"the Prepared rows hold the order of {prepared.broken_by!r}, not of {tie_break!r}")
        prepared = trec_eval_view(prepared)
    per_query = _restricted(prepared, ms, layer, exact, progress, tie_break, depth, judged_only)
    queries = tuple(sorted(prepared.qids, key=natural_key))
    skipped_run = tuple(sorted(prepared.skipped_run, key=natural_key))
    skipped_qrels = tuple(sorted(prepared.skipped_qrels, key=natural_key))
    return finish(ms, queries, per_query, skipped_run, skipped_qrels, exact=exact, complete=complete)


def _options(depth: object, judged_only: object) -> tuple[Optional[int], bool]:
    """trec_eval's -M (documents per query, an int >= 0 or None) and -J (a bool), checked."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise bad("depth", depth, "must be an int >= 0 (trec_eval's -M) or None")
    return depth, flag(judged_only, "judged_only")


def _value(
    m: Measure, ranking: list, ideal: list, layer: str, exact: bool, depth: Optional[int], judged_only: bool
) -> Exact:
    """One measure on one query's ranking, after trec_eval's -M (first *depth* documents) and -J (judged only)."""
    if judged_only:
        def value(r: list) -> Exact:
            return compute(m, drop_unjudged(r), ideal=ideal, layer=layer, exact=exact)
    else:
        def value(r: list) -> Exact:
            return compute(m, r, ideal=ideal, layer=layer, exact=exact)
    if depth is None:
        return value(ranking)
    return layer_module(layer).at_depth(value, ranking, depth)


def _restricted(
    p: Any, ms: tuple[Measure, ...], layer: str, exact: bool, progress: bool, tie_break: Optional[str],
    depth: Optional[int], judged_only: bool,
) -> dict[str, dict[str, Exact]]:
    """{qid: {measure: value}} after -M and -J: the rows cut and filtered where no tie crosses the cut
    (then every engine applies), the queries whose cut crosses a tie group one at a time (the mixture)."""
    if depth is None and not judged_only:
        return _per_query(p, ms, layer=layer, exact=exact, progress=progress, tie_break=tie_break)
    cut, mixed = _cut_rows(p, depth, judged_only)
    per_query = _per_query(cut, ms, layer=layer, exact=exact, progress=progress, tie_break=tie_break) if cut.qids else {}
    for i in mixed:
        qid = p.qids[i]
        ranking, ideal = _query_inputs(p, i)
        try:
            per_query[qid] = {str(m): _value(m, ranking, ideal, layer, exact, depth, judged_only) for m in ms}
        except TieawareError as exc:
            raise TieawareError(f"query {qid!r}: {exc}") from None
    return {q: per_query[q] for q in p.qids}


def _cut_rows(p: Any, depth: Optional[int], judged_only: bool) -> tuple[Any, list[int]]:
    """The Prepared rows kept by -M and -J, and the query numbers evaluated one at a time instead.

    A query whose cut at *depth* falls inside a tie group keeps a random
    part of it (:func:`tieaware.fast.at_depth`), and a query left with no
    document has nothing for the engines: both go to the one-query path.
    """
    from tieaware.io.columns import Prepared

    n = p.rows
    rows = np.arange(n)
    starts = p.query_start
    ends = np.append(starts[1:], n)
    keep = np.ones(n, dtype=bool)
    mixed: set[int] = set()
    if depth is not None:
        first_after = np.minimum(starts + depth, ends)  # the first row past the cut, per query
        keep &= rows < np.repeat(first_after, ends - starts)
        # a cut inside a group: the row at the cut and the one before it share a group
        group_of = np.searchsorted(p.group_start, rows, side="right") - 1
        inside = (first_after < ends) & (first_after > starts)
        at = np.flatnonzero(inside)
        crossing = at[group_of[first_after[at]] == group_of[first_after[at] - 1]]
        mixed.update(crossing.tolist())
    if judged_only:
        if p.judged is None:
            raise bad("judged_only", True, "needs to know which documents are judged")
        judged = p.judged & (np.ones(n, dtype=bool) if p.negative is None else ~p.negative)
        keep &= judged
    query_of = np.repeat(np.arange(len(p.qids)), ends - starts)
    left = np.bincount(query_of[keep], minlength=len(p.qids))
    mixed.update(np.flatnonzero(left == 0).tolist())
    if mixed:
        keep &= ~np.isin(query_of, np.array(sorted(mixed)))
    kept_queries = [i for i in range(len(p.qids)) if i not in mixed]
    number = np.full(len(p.qids), -1, dtype=np.int64)
    number[kept_queries] = np.arange(len(kept_queries))
    idx = np.flatnonzero(keep)
    query = number[query_of[idx]]
    group_of = np.searchsorted(p.group_start, idx, side="right") - 1
    new_group = np.ones(len(idx), dtype=bool)
    new_group[1:] = (group_of[1:] != group_of[:-1]) | (query[1:] != query[:-1])
    jkeep = np.isin(p.judged_query, np.array(kept_queries, dtype=np.int64))
    cut = Prepared(
        qids=[p.qids[i] for i in kept_queries],
        query=query,
        label=p.label[idx],
        label_values=p.label_values,
        group_start=np.flatnonzero(new_group),
        query_start=np.flatnonzero(np.append(True, query[1:] != query[:-1])) if len(idx) else np.array([], dtype=np.int64),
        judged_query=number[p.judged_query[jkeep]],
        judged_label=p.judged_label[jkeep],
        trec_order=None,
        skipped_run=p.skipped_run,
        skipped_qrels=p.skipped_qrels,
        judged=None if p.judged is None else p.judged[idx],
        negative=None if p.negative is None else p.negative[idx],
        judged_negative=None if p.judged_negative is None else p.judged_negative[jkeep],
    )
    return cut, sorted(mixed)


def _query_inputs(p: Any, i: int) -> tuple[list, list]:
    """Query number *i*'s tied ranking (None for unjudged, -1 for negative labels) and judged labels."""
    values = p.label_values
    lo = int(p.query_start[i])
    hi = int(p.query_start[i + 1]) if i + 1 < len(p.qids) else p.rows
    labels = [values[x] for x in p.label[lo:hi].tolist()]
    if p.judged is not None:
        seen = p.judged[lo:hi].tolist()
        neg = [False] * (hi - lo) if p.negative is None else p.negative[lo:hi].tolist()
        labels = [(_NEGATIVE if n else x) if s else None for x, s, n in zip(labels, seen, neg)]
    gs = p.group_start
    bounds = gs[np.searchsorted(gs, lo) : np.searchsorted(gs, hi)].tolist() + [hi]
    ranking = [labels[a - lo : b - lo] for a, b in zip(bounds, bounds[1:])]
    j_lo, j_hi = np.searchsorted(p.judged_query, [i, i + 1])
    ideal = [values[x] for x in p.judged_label[j_lo:j_hi].tolist()]
    if p.judged_negative is not None:
        ideal = [_NEGATIVE if n else x for x, n in zip(ideal, p.judged_negative[j_lo:j_hi].tolist())]
    return ranking, ideal


def _per_query(
    p: Any, ms: tuple[Measure, ...], *, layer: str, exact: bool, progress: bool, tie_break: Optional[str]
) -> dict[str, dict[str, Exact]]:
    """{qid: {measure: value}}: the engine's arrays where it can, else one query at a time."""
    per_query: dict[str, dict[str, Exact]] = {q: {} for q in p.qids}
    rest = list(ms)
    if layer == "fast" and not exact:
        from tieaware.runs import engine

        rest = []
        pieces = engine.chunks(p)  # bounded temporaries at any run size
        caches: list[dict] = [{} for _ in pieces]
        for m in ms:
            got = [engine.values(piece, m, cache) for piece, cache in zip(pieces, caches)]
            if any(v is None for v in got):
                rest.append(m)
                continue
            name = str(m)
            for piece, values_ in zip(pieces, got):
                for q, v in zip(piece.qids, values_.tolist()):
                    per_query[q][name] = v
    if rest and layer == "fast" and exact:
        # exact closed forms on group summaries counted in numpy (tieaware.runs.engine.ExactQueries)
        from tieaware.runs.engine import EXACT_SUPPORTED, ExactQueries

        here = [m for m in rest if m.name in EXACT_SUPPORTED]
        if here:
            queries = ExactQueries(p)
            names = [str(m) for m in here]
            for i in _progress(range(len(p.qids)), progress, tie_break, total=len(p.qids)):
                row = per_query[p.qids[i]]
                for m, name in zip(here, names):
                    got = queries.value(i, m)
                    if got is not None:
                        row[name] = got
            rest = [m for m in rest if any(str(m) not in per_query[q] for q in p.qids[:1])]
    names = [str(m) for m in ms]
    if not rest:
        return {q: {name: v[name] for name in names} for q, v in per_query.items()}
    values = p.label_values
    labels = p.label.tolist()
    bounds = p.group_start.tolist() + [p.rows]
    query_end = p.query_start.tolist()[1:] + [p.rows]
    judged_ends = np.searchsorted(p.judged_query, np.arange(len(p.qids)), side="right").tolist()
    judged = p.judged_label.tolist()
    judged_negative = None if p.judged_negative is None else p.judged_negative.tolist()
    marks = any(m.name in UNJUDGED for m in rest)
    if marks:
        if p.judged is None:
            raise bad("measures", [str(m) for m in rest if m.name in UNJUDGED], "need to know which documents are judged")
        seen = p.judged.tolist()
        negative = None if p.negative is None else p.negative.tolist()
        query_start_all = p.query_start.tolist()
    g, j0 = 0, 0
    for i in _progress(range(len(p.qids)), progress, tie_break, total=len(p.qids)):
        qid = p.qids[i]
        ranking: list = []
        while g < len(bounds) - 1 and bounds[g] < query_end[i]:
            lo, hi = bounds[g], bounds[g + 1]
            ranking.append(values[labels[lo]] if hi - lo == 1 else [values[x] for x in labels[lo:hi]])
            g += 1
        ideal = [values[x] for x in judged[j0 : judged_ends[i]]]
        if judged_negative is not None:  # -1 for a negative label: not in Bpref's N
            ideal = [_NEGATIVE if neg else x for x, neg in zip(ideal, judged_negative[j0 : judged_ends[i]])]
        j0 = judged_ends[i]
        if marks:  # None for the unjudged rows, read by Judged and Bpref (every other measure reads 0)
            lo, hi = query_start_all[i], query_end[i]
            ranking = _mark_unjudged(ranking, seen[lo:hi], None if negative is None else negative[lo:hi])
        try:
            for m in rest:
                per_query[qid][str(m)] = compute(m, ranking, ideal=ideal, layer=layer, exact=exact)
        except TieawareError as exc:
            raise TieawareError(f"query {qid!r}: {exc}") from None
    # keep the measures in the order asked for
    return {q: {name: v[name] for name in names} for q, v in per_query.items()}


def _progress(queries: Iterable[Any], show: bool, tie_break: Optional[str], total: Optional[int] = None) -> Iterable[Any]:
    if not show:
        return queries
    import sys

    from tqdm import tqdm

    desc = "queries (trec_eval order)" if tie_break else "queries (tie-aware)"
    # disable=None: silent when stderr is not a terminal, so logs stay clean.
    # delay=2: only work that lasts over ~2 s shows a bar.
    return tqdm(queries, desc=desc, unit="q", file=sys.stderr, disable=None, leave=False, delay=2, total=total)
