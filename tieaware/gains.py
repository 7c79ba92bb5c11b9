"""Gain and discount functions for DCG, and the exact form of a discounted sum.

Both layers compute DCG as a *formal* sum ``Σ_j c_j · D(j)``: a map from
rank j to an exact coefficient c_j, with the discount D kept abstract
(SPEC §4).  DCG is linear in D, so two layers that produce the same
coefficients agree for every discount at once.  :func:`discounted_sum`
applies D only at the very end.

For the default ``"log2"`` discount, 1/log2(j+1) is rational only when j+1
is a power of two.  Otherwise the value is kept exact as ``log(2)/log(b)``,
where b is the smallest base with j+1 = b**m, so that like terms collect:
1/log2(9) is written (1/2)·log(2)/log(3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Union

import sympy

from tieaware.errors import bad
from tieaware.exact import Exact, rational

__all__ = [
    "Gain",
    "Discount",
    "gain_function",
    "discount_function",
    "float_gain_function",
    "float_discount_function",
    "discounted_sum",
    "log2_discount",
]

Gain = Union[str, Callable[[Fraction], Any]]
Discount = Union[str, Callable[[int], Any]]

GAINS = ("linear", "exp2")
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
    """The exact gain for a label: ``"linear"`` (l), ``"exp2"`` (2**l - 1) or a callable.

    >>> gain_function("exp2")(Fraction(3))
    Fraction(7, 1)
    """
    if gain == "linear":
        return lambda label: label
    if gain == "exp2":
        return _exp2
    if callable(gain):
        return lambda label: _exactify(gain(label), "gain")
    raise bad("gain", gain, f"must be one of {GAINS} or a callable")


def float_gain_function(gain: Gain) -> Callable[[Fraction], float]:
    """The gain as a float function, for float mode.

    >>> float_gain_function("linear")(Fraction(1, 2))
    0.5
    """
    exact = gain_function(gain)
    return lambda label: float(exact(label))


def _perfect_power(n: int) -> tuple[int, int]:
    """(b, m) with n == b**m and b as small as possible."""
    for m in range(n.bit_length(), 1, -1):
        b = round(n ** (1.0 / m))
        for cand in (b - 1, b, b + 1):
            if cand > 1 and cand**m == n:
                return cand, m
    return n, 1


def log2_discount(j: int) -> Exact:
    """1/log2(j+1), exactly: a Fraction when j+1 is a power of two.

    >>> log2_discount(3), log2_discount(2)
    (Fraction(1, 2), log(2)/log(3))
    """
    b, m = _perfect_power(j + 1)
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
        if c == 0:
            continue
        b, m = _perfect_power(j + 1)
        per_base[b] = per_base.get(b, 0) + c / m
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
