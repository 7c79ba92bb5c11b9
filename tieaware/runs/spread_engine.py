"""The vectorised float spread: every query's min, max and variance over tie-breakings at once, in numpy.

``tieaware eval --spread --float`` needs, per query and measure, the minimum,
maximum and variance of the value over the uniformly random tie-breaking.
:mod:`tieaware.fast.tie_spread` computes them one query at a time in Python;
this module computes them for every tie group of every query at once from
the same arrays as :mod:`tieaware.runs.engine`, with closed forms per group (the
groups of a query are ordered independently, so per query the minima,
maxima and variances add up over its groups):

- **P, R, F1** (unit weight u within k, the measure's combination kernel
  at one hit): with m of the group's n slots within k and r relevant, the
  hits are hypergeometric: min = u·max(0, r − (n − m)), max = u·min(r, m),
  Var = u²·``hits_variance(m, r, n)`` (:mod:`tieaware.fast.variance_kernels`,
  theorem "Var P@k").
- **RBP** and **DCG, nDCG**: a value Σ_e x_e·w_σ(e) of a uniform bijection σ
  of the group's documents (x: 0/1 or the gains) onto its ranks (w: the
  rank weights, 0 past k) has Hoeffding's variance
  Σ(x − x̄)²·Σ(w − w̄)²/(n − 1), the kernel ``rank_statistic_variance``
  (theorem "Var DCG@k"); the extremes sort the group by x (rearrangement
  inequality).
- **AP**: a group at ranks t+1..t+n with b relevant documents above it
  contributes C = Σ_s x_s·(b + 1)·c_s + Σ_{u<s} x_u·x_s·c_s (c_s = 1/(t + s)
  within the cutoff, else 0; x a uniformly random r-subset of the slots).
  With p_j = (r)_j/(n)_j the chance that j given slots are all relevant,
  E[C] and E[C²] are sums over slot pairs, triples and quadruples that
  collapse to prefix sums (docs/uncertainty.md, "AP's variance"); the
  extremes put the relevant documents on the group's first (last) slots.
- **RR**: decided by the first group holding a relevant document (within
  k): P(first relevant at its slot s) = C(n − s, r − 1)/C(n, r), from which
  the two moments; max at slot 1, min at slot n − r + 1.

ERR (whose group terms are not rank-one) returns None, and the caller
computes it per query with :mod:`tieaware.fast.tie_spread`.  Accumulations
run in extended precision; tests/test_spread_engine.py checks every query
against tie_spread's exact values.

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
from tieaware.io.columns import Prepared
from tieaware.runs.engine import _expand, _gain_sums, _Groups, _ideal
from tieaware.model.names import Measure

__all__ = ["SUPPORTED", "stats"]

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
        g = cache[id(p)] = _Groups(p)
    if m.name in ("P", "R", "F1"):
        return _unit(g, m)
    if m.name == "RBP":
        return _rbp(g, m.k, float(m.rbp_p), m.rel)
    if m.name == "AP":
        return _ap(g, m.k, m.rel)
    if m.name == "RR":
        return _rr(g, m.k, m.rel)
    gains = _gain_sums(g, m.gain)
    if gains is None:
        return None  # a gain the labels cannot take: the per-query path raises the proper error
    worst, best, var = _dcg(g, m.k, gains)
    if m.name == "DCG":
        return worst, best, var
    ideal = _ideal(g, m.k, gains)
    scale = np.zeros_like(ideal)
    np.divide(1.0, ideal, out=scale, where=ideal != 0)
    return worst * scale, best * scale, var * scale * scale


def _slots(count: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For count[i] >= 1 leading slots of each of some groups: (the slot's group i, slot 1..count[i], each group's first slot)."""
    owner, index = _expand(count)
    return owner, index + 1, np.cumsum(count.astype(np.int64)) - count.astype(np.int64)


def _per_group(values: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Σ of *values* over each group's slots (from :func:`_slots`).

    ``np.add.reduceat`` keeps extended precision (``np.bincount`` would round to double).
    """
    return np.add.reduceat(values, first) if len(values) else np.zeros(len(first))


def _running(values: np.ndarray, owner: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Inclusive prefix sums of *values* inside each group: Σ of the group's slots up to this one."""
    run = np.cumsum(values)
    return run - (run[first] - values[first])[owner]


def _unit(g: _Groups, m: Measure) -> Stats:
    """P, R, F1: a unit weight u per hit within k; hypergeometric hits per group."""
    r, num_rel = g.relevant(m.rel)
    k = m.k
    n, t = g.size, g.t
    inside = kernels.within(t, n, k)  # slots within the cutoff
    lo = np.maximum(0, r - (n - inside))
    hi = np.minimum(r, inside)
    var = variance_kernels.hits_variance(inside, r, n)
    one = np.ones(g.nq)  # the weight of one hit: the measure's value at hits = 1
    if m.name == "P":
        unit = kernels.precision_value(one, k)
    elif m.name == "R":
        unit = kernels.recall_value(one, num_rel)
    else:
        unit = kernels.f1_value(one, k, num_rel)
    u = unit[g.query]
    return g.sum_per_query(u * lo), g.sum_per_query(u * hi), g.sum_per_query(u * u * var)


def _rbp(g: _Groups, k: Optional[int], p: float, rel: Fraction) -> Stats:
    """RBP: weights (1 - p)·p**(rank - 1) within k; geometric sums, Hoeffding's variance per group."""
    r, _ = g.relevant(rel)
    n, t = g.size, g.t
    end = t + n if k is None else np.minimum(t + n, k)  # the last rank that counts
    end = np.maximum(end, t)
    hi = p**t - p ** np.minimum(t + r, end)  # relevant on the first r ranks
    low_start = t + n - r  # relevant on the last r ranks: t+n-r+1 .. t+n
    lo = np.where(end > low_start, p**low_start - p**end, 0.0)
    w1 = kernels.rbp_group(p, t, end, n, n)  # Σ of the group's rank weights within k: its RBP if every member were relevant
    w2 = (1 - p) / (1 + p) * (p ** (2 * t) - p ** (2 * end))
    var = np.maximum(variance_kernels.rank_statistic_variance(r * (n - r) / n, w1, w2, n), 0.0)
    live = r > 0
    return (
        g.sum_per_query(np.where(live, lo, 0.0)),
        g.sum_per_query(np.where(live, hi, 0.0)),
        g.sum_per_query(np.where(live, var, 0.0)),
    )


def _falling(r: np.ndarray, n: np.ndarray, j: int) -> np.ndarray:
    """p_j = r(r-1)...(r-j+1) / (n(n-1)...(n-j+1)): the chance that j given slots are all relevant."""
    out = np.ones_like(r, dtype=_LD)
    for i in range(j):
        ok = (n - i) > 0
        out = np.where(ok & (r - i > 0), out * (r - i) / np.where(ok, n - i, 1), 0)
    return out


def _ap(g: _Groups, k: Optional[int], rel: Fraction) -> Stats:
    """AP: per group the moments of C = Σ_s x_s·(b+1)·c_s + Σ_{u<s} x_u·x_s·c_s, from prefix sums."""
    r, num_rel = g.relevant(rel)
    n, t = g.size, g.t
    depth = g.length[g.query] if k is None else np.full(len(t), float(k))
    slots = np.clip(depth - t, 0, n)  # slots within the cutoff
    live = np.flatnonzero((r > 0) & (slots > 0))
    zeros = np.zeros(g.nq)
    if not len(live):
        return zeros, zeros.copy(), zeros.copy()
    nl, tl, rl, L = n[live], t[live], r[live], slots[live]
    b = g.before(r)[live]
    owner, s, first = _slots(L)
    c = 1.0 / (tl[owner] + s).astype(_LD)  # extended precision through the sums below
    c_pre = _running(c, owner, first)  # Σ_{u<=s} c_u
    sc_pre = _running(s * c, owner, first)
    c_tot = _per_group(c, first)
    c2 = _per_group(c * c, first)
    s1 = _per_group((s - 1) * c, first)  # Σ_{u<s} c_s over pairs u < s
    n2 = _per_group((s - 1) * c * c, first)
    cross = _per_group(c * (c_pre - c), first)  # Σ_s c_s·Σ_{u<s} c_u
    d = (s - 1) * c + (c_tot[owner] - c_pre)  # weight of the pairs that hold slot s
    d2 = _per_group(d * d, first)
    lead = (b + 1).astype(_LD)
    a1, a2 = lead * c_tot, lead * lead * c2
    t1, t2 = lead * n2, lead * cross  # Σ_s (s-1)·c_s·a_s and Σ_s c_s·Σ_{u<s} a_u
    n1 = d2 - 2 * n2
    p1, p2, p3, p4 = (_falling(rl, nl, j) for j in (1, 2, 3, 4))
    mean = p1 * a1 + p2 * s1
    square = (p1 * a2 + p2 * (a1 * a1 - a2)) + 2 * (p3 * a1 * s1 + (p2 - p3) * (t1 + t2)) + (p4 * s1 * s1 + (p3 - p4) * n1 + (p2 - p4) * n2)
    var = np.maximum((square - mean * mean).astype(np.float64), 0.0)
    # extremes: the relevant documents on the first r slots (best) or the last r (worst)
    def at(prefix: np.ndarray, upto: np.ndarray) -> np.ndarray:  # prefix sum at slot `upto` (0: nothing)
        idx = first + np.maximum(upto, 1).astype(np.int64) - 1
        return np.where(upto > 0, prefix[idx], 0)

    top = np.minimum(rl, L)
    best = b * at(c_pre, top) + at(sc_pre, top)
    start = nl - rl  # the worst ordering's relevant documents sit on slots start+1 .. n
    span_c = at(c_pre, L) - at(c_pre, np.minimum(start, L))
    span_sc = at(sc_pre, L) - at(sc_pre, np.minimum(start, L))
    worst = (b - start) * span_c + span_sc
    scale = np.zeros(g.nq)
    np.divide(1.0, num_rel, out=scale, where=num_rel != 0)
    q = g.query[live]
    per = lambda x: np.bincount(q, weights=np.asarray(x, dtype=np.float64), minlength=g.nq)  # noqa: E731
    return per(worst) * scale, per(best) * scale, per(var) * scale * scale


def _rr(g: _Groups, k: Optional[int], rel: Fraction) -> Stats:
    """RR: the first group holding a relevant document within k; its first-relevant distribution."""
    r, _ = g.relevant(rel)
    zeros = np.zeros(g.nq)
    firsts = g.first_relevant(r, k)
    if not len(firsts):
        return zeros, zeros.copy(), zeros.copy()
    q, t, n, rr = g.query[firsts], g.t[firsts], g.size[firsts], r[firsts]
    within = n if k is None else np.minimum(n, k - t)
    count = np.minimum(within, n - rr + 1)  # the first relevant document is never below slot n - r + 1
    owner, s, first = _slots(count)
    no, ro = n[owner], rr[owner]
    # log P(first at s) = log(r/n) + Σ_{i<s} log((n - i - r + 1)/(n - i)), every factor > 0 here
    step = np.where(s > 1, np.log(np.maximum(no - s - ro + 2, 1).astype(_LD)) - np.log(np.maximum(no - s + 1, 1).astype(_LD)), 0)
    prob = np.exp(np.log((ro / no).astype(_LD)) + _running(step, owner, first))
    c = 1.0 / (t[owner] + s).astype(_LD)
    mean = _per_group(prob * c, first)
    second = _per_group(prob * c * c, first)
    var = np.maximum(second - mean * mean, 0.0)
    best = 1.0 / (t + 1)
    low_rank = t + n - rr + 1
    worst = np.where(low_rank <= (np.inf if k is None else k), 1.0 / low_rank, 0.0)
    out = [zeros.copy(), zeros.copy(), zeros.copy()]
    for o, v in zip(out, (worst, best, var)):
        o[q] = v
    return out[0], out[1], out[2]


def _dcg(g: _Groups, k: Optional[int], gains: np.ndarray) -> Stats:
    """DCG: per group, the gains sorted ascending (descending) for the extremes; Hoeffding's variance."""
    n, t = g.size, g.t
    live = np.flatnonzero(t < (np.inf if k is None else k))
    zeros = np.zeros(g.nq)
    if not len(live):
        return zeros, zeros.copy(), zeros.copy()
    nl = n[live]
    owner, s, first = _slots(nl)  # every slot of the live groups, past k too (weight 0)
    rows = g.start_row[live][owner] + s - 1
    x = gains[g.p.label[rows]]
    rank = t[live][owner] + s
    w = 1.0 / np.log2(rank + 1)
    if k is not None:
        w = np.where(rank <= k, w, 0.0)
    x_bar = _per_group(x, first) / nl
    w_bar = _per_group(w, first) / nl
    spread_x = _per_group((x - x_bar[owner]) ** 2, first)
    w1 = _per_group(w, first)
    # Σw² as (Σw)²/n + Σ(w - w̄)²: the kernel takes (Σw)²/n off again, losing ~1e-13 relative, far within the 1e-9 this engine is held to
    w2 = w1 * w1 / nl + _per_group((w - w_bar[owner]) ** 2, first)
    var = np.maximum(variance_kernels.rank_statistic_variance(spread_x, w1, w2, nl), 0.0)
    # sorted by (group, gain): position i of a group then holds its i-th smallest gain
    up = np.lexsort((x, owner))
    worst = _per_group(x[up] * w, first)
    down = np.lexsort((-x, owner))
    best = _per_group(x[down] * w, first)
    q = g.query[live]
    per = lambda v: np.bincount(q, weights=v, minlength=g.nq)  # noqa: E731
    return per(worst), per(best), per(var)
