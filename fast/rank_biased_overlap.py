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
item × depth matrix is built.  At each depth the pass hands the counts to
the kernels of :mod:`tieaware.fast.rbo_kernels` (``seen_agreement`` up to s,
``unseen_terms`` up to l, ``third_section`` past l), which give the
coefficient of p^d of every bound; exact and float mode then sum the same
coefficients.  ``tieaware prove`` proves those kernels equal to the paper's
definitions for symbolic depths, lengths, counts and p (docs/proofs.md).

>>> rbo(["a", ("b", "c")], ["a", "b", "c"], "0.5", variant="a", bound="ext")
Fraction(15, 16)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, NamedTuple, Optional, Union

from tieaware.model.params import flag, probability
from tieaware.model.rbo_input import BOUNDS, Groups, RBOBounds, bound_name, rbo_pair, variant_name
from tieaware.fast import rbo_kernels as K  # looked up when called: the kernels tieaware prove proves
from tieaware.fast.rbo_kernels import DepthTerms, RootTerm, Span, Tail

__all__ = ["rbo", "rbo_bounds", "rbo_expected", "rbo_expected_bounds", "RBOBounds", "group_spans", "direct_tail"]


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


def group_spans(groups: Groups) -> list[tuple[int, int]]:
    """The (first, last) rank of each tie group, 1-based."""
    spans, top = [], 1
    for g in groups:
        spans.append((top, top + len(g) - 1))
        top += len(g)
    return spans


def _scan(S: Groups, L: Groups) -> Iterator[_Depth]:
    S_items = {e for g in S for e in g}
    L_items = {e for g in L for e in g}
    shared = S_items & L_items
    spans = (group_spans(S), group_spans(L))
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


# --- evaluation: the kernels at every depth, then one sum per bound ------------


class _Terms(NamedTuple):
    """RBO's series, (1-p)/p · Σ_d A_d·p^d, before p is known (paper Eq. 12)."""

    s: int
    l: int
    x_l: int  # shared items
    depths: list[tuple[int, DepthTerms]]  # d = 1..l: sections one and two
    tails: dict[str, tuple[Union[Span, Tail], ...]]  # per bound: the depths past l


def _terms(S: Groups, L: Groups, variant: str, expected: bool, number: Callable[[int], Any] = int) -> _Terms:
    """Every coefficient of the series, from fast's kernels; *number* is float in float mode.

    >>> _terms((("a",),), (("a",), ("x", "y")), "a", False).depths[1]
    (2, DepthTerms(min=((Fraction(1, 2), ()),), max=((Fraction(3, 4), ()),), ext=((Fraction(1, 2), ()), (Fraction(1, 4), ())), res=((Fraction(1, 4), ()),)))
    """
    s, l = sum(map(len, S)), sum(map(len, L))
    x_l = len({e for g in S for e in g} & {e for g in L for e in g})
    depths = []
    a_s: RootTerm = (0, ())  # the agreement at depth s, which EXT extrapolates
    for depth in _scan(S, L):
        d = number(depth.d)
        t_L, b_L = map(number, depth.l_span)
        if depth.s_span is not None:
            t_S, b_S = map(number, depth.s_span)
            counts = (depth.both_active, depth.s_crossing, depth.l_crossing, depth.both_crossing)
            a_s = K.seen_agreement(variant, *counts, t_S, b_S, t_L, b_L, d)
            depths.append((depth.d, DepthTerms((a_s,), (a_s,), (a_s,), ())))
        else:
            terms = K.unseen_terms(
                variant, depth.both_active, depth.l_crossing, t_L, b_L, d, number(s),
                depth.unique_active, depth.unique_crossing, a_s, expected,
            )  # fmt: skip
            depths.append((depth.d, terms))
    tails = {bound: K.third_section(bound, l, s, x_l, a_s) for bound in BOUNDS}
    return _Terms(s, l, x_l, depths, tails)


def _bounds(
    S: Groups, L: Groups, p: Fraction, variant: str, expected: bool, exact: bool, only: Optional[str] = None
) -> RBOBounds:
    """All four bounds; in exact mode with *only*, just that one (the others None)."""
    if exact:
        return _exact(_terms(S, L, variant, expected), p, only)
    return _float(_terms(S, L, variant, expected, float), float(p))


def _exact(terms: _Terms, p: Fraction, only: Optional[str]) -> RBOBounds:
    # Only the asked bound's sum is built: MIN and RES carry a logarithm and,
    # for RBO^b, thousands of square roots that an EXT caller never reads.
    # With all four asked, RES is MAX - MIN of the exact sums (the same number
    # as summing RES's own terms, a quarter of the work saved).
    from tieaware.fast.rbo_exact import RootSum, to_value  # sympy: imported by exact mode only

    weight = (1 - p) / p
    sums: dict[str, tuple[dict[int, Fraction], Fraction]] = {}
    for bound in (only,) if only else ("min", "max", "ext"):
        total = RootSum(p)
        log = Fraction(0)  # the coefficient of ln(1/(1-p))
        for d, depth in terms.depths:
            for coefficient, radicands in getattr(depth, bound):
                total.add(coefficient, d, *radicands)
        for piece in terms.tails[bound]:
            radicands = ()
            if isinstance(piece, Tail):
                geometric, logarithmic, piece_span = K.series_tail(piece.a, piece.b, piece.start, p)
                radicands = piece.radicands
                total.add(geometric, piece.start, *radicands)
                log += logarithmic
                if logarithmic and radicands:
                    raise AssertionError("no bound has a logarithmic tail with a square root")
            else:
                piece_span = piece
            for d in range(piece_span.lo, piece_span.hi + 1):
                total.add(piece_span.term(d), d, *radicands)
        sums[bound] = ({k: q * weight for k, q in total.totals().items()}, log * weight)
    if not only:
        residual = dict(sums["max"][0])
        for k, q in sums["min"][0].items():
            residual[k] = residual.get(k, Fraction(0)) - q
        sums["res"] = (residual, sums["max"][1] - sums["min"][1])
    return RBOBounds(*(to_value(*sums[bound], p) if bound in sums else None for bound in BOUNDS))


def _root(term: RootTerm) -> float:
    coefficient, radicands = term
    return coefficient / math.sqrt(math.prod(radicands)) if radicands else coefficient


def _float(terms: _Terms, p: float) -> RBOBounds:
    # Every bound, RES included, is summed from its own non-negative terms
    # with math.fsum, so no bound is the difference of two nearly equal
    # numbers: RES is not MAX - MIN, and MIN's tail Σ_{d>l} p^d/d is summed
    # directly instead of as -ln(1-p) minus the harmonic part (see direct_tail).
    weight = (1 - p) / p
    values = []
    parts_of: dict[str, list[float]] = {bound: [] for bound in BOUNDS}
    p_d = 1.0
    for _, depth in terms.depths:  # d = 1..l in order
        p_d *= p
        for bound, depth_terms in zip(BOUNDS, depth):  # DepthTerms holds min, max, ext, res in this order
            for coefficient, radicands in depth_terms:
                parts_of[bound].append((coefficient / math.sqrt(math.prod(radicands)) if radicands else coefficient) * p_d)
    for bound in BOUNDS:
        parts = parts_of[bound]
        for piece in terms.tails[bound]:
            if isinstance(piece, Span):
                p_d = p ** (piece.lo - 1)
                for d in range(piece.lo, piece.hi + 1):
                    p_d *= p
                    parts.append(piece.term(float(d)) * p_d)
            elif piece.b == 0:  # a geometric series: its closed form has no cancellation
                geometric, _, _ = K.series_tail(float(piece.a), 0, piece.start, p)
                parts.append(_root((geometric * p**piece.start, piece.radicands)))
            else:
                parts.append(direct_tail(piece.start, p, float(piece.a), float(piece.b)))
        values.append(math.fsum(parts) * weight)
    return RBOBounds(*values)


#: Past this many terms direct_tail switches to closed forms (only when p > 1 - 1e-5).
_SERIES_TERMS = 4_000_000
#: Terms summed per numpy chunk.
_CHUNK = 1 << 16


def direct_tail(start: int, p: float, a: float, b: float) -> float:
    """Σ_{d >= start} (a·d + b)/d · p^d, for a·d + b >= 0 at every d >= start.

    (a, b) = (0, X_l) is MIN's tail X_l·Σ p^d/d and (1, -X_l) RES's tail.  The
    terms are summed directly until they fall below 2^-60 of the first one:
    every term is >= 0, so nothing cancels, unlike -ln(1-p) - Σ_{d<start} p^d/d,
    which loses all accuracy once p^start is small.  That needs about
    42/(1-p) terms; for p within 1e-5 of 1 it would need more than
    _SERIES_TERMS, and there the closed form is used, which then cancels by
    less than a factor ln(1/(1-p))/ln(start) (docs/rbo.md).

    >>> direct_tail(1, 0.5, 0.0, 1.0) == math.log(2)
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


def _closed_series(start: int, p: float, a: float, b: float) -> float:
    """Σ_{d >= start} (a·d + b)/d · p^d by :func:`series_tail`'s closed form, in floats."""
    geometric, logarithmic, head = K.series_tail(a, b, start, p)
    span = math.fsum(head.term(float(d)) * p**d for d in range(head.lo, head.hi + 1))
    return geometric * p**start + logarithmic * -math.log1p(-p) + span
