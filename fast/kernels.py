"""Per-group closed forms (McSherry & Najork 2008), written once for every kind of number.

A tie group occupies ranks t+1 .. t+n and holds r relevant documents.  Every
kernel here is written over :mod:`tieaware.fast.arith`, which picks its
arithmetic from the arguments: Fractions (exact mode and the exact whole-run
path), floats (float mode), numpy arrays with one element per group of every
query (the engines in :mod:`tieaware.runs`) and sympy symbols
(:mod:`tieaware.proofs` proves these very functions).  So the number a user
reads is computed by the code the proofs check.  Callers pass at least one of
r, n as a Fraction, float, array or symbol: never only Python ints, which
would divide into a float.  Callers look the kernels up in this module when
they call them (``kernels.ap_group(...)``), so there is one object of each.

Per group: :func:`within` (slots within the cutoff), :func:`expected_hits`,
:func:`ap_group` (AP's harmonic-sum form), :func:`rr_group` (the
first-relevant recursion), :func:`dcg_group` (mean gain × discount span),
:func:`rbp_group`, ERR's :func:`err_stop`, :func:`err_term`, :func:`err_slot` and
:func:`subset_mean_step` (the mean survival over a member's fellow group
members, folded one member at a time).  Per query,
the final combinations: :func:`precision_value`,
:func:`recall_value`, :func:`f1_value`, :func:`ap_value`, :func:`ndcg_value`.

>>> from fractions import Fraction as F
>>> expected_hits(2, F(1), F(3))
Fraction(2, 3)
>>> import numpy as np
>>> expected_hits(within(np.array([0.0, 2.0]), np.array([3.0, 3.0]), 3), np.array([1.0, 3.0]), np.array([3.0, 3.0]))
array([1., 1.])
"""

from __future__ import annotations

from typing import Any, Optional

from tieaware.fast.arith import of

__all__ = [
    "within",
    "expected_hits",
    "pair_fraction",
    "ap_slot",
    "ap_group",
    "survival_step",
    "first_relevant_step",
    "rr_step",
    "rr_group",
    "mean_gain",
    "dcg_group",
    "rbp_group",
    "rbp_weight_squares",
    "err_stop",
    "err_slot",
    "err_term",
    "subset_mean_step",
    "precision_value",
    "recall_value",
    "f1_value",
    "ap_value",
    "ndcg_value",
    "hits_pmf",
    "precision_retrieved_value",
    "precision_capped_value",
    "ap_capped_value",
]

Num = Any  # Fraction, float, numpy array or sympy expression


def within(t: Num, n: Num, k: Optional[Num]) -> Num:
    """How many of a group's n slots (ranks t+1 .. t+n) lie within the cutoff k: clip(k - t, 0, n).

    ``k=None`` means no cutoff: all n.

    >>> within(2, 3, 4), within(2, 3, None), within(5, 3, 4)
    (2, 3, 0)
    """
    if k is None:
        return n
    return of(t, n, k).clip(k - t, 0, n)


def expected_hits(m: Num, r: Num, n: Num) -> Num:
    """Expected relevant documents in the first m slots of a group (m <= n).

    Every slot is relevant with probability r/n (exchangeability), so the
    mean is m·r/n: the hypergeometric mean.

    >>> from fractions import Fraction as F
    >>> expected_hits(3, F(2), F(4))
    Fraction(3, 2)
    """
    return m * r / n


def pair_fraction(r: Num, n: Num) -> Num:
    """P(another given slot is relevant | this slot is relevant) = (r-1)/(n-1).

    For a singleton group there is no other slot; the paper's 0/0 is
    multiplied by a slot count of 0, so 0 is returned (a ratio with
    denominator 0 is 0).

    >>> from fractions import Fraction as F
    >>> pair_fraction(F(2), F(5)), pair_fraction(F(1), F(1))
    (Fraction(1, 4), Fraction(0, 1))
    """
    return of(r, n).ratio(r - 1, n - 1)


def ap_slot(j: Num, t: Num, before: Num, r: Num, n: Num) -> Num:
    """Expected rel(j)·P@j at rank j of a group starting after rank t.

    *before* relevant documents precede the group.  Rank j is relevant with
    probability r/n; given that, the j - t - 1 group slots above it hold
    (j - t - 1)(r - 1)/(n - 1) relevant documents on average (the pair
    lemma), so P@j averages (before + that + 1)/j.  This is the paper's
    AP term with its stray parenthesis removed; :func:`ap_group` sums it
    over a group's ranks in closed form (theorem "AP harmonic sum").

    >>> from fractions import Fraction as F
    >>> ap_slot(2, 0, 0, F(1), F(2))    # one relevant of two at ranks 1-2, rank 2
    Fraction(1, 4)
    """
    return r / n * (before + 1 + (j - t - 1) * pair_fraction(r, n)) / j


def ap_group(t: Num, last: Num, before: Num, r: Num, n: Num) -> Num:
    """Σ_{j=t+1..last} ap_slot(j, t, before, r, n): a group's part of num_rel·E[AP@k], in closed form.

    ap_slot(j) = (r/n)·(before + 1 + (j - t - 1)·π)/j with π = pair_fraction(r, n)
    splits into (r/n)·((before + 1 - (t + 1)·π)/j + π), so the group's ranks
    need one harmonic span H = Σ_{j=t+1..last} 1/j:

        (r/n)·((before + 1 - (t + 1)·π)·H + π·(last - t)).

    *last* is the group's last rank within the cutoff (t when none is).
    Exact mode sums H by binary splitting, the engines by a prefix table in
    extended precision, the proofs as harmonic(last) - harmonic(t).

    >>> from fractions import Fraction as F
    >>> ap_group(0, 2, 0, F(1), F(2)) == ap_slot(1, 0, 0, F(1), F(2)) + ap_slot(2, 0, 0, F(1), F(2))
    True
    """
    A = of(t, last, before, r, n)
    p = pair_fraction(r, n)
    return r / n * ((before + 1 - (t + 1) * p) * A.harmonic(t, last) + p * (last - t))


def survival_step(x: Num, r: Num, n: Num) -> Num:
    """P(slot x is irrelevant | slots 1..x-1 were): 1 - r/(n - x + 1).

    The product of the steps for 1..x is the paper's f(x, r, n), the
    chance that the first x slots of the group are all irrelevant.

    >>> from fractions import Fraction as F
    >>> survival_step(1, F(1), F(4))
    Fraction(3, 4)
    """
    return 1 - r / (n - x + 1)


def first_relevant_step(none_yet: Num, x: Num, r: Num, n: Num) -> tuple[Num, Num]:
    """One step of the paper's recursion: from f(x-1) to (P(first relevant at slot x), f(x)).

    :func:`rr_group` and :func:`tieaware.fast.variance_kernels.rr_moments`
    are folds of this step, so a proof of the step for a symbolic x proves
    them for every slot count (tieaware.proofs does so).

    >>> from fractions import Fraction as F
    >>> first_relevant_step(1, 1, F(1), F(3))
    (Fraction(1, 3), Fraction(2, 3))
    """
    still_none = none_yet * survival_step(x, r, n)
    return none_yet - still_none, still_none


def rr_step(total: Num, none_yet: Num, x: Num, t: Num, r: Num, n: Num) -> tuple[Num, Num]:
    """One slot of rr_group: add P(first relevant at slot x)/(t + x) to *total*; carry f(x).

    >>> from fractions import Fraction as F
    >>> rr_step(0, 1, 1, 0, F(1), F(2))
    (Fraction(1, 2), Fraction(1, 2))
    """
    weight, still_none = first_relevant_step(none_yet, x, r, n)
    return total + weight / (t + x), still_none


def rr_group(t: Num, r: Num, n: Num, slots: Num) -> Num:
    """Expected 1/rank of the first relevant document, found in this group.

    Only *slots* = within(t, n, k) group slots lie within the cutoff; when
    all of them are irrelevant the measure scores 0 for those orderings.
    With arrays, every group is folded at once, each up to its own slot
    count (and no further once nothing can be left to find).

    >>> from fractions import Fraction as F
    >>> rr_group(1, F(1), F(3), 3)    # (1/2 + 1/3 + 1/4) / 3
    Fraction(13, 36)
    """
    A = of(t, r, n, slots)
    total, none_yet = 0 * r, 0 * r + 1  # nothing found yet; f(0, r, n) = 1
    x = 1
    while A.any(x <= slots):
        step_total, step_none = rr_step(total, none_yet, x, t, r, n)
        more = x <= slots
        total, none_yet = A.where(more, step_total, total), A.where(more, step_none, none_yet)
        if not A.any(none_yet):  # every group has found its first relevant document
            break
        x += 1
    return total


def mean_gain(total_gain: Num, n: Num) -> Num:
    """The expected gain at any rank of a group: its members' total gain / n.

    Every member is equally likely at every rank of its group
    (exchangeability), so each rank's DCG coefficient is the group's mean
    gain, whatever the gain and discount functions.

    >>> from fractions import Fraction as F
    >>> mean_gain(F(3), 2)
    Fraction(3, 2)
    """
    return total_gain / n


def dcg_group(total_gain: Num, n: Num, t: Num, last: Num, discount: Any = "log2") -> Num:
    """A group's part of E[DCG@k]: mean_gain · Σ_{j=t+1..last} D(j), *last* its last rank within k.

    Exact mode keeps the discount span formal (resolved once per query by
    :func:`tieaware.model.gains.discounted_sum`); the engine reads it from a
    prefix table; the proofs keep D an undefined function.  The ideal DCG is
    the same kernel on the ideal ranking, one group per run of equal labels.

    >>> from fractions import Fraction as F
    >>> from tieaware.fast.arith import EXACT
    >>> EXACT.value(dcg_group(F(3), 2, 0, 2, lambda j: F(1, j)))    # (3/2)·(1 + 1/2)
    Fraction(9, 4)
    """
    return mean_gain(total_gain, n) * of(total_gain, n, t, last).discount_span(t, last, discount)


def rbp_group(p: Num, t: Num, end: Num, r: Num, n: Num) -> Num:
    """Expected RBP contribution of a group at ranks t+1..t+n, cut at rank *end*: (r/n)(p**t - p**end).

    The ranks t+1..end carry weight Σ (1-p)·p**(j-1) = p**t - p**end and each
    is relevant with probability r/n.  Exact mode keeps the powers formal and
    sums them in integers per query; floats take the difference as one power
    gap (:meth:`tieaware.fast.arith.Float.power_gap`), accurate when p is near 1.

    >>> from fractions import Fraction as F
    >>> from tieaware.fast.arith import EXACT
    >>> EXACT.value(rbp_group(F(1, 2), 0, 2, F(1), 2))    # one relevant of two at ranks 1-2
    Fraction(3, 8)
    """
    A = of(p, t, end, r, n)
    return r / n * A.power_gap(p, t, end)


def rbp_weight_squares(p: Num, t: Num, end: Num) -> Num:
    """Σ_{j=t+1..end} ((1-p)·p**(j-1))²: the squared RBP weights of ranks t+1..end, (1-p)/(1+p)·(p**(2t) - p**(2·end)).

    With Σ_j (1-p)·p**(j-1) = rbp_group(p, t, end, 1, 1), the two power
    sums of a group's rank weights that its RBP variance needs
    (:func:`tieaware.fast.variance_kernels.rbp_group_variance`).

    >>> from fractions import Fraction as F
    >>> from tieaware.fast.arith import EXACT
    >>> EXACT.value(rbp_weight_squares(F(1, 2), 0, 2))    # (1/2)² + (1/4)²
    Fraction(5, 16)
    """
    A = of(p, t, end)
    return A.number((1 - p) / (1 + p)) * A.power_gap(p, 2 * t, 2 * end)  # a Fraction p: the factor rounded once


def err_stop(grade: Num, g_max: Num) -> Num:
    """Chapelle's stopping probability of a document of label *grade*: R(g) = (2**g - 1)/2**g_max.

    *grade* is a whole number (a Fraction, float, array or symbol holding one;
    a Python int with an int *g_max* gives a Fraction).

    >>> from fractions import Fraction as F
    >>> err_stop(F(1), 1), err_stop(2, 3)
    (Fraction(1, 2), Fraction(3, 8))
    """
    return of(grade, g_max).ratio(2**grade - 1, 2**g_max)


def err_slot(stop: Num, mean_keep: Num, n: Num, t: Num, x: Num) -> Num:
    """A group member's expected ERR term at slot x of its group (start t, n members): stop·mean_keep/(n·(t + x)).

    The member sits at slot x with probability 1/n; there the x - 1 members
    above it are a uniformly random (x-1)-subset of the other n - 1, and
    *mean_keep* is the mean over those subsets of Π (1 - R) (the chance the
    user reaches rank t + x, given the groups above were passed).  ERR's
    value is the survival product of the earlier groups times Σ over members
    and slots within the cutoff of this term (:func:`tieaware.fast.err.err_group`,
    theorem "ERR group").

    >>> from fractions import Fraction as F
    >>> err_slot(F(1, 2), F(1, 2), 2, 0, 2)    # R = 1/2 at rank 2 of 2, the other member kept half the time
    Fraction(1, 16)
    """
    return err_term(stop, mean_keep, t + x) / n


def err_term(stop: Num, keep: Num, rank: Num) -> Num:
    """Chapelle's ERR term of one ordering at *rank*: stop·keep/rank, *keep* = Π (1 - R) over the ranks above.

    The definition's summand; :func:`err_slot` is its mean over a group's
    orderings, and the spread's dynamic programme adds it up ordering by
    ordering (:mod:`tieaware.fast.tie_spread`).

    >>> from fractions import Fraction as F
    >>> err_term(F(1, 2), F(1, 2), 2)    # R = 1/2 at rank 2, the user still there half the time
    Fraction(1, 8)
    """
    return stop * keep / rank  # 1/rank a factor of its own, as theorem 'ERR group' reads it


def subset_mean_step(here: Num, below: Num, keep: Num, size: Num, m: Num) -> Num:
    """The mean of Π keep over the m-subsets of a set, one member more: ((size + 1 - m)·here + m·keep·below)/(size + 1).

    *here* and *below* are the means over the m- and (m-1)-subsets of the
    set's first *size* members (0 where there are no such subsets, m > size);
    *keep* is the new member's.  An m-subset of the size + 1 members leaves
    the new one out (C(size, m) of them) or holds it (C(size, m - 1)), so
    C(size + 1, m)·M'_m = C(size, m)·M_m + keep·C(size, m - 1)·M_{m-1}: the
    identity theorem "ERR subset mean" proves for symbolic size and m.
    Folded over a member's fellow group members from the empty set's
    (1, 0, 0, ...), it gives the mean of Π (1 - R) over the (x - 1)-subsets
    that :func:`err_slot` needs (:func:`tieaware.fast.err.subset_means`, and
    every group at once in :mod:`tieaware.runs.engine`).  The weights are
    non-negative and sum to 1, so in floats each step is a convex
    combination: no cancellation, however large the group (no binomial
    coefficient is formed).  A member with keep 1 (a non-relevant one)
    leaves 1 where it was and adds a 1 at m = size + 1.

    >>> from fractions import Fraction as F
    >>> subset_mean_step(F(1, 2), 1, F(1, 3), 1, 1)    # {1/2} then 1/3: the 1-subsets' mean (1/2 + 1/3)/2
    Fraction(5, 12)
    """
    return ((size + 1 - m) * here + m * keep * below) / (size + 1)


# -- the per-query combinations -------------------------------------------------------


def precision_value(hits: Num, k: Num) -> Num:
    """P@k from the expected hits: hits / k (missing ranks count as non-relevant).

    >>> from fractions import Fraction as F
    >>> precision_value(F(5, 3), 3)
    Fraction(5, 9)
    """
    return hits / k


def recall_value(hits: Num, num_rel: Num) -> Num:
    """R@k from the expected hits: hits / num_rel, 0 when num_rel is 0.

    >>> from fractions import Fraction as F
    >>> recall_value(F(5, 3), 4), recall_value(F(0), 0)
    (Fraction(5, 12), Fraction(0, 1))
    """
    return of(hits, num_rel).ratio(hits, num_rel)


def f1_value(hits: Num, k: Num, num_rel: Num) -> Num:
    """F1@k from the expected hits: 2·hits / (k + num_rel), the harmonic mean of P@k and R@k.

    >>> from fractions import Fraction as F
    >>> f1_value(F(5, 3), 3, 3)
    Fraction(5, 9)
    """
    return 2 * hits / (k + num_rel)


def ap_value(total: Num, num_rel: Num) -> Num:
    """AP from Σ_groups ap_group: total / num_rel, 0 when num_rel is 0.

    >>> from fractions import Fraction as F
    >>> ap_value(F(31, 18), 2)
    Fraction(31, 36)
    """
    return of(total, num_rel).ratio(total, num_rel)


def ndcg_value(dcg: Num, ideal: Num) -> Num:
    """nDCG from the expected DCG and the ideal DCG: dcg / ideal, 0 when the ideal is 0.

    >>> from fractions import Fraction as F
    >>> ndcg_value(F(3, 2), F(2)), ndcg_value(F(0), F(0))
    (Fraction(3, 4), Fraction(0, 1))
    """
    return of(dcg, ideal).ratio(dcg, ideal)


# -- other libraries' conventions (docs/conventions.md, Conventions of other libraries) ------


def precision_retrieved_value(hits: Num, k: Num, n: Num) -> Num:
    """``P(norm=retrieved)@k`` from the expected hits: hits / min(k, n), n the documents retrieved; 0 when n is 0.

    >>> from fractions import Fraction as F
    >>> precision_retrieved_value(F(1), 5, 3), precision_retrieved_value(F(0), 5, 0)
    (Fraction(1, 3), Fraction(0, 1))
    """
    A = of(hits, k, n)
    return A.ratio(hits, A.minimum(k, n))


def precision_capped_value(hits: Num, k: Num, num_rel: Num) -> Num:
    """``P(norm=capped)@k`` from the expected hits: hits / min(k, num_rel), 0 when num_rel is 0 (implicit's precision).

    >>> from fractions import Fraction as F
    >>> precision_capped_value(F(1), 5, 2), precision_capped_value(F(0), 5, 0)
    (Fraction(1, 2), Fraction(0, 1))
    """
    return precision_retrieved_value(hits, k, num_rel)  # the same ratio: min(k, num_rel) in place of min(k, n)


def ap_capped_value(total: Num, num_rel: Num, k: Num) -> Num:
    """``AP(norm=capped)@k`` from Σ_groups ap_group: total / min(num_rel, k), 0 when num_rel is 0.

    >>> from fractions import Fraction as F
    >>> ap_capped_value(F(1), 3, 2)
    Fraction(1, 2)
    """
    return ap_value(total, of(total, num_rel, k).minimum(num_rel, k))


def hits_pmf(h: int, m: int, r: int, n: int, number: Any = None) -> Num:
    """P(exactly h of the first m slots of a group hold relevant documents): the hypergeometric pmf.

    Every set of r slots is equally likely to hold the group's relevant
    members, so the chance is C(r, h)·C(n - r, m - h)/C(n, m).  ``AP(norm=hits)``
    divides by the hits in the top k, which the group straddling k makes
    random, and conditions on them through this.  *number* converts the
    ratio (default: a Fraction).

    >>> [hits_pmf(h, 2, 2, 4) for h in range(3)]
    [Fraction(1, 6), Fraction(2, 3), Fraction(1, 6)]

    Beware: h, m, r and n must be whole numbers (ints or whole Fractions), not symbols or arrays.
    """
    from fractions import Fraction
    from math import comb

    h, m, r, n = int(h), int(m), int(r), int(n)
    ways = comb(r, h) * comb(n - r, m - h) if 0 <= h <= r and 0 <= m - h <= n - r else 0
    ratio = Fraction(ways, comb(n, m))
    return ratio if number is None else number(ratio.numerator) / number(ratio.denominator)
