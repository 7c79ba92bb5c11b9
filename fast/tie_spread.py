"""Minimum, maximum, variance and distribution of a run measure over tie-breakings, per group.

Every measure ``tieaware eval`` computes is **separable by tie group**: its
value on an ordering is a constant plus Σ_g f_g(order inside group g), where
f_g depends on group g's own order and on things the tie-breaking cannot
change (the ranks the group spans, how many relevant documents precede it,
ERR's chance of reaching it).  The groups are ordered independently, so

- min = Σ_g min f_g, max = Σ_g max f_g, Var = Σ_g Var f_g;
- the distribution is the convolution of the groups' distributions.

Inside one group a dynamic program walks the group's slots in rank order
with the state "how many documents of each kind are placed so far" and keeps,
per state, the number of arrangements and the sum, sum of squares, minimum,
maximum (and optionally the distribution) of the contribution so far.  A
document's kind is whether it is relevant (P, R, F1, AP, RR, RBP: O(n·r)
states) or its grade (ERR, DCG, nDCG: the product of (count + 1) over grades).

DCG and nDCG in exact mode have irrational values (log2 discounts); there
the minimum and maximum are the orderings sorting each group by gain,
ascending and descending (rearrangement inequality: the discount decreases
with rank), and the variance is Hoeffding's rank-one form per group,
(Σ_e (x_e − x̄)²)·(Σ_j (w_j − w̄)²)/(n − 1), with x the gains and w the
discounts of the group's ranks; no distribution is given (None).

>>> from tieaware.names import parse
>>> s = spread_stats(parse("P@1"), [[1, 0]], [1, 0], distribution=True)
>>> s.worst, s.best, s.variance, sorted(s.distribution.items())
(Fraction(0, 1), Fraction(1, 1), Fraction(1, 4), [(Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 1), Fraction(1, 2))])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple, Optional

from tieaware.errors import bad
from tieaware.fast.measures import dcg as fast_dcg
from tieaware.fast.measures import ndcg as fast_ndcg
from tieaware.gains import check_gain_domain, discount_function, float_discount_function, float_gain_function, gain_function
from tieaware.names import Measure, parse
from tieaware.params import cutoff, flag, grade_ceiling, relevant_total, threshold
from tieaware.ranking import Ranking, groups, label

__all__ = ["SpreadStats", "spread_stats", "MAX_GROUP_SUPPORT"]

#: A group's distribution is dropped (None) once it has more distinct values than this.
MAX_GROUP_SUPPORT = 5_000


class SpreadStats(NamedTuple):
    """min, max and variance over tie-breakings, and the pmf {value: probability} or None."""

    worst: Any
    best: Any
    variance: Any
    distribution: Optional[dict[Any, Any]]


class _Acc:
    """Per-state accumulator: arrangements, Σ value, Σ value², min, max, pmf (value -> arrangements)."""

    __slots__ = ("n", "s1", "s2", "lo", "hi", "pmf")

    def __init__(self, n: int, s1: Any, s2: Any, lo: Any, hi: Any, pmf: Optional[dict[Any, int]]) -> None:
        self.n, self.s1, self.s2, self.lo, self.hi, self.pmf = n, s1, s2, lo, hi, pmf


def _group(kinds: dict[Any, int], contribution: Callable[[int, Any, tuple[int, ...]], Any], zero: Any, want_pmf: bool) -> _Acc:
    """The DP over one group: *kinds* {kind: count}; contribution(slot, kind, state) for the next slot."""
    order = sorted(kinds, key=repr)
    size = sum(kinds.values())
    states: dict[tuple[int, ...], _Acc] = {tuple(0 for _ in order): _Acc(1, zero, zero, zero, zero, {zero: 1} if want_pmf else None)}
    for slot in range(size):
        nxt: dict[tuple[int, ...], _Acc] = {}
        for state, acc in states.items():
            for i, kind in enumerate(order):
                if state[i] == kinds[kind]:
                    continue
                c = contribution(slot, kind, state)
                new = state[:i] + (state[i] + 1,) + state[i + 1 :]
                pmf = None
                if acc.pmf is not None:
                    pmf = {v + c: m for v, m in acc.pmf.items()}
                s1, s2 = acc.s1 + acc.n * c, acc.s2 + 2 * c * acc.s1 + acc.n * c * c
                old = nxt.get(new)
                if old is None:
                    nxt[new] = _Acc(acc.n, s1, s2, acc.lo + c, acc.hi + c, pmf)
                    continue
                old.n += acc.n
                old.s1 += s1
                old.s2 += s2
                old.lo = min(old.lo, acc.lo + c)
                old.hi = max(old.hi, acc.hi + c)
                if old.pmf is not None and pmf is not None:
                    for v, m in pmf.items():
                        old.pmf[v] = old.pmf.get(v, 0) + m
                    if len(old.pmf) > MAX_GROUP_SUPPORT:
                        want_pmf = False
                else:
                    old.pmf = None
        if not want_pmf:  # one state outgrew the cap: stop carrying distributions at all
            for acc in nxt.values():
                acc.pmf = None
        states = nxt
    (final,) = states.values()
    return final


def spread_stats(
    measure: Any, ranking: Ranking, ideal: Optional[Sequence[object]] = None, *, exact: bool = True, distribution: bool = False
) -> SpreadStats:
    """min, max, variance (and with *distribution*, the pmf) of *measure* over tie-breakings.

    *measure* is a name such as ``"AP@10"`` or a parsed Measure; *ideal* is
    every judged label of the query, with the same meaning as in
    :func:`tieaware.evaluate.compute` (num_rel, nDCG's ideal, ERR's g_max).

    >>> spread_stats("AP", [[1, 0], 1]).variance     # 5/6 or 7/12, even odds
    Fraction(1, 64)
    """
    m = measure if isinstance(measure, Measure) else parse(measure)
    exact = flag(exact, "exact")
    gs = groups(ranking)
    labels = None if ideal is None else [label(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    if m.name in ("DCG", "nDCG") and exact:
        return _dcg_exact(m, gs, labels)
    number: Callable[[Any], Any] = Fraction if exact else float
    zero = number(0)
    k = cutoff(m.k, optional=True)
    plan = _plan(m, gs, labels, number, k)
    worst = best = variance = zero
    pmf: Optional[dict[Any, Any]] = {zero: number(1)} if distribution else None
    for start, kinds, contribution, scale in plan:
        acc = _group(kinds, contribution, zero, distribution)
        n = number(acc.n)
        mean = acc.s1 / n
        var = acc.s2 / n - mean * mean
        worst, best = worst + scale * acc.lo, best + scale * acc.hi
        variance += scale * scale * (max(var, 0.0) if not exact else var)
        if pmf is not None:
            if acc.pmf is None:
                pmf = None
            else:
                group = {scale * v: number(c) / n for v, c in acc.pmf.items()}
                pmf = _convolve(pmf, group)
    constant = _constant(m, gs, labels, number, k)
    worst, best = worst + constant, best + constant
    if pmf is not None:
        pmf = {v + constant: p for v, p in pmf.items()}
    return SpreadStats(worst, best, variance, pmf)


def _convolve(a: dict[Any, Any], b: dict[Any, Any]) -> Optional[dict[Any, Any]]:
    """The pmf of the sum of two independent parts; None once it passes MAX_GROUP_SUPPORT values."""
    if len(b) == 1:
        ((v, _),) = b.items()
        return {u + v: pu for u, pu in a.items()}
    out: dict[Any, Any] = {}
    for u, pu in a.items():
        for v, pv in b.items():
            out[u + v] = out.get(u + v, 0) + pu * pv
        if len(out) > MAX_GROUP_SUPPORT:
            return None
    return out


def _constant(m: Measure, gs: Any, labels: Any, number: Any, k: Optional[int]) -> Any:
    return number(0)  # every contribution is carried by a group, singletons included


def _plan(m: Measure, gs: Any, labels: Any, number: Any, k: Optional[int]) -> list[tuple[int, dict[Any, int], Callable, Any]]:
    """(start rank, kinds, contribution(slot, kind, state), scale) per group that can contribute."""
    name = m.name
    plan = []
    if name in ("P", "R", "F1", "AP", "RR", "RBP"):
        t = threshold(m.rel)
        retrieved = sum(1 for g in gs for x in g if x >= t)
        num_rel = relevant_total(None if labels is None else sum(1 for x in labels if x >= t), retrieved)
        if name in ("P", "R", "F1"):
            k_ = cutoff(m.k)
            denominator = {"P": number(k_), "R": number(num_rel), "F1": number(k_ + num_rel) / 2}[name]
        p = m.param("p", Fraction(4, 5)) if name == "RBP" else None
        before, start = 0, 0
        for g in gs:
            if k is not None and start >= k:
                break
            r = sum(1 for x in g if x >= t)
            kinds = {True: r, False: len(g) - r}
            kinds = {kind: c for kind, c in kinds.items() if c}
            plan.append((start, kinds, _binary(name, start, before, k, number, num_rel, p, denominator if name in ("P", "R", "F1") else None), number(1)))
            before += r
            start += len(g)
        return plan
    if name == "ERR":
        ceiling = None if not labels else max(1, int(max(labels)))
        g_max = grade_ceiling([x for g in gs for x in g], ceiling)
        scale_total = number(2**g_max)
        survive, start = number(1), 0
        for g in gs:
            if k is not None and start >= k:
                break
            kinds: dict[Any, int] = {}
            for x in g:
                kinds[int(x)] = kinds.get(int(x), 0) + 1
            stops = {v: number(2**v - 1) / scale_total for v in kinds}
            order = sorted(kinds, key=repr)
            plan.append((start, kinds, _err(start, k, stops, order, number), survive))
            for x in g:
                survive *= 1 - stops[int(x)]
            start += len(g)
        return plan
    if name in ("DCG", "nDCG"):  # float mode
        check_gain_domain((x for g in gs for x in g), m.gain)
        gain = float_gain_function(m.gain)
        discount = float_discount_function("log2")
        norm = 1.0
        if name == "nDCG":
            ideal = [x for g in gs for x in g] if labels is None else labels
            check_gain_domain(ideal, m.gain, "ideal")
            best = sorted(ideal, reverse=True)[:k]
            norm = sum(gain(x) * discount(j) for j, x in enumerate(best, 1))
        start = 0
        for g in gs:
            if k is not None and start >= k:
                break
            kinds = {}
            for x in g:
                kinds[x] = kinds.get(x, 0) + 1
            plan.append((start, kinds, _gain_slot(start, k, gain, discount), 0.0 if norm == 0 else 1.0 / norm))
            start += len(g)
        return plan
    raise bad("measure", str(m), "has no spread over tie-breakings here")


def _binary(name: str, start: int, before: int, k: Optional[int], number: Any, num_rel: int, p: Any, denominator: Any) -> Callable:
    one = number(1)

    def contribution(slot: int, relevant: bool, state: tuple[int, ...]) -> Any:
        rank = start + slot + 1
        if not relevant or (k is not None and rank > k):
            return number(0)
        placed = state[1] if len(state) == 2 else (state[0] if relevant else 0)  # kinds sort as False, True
        if name in ("P", "R", "F1"):
            return number(0) if denominator == 0 else one / denominator
        if name == "AP":
            return number(0) if num_rel == 0 else number(before + placed + 1) / rank / num_rel
        if name == "RR":
            return one / rank if before == 0 and placed == 0 else number(0)
        pf = number(p)
        return (1 - pf) * pf ** (rank - 1)

    return contribution


def _err(start: int, k: Optional[int], stops: dict[int, Any], order: list[int], number: Any) -> Callable:
    def contribution(slot: int, grade: int, state: tuple[int, ...]) -> Any:
        rank = start + slot + 1
        if k is not None and rank > k:
            return number(0)
        survive = number(1)
        for v, placed in zip(order, state):
            survive *= (1 - stops[v]) ** placed
        return survive * stops[grade] / rank

    return contribution


def _gain_slot(start: int, k: Optional[int], gain: Callable, discount: Callable) -> Callable:
    def contribution(slot: int, x: Any, state: tuple[int, ...]) -> Any:
        rank = start + slot + 1
        return 0.0 if k is not None and rank > k else gain(x) * discount(rank)

    return contribution


def _dcg_exact(m: Measure, gs: Any, labels: Any) -> SpreadStats:
    """DCG/nDCG, exact: sorted groups for the extremes, Hoeffding's rank-one form for the variance."""
    k = cutoff(m.k, optional=True)
    low = [sorted(g) for g in gs]
    high = [sorted(g, reverse=True) for g in gs]
    flat_low, flat_high = [x for g in low for x in g], [x for g in high for x in g]
    ideal = [x for g in gs for x in g] if labels is None else labels
    if m.name == "DCG":
        worst, best = fast_dcg(flat_low, k, gain=m.gain), fast_dcg(flat_high, k, gain=m.gain)
    else:
        worst, best = fast_ndcg(flat_low, k, ideal, gain=m.gain), fast_ndcg(flat_high, k, ideal, gain=m.gain)
    import sympy

    gain = gain_function(m.gain)
    discount = discount_function("log2")
    variance_terms: list[Any] = []
    start = 0
    for g in gs:
        n = len(g)
        if k is not None and start >= k:
            break
        if n > 1:
            xs = [gain(x) for x in g]
            x_bar = sum(xs, Fraction(0)) / n
            spread_x = sum(((x - x_bar) ** 2 for x in xs), Fraction(0))
            if spread_x:
                # Σ_j (w_j − w̄)² = ((n−1)/n)·Σ w_j² − (2/n)·Σ_{i<j} w_i·w_j, built term by term (no expand()).
                ws = [sympy.sympify(discount(start + j)) for j in range(1, n + 1) if k is None or start + j <= k]
                terms = [sympy.Rational(n - 1, n) * w * w for w in ws]
                terms += [sympy.Rational(-2, n) * ws[i] * ws[j] for i in range(len(ws)) for j in range(i + 1, len(ws))]
                q = spread_x / (n - 1)
                variance_terms.append(sympy.Rational(q.numerator, q.denominator) * sympy.Add(*terms))
        start += n
    variance = sympy.Add(*variance_terms)
    if m.name == "nDCG":
        best_dcg = fast_dcg(sorted(ideal, reverse=True), k, gain=m.gain)
        variance = variance / sympy.sympify(best_dcg) ** 2 if best_dcg != 0 else sympy.Integer(0)
    value = Fraction(int(variance.p), int(variance.q)) if variance.is_Rational else variance
    return SpreadStats(worst, best, value, None)
