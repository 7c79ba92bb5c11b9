"""Interpolated precision over tie-breakings, exactly: iprec_at_recall and 11pt_avg.

trec_eval's interpolated precision at recall count s (m_iprec_at_recall.c)
is the largest precision at or below the rank of the s-th relevant
document: with pos_c the rank of the c-th relevant document and H the
relevant documents retrieved,

    M(s) = max_{s <= c <= H} c / pos_c

(a precision at a non-relevant rank never beats the one at the relevant
rank above it).  A maximum is not linear, so its expectation over
tie-breakings is not the interpolated precision of expected precisions.

**The dynamic programme.**  Walk the relevant documents from the last to
the first.  The suffix maximum only grows as the walk goes up, and M(s) is
its value just after the s-th relevant document.  The groups are shuffled
independently, and inside a group of n slots holding r relevant
documents, walking its slots from the bottom, the next slot up holds a
relevant document with probability (relevant documents left)/(slots left):
the order of a group is a uniformly random arrangement, revealed from the
end.  So the state (relevant documents of the group placed so far, suffix
maximum m) carries all that matters, with its probability; at a relevant
slot q of a group starting after rank t, holding the c-th relevant
document, m becomes max(m, c/(t + q)), and every recall count s = c asked
for reads the new m.  Groups without a relevant document change nothing
and are skipped; a single relevant document is deterministic.

The programme carries, per state, also E[S·1{state}] and E[S²·1{state}],
with S the weighted sum of the M(s) read so far, so that the variance of
11pt_avg (a mean of interpolated precisions, which are dependent) comes out
of the same walk; and per recall count the distribution of M(s).  The
worst (best) value sorts every group's relevant documents last (first): every pos_c
is then largest (smallest) at once, and M(s) decreases in every pos_c.

Which recall counts a list of levels reads (trec_eval's bookkeeping, which
for 11pt_avg depends on the order of the levels as given) is
:func:`iprec_plan`: it depends only on the counts and H, which the
tie-breaking does not change.

Cost: the states of a group number at most (r + 1) times the distinct
maxima reachable, so small tie groups are cheap and a group of n slots
with r relevant documents costs O(n·r·n·r) in the worst case (every
fraction c/(t + q) a distinct maximum).  tests/test_trec_eval_measures.py
checks the programme against trec_eval's loop on every ordering of every
tie structure of up to 6 documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import Exact
from tieaware.model.params import flag, relevant_total, threshold, trec_count
from tieaware.model.ranking import Ranking, groups

__all__ = [
    "ELEVEN_POINTS",
    "iprec_plan",
    "IprecStats",
    "iprec_stats",
    "interpolated_precision",
    "eleven_point_average",
]

#: trec_eval's default recall levels: 0, 0.1, ..., 1.
ELEVEN_POINTS = tuple(Fraction(i, 10) for i in range(11))


def iprec_plan(cuts: Sequence[int], rel_ret: int) -> list[int]:
    """For each count in *cuts* (trec_eval's order), the recall count s whose M(s) it gets; 0 for the value 0.

    trec_eval walks the counts from the last one down: those above H get 0,
    then each is matched when the walk up the ranking meets its relevant
    document, and those left when the walk ends (counts <= 0, or counts it
    passed over because they were out of order) get the last maximum, M(1).

    >>> iprec_plan([0, 1, 1, 2, 3], 2)      # 3 > H = 2: 0; 0 is left to the end: M(1)
    [1, 1, 1, 2, 0]
    >>> iprec_plan([2, 1], 3)               # out of order (11pt_avg.0.6,0.3): 1 is passed, then left to M(1)
    [1, 1]
    """
    plan = [0] * len(cuts)
    current = len(cuts) - 1
    while current >= 0 and cuts[current] > rel_ret:
        current -= 1
    for s in range(rel_ret, 0, -1):
        while current >= 0 and cuts[current] == s:
            plan[current] = s
            current -= 1
    while current >= 0:
        plan[current] = 1 if rel_ret else 0
        current -= 1
    return plan


class IprecStats(NamedTuple):
    """E[M(s)] per recall count s; E and E² of Σ_s w_s·M(s); the pmf of M(s) per s (when asked for)."""

    mean: dict[int, Any]
    weighted_mean: Any
    weighted_square: Any
    distribution: Optional[dict[int, dict[Any, Any]]]


def iprec_stats(
    relevant_groups: Sequence[tuple[int, int, int]],
    weights: dict[int, Any],
    *,
    number: Any = Fraction,
    distribution: bool = False,
) -> IprecStats:
    """The dynamic programme over *relevant_groups*, (start t, size n, relevant r) in rank order, r >= 1.

    *weights* maps every recall count s >= 1 asked for to its weight in S.

    >>> s = iprec_stats([(0, 2, 1), (2, 1, 1)], {1: Fraction(1), 2: Fraction(0)})
    >>> s.mean[1], s.mean[2]          # 1 0 1: M(1) = 1; 0 1 1: M(1) = max(1/2, 2/3)
    (Fraction(5, 6), Fraction(2, 3))
    """
    zero, one = number(0), number(1)
    wanted = set(weights)
    lowest = min(wanted) if wanted else None
    mean: dict[int, Any] = {s: zero for s in wanted}
    pmf: Optional[dict[int, dict[Any, Any]]] = {s: {} for s in wanted} if distribution else None
    # state (suffix maximum) -> [P, E[S·1], E[S²·1]]; None is "no relevant document yet"
    states: dict[Any, list[Any]] = {None: [one, zero, zero]}
    total = sum(r for _, _, r in relevant_groups)
    index = total  # the global index of the next relevant document placed (walking up)
    for t, n, r in reversed(relevant_groups):
        if lowest is not None and index < lowest:
            break  # every recall count asked for is read already
        inner: dict[tuple[int, Any], list[Any]] = {(0, m): acc for m, acc in states.items()}
        for q in range(n, 0, -1):  # slot q of the group, from the bottom
            nxt: dict[tuple[int, Any], list[Any]] = {}
            for (j, m), (p, s1, s2) in inner.items():
                left = r - j
                if left:
                    c = index - j  # the global index of the relevant document placed here
                    value = number(c) / (t + q)
                    new = value if m is None or value > m else m
                    go = number(left) / q
                    pp, a1, a2 = p * go, s1 * go, s2 * go
                    if c in wanted:
                        mean[c] += pp * new
                        if pmf is not None:
                            pmf[c][new] = pmf[c].get(new, zero) + pp
                        w = weights[c]
                        if w:
                            a2, a1 = a2 + 2 * w * new * a1 + w * w * new * new * pp, a1 + w * new * pp
                    _add(nxt, (j + 1, new), pp, a1, a2)
                if left < q:  # the slot holds a non-relevant document
                    stay = number(q - left) / q
                    _add(nxt, (j, m), p * stay, s1 * stay, s2 * stay)
            inner = nxt
        states = {}
        for (_, m), (p, s1, s2) in inner.items():
            _add(states, m, p, s1, s2)
        index -= r
    weighted = sum((acc[1] for acc in states.values()), zero)
    square = sum((acc[2] for acc in states.values()), zero)
    return IprecStats(mean, weighted, square, pmf)


def _add(table: dict, key: Any, p: Any, s1: Any, s2: Any) -> None:
    old = table.get(key)
    if old is None:
        table[key] = [p, s1, s2]
    else:
        old[0] += p
        old[1] += s1
        old[2] += s2


def relevant_groups(gs: Sequence[Sequence[Fraction]], t: Fraction) -> list[tuple[int, int, int]]:
    """(start, size, relevant) of every group holding a relevant document (label >= t), in rank order."""
    out, start = [], 0
    for g in gs:
        r = sum(1 for x in g if x >= t)
        if r:
            out.append((start, len(g), r))
        start += len(g)
    return out


def _setup(r: Ranking, rel: object, num_rel: Optional[int], exact: object):
    gs = groups(r)
    t = threshold(rel)
    number = Fraction if flag(exact, "exact") else float
    found = relevant_groups(gs, t)
    rel_ret = sum(x[2] for x in found)
    return found, rel_ret, relevant_total(num_rel, rel_ret), number


def interpolated_precision(
    r: Ranking, recall: object, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected iprec_at_recall at one recall level (IPrec@recall), exactly.

    The recall count is trec_eval's (long)(recall·R + 0.9); the value is
    E[M(s)], 0 when the count is above the relevant documents retrieved.

    >>> interpolated_precision([[1, 0], 1], "0.5", num_rel=2)    # 1 0 1: 1; 0 1 1: max(1/2, 2/3)
    Fraction(5, 6)
    """
    found, rel_ret, big_r, number = _setup(r, rel, num_rel, exact)
    (s,) = iprec_plan([trec_count(recall, big_r)], rel_ret)
    if s == 0:
        return number(0)
    return iprec_stats(found, {s: number(0)}, number=number).mean[s]


def eleven_point_average(
    r: Ranking, num_rel: Optional[int] = None, levels: Sequence[object] = ELEVEN_POINTS, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected 11pt_avg: the mean of the interpolated precisions at the recall *levels*, in trec_eval's order.

    >>> eleven_point_average([1, 0])
    Fraction(1, 1)
    """
    found, rel_ret, big_r, number = _setup(r, rel, num_rel, exact)
    if not len(levels):
        raise bad("levels", levels, "must hold at least one recall level")
    plan = iprec_plan([trec_count(p, big_r) for p in levels], rel_ret)
    wanted = {s: number(0) for s in plan if s}
    if not wanted:
        return number(0)
    means = iprec_stats(found, wanted, number=number).mean
    return sum((means[s] for s in plan if s), number(0)) / len(plan)


def eleven_point_spread(
    r: Ranking, num_rel: Optional[int] = None, levels: Sequence[object] = ELEVEN_POINTS, *, rel: object = 1, exact: bool = True
) -> tuple[Exact, Exact]:
    """(E, Var) of 11pt_avg from one walk: S = Σ_levels M(s)/L with the weights of :func:`iprec_plan`.

    >>> eleven_point_spread([[1, 0]], levels=["1"])    # M(1) = 1 or 1/2
    (Fraction(3, 4), Fraction(1, 16))
    """
    found, rel_ret, big_r, number = _setup(r, rel, num_rel, exact)
    plan = iprec_plan([trec_count(p, big_r) for p in levels], rel_ret)
    weights: dict[int, Any] = {}
    for s in plan:
        if s:
            weights[s] = weights.get(s, number(0)) + number(1) / len(plan)
    if not weights:
        return number(0), number(0)
    stats = iprec_stats(found, weights, number=number)
    return stats.weighted_mean, stats.weighted_square - stats.weighted_mean * stats.weighted_mean
