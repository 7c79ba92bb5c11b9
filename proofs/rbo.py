"""RBO with ties (Corsi & Urbano, SIGIR 2024): every closed form fast uses, for symbolic depths, lengths and p.

RBO = (1-p)/p · Σ_{d>=1} A_d·p^d (the paper's Eq. 12).  A power series in
p determines its coefficients, so two RBO values are equal for every p in
(0, 1) exactly when their coefficients A_d are equal at every depth d.  The
theorems therefore compare, at a *symbolic* depth d in each section of the
sum, the coefficient fast's kernels give with the one the definition gives:

- **d <= s** (both rankings seen): :func:`~tieaware.fast.rbo_kernels.seen_agreement`
  against the agreement of each variant (w: Eqs. 4, 13; a: Eq. 9; b: Eq. 11)
  built item by item from the contribution lemma, with symbolic counts of
  shared items in each pair of states and symbolic groups crossed by d;
- **s < d <= l** (S's d - s items unseen): :func:`~tieaware.fast.rbo_kernels.unseen_terms`
  against X̃_d of Eq. 14 with the paper's assumptions for MIN, MAX and EXT
  (Eqs. 18-21; MAX sums the first k entries of the sorted list U_d), in
  every variant, RES = MAX - MIN; and, for ``rbo_expected``, against the
  expectation of bare RBO's per-depth term (Webber et al.'s assumptions);
- **d > l**: :func:`~tieaware.fast.rbo_kernels.third_section` against the
  agreement past l (Eqs. 22-24; every variant's agreement is X_d/d there),
  region by region (d <= l, l < d <= f, d > f, boundaries included);
- the infinite pieces: :func:`~tieaware.fast.rbo_kernels.series_tail` against
  sympy's sums of Σ_{d>=m} p^d and Σ_{d>=1} p^d/d, symbolic m and p.

The expectation theorems then follow by linearity: bare RBO's coefficients
are affine in the overlaps X_d, and E[X_d] is the agreement lemma.  The one
part that is not a closed form, fast's left-to-right scan that counts the
items in each state at each depth, is checked on every pair of small tied
rankings and the paper's Figure 2 ("RBO scan"); docs/proofs.md says why.

>>> prove_contribution().proved
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol, summation

from tieaware.fast import rank_biased_overlap as fast_rbo
from tieaware.fast import rbo_kernels as K
from tieaware.fast.rbo_kernels import (
    Span,
    contribution,
    crossing_contribution,
    overlap,
    seen_agreement,
    series_tail,
    third_section,
    unseen_terms,
)
from tieaware.proofs.rbo_scan import (
    BOUNDS,
    SCAN_P,
    canonical_pairs,
    check_pair,
    defined_coefficients,
    fast_coefficient,
    infinite_sums,
    small_rankings,
    surd,
    surd_sum,
)
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, bounded, decided, same, theorem

__all__ = [
    "p_at_or_above",
    "coefficient_at",
    "FIGURE_2",
    "RBO_LONGEST",
    "prove_contribution",
    "prove_agreement",
    "prove_seen",
    "prove_unseen",
    "prove_past_l",
    "prove_series_tail",
    "prove_scan",
    "prove_rbo_expected",
    "prove_rbo_min",
    "prove_rbo_difference",
]

#: The scan is checked on every pair of tied rankings with s <= l <= this (up to renaming) ...
RBO_LONGEST = 3
#: ... and on the paper's Figure 2, as docs/rbo.md reconstructs it (s = 7, l = 13).
FIGURE_2 = (["f", "b", "a", ("e", "c", "d"), "n"], ["a", "d", "i", ("m", "c"), "e", ("g", "h", "f"), ("j", "k", "o", "q")])
#: The scan's value check (fast's exact evaluation against the series, at rbo_scan.SCAN_P) runs on every VALUE_EVERY-th pair.
VALUE_EVERY = 50

_pos = dict(integer=True, positive=True)
_nonneg = dict(integer=True, nonnegative=True)
t, v, d = sympy.symbols("t v d", **_pos)
u, w, q = sympy.symbols("u w q", **_nonneg)
p = Symbol("p", positive=True)
_STATES = ("inactive", "crossing", "active")


# -- the lemma -------------------------------------------------------------------


def p_at_or_above(t_: Any, b_: Any, d_: Any, last: Any) -> Any:
    """P(an item of group t..b sits at rank <= d), *last* = the group's last rank <= d.

    Each of the b-t+1 ranks holds the item in (b-t)! of the (b-t+1)!
    orderings of the group, so the chance is a sum of 1/(b-t+1) over ranks t..last.
    """
    return summation(sympy.factorial(b_ - t_) / sympy.factorial(b_ - t_ + 1), (q, t_, last))


@theorem(
    "RBO contribution",
    "An item of a tie group t..b is at or above depth d in a fraction (d-t+1)/(b-t+1) of orderings (0 if d < t, 1 if b <= d).",
    GENERAL,
    lambda: Eq(Tex(r"\Pr[\mathrm{rank}(e) \le d]"), crossing_contribution(t, Symbol("b"), d), evaluate=False),
)
def prove_contribution(crossing: Optional[Callable[..., Any]] = None, piecewise: Optional[Callable[..., Any]] = None) -> str:
    crossing, piecewise = crossing or K.crossing_contribution, piecewise or K.contribution  # looked up when run, as fast does
    # Crossing: t <= d < b, i.e. d = t + u, b = d + v; d = t (u = 0) apart, so that fast's
    # comparisons are decided at the boundary too.
    for uu in (sympy.Integer(0), v):
        dd, bb = t + uu, t + uu + v
        derived = sympy.combsimp(p_at_or_above(t, bb, dd, dd))
        same(derived, crossing(t, bb, dd), f"crossing group, d = t + {uu}, crossing_contribution")
        same(derived, piecewise(t, bb, dd), f"crossing group, d = t + {uu}, contribution")
    # Above the group (d < t): no rank of the group is <= d.
    same(0, piecewise(d + v, d + v + w, d), "group below depth d")
    # Below it (b <= d, b = d apart): every rank of the group is <= d.
    bb = t + w
    for uu in (sympy.Integer(0), v):
        whole = sympy.combsimp(p_at_or_above(t, bb, bb + uu, bb))
        same(whole, piecewise(t, bb, bb + uu), f"group above depth d, d = b + {uu}")
    return "symbolic t, b, d in each of the three cases d < t, t <= d < b, b <= d"


# -- the agreement ------------------------------------------------------------------


def _chances(t_: Any, b_: Any, d_: Any) -> dict[str, Any]:
    # P(item at rank <= d) by state, the crossed group t..b holding rank d: from the lemma, not from fast.
    return {"inactive": 0, "active": 1, "crossing": sympy.combsimp(p_at_or_above(t_, b_, d_, d_))}


def _counts() -> dict[tuple[str, str], Any]:
    return {(a, b): Symbol(f"n_{a[0]}{b[0]}", **_nonneg) for a in _STATES for b in _STATES}


@theorem(
    "RBO^a agreement",
    "E[X_d/d] over tie-breakings of S and L = Σ_e c_S(e)·c_L(e)/d = overlap(counts, c_S, c_L)/d.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[X_d]/d"),
        overlap(*sympy.symbols("n_AA n_CA n_AC n_CC"), Symbol("c_S"), Symbol("c_L")) / d,
        evaluate=False,
    ),
)
def prove_agreement(kernel: Optional[Callable[..., Any]] = None, crossing: Optional[Callable[..., Any]] = None) -> str:
    kernel, crossing = kernel or K.overlap, crossing or K.crossing_contribution
    # At depth d each ranking has at most one crossed group (the one holding rank d): t_S <= d < b_S, t_L <= d < b_L.
    u_S, v_S, u_L, v_L = sympy.symbols("u_S v_S u_L v_L", integer=True, nonnegative=True)
    t_S, b_S = d - u_S, d + 1 + v_S
    t_L, b_L = d - u_L, d + 1 + v_L
    chance = {"S": _chances(t_S, b_S, d), "L": _chances(t_L, b_L, d)}
    counts = _counts()
    # E[X_d] = Σ over shared items of P(in S_:d)·P(in L_:d): S and L are tie-broken independently.
    derived = sum(counts[a, b] * chance["S"][a] * chance["L"][b] for a in _STATES for b in _STATES)
    got = kernel(
        counts["active", "active"],
        counts["crossing", "active"],
        counts["active", "crossing"],
        counts["crossing", "crossing"],
        crossing(t_S, b_S, d),
        crossing(t_L, b_L, d),
    )
    same(derived / d, got / d, "E[X_d]/d")
    return "symbolic item counts per state pair, symbolic crossed groups t..b in S and L and depth d"


# -- square roots: RBO^b's measurable overlaps ---------------------------------------


def _root_value(terms: Sequence[tuple[Any, tuple[Any, ...]]], roots: dict[Any, Symbol], what: str) -> Any:
    """Σ coefficient/√(Π radicands), each radicand identified with one of the derived measurable overlaps.

    *roots* maps each derived radicand to a positive symbol ρ standing for it,
    so that the value is a rational function of the √ρ and no square root of
    a sum has to be simplified.  A radicand that is none of them fails.
    """
    total = sympy.Integer(0)
    for coefficient, radicands in terms:
        factor = sympy.Integer(1)
        for r in radicands:
            for known, symbol in roots.items():
                # Radicands are rational functions of the symbols: cancel() decides equality.
                if sympy.cancel(sympy.together(sympy.sympify(r) - known)) == 0:
                    factor /= sympy.sqrt(symbol)
                    break
            else:
                raise ProofFailure(f"{what}: fast's radicand {r} is none of the measurable overlaps {list(roots)}")
        total += coefficient * factor
    return total


def _measurable(t_: Any, b_: Any, c: Any) -> Any:
    # Σ_e c_e² over a ranking at depth d, its crossed group t..b: t-1 items above count 1 each, the group's c each.
    return Sum(1, (q, 1, t_ - 1)).doit() + Sum(c**2, (q, t_, b_)).doit()


def _sports_seen(t_: Any, b_: Any) -> Any:
    # |R_:d| under sports ranking: every item whose group starts at or above d, i.e. ranks 1..b.
    return Sum(1, (q, 1, t_ - 1)).doit() + Sum(1, (q, t_, b_)).doit()


# -- depths d <= s -----------------------------------------------------------------

_u_S, _v_S, _u_L, _v_L = sympy.symbols("u_S v_S u_L v_L", **_nonneg)
_RHO = {name: Symbol(f"rho_{name}", positive=True) for name in ("S", "L", "d", "1", "2")}


def _seen_case() -> tuple[Any, ...]:
    # Rank d falls in S's group t_S..b_S and L's group t_L..b_L (a group may start or end at d).
    return d - _u_S, d + _v_S, d - _u_L, d + _v_L


def _seen_derived(variant: str, counts: dict[tuple[str, str], Any]) -> tuple[Any, dict[Any, Symbol]]:
    t_S, b_S, t_L, b_L = _seen_case()
    if variant == "w":  # c = 1 once the group starts at or above d (Eq. 13)
        sports = {"inactive": 0, "crossing": 1, "active": 1}
        x = sum(counts[a, b] * sports[a] * sports[b] for a in _STATES for b in _STATES)
        return 2 * x / (_sports_seen(t_S, b_S) + _sports_seen(t_L, b_L)), {}
    c_S, c_L = _chances(t_S, b_S, d), _chances(t_L, b_L, d)
    x = sum(counts[a, b] * c_S[a] * c_L[b] for a in _STATES for b in _STATES)
    if variant == "a":  # Eq. 9
        return x / d, {}
    m_S, m_L = _measurable(t_S, b_S, c_S["crossing"]), _measurable(t_L, b_L, c_L["crossing"])
    return x / (sympy.sqrt(_RHO["S"]) * sympy.sqrt(_RHO["L"])), {m_S: _RHO["S"], m_L: _RHO["L"]}  # Eq. 11


def _seen_claimed(agreement: Callable[..., Any], variant: str, counts: dict[tuple[str, str], Any]) -> Any:
    return agreement(
        variant,
        counts["active", "active"],
        counts["crossing", "active"],
        counts["active", "crossing"],
        counts["crossing", "crossing"],
        *_seen_case(),
        d,
    )


@theorem(
    "RBO agreement d <= s",
    "fast's seen_agreement = the paper's A^w (Eq. 13), A^a (Eq. 9) and A^b (Eq. 11) at every depth d <= s.",
    GENERAL,
    lambda: Eq(
        Tex(r"A^a_d"),
        seen_agreement("a", *sympy.symbols("n_AA n_CA n_AC n_CC"), *sympy.symbols("t_S b_S t_L b_L"), d)[0],
        evaluate=False,
    ),
)
def prove_seen(agreement: Optional[Callable[..., Any]] = None) -> str:
    agreement = agreement or K.seen_agreement
    counts = _counts()
    for variant in ("w", "a", "b"):
        derived, roots = _seen_derived(variant, counts)
        got = _root_value([_seen_claimed(agreement, variant, counts)], roots, f"A^{variant}_d")
        same(derived, got, f"A^{variant}_d at d <= s")
    return "w, a, b: symbolic counts of shared items in each pair of states, symbolic groups t..b holding rank d in S and L"


# -- depths s < d <= l -------------------------------------------------------------

_s, _k, _A, _C = sympy.symbols("s k A_u C_u", **_pos)
_n_AA, _n_AC = sympy.symbols("n_AA n_AC", **_nonneg)
_alpha = Symbol("alpha", nonnegative=True)  # A_s's coefficient
_j, _z = Symbol("j", **_pos), Symbol("z", **_nonneg)
_i = Symbol("i", **_pos)


def _unseen_cases() -> Iterator[tuple[str, dict[Any, Any]]]:
    # MAX depends on whether S's k unseen items all match active items of L (k <= A_u) or reach
    # into L's crossed group (A_u < k); k > A_u + C_u cannot happen: L_:d holds b_L >= d potentially
    # active items, at most s of them shared, so |U_d| >= d - s = k.
    yield "k <= A_u", {_A: _k + _z}
    yield "A_u < k <= A_u + C_u", {_k: _A + _j, _C: _j + _z}


def _unseen_setting(variant: str, assume: dict[Any, Any]) -> tuple[Any, ...]:
    """(d, t_L, b_L, k, A_u, C_u, A_s) at a depth s < d <= l, in one case of _unseen_cases."""
    k_, A_, C_ = (x.xreplace(assume) for x in (_k, _A, _C))
    dd = _s + k_
    a_s = (_alpha, (_RHO["1"], _RHO["2"])) if variant == "b" else (_alpha, ())
    return dd, dd - _u_L, dd + _v_L, k_, A_, C_, a_s


def _unseen_derived(variant: str, bound: str, expected: bool, assume: dict[Any, Any]) -> tuple[Any, dict[Any, Symbol]]:
    """The coefficient of p^d at s < d <= l from the definitions: X̃_d of Eq. 14 over the variant's denominator."""
    dd, t_L, b_L, k_, A_, C_, _ = _unseen_setting(variant, assume)
    a_s_value = _alpha / (sympy.sqrt(_RHO["1"]) * sympy.sqrt(_RHO["2"])) if variant == "b" else _alpha
    if variant == "w":
        c = {"crossing": 1, "active": 1}  # sports: L's crossed group counts in full
    else:
        c = _chances(t_L, b_L, dd)
    seen = _n_AA * c["active"] + _n_AC * c["crossing"]  # S is wholly seen: its shared items are active
    if expected:
        # Bare RBO (Webber et al.) in one tie-breaking: S's k unseen items match items of L_:d outside S,
        # of which there are d - X_d >= d - s = k (MAX), or match at S's rate X_s/s (EXT).  Every such
        # term is affine in X_d and X_s, so its expectation is the same expression at E[X_d] = seen
        # (the agreement lemma) and E[X_s]/s = A_s^a.
        x_d = _s - _z  # any overlap X_d <= s: bare MAX's min(k, d - X_d) is decided to k for all of them
        matched = decided(sympy.Min(k_, dd - x_d), "bare MAX's matches")
        unseen = {"min": 0, "max": matched, "ext": k_ * a_s_value}
    else:
        # U_d: L's potentially active items missing from S, largest contribution first: A_u active
        # ones (c = 1), then C_u in L's crossed group.  MAX matches S's k unseen items with its first
        # k entries (Eq. 19); EXT with its mean (Eq. 21).
        from_active = decided(sympy.Min(k_, A_), "S's unseen items matched with active ones")
        from_crossing = decided(sympy.Max(0, k_ - A_), "S's unseen items matched in L's crossed group")
        top_k = Sum(c["active"], (_i, 1, from_active)).doit() + Sum(c["crossing"], (_i, A_ + 1, A_ + from_crossing)).doit()
        size = A_ + C_
        mean = (Sum(c["active"], (_i, 1, A_)).doit() + Sum(c["crossing"], (_i, A_ + 1, size)).doit()) / size
        unseen = {"min": 0, "max": top_k, "ext": k_ * a_s_value * mean}  # Σ_k c̃_S·c̃_L, Eqs. 18, 19, 21
    X = {b: seen + unseen[b] for b in ("min", "max", "ext")}
    X["res"] = unseen["max"]  # MAX - MIN
    if variant == "w":  # Eq. 15: the unseen items are untied, so S contributes d
        return 2 * X[bound] / (dd + _sports_seen(t_L, b_L)), {}
    if variant == "a":  # Eq. 16
        return X[bound] / dd, {}
    m_L = _measurable(t_L, b_L, c["crossing"])  # Eq. 17
    roots = {m_L: _RHO["L"], dd: _RHO["d"], _RHO["1"]: _RHO["1"], _RHO["2"]: _RHO["2"]}
    return X[bound] / (sympy.sqrt(_RHO["d"]) * sympy.sqrt(_RHO["L"])), roots


def _unseen_claimed(kernel: Callable[..., Any], variant: str, bound: str, expected: bool, assume: dict[Any, Any], roots: dict[Any, Symbol]) -> Any:
    # fast's kernel on the case's symbols: its own min()s must be decided by the case.
    dd, t_L, b_L, k_, A_, C_, a_s = _unseen_setting(variant, assume)
    got = kernel(variant, _n_AA, _n_AC, t_L, b_L, dd, _s, A_, C_, a_s, expected)
    return _root_value(getattr(got, bound), roots, bound)


@theorem(
    "RBO agreement s < d <= l",
    "fast's unseen_terms = the paper's X̃_d (Eq. 14) with MIN, MAX, EXT (Eqs. 18, 19, 21), RES = MAX - MIN, "
    "over w's, a's and b's denominators (Eqs. 15-17), at every depth s < d <= l.",
    GENERAL,
    lambda: Eq(
        Tex(r"A^a_{d,\mathrm{EXT}}"),
        sum(x for x, _ in unseen_terms("a", Symbol("n_AA"), Symbol("n_AC"), Symbol("t_L"), Symbol("b_L"), Symbol("s") + _k, Symbol("s"), _k + _z, _C, (Symbol("A_s"), ())).ext),
        evaluate=False,
    ),
)
def prove_unseen(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or K.unseen_terms
    checked = 0
    for variant in ("w", "a", "b"):
        for bound in BOUNDS:
            for case, assume in _unseen_cases():
                derived, roots = _unseen_derived(variant, bound, False, assume)
                same(derived, _unseen_claimed(kernel, variant, bound, False, assume, roots), f"{variant}-{bound.upper()} at s < d <= l, {case}")
                checked += 1
    return f"{checked} cases: w, a, b × MIN, MAX, EXT, RES × (k <= A_u, A_u < k), symbolic s, k, counts, L's group t_L..b_L, A_s"


# -- depths d > l ------------------------------------------------------------------

_X, _l = Symbol("X", **_nonneg), Symbol("l", **_pos)
_v, _j0, _h = Symbol("v", **_nonneg), Symbol("o", **_nonneg), Symbol("h", **_nonneg)


def _past_regions(bound: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where d is, the lengths and the depth) around l and f = l + s - X, every boundary a case of its own.

    s = X + g and l = s + v; the gap g = s - X (S's items L lacks) is 0, 1, 2 or symbolic >= 4,
    and d sits below l, at l, l + 1, f - 1, f, f + 1, past f + 1, or strictly between l + 1 and
    f - 1: each depth is l or f plus a constant or a non-negative symbol, so sympy decides every
    comparison of fast's boundaries with it, and an off-by-one boundary meets a case where it differs.
    """
    del bound  # the same depths for every bound; MIN and EXT have no boundary at f, which does no harm
    for gap in (sympy.Integer(0), sympy.Integer(1), sympy.Integer(2), 4 + _j0 + _z):
        s_, l_ = _X + gap, _X + gap + _v
        f_ = l_ + gap
        places = {"d < l": l_ - 1 - u, "d = l": l_, "d = l + 1": l_ + 1, "d = f - 1": f_ - 1, "d = f": f_, "d = f + 1": f_ + 1, "d > f + 1": f_ + 2 + _h}
        if not gap.is_Integer:
            places["l + 1 < d < f - 1"] = l_ + 2 + _j0  # f - 1 - d = 1 + z
        seen = set()
        for where, d_ in places.items():
            key = sympy.expand(d_ - l_)
            if key in seen or (gap.is_Integer and where == "d = f - 1" and gap < 1):
                continue
            seen.add(key)
            yield f"{where}, s - X_l = {gap}", {"s": s_, "l": l_, "d": d_}


def coefficient_at(pieces: Sequence[Any], d_: Any, roots: dict[Any, Symbol] | None = None, what: str = "") -> Any:
    """The coefficient of p^d in Spans and Tails, at a depth the assumptions place against every boundary.

    A Span covers lo <= d <= hi and adds term(d); a Tail covers d >= start and
    adds (a + b/d)/√(Π radicands).  A boundary the assumptions do not decide fails.
    """
    total = sympy.Integer(0)
    for piece in pieces:
        lo, hi = (piece.lo, piece.hi) if isinstance(piece, Span) else (piece.start, None)
        inside = True
        for boundary, gap in ((lo, d_ - lo), (hi, None if hi is None else hi - d_)):
            if gap is None or not inside:
                continue
            sign = sympy.sympify(gap).is_nonnegative
            if sign is None:
                raise ProofFailure(f"{what}: the case assumptions do not place d = {d_} against the boundary {boundary}")
            inside = sign
        if not inside:
            continue
        if isinstance(piece, Span):
            total += piece.term(d_)
        else:
            total += _root_value([(piece.a + piece.b / d_, piece.radicands)], roots or {}, what)
    return total


def _past_derived(bound: str, variant: str, r: dict[str, Any], a_s_value: Any) -> Any:
    """A_d past l from the paper's §4.2: every seen item active, the unseen ones untied."""
    s_, l_, d_, x = r["s"], r["l"], r["d"], _X
    if bound == "ext":  # Eq. 24: the agreement at l, (X_l + A_s(l - s))/l, extrapolated
        return (x + a_s_value * (l_ - s_)) / l_
    j_ = d_ - l_
    if bound == "min":  # Eq. 22: the unseen items are disjoint, X_d = X_l
        overlap_d = x
    else:  # Eq. 23: l - s of S's unseen items matched at l; then each new item of one ranking matches an
        # unmatched item of the other while there are any (s - X_l of them in each), and the two new items match each other after
        unmatched = s_ - x
        overlap_d = x + (l_ - s_) + 2 * decided(sympy.Min(j_, unmatched), "matches past l") + decided(sympy.Max(0, j_ - unmatched), "pairs past f")
    # The agreement of each variant past l: sports |S_:d| = |L_:d| = d; Σc² = d in both rankings.
    agreement = {"w": 2 * overlap_d / (d_ + d_), "a": overlap_d / d_, "b": overlap_d / sympy.sqrt(d_ * d_)}[variant]
    if bound == "res":
        return agreement - _past_derived("min", variant, r, a_s_value)
    return agreement


@theorem(
    "RBO past l",
    "fast's third_section = the paper's Eqs. 22 (MIN), 23 (MAX), 24 (EXT) and MAX - MIN (RES) at every depth d > l, "
    "the same for w, a and b; nothing at d <= l.",
    GENERAL,
    lambda: Eq(
        Tex(r"\sum_{d>l} A^{\mathrm{MAX}}_d p^d"),
        sum(
            (Sum(x.term(d) * p**d, (d, x.lo, x.hi)) if isinstance(x, Span) else (x.a + x.b / d) * Tex(r"\sum_{d \ge f+1} p^d"))
            for x in third_section("max", _l, Symbol("s"), _X, (_alpha, ()))
        ),
        evaluate=False,
    ),
)
def prove_past_l(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or K.third_section
    checked = 0
    for bound in BOUNDS:
        for region, r in _past_regions(bound):
            for variant in ("w", "a", "b"):
                a_s, a_s_value, roots = (_alpha, ()), _alpha, {}
                if variant == "b":
                    a_s = (_alpha, (_RHO["1"], _RHO["2"]))
                    a_s_value = _alpha / (sympy.sqrt(_RHO["1"]) * sympy.sqrt(_RHO["2"]))
                    roots = {_RHO["1"]: _RHO["1"], _RHO["2"]: _RHO["2"]}
                pieces = kernel(bound, r["l"], r["s"], _X, a_s)
                got = coefficient_at(pieces, r["d"], roots, f"{bound.upper()} past l, {region}")
                derived = 0 if region.startswith(("d < l", "d = l,")) else _past_derived(bound, variant, r, a_s_value)
                same(derived, got, f"{variant}-{bound.upper()}, {region}")
                checked += 1
    return f"{checked} cases: MIN, MAX, EXT, RES × w, a, b, symbolic X_l, l, A_s; s - X_l = 0, 1, 2 or symbolic; d below l, at l, l + 1, f - 1, f, f + 1, past f + 1 and between"


# -- the infinite pieces --------------------------------------------------------------

_a_t, _b_t = sympy.symbols("a b")
_m = Symbol("m", **_pos)
_LN = Symbol("Lambda", positive=True)  # ln(1/(1-p))


def _split_sums(expr: Any) -> tuple[Any, dict[tuple[Any, Any], Any]]:
    """expr = rest + Σ_limits Sum(summand, (d, lo, hi)): (rest, {(lo, hi): summand})."""
    rest, sums = sympy.Integer(0), {}
    for term in sympy.Add.make_args(sympy.expand(expr)):
        factor, found = sympy.Integer(1), None
        for f in sympy.Mul.make_args(term):
            if isinstance(f, Sum) and found is None:
                found = f
            else:
                factor *= f
        if found is None:
            rest += term
            continue
        (var, lo, hi), = found.limits
        key = (lo, hi)
        sums[key] = sums.get(key, 0) + factor * found.function.xreplace({var: d})
    return rest, sums


@theorem(
    "RBO series tail",
    "series_tail: Σ_{d>=m} (a + b/d)·p^d = a·p^m/(1-p) + b·ln(1/(1-p)) - Σ_{d<m} (b/d)·p^d, for symbolic a, b, m and 0 < p < 1.",
    GENERAL,
    lambda: Eq(
        Sum((_a_t + _b_t / d) * p**d, (d, _m, sympy.oo)),
        series_tail(_a_t, _b_t, _m, p)[0] * p**_m + series_tail(_a_t, _b_t, _m, p)[1] * Tex(r"\ln\frac{1}{1-p}")
        + Sum(series_tail(_a_t, _b_t, _m, p)[2].term(d) * p**d, (d, 1, _m - 1)),
        evaluate=False,
    ),
)
def prove_series_tail(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or K.series_tail
    geometric, logarithmic, span = kernel(_a_t, _b_t, _m, p)
    claimed = geometric * p**_m + logarithmic * _LN + Sum(span.term(d) * p**d, (d, span.lo, span.hi))
    # Derived: a·Σ_{d>=m} p^d + b·(Σ_{d>=1} p^d/d - Σ_{d=1}^{m-1} p^d/d), the infinite sums by sympy.
    geometric, log_series = infinite_sums()
    same(log_series, -sympy.log(1 - p), "Σ_{d>=1} p^d/d")  # = ln(1/(1-p)), written Λ below
    derived = _a_t * geometric + _b_t * _LN - _b_t * Sum(p**d / d, (d, 1, _m - 1))
    rest_c, sums_c = _split_sums(claimed)
    rest_d, sums_d = _split_sums(derived)
    same(rest_d, rest_c, "the closed part")
    if set(sums_c) != set(sums_d):
        raise ProofFailure(f"finite sums over {sorted(map(str, sums_c))}, derived over {sorted(map(str, sums_d))}")
    for key in sums_d:
        same(sums_d[key], sums_c[key], f"the finite sum over d = {key[0]}..{key[1]}")
    return "symbolic a, b, m >= 1 and p: sympy sums Σ_{d>=m} p^d = p^m/(1-p) and Σ_{d>=1} p^d/d = ln(1/(1-p)) for 0 < p < 1"


# -- the scan: fast's bookkeeping on concrete rankings -------------------------------------

@theorem(
    "RBO scan",
    f"fast's scan hands the kernels the right counts: its coefficients equal the definitions' at every depth, "
    f"every pair of tied rankings with s <= l <= {RBO_LONGEST} and the paper's Figure 2, every variant, every bound, rbo_expected.",
    bounded(f"l<={RBO_LONGEST} and Figure 2; p symbolic"),
    lambda: Eq(Tex(r"[p^d]\,\mathrm{fast}(S, L)"), Tex(r"A_d(S, L)"), evaluate=False),
    why="The scan is bookkeeping, not a closed form: it walks concrete items and counts them by state per depth, "
    "which sympy cannot run on rankings of symbolic length; every formula it feeds is proved general by the other RBO theorems.",
)
def prove_scan(terms: Optional[Callable[..., Any]] = None) -> str:
    terms = terms or fast_rbo._terms
    pairs = canonical_pairs(RBO_LONGEST)
    checked = 0
    for i, (S, L) in enumerate(pairs):
        checked += check_pair(S, L, terms, value_check=i % VALUE_EVERY == 0)
    checked += check_pair(*FIGURE_2, terms, value_check=True)
    return (
        f"{checked} (pair, variant, bound) series compared coefficient by coefficient up to depth f + 2 "
        f"({len(pairs)} pairs up to renaming, and Figure 2), so for every p; fast's exact values at p = {SCAN_P} "
        f"on every {VALUE_EVERY}th pair and Figure 2"
    )


# -- the expectation -----------------------------------------------------------------


@theorem(
    "RBO expected",
    "fast.rbo_expected = E[bare RBO] over the tie-breakings of S and L, for MIN, MAX, EXT and RES, at every depth and every p.",
    GENERAL,
    lambda: Eq(Tex(r"\mathrm{rbo\_expected}_{X}"), Tex(r"\mathbb{E}[\mathrm{RBO}_{X}(\tilde S, \tilde L)]"), evaluate=False),
)
def prove_rbo_expected(seen: Optional[Callable[..., Any]] = None, kernel: Optional[Callable[..., Any]] = None, past: Optional[Callable[..., Any]] = None) -> str:
    seen, kernel, past = seen or K.seen_agreement, kernel or K.unseen_terms, past or K.third_section
    # d <= s: bare RBO's term is X_d/d whatever the bound; its expectation is E[X_d]/d, the agreement lemma
    # applied to the same state counts as RBO^a's agreement (fast uses seen_agreement("a") for rbo_expected).
    counts = _counts()
    derived, _ = _seen_derived("a", counts)
    same(derived, _seen_claimed(seen, "a", counts)[0], "E[X_d]/d at d <= s")
    if _seen_claimed(seen, "a", counts)[1]:
        raise ProofFailure("RBO^a's agreement has a square root")
    # s < d <= l: the expectation of bare RBO's term (Webber et al.'s assumptions), affine in X_d and X_s.
    checked = 1
    for bound in BOUNDS:
        for case, assume in _unseen_cases():
            want, roots = _unseen_derived("a", bound, True, assume)
            same(want, _unseen_claimed(kernel, "a", bound, True, assume, roots), f"E[bare {bound.upper()}] at s < d <= l, {case}")
            checked += 1
    # d > l: bare RBO's tail, with X_l fixed (the shared items) and EXT's A_s = X_s/s, whose mean is A_s^a.
    for bound in BOUNDS:
        for region, r in _past_regions(bound):
            got = coefficient_at(past(bound, r["l"], r["s"], _X, (_alpha, ())), r["d"], {}, f"bare {bound.upper()} past l")
            want = 0 if region.startswith(("d < l", "d = l,")) else _past_derived(bound, "a", r, _alpha)
            same(want, got, f"E[bare {bound.upper()}] past l, {region}")
            checked += 1
    return f"{checked} cases: every bound at symbolic d <= s, s < d <= l and d > l; bare RBO is affine in the overlaps, E[X_d] by the agreement lemma"


@theorem(
    "RBO^a MIN",
    "The paper's RBO^a MIN = E[bare RBO MIN] over tie-breakings of S and L: the same coefficient at every depth, for every p.",
    GENERAL,
    lambda: Eq(Tex(r"\mathrm{RBO}^a_{MIN}"), Tex(r"\mathbb{E}[\mathrm{RBO}_{MIN}(\tilde S, \tilde L)]"), evaluate=False),
)
def prove_rbo_min(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or K.unseen_terms
    # d <= s and d > l: the paper and rbo_expected run the same kernels (seen_agreement("a"), third_section),
    # proved equal to E[bare RBO] by "RBO expected".  s < d <= l: the paper's MIN term against E[bare MIN].
    for case, assume in _unseen_cases():
        want, roots = _unseen_derived("a", "min", True, assume)
        same(want, _unseen_claimed(kernel, "a", "min", False, assume, roots), f"RBO^a MIN vs E[bare MIN] at s < d <= l, {case}")
    return "the paper's MIN coefficient equals E[bare MIN]'s at symbolic s < d <= l; the other depths share their kernels"


def _difference(bound: str, assume: dict[Any, Any]) -> Any:
    """E[bare RBO_X] − RBO^a_X at a depth s < d <= l: the L items that S's unseen items match count 1, not c_L."""
    dd, t_L, b_L, k_, A_, C_, _ = _unseen_setting("a", assume)
    c_L = _chances(t_L, b_L, dd)["crossing"]
    if bound == "ext":
        return k_ * _alpha * C_ * (1 - c_L) / ((A_ + C_) * dd)
    return decided(sympy.Max(0, k_ - A_), "the matches beyond the active items") * (1 - c_L) / dd


@theorem(
    "RBO^a MAX, EXT vs E",
    "E[bare RBO] − RBO^a = (1-p)/p·Σ_{s<d<=l} p^d·Δ_d with Δ_d = (k-A_u)⁺(1-c_L)/d for MAX and RES and "
    "k·A_s·C_u(1-c_L)/((A_u+C_u)·d) for EXT (k = d-s; A_u, C_u: L's active and crossing items missing from S); 0 for MIN.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[\mathrm{RBO}_{MAX}] - \mathrm{RBO}^a_{MAX}"),
        (1 - p) / p * Sum(p**d * sympy.Max(0, Symbol("k_d") - Symbol("A_d")) * (1 - Symbol("c_{L|d}")) / d, (d, Symbol("s") + 1, Symbol("l"))),
        evaluate=False,
    ),
)
def prove_rbo_difference(kernel: Optional[Callable[..., Any]] = None, terms: Optional[Callable[..., Any]] = None) -> str:
    kernel, terms = kernel or K.unseen_terms, terms or fast_rbo._terms
    for bound in BOUNDS:
        for case, assume in _unseen_cases():
            expected = _unseen_claimed(kernel, "a", bound, True, assume, {})
            paper = _unseen_claimed(kernel, "a", bound, False, assume, {})
            delta = 0 if bound == "min" else _difference("max" if bound == "res" else bound, assume)
            same(delta, expected - paper, f"{bound.upper()}: E − RBO^a at s < d <= l, {case}")
    # The family S = <a>, L = <a [x_1 .. x_n]>: Δ_d = (d-1)(n-d+1)/(n·d) > 0 at d = 2..n, so the paper's MAX
    # and EXT are below the expectation for every n >= 2 and every p; fast's series shows it for n = 2..5.
    shown = []
    for n in range(2, 6):
        S, L = (("a",),), (("a",), tuple(f"x{i}" for i in range(n)))
        e, a = terms(S, L, "a", True), terms(S, L, "a", False)
        for bound in ("max", "ext"):
            for dd in range(2, n + 2):
                got = surd_sum(fast_coefficient(e, bound, dd), {k: -q_ for k, q_ in fast_coefficient(a, bound, dd).items()})
                want = surd(Fraction((dd - 1) * (n - dd + 1), n * dd))
                if got != want:
                    raise ProofFailure(f"S=<a>, L=<a [{n} items]>, {bound.upper()} at depth {dd}: E − RBO^a = {got}, not {want}")
        shown.append(n)
    value = fast_rbo.rbo_bounds(["a"], ["a", ("x", "y")], Fraction(1, 2), variant="a")
    mean = fast_rbo.rbo_expected_bounds(["a"], ["a", ("x", "y")], Fraction(1, 2))
    return (
        f"Δ_d for symbolic s, k, counts, L's group and A_s in both MAX cases; the family S=<a>, L=<a [x_1..x_n]> "
        f"(Δ_d = (d-1)(n-d+1)/(n·d)) for n = {shown[0]}..{shown[-1]}; at n = 2, p = 1/2: paper MAX = EXT = {value.max}, "
        f"expectation {mean.max}"
    )
