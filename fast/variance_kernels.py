"""Closed forms for the variance of one tie group's contribution under random tie-breaking.

A tie group occupies ranks t+1 .. t+n; random tie-breaking orders it
uniformly, independently of every other group, so a separable measure's
variance is the sum of its groups' variances (fast/tie_spread.py adds them
up).  Each kernel here is plain arithmetic, like :mod:`tieaware.fast.kernels`,
so it runs on Fractions, floats and sympy symbols (:mod:`tieaware.proofs`
calls these very functions to prove them) and on numpy arrays with one
element per group of every query (:mod:`tieaware.runs.spread_engine`).
Callers pass at least one of r, n (or the spread) as a Fraction, float,
array or symbol: never only Python ints, which would divide into a float.
Kernels that sum over a group's slots (:func:`ap_weighted_variance`) take
them as :class:`Slots`: a numpy array of one group's slots (object dtype for
Fractions and symbols), or the slots of many groups laid end to end; group
sizes and slot counts they loop over must be numbers.

>>> from fractions import Fraction as F
>>> hits_variance(1, F(1), F(2))     # one slot, a fair coin
Fraction(1, 4)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np

from tieaware.fast.arith import of
from tieaware.fast.groups import Group
from tieaware.fast import kernels, measures

__all__ = [
    "Slots",
    "hits_variance",
    "hits_variance_from",
    "rank_statistic_variance",
    "rbp_group_variance",
    "rr_moment_step",
    "rr_moments",
    "rr_variance",
    "all_relevant",
    "ap_weighted_variance",
    "ap_group_variance",
]

Num = Any  # Fraction, float or sympy expression


def hits_variance(m: Num, r: Num, n: Num) -> Num:
    """Var[relevant documents among the first m slots of a group of n with r relevant].

    The count X = Σ_{s<=m} x_s is hypergeometric.  A slot is relevant with
    probability r/n and two distinct slots with r(r−1)/(n(n−1)), so
    E[X²] = m·r/n + m(m−1)·r(r−1)/(n(n−1)) and

        Var X = m·r·(n−r)·(n−m) / (n²·(n−1)),

    the binomial m·(r/n)(1−r/n) shrunk by the finite-population factor
    (n−m)/(n−1).  A singleton group has one ordering: 0.

    >>> from fractions import Fraction as F
    >>> hits_variance(2, F(2), F(4))     # 0, 1 or 2 hits with odds 1:4:1
    Fraction(1, 3)
    """
    return of(m, r, n).ratio(m * r * (n - r) * (n - m), n * n * (n - 1))  # a singleton group (n = 1): 0


def hits_variance_from(summary: Sequence[Group], k: Any, *, hits: Optional[Callable[..., Any]] = None) -> Any:
    """Var[hits@k] from group summaries: Σ_groups hits_variance(slots within k, r, n).

    Groups are ordered independently, so their hit counts are independent
    and the variances add; groups starting at or past k add nothing.  P@k's
    variance is this / k², R@k's / num_rel², F1@k's / ((k + num_rel)/2)².
    *hits* defaults to this module's :func:`hits_variance`, looked up when
    called.

    >>> from fractions import Fraction as F
    >>> hits_variance_from([Group(0, 1, F(1), None), Group(1, 4, F(2), None)], 3)   # 2 of the 4 tied slots
    Fraction(1, 3)
    """
    # the same walk over the groups as the expected hits (fast.measures.hits_from), another kernel
    return measures.hits_from(summary, k, hits=hits_variance if hits is None else hits)


def rank_statistic_variance(x_spread: Num, w1: Num, w2: Num, n: Num) -> Num:
    """Var Σ_e x_e·w_σ(e) for a uniform random bijection σ of a group's n documents onto its ranks.

    Hoeffding's rank statistic: x_spread = Σ_e (x_e − x̄)², w1 = Σ_j w_j,
    w2 = Σ_j w_j².  Since E[w_σ(e)²] = w2/n and E[w_σ(e)·w_σ(f)] =
    (w1² − w2)/(n(n−1)) for e ≠ f,

        Var = x_spread·(w2 − w1²/n)/(n − 1).

    With gains x and discounts w (0 past the cutoff) this is DCG@k's
    variance for the group; with x ∈ {0, 1} and rank weights it is P, R, F1
    and RBP's.  A singleton group has one ordering: 0.

    >>> from fractions import Fraction as F
    >>> rank_statistic_variance(F(1, 2), F(3, 2), F(5, 4), 2)   # gains 1, 0 on weights 1, 1/2
    Fraction(1, 16)
    """
    return of(x_spread, w1, w2, n).ratio(x_spread * (w2 - w1 * w1 / n), n - 1)  # a singleton group (n = 1): 0


def rbp_group_variance(p: Num, t: Num, end: Num, r: Num, n: Num) -> Num:
    """Var of a group's RBP contribution: r relevant of n at ranks t+1..t+n, ranks t+1..end within k.

    :func:`rank_statistic_variance` with x ∈ {0, 1} (Σ(x − x̄)² = r(n − r)/n)
    on the rank weights (1−p)·p**(j−1): their sum is
    rbp_group(p, t, end, 1, 1) and the sum of their squares
    :func:`tieaware.fast.kernels.rbp_weight_squares` (ranks past k weigh 0).

    >>> from fractions import Fraction as F
    >>> rbp_group_variance(F(1, 2), 0, 2, F(1), 2)    # 1/2 or 1/4, even odds
    Fraction(1, 64)
    """
    A = of(p, t, end, r, n)
    one = 0 * r + 1
    w1 = A.value(kernels.rbp_group(p, t, end, one, one))
    w2 = A.value(kernels.rbp_weight_squares(p, t, end))
    return rank_statistic_variance(r * (n - r) / n, w1, w2, n)


def rr_moment_step(mean: Num, second: Num, none_yet: Num, x: Num, t: Num, r: Num, n: Num) -> tuple[Num, Num, Num]:
    """One slot of :func:`rr_moments`: add P(first relevant at slot x)·(1/(t+x), 1/(t+x)²); carry f(x).

    >>> from fractions import Fraction as F
    >>> rr_moment_step(0, 0, 1, 1, 1, F(1), F(2))
    (Fraction(1, 4), Fraction(1, 8), Fraction(1, 2))
    """
    weight, still_none = kernels.first_relevant_step(none_yet, x, r, n)
    rank = t + x
    return mean + weight / rank, second + weight / (rank * rank), still_none


def rr_moments(t: Num, n: Num, r: Num, k: Optional[Any]) -> tuple[Num, Num]:
    """(E[RR], E[RR²]) of the decisive group: the first one holding a relevant document.

    Every rank above the group is irrelevant, so RR = 1/(t+s) when the
    group's first relevant document is at slot s and t+s <= k, else 0.
    P(first relevant at slot s) = C(n−s, r−1)/C(n, r), built by the same
    recursion as :func:`tieaware.fast.kernels.rr_group` (a fold of
    :func:`rr_moment_step`); only within(t, n, k) slots count.  With arrays,
    every group is folded at once, each up to its own slot count.

    >>> from fractions import Fraction as F
    >>> rr_moments(0, 2, F(1), None)     # RR is 1 or 1/2, even odds
    (Fraction(3, 4), Fraction(5, 8))
    """
    slots = kernels.within(t, n, k)
    A = of(t, n, r, slots)
    mean, second, none_yet = 0 * r, 0 * r, 0 * r + 1  # f(0, r, n) = 1
    x = 1
    while A.any(x <= slots):
        step = rr_moment_step(mean, second, none_yet, x, t, r, n)
        more = x <= slots
        mean, second, none_yet = (A.where(more, new, old) for new, old in zip(step, (mean, second, none_yet)))
        if not A.any(none_yet):  # every group has found its first relevant document
            break
        x += 1
    return mean, second


def rr_variance(t: Num, n: int, r: Num, k: Optional[Any]) -> Num:
    """Var[RR] of the decisive group: Σ_s P_s/(t+s)² − (Σ_s P_s/(t+s))² over the slots within k.

    >>> from fractions import Fraction as F
    >>> rr_variance(0, 2, F(1), None)
    Fraction(1, 16)
    """
    mean, second = rr_moments(t, n, r, k)
    return second - mean * mean


def all_relevant(r: Num, n: Num, j: int) -> Num:
    """p_j: the probability that j given distinct slots of a group of n with r relevant are all relevant.

    p_j = r(r−1)…(r−j+1) / (n(n−1)…(n−j+1)), a product of safe ratios: 0
    when j > n (there are no j distinct slots; r <= n makes the numerator 0
    there anyway).

    >>> from fractions import Fraction as F
    >>> all_relevant(F(2), 4, 2), all_relevant(F(2), 2, 3)
    (Fraction(1, 6), Fraction(0, 1))
    """
    p = 0 * r + 1
    for i in range(j):
        p = p * of(r, n).ratio(r - i, n - i)
    return p


class Slots:
    """The leading slots of one group, or of many groups laid end to end, for kernels that sum over slots.

    ``Slots(count)`` with a number: one group's *count* slots, whose values
    are a numpy array (object dtype for Fractions and sympy).  With an array
    of counts: every group's slots, one flat array, group after group.
    :attr:`index` is each slot's 0-based place in its group; :meth:`total`
    sums per group, :meth:`prefix` runs a sum inside each group,
    :meth:`spread` gives each slot its group's value.

    >>> from fractions import Fraction as F
    >>> s = Slots(np.array([2, 3]))
    >>> s.index.tolist(), s.total(np.arange(5.0)).tolist(), s.prefix(np.arange(5.0)).tolist()
    ([0, 1, 0, 1, 2], [1.0, 9.0], [0.0, 1.0, 2.0, 5.0, 9.0])
    >>> Slots(3).total(np.array([F(1), F(1, 2), F(1, 3)], dtype=object))
    Fraction(11, 6)
    """

    def __init__(self, count: Any) -> None:
        self.many = isinstance(count, np.ndarray)
        if self.many:
            self.count = count.astype(np.int64)
            self.first = np.cumsum(self.count) - self.count
            self.owner = np.repeat(np.arange(len(self.count)), self.count)
            self.index = np.arange(len(self.owner)) - self.first[self.owner]
        else:
            self.count = int(count)
            self.index = np.arange(self.count, dtype=object)  # Python ints: exact arithmetic stays exact

    def spread(self, x: Any) -> Any:
        """A per-group value at each of the group's slots."""
        return x[self.owner] if self.many else x

    def total(self, v: Any) -> Any:
        """Σ of per-slot values over each group's slots (0 for a group without slots)."""
        if not self.many:
            return v.sum() if len(v) else 0
        out = np.zeros(len(self.count), dtype=v.dtype)
        some = self.count > 0
        if some.any():
            out[some] = np.add.reduceat(v, self.first[some])  # keeps extended precision (bincount would not)
        return out

    def prefix(self, v: Any) -> Any:
        """Σ of per-slot values over the group's slots up to this one (inclusive)."""
        run = np.cumsum(v)
        if not self.many or not len(v):
            return run
        return run - (run - v)[self.first][self.owner]


def ap_weighted_variance(c: Any, r: Num, b: Num, n: Optional[Num] = None, slots: Optional[Slots] = None) -> Num:
    """Var C, C = Σ_s c_s·x_s·(b + Σ_{u<=s} x_u), over a uniform random r-subset {s : x_s = 1} of a group's n slots.

    *c* holds the weights of the group's leading slots (a sequence, or a
    numpy array laid out by *slots* for many groups); the n - len(c) slots
    after them weigh 0 (*n* defaults to len(c)).  With c_s = 1/(t+s) within
    the cutoff and b relevant documents above the group, C is the group's
    part of num_rel·AP.  As x_s² = x_s, C = L + Q with L = Σ_s a_s·x_s,
    a_s = (b+1)·c_s, and Q = Σ_{u<s} c_s·x_u·x_s.  With p_j =
    :func:`all_relevant`, A1 = Σ a_s, A2 = Σ a_s², W = Σ_s (s−1)·c_s,
    N2 = Σ_s (s−1)·c_s², D_i = (i−1)·c_i + Σ_{s>i} c_s (the weight of the
    pairs holding slot i), N1 = Σ D_i² − 2·N2 (pairs of pairs sharing
    exactly one slot):

        E[C]  = p1·A1 + p2·W
        E[L²] = p1·A2 + p2·(A1² − A2)
        E[LQ] = p3·A1·W + (p2 − p3)·(Σ_s (s−1)·c_s·a_s + Σ_s c_s·Σ_{u<s} a_u)
        E[Q²] = p4·W² + (p3 − p4)·N1 + (p2 − p4)·N2
        Var C = E[L²] + 2·E[LQ] + E[Q²] − E[C]²

    (a product of indicators over d distinct slots has mean p_d).  O(n).
    Trailing slots of weight 0 add nothing to any of these sums.

    >>> from fractions import Fraction as F
    >>> ap_weighted_variance([F(1), F(1, 2), F(1, 3)], F(2), 0)  # num_rel·AP of [[1, 1, 0]]: 2, 5/3 or 7/6
    Fraction(19, 162)
    """
    if slots is None:
        c = np.array(list(c), dtype=object)
        slots = Slots(len(c))
    n = slots.count if n is None else n
    S = slots
    p1, p2, p3, p4 = (all_relevant(r, n, j) for j in (1, 2, 3, 4))
    lead = b + 1  # a_s = lead·c_s: the per-group factor is applied after the sums
    c2 = c * c
    ac = S.index * c  # (s − 1)·c_s, the 0-based index being s − 1
    before = S.prefix(c)  # Σ_{u<=s} c_u
    total = S.total(c)
    a1, a2 = lead * total, lead * lead * S.total(c2)
    w = S.total(ac)
    n2 = S.total(ac * c)
    cross = lead * (n2 + S.total(c * before) - S.total(c2))  # Σ_s (s−1)·c_s·a_s + Σ_s c_s·Σ_{u<s} a_u
    d = ac + (S.spread(total) - before)  # D_i = (i−1)·c_i + Σ_{s>i} c_s
    n1 = S.total(d * d) - 2 * n2
    mean = p1 * a1 + p2 * w
    l2 = p1 * a2 + p2 * (a1 * a1 - a2)
    lq = p3 * a1 * w + (p2 - p3) * cross
    q2 = p4 * w * w + (p3 - p4) * n1 + (p2 - p4) * n2
    return l2 + 2 * lq + q2 - mean * mean


def ap_group_variance(t: Num, n: Num, r: Num, b: Num, k: Optional[Any]) -> Num:
    """Var of a group's part of num_rel·AP@k: start t, n documents, r relevant, b relevant above, cutoff k.

    :func:`ap_weighted_variance` with c_s = 1/(t+s) for the within(t, n, k)
    slots within the cutoff (the slots past it weigh 0), in r's number type
    (so r must be a Fraction, float, array or symbol).  With arrays, every
    group at once.  Groups are independent, so
    Var AP@k = Σ_groups ap_group_variance / num_rel².

    >>> from fractions import Fraction as F
    >>> ap_group_variance(1, 2, F(1), 1, None)   # [1, [1, 0]]: the group adds 2/2 or 2/3
    Fraction(1, 36)
    """
    S = Slots(kernels.within(t, n, k))
    one = 0 * r + 1  # 1 in r's number type: Fraction weights in exact mode, floats in float mode
    c = S.spread(one) / (S.spread(t) + S.index + 1)
    return ap_weighted_variance(c, r, b, n, S)
