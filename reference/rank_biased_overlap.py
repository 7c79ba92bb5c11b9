"""Rank-Biased Overlap with ties, by definition (Corsi & Urbano, SIGIR 2024).

Slow on purpose and small enough to check by eye (docs/rbo.md, What each variant and bound means):

- **w**: the sports-ranking sets S_:d and L_:d (every item of a group sits at
  the group's top rank), taken at each depth; no permutations.
- **a**: the exact average, over every tie-breaking of S and of L, of the bare
  (tie-free) RBO bound of the two resulting orderings.  For MAX and EXT this
  is *not* always the paper's RBO^a formula; see docs/rbo.md.
- **b**: the paper's formula, with each item's contribution at depth d
  counted from the enumerated orderings of its group.

Prefix evaluation follows the paper's three sections: depths 1..s (both
rankings seen), s+1..l (only L seen) and l+1..∞ (neither seen), where s <= l
are the lengths of the shorter ranking S and the longer L.

The enumeration refuses more orderings than
:func:`tieaware.reference.orderings.get_ordering_limit`; raise the limit with
``with ordering_limit(n): ...`` (from here or :mod:`tieaware.reference.orderings`).

>>> rbo(["a", "b"], ["b", "a"], "0.5", variant="a", bound="ext")
Fraction(1, 2)
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import permutations
from typing import Any

from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float
from tieaware.model.params import flag, probability
from tieaware.model.rbo_input import Groups, RBOBounds, bound_name, rbo_pair, variant_name
from tieaware.reference.orderings import get_ordering_limit, ordering_limit, orderings
from tieaware.reference.rbo_exact import Surd

# ordering_limit is re-exported so that `tieaware.reference.rank_biased_overlap.ordering_limit(n)`
# works too; it is the one limit every reference measure shares.
__all__ = ["rbo", "rbo_bounds", "RBOBounds", "ordering_limit"]


def rbo(S: Any, L: Any, p: Any, *, variant: str = "a", bound: str = "ext", exact: bool = True) -> Any:
    """RBO of two rankings with ties, by enumeration.

    *S* and *L* may come in either order; the shorter one plays the paper's S.
    Returns a Fraction when the value is rational, else an exact sympy value
    (ln(1/(1-p)) in MIN and RES, square roots in variant b); with
    ``exact=False``, the float nearest to that exact value.

    >>> rbo(["a", ("b", "c")], ["a", "b", "c"], "0.5", variant="a", bound="ext")
    Fraction(15, 16)
    >>> rbo(["a"], ["a", "b"], "0.5", bound="min")
    log(2)

    Beware: p as a float goes through its repr, so 0.9 means exactly 9/10.
    """
    name = bound_name(bound)  # checked first: a bad bound should not cost a computation
    return getattr(rbo_bounds(S, L, p, variant=variant, exact=exact), name)


def rbo_bounds(S: Any, L: Any, p: Any, *, variant: str = "a", exact: bool = True) -> RBOBounds:
    """MIN, MAX, EXT and RES of one variant from a single enumeration.

    >>> rbo_bounds(["a", "b"], ["a", "c"], "0.5", variant="w").ext
    Fraction(3, 4)
    """
    short, long = rbo_pair(S, L)
    q = probability(p)
    variant = variant_name(variant)
    exact = flag(exact, "exact")
    compute = {"w": _sports, "a": _average, "b": _counted}[variant]
    low, high, ext = (_surd(v) for v in compute(short, long, q))
    # Eq. (22)'s ln(1/(1-p)) term, the only transcendental part, added last.
    x_l = len({e for g in short for e in g} & {e for g in long for e in g})
    low = low + Surd.log_term(x_l * (1 - q) / q)
    values = [v.value(q) for v in (low, high, ext, high - low)]
    return RBOBounds(*(values if exact else [to_float(v) for v in values]))


# --- shared by all variants: the three sections of the paper's Eq. (12) ----


def _finish(agreements: dict[str, list[Any]], s: int, l: int, x_l: int, a_s: Any, p: Fraction) -> list[Any]:
    """(1-p)/p · (Σ_{d<=l} A_d p^d + third section), for min, max and ext.

    MIN leaves out its X_l·ln(1/(1-p)) term, which :func:`rbo_bounds` adds,
    so that variants w and a stay in plain Fractions until then.

    The third section (depths > l) is the same for every variant: all seen
    items are active there.  MIN: no new overlap (Eq. 22); MAX: every unseen
    item matches, +2 per depth until depth f = l + s - X_l (Eq. 23); EXT: the
    agreement at l, with S's unseen items matching at rate A_s (Eq. 24).
    """
    seen = {bound: sum(a * p**d for d, a in enumerate(values, 1)) for bound, values in agreements.items()}
    harmonic = sum(p**d / d for d in range(1, l + 1))
    low = seen["min"] - x_l * harmonic
    f = l + s - x_l
    high = seen["max"] + sum(Fraction(2 * d - l - s + x_l, d) * p**d for d in range(l + 1, f + 1)) + p ** (f + 1) / (1 - p)
    ext = seen["ext"] + (a_s * (l - s) + x_l) * (p ** (l + 1) / (1 - p) / l)
    return [bound * ((1 - p) / p) for bound in (low, high, ext)]


def _surd(value: Any) -> Surd:
    return value if isinstance(value, Surd) else Surd(value)


def _length(groups: Groups) -> int:
    return sum(len(g) for g in groups)


def _guard(count: int, what: str) -> None:
    if count > get_ordering_limit():
        raise TieawareError(
            f"RBO needs {count} {what}, over the reference's limit of {get_ordering_limit()}; "
            f"raise it with tieaware.reference.ordering_limit({count}) or use tieaware.fast"
        )


# --- variant w: sports-ranking sets ----------------------------------------


def _sports(S: Groups, L: Groups, p: Fraction) -> list[Fraction]:
    s, l = _length(S), _length(L)
    top_S, top_L = _top_ranks(S), _top_ranks(L)
    S_all = set(top_S)
    agreements: dict[str, list[Any]] = {"min": [], "max": [], "ext": []}
    a_s = Fraction(0)
    for d in range(1, l + 1):
        S_d = {e for e, t in top_S.items() if t <= d}  # every item tied at or above d
        L_d = {e for e, t in top_L.items() if t <= d}
        x = len(S_d & L_d)
        if d <= s:
            a_s = Fraction(2 * x, len(S_d) + len(L_d))  # Eq. (4)
            for values in agreements.values():
                values.append(a_s)
            continue
        # Past s, S's d - s unseen items are untied, so |S_:d| = d (Eq. 15).
        unseen = {"min": 0, "max": min(d - s, len(L_d - S_all)), "ext": (d - s) * a_s}
        for bound, values in agreements.items():
            values.append(Fraction(2) * (x + unseen[bound]) / (d + len(L_d)))
    return _finish(agreements, s, l, len(S_all & set(top_L)), a_s, p)


def _top_ranks(groups: Groups) -> dict[Any, int]:
    ranks, top = {}, 1
    for group in groups:
        for e in group:
            ranks[e] = top
        top += len(group)
    return ranks


# --- variant a: average over every tie-breaking of bare RBO ----------------


def _average(S: Groups, L: Groups, p: Fraction) -> list[Fraction]:
    s, l = _length(S), _length(L)
    _guard(math.prod(math.factorial(len(g)) for g in S + L), "pairs of orderings")  # before the cache
    profiles = _overlap_profiles(S, L)
    total = sum(profiles.values())
    result = [Fraction(0)] * 3
    for overlaps, count in profiles.items():
        for i, value in enumerate(_bare(overlaps, s, l, p)):
            result[i] += value * Fraction(count, total)
    return result


@lru_cache(maxsize=1024)
def _overlap_profiles(S: Groups, L: Groups) -> Counter[tuple[int, ...]]:
    """How many tie-breaking pairs give each overlap sequence (X_1, ..., X_l).

    Bare RBO depends on the orderings only through this sequence, so
    counting equal sequences instead of re-evaluating each is exact.
    """
    l = _length(L)
    L_orders = list(orderings(L))
    profiles: Counter[tuple[int, ...]] = Counter()
    for s_order in orderings(S):
        for l_order in L_orders:
            profiles[tuple(len(set(s_order[:d]) & set(l_order[:d])) for d in range(1, l + 1))] += 1
    return profiles


def _bare(overlaps: tuple[int, ...], s: int, l: int, p: Fraction) -> list[Fraction]:
    """Bare RBO bounds (Webber et al. 2010) of two untied orderings.

    overlaps[d-1] = |S_:d ∩ L_:d|, where S_:d is all of S once d > s.
    """
    a_s = Fraction(overlaps[s - 1], s)
    agreements: dict[str, list[Any]] = {"min": [], "max": [], "ext": []}
    for d, x in enumerate(overlaps, 1):
        unseen = max(0, d - s)  # S's unseen items at depths s+1..d
        agreements["min"].append(Fraction(x, d))
        agreements["max"].append(Fraction(x + unseen, d))  # each matches an L item
        agreements["ext"].append((x + unseen * a_s) / d)  # each matches at rate A_s
    return _finish(agreements, s, l, overlaps[-1], a_s, p)


# --- variant b: contributions counted from group orderings -----------------


def _counted(S: Groups, L: Groups, p: Fraction) -> list[Surd]:
    _guard(sum(math.factorial(len(g)) for g in S + L), "group orderings per depth")
    s, l = _length(S), _length(L)
    S_all = {e for g in S for e in g}
    agreements: dict[str, list[Any]] = {"min": [], "max": [], "ext": []}
    a_s: Any = Surd()
    for d in range(1, l + 1):
        c_S, c_L = _contributions(S, d), _contributions(L, d)
        x = sum(c * c_L.get(e, 0) for e, c in c_S.items())
        squares_L = sum(c * c for c in c_L.values())
        if d <= s:
            squares_S = sum(c * c for c in c_S.values())
            a_s = x * Surd.sqrt(1 / (squares_S * squares_L))  # Eq. (11)
            for values in agreements.values():
                values.append(a_s)
            continue
        # U_d: L's items missing from S that may be active, best first (Eq. 19).
        U = sorted((c for e, c in c_L.items() if c > 0 and e not in S_all), reverse=True)
        unseen = {"min": Surd(), "max": Surd(sum(U[: d - s])), "ext": a_s * ((d - s) * sum(U) / len(U))}
        for bound, values in agreements.items():
            values.append((unseen[bound] + x) * Surd.sqrt(Fraction(1, d) / squares_L))  # Eq. (17)
    return _finish(agreements, s, l, len(S_all & {e for g in L for e in g}), a_s, p)


def _contributions(groups: Groups, d: int) -> dict[Any, Fraction]:
    """c_{e|d}: the share of its group's orderings that put e at rank <= d."""
    result, top = {}, 1
    for group in groups:
        orders = _group_orderings(group)
        for e in group:
            at_or_above = sum(1 for order in orders if top + order.index(e) <= d)
            result[e] = Fraction(at_or_above, len(orders))
        top += len(group)
    return result


@lru_cache(maxsize=1024)
def _group_orderings(group: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return list(permutations(group))
