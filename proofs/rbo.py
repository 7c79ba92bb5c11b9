"""RBO^a (Corsi & Urbano 2024): the contribution lemma, the agreement, MIN, and where EXT/MAX part ways.

Bare RBO of two tie-free rankings is built from the overlaps
X_d = |S_:d ∩ L_:d| = Σ_e 1[S_e <= d]·1[L_e <= d].  Under random
tie-breaking of S and L, independently, E[1[S_e <= d]·1[L_e <= d]] is the
product of the two chances, and the contribution lemma gives each chance:
0 above the item's group t..b, 1 below it, (d-t+1)/(b-t+1) inside it.  So
E[X_d] is Σ_e c_S(e)·c_L(e), the paper's A^a numerator, in general.

MIN is linear in the overlaps (the unseen items are assumed disjoint), so
E[bare MIN] is the MIN formula at E[X_d]: the paper's RBO^a MIN is the
expectation.  fast assembles it in one pass over depths, which is checked,
for every pair of small rankings, against the plain average of bare MIN over
every tie-breaking, computed here from our own transcription of bare RBO.

MAX and EXT are *not* linear in the overlaps of L's crossed groups (the
unseen items of S are matched against L's crossed group), and the paper's
RBO^a for them is not the expectation: a counterexample is exhibited.
fast.rbo_expected, which is, is checked for every bound.

>>> prove_contribution().proved
True
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import sympy
from sympy import Eq, Symbol, summation

from tieaware.fast import rank_biased_overlap as fast_rbo
from tieaware.fast.rbo_kernels import contribution, crossing_contribution, overlap
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, bounded, same, theorem

__all__ = [
    "p_at_or_above",
    "bare_rbo",
    "expected_bare_rbo",
    "split_log",
    "small_rankings",
    "RBO_ITEMS",
    "RBO_P",
    "COUNTEREXAMPLE",
    "prove_contribution",
    "prove_agreement",
    "prove_rbo_min",
    "prove_rbo_expected",
    "prove_rbo_ext_max_not_expectation",
]

#: RBO's compositions are checked on every pair of tied rankings over this many items with s <= l <= 3 ...
RBO_ITEMS = ("a", "b", "c", "d")
RBO_LONGEST = 3
#: ... and these persistences.
RBO_P = (Fraction(9, 10),)
#: S, L, p where the paper's RBO^a EXT and MAX differ from the expectation.
COUNTEREXAMPLE = (["a"], ["a", ("b", "c"), "d"], Fraction(1, 2))

_pos = dict(integer=True, positive=True)
_nonneg = dict(integer=True, nonnegative=True)
t, v, d = sympy.symbols("t v d", **_pos)
u, w, q = sympy.symbols("u w q", **_nonneg)


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
def prove_contribution(
    crossing: Callable[..., Any] = crossing_contribution, piecewise: Callable[..., Any] = contribution
) -> str:
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

_STATES = ("inactive", "crossing", "active")


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
def prove_agreement(kernel: Callable[..., Any] = overlap, crossing: Callable[..., Any] = crossing_contribution) -> str:
    # At depth d each ranking has at most one crossed group (the one holding rank d): t_S <= d < b_S, t_L <= d < b_L.
    u_S, v_S, u_L, v_L = sympy.symbols("u_S v_S u_L v_L", integer=True, nonnegative=True)
    t_S, b_S = d - u_S, d + 1 + v_S
    t_L, b_L = d - u_L, d + 1 + v_L
    # Chances from the lemma (derived, not fast's kernel), per state of the item in each ranking.
    chance = {
        "S": {"inactive": 0, "active": 1, "crossing": sympy.combsimp(p_at_or_above(t_S, b_S, d, d))},
        "L": {"inactive": 0, "active": 1, "crossing": sympy.combsimp(p_at_or_above(t_L, b_L, d, d))},
    }
    counts = {(a, b): Symbol(f"n_{a[0]}{b[0]}", **_nonneg) for a in _STATES for b in _STATES}
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


# -- bare RBO and its average over tie-breakings --------------------------------------


def bare_rbo(S: Sequence[Any], L: Sequence[Any], p: Fraction) -> dict[str, tuple[Fraction, Fraction]]:
    """Bare (tie-free) RBO MIN, MAX, EXT of orderings S, L (len(S) <= len(L)) as (rational, coefficient of ln(1/(1-p))).

    >>> bare_rbo(["a"], ["a", "b"], Fraction(9, 10))["ext"]
    (Fraction(1, 1), Fraction(0, 1))
    """
    return _bare(_overlaps(S, L), len(S), p)


def _overlaps(S: Sequence[Any], L: Sequence[Any]) -> tuple[int, ...]:
    # X_d = |S_:d ∩ L_:d| for d = 0..l; past s, S is all seen.
    return tuple(len(set(S[:dd]) & set(L[:dd])) for dd in range(0, len(L) + 1))


@cache
def _bare(X: tuple[int, ...], s: int, p: Fraction) -> dict[str, tuple[Fraction, Fraction]]:
    # The paper's three sections without ties (Corsi & Urbano Eqs. 12-24; Webber et al. Eqs. 11, 30, 32).
    l = len(X) - 1
    a_s = Fraction(X[s], s)
    low = high = ext = Fraction(0)
    for dd in range(1, l + 1):
        pd = p**dd
        if dd <= s:
            low, high, ext = low + Fraction(X[dd], dd) * pd, high + Fraction(X[dd], dd) * pd, ext + Fraction(X[dd], dd) * pd
        else:  # S's dd - s unseen items: disjoint (MIN), matching (MAX), matching with chance A_s (EXT)
            low += Fraction(X[dd], dd) * pd
            high += Fraction(X[dd] + dd - s, dd) * pd
            ext += (X[dd] + (dd - s) * a_s) / dd * pd
    x_l = X[l]
    low -= x_l * sum((p**dd / dd for dd in range(1, l + 1)), Fraction(0))  # + x_l·ln(1/(1-p)), kept apart
    f = l + s - x_l
    high += sum((Fraction(2 * dd - l - s + x_l, dd) * p**dd for dd in range(l + 1, f + 1)), Fraction(0)) + p ** (f + 1) / (1 - p)
    ext += (x_l + a_s * (l - s)) / l * p ** (l + 1) / (1 - p)
    weight = (1 - p) / p
    return {"min": (low * weight, x_l * weight), "max": (high * weight, Fraction(0)), "ext": (ext * weight, Fraction(0))}


def _tie_breakings(ranking: Sequence[Any]) -> list[tuple[Any, ...]]:
    groups = [g if isinstance(g, tuple) else (g,) for g in ranking]
    return [sum(o, ()) for o in itertools.product(*(itertools.permutations(g) for g in groups))]


def expected_bare_rbo(S: Sequence[Any], L: Sequence[Any], p: Fraction) -> dict[str, tuple[Fraction, Fraction]]:
    """The exact average of bare RBO over every tie-breaking of S and L, as (rational, coefficient of ln(1/(1-p))).

    >>> expected_bare_rbo(["a"], ["a", ("b", "c"), "d"], Fraction(1, 2))["max"]
    (Fraction(1, 1), Fraction(0, 1))
    """
    S_all, L_all = _tie_breakings(S), _tie_breakings(L)
    if len(S_all[0]) > len(L_all[0]):
        S_all, L_all = L_all, S_all
    # Orderings with the same overlap profile X_1..X_l have the same bare RBO: count profiles, then average.
    profiles = Counter(_overlaps(s_o, l_o) for s_o in S_all for l_o in L_all)
    count = len(S_all) * len(L_all)
    totals = {b: [Fraction(0), Fraction(0)] for b in ("min", "max", "ext")}
    for X, times in profiles.items():
        for b, (rational, log_coefficient) in _bare(X, len(S_all[0]), p).items():
            totals[b][0] += times * rational
            totals[b][1] += times * log_coefficient
    return {b: (q0 / count, q1 / count) for b, (q0, q1) in totals.items()}


@cache
def _expected_cached(S: tuple[Any, ...], L: tuple[Any, ...], p: Fraction) -> dict[str, tuple[Fraction, Fraction]]:
    return expected_bare_rbo(S, L, p)  # derived once, shared by the theorems that compare against it


def split_log(value: Any, p: Fraction) -> tuple[Fraction, Fraction]:
    """(q0, q1) with value == q0 + q1·ln(1/(1-p)) exactly; ProofFailure for any other shape.

    >>> split_log(sympy.Rational(1, 3) + 2 * sympy.log(2), Fraction(1, 2))
    (Fraction(1, 3), Fraction(2, 1))
    """
    if isinstance(value, (int, Fraction)):
        return Fraction(value), Fraction(0)
    ln = sympy.log(1 / (1 - sympy.Rational(p.numerator, p.denominator)))
    parts = sympy.expand(sympy.sympify(value)).as_coefficients_dict()
    if set(parts) - {sympy.Integer(1), ln} or not all(c.is_Rational for c in parts.values()):
        raise ProofFailure(f"{value} is not rational + rational·{ln}")
    q0, q1 = parts.get(sympy.Integer(1), 0), parts.get(ln, 0)
    return Fraction(int(q0.p), int(q0.q)) if q0 else Fraction(0), Fraction(int(q1.p), int(q1.q)) if q1 else Fraction(0)


def small_rankings(items: Sequence[Any], longest: int) -> Iterator[list[Any]]:
    """Every tied ranking of every set of 1..longest of *items* (singletons bare, ties as tuples)."""
    for size in range(1, longest + 1):
        for chosen in itertools.combinations(items, size):
            for order in itertools.permutations(chosen):
                for cuts in itertools.product((False, True), repeat=size - 1):  # True: a tie with the next item
                    ranking, group = [], [order[0]]
                    for item, tied in zip(order[1:], cuts):
                        if tied:
                            group.append(item)
                        else:
                            ranking.append(group)
                            group = [item]
                    ranking.append(group)
                    canonical = [g[0] if len(g) == 1 else tuple(sorted(g)) for g in ranking]
                    if all(len(g) == 1 or list(g) == sorted(g) for g in ranking):  # each tie once
                        yield canonical


def _pairs() -> Iterator[tuple[list[Any], list[Any]]]:
    rankings = list(small_rankings(RBO_ITEMS, RBO_LONGEST))
    for S in rankings:
        for L in rankings:
            s, l = (sum(len(g) if isinstance(g, tuple) else 1 for g in x) for x in (S, L))
            if s <= l:
                yield S, L


def _check_bounds(bounds: Sequence[str], rbo: Callable[..., Any], what: str) -> str:
    checked = 0
    for S, L in _pairs():
        for p in RBO_P:
            want = _expected_cached(tuple(S), tuple(L), p)
            got = rbo(S, L, p)
            for b in bounds:
                if split_log(getattr(got, b), p) != want[b]:
                    raise ProofFailure(f"{what} {b.upper()} of S={S}, L={L}, p={p}: expected {want[b]} (rational, ln), fast gives {getattr(got, b)}")
                checked += 1
    return f"{checked} checks: every pair of tied rankings over {len(RBO_ITEMS)} items with s <= l <= {RBO_LONGEST}, p in {{{', '.join(map(str, RBO_P))}}}"


def _paper_a(S: Any, L: Any, p: Any) -> Any:
    return fast_rbo.rbo_bounds(S, L, p, variant="a")


@theorem(
    "RBO^a MIN",
    f"The paper's RBO^a MIN (fast.rbo) = E[bare RBO MIN] over tie-breakings of S and L (l <= {RBO_LONGEST}).",
    bounded(f"l<={RBO_LONGEST}"),
    lambda: Eq(Tex(r"\mathrm{RBO}^a_{MIN}"), Tex(r"\mathbb{E}[\mathrm{RBO}_{MIN}(\tilde S, \tilde L)]"), evaluate=False),
)
def prove_rbo_min(rbo: Callable[..., Any] = _paper_a) -> str:
    """*rbo(S, L, p)* returns the bounds (.min, .max, .ext) of the paper's RBO^a."""
    return _check_bounds(("min",), rbo, "RBO^a")


@theorem(
    "RBO expected",
    f"fast.rbo_expected = E[bare RBO] over tie-breakings, for MIN, MAX and EXT (l <= {RBO_LONGEST}).",
    bounded(f"l<={RBO_LONGEST}"),
    lambda: Eq(Tex(r"\mathrm{rbo\_expected}_{X}"), Tex(r"\mathbb{E}[\mathrm{RBO}_{X}(\tilde S, \tilde L)]"), evaluate=False),
)
def prove_rbo_expected(rbo: Callable[..., Any] = fast_rbo.rbo_expected_bounds) -> str:
    """*rbo(S, L, p)* returns the bounds (.min, .max, .ext) of the exact average over tie-breakings."""
    return _check_bounds(("min", "max", "ext"), rbo, "rbo_expected")


@theorem(
    "RBO^a EXT, MAX != E",
    "The paper's RBO^a EXT and MAX are NOT the expectation of bare RBO: counterexample S=[a], L=[a,(b c),d], p=1/2.",
    GENERAL,
    lambda: sympy.Ne(Tex(r"\mathrm{RBO}^a_{EXT}"), Tex(r"\mathbb{E}[\mathrm{RBO}_{EXT}(\tilde S, \tilde L)]"), evaluate=False),
)
def prove_rbo_ext_max_not_expectation(rbo: Callable[..., Any] = _paper_a) -> str:
    S, L, p = COUNTEREXAMPLE
    want, got = expected_bare_rbo(S, L, p), rbo(S, L, p)
    shown = []
    for b in ("ext", "max"):
        value = getattr(got, b)
        if split_log(value, p) == want[b]:
            raise ProofFailure(f"the counterexample fails: RBO^a {b.upper()} = {value} = E[bare {b.upper()}]")
        shown.append(f"{b.upper()}: paper {value}, expectation {want[b][0]}")
    return "; ".join(shown)
