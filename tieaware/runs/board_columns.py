"""The leaderboard's per-system, per-query statistics: each system's column of expected, worst and best values.

:func:`system_columns` evaluates one run (a :class:`tieaware.io.columns.Prepared`)
on every measure: per query the expected value and the values of the two
orderings that attain the extremes (each tie group sorted by label).  A
:class:`Column` computes its means once, tells which queries vary with the
tie-breaking, and gives a varying query's exact distribution on demand.
The leaderboard (:mod:`tieaware.runs.leaderboard`), its standings and its
pairs are computed from these columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.model.errors import TieawareError
from tieaware.model.exact import is_rational
from tieaware.model.logsum import LogSum
from tieaware.model.names import Measure
from tieaware.runs.comparison import minus, sign
from tieaware.runs.evaluate import UNJUDGED, compute, exact_mean

__all__ = ["Column", "system_columns", "query_ranking", "query_rankings", "extreme_view", "mean_difference", "sign_near", "difference"]


@dataclass
class Column:
    """One system on one measure, over the shared queries (in their order)."""

    expected: list
    worst: list
    best: list
    #: Exact mode: query number -> (ranking, ideal), for its distribution on demand; None in float mode.
    source: Optional[Callable[[int], tuple[list, list]]] = None
    measure: Optional[Measure] = None
    _cache: dict = field(default_factory=dict)

    def floats(self, which: str) -> np.ndarray:
        key = "floats " + which
        if key not in self._cache:
            self._cache[key] = _floats(getattr(self, which))
        return self._cache[key]

    def mean(self, which: str) -> Any:
        """The exact mean of ``expected``, ``worst`` or ``best``, computed once per system (not per pair)."""
        key = "mean " + which
        if key not in self._cache:
            form = self.form(which)
            self._cache[key] = exact_mean(getattr(self, which)) if form is None else _settled(form)
        return self._cache[key]

    def form(self, which: str) -> Optional[LogSum]:
        """The mean as a :class:`LogSum` when the values are DCG sums kept as vectors (exact nDCG, DCG), else None.

        Means and their differences are then sums of Fraction vectors; sympy is built only for the values shown.
        """
        key = "form " + which
        if key not in self._cache:
            values = getattr(self, which)
            if values and any(isinstance(v, LogSum) for v in values) and all(v is not None for v in values):
                self._cache[key] = LogSum.total(values) / len(values)
            else:
                self._cache[key] = None
        return self._cache[key]

    def varies(self) -> np.ndarray:
        """Per query, whether some tie-breakings give different values."""
        if "varies" not in self._cache:
            gap = self.floats("best") - self.floats("worst")
            self._cache["varies"] = np.array(
                [sign_near(lambda: difference(b, w), g) != 0 for w, b, g in zip(self.worst, self.best, gap.tolist())], dtype=bool
            )
        return self._cache["varies"]

    def distribution(self, q: int) -> Optional[dict]:
        """Query q's {value: probability} (exact mode; float values for DCG and nDCG), or None if not available."""
        key = ("pmf", q)
        if key not in self._cache:
            if not self.varies()[q]:
                only = _plain(self.worst[q])
                self._cache[key] = {only: Fraction(1) if not isinstance(only, float) else 1.0}
            elif self.source is None:
                self._cache[key] = None
            else:
                from tieaware.fast.tie_spread import spread_stats

                ranking, ideal = self.source(q)
                pmf = spread_stats(self.measure, ranking, ideal, exact=True, distribution=True).distribution
                if pmf is None and self.measure is not None and self.measure.name in ("DCG", "nDCG"):
                    pmf = spread_stats(self.measure, ranking, ideal, exact=False, distribution=True).distribution
                self._cache[key] = pmf
        return self._cache[key]

    def known(self) -> bool:
        """Whether every varying query's distribution has been computed (and is available)."""
        return all(self._cache.get(("pmf", q)) is not None for q in np.flatnonzero(self.varies()))


def _floats(values: Sequence[Any]) -> np.ndarray:
    """Floats of exact values; sympy values by interval arithmetic (:func:`tieaware.io.exact_print.nearest_float`)."""
    from tieaware.io.exact_print import nearest_float

    plain = (_plain(v) for v in values)
    return np.array([float(v) if isinstance(v, (int, float, Fraction)) else nearest_float(v) for v in plain], dtype=np.float64)


def _plain(value: Any) -> Any:
    """A Fraction or sympy value for a value that may be a :class:`LogSum`."""
    return value.value() if isinstance(value, LogSum) else value


def _settled(value: LogSum) -> Any:
    """A LogSum as it is reported: its Fraction when it is rational, else the LogSum (printed without sympy)."""
    q = value.rational()
    return value if q is None else q


def difference(a: Any, b: Any) -> Any:
    """a - b, exactly: as vectors when either is a :class:`LogSum` (sympy built once, for the result)."""
    if isinstance(a, LogSum) or isinstance(b, LogSum):
        return (LogSum.of(a) - LogSum.of(b)).value()
    return minus(a, b)


def mean_difference(ca: "Column", which_a: str, cb: "Column", which_b: str) -> Any:
    """The exact difference of two systems' means (of ``expected``, ``worst`` or ``best``)."""
    fa, fb = ca.form(which_a), cb.form(which_b)
    if fa is not None and fb is not None:
        return _settled(fa - fb)
    return minus(ca.mean(which_a), cb.mean(which_b))


def query_ranking(p: Any, number: int, marks: bool) -> tuple[list, list]:
    """Query *number* of a Prepared: (its ranking as tie groups of labels, every judged label)."""
    values = p.label_values
    first = int(p.query_start[number])
    last = int(p.query_start[number + 1]) if number + 1 < len(p.qids) else int(p.rows)
    labels = [values[i] for i in p.label[first:last].tolist()]
    if marks and p.judged is not None:  # None for unjudged rows (Judged and Bpref tell them from judged zeros)
        labels = [x if seen else None for x, seen in zip(labels, p.judged[first:last].tolist())]
    lo, hi = np.searchsorted(p.group_start, [first, last])
    bounds = p.group_start[lo:hi].tolist() + [last]
    ranking = [labels[a - first : b - first] for a, b in zip(bounds, bounds[1:])]
    j0, j1 = np.searchsorted(p.judged_query, [number, number + 1])
    ideal = [values[i] for i in p.judged_label[j0:j1].tolist()]
    return ranking, ideal


def query_rankings(p: Any, marks: bool) -> Iterable[tuple[str, list, list]]:
    """(qid, ranking as tie groups of labels, every judged label) per query of a Prepared, in its order."""
    for number, qid in enumerate(p.qids):
        yield (qid, *query_ranking(p, number, marks))


def extreme_view(p: Any, worst: bool) -> Any:
    """*p* with each tie group sorted by label (ascending: the worst ordering; descending: the best), untied.

    The rule of :func:`tieaware.fast.worst_ordering` and ``best_ordering``,
    which attain the extremes of every measure :data:`tieaware.runs.engine.EXACT_SUPPORTED` holds.
    """
    from tieaware.io.columns import Prepared

    sizes = p.group_sizes()
    group = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    label = p.label.astype(np.int64)
    order = np.lexsort((label if worst else -label, group))
    return Prepared(
        qids=p.qids,
        query=p.query,
        label=p.label[order],
        label_values=p.label_values,
        group_start=np.arange(p.rows, dtype=np.int64),
        query_start=p.query_start,
        judged_query=p.judged_query,
        judged_label=p.judged_label,
        trec_order=None,
        skipped_run=[],
        skipped_qrels=[],
        judged=None if p.judged is None else p.judged[order],
    )


def system_columns(
    p: Any, ms: Sequence[Measure], queries: Sequence[str], *, exact: bool, layer: str, progress: bool, label: str,
    memo: Optional[dict] = None,
) -> dict[str, Column]:
    """Each measure's column for run *p*; *memo* (exact mode) holds kernel results shared by the runs of one call."""
    memo = {} if memo is None else memo
    position = {q: i for i, q in enumerate(p.qids)}
    take = [position[q] for q in queries]
    out: dict[str, Column] = {}
    slow = list(ms)
    if not exact and layer == "fast":
        from tieaware.runs import engine, spread_engine

        slow = []
        cache: dict = {}
        for m in ms:
            values = engine.values(p, m, cache)
            stats = spread_engine.stats(p, m, cache)
            if values is None or stats is None:
                slow.append(m)
                continue
            worst, best, _ = stats
            out[str(m)] = Column(
                [float(x) for x in np.asarray(values)[take]], np.asarray(worst)[take].tolist(), np.asarray(best)[take].tolist()
            )
    marks = any(m.name in UNJUDGED for m in ms)
    source = (lambda q: query_ranking(p, take[q], marks)) if exact else None
    if exact and layer == "fast":
        # whole runs through the exact array path (tieaware.runs.engine.ExactQueries, as `tieaware eval`): the
        # expected values on p, the extremes on p with each group sorted by label (the orderings that attain them)
        from tieaware.runs.engine import EXACT_SUPPORTED, ORDERS, ExactQueries
        from tieaware.runs.evaluate import evaluate_prepared

        from tieaware.runs import engine

        here = [m for m in slow if m.name in EXACT_SUPPORTED]
        if here:
            # the closed forms per query (ExactQueries, as `tieaware eval`), each tie group as it is and sorted by
            # label (worst, best: the orderings that attain the extremes) from the same group counts; DCG and nDCG
            # as LogSum vectors, so that means and differences are Fraction sums and sympy is built only for the
            # values reported.  *memo* shares the kernels' results between the systems of this call.
            got: dict[str, list[list]] = {str(m): [] for m in here}
            evaluator = ExactQueries(p, memo)
            for order in ORDERS:
                for m in here:
                    got[str(m)].append([evaluator.value(i, m, forms=True, order=order) for i in take])
            aside = [m for m in here if any(v is None for values in got[str(m)] for v in values)]
            views = (p, extreme_view(p, True), extreme_view(p, False)) if aside or any(
                m.name in ("nDCG", "DCG") for m in here) else ()
            if aside:  # a query the array path cannot take (e.g. a gain that is not rational): the whole-run path
                per = [evaluate_prepared(view, aside, exact=True).per_query for view in views]
                for m in aside:
                    got[str(m)] = [[per_query[q][str(m)] for q in queries] for per_query in per]
            for m in here:
                e, w, b = ([v.rational() if isinstance(v, LogSum) and v.rational() is not None else v for v in values]
                           for values in got[str(m)])
                column = Column(e, w, b, source, m)
                if not all(is_rational(_plain(v)) if not isinstance(v, LogSum) else False for v in e + w + b):
                    # irrational values (DCG, nDCG): their floats from the float engine on the same views
                    # (within a few ulps of the nearest; converting thousands of sympy sums took most of the time)
                    for which, view in zip(("expected", "worst", "best"), views):
                        floats = engine.values(view, m)
                        if floats is not None:
                            column._cache["floats " + which] = np.asarray(floats, dtype=np.float64)[take]
                out[str(m)] = column
            slow = [m for m in slow if m not in here]
    if slow:
        per: dict[str, list[list]] = {str(m): [[], [], []] for m in slow}
        from tieaware.fast import best_ordering, worst_ordering

        for q, qid in enumerate(_progress(queries, progress, f"{label} (queries)")):
            ranking, ideal = query_ranking(p, take[q], marks)
            try:
                for m in slow:
                    # the extremes as the values of the orderings that attain them (an untied
                    # ranking each: cheaper than the spread's variance, which is not needed here)
                    values = (
                        compute(m, ranking, ideal=ideal, layer=layer, exact=exact),
                        compute(m, worst_ordering(m, ranking, ideal), ideal=ideal, exact=exact),
                        compute(m, best_ordering(m, ranking, ideal), ideal=ideal, exact=exact),
                    )
                    for column, value in zip(per[str(m)], values):
                        column.append(value)
            except TieawareError as exc:
                raise TieawareError(f"query {qid!r}: {exc}") from None
        for m in slow:
            e, w, b = per[str(m)]
            out[str(m)] = Column(e, w, b, source, m)
    return out


def _progress(items: Sequence[Any], show: bool, desc: str) -> Iterable[Any]:
    if not show:
        return items
    import sys

    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="q", file=sys.stderr, disable=None, leave=False)


def sign_near(exact: Callable[[], Any], rough: float) -> int:
    """The sign of a value from its float when clearly away from 0, else exactly (*exact* computes it)."""
    if abs(rough) > 1e-9:
        return 1 if rough > 0 else -1
    return sign(exact())
