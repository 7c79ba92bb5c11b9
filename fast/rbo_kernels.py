"""Per-item and per-group RBO contribution kernels (Corsi & Urbano 2024, §3–4).

A tie group occupies ranks t..b of a ranking.  At evaluation depth d, each
of its items contributes to overlap:

- variant w (sports ranking): 1 once t <= d;
- variants a and b: 0 while d < t, 1 once b <= d, and (d-t+1)/(b-t+1) in
  between, the share of the group's orderings that put the item at rank <= d.

The kernels below are plain arithmetic wherever the paper's formula is, so
they run on Fractions (exact mode), floats (float mode) and sympy symbols
(for a proofs module).  Two Python ints are never divided into a float: such
a quotient comes back as a Fraction.

>>> crossing_contribution(4, 6, 5)
Fraction(2, 3)
>>> import sympy
>>> d, t, b = sympy.symbols("d t b")
>>> crossing_contribution(t, b, d)
(d - t + 1)/(b - t + 1)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = [
    "ratio",
    "crossing_contribution",
    "contribution",
    "sports_contribution",
    "group_total",
    "group_squares",
    "measurable_squares",
    "overlap",
    "sports_overlap",
    "unseen_max",
    "unseen_mean",
]

Num = Any  # int, Fraction, float or sympy expression


def ratio(numerator: Num, denominator: Num) -> Num:
    """numerator / denominator, as a Fraction when both are ints.

    >>> ratio(2, 4), ratio(2.0, 4)
    (Fraction(1, 2), 0.5)
    """
    if isinstance(numerator, int) and isinstance(denominator, int):
        return Fraction(numerator, denominator)
    return numerator / denominator


def crossing_contribution(t: Num, b: Num, d: Num) -> Num:
    """(d-t+1)/(b-t+1): an item's contribution while its group t..b is crossed by d.

    The item sits at each of the b-t+1 ranks in the same share of orderings,
    and d-t+1 of those ranks are at or above d (paper, Eq. 8).

    >>> crossing_contribution(1, 3, 1)
    Fraction(1, 3)
    """
    return ratio(d - t + 1, b - t + 1)


def contribution(t: int, b: int, d: int) -> Num:
    """c_{e|d} of variants a and b for an item whose group spans t..b (Eq. 8).

    >>> [contribution(4, 6, d) for d in (3, 4, 6)]
    [0, Fraction(1, 3), 1]

    Beware: this one branches on the comparison of d with t and b, so it
    needs numbers; symbolic callers use :func:`crossing_contribution`.
    """
    if d < t:
        return 0
    if b <= d:
        return 1
    return crossing_contribution(t, b, d)


def sports_contribution(t: int, d: int) -> int:
    """c_{e|d} of variant w: 1 once the group's top rank t is at or above d (Eq. 13).

    >>> sports_contribution(4, 3), sports_contribution(4, 5)
    (0, 1)
    """
    return 1 if t <= d else 0


def group_total(t: Num, b: Num, d: Num) -> Num:
    """Σ c over the b-t+1 items of a crossed group: d-t+1 (one per filled slot).

    >>> group_total(4, 6, 5)
    Fraction(2, 1)
    """
    return (b - t + 1) * crossing_contribution(t, b, d)


def group_squares(t: Num, b: Num, d: Num) -> Num:
    """Σ c² over the items of a crossed group: (d-t+1)²/(b-t+1).

    >>> group_squares(4, 6, 4)
    Fraction(1, 3)
    """
    return (b - t + 1) * crossing_contribution(t, b, d) ** 2


def measurable_squares(t: Num, b: Num, d: Num) -> Num:
    """Σ_e c_{e|d}² over a ranking when depth d falls in its group t..b.

    The t-1 items above the group contribute 1 each; nothing below does.
    This is the square of RBO^b's measurable overlap (Eq. 11).  At d = b it
    is b, the untied value.

    >>> measurable_squares(4, 6, 4)
    Fraction(10, 3)
    """
    return (t - 1) + group_squares(t, b, d)


def overlap(both_active: Num, s_crossing: Num, l_crossing: Num, both_crossing: Num, c_S: Num, c_L: Num) -> Num:
    """Σ_e c_{e,S|d}·c_{e,L|d} from counts of shared items by state (Eq. 9's numerator).

    At any depth each ranking has at most one crossed group, whose items all
    contribute c_S (resp. c_L); every other shared item contributes 0 or 1.
    The counts are: active in both, crossing in S and active in L, active in
    S and crossing in L, crossing in both.

    >>> from fractions import Fraction as F
    >>> overlap(2, 1, 0, 1, F(1, 3), F(1, 2))
    Fraction(5, 2)
    """
    return both_active + c_S * s_crossing + c_L * l_crossing + c_S * c_L * both_crossing


def sports_overlap(both_active: Num, s_crossing: Num, l_crossing: Num, both_crossing: Num) -> Num:
    """|S_:d ∩ L_:d| under sports ranking: crossing items count in full.

    >>> sports_overlap(2, 1, 0, 1)
    4
    """
    return both_active + s_crossing + l_crossing + both_crossing


def unseen_max(k: int, active: int, crossing: int, c_L: Num) -> Num:
    """Σ_{i<=k} c_{u_i,L|d}: S's k unseen items matching L's best unmatched items (Eq. 19).

    L's items missing from S, in L's order, are *active* ones (c = 1) and
    then *crossing* ones (c = c_L); the rest contribute 0.

    >>> from fractions import Fraction as F
    >>> unseen_max(3, 1, 4, F(3, 4))
    Fraction(5, 2)
    """
    from_active = min(k, active)
    return from_active + min(k - from_active, crossing) * c_L


def unseen_mean(active: int, crossing: int, c_L: Num) -> Num:
    """The mean c_{L|d} over U_d, the potentially active unmatched items of L (Eq. 21).

    >>> from fractions import Fraction as F
    >>> unseen_mean(1, 3, F(1, 3))
    Fraction(1, 2)
    """
    return ratio(active + crossing * c_L, active + crossing)
