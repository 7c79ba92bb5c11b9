"""The six McSherry–Najork measures in closed form, O(n) per ranking.

Each function summarises the ranking per tie group once and applies the
per-group kernels of :mod:`tieaware.fast.kernels`.  With ``exact=True`` (the
default) the arithmetic is Fraction arithmetic and the result equals
:mod:`tieaware.reference` exactly; with ``exact=False`` the same kernels run
on floats, for big inputs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.exact import Exact, divide
from tieaware.fast.groups import Group, summarise
from tieaware.fast.kernels import ap_slot, expected_hits, mean_gain, pair_fraction, rr_group
from tieaware.model.gains import (
    Discount,
    Gain,
    check_gain_domain,
    check_ideal,
    discounted_sum,
    float_discount_function,
    float_gain_function,
    gain_function,
)
from tieaware.model.params import cutoff, flag, relevant_total, threshold
from tieaware.model.ranking import Groups, Ranking, groups, label

__all__ = ["precision", "recall", "f1", "average_precision", "reciprocal_rank", "dcg", "ndcg"]


def _setup(r: Ranking, rel: object, exact: object, num_rel: object = None, gain: Any = None):
    gs = groups(r)
    t = threshold(rel)
    number = Fraction if flag(exact, "exact") else float
    summary = summarise(gs, t, gain, number)
    retrieved = int(sum(g.relevant for g in summary))
    return summary, relevant_total(num_rel, retrieved), number


# -- the measures on group summaries ------------------------------------------
#
# Each *_from function is the whole closed form of one measure, given the
# group summaries.  It is plain arithmetic and comparisons, so it also runs
# on summaries whose sizes and counts are sympy symbols: tieaware.proofs
# calls these very functions (with the kernels as parameters, to check that
# a wrong kernel is caught).  *number* converts a count to the result type
# (Fraction, float, or sympy.sympify for proofs).


def hits_from(summary: Sequence[Group], k: Any, *, hits: Callable[..., Any] = expected_hits) -> Any:
    """Expected relevant documents in the top k: whole groups above k, part of the crossing one.

    >>> hits_from([Group(0, 1, Fraction(1), None), Group(1, 3, Fraction(1), None)], 3)
    Fraction(5, 3)
    """
    total = 0
    for g in summary:
        if g.start >= k:
            break
        total = total + hits(min(g.size, k - g.start), g.relevant, g.size)
    return total


def precision_from(
    summary: Sequence[Group], k: Any, *, number: Callable[[Any], Any] = Fraction, hits: Callable[..., Any] = expected_hits
) -> Any:
    """Expected P@k from the group summaries: expected hits / k."""
    return number(hits_from(summary, k, hits=hits)) / k


def recall_from(
    summary: Sequence[Group],
    k: Any,
    num_rel: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    hits: Callable[..., Any] = expected_hits,
) -> Any:
    """Expected R@k from the group summaries: expected hits / num_rel, 0 when num_rel is 0."""
    return number(0) if num_rel == 0 else number(hits_from(summary, k, hits=hits)) / num_rel


def f1_from(
    summary: Sequence[Group],
    k: Any,
    num_rel: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    hits: Callable[..., Any] = expected_hits,
) -> Any:
    """Expected F1@k from the group summaries: 2·expected hits / (k + num_rel)."""
    return 2 * number(hits_from(summary, k, hits=hits)) / (k + num_rel)


def average_precision_from(
    summary: Sequence[Group],
    k: Optional[int],
    num_rel: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    slot: Callable[..., Any] = ap_slot,
) -> Any:
    """Expected AP@k from the group summaries: Σ over ranks j <= k of E[rel(j)·P@j], / num_rel.

    Beware: the ranks are enumerated, so group sizes must be numbers (the
    relevant counts and num_rel may be symbols).
    """
    if num_rel == 0:
        return number(0)
    depth = summary[-1].end if k is None and summary else (k or 0)
    total, before = number(0), 0
    for g in summary:
        if g.start >= depth:
            break
        if g.relevant:
            last = min(g.end, depth)
            if number is Fraction and slot is ap_slot:
                total += _ap_slots_exact(g.start + 1, last, g.start, before, g.relevant, g.size)
            else:
                for j in range(g.start + 1, last + 1):
                    total += slot(j, g.start, before, g.relevant, g.size)
        before += g.relevant
    return total / num_rel


def _ap_slots_exact(first: int, last: int, t: int, before: Any, r: Fraction, n: int) -> Fraction:
    """Σ_{j=first..last} ap_slot(j, t, before, r, n), exactly, in O(1) Fraction operations.

    ap_slot(j) = (r/n)·(before + 1 + (j - t - 1)·p)/j with p = pair_fraction(r, n)
    splits into (r/n)·((before + 1 - (t + 1)·p)/j + p), so the group's slots
    need one exact harmonic sum instead of one Fraction addition per rank,
    each with a larger denominator (the lcm of the ranks so far).  Float mode
    keeps the per-rank loop: this form can cancel.

    >>> _ap_slots_exact(1, 2, 0, 0, Fraction(1), 2) == ap_slot(1, 0, 0, Fraction(1), 2) + ap_slot(2, 0, 0, Fraction(1), 2)
    True
    """
    p = pair_fraction(r, n)
    return r / n * ((before + 1 - (t + 1) * p) * _harmonic(first, last) + p * (last - first + 1))


def _harmonic(first: int, last: int) -> Fraction:
    """Σ_{j=first..last} 1/j, exactly, by binary splitting on integers (one gcd at the end).

    >>> _harmonic(1, 4)
    Fraction(25, 12)
    """

    def split(lo: int, hi: int) -> tuple[int, int]:  # Σ_{lo <= j < hi} 1/j as an unreduced p/q
        if hi - lo <= 16:
            num, den = 0, 1
            for j in range(lo, hi):
                num, den = num * j + den, den * j
            return num, den
        mid = (lo + hi) // 2
        p1, q1 = split(lo, mid)
        p2, q2 = split(mid, hi)
        return p1 * q2 + p2 * q1, q1 * q2

    return Fraction(*split(first, last + 1)) if first <= last else Fraction(0)


def reciprocal_rank_from(
    summary: Sequence[Group],
    k: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    group: Callable[..., Any] = rr_group,
) -> Any:
    """Expected RR@k from the group summaries: decided by the first group holding a relevant document.

    Only min(size, k - start) slots of that group lie within the cutoff.
    """
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            slots = g.size if k is None else min(g.size, k - g.start)
            return number(group(g.start, g.relevant, g.size, slots))
    return number(0)


# -- the public measures --------------------------------------------------------


def precision(r: Ranking, k: int, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected P@k, in closed form: (R_c + (k - t_c)·r_c/n_c) / k.

    >>> precision([1, [0, 1, 0], 1], 3)
    Fraction(5, 9)

    Beware: for k beyond the ranking, missing ranks count as non-relevant.
    """
    summary, _, number = _setup(r, rel, exact)
    return precision_from(summary, cutoff(k), number=number)


def recall(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected R@k = expected hits / num_rel (0 when num_rel is 0).

    >>> recall([1, [0, 1, 0], 1], 3, num_rel=4)
    Fraction(5, 12)
    """
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    return recall_from(summary, cutoff(k), n_rel, number=number)


def f1(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected F1@k = 2·expected hits / (k + num_rel).

    >>> f1([1, [0, 1, 0], 1], 3)
    Fraction(5, 9)
    """
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    return f1_from(summary, cutoff(k), n_rel, number=number)


def average_precision(
    r: Ranking, k: Optional[int] = None, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected AP@k, summing the expected rel(j)·P@j of every rank j <= k.

    >>> average_precision([1, [0, 1], 1])
    Fraction(31, 36)
    """
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    return average_precision_from(summary, cutoff(k, optional=True), n_rel, number=number)


def reciprocal_rank(r: Ranking, k: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected 1/rank of the first relevant document, found in the first group holding one.

    >>> reciprocal_rank([0, [0, 1, 0]])
    Fraction(13, 36)
    """
    summary, _, number = _setup(r, rel, exact)
    return reciprocal_rank_from(summary, cutoff(k, optional=True), number=number)


def _dcg_terms(gs: Groups, k: Optional[int], gain: Gain, exact: bool) -> dict[int, Any]:
    """{rank j: mean gain of j's group}: every member is equally likely at every rank."""
    g_fn = gain_function(gain) if exact else float_gain_function(gain)
    terms: dict[int, Any] = {}
    start = 0
    for g in gs:
        if k is not None and start >= k:
            break
        if exact:
            mean = mean_gain(sum((n * g_fn(x) for x, n in _tally(g)), Fraction(0)), len(g))
        else:
            mean = mean_gain(sum((g_fn(x) for x in g), 0.0), len(g))
        for j in range(start + 1, start + len(g) + 1 if k is None else min(start + len(g), k) + 1):
            terms[j] = mean
        start += len(g)
    return terms


def _ideal_terms(labels: Sequence[Fraction], k: Optional[int], gain: Gain, exact: bool) -> dict[int, Any]:
    g_fn = gain_function(gain) if exact else float_gain_function(gain)
    # Sort the few distinct labels, not every label: Fraction comparisons are slow.
    best = [x for x, n in sorted(_tally(labels), reverse=True) for _ in range(n)][:k]
    return {j: g_fn(x) for j, x in enumerate(best, start=1)}


def _tally(labels: Iterable[Fraction]) -> list[tuple[Fraction, int]]:
    """Each distinct label with its count, keyed by (p, q): a Fraction's hash is slow to compute."""
    counts = Counter((x.numerator, x.denominator) for x in labels)
    return [(Fraction(p, q), n) for (p, q), n in counts.items()]


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
    gs = groups(r)
    check_gain_domain((x for g in gs for x in g), gain)
    terms = _dcg_terms(gs, cutoff(k, optional=True), gain, exact)
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
    check_gain_domain((x for g in gs for x in g), gain)
    check_gain_domain(labels, gain, "ideal")
    if ideal is not None:
        check_ideal([x for g in gs for x in g], labels, ideal)
    got = _apply(_dcg_terms(gs, k, gain, exact), discount, exact)
    best = _apply(_ideal_terms(labels, k, gain, exact), discount, exact)
    if exact:
        return divide(got, best)
    return 0.0 if best == 0 else got / best
