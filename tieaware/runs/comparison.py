"""How much ties move a run's score, and whether run A beats run B whatever the ties.

Per query, a measure's value on a ranking with ties is a random variable
over the uniformly random tie-breaking: :class:`QueryStats` holds its mean,
minimum, maximum, variance and, where available, its exact distribution.
Queries are tie-broken independently, and so are two runs, so:

- the minimum (maximum) of the mean over queries is the mean of the
  per-query minima (maxima), and that of the mean difference A − B is the
  mean of (min A_q − max B_q) (of (max A_q − min B_q));
- the variance of the mean is Σ var / n², so its standard deviation due to
  ties is √(Σ var)/n;
- the distribution of the mean difference is the convolution of the
  per-query distributions of A_q − B_q, and P(A > B) is its mass above 0.

:func:`spread` gives the first two for ``tieaware eval --spread``;
:func:`compare_runs` all of them for ``tieaware compare`` (docs/uncertainty.md).

>>> from tieaware.io.trec import parse_qrels, parse_run
>>> qrels = parse_qrels(["q1 0 a 1", "q1 0 b 0"])
>>> a = parse_run(["q1 Q0 a 1 2 A", "q1 Q0 b 2 2 A"])     # a and b tie
>>> b = parse_run(["q1 Q0 b 1 3 B", "q1 Q0 a 2 2 B"])     # b above a
>>> c = compare_runs(qrels, a, b, "P@1")[0]
>>> c.expected_difference, c.min_difference, c.max_difference, c.verdict, c.p_greater
(Fraction(1, 2), Fraction(0, 1), Fraction(1, 1), 'some', Fraction(1, 2))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import TieawareError, bad
from tieaware.runs.evaluate import UNJUDGED, MeasureSpec, layer_module, Unjudged, compute, evaluate_prepared, exact_mean, measure_list, natural_key
from tieaware.model.exact import Exact, is_rational, to_float
from tieaware.io.exact_print import interval, nearest_float as _float
from tieaware.fast.tie_spread import spread_stats, spread_stats_many
from tieaware.model.names import Measure
from tieaware.model.params import flag
from tieaware.io.inputs import to_qrels, to_run
from tieaware.io.trec import Qrels, Run, run_ranking

__all__ = [
    "QueryStats",
    "query_stats",
    "Spread",
    "spread",
    "evaluate_spread",
    "evaluate_spread_prepared",
    "Comparison",
    "compare_runs",
    "compare_runs_prepared",
    "MAX_SUPPORT",
    "VERDICTS",
    "minus",
    "sign",
    "spreadable",
    "Inputs",
    "compare_arguments",
    "compare_measures",
]

#: The convolution of per-query difference distributions stops being exact past this many atoms.
MAX_SUPPORT = 200_000
#: A beats B for every tie-breaking of both runs, for some, or for none.
VERDICTS = ("every", "some", "none")
#: Float-valued differences this close to 0 count as ties (float mode, irrational measures).
FLOAT_TIE = 1e-12


@dataclass(frozen=True)
class QueryStats:
    """One query's value over the uniformly random tie-breaking of its ranking."""

    #: The expected (tie-aware) value; None where it was not needed (eval --spread).
    expected: Optional[Exact]
    worst: Exact
    best: Exact
    variance: Exact
    #: {value: probability}, or None when not computed or not available.
    distribution: Optional[dict[Any, Any]] = None

    @property
    def depends_on_ties(self) -> bool:
        """True when some tie-breakings give different values."""
        return sign(minus(self.best, self.worst)) != 0


def query_stats(
    measure: Measure,
    ranking: Sequence[Any],
    ideal: Sequence[Any],
    *,
    layer: str = "fast",
    exact: bool = True,
    distribution: bool = False,
) -> QueryStats:
    """Mean, min, max, variance (and with *distribution*, the pmf) of *measure* on one ranking.

    >>> from tieaware.model.names import parse
    >>> s = query_stats(parse("P@1"), [[1, 0]], [1, 0], distribution=True)
    >>> s.expected, s.worst, s.best, s.variance
    (Fraction(1, 2), Fraction(0, 1), Fraction(1, 1), Fraction(1, 4))
    >>> sorted(s.distribution.items())
    [(Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 1), Fraction(1, 2))]
    """
    expected = compute(measure, ranking, ideal=ideal, layer=layer, exact=exact)
    s = spread_stats(measure, ranking, ideal, exact=exact, distribution=distribution)
    pmf = s.distribution
    if distribution and pmf is None and exact and measure.name in ("DCG", "nDCG"):
        # Irrational values: compare convolves floats anyway, so take the float distribution.
        pmf = spread_stats(measure, ranking, ideal, exact=False, distribution=True).distribution
    return QueryStats(expected, s.worst, s.best, s.variance, pmf if distribution else None)


# --- exact arithmetic helpers -------------------------------------------------


def minus(a: Any, b: Any) -> Any:
    """a - b, exactly for exact values (a LogSum difference as vectors), in float when either is a float."""
    if isinstance(a, float) or isinstance(b, float):
        return _float(a) - _float(b)
    if is_rational(a) and is_rational(b):
        return Fraction(a) - Fraction(b)
    if getattr(a, "vectors", False) or getattr(b, "vectors", False):  # DCG sums as vectors: a vector difference
        from tieaware.model.logsum import LogSum

        d = LogSum.of(a) - LogSum.of(b)
        q = d.rational()
        return d if q is None else q
    import sympy

    d = sympy.sympify(a) - sympy.sympify(b)
    return Fraction(int(d.p), int(d.q)) if d.is_Rational else d


def sign(value: Any) -> int:
    """-1, 0 or 1, exactly for exact values (tieaware.model.exactcmp), within FLOAT_TIE for floats."""
    if isinstance(value, float):
        return 0 if abs(value) <= FLOAT_TIE else (1 if value > 0 else -1)
    if is_rational(value):
        return (value > 0) - (value < 0)
    if getattr(value, "vectors", False):  # a LogSum: certified by its own intervals (exactcmp when they overlap 0)
        return value.sign()
    import sympy

    box = interval(sympy.sympify(value), 64)  # an enclosure: its sign, where it has one, is the value's
    if box.a > 0:
        return 1
    if box.b < 0:
        return -1
    from tieaware.model.exactcmp import compare

    return compare(value, Fraction(0))


def _sqrt(value: Any) -> Any:
    """√value: exact when it is a rational square, else sympy's exact sqrt; floats stay floats."""
    if isinstance(value, float):
        return math.sqrt(max(value, 0.0))
    import sympy

    root = sympy.sqrt(sympy.sympify(value))
    return Fraction(int(root.p), int(root.q)) if root.is_Rational else root


# --- eval --spread ------------------------------------------------------------


@dataclass(frozen=True)
class Spread:
    """How far one measure's mean over queries could move with the tie-breaking."""

    measure: str
    #: The mean over queries of each query's minimum (maximum): the minimum (maximum) of the mean.
    #: For the counts (NumRet, ...) the sum, for GMAP and GMBpref the geometric mean, as their value over queries.
    min_mean: Exact
    max_mean: Exact
    #: √(Σ var)/n: the standard deviation of the mean due to ties (of the sum: √(Σ var)); None for the
    #: geometric mean, whose variance over tie-breakings is not computed (docs/eval.md).
    sd_mean: Optional[Exact]
    #: Queries whose value depends on the tie-breaking.
    queries_moved: int
    queries: int


def spreadable(ms: tuple) -> tuple:
    """Refuse, before any query is read, a measure whose spread is not computed (not blamed on a query)."""
    from tieaware.fast.tie_spread import NO_CONVENTION_SPREAD, SPREAD_MEASURES

    for m in ms:
        if getattr(m, "conventions", ()):
            raise bad("measure", str(m), NO_CONVENTION_SPREAD)
        if m.name == "nDCGRel":
            from tieaware.fast.family_spread import NO_FAMILY_SPREAD

            raise bad("measure", str(m), NO_FAMILY_SPREAD)
        if m.name not in SPREAD_MEASURES and m.name != "RBO":  # RBO gets its own message
            raise bad(
                "measure", str(m), f"has no spread over tie-breakings yet; it is computed for {', '.join(sorted(SPREAD_MEASURES))}"
            )
    return ms


def spread(per_query: Mapping[str, Mapping[str, QueryStats]], measures: Iterable[str], exact: bool = True) -> dict[str, Spread]:
    """Per measure, the :class:`Spread` from per-query stats ({qid: {measure: QueryStats}}).

    >>> s = QueryStats(Fraction(1, 2), Fraction(0), Fraction(1), Fraction(1, 4))
    >>> spread({"q1": {"P@1": s}, "q2": {"P@1": s}}, ["P@1"])["P@1"].sd_mean    # √(1/4 + 1/4) / 2
    sqrt(2)/4
    """
    from tieaware.model.names import parse
    from tieaware.runs.evaluate import aggregate

    out = {}
    queries = list(per_query)
    n = len(queries)
    for m in measures:
        stats = [per_query[q][m] for q in queries]
        variances = [s.variance for s in stats]
        total = math.fsum(map(_float, variances)) if not exact else _total(variances)
        how = parse(m).aggregate
        sd: Optional[Exact] = _divide(_sqrt(total), n)
        if how == "sum":
            sd = _sqrt(total)
        elif how == "gm":  # the geometric mean is increasing in every query's value: its extremes are the queries'
            sd = None
        out[m] = Spread(
            measure=m,
            min_mean=aggregate(parse(m), [s.worst for s in stats]),
            max_mean=aggregate(parse(m), [s.best for s in stats]),
            sd_mean=sd,
            queries_moved=sum(1 for s in stats if s.depends_on_ties),
            queries=n,
        )
    return out


def evaluate_spread(
    qrels: Qrels,
    run: Run,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    progress: bool = False,
    complete: bool = False,
) -> dict[str, Spread]:
    """:func:`spread` of *run* over the queries ``tieaware eval`` evaluates (run ∩ qrels).

    With ``complete=True`` (trec_eval's ``-c``) every judged query missing from
    the run counts too, as a 0 that no tie-breaking moves.

    >>> from tieaware.io.trec import parse_qrels, parse_run
    >>> qrels = parse_qrels(["q1 0 a 1"])
    >>> run = parse_run(["q1 Q0 a 1 2 A", "q1 Q0 b 2 2 A"])
    >>> s = evaluate_spread(qrels, run, "P@1")["P@1"]
    >>> s.min_mean, s.max_mean, s.sd_mean, s.queries_moved
    (Fraction(0, 1), Fraction(1, 1), Fraction(1, 2), 1)
    """
    ms = spreadable(measure_list(measures))
    exact = flag(exact, "exact")
    layer_module(layer)
    qrels, run = to_qrels(qrels), to_run(run)  # any shape evaluate() takes
    queries = tuple(sorted((q for q in run if q in qrels), key=natural_key))
    if not queries:
        raise bad("run", sorted(run, key=natural_key)[:5], "has no query that appears in the qrels")
    marks = any(m.name in UNJUDGED for m in ms)  # Judged and Bpref tell unjudged (None) from judged 0
    per_query: dict[str, dict[str, QueryStats]] = {}
    for qid in _progress(queries, progress, "queries (spread)"):
        judged = qrels[qid]
        ranking, ideal = run_ranking(run[qid], Unjudged(judged) if marks else judged), list(judged.values())
        try:
            # The spread needs no expected value (eval has it already): the stats alone, ranking read once.
            stats = spread_stats_many(ms, ranking, ideal, exact=exact)
            per_query[qid] = {str(m): QueryStats(None, *s[:3]) for m, s in zip(ms, stats)}
        except TieawareError as exc:
            raise TieawareError(f"query {qid!r}: {exc}") from None
    if flag(complete, "complete"):
        zero = Fraction(0) if exact else 0.0
        for qid in (q for q in qrels if q not in run):
            per_query[qid] = {str(m): QueryStats(zero, zero, zero, zero) for m in ms}
    return spread(per_query, [str(m) for m in ms], exact=exact)


def evaluate_spread_prepared(
    prepared: Any,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    progress: bool = False,
    complete: bool = False,
) -> dict[str, Spread]:
    """:func:`evaluate_spread` on a run already read as columns (:class:`tieaware.io.columns.Prepared`).

    ``tieaware eval`` reads its files once, as columns; this takes each
    query's tie groups and judged labels from there instead of reading the
    files again.
    """
    ms = spreadable(measure_list(measures))
    exact = flag(exact, "exact")
    layer_module(layer)
    complete = flag(complete, "complete")
    per_query = _spread_per_query(prepared, ms, exact, layer, progress)
    if complete:
        zero = Fraction(0) if exact else 0.0
        for qid in prepared.skipped_qrels:
            per_query[qid] = {str(m): QueryStats(zero, zero, zero, zero) for m in ms}
    return spread(per_query, [str(m) for m in ms], exact=exact)


class Inputs:
    """One query's (ranking, ideal) from a :class:`~tieaware.io.columns.Prepared`, by query number.

    The ranking is a list of tie groups (lists of labels); with *marks*, an
    unjudged document's label is None (read by Judged and Bpref).
    """

    def __init__(self, prepared: Any, marks: bool) -> None:
        import numpy as np

        self.p = prepared
        self.starts = np.append(prepared.query_start, prepared.rows)
        self.group_starts = np.append(prepared.group_start, prepared.rows)
        self.judged_at = np.searchsorted(prepared.judged_query, np.arange(len(prepared.qids) + 1))
        self.marks = marks and prepared.judged is not None

    def __call__(self, number: int) -> tuple[list, list]:
        import numpy as np

        p, values = self.p, self.p.label_values
        first, last = int(self.starts[number]), int(self.starts[number + 1])
        labels = [values[i] for i in p.label[first:last].tolist()]
        if self.marks:  # None for the unjudged rows, -1 for negative labels (in the qrels, not judged)
            neg = [False] * (last - first) if p.negative is None else p.negative[first:last].tolist()
            labels = [(_NEGATIVE if n else x) if seen else None for x, seen, n in zip(labels, p.judged[first:last].tolist(), neg)]
        gs = self.group_starts
        bounds = gs[np.searchsorted(gs, first) : np.searchsorted(gs, last) + 1].tolist()
        ranking = [labels[a - first : b - first] for a, b in zip(bounds, bounds[1:])]
        lo, hi = self.judged_at[number], self.judged_at[number + 1]
        ideal = [values[i] for i in p.judged_label[lo:hi].tolist()]
        if p.judged_negative is not None:  # -1: not in Bpref's N
            ideal = [_NEGATIVE if n else x for x, n in zip(ideal, p.judged_negative[lo:hi].tolist())]
        return ranking, ideal


_NEGATIVE = Fraction(-1)


def _spread_per_query(prepared: Any, ms: Sequence[Measure], exact: bool, layer: str, progress: bool) -> dict[str, dict[str, QueryStats]]:
    """{qid: {measure: QueryStats}}: every query at once in float mode (the spread engine), else one at a time."""
    if not exact and layer == "fast" and not any(m.name == "RBO" for m in ms):
        return _array_spread(prepared, ms, progress)
    return _per_query_spread(prepared, ms, exact, progress)


def _per_query_spread(prepared: Any, ms: Sequence[Measure], exact: bool, progress: bool) -> dict[str, dict[str, QueryStats]]:
    """{qid: {measure: QueryStats}} by :func:`tieaware.fast.tie_spread.spread_stats_many`, one query at a time."""
    inputs = Inputs(prepared, any(m.name in UNJUDGED for m in ms))
    order = sorted(range(len(prepared.qids)), key=lambda i: natural_key(prepared.qids[i]))
    per_query: dict[str, dict[str, QueryStats]] = {}
    for number in _progress(order, progress, "queries (spread)"):
        qid = prepared.qids[number]
        ranking, ideal = inputs(number)
        try:
            stats = spread_stats_many(ms, ranking, ideal, exact=exact)
        except TieawareError as exc:
            raise TieawareError(f"query {qid!r}: {exc}") from None
        per_query[qid] = {str(m): QueryStats(None, *s[:3]) for m, s in zip(ms, stats)}
    return per_query


def _array_spread(prepared: Any, ms: Sequence[Measure], progress: bool) -> dict[str, dict[str, QueryStats]]:
    """Float {qid: {measure: QueryStats}}, every query at once (:mod:`tieaware.runs.spread_engine`).

    A measure the array engine does not do (ERR, trec_eval's measures), or
    cannot do on these labels, is computed per query by tie_spread.
    """
    import numpy as np

    from tieaware.runs import engine, spread_engine

    columns: dict[str, list[list[np.ndarray]]] = {str(m): [[], [], []] for m in ms}
    slow: list[Measure] = []
    cache: dict = {}
    pieces = engine.chunks(prepared)
    for piece in _progress(pieces, progress and len(pieces) > 1, "chunks (spread)"):
        cache.clear()
        for m in ms:
            if m in slow:
                continue
            got = spread_engine.stats(piece, m, cache)
            if got is None:
                slow.append(m)
                continue
            for column, part in zip(columns[str(m)], got):
                column.append(part)
    per_query = _per_query_spread(prepared, slow, False, progress) if slow else {q: {} for q in prepared.qids}
    for m in ms:
        if m not in slow:
            worst, best, var = (np.concatenate(c).tolist() for c in columns[str(m)])
            for q, lo, hi, v in zip(prepared.qids, worst, best, var):
                per_query[q][str(m)] = QueryStats(None, lo, hi, v)
    for i in np.flatnonzero(_fixed_queries(prepared)).tolist():
        # every ordering gives the same ranking of labels: the variance is 0, not the float sum's cancellation (~1e-11)
        stats = per_query[prepared.qids[i]]
        for key, s in stats.items():
            stats[key] = dataclasses.replace(s, variance=0.0)
    return per_query


def _fixed_queries(prepared: Any) -> Any:
    """Which queries no tie-breaking changes: every tie group's documents share label, judged and negative flags."""
    import numpy as np

    key = prepared.label.astype(np.int64) * 4
    if prepared.judged is not None:
        key = key + 2 * prepared.judged.astype(np.int64)
    if prepared.negative is not None:
        key = key + prepared.negative.astype(np.int64)
    n = len(prepared.qids)
    if not prepared.rows:
        return np.ones(n, dtype=bool)
    starts = prepared.group_start
    mixed = np.minimum.reduceat(key, starts) != np.maximum.reduceat(key, starts)
    return np.bincount(prepared.query[starts][mixed], minlength=n) == 0


def _total(values: Sequence[Any]) -> Any:
    if all(is_rational(v) for v in values):
        return sum((Fraction(v) for v in values), Fraction(0))
    import sympy

    return sympy.Add(*(sympy.sympify(v) for v in values))


def _divide(value: Any, n: int) -> Any:
    if isinstance(value, float):
        return value / n
    if is_rational(value):
        return Fraction(value) / n
    return value / n


# --- compare ------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Run A against run B on one measure, over every tie-breaking of both runs."""

    measure: str
    queries: int
    #: Expected (tie-aware) mean of each run.
    mean_a: Exact
    mean_b: Exact
    #: E[mean A − mean B], and its minimum and maximum over every tie-breaking of both runs.
    expected_difference: Exact
    min_difference: Exact
    max_difference: Exact
    #: "every": A > B for every tie-breaking; "none": for none; "some": for some.
    verdict: str
    #: P(mean A > mean B) under independent uniform tie-breaking of both runs.
    p_greater: Any
    #: How p_greater was obtained: "bounds", "exact", "float" or "normal".
    method: str
    #: One line saying how exact p_greater is.
    note: str
    #: Standard deviation of the mean difference due to ties.
    sd_difference: Exact


def compare_runs(
    qrels: Qrels,
    run_a: Run,
    run_b: Run,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    progress: bool = False,
    max_support: int = MAX_SUPPORT,
) -> list[Comparison]:
    """Compare two runs on the queries that have qrels and appear in both runs.

    Qrels and runs come in any shape :func:`tieaware.evaluate` takes
    (pytrec_eval dicts, tieaware's own, ir_measures namedtuples, DataFrames).
    Raises TieawareError when no query is shared.  The work is that of
    :func:`compare_runs_prepared` (``tieaware compare``).
    """
    ms, exact, progress, max_support = compare_arguments(measures, layer, exact, progress, max_support)
    qrels, run_a, run_b = to_qrels(qrels), to_run(run_a), to_run(run_b)
    queries = shared_queries(qrels, run_a, run_b)
    from tieaware.io.columns import prepare_dicts

    prepared = [prepare_dicts(qrels, run, queries) for run in (run_a, run_b)]
    return compare_runs_prepared(*prepared, ms, layer=layer, exact=exact, progress=progress, max_support=max_support)


def compare_arguments(measures: MeasureSpec, layer: str, exact: object, progress: object, max_support: object) -> tuple:
    """compare_runs' arguments checked, before any query is read: (measures, exact, progress)."""
    ms = spreadable(measure_list(measures))
    exact = flag(exact, "exact")
    progress = flag(progress, "progress")
    layer_module(layer)
    if isinstance(max_support, bool) or not isinstance(max_support, int) or max_support < 1:
        raise bad("max_support", max_support, "must be an int >= 1")
    for m in ms:
        if m.name == "RBO":
            raise bad("measure", str(m), "compares two rankings, not a run with qrels; use `tieaware rbo`")
        if m.aggregate != "mean":  # the counts sum over queries, GMAP and GMBpref take the geometric mean
            raise bad(
                "measure", str(m),
                "is not a mean over queries (a count sums, GMAP and GMBpref take the geometric mean); compare compares means "
                "(compare AP or Bpref, or use `tieaware eval --spread` on each run)",
            )
    return ms, exact, progress, max_support


def compare_runs_prepared(
    prepared_a: Any,
    prepared_b: Any,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    progress: bool = False,
    max_support: int = MAX_SUPPORT,
) -> list[Comparison]:
    """:func:`compare_runs` on two runs already joined to the same qrels by :func:`tieaware.io.columns.prepare`.

    This is the path of ``tieaware compare``, as :func:`tieaware.runs.evaluate.evaluate_prepared`
    is eval's: each run's expected values come from
    :func:`~tieaware.runs.evaluate.evaluate_prepared` (the vectorised engine in
    float mode, group summaries counted in numpy in exact mode), its minima,
    maxima and variances from the spread engine (float) or
    :func:`~tieaware.fast.tie_spread.spread_stats_many` (exact), as
    ``tieaware eval --spread`` has them.  Per-query distributions, which
    only P(A > B) needs, are computed one query at a time while the
    convolution goes on, so none is computed once P(A > B) has to be
    approximated (see :func:`_p_greater`).
    """
    ms, exact, progress, max_support = compare_arguments(measures, layer, exact, progress, max_support)
    in_b = set(prepared_b.qids)
    queries = tuple(sorted((q for q in prepared_a.qids if q in in_b), key=natural_key))
    if not queries:
        names = sorted(set(prepared_a.qids) | set(prepared_b.qids) | set(prepared_a.skipped_run) | set(prepared_b.skipped_run), key=natural_key)
        raise bad("runs", names[:5], "share no query that has qrels")
    sides = []
    for prepared in (prepared_a, prepared_b):
        values = evaluate_prepared(prepared, ms, layer=layer, exact=exact, progress=progress).per_query
        stats = _spread_per_query(prepared, ms, exact, layer, progress)
        number = {q: i for i, q in enumerate(prepared.qids)}
        sides.append((values, stats, number, Inputs(prepared, any(m.name in UNJUDGED for m in ms))))
    return compare_measures(
        ms, queries, exact, max_support,
        [lambda q, key, side=side: _with_expected(side, q, key) for side in sides],
        [lambda position, q, side=side: side[3](side[2][q]) for side in sides],
        progress,
    )


def compare_measures(
    ms: Sequence[Measure],
    queries: Sequence[str],
    exact: bool,
    max_support: int,
    stats: Sequence[Callable[[str, str], QueryStats]],
    inputs: Sequence[Callable[[int, str], tuple[list, list]]],
    progress: bool = False,
) -> list[Comparison]:
    """Each measure's :class:`Comparison` of two runs over *queries*.

    ``stats[side](qid, key)`` gives a run's :class:`QueryStats` for one query and
    measure, ``inputs[side](position, qid)`` its (ranking, ideal) for the query at
    that position of *queries*: per-query distributions are computed one query
    at a time while P(A > B)'s convolution asks for them (see :func:`_p_greater`).
    """
    out = []
    for m in ms:
        key = str(m)
        a = [stats[0](q, key) for q in queries]
        b = [stats[1](q, key) for q in queries]

        def pairs(m: Measure = m) -> Iterable[tuple[Optional[dict], Optional[dict]]]:
            # one query's two distributions at a time, only as far as the convolution goes
            for position, q in enumerate(_progress(queries, progress, f"P(A > B) {m}")):
                try:
                    yield tuple(_distribution(m, *get(position, q), exact) for get in inputs)  # type: ignore[misc]
                except TieawareError as exc:
                    raise TieawareError(f"query {q!r}: {exc}") from None

        out.append(_compare(key, a, b, exact, max_support, pairs))
    return out


def _with_expected(side: tuple, qid: str, key: str) -> QueryStats:
    values, stats, _, _ = side
    s = stats[qid][key]
    return QueryStats(values[qid][key], s.worst, s.best, s.variance)


def _distribution(m: Measure, ranking: list, ideal: list, exact: bool) -> Optional[dict[Any, Any]]:
    """One query's {value: probability} over its tie-breakings, or None when it has too many values."""
    pmf = spread_stats(m, ranking, ideal, exact=exact, distribution=True).distribution
    if pmf is None and exact and m.name in ("DCG", "nDCG"):
        # Irrational values: the convolution is in floats anyway, so take the float distribution.
        pmf = spread_stats(m, ranking, ideal, exact=False, distribution=True).distribution
    return pmf


def shared_queries(qrels: Qrels, run_a: Run, run_b: Run) -> tuple[str, ...]:
    """The queries with qrels in both runs, in natural order."""
    queries = tuple(sorted((q for q in run_a if q in run_b and q in qrels), key=natural_key))
    if not queries:
        raise bad("runs", sorted(set(run_a) | set(run_b), key=natural_key)[:5], "share no query that has qrels")
    return queries


def _progress(queries: Sequence[Any], show: bool, desc: str = "queries (both runs)") -> Iterable[Any]:
    if not show:
        return queries
    import sys

    from tqdm import tqdm

    # disable=None: silent when stderr is not a terminal, so logs stay clean.
    # delay=2: only work that lasts over ~2 s shows a bar.
    return tqdm(queries, desc=desc, unit="q", file=sys.stderr, disable=None, leave=False, delay=2)


def _compare(
    m: str,
    a: Sequence[QueryStats],
    b: Sequence[QueryStats],
    exact: bool,
    max_support: int,
    pairs: Callable[[], Iterable[tuple[Optional[dict], Optional[dict]]]],
) -> Comparison:
    n = len(a)
    mean_a = exact_mean([s.expected for s in a])
    mean_b = exact_mean([s.expected for s in b])
    low = exact_mean([minus(x.worst, y.best) for x, y in zip(a, b)])
    high = exact_mean([minus(x.best, y.worst) for x, y in zip(a, b)])
    variance = _total([s.variance for s in a + b]) if exact else math.fsum(_float(s.variance) for s in list(a) + list(b))
    expected = minus(mean_a, mean_b)
    if sign(low) > 0:
        verdict = "every"
    elif sign(high) <= 0:
        verdict = "none"
    else:
        verdict = "some"
    # A bound on |Σ (A_q − B_q)| for any tie-breaking: the float convolution's integer grid must hold it.
    if m.startswith(("DCG", "Utility")):  # not within [0, 1]
        reach = math.fsum(max(abs(_float(x.best) - _float(y.worst)), abs(_float(x.worst) - _float(y.best))) for x, y in zip(a, b))
    else:
        reach = float(n)  # every other measure lies in [0, 1]
    p, method, note = _p_greater(verdict, expected, variance, n, exact, max_support, pairs, reach)
    return Comparison(
        measure=m,
        queries=n,
        mean_a=mean_a,
        mean_b=mean_b,
        expected_difference=expected,
        min_difference=low,
        max_difference=high,
        verdict=verdict,
        p_greater=p,
        method=method,
        note=note,
        sd_difference=_divide(_sqrt(variance), n),
    )


#: The exact (Fraction) convolution combines at most this many pairs of atoms
#: (Σ over queries of |support so far| × |query's support|) before it goes on in floats.
EXACT_WORK = 1_000_000
#: The float convolution (numpy) combines at most this many pairs of atoms before
#: P(A > B) becomes the normal approximation: together with EXACT_WORK and
#: ``max_support`` this bounds compare's time whatever the number of queries.
FLOAT_WORK = 50_000_000


def _p_greater(
    verdict: str,
    expected: Any,
    variance: Any,
    n: int,
    exact: bool,
    max_support: int,
    pairs: Callable[[], Iterable[tuple[Optional[dict], Optional[dict]]]],
    reach: float = 1.0,
) -> tuple[Any, str, str]:
    one = Fraction(1) if exact else 1.0
    if verdict == "every":
        return one, "bounds", "exact: the smallest difference is > 0"
    if verdict == "none":
        return one * 0, "bounds", "exact: the largest difference is <= 0"
    done = _Convolution(exact, max_support, reach).run(pairs(), n)
    if done.stopped is not None:
        return _normal(expected, variance, n), "normal", (
            f"approximate: {done.stopped}; normal approximation from the {'exact ' if exact else ''}mean and variance of the difference"
        )
    if done.exact:
        return done.p_greater(), "exact", "exact: convolution of the per-query distributions"
    return done.p_greater(), "float", (
        f"float ({done.why}): convolution of the per-query distributions in floats; "
        f"|difference| <= {FLOAT_TIE:g} counts as a tie"
    )


class _Convolution:
    """The distribution of Σ_q (A_q − B_q), one query at a time, within bounded work.

    Exact mode starts with Fractions (keys and probabilities); a query with
    irrational values, or more than :data:`EXACT_WORK` pairs combined, moves
    it to floats: keys on an integer grid (units of 2**-48 or coarser, so
    that the sum of any tie-breaking fits in int64, and values equal up to
    float rounding fall together), probabilities as doubles, merged with
    numpy.  It stops (and P(A > B) is approximated) at a missing per-query
    distribution, a support above *max_support*, or more than
    :data:`FLOAT_WORK` pairs.
    """

    def __init__(self, exact: bool, max_support: int, reach: float) -> None:
        self.exact = exact
        self.max_support = max_support
        self.total: dict[Any, Any] = {Fraction(0): Fraction(1)}
        self.keys: Any = None  # numpy int64 grid keys, once in floats
        self.probs: Any = None
        self.work = 0
        #: non-constant steps merged, and the sum of their sizes (for the projection)
        self.steps = 0
        self.pairs_per_step = 0
        self.stopped: Optional[str] = None
        self.why = "float mode"
        bits = max(0, math.ceil(math.log2(reach + 1)))
        self.grid = 2.0 ** min(48, 61 - bits)  # |Σ| * grid < 2**61 whatever the tie-breaking

    def run(self, pairs: Iterable[tuple[Optional[dict], Optional[dict]]], n: int) -> "_Convolution":
        """Convolve the per-query distributions *pairs* (of *n* queries) until done or stopped."""
        if not self.exact:
            self._to_floats()
        for done, (x, y) in enumerate(pairs, start=1):
            if x is None or y is None:
                self.stopped = "a per-query distribution has more than 5,000 values"
                break
            if self.exact and not all(is_rational(v) for d in (x, y) for v in d):
                self.why = "irrational values"
                self._to_floats()
            if self.exact:
                step = self._exact_step(x, y)
                if len(step) > 1 and self.work + len(self.total) * len(step) > EXACT_WORK:
                    self.why = f"the exact convolution would combine more than {EXACT_WORK:,} pairs of values"
                    self._to_floats()
                elif not self._exact_merge(step):
                    break
            if not self.exact and not self._float_merge(x, y):
                break
            if not self._affordable(done, n):
                break
        return self

    def _affordable(self, done: int, n: int) -> bool:
        """Whether the rest of the convolution is likely to stay within the work bounds.

        The support of a sum grows at least linearly with the number of
        queries that move, so after *done* queries the rest is projected as
        (pairs per step so far) × (support per query so far) × the queries
        to come: a run of thousands of queries is sent to the normal
        approximation after a few of them, not after the bound is spent.
        """
        if done < 8 or done >= n or self.steps == 0:
            return True
        size = len(self.total) if self.exact else len(self.keys)
        per_step = self.pairs_per_step / self.steps
        projected = self.work + per_step * (size / done) * (n * n - done * done) / 2
        if self.exact and projected > EXACT_WORK:
            self.why = f"the exact convolution would combine more than {EXACT_WORK:,} pairs of values"
            self._to_floats()
        if not self.exact and projected > FLOAT_WORK:
            self.stopped = f"the convolution would combine more than {FLOAT_WORK:,} pairs of values"
            return False
        return True

    # -- exact ------------------------------------------------------------------------------

    @staticmethod
    def _exact_step(x: dict, y: dict) -> dict:
        step: dict[Any, Any] = {}
        for u, pu in x.items():
            for v, pv in y.items():
                d = Fraction(u) - Fraction(v)
                step[d] = step.get(d, 0) + pu * pv
        return step

    def _exact_merge(self, step: dict) -> bool:
        if len(step) == 1:  # a constant shift: no growth
            (d, _), = step.items()
            self.total = {t + d: p for t, p in self.total.items()}
            return True
        self.work += len(self.total) * len(step)
        self.steps += 1
        self.pairs_per_step += len(step)
        out: dict[Any, Any] = {}
        for t, pt in self.total.items():
            for d, pd in step.items():
                key = t + d
                out[key] = out.get(key, 0) + pt * pd
            if len(out) > self.max_support:
                self.stopped = f"the distribution of the difference has more than {self.max_support:,} values"
                return False
        self.total = out
        return True

    # -- floats -----------------------------------------------------------------------------

    def _grid_keys(self, values: Sequence[Any]) -> Any:
        import numpy as np

        return np.rint(np.array([_float(v) for v in values], dtype=float) * self.grid).astype(np.int64)

    def _to_floats(self) -> None:
        import numpy as np

        if self.keys is None:
            if self.exact:  # carry the exact part over, rounded once
                keys = [Fraction(k) for k in self.total]
                self.keys = np.array([round(k * Fraction(self.grid)) for k in keys], dtype=np.int64)
                self.probs = np.array([float(p) for p in self.total.values()], dtype=float)
                self.keys, self.probs = _combined(self.keys, self.probs)
            else:
                self.keys, self.probs = np.zeros(1, dtype=np.int64), np.ones(1)
        self.exact = False

    def _float_merge(self, x: dict, y: dict) -> bool:
        import numpy as np

        xk, yk = self._grid_keys(list(x)), self._grid_keys(list(y))
        xp = np.array([float(p) for p in x.values()])
        yp = np.array([float(p) for p in y.values()])
        step_k, step_p = _combined((xk[:, None] - yk[None, :]).ravel(), (xp[:, None] * yp[None, :]).ravel())
        if len(step_k) == 1:
            self.keys = self.keys + step_k[0]
            return True
        self.work += len(self.keys) * len(step_k)
        self.steps += 1
        self.pairs_per_step += len(step_k)
        if self.work > FLOAT_WORK:
            self.stopped = f"the convolution would combine more than {FLOAT_WORK:,} pairs of values"
            return False
        # bounded temporaries: a few million pairs at a time
        per = max(1, 4_000_000 // len(self.keys))
        keys, probs = np.zeros(0, dtype=np.int64), np.zeros(0)
        for lo in range(0, len(step_k), per):
            k = (self.keys[:, None] + step_k[None, lo : lo + per]).ravel()
            p = (self.probs[:, None] * step_p[None, lo : lo + per]).ravel()
            keys, probs = _combined(np.concatenate([keys, k]), np.concatenate([probs, p]))
            if len(keys) > self.max_support:
                self.stopped = f"the distribution of the difference has more than {self.max_support:,} values"
                return False
        self.keys, self.probs = keys, probs
        return True

    def p_greater(self) -> Any:
        if self.exact:
            return sum((p for v, p in self.total.items() if v > 0), Fraction(0))
        return float(self.probs[self.keys > FLOAT_TIE * self.grid].sum())


def _combined(keys: Any, probs: Any) -> tuple[Any, Any]:
    """Equal keys merged (probabilities added), keys sorted."""
    import numpy as np

    order = np.argsort(keys, kind="stable")
    keys, probs = keys[order], probs[order]
    if len(keys) < 2:
        return keys, probs
    start = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return keys[start], np.add.reduceat(probs, start)


def _normal(expected: Any, variance: Any, n: int) -> float:
    """Φ(E[D]/sd(D)) for the mean difference D over *n* queries: *variance* is Σ_q var(A_q − B_q), so var(D) is that over n²."""
    mean, var = _float(expected), _float(variance) / (n * n)
    if var <= 0:
        return 1.0 if mean > FLOAT_TIE else 0.0
    return 0.5 * math.erfc(-mean / math.sqrt(2 * var))
