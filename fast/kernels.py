"""Per-group closed forms (McSherry & Najork 2008), generic in the number type.

A tie group occupies ranks t+1 .. t+n and holds r relevant documents.  Every
kernel here is plain arithmetic, so it runs on Fractions (exact mode), floats
(float mode) and sympy symbols (:mod:`tieaware.proofs` calls these very
functions to prove them equal to the expectations).  Callers must pass at
least one of r, n as a Fraction, float or symbol: never two Python ints,
which would divide into a float.

>>> from fractions import Fraction as F
>>> expected_hits(2, F(1), F(3))
Fraction(2, 3)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "expected_hits",
    "pair_fraction",
    "ap_slot",
    "survival_step",
    "first_relevant_step",
    "rr_step",
    "first_relevant_weights",
    "rr_group",
    "mean_gain",
]

Num = Any  # Fraction, float or sympy expression


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
    multiplied by a slot count of 0, so 0 is returned.

    >>> from fractions import Fraction as F
    >>> pair_fraction(F(2), F(5)), pair_fraction(F(1), F(1))
    (Fraction(1, 4), 0)
    """
    if n == 1:
        return 0
    return (r - 1) / (n - 1)


def ap_slot(j: Num, t: Num, before: Num, r: Num, n: Num) -> Num:
    """Expected rel(j)·P@j at rank j of a group starting after rank t.

    *before* relevant documents precede the group.  Rank j is relevant with
    probability r/n; given that, the j - t - 1 group slots above it hold
    (j - t - 1)(r - 1)/(n - 1) relevant documents on average (the pair
    lemma), so P@j averages (before + that + 1)/j.  This is the paper's
    AP term with its stray parenthesis removed.

    >>> from fractions import Fraction as F
    >>> ap_slot(2, 0, 0, F(1), F(2))    # one relevant of two at ranks 1-2, rank 2
    Fraction(1, 4)
    """
    return r / n * (before + 1 + (j - t - 1) * pair_fraction(r, n)) / j


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

    The loops below are folds of this step, so a proof of the step for a
    symbolic x proves them for every slot count (tieaware.proofs does so).

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


def first_relevant_weights(r: Num, n: Num, slots: int) -> list:
    """P(the first relevant document of the group is at slot x), x = 1..slots.

    Differences of consecutive f(x, r, n), built by the paper's recursion
    in O(slots).

    >>> from fractions import Fraction as F
    >>> first_relevant_weights(F(1), F(3), 3)
    [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    """
    weights = []
    none_yet = 1  # f(0, r, n)
    for x in range(1, slots + 1):
        weight, none_yet = first_relevant_step(none_yet, x, r, n)
        weights.append(weight)
    return weights


def rr_group(t: int, r: Num, n: Num, slots: int) -> Num:
    """Expected 1/rank of the first relevant document, found in this group.

    Only *slots* = min(n, k - t) group slots lie within the cutoff; when
    all of them are irrelevant the measure scores 0 for those orderings.

    >>> from fractions import Fraction as F
    >>> rr_group(1, F(1), F(3), 3)    # (1/2 + 1/3 + 1/4) / 3
    Fraction(13, 36)
    """
    total, none_yet = 0, 1  # nothing found yet; f(0, r, n) = 1
    for x in range(1, slots + 1):
        total, none_yet = rr_step(total, none_yet, x, t, r, n)
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
