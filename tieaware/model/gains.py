"""Gain and discount functions for DCG, and the exact form of a discounted sum.

Both layers compute DCG as a *formal* sum ``Σ_j c_j · D(j)``: a map from
rank j to an exact coefficient c_j, with the discount D kept abstract
(docs/conventions.md, Exactness).  DCG is linear in D, so two layers that produce the same
coefficients agree for every discount at once.  :func:`discounted_sum`
applies D only at the very end.

For the default ``"log2"`` discount, 1/log2(j+1) is rational only when j+1
is a power of two.  Otherwise the value is kept exact as ``log(2)/log(b)``,
where b is the smallest base with j+1 = b**m, so that like terms collect:
1/log2(9) is written (1/2)·log(2)/log(3).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Union

import sympy
from sympy.core.basic import _args_sortkey

from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact, rational

__all__ = [
    "BinaryGain",
    "Gain",
    "Discount",
    "gain_function",
    "discount_function",
    "float_gain_function",
    "check_gain_domain",
    "check_ideal",
    "float_discount_function",
    "discounted_sum",
    "log2_discount",
    "perfect_power",
]

Gain = Union[str, Callable[[Fraction], Any]]
Discount = Union[str, Callable[[int], Any]]

GAINS = ("linear", "exp2", "binary")


@dataclass(frozen=True)
class BinaryGain:
    """Binary gain: 1 for a label >= *rel*, else 0 (``nDCG(gain=binary)``, the gain of most
    recommender-system libraries).  ``"binary"`` is ``BinaryGain()``, rel = 1.

    >>> g = BinaryGain(Fraction(2))
    >>> g(Fraction(3)), g(Fraction(1))
    (Fraction(1, 1), Fraction(0, 1))
    """

    rel: Fraction = Fraction(1)

    def __call__(self, label: Fraction) -> Fraction:
        return Fraction(1) if label >= self.rel else Fraction(0)
DISCOUNTS = ("log2",)


def _exp2(label: Fraction) -> Fraction:
    if label.denominator != 1:
        raise bad("gain", "exp2", f"needs integer labels (2**l - 1), and a label is {label}")
    return Fraction(2 ** label.numerator - 1)


def _exactify(value: Any, argument: str) -> Exact:
    # A user's callable may hand back an int or float; keep sympy values as they are.
    if isinstance(value, sympy.Basic):
        return value
    return rational(value, argument)


def gain_function(gain: Gain) -> Callable[[Fraction], Exact]:
    """The exact gain for a label: ``"linear"`` (l), ``"exp2"`` (2**l - 1), ``"binary"`` (1 for l >= 1) or a callable.

    >>> gain_function("exp2")(Fraction(3))
    Fraction(7, 1)
    """
    if gain == "linear":
        return lambda label: label
    if gain == "exp2":
        return _exp2
    if gain == "binary":
        return BinaryGain()
    if isinstance(gain, BinaryGain):
        return gain
    if callable(gain):
        return lambda label: _exactify(gain(label), "gain")
    raise bad("gain", gain, f"must be one of {GAINS} or a callable")


def check_gain_domain(labels: Iterable[Fraction], gain: Gain, argument: str = "ranking") -> None:
    """Refuse labels the gain cannot take, wherever they sit, not only within the cutoff.

    >>> check_gain_domain([Fraction(1, 2)], "exp2")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: gain='exp2' needs integer labels (2**l - 1), but ranking has the label 1/2
    """
    if gain == "exp2":
        for x in labels:
            if x.denominator != 1:
                raise TieawareError(f"gain='exp2' needs integer labels (2**l - 1), but {argument} has the label {x}")


def check_ideal(ranking: Sequence[Fraction], ideal: Sequence[Fraction], given: object) -> None:
    """Refuse an nDCG *ideal* that cannot be the ideal of *ranking* (docs/conventions.md, Measures).

    The ideal lists every judged label of the query, so for every grade it
    holds at least as many labels at or above that grade as the ranking
    does (the ranking's zeros need no partner: unjudged documents are 0).
    An ideal with fewer or smaller labels would give an nDCG above 1.
    *given* is the ideal as the caller passed it, for the message.

    >>> check_ideal([Fraction(2), Fraction(1)], [Fraction(1)], [1])
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: ideal cannot be the ideal of the ranking: the ranking has 1 label >= 2 but ideal has 0; it must list every judged label of the query, got [1]
    """
    ours = sorted(ranking, reverse=True)
    best = sorted(ideal, reverse=True)
    for i, x in enumerate(ours):
        if x == 0:
            return  # the rest are zeros too
        if i >= len(best) or best[i] < x:
            m, n = sum(1 for y in ours if y >= x), sum(1 for y in best if y >= x)
            raise bad(
                "ideal",
                given,
                f"cannot be the ideal of the ranking: the ranking has {m} label{'s' if m != 1 else ''} >= {x} "
                f"but ideal has {n}; it must list every judged label of the query",
            )


def float_gain_function(gain: Gain) -> Callable[[Fraction], float]:
    """The gain as a float function, for float mode.

    >>> float_gain_function("linear")(Fraction(1, 2))
    0.5
    """
    exact = gain_function(gain)
    return lambda label: float(exact(label))


@functools.lru_cache(maxsize=1 << 16)
def perfect_power(n: int) -> tuple[int, int]:
    """(b, m) with n == b**m and b as small as possible, by exact integer roots.

    >>> perfect_power(9), perfect_power(64), perfect_power(12)
    ((3, 2), (2, 6), (12, 1))
    """
    for m in range(n.bit_length(), 1, -1):
        root, exact = sympy.integer_nthroot(n, m)
        if exact:
            return int(root), m
    return n, 1


def log2_discount(j: int) -> Exact:
    """1/log2(j+1), exactly: a Fraction when j+1 is a power of two.

    >>> log2_discount(3), log2_discount(2)
    (Fraction(1, 2), log(2)/log(3))
    """
    b, m = perfect_power(j + 1)
    if b == 2:
        return Fraction(1, m)
    return sympy.Rational(1, m) * sympy.log(2) / sympy.log(b)


def discount_function(discount: Discount) -> Callable[[int], Exact]:
    """The exact discount for a rank j >= 1: ``"log2"`` or a callable.

    >>> discount_function(lambda j: Fraction(1, j))(4)
    Fraction(1, 4)
    """
    if discount == "log2":
        return log2_discount
    if callable(discount):
        return lambda j: _exactify(discount(j), "discount")
    raise bad("discount", discount, f"must be one of {DISCOUNTS} or a callable")


def float_discount_function(discount: Discount) -> Callable[[int], float]:
    """The discount as a float function, for float mode.

    >>> float_discount_function("log2")(1)
    1.0
    """
    if discount == "log2":
        return lambda j: 1.0 / math.log2(j + 1)
    exact = discount_function(discount)
    return lambda j: float(exact(j))


def discounted_sum(coefficients: Mapping[int, Exact], discount: Discount) -> Exact:
    """Σ c_j · D(j) exactly: a Fraction when every term is rational, else sympy.

    For ``"log2"`` the irrational terms are collected per base, so the same
    coefficients always give the same expression.

    >>> discounted_sum({1: Fraction(3), 3: Fraction(1)}, "log2")
    Fraction(7, 2)
    >>> discounted_sum({2: Fraction(1), 8: Fraction(2)}, "log2")
    2*log(2)/log(3)
    """
    if discount == "log2":
        return _log2_sum(coefficients)
    d = discount_function(discount)
    rational_part = Fraction(0)
    symbolic: list[Any] = []
    for j, c in sorted(coefficients.items()):
        if c == 0:
            continue
        term = c * d(j) if not isinstance(c, Fraction) else _times(c, d(j))
        if isinstance(term, Fraction):
            rational_part += term
        else:
            symbolic.append(term)
    return _combine(rational_part, symbolic)


def _times(c: Fraction, v: Exact) -> Exact:
    return c * v if isinstance(v, Fraction) else sympy.Rational(c.numerator, c.denominator) * v


def _combine(rational_part: Fraction, symbolic: list[Any]) -> Exact:
    if not symbolic:
        return rational_part
    total = sympy.Add(sympy.Rational(rational_part.numerator, rational_part.denominator), *symbolic)
    if total.is_Rational:
        return Fraction(int(total.p), int(total.q))
    return total


def _log2_sum(coefficients: Mapping[int, Exact]) -> Exact:
    per_base: dict[int, Any] = {}
    for j, c in coefficients.items():
        if (not c) if type(c) is Fraction else c == 0:
            continue
        b, m = perfect_power(j + 1)
        share = c if m == 1 else c / m
        before = per_base.get(b)
        per_base[b] = share if before is None else before + share
    if all(type(c) is Fraction for c in per_base.values()):
        return _log2_sum_rational(per_base)
    rational_part = Fraction(0)
    symbolic = []
    for b, c in sorted(per_base.items()):
        if b == 2:
            if isinstance(c, Fraction) or isinstance(c, int):
                rational_part += c
            else:
                symbolic.append(c)
        elif c != 0:
            coeff = sympy.Rational(c.numerator, c.denominator) if isinstance(c, Fraction) else sympy.sympify(c)
            symbolic.append(coeff * sympy.log(2) / sympy.log(b))
    return _combine(rational_part, symbolic)


# Full nDCG over a long ranking has a term for almost every base up to its
# length.  Letting sympy multiply and add ~1,000 terms one by one costs tens
# of milliseconds per ranking, almost all of it spent re-deriving a canonical
# form we already know: each term is c·log(2)/log(b) with a distinct b, so no
# like terms can collect.  _log2_sum_rational builds that same canonical
# expression directly.  It is == (same args, same order) to what
# sympy.Add(...) returns; tests/test_bench.py checks this against sympy's own
# construction.


@functools.lru_cache(maxsize=1 << 16)
def _log2_unit(b: int) -> Any:
    """log(2)/log(b), == to ``sympy.log(2) / sympy.log(b)``, for b >= 3 not a perfect power.

    log's evaluation (which looks for perfect powers and special values)
    costs most of a millisecond per base and cannot change log(b) here.
    """
    inverse = sympy.Pow(sympy.log(b, evaluate=False), -1, evaluate=False)
    return sympy.Mul._from_args(tuple(sorted((inverse, _LOG2), key=_args_sortkey)), True)


_LOG2 = sympy.log(2)


def _log2_term(c: sympy.Rational, b: int) -> Any:
    """c·log(2)/log(b) in canonical form: Mul puts a Rational coefficient first."""
    unit = _log2_unit(b)
    if c is sympy.S.One:  # Rational(1) is a singleton
        return unit
    return sympy.Mul._from_args((c,) + unit.args, True)


def _log2_sum_rational(per_base: Mapping[int, Fraction]) -> Exact:
    """Σ_b c_b·log(2)/log(b) with rational c_b, built without sympy's flatten."""
    rational_part = per_base.get(2, Fraction(0))
    # Key coefficients by (p, q): Fraction hashes are recomputed on every use.
    coeffs = [(b, (c.numerator, c.denominator)) for b, c in per_base.items() if b != 2 and c]
    if not coeffs:
        return rational_part
    as_sympy = {pq: sympy.Rational(*pq) for _, pq in coeffs}
    # Add orders its terms by Basic.compare.  Our terms are all Muls of
    # (coefficient,) log(2), 1/log(b): fewer args sort first (coefficient 1),
    # then the coefficient decides by sympy's own order, then b.
    ranked = sorted(as_sympy, key=lambda pq: (pq != (1, 1), _args_sortkey(as_sympy[pq])))
    rank = {pq: i for i, pq in enumerate(ranked)}
    coeffs.sort(key=lambda b_pq: (rank[b_pq[1]], b_pq[0]))
    terms = [_log2_term(as_sympy[pq], b) for b, pq in coeffs]
    if rational_part:
        terms.insert(0, sympy.Rational(rational_part.numerator, rational_part.denominator))
    return sympy.Add._from_args(terms, True)
