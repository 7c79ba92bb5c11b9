"""How much bare RBO moves over the tie-breakings of both rankings, by enumeration.

The random variable is the one :func:`tieaware.reference.rbo` with
``variant="a"`` averages: every pair (ordering of S, ordering of L)
consistent with the ties, equally likely, and bare (tie-free) RBO of the
pair with the chosen prefix bound.  Here every pair is enumerated and its
value is :func:`tieaware.reference.rbo_bounds` of the two untied orderings;
the minimum, maximum and variance are taken over those values.

Pairs with the same overlap sequence (X_1, ..., X_l), X_d = |S_:d ∩ L_:d|,
have the same bare RBO (Webber et al.'s definition reads nothing else), so
each distinct sequence is evaluated once, on one pair that has it, and
weighted by how many pairs have it.

The values of MIN and RES carry the term X_l·(1−p)/p·ln(1/(1−p)), with X_l
the number of items the rankings share: the same in every pair.  So the
differences between pairs are rational, and the variance is computed
exactly from them, as a Fraction.

>>> rbo_worst(["a", ("b", "c")], ["a", "b", "c"], "0.5")
Fraction(7, 8)
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy

from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float
from tieaware.model.params import flag, probability
from tieaware.model.rbo_input import Groups, bound_name, rbo_pair
from tieaware.reference.orderings import get_ordering_limit, orderings
from tieaware.reference.rank_biased_overlap import rbo_bounds

__all__ = ["rbo_worst", "rbo_best", "rbo_variance"]


def rbo_worst(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The smallest bare RBO over every tie-breaking of S and L.

    >>> rbo_worst([("a", "b")], [("b", "a")], "0.5")
    Fraction(1, 2)
    """
    values, _ = _distribution(S, L, p, bound_name(bound))
    base = next(iter(values))
    low = min(values, key=lambda v: _rational(v - base))
    return _out(low, exact)


def rbo_best(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The largest bare RBO over every tie-breaking of S and L.

    >>> rbo_best([("a", "b")], [("b", "a")], "0.5")
    Fraction(1, 1)
    """
    values, _ = _distribution(S, L, p, bound_name(bound))
    base = next(iter(values))
    return _out(max(values, key=lambda v: _rational(v - base)), exact)


def rbo_variance(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The exact variance of bare RBO over the uniform tie-breaking of both rankings.

    >>> rbo_variance([("a", "b")], [("b", "a")], "0.5")   # 1/2 or 1, even odds
    Fraction(1, 16)
    """
    values, total = _distribution(S, L, p, bound_name(bound))
    base = next(iter(values))
    # Variance does not change under a shift, and v - base is rational.
    shifted = {_rational(v - base): count for v, count in values.items()}
    mean = sum(x * Fraction(n, total) for x, n in shifted.items())
    variance = sum((x - mean) ** 2 * Fraction(n, total) for x, n in shifted.items())
    return _out(Fraction(variance), exact)


def _out(value: Any, exact: Any) -> Any:
    return value if flag(exact, "exact") else to_float(value)


def _rational(value: Any) -> Fraction:
    """A difference of two bare RBO values of one pair of rankings, as a Fraction."""
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    value = sympy.expand(value)
    if not value.is_Rational:  # cannot happen: the ln term is shared
        raise AssertionError(f"difference of bare RBO values is not rational: {value}")
    return Fraction(int(value.p), int(value.q))


def _distribution(S: Any, L: Any, p: Any, bound: str) -> tuple[Counter[Any], int]:
    """{bare RBO value: number of pairs of orderings giving it}, and the number of pairs."""
    short, long = rbo_pair(S, L)
    q = probability(p)
    count = math.prod(math.factorial(len(g)) for g in short + long)
    if count > get_ordering_limit():
        raise TieawareError(
            f"RBO needs {count} pairs of orderings, over the reference's limit of {get_ordering_limit()}; "
            f"raise it with tieaware.reference.ordering_limit({count}) or use tieaware.fast"
        )
    values: Counter[Any] = Counter()
    for bounds, n in _bare_values(short, long, q):
        values[getattr(bounds, bound)] += n
    return values, count


@lru_cache(maxsize=256)
def _bare_values(S: Groups, L: Groups, p: Fraction) -> list[tuple[Any, int]]:
    """(bare RBO bounds, how many pairs give them) per distinct overlap sequence.

    Cached because worst, best and variance of one pair are usually asked together.
    """
    return [(rbo_bounds(list(S_order), list(L_order), p, variant="a"), n) for (S_order, L_order), n in _profiles(S, L).values()]


def _profiles(S: Groups, L: Groups) -> dict[tuple[int, ...], tuple[tuple[Any, Any], int]]:
    """{overlap sequence: (one pair of orderings with it, how many pairs have it)}."""
    l = sum(map(len, L))
    found: dict[tuple[int, ...], tuple[tuple[Any, Any], int]] = {}
    L_orders = list(orderings(L))
    for S_order in orderings(S):
        for L_order in L_orders:
            key = tuple(len(set(S_order[:d]) & set(L_order[:d])) for d in range(1, l + 1))
            pair, n = found.get(key, ((S_order, L_order), 0))
            found[key] = (pair, n + 1)
    return found
