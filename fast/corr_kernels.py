"""The closed-form pieces of τ and τ_AP with ties, as plain arithmetic.

Each kernel is written once, here, and runs on ints, Fractions, floats or
sympy symbols, so :mod:`tieaware.proofs.correlation` checks the very code
:mod:`tieaware.fast.correlation` runs.

- Kendall: :func:`kendall_sum` (concordant − discordant pairs from pair
  counts), :func:`kendall_tie_term` (Kendall's t(t−1)(2t+5)).
- τ_AP: :func:`slot_weight` 1/(k−1), :func:`group_weight_mean` (the mean
  weight of an item placed at random in a group), :func:`within_group` (the
  expected concordance inside a group), :func:`exchange_gain` (why sorting a
  group by the other ranking is extremal), :func:`cell_spread` and
  :func:`permutation_variance` (the variance over tie-breakings).

>>> within_group(2, 2)       # ranks 2 and 3: the item at 3 has 1 item of its group above, concordant w.p. 1/2
Fraction(1, 4)
>>> kendall_tie_term(2)
18
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

__all__ = [
    "kendall_sum",
    "kendall_tie_term",
    "slot_weight",
    "group_weight_mean",
    "within_group",
    "exchange_gain",
    "cell_spread",
    "PositionSums",
    "ItemSums",
    "permutation_variance",
]


def kendall_sum(n0: Any, n1: Any, n2: Any, n3: Any, discordant: Any) -> Any:
    """Concordant − discordant pairs: n0 pairs, n1 tied in x, n2 tied in y, n3 tied in both.

    The pairs ordered by both rankings are n0 − n1 − n2 + n3; those not
    discordant are concordant.

    >>> kendall_sum(3, 1, 0, 0, 0)
    2
    """
    return n0 - n1 - n2 + n3 - 2 * discordant


def kendall_tie_term(t: Any) -> Any:
    """Kendall's t(t−1)(2t+5): 18 × the variance of S between t items and a random order of them.

    >>> kendall_tie_term(3)
    66
    """
    return t * (t - 1) * (2 * t + 5)


def slot_weight(k: Any, one: Any = Fraction(1)) -> Any:
    """τ_AP's weight of rank k: 1/(k−1), the share of each item above it; 0 at rank 1 (nothing is above).

    >>> slot_weight(3, Fraction(1))
    Fraction(1, 2)
    """
    if isinstance(k, int) and k == 1:
        return one * 0
    return one / (k - 1)


def group_weight_mean(p: Any, g: int, one: Any = Fraction(1)) -> Any:
    """The mean of slot_weight over ranks p..p+g−1: an item of the group is at each equally often.

    >>> group_weight_mean(2, 2, Fraction(1))
    Fraction(3, 4)
    """
    return sum((slot_weight(p + s, one) for s in range(g)), one * 0) / g


def within_group(p: Any, g: int, one: Any = Fraction(1)) -> Any:
    """E[Σ_s slot_weight(p+s)·(items of the group above slot s that the other ranking puts above it)].

    Each of the s items above slot s is concordant with probability 1/2
    (the group's order is uniform; a pair the other ranking ties is
    concordant in half of its tie-breakings too).

    >>> within_group(1, 3, Fraction(1))    # slots 2 and 3: (1/2)/1 + (2/2)/2
    Fraction(1, 1)
    """
    return sum((s * slot_weight(p + s, one) for s in range(1, g)), one * 0) / 2


def exchange_gain(k: Any, lead: Any, one: Any = Fraction(1)) -> Any:
    """What swapping an adjacent pair at ranks k, k+1 into the other ranking's order gains.

    With u ranked above v by the other ranking, moving u from rank k+1 to
    k changes Σ slot_weight·concordance by ω_{k+1} − (ω_k − ω_{k+1})·lead,
    where *lead* = (concordant items above v) − (those above u), at most
    k − 1; so the gain is >= 0 (docs/correlation.md, The extremes).

    >>> exchange_gain(3, 2, Fraction(1))
    Fraction(0, 1)
    """
    return slot_weight(k + 1, one) - (slot_weight(k, one) - slot_weight(k + 1, one)) * lead


def cell_spread(above: Any, m: Any, g: Any, w0: Any, w1: Any, w2: Any) -> Any:
    """A cell's share of E_y[Var_x(Q | y)]: the mean over y's tie-breaking of Σ ω(rank)²·r(r+2)/12.

    A cell is the m items a group of x and a group of y (size g) share.
    Given y's order, x's tie-breaking makes Q vary by Σ ω² r(r+2)/12 over the
    items, r being the items of the same x-group above it in y: *above* of
    them in earlier groups of y, plus B of the m − 1 cell-mates, B
    hypergeometric given the item's slot s.  w0, w1, w2 are Σ_s ω²,
    Σ_s s·ω², Σ_s s(s−1)·ω² over the group's slots.

    >>> one = Fraction(1)
    >>> cell_spread(0, 2, 2, one, one, 0 * one)   # x ties the two items of a y-group at ranks 1-2: the one at rank 2 has r = 1
    Fraction(1, 4)
    """
    total = (above * above + 2 * above) * w0
    if m >= 2:
        total += (2 * above + 3) * (m - 1) * w1 / (g - 1)
    if m >= 3:
        total += (m - 1) * (m - 2) * w2 / ((g - 1) * (g - 2))
    return m * total / (12 * g)


class PositionSums(NamedTuple):
    """Sums over the g slots of a statistic Σ_s V_s·a(σ_s) + Σ_{s≠t} A_st·B(σ_s, σ_t).

    row_s = Σ_t A_st, col_t = Σ_s A_st.
    """

    v: Any  # Σ V
    v2: Any  # Σ V²
    a: Any  # Σ A
    a2: Any  # Σ A²
    a_swap: Any  # Σ A_st·A_ts
    row2: Any  # Σ row²
    col2: Any  # Σ col²
    row_col: Any  # Σ row_s·col_s
    row_v: Any  # Σ row_s·V_s
    col_v: Any  # Σ col_t·V_t


class ItemSums(NamedTuple):
    """The same sums over the g items, for the values a(u) and B(u, v); Row_u = Σ_v B_uv, Col_v = Σ_u B_uv."""

    a: Any
    a2: Any
    b: Any
    b2: Any
    b_swap: Any
    row2: Any
    col2: Any
    row_col: Any
    row_a: Any
    col_a: Any


def permutation_variance(g: int, pos: PositionSums, item: ItemSums) -> Any:
    """Var of M = Σ_s V_s·a(σ_s) + Σ_{s≠t} A_st·B(σ_s, σ_t) for a uniform bijection σ of slots to items.

    E[M²] splits the index pairs by which indices coincide (Hubert's
    quadratic assignment moments): each pattern's mean over items is an
    item-sum over the number of distinct tuples, times the matching
    position-sum.  The diagonals A_ss, B_uu do not enter.

    >>> one, zero = Fraction(1), Fraction(0)
    >>> pos = PositionSums(v=one, v2=one, a=zero, a2=zero, a_swap=zero, row2=zero, col2=zero, row_col=zero, row_v=zero, col_v=zero)
    >>> item = ItemSums(a=one, a2=one, b=zero, b2=zero, b_swap=zero, row2=zero, col2=zero, row_col=zero, row_a=zero, col_a=zero)
    >>> permutation_variance(2, pos, item)   # V = (1, 0), a = (1, 0): M is 1 or 0, even odds
    Fraction(1, 4)
    """
    if g < 2:
        return pos.v * 0
    g2 = g * (g - 1)
    mean = pos.v * item.a / g + pos.a * item.b / g2
    linear = pos.v2 * item.a2 / g + (pos.v * pos.v - pos.v2) * (item.a * item.a - item.a2) / g2
    mixed = pos.row_v * item.row_a / g2 + pos.col_v * item.col_a / g2
    # Quadratic part: (positions pattern sum) × (items pattern sum) / (distinct tuples).
    quadratic = pos.a2 * item.b2 / g2 + pos.a_swap * item.b_swap / g2
    if g >= 3:
        g3 = g2 * (g - 2)
        mixed += (pos.a * pos.v - pos.row_v - pos.col_v) * (item.a * item.b - item.row_a - item.col_a) / g3
        p3, i3 = pos.row2 - pos.a2, item.row2 - item.b2  # s1 = s3: B_uv·B_uw
        p4, i4 = pos.col2 - pos.a2, item.col2 - item.b2  # s2 = s4: B_uv·B_wv
        p5, i5 = pos.row_col - pos.a_swap, item.row_col - item.b_swap  # s2 = s3 (and s1 = s4, the same sum)
        quadratic += (p3 * i3 + p4 * i4 + 2 * p5 * i5) / g3
        if g >= 4:
            p7 = pos.a * pos.a - pos.a2 - pos.a_swap - p3 - p4 - 2 * p5
            i7 = item.b * item.b - item.b2 - item.b_swap - i3 - i4 - 2 * i5
            quadratic += p7 * i7 / (g3 * (g - 3))
    return linear + 2 * mixed + quadratic - mean * mean
