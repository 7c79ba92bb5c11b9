"""Per-item and per-group RBO contribution kernels (Corsi & Urbano 2024, §3–4).

A tie group occupies ranks t..b of a ranking.  At evaluation depth d, each
of its items contributes to overlap:

- variant w (sports ranking): 1 once t <= d;
- variants a and b: 0 while d < t, 1 once b <= d, and (d-t+1)/(b-t+1) in
  between, the share of the group's orderings that put the item at rank <= d.

The kernels below are plain arithmetic wherever the paper's formula is, so
they run on Fractions (exact mode), floats (float mode) and sympy symbols
(tieaware.proofs calls these very functions on symbols).  Two Python ints
are never divided into a float: such a quotient comes back as a Fraction.

RBO = (1-p)/p · Σ_d A_d·p^d (paper Eq. 12) is assembled from three kinds of
kernel, one per section of that sum:

- :func:`seen_agreement`: A_d at a depth d <= s, where both rankings are seen;
- :func:`unseen_terms`: A_d at s < d <= l for MIN, MAX, EXT and RES, where
  S's d - s unseen items are matched by assumption (Eqs. 14-21);
- :func:`third_section`: the depths past l, as finite :class:`Span` and
  infinite :class:`Tail` pieces (Eqs. 22-24), and :func:`series_tail`, the
  closed form of a Tail.

An agreement is a tuple of RootTerms (:data:`RootTerm`), coefficient / √(Π radicands),
because RBO^b's measurable overlap is a square root; the other variants have
no radicands.

>>> crossing_contribution(4, 6, 5)
Fraction(2, 3)
>>> import sympy
>>> d, t, b = sympy.symbols("d t b")
>>> crossing_contribution(t, b, d)
(d - t + 1)/(b - t + 1)
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple, Union

from tieaware.fast.arith import ARRAY, of

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
    "RootTerm",
    "DepthTerms",
    "Span",
    "Tail",
    "seen_agreement",
    "unseen_terms",
    "third_section",
    "series_tail",
]

Num = Any  # int, Fraction, float or sympy expression
#: coefficient / √(Π radicands); no radicands: just the coefficient.
RootTerm = tuple[Num, tuple[Num, ...]]


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
    low = _elementwise_min(k, active, crossing, c_L)
    from_active = low(k, active)
    return from_active + low(k - from_active, crossing) * c_L


def _elementwise_min(*args: Num) -> Callable[[Num, Num], Num]:
    """Python's min, or element by element when an argument is a numpy array (the array engine's ARRAY namespace).

    Python's min stays for numbers and symbols: the proofs need its
    comparison decided by their cases, not a formal sympy Min.
    """
    namespace = of(*args)
    return namespace.minimum if namespace is ARRAY else min


def unseen_mean(active: int, crossing: int, c_L: Num) -> Num:
    """The mean c_{L|d} over U_d, the potentially active unmatched items of L (Eq. 21).

    >>> from fractions import Fraction as F
    >>> unseen_mean(1, 3, F(1, 3))
    Fraction(1, 2)
    """
    return ratio(active + crossing * c_L, active + crossing)


# --- the three sections of RBO's sum ---------------------------------------------


class DepthTerms(NamedTuple):
    """The coefficient of p^d at one depth d <= l, per bound, as RootTerms to add up.

    The fields are in the order of :data:`tieaware.model.rbo_input.BOUNDS`.
    """

    min: tuple[RootTerm, ...]
    max: tuple[RootTerm, ...]
    ext: tuple[RootTerm, ...]
    res: tuple[RootTerm, ...]


def seen_agreement(
    variant: str,
    both_active: Num,
    s_crossing: Num,
    l_crossing: Num,
    both_crossing: Num,
    t_S: Num,
    b_S: Num,
    t_L: Num,
    b_L: Num,
    d: Num,
) -> RootTerm:
    """A_d at a depth d <= s; t_S..b_S and t_L..b_L are the groups holding rank d.

    The counts are of shared items by state (as :func:`overlap`).  Variant w
    counts a crossed group's items in full and divides by the items seen,
    |S_:d| + |L_:d| = b_S + b_L (Eqs. 4, 13); a divides Σ c_S·c_L by d
    (Eq. 9); b by the measurable overlaps √Σc_S²·√Σc_L² (Eq. 11), returned
    as radicands.  Every bound has this agreement at d <= s.

    >>> seen_agreement("a", 1, 0, 0, 1, 2, 3, 2, 3, 2)   # item 1 active, one item crossing both
    (Fraction(5, 8), ())
    >>> seen_agreement("b", 1, 0, 0, 1, 2, 3, 2, 3, 2)
    (Fraction(5, 4), (Fraction(3, 2), Fraction(3, 2)))
    """
    if variant == "w":
        return ratio(2 * sports_overlap(both_active, s_crossing, l_crossing, both_crossing), b_S + b_L), ()
    x = overlap(both_active, s_crossing, l_crossing, both_crossing, crossing_contribution(t_S, b_S, d), crossing_contribution(t_L, b_L, d))
    if variant == "a":
        return ratio(x, d), ()
    return x, (measurable_squares(t_S, b_S, d), measurable_squares(t_L, b_L, d))


def unseen_terms(
    variant: str,
    both_active: Num,
    l_crossing: Num,
    t_L: Num,
    b_L: Num,
    d: Num,
    s: Num,
    unique_active: Num,
    unique_crossing: Num,
    a_s: RootTerm,
    expected: bool = False,
) -> DepthTerms:
    """The coefficient of p^d at s < d <= l for each bound (Eqs. 14-21).

    S is wholly seen, so its shared items are active; *both_active* and
    *l_crossing* count them by their state in L, whose group t_L..b_L holds
    rank d.  S's k = d - s unseen items add to the overlap X̃_d: nothing
    (MIN); for MAX the contributions of L's first k items missing from S
    (*unique_active* of them active, then *unique_crossing* in the crossed
    group: :func:`unseen_max`); for EXT k·A_s times their mean contribution
    (:func:`unseen_mean`), A_s = *a_s*, the agreement at depth s.  With
    *expected* (the average of bare RBO over tie-breakings) and in variant w,
    a matched L item counts 1.  RES is MAX - MIN.  The denominators: w
    d + |L_:d| (Eq. 15), a d (Eq. 16), b √d·√Σc_L² (Eq. 17).

    >>> from fractions import Fraction as F
    >>> unseen_terms("a", 1, 0, 2, 3, 2, 1, 0, 2, (F(1), ()))   # S = [a], L = [a, (x y)], d = 2
    DepthTerms(min=((Fraction(1, 2), ()),), max=((Fraction(3, 4), ()),), ext=((Fraction(1, 2), ()), (Fraction(1, 4), ())), res=((Fraction(1, 4), ()),))
    """
    k = d - s
    if variant == "w":  # sports ranking: every L item with t <= d counts 1, and there are b_L of them
        x = sports_overlap(both_active, 0, l_crossing, 0)
        most, mean = k, 1
        scale, radicands = ratio(2, d + b_L), ()
    else:
        c_L = crossing_contribution(t_L, b_L, d)
        x = overlap(both_active, 0, l_crossing, 0, 1, c_L)
        if expected:  # in every tie-breaking, a matched L item is in L_:d: it counts 1
            most, mean = k, 1
        else:
            most, mean = unseen_max(k, unique_active, unique_crossing, c_L), unseen_mean(unique_active, unique_crossing, c_L)
        if variant == "a":
            scale, radicands = ratio(1, d), ()
        else:
            scale, radicands = 1, (d, measurable_squares(t_L, b_L, d))
    seen = (x * scale, radicands)
    return DepthTerms(
        (seen,),
        (((x + most) * scale, radicands),),
        (seen, (k * mean * a_s[0] * scale, a_s[1] + radicands)),
        ((most * scale, radicands),),
    )


class Span(NamedTuple):
    """Σ_{d=lo..hi} term(d)·p^d (nothing when hi < lo)."""

    term: Callable[[Num], Num]
    lo: Num
    hi: Num


class Tail(NamedTuple):
    """Σ_{d>=start} (a + b/d)·p^d / √(Π radicands)."""

    a: Num
    b: Num
    start: Num
    radicands: tuple[Num, ...] = ()


def third_section(bound: str, l: Num, s: Num, x_l: Num, a_s: RootTerm) -> tuple[Union[Span, Tail], ...]:
    """The depths d > l of one bound, the same for every variant (Eqs. 22-24).

    Past l every seen item is active and the unseen items are untied, so the
    agreement is X_d/d in every variant.  MIN: X_d = X_l (Eq. 22).  MAX: the
    l - s items S lacks at depth l are matched, then each depth adds 2 until
    f = l + s - X_l, and 1 after (Eq. 23).  EXT: (X_l + A_s·(l - s))/l at
    every depth (Eq. 24).  RES = MAX - MIN, term by term (every term >= 0).

    >>> span, tail = third_section("max", 3, 2, 0, (0, ()))   # l = 3, s = 2, nothing shared: f = 5
    >>> [(d, d * span.term(d)) for d in range(span.lo, span.hi + 1)], tail
    ([(4, Fraction(3, 1)), (5, Fraction(5, 1))], Tail(a=1, b=0, start=6, radicands=()))
    """
    f = l + s - x_l
    if bound == "min":
        return (Tail(0, x_l, l + 1),)
    if bound == "max":
        return (Span(lambda d: ratio(2 * d - l - s + x_l, d), l + 1, f), Tail(1, 0, f + 1))
    if bound == "res":
        return (Span(lambda d: ratio(2 * d - l - s, d), l + 1, f), Tail(1, -x_l, f + 1))
    return (Tail(ratio(x_l, l), 0, l + 1), Tail(a_s[0] * ratio(l - s, l), 0, l + 1, a_s[1]))


def series_tail(a: Num, b: Num, start: Num, p: Num) -> tuple[Num, Num, Span]:
    """A Tail in closed form: Σ_{d>=start} (a + b/d)·p^d = g·p^start + b·ln(1/(1-p)) + Σ span.

    Returns (g, b, span) with g = a/(1-p) (a geometric series) and span
    Σ_{d=1..start-1} -(b/d)·p^d: ln(1/(1-p)) = Σ_{d>=1} p^d/d, less its
    first start - 1 terms.

    >>> g, log, span = series_tail(1, 2, 3, Fraction(1, 2))
    >>> g, log, [span.term(d) for d in range(span.lo, span.hi + 1)]
    (Fraction(2, 1), 2, [Fraction(-2, 1), Fraction(-1, 1)])
    """
    return a / (1 - p), b, Span(lambda d: -ratio(b, d), 1, start - 1)
