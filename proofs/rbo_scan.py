"""RBO on concrete tied rankings, exactly: what the definitions and fast's scan give, depth by depth.

The machinery of the theorem "RBO scan" (:mod:`tieaware.proofs.rbo`):
every pair of small tied rankings up to renaming, the coefficients A_d of
each bound's series from the paper's definitions (averaging overlaps over
every ordering, square roots kept exact as :data:`Surd`), the same
coefficients read off fast's pieces, and the series summed by sympy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import sympy
from sympy import Sum, Symbol

from tieaware.fast import rank_biased_overlap as fast_rbo
from tieaware.fast.rbo_kernels import Span, Tail
from tieaware.proofs.theorem import ProofFailure, is_zero

__all__ = [
    "small_rankings",
    "canonical_pairs",
    "defined_coefficients",
    "fast_coefficient",
    "series_value",
    "infinite_sums",
    "converged",
    "check_pair",
    "surd",
    "surd_sum",
    "Surd",
    "BOUNDS",
    "SCAN_P",
    "p",
    "d",
    "m",
]

#: The value check of the scan (fast's exact evaluation against the series) uses this p.
SCAN_P = Fraction(1, 2)
#: The four bounds of every RBO variant.
BOUNDS = ("min", "max", "ext", "res")
#: The symbols the RBO proofs share: p, a depth d, and a first depth m.
p = Symbol("p", positive=True)
d = Symbol("d", integer=True, positive=True)
m = Symbol("m", integer=True, positive=True)


def converged(total: Any) -> Any:
    """The branch of sympy's Piecewise sum that holds for 0 < p < 1 (ProofFailure if none)."""
    # sympy returns Piecewise((closed form, p < 1 or (p <= 1) & (p != 1)), (Sum, True)): take the branch for 0 < p < 1.
    total = sympy.piecewise_fold(total)
    if isinstance(total, sympy.Piecewise):
        for value, condition in total.args:
            if condition.subs(p, sympy.Rational(1, 2)) is sympy.true and not value.has(Sum):
                holds = condition.subs(p, 1 - Symbol("e", positive=True) / (1 + Symbol("e", positive=True)))
                if sympy.simplify(holds) is sympy.true:
                    return value
        raise ProofFailure(f"sympy's sum has no branch for 0 < p < 1: {total}")
    return total


def small_rankings(items: Sequence[Any], longest: int) -> Iterator[list[Any]]:
    """Every tied ranking of every set of 1..longest of *items* (singletons bare, ties as sorted tuples)."""
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
                    if all(list(g) == sorted(g) for g in ranking):  # each tie once
                        yield [g[0] if len(g) == 1 else tuple(g) for g in ranking]


def _length(ranking: Sequence[Any]) -> int:
    return sum(len(g) if isinstance(g, tuple) else 1 for g in ranking)


def canonical_pairs(longest: int) -> list[tuple[list[Any], list[Any]]]:
    """Every pair S, L (s <= l <= longest) of tied rankings, once up to renaming items.

    S's items are a, b, c, ... in rank order; L holds some of them and items x, y, z, ...
    that S lacks, which are interchangeable, so only their number per group matters.
    """
    pairs, seen = [], set()
    for s in range(1, longest + 1):
        shared = [chr(ord("a") + i) for i in range(s)]
        for S in small_rankings(shared, s):
            if [x for g in S for x in (g if isinstance(g, tuple) else (g,))] != shared:
                continue
            for L in small_rankings(shared + [f"x{i}" for i in range(longest)], longest):
                if _length(L) < s:
                    continue
                key = (tuple(map(str, S)), tuple(
                    (tuple(x for x in (g if isinstance(g, tuple) else (g,)) if not x.startswith("x")),
                     sum(1 for x in (g if isinstance(g, tuple) else (g,)) if x.startswith("x")))
                    for g in L
                ))  # fmt: skip
                if key not in seen:
                    seen.add(key)
                    pairs.append((S, L))
    return pairs


def _groups(ranking: Sequence[Any]) -> list[tuple[Any, ...]]:
    return [g if isinstance(g, tuple) else (g,) for g in ranking]


def _places(ranking: Sequence[Any]) -> dict[Any, tuple[int, int]]:
    """item -> (t, b), the ranks its group spans."""
    out, top = {}, 1
    for g in _groups(ranking):
        for e in g:
            out[e] = (top, top + len(g) - 1)
        top += len(g)
    return out


def _share(t_: int, b_: int, d_: int) -> Fraction:
    # The definition: the share of the group's ranks t..b that lie at or above d.
    return Fraction(len([r for r in range(t_, b_ + 1) if r <= d_]), b_ - t_ + 1)


def _orderings(ranking: Sequence[Any]) -> list[tuple[Any, ...]]:
    return [sum(o, ()) for o in itertools.product(*(itertools.permutations(g) for g in _groups(ranking)))]


@cache
def _mean_overlaps(S: tuple[Any, ...], L: tuple[Any, ...]) -> tuple[Fraction, ...]:
    """E[X_d] for d = 0..l, averaged over every tie-breaking of S and L (no lemma used)."""
    S_all, L_all = _orderings(S), _orderings(L)
    l = len(L_all[0])
    totals = [0] * (l + 1)
    for so in S_all:
        for lo in L_all:
            for dd in range(1, l + 1):
                totals[dd] += len(set(so[:dd]) & set(lo[:dd]))
    return tuple(Fraction(x, len(S_all) * len(L_all)) for x in totals)


# Exact numbers with square roots, Σ_k q_k·√k (k square-free), as {k: q_k}: RBO^b's values, without sympy.
Surd = dict[int, Fraction]


def _square_free(n: int) -> tuple[int, int]:
    """(s, k) with n = s²·k and k square-free, by trial division (the numbers here are small)."""
    s, k, f = 1, 1, 2
    while f * f <= n:
        while n % (f * f) == 0:
            n //= f * f
            s *= f
        if n % f == 0:
            n //= f
            k *= f
        f += 1
    return s, k * n


def surd(q: Any, radicand: Fraction = Fraction(1)) -> Surd:
    """q/√radicand as a Surd: √(1/R) = √(R.num·R.den)/R.num."""
    if not q:
        return {}
    if radicand == 1:
        return {1: Fraction(q)}
    q, radicand = Fraction(q), Fraction(radicand)
    s, k = _square_free(radicand.numerator * radicand.denominator)
    return {k: q * s / radicand.numerator}


def surd_sum(*values: Surd) -> Surd:
    out: Surd = {}
    for value in values:
        for k, c in value.items():
            out[k] = out.get(k, Fraction(0)) + c
    return {k: c for k, c in out.items() if c}


def _times(value: Surd, other: Surd) -> Surd:
    out: list[Surd] = []
    for k1, c1 in value.items():
        for k2, c2 in other.items():
            s, k = _square_free(k1 * k2)
            out.append({k: c1 * c2 * s})
    return surd_sum(*out)


def _over_root(value: Surd, radicand: Fraction) -> Surd:
    return _times(value, surd(1, radicand))


def defined_coefficients(S: Sequence[Any], L: Sequence[Any], variant: str) -> dict[str, list[Surd]]:
    """The coefficient of p^d, d = 1..f+2, of each bound, from the definitions (variant "e": E[bare RBO]).

    Per-item contributions are counted from each group's ranks, U_d is listed
    and sorted, and the expectation averages overlaps over every
    tie-breaking; nothing of fast is used.  Values are {k: q_k} for Σ q_k·√k.

    >>> defined_coefficients(["a"], ["a", ("x", "y")], "a")["max"][:2]
    [{1: Fraction(1, 1)}, {1: Fraction(3, 4)}]
    """
    s, l = _length(S), _length(L)
    in_S, in_L = _places(S), _places(L)
    shared = set(in_S) & set(in_L)
    x_l = len(shared)
    f = l + s - x_l
    means = _mean_overlaps(tuple(S), tuple(L)) if variant == "e" else ()
    out: dict[str, list[Surd]] = {b: [] for b in BOUNDS}

    def c(place: tuple[int, int], dd: int) -> Fraction:
        t_, b_ = place
        return Fraction(1 if t_ <= dd else 0) if variant == "w" else _share(t_, b_, dd)

    a_s: Surd = {}
    for dd in range(1, f + 3):
        if dd > l:  # §4.2, the same for every variant: see _past_derived
            most = x_l + (l - s) + 2 * min(dd - l, s - x_l) + max(0, dd - l - (s - x_l))
            values = {
                "min": surd(Fraction(x_l, dd)),
                "max": surd(Fraction(min(dd, most), dd)),
                "ext": surd_sum(surd(Fraction(x_l, l)), _times(a_s, surd(Fraction(l - s, l)))),
            }
        elif variant == "e":  # bare RBO's term averaged: X_d/d, and S's unseen items matched at 1 or at X_s/s
            x_d = means[dd]
            if dd <= s:
                values = {b: surd(x_d / dd) for b in ("min", "max", "ext")}
                a_s = values["min"] if dd == s else a_s
            else:
                values = {"min": surd(x_d / dd), "max": surd((x_d + dd - s) / dd), "ext": surd((x_d + (dd - s) * means[s] / s) / dd)}
        else:
            cS = {e: c(in_S[e], dd) if dd <= s else Fraction(1) for e in in_S}
            cL = {e: c(in_L[e], dd) for e in in_L}
            x = sum((cS[e] * cL[e] for e in shared), Fraction(0))
            squares_L = sum((y * y for y in cL.values()), Fraction(0))
            if dd <= s:
                if variant == "w":  # Eq. 4
                    agreement = surd(2 * x / (sum(cS.values()) + sum(cL.values())))
                elif variant == "a":  # Eq. 9
                    agreement = surd(x / dd)
                else:  # Eq. 11
                    agreement = surd(x, sum((y * y for y in cS.values()), Fraction(0)) * squares_L)
                values = {b: agreement for b in ("min", "max", "ext")}
                a_s = agreement if dd == s else a_s
            else:  # Eqs. 14-21
                k = dd - s
                U = sorted((cL[e] for e in in_L if e not in in_S and cL[e] > 0), reverse=True)
                if len(U) < k:
                    raise ProofFailure(f"S={S}, L={L}, d={dd}: U_d has {len(U)} < k = {k} items")
                X = {
                    "min": surd(x),
                    "max": surd(x + sum(U[:k], Fraction(0))),
                    "ext": surd_sum(surd(x), _times(a_s, surd(k * sum(U, Fraction(0)) / len(U)))),
                }
                if variant == "w":  # Eq. 15
                    values = {b: _times(X[b], surd(Fraction(2) / (dd + sum(cL.values())))) for b in X}
                elif variant == "a":  # Eq. 16
                    values = {b: _times(X[b], surd(Fraction(1, dd))) for b in X}
                else:  # Eq. 17
                    values = {b: _over_root(X[b], dd * squares_L) for b in X}
        values["res"] = surd_sum(values["max"], {k_: -q_ for k_, q_ in values["min"].items()})
        for b in BOUNDS:
            out[b].append(values[b])
    return out


def fast_coefficient(terms: Any, bound: str, dd: int) -> Surd:
    """The coefficient of p^d in fast's series (its _terms), at a concrete depth."""
    rational, parts = Fraction(0), []
    if dd <= terms.l:
        for coefficient, radicands in getattr(terms.depths[dd - 1][1], bound):
            if radicands:
                parts.append(surd(coefficient, math.prod(map(Fraction, radicands), start=Fraction(1))))
            else:
                rational += coefficient
    for piece in terms.tails[bound]:
        if isinstance(piece, Span) and piece.lo <= dd <= piece.hi:
            rational += piece.term(dd)
        elif isinstance(piece, Tail) and dd >= piece.start:
            if piece.radicands:
                parts.append(surd(piece.a + Fraction(piece.b, dd), math.prod(map(Fraction, piece.radicands), start=Fraction(1))))
            else:
                rational += piece.a + Fraction(piece.b, dd)
    return surd_sum(surd(rational), *parts) if parts else surd(rational)


def _sym(value: Surd) -> Any:
    return sum((sympy.Rational(q.numerator, q.denominator) * sympy.sqrt(k) for k, q in value.items()), sympy.Integer(0))


def series_value(coefficients: list[Surd], start: int, p_: Fraction) -> Any:
    """(1-p)/p · Σ_d A_d p^d from the definitions' coefficients, the tail past start summed by sympy."""
    pp = sympy.Rational(p_.numerator, p_.denominator)
    head = sum((_sym(coefficients[i]) * pp ** (i + 1) for i in range(start - 1)), sympy.Integer(0))
    # Past f every bound's coefficient is a + b/d: read a and b off depths start and start + 1.
    v1, v2 = _sym(coefficients[start - 1]), _sym(coefficients[start])
    b = sympy.expand((v1 - v2) * start * (start + 1))
    a = sympy.expand(v1 - b / start)
    geometric, logarithmic = infinite_sums()
    rest = a * geometric.subs({p: pp, m: start}) + b * (logarithmic.subs(p, pp) - sum((pp**i / i for i in range(1, start)), sympy.Integer(0)))
    return (1 - pp) / pp * (head + rest)


@cache
def infinite_sums() -> tuple[Any, Any]:
    """Σ_{d>=m} p^d and Σ_{d>=1} p^d/d for 0 < p < 1, summed by sympy."""
    return converged(Sum(p**d, (d, m, sympy.oo)).doit()), converged(Sum(p**d / d, (d, 1, sympy.oo)).doit())


def check_pair(S: Sequence[Any], L: Sequence[Any], terms_of: Callable[..., Any], value_check: bool) -> int:
    """fast's coefficients of S and L (through *terms_of*) against the definitions', every variant and bound: the count checked."""
    if _length(S) > _length(L):
        S, L = L, S
    f = _length(L) + _length(S) - len(set(_places(S)) & set(_places(L)))
    checked = 0
    for variant in ("w", "a", "b", "e"):
        want = defined_coefficients(S, L, variant)
        terms = terms_of(tuple(_groups(S)), tuple(_groups(L)), "a" if variant == "e" else variant, variant == "e")
        for bound in BOUNDS:
            for dd in range(1, f + 3):
                got = fast_coefficient(terms, bound, dd)
                if got != want[bound][dd - 1]:
                    raise ProofFailure(f"{variant}-{bound.upper()} of S={S}, L={L} at depth {dd}: fast {got}, definition {want[bound][dd - 1]} (Σ q·√k as {{k: q}})")
            # Past f + 1 both are a + b/d: fast's pieces there are Tails only.
            if any(isinstance(x, Span) and x.hi > f for x in terms.tails[bound]):
                raise ProofFailure(f"{variant}-{bound.upper()} of S={S}, L={L}: a finite span past f = {f}")
            checked += 1
        if value_check:  # fast's whole evaluation at one p, against the definitions' series summed by sympy
            values = fast_rbo.rbo_expected_bounds(S, L, SCAN_P) if variant == "e" else fast_rbo.rbo_bounds(S, L, SCAN_P, variant=variant)
            for bound in BOUNDS:
                series = series_value(want[bound], f + 1, SCAN_P)
                value = getattr(values, bound)
                value = sympy.Rational(value.numerator, value.denominator) if isinstance(value, Fraction) else value
                if not is_zero(value - series):
                    raise ProofFailure(f"{variant}-{bound.upper()} of S={S}, L={L}, p = {SCAN_P}: fast {value}, the series {series}")
    return checked
