"""The six McSherry–Najork measures in closed form, O(n) per ranking.

Each function summarises the ranking per tie group once and applies the
per-group kernels of :mod:`tieaware.fast.kernels`.  With ``exact=True`` (the
default) the arithmetic is Fraction arithmetic and the result equals
:mod:`tieaware.reference` exactly; with ``exact=False`` the same kernels run
on floats, for big inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.exact import Exact, divide
from tieaware.fast.groups import Group, summarise
from tieaware.fast.kernels import ap_slot, expected_hits, rr_group
from tieaware.gains import (
    Discount,
    Gain,
    discounted_sum,
    float_discount_function,
    float_gain_function,
    gain_function,
)
from tieaware.params import cutoff, flag, relevant_total, threshold
from tieaware.ranking import Groups, Ranking, groups, label

__all__ = ["precision", "recall", "f1", "average_precision", "reciprocal_rank", "dcg", "ndcg"]


def _setup(r: Ranking, rel: object, exact: object, num_rel: object = None, gain: Any = None):
    gs = groups(r)
    t = threshold(rel)
    number = Fraction if flag(exact, "exact") else float
    summary = summarise(gs, t, gain, number)
    retrieved = int(sum(g.relevant for g in summary))
    return summary, relevant_total(num_rel, retrieved), number


def _hits(summary: list[Group], k: int) -> Any:
    """Expected relevant documents in the top k: whole groups above k, part of the crossing one."""
    total = 0
    for g in summary:
        if g.start >= k:
            break
        total = total + expected_hits(min(g.size, k - g.start), g.relevant, g.size)
    return total


def precision(r: Ranking, k: int, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected P@k, in closed form: (R_c + (k - t_c)·r_c/n_c) / k.

    >>> precision([1, [0, 1, 0], 1], 3)
    Fraction(5, 9)

    Beware: for k beyond the ranking, missing ranks count as non-relevant.
    """
    summary, _, number = _setup(r, rel, exact)
    k = cutoff(k)
    return number(_hits(summary, k)) / k


def recall(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected R@k = expected hits / num_rel (0 when num_rel is 0).

    >>> recall([1, [0, 1, 0], 1], 3, num_rel=4)
    Fraction(5, 12)
    """
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    k = cutoff(k)
    return number(0) if n_rel == 0 else number(_hits(summary, k)) / n_rel


def f1(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected F1@k = 2·expected hits / (k + num_rel).

    >>> f1([1, [0, 1, 0], 1], 3)
    Fraction(5, 9)
    """
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    k = cutoff(k)
    return 2 * number(_hits(summary, k)) / (k + n_rel)


def average_precision(
    r: Ranking, k: Optional[int] = None, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected AP@k, summing the expected rel(j)·P@j of every rank j <= k.

    >>> average_precision([1, [0, 1], 1])
    Fraction(31, 36)
    """
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    k = cutoff(k, optional=True)
    if n_rel == 0:
        return number(0)
    depth = summary[-1].end if k is None and summary else (k or 0)
    total, before = number(0), 0
    for g in summary:
        if g.start >= depth:
            break
        if g.relevant:
            for j in range(g.start + 1, min(g.end, depth) + 1):
                total += ap_slot(j, g.start, before, g.relevant, g.size)
        before += g.relevant
    return total / n_rel


def reciprocal_rank(r: Ranking, k: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected 1/rank of the first relevant document, found in the first group holding one.

    >>> reciprocal_rank([0, [0, 1, 0]])
    Fraction(13, 36)
    """
    summary, _, number = _setup(r, rel, exact)
    k = cutoff(k, optional=True)
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            slots = g.size if k is None else min(g.size, k - g.start)
            return number(rr_group(g.start, g.relevant, g.size, slots))
    return number(0)


def _dcg_terms(gs: Groups, k: Optional[int], gain: Gain, exact: bool) -> dict[int, Any]:
    """{rank j: mean gain of j's group}: every member is equally likely at every rank."""
    g_fn = gain_function(gain) if exact else float_gain_function(gain)
    terms: dict[int, Any] = {}
    start = 0
    for g in gs:
        if k is not None and start >= k:
            break
        mean_gain = sum((g_fn(x) for x in g), Fraction(0) if exact else 0.0) / len(g)
        for j in range(start + 1, start + len(g) + 1 if k is None else min(start + len(g), k) + 1):
            terms[j] = mean_gain
        start += len(g)
    return terms


def _ideal_terms(labels: Sequence[Fraction], k: Optional[int], gain: Gain, exact: bool) -> dict[int, Any]:
    g_fn = gain_function(gain) if exact else float_gain_function(gain)
    best = sorted(labels, reverse=True)[:k]
    return {j: g_fn(x) for j, x in enumerate(best, start=1)}


def _apply(terms: dict[int, Any], discount: Discount, exact: bool) -> Exact:
    if exact:
        return discounted_sum(terms, discount)
    d = float_discount_function(discount)
    return sum((c * d(j) for j, c in terms.items()), 0.0)


def dcg(
    r: Ranking, k: Optional[int] = None, gain: Gain = "linear", discount: Discount = "log2", *, exact: bool = True
) -> Exact:
    """Expected DCG@k = Σ_groups (mean gain of the group) · Σ_{ranks of the group <= k} D(j).

    >>> dcg([[2, 0], 1], discount=lambda j: Fraction(1, j))
    Fraction(11, 6)
    >>> dcg([3, 2, 3, 0, 1])
    log(2)/log(6) + 2*log(2)/log(3) + 9/2

    Beware: with the log2 discount the exact value is symbolic; use
    :func:`tieaware.to_decimal` or ``exact=False`` to print it.
    """
    exact = flag(exact, "exact")
    terms = _dcg_terms(groups(r), cutoff(k, optional=True), gain, exact)
    return _apply(terms, discount, exact)


def ndcg(
    r: Ranking,
    k: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    gain: Gain = "linear",
    discount: Discount = "log2",
    *,
    exact: bool = True,
) -> Exact:
    """Expected DCG@k divided by the ideal DCG@k of *ideal* (default: the ranking's labels).

    >>> ndcg([[1, 0]], discount=lambda j: Fraction(1, j))
    Fraction(3, 4)
    """
    exact = flag(exact, "exact")
    gs = groups(r)
    k = cutoff(k, optional=True)
    labels = [x for g in gs for x in g] if ideal is None else [label(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    got = _apply(_dcg_terms(gs, k, gain, exact), discount, exact)
    best = _apply(_ideal_terms(labels, k, gain, exact), discount, exact)
    if exact:
        return divide(got, best)
    return 0.0 if best == 0 else got / best
