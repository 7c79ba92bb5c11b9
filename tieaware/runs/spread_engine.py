"""The vectorised float spread: every query's min, max and variance over tie-breakings at once, in numpy.

``tieaware eval --spread --float`` needs, per query and measure, the minimum,
maximum and variance of the value over the uniformly random tie-breaking.
:mod:`tieaware.fast.tie_spread` computes them one query at a time in Python;
this module computes them for every tie group of every query at once from
the same arrays as :mod:`tieaware.runs.engine` (the groups of a query are
ordered independently, so per query the minima, maxima and variances add
up over its groups).  It holds no closed form of its own:

- **the extremes**: every group sorted by label, ascending for the minimum
  and descending for the maximum (theorem "extremes": an adjacent swap
  that moves a better document up never lowers any of these measures), with
  each run of equal labels its own group; :func:`tieaware.runs.engine.values`
  then evaluates the measure's kernels on that ordering, as it does on the
  run (:func:`sorted_by_label`);
- **P, R, F1**: the weight of one hit (the measure's combination kernel at
  hits = 1) squared times ``hits_variance(within(t, n, k), r, n)``
  (:mod:`tieaware.fast.variance_kernels`, theorem "Var P@k");
- **RBP**: ``rbp_group_variance`` (Hoeffding's rank statistic on the
  geometric rank weights, theorem "Var RBP");
- **DCG, nDCG**: ``rank_statistic_variance`` of the group's gains on the
  discounts of its ranks within k (theorem "Var DCG@k"); nDCG ÷ IDCG²;
- **AP**: ``ap_group_variance`` of every group holding a relevant document,
  all at once (its slots laid end to end, :class:`~tieaware.fast.variance_kernels.Slots`;
  theorem "Var AP"), ÷ num_rel²;
- **RR**: ``rr_moments`` of every query's first group holding a relevant
  document within k, folded for all of them at once (theorem "Var RR").

ERR (whose group terms are not rank-one) returns None, and the caller
computes it per query with :mod:`tieaware.fast.tie_spread`.  AP's and RR's
moments run in extended precision; tests/test_spread_engine.py checks every
query against tie_spread's exact values.

>>> import io
>>> from tieaware.io.columns import prepare, read_table
>>> from tieaware.model.names import parse
>>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\n"), "qrels")
>>> run = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 2 r\\n"), "run")
>>> worst, best, var = stats(prepare(qrels, run), parse("P@1"))
>>> float(worst[0]), float(best[0]), float(var[0])     # a tied with b: P@1 is 0 or 1, evenly
(0.0, 1.0, 0.25)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

import numpy as np

from tieaware.fast import kernels, variance_kernels
from tieaware.fast.arith import ARRAY
from tieaware.io.columns import Prepared
from tieaware.runs import engine
from tieaware.runs.engine import expand, gain_sums, Groups, ideal_dcg
from tieaware.model.names import Measure

__all__ = ["SUPPORTED", "stats", "sorted_by_label"]

#: Measures whose spread is computed here in array form; others return None from :func:`stats`.
SUPPORTED = frozenset({"P", "R", "F1", "AP", "RR", "RBP", "DCG", "nDCG"})

Stats = tuple[np.ndarray, np.ndarray, np.ndarray]
_LD = np.longdouble


def stats(p: Prepared, m: Measure, cache: Optional[dict] = None) -> Optional[Stats]:
    """(min, max, variance) of measure *m* over tie-breakings, per query in ``p.qids`` order, or None.

    *cache* (a dict) shares group summaries between measures on the same *p*.
    """
    if m.name not in SUPPORTED or m.conventions:
        return None
    cache = {} if cache is None else cache
    g = cache.get(id(p))
    if g is None:
        g = cache[id(p)] = Groups(p)
    if m.name in ("P", "R", "F1"):
        var = _unit(g, m)
    elif m.name == "RBP":
        var = _rbp(g, m.k, m.rbp_p, m.rel)  # the exact p: the kernel takes 1 - p before rounding
    elif m.name == "AP":
        var = _ap(g, m.k, m.rel)
    elif m.name == "RR":
        var = _rr(g, m.k, m.rel)
    else:
        gains = gain_sums(g, m.gain)
        if gains is None:
            return None  # a gain the labels cannot take: the per-query path raises the proper error
        var = _dcg(g, m.k, gains)
        if m.name == "nDCG":
            ideal = ideal_dcg(g, m.k, gains)
            scale = np.zeros_like(ideal)
            np.divide(1.0, ideal, out=scale, where=ideal != 0)
            var = var * scale * scale
    worst, best = (engine.values(_sorted(p, descending, cache), m, cache) for descending in (False, True))
    return worst, best, var


def sorted_by_label(p: Prepared, descending: bool) -> Prepared:
    """*p* with every tie group's rows sorted by label, each row untied: one ordering of the run.

    Ascending is the worst ordering of every measure here, descending the
    best (theorem "extremes").  Every row is its own group, not each run of
    equal labels, although such a run has one value whatever its order: the
    engine then computes the extreme as it computes any untied run, so in
    float mode an untied run that *is* the extreme ordering gets the same
    bits (a group's mean gain times its discounts may round otherwise, and a
    comparison would call a difference of one ulp a win for every ordering).

    >>> import io
    >>> from tieaware.io.columns import prepare, read_table
    >>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\nq1 0 c 2\\n"), "qrels")
    >>> run = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 2 r\\nq1 Q0 c 3 2 r\\n"), "run")
    >>> best = sorted_by_label(prepare(qrels, run), descending=True)
    >>> [str(best.label_values[x]) for x in best.label], best.group_start.tolist()
    (['2', '1', '0'], [0, 1, 2])
    """
    sizes = p.group_sizes()
    group = np.repeat(np.arange(len(sizes)), sizes)
    key = -p.label if descending else p.label  # label numbers are in value order (Prepared.label_values is sorted)
    order = np.lexsort((key, group))
    return p.reordered(order, np.arange(p.rows))


def _sorted(p: Prepared, descending: bool, cache: dict) -> Prepared:
    """:func:`sorted_by_label` once per *p* and direction (kept in *cache*, which the engine keys by id)."""
    key = ("sorted", id(p), descending)
    if key not in cache:
        cache[key] = sorted_by_label(p, descending)
    return cache[key]


def _unit(g: Groups, m: Measure) -> np.ndarray:
    """P, R, F1: the weight u of one hit (the measure at hits = 1) squared times the hypergeometric variance."""
    r, num_rel = g.relevant(m.rel)
    k = m.k
    var = variance_kernels.hits_variance(kernels.within(g.t, g.size, k), r, g.size)
    one = np.ones(g.nq)
    if m.name == "P":
        unit = kernels.precision_value(one, k)
    elif m.name == "R":
        unit = kernels.recall_value(one, num_rel)
    else:
        unit = kernels.f1_value(one, k, num_rel)
    u = unit[g.query]
    return g.sum_per_query(u * u * var)


def _rbp(g: Groups, k: Optional[int], p: Fraction, rel: Fraction) -> np.ndarray:
    """RBP: rbp_group_variance of every group holding a relevant document (Hoeffding, geometric weights)."""
    r, _ = g.relevant(rel)
    live = np.flatnonzero(r > 0)
    t, n = g.t[live], g.size[live]
    var = variance_kernels.rbp_group_variance(p, t, t + kernels.within(t, n, k), r[live], n)
    return np.bincount(g.query[live], weights=np.maximum(var, 0.0), minlength=g.nq)


def _ap(g: Groups, k: Optional[int], rel: Fraction) -> np.ndarray:
    """AP: ap_group_variance of every group holding a relevant document within k, ÷ num_rel²."""
    r, num_rel = g.relevant(rel)
    live = np.flatnonzero((r > 0) & (kernels.within(g.t, g.size, k) > 0))
    if not len(live):
        return np.zeros(g.nq)
    t = g.t[live].astype(_LD)  # the slot weights 1/(t+s) and their sums in extended precision
    var = variance_kernels.ap_group_variance(t, g.size[live], r[live], g.before(r)[live], k)
    scale = np.zeros(g.nq)
    np.divide(1.0, num_rel, out=scale, where=num_rel != 0)
    per_query = np.bincount(g.query[live], weights=np.maximum(np.asarray(var, dtype=np.float64), 0.0), minlength=g.nq)
    return per_query * scale * scale


def _rr(g: Groups, k: Optional[int], rel: Fraction) -> np.ndarray:
    """RR: rr_moments of every query's first group holding a relevant document within k, all folded at once."""
    r, _ = g.relevant(rel)
    out = np.zeros(g.nq)
    firsts = g.first_relevant(r, k)
    if not len(firsts):
        return out
    t = g.t[firsts].astype(_LD)
    with np.errstate(divide="ignore", invalid="ignore"):  # steps past a group's own slots are discarded
        mean, second = variance_kernels.rr_moments(t, g.size[firsts], r[firsts].astype(_LD), k)
    out[g.query[firsts]] = np.maximum(np.asarray(second - mean * mean, dtype=np.float64), 0.0)
    return out


def _dcg(g: Groups, k: Optional[int], gains: np.ndarray) -> np.ndarray:
    """DCG: per group, rank_statistic_variance of its gains on the discounts of its ranks within k."""
    n, t = g.size, g.t
    live = np.flatnonzero((n > 1) & (kernels.within(t, n, k) > 0))
    if not len(live):
        return np.zeros(g.nq)
    nl = n[live]
    owner, index = expand(nl)  # every slot of the live groups
    rows = g.start_row[live][owner] + index
    x = gains[g.p.label[rows]]
    first = np.cumsum(nl.astype(np.int64)) - nl.astype(np.int64)
    x_bar = np.add.reduceat(x, first) / nl
    spread_x = np.add.reduceat((x - x_bar[owner]) ** 2, first)
    tl = t[live]
    last = tl + kernels.within(tl, nl, k)
    w1 = ARRAY.discount_span(tl, last)  # Σ D(j) and Σ D(j)² over the group's ranks within k, in extended precision
    w2 = ARRAY.discount_span(tl, last, power=2)
    var = variance_kernels.rank_statistic_variance(spread_x, w1, w2, nl)
    return np.bincount(g.query[live], weights=np.maximum(np.asarray(var, dtype=np.float64), 0.0), minlength=g.nq)
