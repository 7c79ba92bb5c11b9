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

from tieaware.model.exact import Exact
from tieaware.fast.groups import Group, summarise
from tieaware.fast import kernels
from tieaware.fast.arith import EXACT, FLOAT
from tieaware.model.gains import (
    Discount,
    Gain,
    check_gain_domain,
    check_ideal,
    float_gain_function,
    gain_function,
)
from tieaware.model.errors import bad
from tieaware.model.params import choice, cutoff, flag, relevant_total, threshold
from tieaware.model.ranking import Groups, Ranking, groups, ideal_label

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
# group summaries: a walk over the groups that calls the kernels of
# :mod:`tieaware.fast.kernels` (looked up there at call time, so a proof or a
# test that replaces a kernel replaces it everywhere).  The walk is plain
# Python over the kernels, so it also runs on summaries whose sizes and
# counts are sympy symbols: tieaware.proofs calls these very functions.
# *number* converts a count to the result type (Fraction, float, or
# sympy.sympify for proofs) and picks the arithmetic (tieaware.fast.arith).


def hits_from(summary: Sequence[Group], k: Any, *, hits: Optional[Callable[..., Any]] = None) -> Any:
    """Expected relevant documents in the top k: Σ_groups hits(within(t, n, k), r, n), groups above k only.

    *hits* defaults to :func:`tieaware.fast.kernels.expected_hits`.

    >>> hits_from([Group(0, 1, Fraction(1), None), Group(1, 3, Fraction(1), None)], 3)
    Fraction(5, 3)
    """
    hits = hits or kernels.expected_hits
    total = 0
    for g in summary:
        if g.start >= k:
            break
        if g.relevant:  # a group without a relevant document adds no hits
            total = total + hits(kernels.within(g.start, g.size, k), g.relevant, g.size)
    return total


def precision_from(
    summary: Sequence[Group],
    k: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    hits: Optional[Callable[..., Any]] = None,
    norm: str = "k",
    num_rel: Any = None,
) -> Any:
    """Expected P@k from the group summaries: precision_value(expected hits, k).

    With ``norm="capped"`` the divisor is min(k, num_rel) (implicit's
    precision), also a constant: :func:`~tieaware.fast.kernels.precision_capped_value`.

    With ``norm="retrieved"`` the divisor is min(k, n), n the documents
    retrieved (torchmetrics' ``adaptive_k``): a constant of the ranking, so
    the expectation is :func:`~tieaware.fast.kernels.precision_retrieved_value`
    of the expected hits.

    >>> one_of_three = [Group(0, 3, Fraction(1), None)]
    >>> precision_from(one_of_three, 5), precision_from(one_of_three, 5, norm="retrieved")
    (Fraction(1, 5), Fraction(1, 3))
    """
    expected = number(hits_from(summary, k, hits=hits))
    if norm == "retrieved":
        return kernels.precision_retrieved_value(expected, k, summary[-1].end if summary else 0)
    if norm == "capped":
        return kernels.precision_capped_value(expected, k, num_rel)
    return kernels.precision_value(expected, k)


def recall_from(
    summary: Sequence[Group],
    k: Any,
    num_rel: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    hits: Optional[Callable[..., Any]] = None,
) -> Any:
    """Expected R@k from the group summaries: recall_value(expected hits, num_rel), 0 when num_rel is 0."""
    return kernels.recall_value(number(hits_from(summary, k, hits=hits)), num_rel)


def f1_from(
    summary: Sequence[Group],
    k: Any,
    num_rel: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    hits: Optional[Callable[..., Any]] = None,
) -> Any:
    """Expected F1@k from the group summaries: f1_value(expected hits, k, num_rel) = 2·hits / (k + num_rel)."""
    return kernels.f1_value(number(hits_from(summary, k, hits=hits)), k, num_rel)


def average_precision_from(
    summary: Sequence[Group],
    k: Optional[Any],
    num_rel: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    group: Optional[Callable[..., Any]] = None,
    norm: str = "R",
    pmf: Optional[Callable[..., Any]] = None,
) -> Any:
    """Expected AP@k from the group summaries: Σ_groups ap_group(t, last, before, r, n), / num_rel.

    *last* is the group's last rank within k (``within``); *before* counts the
    relevant documents of the groups above.  Groups without a relevant
    document add nothing and are skipped.  *group* defaults to
    :func:`tieaware.fast.kernels.ap_group`.

    *norm* is the divisor (docs/conventions.md, Conventions of other
    libraries): ``"R"`` num_rel; ``"capped"`` min(num_rel, k) (RecBole,
    rankereval); ``"k"`` k (rectools' ``divide_by_k``); ``"hits"`` the
    relevant documents in the top k (torchmetrics), which the group
    straddling k makes random: see :func:`ap_by_hits_from` (*pmf* defaults to
    :func:`tieaware.fast.kernels.hits_pmf`).

    >>> average_precision_from([Group(0, 1, Fraction(1), None), Group(1, 2, Fraction(1), None)], None, 2)
    Fraction(11, 12)
    """
    if norm == "hits":
        return ap_by_hits_from(summary, k, number=number, group=group, pmf=pmf)
    group = group or kernels.ap_group
    total, before = number(0), 0
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:  # a group without a relevant document adds nothing, to the total or to *before*
            total = total + group(g.start, g.start + kernels.within(g.start, g.size, k), before, g.relevant, g.size)
            before = before + g.relevant
    if norm == "capped":
        return kernels.ap_capped_value(total, num_rel, k)
    if norm == "k":
        return kernels.ap_value(total, k)
    return kernels.ap_value(total, num_rel)


def ap_by_hits_from(
    summary: Sequence[Group],
    k: Optional[Any],
    *,
    number: Callable[[Any], Any] = Fraction,
    group: Optional[Callable[..., Any]] = None,
    pmf: Optional[Callable[..., Any]] = None,
) -> Any:
    """Expected AP@k divided by the relevant documents in the top k (``AP(norm=hits)@k``; 0 without one).

    The divisor is fixed by the groups wholly above k, except for the group
    straddling k: of its m slots within the top k, h hold relevant documents
    with chance ``pmf(h, m, r, n)``.  Given h, those m slots are a tie group of
    m with h relevant (every arrangement of the h among the m slots is equally
    likely), and the groups above are shuffled independently, so

        E[AP] = Σ_h pmf(h) · (A + ap_group(t, t + m, B, h, m)) / (B + h),

    A and B being the expected sum and the relevant count of the groups above.

    >>> ap_by_hits_from([Group(0, 2, Fraction(1), None)], 1)     # [[1, 0]] cut at 1: AP 1 or no hit
    Fraction(1, 2)

    Beware: the straddling group's size and relevant count must be numbers.
    """
    group = group or kernels.ap_group
    pmf = pmf or kernels.hits_pmf
    above, before = number(0), 0
    for g in summary:
        if k is not None and g.start >= k:
            break
        if k is not None and g.end > k:  # the group straddling the cutoff: condition on its hits within it
            m, total = k - g.start, number(0)
            for h in range(0, min(int(g.relevant), m) + 1):
                chance = pmf(h, m, g.relevant, g.size, number)
                if chance == 0 or before + h == 0:
                    continue
                inside = group(g.start, g.start + m, before, number(h), number(m)) if h else number(0)
                total = total + chance * (above + inside) / (before + h)
            return total
        if g.relevant:
            above = above + group(g.start, g.end, before, g.relevant, g.size)
        before = before + g.relevant
    return kernels.ap_value(above, before)


def reciprocal_rank_from(
    summary: Sequence[Group],
    k: Any,
    *,
    number: Callable[[Any], Any] = Fraction,
    group: Optional[Callable[..., Any]] = None,
) -> Any:
    """Expected RR@k from the group summaries: decided by the first group holding a relevant document.

    Only within(t, n, k) slots of that group lie within the cutoff.  *group*
    defaults to :func:`tieaware.fast.kernels.rr_group`.
    """
    group = group or kernels.rr_group
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            return number(group(g.start, g.relevant, g.size, kernels.within(g.start, g.size, k)))
    return number(0)


def dcg_from(
    summary: Sequence[Group], k: Optional[Any], *, number: Callable[[Any], Any] = Fraction, discount: Any = "log2", group: Optional[Callable[..., Any]] = None
) -> Any:
    """Expected DCG@k from group summaries whose *gain* is the group's total gain: Σ_groups dcg_group.

    Exact mode returns the formal sum (resolve it with ``EXACT.value``, or
    divide it with :func:`tieaware.fast.kernels.ndcg_value`).  *group*
    defaults to :func:`tieaware.fast.kernels.dcg_group`.

    >>> from tieaware.fast.arith import EXACT
    >>> EXACT.value(dcg_from([Group(0, 2, None, Fraction(2)), Group(2, 1, None, Fraction(1))], None, discount=lambda j: Fraction(1, j)))
    Fraction(11, 6)
    """
    group = group or kernels.dcg_group
    total = number(0)
    for g in summary:
        if k is not None and g.start >= k:
            break
        total = total + group(g.gain, g.size, g.start, g.start + kernels.within(g.start, g.size, k), discount)
    return total


def ideal_groups(gains: Sequence[tuple[Any, int]]) -> list[Group]:
    """The ideal ranking's groups: one per distinct gain, best first, (gain, count) -> Group(t, count, None, count·gain).

    Equal labels are interchangeable, so a run of them is a tie group whose
    every ordering is the ideal one.  *gains* are (gain, count) pairs, sorted
    best first by the caller.

    >>> [(g.start, g.size, g.gain) for g in ideal_groups([(Fraction(3), 2), (Fraction(1), 1)])]
    [(0, 2, Fraction(6, 1)), (2, 1, Fraction(1, 1))]
    """
    out, start = [], 0
    for gain, count in gains:
        if count:
            out.append(Group(start, count, None, count * gain))
            start += count
    return out


# -- the public measures --------------------------------------------------------


def precision(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, norm: str = "k", exact: bool = True) -> Exact:
    """Expected P@k, in closed form: (R_c + (k - t_c)·r_c/n_c) / k.

    ``norm="retrieved"`` divides by min(k, n) instead of k (``P(norm=retrieved)@k``);
    ``norm="capped"`` by min(k, num_rel) (``P(norm=capped)@k``; num_rel defaults to the
    relevant documents in the ranking).

    >>> precision([1, [0, 1, 0], 1], 3)
    Fraction(5, 9)
    >>> precision([[1, 0]], 5), precision([[1, 0]], 5, norm="retrieved")
    (Fraction(1, 5), Fraction(1, 2))

    Beware: for k beyond the ranking, missing ranks count as non-relevant
    (unless ``norm="retrieved"``).
    """
    norm = choice(norm, "norm", ("k", "retrieved", "capped"))
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    return precision_from(summary, cutoff(k), number=number, norm=norm, num_rel=n_rel)


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
    r: Ranking,
    k: Optional[int] = None,
    num_rel: Optional[int] = None,
    *,
    rel: object = 1,
    norm: str = "R",
    exact: bool = True,
) -> Exact:
    """Expected AP@k, summing the expected rel(j)·P@j of every rank j <= k.

    *norm* is the divisor: ``"R"`` num_rel, ``"capped"`` min(num_rel, k),
    ``"hits"`` the relevant documents in the top k, ``"k"`` k (``AP(norm=...)@k``).

    >>> average_precision([1, [0, 1], 1])
    Fraction(31, 36)
    >>> average_precision([0, [1, 0]], 2, norm="hits")       # 1/2 of the time AP is 1/2, else no hit
    Fraction(1, 4)
    """
    norm = choice(norm, "norm", ("R", "capped", "hits", "k"))
    if norm in ("capped", "k") and k is None:
        raise bad("k", k, f"must be a cutoff with norm={norm!r} (AP@k divided by {'min(num_rel, k)' if norm == 'capped' else 'k'})")
    summary, n_rel, number = _setup(r, rel, exact, num_rel)
    return average_precision_from(summary, cutoff(k, optional=True), n_rel, number=number, norm=norm)


def reciprocal_rank(r: Ranking, k: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected 1/rank of the first relevant document, found in the first group holding one.

    >>> reciprocal_rank([0, [0, 1, 0]])
    Fraction(13, 36)
    """
    summary, _, number = _setup(r, rel, exact)
    return reciprocal_rank_from(summary, cutoff(k, optional=True), number=number)


def _dcg_summary(gs: Groups, gain: Gain, exact: bool) -> list[Group]:
    """One Group per tie group with its total gain (exact or float)."""
    g_fn = gain_function(gain) if exact else float_gain_function(gain)
    out, start = [], 0
    for g in gs:
        if exact:
            total = sum((n * g_fn(x) for x, n in _tally(g)), Fraction(0))
        else:
            total = sum((g_fn(x) for x in g), 0.0)
        out.append(Group(start, len(g), None, total))
        start += len(g)
    return out


def _ideal_summary(labels: Sequence[Fraction], gain: Gain, exact: bool) -> list[Group]:
    """The ideal ranking of *labels* as groups of equal labels, best first."""
    g_fn = gain_function(gain) if exact else float_gain_function(gain)
    # Sort the few distinct labels, not every label: Fraction comparisons are slow.
    return ideal_groups([(g_fn(x), n) for x, n in sorted(_tally(labels), reverse=True)])


def _tally(labels: Iterable[Fraction]) -> list[tuple[Fraction, int]]:
    """Each distinct label with its count, keyed by (p, q): a Fraction's hash is slow to compute."""
    counts = Counter((x.numerator, x.denominator) for x in labels)
    return [(Fraction(p, q), n) for (p, q), n in counts.items()]


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
    number = Fraction if exact else float
    total = dcg_from(_dcg_summary(gs, gain, exact), cutoff(k, optional=True), number=number, discount=discount)
    return (EXACT if exact else FLOAT).value(total)


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
    labels = [x for g in gs for x in g] if ideal is None else [ideal_label(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    check_gain_domain((x for g in gs for x in g), gain)
    check_gain_domain(labels, gain, "ideal")
    if ideal is not None:
        check_ideal([x for g in gs for x in g], labels, ideal)
    number = Fraction if exact else float
    got = dcg_from(_dcg_summary(gs, gain, exact), k, number=number, discount=discount)
    best = dcg_from(_ideal_summary(labels, gain, exact), k, number=number, discount=discount)
    return kernels.ndcg_value(got, best)
