"""Exact sums of rationals, square roots and one logarithm, for the reference RBO.

Every RBO value is q0 + Σ q_k·√k + q_ln·ln(1/(1−p)) with rational q's and
square-free integers k > 1.  Square roots of distinct square-free integers
are linearly independent over the rationals, and ln(1/(1−p)) is
transcendental for rational p, so the coefficients are unique: two values are
equal exactly when their coefficients are.  :class:`Surd` keeps that
canonical form; :meth:`Surd.value` turns it into a Fraction or a sympy
expression.  The fast layer has its own, separately written, counterpart.

>>> (Surd.sqrt(Fraction(8, 3)) + 1).value()
1 + 2*sqrt(6)/3
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Union

import sympy

__all__ = ["Surd", "squarefree_split"]

LN = "ln"  # the key of the ln(1/(1-p)) coefficient


def squarefree_split(n: int) -> tuple[int, int]:
    """Write the positive integer n as f²·k with k square-free; return (f, k).

    >>> squarefree_split(72)
    (6, 2)
    """
    f, k = 1, 1
    for prime, power in sympy.factorint(n).items():
        f *= prime ** (power // 2)
        k *= prime ** (power % 2)
    return f, k


class Surd:
    """An exact linear combination of 1, √k (k square-free) and ln(1/(1−p)).

    >>> Surd.sqrt(2) * Surd.sqrt(6) == Surd(2) * Surd.sqrt(3)
    True
    """

    __slots__ = ("terms",)

    def __init__(self, rational: Union[int, Fraction] = 0, terms: dict[Any, Fraction] | None = None) -> None:
        self.terms: dict[Any, Fraction] = dict(terms or {})
        if rational:
            self.terms[1] = self.terms.get(1, Fraction(0)) + Fraction(rational)

    @classmethod
    def sqrt(cls, r: Union[int, Fraction]) -> "Surd":
        """√r for a rational r >= 0, as (f/m)·√k with k square-free."""
        r = Fraction(r)
        f, k = squarefree_split(r.numerator * r.denominator)  # √(n/m) = √(n·m)/m
        return cls(terms={k: Fraction(f, r.denominator)}) if r else cls()

    @classmethod
    def log_term(cls, coefficient: Fraction) -> "Surd":
        """coefficient · ln(1/(1−p))."""
        return cls(terms={LN: Fraction(coefficient)})

    def __add__(self, other: object) -> "Surd":
        other = other if isinstance(other, Surd) else Surd(other)  # type: ignore[arg-type]
        terms = dict(self.terms)
        for key, c in other.terms.items():
            terms[key] = terms.get(key, Fraction(0)) + c
        return Surd(terms={key: c for key, c in terms.items() if c})

    __radd__ = __add__  # so that sum() of Surds may start from 0

    def __sub__(self, other: "Surd") -> "Surd":
        return self + other * -1

    def __mul__(self, other: object) -> "Surd":
        if not isinstance(other, Surd):
            c = Fraction(other)  # type: ignore[arg-type]
            return Surd(terms={key: v * c for key, v in self.terms.items() if v * c})
        result = Surd()
        for k1, c1 in self.terms.items():
            for k2, c2 in other.terms.items():
                result = result + _times(k1, c1, k2, c2)
        return result

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        other = other if isinstance(other, Surd) else Surd(other)  # type: ignore[arg-type]
        return self.terms == other.terms

    def value(self, p: Union[Fraction, None] = None) -> Any:
        """A Fraction when rational, else the canonical sympy sum (ln uses p)."""
        if LN in self.terms and p is None:
            raise ValueError("the ln(1/(1-p)) term needs p")
        if set(self.terms) <= {1}:
            return self.terms.get(1, Fraction(0))
        parts = []
        for key, c in self.terms.items():
            q = sympy.Rational(c.numerator, c.denominator)
            if key == 1:
                parts.append(q)
            elif key == LN:
                parts.append(q * sympy.log(sympy.Rational(1) / (1 - sympy.Rational(p.numerator, p.denominator))))  # type: ignore[union-attr]
            else:
                parts.append(q * sympy.sqrt(sympy.Integer(key)))
        return sympy.Add(*parts)


def _times(k1: Any, c1: Fraction, k2: Any, c2: Fraction) -> Surd:
    # The product of two basis terms; RBO never multiplies ln by anything
    # but a rational, so only 1 and square roots meet here.
    if k1 == 1 or k2 == 1:
        return Surd(terms={k2 if k1 == 1 else k1: c1 * c2})
    if LN in (k1, k2):
        raise ValueError("ln(1/(1-p)) times an irrational is outside RBO's values")
    f, k = squarefree_split(k1 * k2)
    return Surd(terms={k: c1 * c2 * f})
