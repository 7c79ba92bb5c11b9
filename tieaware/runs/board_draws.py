"""Seeded tie-breakings for the leaderboard's Monte Carlo flip probabilities.

:class:`Draws` gives, per system, the per-query values of independent
uniform tie-breakings: drawn from a query's exact distribution when every
varying query's is known, else by shuffling the rows of each tie group and
evaluating the untied run through the array engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

import numpy as np

from tieaware.model.exact import to_float
from tieaware.model.names import Measure
from tieaware.runs.board_columns import Column, query_rankings
from tieaware.runs.evaluate import UNJUDGED

__all__ = ["Draws", "drawn_view", "SAMPLES", "DRAW_BUDGET", "MIN_DRAWS"]

#: Monte Carlo tie-breakings drawn for the flip probability when every per-query distribution is known.
SAMPLES = 1000
#: Row evaluations the automatic Monte Carlo spends drawing orderings (rows drawn × draws), past MIN_DRAWS: ~1-2 s.
DRAW_BUDGET = 20_000_000
#: Automatic draws are never fewer than this: on a large run the flip probability is estimated from these,
#: with a wider interval (the cost is then at most MIN_DRAWS evaluations of the rows drawn).
MIN_DRAWS = 20


class Draws:
    """Seeded tie-breakings of each system: per-query values of *count* joint draws (systems independent).

    A system whose varying queries all have known distributions is drawn
    from them; another has its orderings shuffled and evaluated (only its
    varying queries, and with a cutoff only the tie groups that start in
    the top k).  With *samples* None the count is automatic: :data:`SAMPLES`
    when every system is drawn from distributions; else as many as
    :data:`DRAW_BUDGET` row evaluations allow, at most :data:`SAMPLES` and at
    least :data:`MIN_DRAWS` (so a flip probability is always estimated, its
    interval wider on large runs).
    """

    def __init__(self, cols: Mapping[str, Column], prepared: Mapping[str, Any], m: Measure, queries: Sequence[str],
                 seed: int, samples: Optional[int], systems: Iterable[str]):
        self.cols, self.prepared, self.m, self.queries, self.seed = cols, prepared, m, queries, seed
        drawn = [s for s in systems if not cols[s].known()]
        self.views = {s: _view_of(prepared[s], m, [queries[q] for q in np.flatnonzero(cols[s].varies()).tolist()]) for s in drawn}
        self.rows = sum(int(view.rows) for view in self.views.values())
        if samples is not None:
            self.n = samples
        elif not self.rows:
            self.n = SAMPLES
        else:
            self.n = min(SAMPLES, max(MIN_DRAWS, DRAW_BUDGET // self.rows))
        self.cache: dict[str, np.ndarray] = {}

    def count(self) -> int:
        return self.n

    def values(self, system: str) -> np.ndarray:
        if system not in self.cache:
            index = list(self.cols).index(system)
            rng = np.random.Generator(np.random.PCG64([self.seed, 7, index]))
            self.cache[system] = _draw(self.cols[system], self.views.get(system), self.m, rng, self.n)
        return self.cache[system]


def _draw(col: Column, view: Any, m: Measure, rng: np.random.Generator, count: int) -> np.ndarray:
    """(count × queries) values of independent uniform tie-breakings of one system.

    *view*: the system's varying queries as :func:`drawn_view` cuts them
    (None when every varying query's distribution is known).
    """
    out = np.repeat(col.floats("expected")[None, :], count, axis=0)  # the queries that do not vary
    varies = np.flatnonzero(col.varies())
    if col.known():
        for q in varies.tolist():
            d = col.distribution(q)
            values = np.array([to_float(v) for v in d])
            cdf = np.cumsum([float(x) for x in d.values()])
            picks = np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right")
            out[:, q] = values[np.minimum(picks, len(values) - 1)]
    elif len(varies):
        out[:, varies] = _draw_orderings(view, m, rng, count)
    return out


def _view_of(p: Any, m: Measure, queries: Sequence[str]) -> Any:
    """:func:`drawn_view` of *p*, or *p*'s own ``drawn_view`` (runs read back from partitions when drawn)."""
    own = getattr(p, "drawn_view", None)
    return own(m, queries) if own is not None else drawn_view(p, m, queries)


def drawn_view(p: Any, m: Measure, queries: Sequence[str]) -> Any:
    """*p* cut to *queries* (in that order) and, for an @k measure of the array engine, to the tie groups
    that start within each query's top k (the rows below cannot reach the top k in any ordering).

    Judged documents (the ideal, num_rel) stay whole, so the measure of any
    ordering of the kept rows equals its value on the whole query.
    """
    from tieaware.io.columns import Prepared
    from tieaware.runs import engine

    rows = int(p.rows)
    position = {q: i for i, q in enumerate(p.qids)}
    numbers = np.array([position[q] for q in queries], dtype=np.int64)
    new = np.full(len(p.qids), -1, dtype=np.int64)
    new[numbers] = np.arange(len(numbers), dtype=np.int64)
    keep = new[p.query] >= 0 if rows else np.zeros(0, dtype=bool)
    if m.k is not None and m.name in engine.SUPPORTED and rows:
        sizes = p.group_sizes()
        group_first = np.repeat(p.group_start, sizes)  # first row of each row's group
        keep &= (group_first - p.query_start[p.query]) < m.k
    kept = np.flatnonzero(keep)
    # queries in the order asked: sort the kept rows by new query number (stable: rows stay in order)
    kept = kept[np.argsort(new[p.query[kept]], kind="stable")]
    query = new[p.query[kept]]
    heads = np.ones(len(kept), dtype=bool)
    heads[1:] = query[1:] != query[:-1]
    starts = np.zeros(rows + 1, dtype=bool)
    starts[p.group_start] = True
    group_start = np.flatnonzero(starts[kept] | heads)
    jq = new[p.judged_query] if len(p.judged_query) else p.judged_query
    jkeep = np.flatnonzero(jq >= 0) if len(jq) else np.zeros(0, dtype=np.int64)
    jkeep = jkeep[np.argsort(jq[jkeep], kind="stable")]
    return Prepared(
        qids=list(queries),
        query=query,
        label=p.label[kept],
        label_values=p.label_values,
        group_start=group_start.astype(np.int64),
        query_start=np.flatnonzero(heads).astype(np.int64),
        judged_query=jq[jkeep],
        judged_label=p.judged_label[jkeep],
        trec_order=None,
        skipped_run=[],
        skipped_qrels=[],
        judged=None if p.judged is None else p.judged[kept],
        negative=None if p.negative is None else p.negative[kept],
        judged_negative=None if p.judged_negative is None else p.judged_negative[jkeep],
    )


#: Rows evaluated by one engine call when drawing orderings (several draws stacked as one run).
_DRAW_ROWS = 1 << 20


def _draw_orderings(p: Any, m: Measure, rng: np.random.Generator, count: int) -> np.ndarray:
    """(count × queries of *p*) float values of *m* on uniformly random orderings of each query's ties.

    Each draw shuffles the rows inside every tie group whose members are not
    all alike (random keys, one sort) and evaluates the untied rows through
    :func:`tieaware.runs.engine.values`, several draws stacked as the
    queries of one run (per query through ``compute`` for a measure the
    engine lacks).
    """
    from tieaware.io.columns import Prepared
    from tieaware.runs import engine
    from tieaware.runs.evaluate import compute

    rows, nq = int(p.rows), len(p.qids)
    sizes = p.group_sizes()
    group = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    kind = p.label.astype(np.int64) * 2 + (0 if p.judged is None else p.judged.astype(np.int64))
    lo = np.minimum.reduceat(kind, p.group_start) if rows else kind
    hi = np.maximum.reduceat(kind, p.group_start) if rows else kind
    mixed = np.flatnonzero((lo != hi)[group]) if rows else np.array([], dtype=np.int64)
    out = np.empty((count, nq))
    fallback = m.name not in engine.SUPPORTED
    per_call = max(1, min(count, _DRAW_ROWS // max(1, rows)))
    for first in range(0, count, per_call):
        k = min(per_call, count - first)
        shift = (np.arange(k, dtype=np.int64) * rows)[:, None]
        where = (mixed[None, :] + shift).ravel()  # the mixed rows of every stacked draw
        draw_group = (np.arange(k, dtype=np.int64)[:, None] * len(sizes) + group[mixed][None, :]).ravel()
        keys = (draw_group << 32) + rng.integers(0, 1 << 32, size=len(where), dtype=np.int64)
        order = np.arange(k * rows, dtype=np.int64)
        order[where] = where[np.argsort(keys, kind="stable")]  # a shuffle inside each (draw, group)
        source = order % rows if rows else order
        view = Prepared(
            qids=[f"{d}:{q}" for d in range(k) for q in p.qids],
            query=(np.tile(p.query, k).reshape(k, rows) + (np.arange(k, dtype=np.int64) * nq)[:, None]).ravel(),
            label=p.label[source],
            label_values=p.label_values,
            group_start=np.arange(k * rows, dtype=np.int64),
            query_start=(p.query_start[None, :] + shift).ravel(),
            judged_query=(p.judged_query[None, :] + (np.arange(k, dtype=np.int64) * nq)[:, None]).ravel(),
            judged_label=np.tile(p.judged_label, k),
            trec_order=None,
            skipped_run=[],
            skipped_qrels=[],
            judged=None if p.judged is None else p.judged[source],
            negative=None if p.negative is None else p.negative[source],
            judged_negative=None if p.judged_negative is None else np.tile(p.judged_negative, k),
        )
        values = None if fallback else engine.values(view, m)
        if values is None:
            marks = m.name in UNJUDGED
            values = [compute(m, [x for g in r for x in g], ideal=i, exact=False) for _, r, i in query_rankings(view, marks)]
        out[first : first + k] = np.asarray(values, dtype=np.float64).reshape(k, nq)
    return out
