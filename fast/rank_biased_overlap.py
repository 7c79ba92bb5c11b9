"""Rank-Biased Overlap with ties in closed form (Corsi & Urbano, SIGIR 2024).

:func:`rbo` and :func:`rbo_bounds` compute the paper's RBO^w, RBO^a and
RBO^b with their MIN, MAX, EXT and RES, the numbers the official
implementation prints.  :func:`rbo_expected` and :func:`rbo_expected_bounds`
compute the exact average, over every tie-breaking of both rankings, of bare
(tie-free) RBO: what :func:`tieaware.reference.rank_biased_overlap` calls variant a.  The
two agree on MIN, and on MAX and EXT except when L holds a tie group of
items missing from S that straddles a depth between s and l (docs/rbo.md
has the table and the smallest counterexamples).

One left-to-right pass over depths 1..l: each item changes state (inactive,
crossing, active) at most twice per ranking, and at any depth each ranking
has at most one crossed group, so every depth costs O(1) amortised.  No
item × depth matrix is built.

>>> rbo(["a", ("b", "c")], ["a", "b", "c"], "0.5", variant="a", bound="ext")
Fraction(15, 16)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, NamedTuple, Optional

from tieaware.model.params import flag, probability
from tieaware.model.rbo_input import Groups, RBOBounds, bound_name, rbo_pair, variant_name
from tieaware.fast.rbo_exact import RootSum, to_value
from tieaware.fast.rbo_kernels import (
    crossing_contribution,
    measurable_squares,
    overlap,
    ratio,
    sports_overlap,
    unseen_max,
    unseen_mean,
)

__all__ = ["rbo", "rbo_bounds", "rbo_expected", "rbo_expected_bounds", "RBOBounds"]


def rbo(S: Any, L: Any, p: Any, *, variant: str = "a", bound: str = "ext", exact: bool = True) -> Any:
    """RBO of two rankings with ties, by the paper's closed forms, in O(l).

    *S* and *L* may come in either order; the shorter one plays the paper's S.
    Exact mode returns a Fraction when rational, else an exact sympy value;
    ``exact=False`` computes in floats throughout, for long rankings.

    >>> rbo(["a"], ["a", "b"], "0.9", variant="w", bound="ext")
    Fraction(1, 1)
    >>> rbo(["a", ("b", "c")], ["c", "b", "a"], "0.5", variant="b", bound="ext")
    sqrt(3)/12 + 1/4

    Beware: the paper's RBO^a is not always the average of bare RBO over
    tie-breakings for MAX and EXT; use :func:`rbo_expected` for that.
    """
    name = bound_name(bound)  # checked first: a bad bound should not cost a computation
    short, long = rbo_pair(S, L)
    values = _bounds(short, long, probability(p), variant_name(variant), False, flag(exact, "exact"), name)
    return getattr(values, name)


def rbo_bounds(S: Any, L: Any, p: Any, *, variant: str = "a", exact: bool = True) -> RBOBounds:
    """MIN, MAX, EXT and RES of one variant from one pass.

    >>> rbo_bounds(["a", "b"], ["b", "a"], "0.5", variant="a").max
    Fraction(1, 2)
    """
    short, long = rbo_pair(S, L)
    return _bounds(short, long, probability(p), variant_name(variant), False, flag(exact, "exact"))


def rbo_expected(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The exact average of bare RBO over every tie-breaking of S and L.

    Equals :func:`tieaware.reference.rank_biased_overlap` with ``variant="a"`` for every
    bound.  It is the paper's RBO^a with the contribution of each L item
    matched by an unseen S item taken as 1, as it is in every tie-breaking.

    >>> rbo_expected(["a"], ["a", ("b", "c"), "d"], "0.5", bound="max")
    Fraction(1, 1)
    >>> rbo(["a"], ["a", ("b", "c"), "d"], "0.5", variant="a", bound="max")
    Fraction(15, 16)
    """
    name = bound_name(bound)
    short, long = rbo_pair(S, L)
    return getattr(_bounds(short, long, probability(p), "a", True, flag(exact, "exact"), name), name)


def rbo_expected_bounds(S: Any, L: Any, p: Any, *, exact: bool = True) -> RBOBounds:
    """All four bounds of :func:`rbo_expected` from one pass.

    >>> rbo_expected_bounds(["a"], [("a", "b", "c")], "0.5").ext
    Fraction(31, 72)
    """
    short, long = rbo_pair(S, L)
    return _bounds(short, long, probability(p), "a", True, flag(exact, "exact"))


# --- the scan: per-depth state in O(1) amortised ---------------------------


class _Depth(NamedTuple):
    """What one depth d contributes; only ints, so both modes can share it."""

    d: int
    both_active: int  # shared items active in S and in L
    s_crossing: int  # crossing in S, active in L
    l_crossing: int  # active in S, crossing in L
    both_crossing: int
    s_span: Optional[tuple[int, int]]  # ranks t..b of S's group holding d (None past s)
    l_span: tuple[int, int]
    unique_active: int  # items of L missing from S, in fully active groups
    unique_crossing: int  # items of L missing from S, in L's crossed group


def _spans(groups: Groups) -> list[tuple[int, int]]:
    spans, top = [], 1
    for g in groups:
        spans.append((top, top + len(g) - 1))
        top += len(g)
    return spans


def _scan(S: Groups, L: Groups) -> Iterator[_Depth]:
    S_items = {e for g in S for e in g}
    L_items = {e for g in L for e in g}
    shared = S_items & L_items
    spans = (_spans(S), _spans(L))
    unique = [sum(1 for e in g if e not in S_items) for g in L]
    # state[r][e]: 0 inactive, 1 crossing, 2 active, in ranking r (0 = S, 1 = L)
    state: tuple[dict[Any, int], dict[Any, int]] = ({e: 0 for e in shared}, {e: 0 for e in shared})
    count = [[0] * 3 for _ in range(3)]  # count[state in S][state in L]
    count[0][0] = len(shared)

    def move(r: int, group: tuple[Any, ...], new: int) -> None:
        for e in group:
            if e in shared:
                old = state[r][e]
                other = state[1 - r][e]
                if r == 0:
                    count[old][other] -= 1
                    count[new][other] += 1
                else:
                    count[other][old] -= 1
                    count[other][new] += 1
                state[r][e] = new

    index = [0, 0]
    unique_active = 0
    s, l = spans[0][-1][1], spans[1][-1][1]
    for d in range(1, l + 1):
        for r, groups in enumerate((S, L)):
            if d > (s, l)[r]:
                continue
            if d > spans[r][index[r]][1]:
                index[r] += 1
            t, b = spans[r][index[r]]
            if d == t:
                move(r, groups[index[r]], 2 if t == b else 1)
            elif d == b:
                move(r, groups[index[r]], 2)
        t_L, b_L = spans[1][index[1]]
        if d == b_L:
            unique_active += unique[index[1]]
        yield _Depth(
            d,
            count[2][2],
            count[1][2],
            count[2][1],
            count[1][1],
            spans[0][index[0]] if d <= s else None,
            (t_L, b_L),
            unique_active,
            unique[index[1]] if d < b_L else 0,
        )


# --- evaluation -------------------------------------------------------------


def _bounds(
    S: Groups, L: Groups, p: Fraction, variant: str, expected: bool, exact: bool, only: Optional[str] = None
) -> RBOBounds:
    """All four bounds; in exact mode with *only*, just that one (the others None)."""
    s, l = sum(map(len, S)), sum(map(len, L))
    x_l = len({e for g in S for e in g} & {e for g in L for e in g})
    if exact:
        return _exact(_scan(S, L), s, l, x_l, p, variant, expected, only)
    return _float(_scan(S, L), s, l, x_l, float(p), variant, expected)


def _unseen(depth: _Depth, k: int, c_L: Any, expected: bool) -> tuple[Any, Any]:
    """(Σ c̃_S c̃_L for MAX, mean c̃_L for EXT) of S's k unseen items at this depth."""
    if expected:  # in every tie-breaking, a matched L item counts 1
        return k, 1
    return (
        unseen_max(k, depth.unique_active, depth.unique_crossing, c_L),
        unseen_mean(depth.unique_active, depth.unique_crossing, c_L),
    )


#: The sums each bound needs: RES is MAX - MIN.
_NEEDS = {"min": ("min",), "max": ("max",), "ext": ("ext",), "res": ("min", "max")}


class _Unwanted:
    """Stands in for a RootSum of a bound nobody asked for: adds nothing."""

    def add(self, *args: Any) -> None:
        pass

    def totals(self) -> dict[int, Fraction]:
        return {}


def _exact(
    scan: Iterator[_Depth], s: int, l: int, x_l: int, p: Fraction, variant: str, expected: bool, only: Optional[str]
) -> RBOBounds:
    # Only the asked bound's sums are built: MIN and RES carry a logarithm and,
    # for RBO^b, thousands of square roots that an EXT caller never reads.
    need = set(_NEEDS[only]) if only else {"min", "max", "ext"}
    sums: dict[str, Any] = {b: RootSum(p) if b in need else _Unwanted() for b in ("min", "max", "ext")}
    a_s: tuple[Fraction, tuple[Fraction, ...]] = (Fraction(0), ())  # A_s = coefficient / √(radicands)
    for depth in scan:
        d = depth.d
        t_L, b_L = depth.l_span
        c_L = crossing_contribution(t_L, b_L, d)
        if depth.s_span is not None:
            t_S, b_S = depth.s_span
            x = _overlap(depth, variant, crossing_contribution(t_S, b_S, d), c_L)
            if variant == "w":
                a_s = (ratio(2 * x, b_S + b_L), ())  # |S_:d| = b_S, |L_:d| = b_L
            elif variant == "a":
                a_s = (x / d, ())
            else:
                a_s = (x, (measurable_squares(t_S, b_S, d), measurable_squares(t_L, b_L, d)))
            for total in sums.values():
                total.add(a_s[0], d, *a_s[1])
            continue
        k = d - s
        x = _overlap(depth, variant, 1, c_L)
        most, mean = _unseen(depth, k, c_L, expected or variant == "w")
        if variant == "w":
            scale, radicands = ratio(2, d + b_L), ()
        elif variant == "a":
            scale, radicands = Fraction(1, d), ()
        else:
            scale, radicands = Fraction(1), (Fraction(d), measurable_squares(t_L, b_L, d))
        sums["min"].add(x * scale, d, *radicands)
        sums["max"].add((x + most) * scale, d, *radicands)
        sums["ext"].add(x * scale, d, *radicands)
        sums["ext"].add(k * mean * a_s[0] * scale, d, *a_s[1], *radicands)
    # Third section (Eqs. 22-24), the same for every variant.
    for d in range(1, l + 1):
        sums["min"].add(Fraction(-x_l, d), d)
    f = l + s - x_l
    for d in range(l + 1, f + 1):
        sums["max"].add(Fraction(2 * d - l - s + x_l, d), d)
    sums["max"].add(1 / (1 - p), f + 1)
    tail = 1 / (1 - p) / l  # times p^(l+1)
    sums["ext"].add(x_l * tail, l + 1)
    sums["ext"].add(a_s[0] * (l - s) * tail, l + 1, *a_s[1])
    weight = (1 - p) / p
    low, high, ext = ({k: q * weight for k, q in sums[b].totals().items()} for b in ("min", "max", "ext"))
    log_coefficient = x_l * weight
    residual = dict(high)
    for k, q in low.items():
        residual[k] = residual.get(k, Fraction(0)) - q
    wanted = {only} if only else {"min", "max", "ext", "res"}
    return RBOBounds(
        to_value(low, log_coefficient, p) if "min" in wanted else None,
        to_value(high, Fraction(0), p) if "max" in wanted else None,
        to_value(ext, Fraction(0), p) if "ext" in wanted else None,
        to_value(residual, -log_coefficient, p) if "res" in wanted else None,
    )


def _overlap(depth: _Depth, variant: str, c_S: Any, c_L: Any) -> Any:
    counts = (depth.both_active, depth.s_crossing, depth.l_crossing, depth.both_crossing)
    if variant == "w":
        return sports_overlap(*counts)
    return overlap(*counts, c_S, c_L)


def _float(scan: Iterator[_Depth], s: int, l: int, x_l: int, p: float, variant: str, expected: bool) -> RBOBounds:
    # Every bound, RES included, is summed from its own non-negative terms
    # with math.fsum, so no bound is the difference of two nearly equal
    # numbers: RES is not MAX - MIN, and MIN's tail Σ_{d>l} p^d/d is summed
    # directly instead of as -ln(1-p) minus the harmonic part (see _series).
    low: list[float] = []
    high: list[float] = []
    ext: list[float] = []
    res: list[float] = []
    a_s = 0.0
    p_d = 1.0
    for depth in scan:
        d = depth.d
        p_d *= p
        t_L, b_L = depth.l_span
        c_L = (d - t_L + 1) / (b_L - t_L + 1)
        if depth.s_span is not None:
            t_S, b_S = depth.s_span
            x = _overlap(depth, variant, (d - t_S + 1) / (b_S - t_S + 1), c_L)
            if variant == "w":
                a_s = 2 * x / (b_S + b_L)
            elif variant == "a":
                a_s = x / d
            else:
                a_s = x / math.sqrt(measurable_squares(t_S, b_S, float(d)) * measurable_squares(t_L, b_L, float(d)))
            low.append(a_s * p_d)
            high.append(a_s * p_d)
            ext.append(a_s * p_d)
            continue
        k = d - s
        x = _overlap(depth, variant, 1.0, c_L)
        most, mean = _unseen(depth, k, c_L, expected or variant == "w")
        if variant == "w":
            denominator = d + b_L
            x, most = 2 * x, 2 * most
            unseen_ext = 2 * k * mean * a_s
        else:
            denominator = d if variant == "a" else math.sqrt(d * measurable_squares(t_L, b_L, float(d)))
            unseen_ext = k * mean * a_s
        low.append(x / denominator * p_d)
        high.append((x + most) / denominator * p_d)
        ext.append((x + unseen_ext) / denominator * p_d)
        res.append(most / denominator * p_d)
    # Third section (Eqs. 22-24).  With f = l + s - x_l:
    #   MIN += x_l Σ_{d>l} p^d/d
    #   MAX += Σ_{l<d<=f} (2d-l-s+x_l)/d p^d + Σ_{d>f} p^d
    #   RES += Σ_{l<d<=f} (2d-l-s)/d p^d + Σ_{d>f} (d-x_l)/d p^d   (MAX - MIN, term by term: all >= 0)
    f = l + s - x_l
    for d in range(l + 1, f + 1):
        p_d *= p
        high.append((2 * d - l - s + x_l) / d * p_d)
        res.append((2 * d - l - s) / d * p_d)
    low.append(x_l * _series(l + 1, p, 0, 1))
    high.append(p ** (f + 1) / (1 - p))
    res.append(_series(f + 1, p, 1, -x_l))
    ext.append((x_l + a_s * (l - s)) / l * p ** (l + 1) / (1 - p))
    weight = (1 - p) / p
    return RBOBounds(*(math.fsum(terms) * weight for terms in (low, high, ext, res)))


#: Past this many terms _series switches to closed forms (only when p > 1 - 1e-5).
_SERIES_TERMS = 4_000_000
#: Terms summed per numpy chunk.
_CHUNK = 1 << 16


def _series(start: int, p: float, a: int, b: int) -> float:
    """Σ_{d >= start} (a·d + b)/d · p^d, for a·d + b >= 0 at every d >= start.

    (a, b) = (0, 1) is MIN's tail Σ p^d/d and (1, -x_l) RES's tail.  The
    terms are summed directly until they fall below 2^-60 of the first one:
    every term is >= 0, so nothing cancels, unlike -ln(1-p) - Σ_{d<start} p^d/d,
    which loses all accuracy once p^start is small.  That needs about
    42/(1-p) terms; for p within 1e-5 of 1 it would need more than
    _SERIES_TERMS, and there the closed form is used, which then cancels by
    less than a factor ln(1/(1-p))/ln(start) (docs/rbo.md).

    >>> _series(1, 0.5, 0, 1) == math.log(2)
    True
    """
    log_p = math.log(p)
    if start * log_p < -746:  # p^start underflows: the whole tail is below the smallest double
        return 0.0
    terms = math.ceil(-60 * math.log(2) / log_p)
    if terms > _SERIES_TERMS:
        return _closed_series(start, p, a, b)
    import numpy  # only long float tails get here

    total = []
    for first in range(start, start + terms, _CHUNK):
        d = numpy.arange(first, min(first + _CHUNK, start + terms), dtype=numpy.float64)
        total.append(float(numpy.sum((a * d + b) / d * numpy.power(p, d))))
    return math.fsum(total)


def _closed_series(start: int, p: float, a: int, b: int) -> float:
    """Σ_{d >= start} (a·d + b)/d · p^d as a·p^start/(1-p) + b·(-ln(1-p) - Σ_{d<start} p^d/d)."""
    head, p_d = [], 1.0
    for d in range(1, start):
        p_d *= p
        head.append(p_d / d)
    logs = -math.log1p(-p) - math.fsum(head)
    return a * p**start / (1 - p) + b * logs
