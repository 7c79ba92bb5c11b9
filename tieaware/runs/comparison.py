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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import TieawareError, bad
from tieaware.runs.evaluate import UNJUDGED, MeasureSpec, _layer, _Unjudged, compute, exact_mean, measure_list, natural_key
from tieaware.model.exact import Exact, is_rational, to_float
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
    "MAX_SUPPORT",
    "VERDICTS",
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
        return _sign(_minus(self.best, self.worst)) != 0


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


def _minus(a: Any, b: Any) -> Any:
    if isinstance(a, float) or isinstance(b, float):
        return to_float(a) - to_float(b)
    if is_rational(a) and is_rational(b):
        return Fraction(a) - Fraction(b)
    import sympy

    d = sympy.sympify(a) - sympy.sympify(b)
    return Fraction(int(d.p), int(d.q)) if d.is_Rational else d


def _sign(value: Any) -> int:
    """-1, 0 or 1, exactly for exact values (tieaware.model.exactcmp), within FLOAT_TIE for floats."""
    if isinstance(value, float):
        return 0 if abs(value) <= FLOAT_TIE else (1 if value > 0 else -1)
    if is_rational(value):
        return (value > 0) - (value < 0)
    rough = to_float(value)  # evalf to 20 digits: trustworthy far from 0
    if abs(rough) > 1e-9:
        return 1 if rough > 0 else -1
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
    min_mean: Exact
    max_mean: Exact
    #: √(Σ var)/n: the standard deviation of the mean due to ties.
    sd_mean: Exact
    #: Queries whose value depends on the tie-breaking.
    queries_moved: int
    queries: int


def _spreadable(ms: tuple) -> tuple:
    """Refuse, before any query is read, a measure whose spread is not computed (not blamed on a query)."""
    from tieaware.fast.tie_spread import NO_CONVENTION_SPREAD, SPREAD_MEASURES

    for m in ms:
        if getattr(m, "conventions", ()):
            raise bad("measure", str(m), NO_CONVENTION_SPREAD)
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
    out = {}
    queries = list(per_query)
    n = len(queries)
    for m in measures:
        stats = [per_query[q][m] for q in queries]
        variances = [s.variance for s in stats]
        total = math.fsum(map(to_float, variances)) if not exact else _total(variances)
        out[m] = Spread(
            measure=m,
            min_mean=exact_mean([s.worst for s in stats]),
            max_mean=exact_mean([s.best for s in stats]),
            sd_mean=_divide(_sqrt(total), n),
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
    ms = _spreadable(measure_list(measures))
    exact = flag(exact, "exact")
    _layer(layer)
    qrels, run = to_qrels(qrels), to_run(run)  # any shape evaluate() takes
    queries = tuple(sorted((q for q in run if q in qrels), key=natural_key))
    if not queries:
        raise bad("run", sorted(run, key=natural_key)[:5], "has no query that appears in the qrels")
    marks = any(m.name in UNJUDGED for m in ms)  # Judged and Bpref tell unjudged (None) from judged 0
    per_query: dict[str, dict[str, QueryStats]] = {}
    for qid in _progress(queries, progress, "queries (spread)"):
        judged = qrels[qid]
        ranking, ideal = run_ranking(run[qid], _Unjudged(judged) if marks else judged), list(judged.values())
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
    ms = _spreadable(measure_list(measures))
    exact = flag(exact, "exact")
    _layer(layer)
    complete = flag(complete, "complete")
    if not exact and layer == "fast" and not any(m.name == "RBO" for m in ms):
        per_query = _array_spread(prepared, ms, progress)
    else:
        per_query = _per_query_spread(prepared, ms, exact, progress)
    if complete:
        zero = Fraction(0) if exact else 0.0
        for qid in prepared.skipped_qrels:
            per_query[qid] = {str(m): QueryStats(zero, zero, zero, zero) for m in ms}
    return spread(per_query, [str(m) for m in ms], exact=exact)


def _per_query_spread(prepared: Any, ms: Sequence[Measure], exact: bool, progress: bool) -> dict[str, dict[str, QueryStats]]:
    """{qid: {measure: QueryStats}} by :func:`tieaware.fast.tie_spread.spread_stats_many`, one query at a time."""
    import numpy as np

    values = prepared.label_values
    starts = np.append(prepared.query_start, prepared.rows)
    group_starts = np.append(prepared.group_start, prepared.rows)
    judged_at = np.searchsorted(prepared.judged_query, np.arange(len(prepared.qids) + 1))
    order = sorted(range(len(prepared.qids)), key=lambda i: natural_key(prepared.qids[i]))
    marks = prepared.judged is not None and any(m.name in UNJUDGED for m in ms)
    per_query: dict[str, dict[str, QueryStats]] = {}
    for number in _progress(order, progress, "queries (spread)"):
        qid = prepared.qids[number]
        first, last = int(starts[number]), int(starts[number + 1])
        labels = [values[i] for i in prepared.label[first:last].tolist()]
        if marks:  # None for the unjudged rows, read by Judged and Bpref (every other measure reads 0)
            labels = [x if seen else None for x, seen in zip(labels, prepared.judged[first:last].tolist())]
        bounds = group_starts[np.searchsorted(group_starts, first) : np.searchsorted(group_starts, last) + 1].tolist()
        ranking = [labels[a - first : b - first] for a, b in zip(bounds, bounds[1:])]
        ideal = [values[i] for i in prepared.judged_label[judged_at[number] : judged_at[number + 1]].tolist()]
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
    return per_query


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
    Raises TieawareError when no query is shared.
    """
    ms = _spreadable(measure_list(measures))
    exact = flag(exact, "exact")
    progress = flag(progress, "progress")
    _layer(layer)
    if isinstance(max_support, bool) or not isinstance(max_support, int) or max_support < 1:
        raise bad("max_support", max_support, "must be an int >= 1")
    qrels, run_a, run_b = to_qrels(qrels), to_run(run_a), to_run(run_b)
    for m in ms:
        if m.name == "RBO":
            raise bad("measure", str(m), "compares two rankings, not a run with qrels; use `tieaware rbo`")
    queries = shared_queries(qrels, run_a, run_b)
    marks = any(m.name in UNJUDGED for m in ms)  # Judged and Bpref tell unjudged (None) from judged 0
    stats_a: dict[str, dict[str, QueryStats]] = {}
    stats_b: dict[str, dict[str, QueryStats]] = {}
    for qid in _progress(queries, progress):
        judged = qrels[qid]
        ideal = list(judged.values())
        try:
            for stats, run in ((stats_a, run_a), (stats_b, run_b)):
                ranking = run_ranking(run[qid], _Unjudged(judged) if marks else judged)
                stats[qid] = {
                    str(m): query_stats(m, ranking, ideal, layer=layer, exact=exact, distribution=True) for m in ms
                }
        except TieawareError as exc:
            raise TieawareError(f"query {qid!r}: {exc}") from None
    return [_compare(str(m), queries, stats_a, stats_b, exact, max_support) for m in ms]


def shared_queries(qrels: Qrels, run_a: Run, run_b: Run) -> tuple[str, ...]:
    """The queries with qrels in both runs, in natural order."""
    queries = tuple(sorted((q for q in run_a if q in run_b and q in qrels), key=natural_key))
    if not queries:
        raise bad("runs", sorted(set(run_a) | set(run_b), key=natural_key)[:5], "share no query that has qrels")
    return queries


def _progress(queries: Sequence[str], show: bool, desc: str = "queries (both runs)") -> Iterable[str]:
    if not show:
        return queries
    import sys

    from tqdm import tqdm

    # disable=None: silent when stderr is not a terminal, so logs stay clean.
    return tqdm(queries, desc=desc, unit="q", file=sys.stderr, disable=None, leave=False)


def _compare(
    m: str,
    queries: Sequence[str],
    stats_a: Mapping[str, Mapping[str, QueryStats]],
    stats_b: Mapping[str, Mapping[str, QueryStats]],
    exact: bool,
    max_support: int,
) -> Comparison:
    a = [stats_a[q][m] for q in queries]
    b = [stats_b[q][m] for q in queries]
    n = len(queries)
    mean_a = exact_mean([s.expected for s in a])
    mean_b = exact_mean([s.expected for s in b])
    low = exact_mean([_minus(x.worst, y.best) for x, y in zip(a, b)])
    high = exact_mean([_minus(x.best, y.worst) for x, y in zip(a, b)])
    variance = _total([s.variance for s in a + b]) if exact else math.fsum(to_float(s.variance) for s in a + b)
    expected = _minus(mean_a, mean_b)
    if _sign(low) > 0:
        verdict = "every"
    elif _sign(high) <= 0:
        verdict = "none"
    else:
        verdict = "some"
    p, method, note = _p_greater(verdict, a, b, expected, variance, n, exact, max_support)
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


def _p_greater(
    verdict: str,
    a: Sequence[QueryStats],
    b: Sequence[QueryStats],
    expected: Any,
    variance: Any,
    n: int,
    exact: bool,
    max_support: int,
) -> tuple[Any, str, str]:
    one = Fraction(1) if exact else 1.0
    if verdict == "every":
        return one, "bounds", "exact: the smallest difference is > 0"
    if verdict == "none":
        return one * 0, "bounds", "exact: the largest difference is <= 0"
    missing = sum(1 for s in list(a) + list(b) if s.distribution is None)
    if missing:
        return _normal(expected, variance, n), "normal", (
            f"approximate: {missing} per-query distribution(s) not available; "
            "normal approximation from the exact mean and variance of the difference"
        )
    rational = exact and all(is_rational(v) for s in list(a) + list(b) for v in s.distribution)
    total = _convolve(a, b, rational, max_support)
    if total is None:
        return _normal(expected, variance, n), "normal", (
            f"approximate: the distribution of the difference has more than {max_support:,} values; "
            "normal approximation from its exact mean and variance"
        )
    if rational:
        return sum((p for v, p in total.items() if v > 0), Fraction(0)), "exact", "exact: convolution of the per-query distributions"
    p = sum(p for v, p in total.items() if v > FLOAT_TIE)
    why = "float mode" if not exact else "irrational values"
    return p, "float", (
        f"float ({why}): convolution of the per-query distributions in floats; |difference| <= {FLOAT_TIE:g} counts as a tie"
    )


def _convolve(a: Sequence[QueryStats], b: Sequence[QueryStats], rational: bool, max_support: int) -> Optional[dict[Any, Any]]:
    """The pmf of Σ_q (A_q − B_q), or None once it would exceed *max_support* values."""
    total: dict[Any, Any] = {Fraction(0) if rational else 0.0: Fraction(1) if rational else 1.0}
    for x, y in zip(a, b):
        step: dict[Any, Any] = {}
        for u, pu in x.distribution.items():  # type: ignore[union-attr]
            for v, pv in y.distribution.items():  # type: ignore[union-attr]
                d = Fraction(u) - Fraction(v) if rational else to_float(u) - to_float(v)
                step[d] = step.get(d, 0) + pu * pv
        if len(step) == 1:  # a constant shift: no growth
            (d, _), = step.items()
            total = {t + d: p for t, p in total.items()}
            continue
        if len(total) * len(step) > max_support and len(_merge(total, step, rational, max_support + 1)) > max_support:
            return None
        total = _merge(total, step, rational, None)
    return total


def _merge(total: Mapping[Any, Any], step: Mapping[Any, Any], rational: bool, stop: Optional[int]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for t, pt in total.items():
        for d, pd in step.items():
            key = t + d
            out[key] = out.get(key, 0) + pt * pd
            if stop is not None and len(out) >= stop:
                return out
    return out


def _normal(expected: Any, variance: Any, n: int) -> float:
    """Φ(E[D]/sd(D)) for the mean difference D over *n* queries: *variance* is Σ_q var(A_q − B_q), so var(D) is that over n²."""
    mean, var = to_float(expected), to_float(variance) / (n * n)
    if var <= 0:
        return 1.0 if mean > FLOAT_TIE else 0.0
    return 0.5 * math.erfc(-mean / math.sqrt(2 * var))
