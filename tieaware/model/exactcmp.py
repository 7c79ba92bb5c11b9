"""Exact equality and rigorous order for the irrational values DCG and nDCG produce.

With the log2 discount, DCG is a rational plus Σ c_b·log(2)/log(b), and nDCG
is a ratio of two such sums (see :mod:`tieaware.model.gains`).  This module turns
such a value into a :class:`Form`: a quotient of two *Laurent polynomials*
with Fraction coefficients in the indeterminates log(b), for integers b >= 2
that are not perfect powers (log(b**m) is rewritten m·log(b)).

- **Equality** is decided structurally: if N1·D2 - N2·D1 is the zero
  polynomial, the values are equal.  That is sound, but not complete: the
  log(b) are not algebraically independent (log 6 = log 2 + log 3), and
  whether, say, 1, 1/log2(3) and 1/log2(5) are linearly independent over Q
  is not something we rely on.  So a non-zero difference proves nothing
  by itself.
- **Order** (and inequality) is decided by rigorous interval arithmetic
  (mpmath's ``iv``) on N1·D2 - N2·D1, at 64, 128, ... bits up to a cap.  An
  interval that excludes 0 proves the sign.
- What neither decides is reported as :class:`Undecided`, never guessed.

>>> import sympy
>>> from fractions import Fraction
>>> third = sympy.log(2) / sympy.log(3)
>>> compare(third, Fraction(5, 8))        # 0.6309... > 0.625
1
>>> compare(sympy.log(2) / sympy.log(9), third / 2)     # log(9) = 2 log(3): structurally equal
0
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Union

import mpmath
import sympy

from tieaware.model.errors import TieawareError, bad
from tieaware.model.gains import perfect_power

__all__ = ["Form", "Undecided", "to_form", "compare", "interval", "dense_ranks", "MAX_PREC", "iv_prec", "log_interval"]

#: Monomial: sorted ((base, exponent), ...) with exponents != 0; () is the constant 1.
Monomial = tuple[tuple[int, int], ...]
Poly = dict[Monomial, Fraction]

#: The highest working precision, in bits, before a comparison is declared undecided.
MAX_PREC = 4096


class Undecided(ArithmeticError):
    """Interval arithmetic up to :data:`MAX_PREC` bits could not separate two structurally different values."""

    def __init__(self, a: Any, b: Any, prec: int) -> None:
        super().__init__(f"cannot decide the order of {a} and {b}: intervals still overlap at {prec} bits")
        self.a, self.b, self.prec = a, b, prec


# -- Laurent polynomials -------------------------------------------------------------


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    powers = dict(a)
    for base, e in b:
        powers[base] = powers.get(base, 0) + e
    return tuple(sorted((base, e) for base, e in powers.items() if e))


def _add(p: Poly, q: Poly, sign: int = 1) -> Poly:
    out = dict(p)
    for m, c in q.items():
        v = out.get(m, Fraction(0)) + sign * c
        if v:
            out[m] = v
        else:
            out.pop(m, None)
    return out


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = _mono_mul(m1, m2)
            v = out.get(m, Fraction(0)) + c1 * c2
            if v:
                out[m] = v
            else:
                out.pop(m)
    return out


def _const(c: Fraction) -> Poly:
    return {(): Fraction(c)} if c else {}


@dataclass(frozen=True)
class Form:
    """num/den, two Laurent polynomials in log(b); den is never the zero polynomial."""

    num: tuple[tuple[Monomial, Fraction], ...]
    den: tuple[tuple[Monomial, Fraction], ...]

    @staticmethod
    def of(num: Poly, den: Poly) -> "Form":
        if not den:
            raise ZeroDivisionError("Form with a zero denominator")
        # A single-monomial denominator divides out, keeping DCG-like values polynomial.
        if len(den) == 1:
            (m, c), = den.items()
            inverse = tuple((base, -e) for base, e in m)
            num, den = _mul(num, {inverse: 1 / c}), {(): Fraction(1)}
        return Form(tuple(sorted(num.items())), tuple(sorted(den.items())))

    @property
    def n(self) -> Poly:
        return dict(self.num)

    @property
    def d(self) -> Poly:
        return dict(self.den)


def _from_sympy(expr: Any) -> tuple[Poly, Poly]:
    if expr.is_Rational:
        return _const(Fraction(int(expr.p), int(expr.q))), _const(Fraction(1))
    if isinstance(expr, sympy.log):
        (arg,) = expr.args
        if not (arg.is_Integer and arg >= 2):
            raise TieawareError(f"value {expr} is not a log of an integer >= 2")
        base, power = perfect_power(int(arg))
        return {((base, 1),): Fraction(power)}, _const(Fraction(1))
    if expr.is_Add:
        n, d = {}, _const(Fraction(1))
        for term in expr.args:
            tn, td = _from_sympy(term)
            n, d = (_add(n, tn), d) if td == d else (_add(_mul(n, td), _mul(tn, d)), _mul(d, td))
        return n, d
    if expr.is_Mul:
        n, d = _const(Fraction(1)), _const(Fraction(1))
        for factor in expr.args:
            fn, fd = _from_sympy(factor)
            n, d = _mul(n, fn), _mul(d, fd)
        return n, d
    if expr.is_Pow and expr.exp.is_Integer:
        bn, bd = _from_sympy(expr.base)
        e = int(expr.exp)
        if e < 0:
            bn, bd, e = bd, bn, -e
            if len(bd) == 1:  # a monomial inverts into a Laurent monomial
                (m, c), = bd.items()
                bn, bd = _mul(bn, {tuple((b, -x) for b, x in m): 1 / c}), _const(Fraction(1))
        n, d = _const(Fraction(1)), _const(Fraction(1))
        for _ in range(e):
            n, d = _mul(n, bn), _mul(d, bd)
        return n, d
    raise TieawareError(f"value {expr} is not a rational function of logs of integers")


def to_form(value: Any) -> Form:
    """The canonical :class:`Form` of an int, Fraction or sympy value built from rationals and logs.

    >>> to_form(Fraction(1, 2)).num
    (((), Fraction(1, 2)),)
    """
    if isinstance(value, bool):
        raise bad("value", value, "must be a number, not a bool")
    if isinstance(value, (int, Fraction)):
        return Form.of(_const(Fraction(value)), _const(Fraction(1)))
    if getattr(value, "vectors", False):  # a LogSum (tieaware.model.logsum): through its sympy value
        value = value.value()
    if isinstance(value, sympy.Basic):
        return Form.of(*_from_sympy(value))
    raise bad("value", value, "must be an int, Fraction or exact sympy expression")


# -- interval evaluation -----------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def log_interval(base: int, prec: int) -> Any:
    """An mpmath interval enclosing ln(*base*) at *prec* bits."""
    with iv_prec(prec):
        return mpmath.iv.log(base)


class iv_prec:
    """Within ``with iv_prec(bits):`` mpmath's interval arithmetic works at *bits* of precision."""
    def __init__(self, prec: int) -> None:
        self.prec = prec

    def __enter__(self) -> None:
        self.old = mpmath.iv.prec
        mpmath.iv.prec = self.prec

    def __exit__(self, *exc: object) -> None:
        mpmath.iv.prec = self.old


def _poly_iv(p: Poly, prec: int) -> Any:
    iv = mpmath.iv
    with iv_prec(prec):
        total = iv.mpf(0)
        for m, c in p.items():
            term = iv.mpf(c.numerator) / c.denominator
            for base, e in m:
                term = term * log_interval(base, prec) ** e
            total = total + term
        return total


def interval(value: Union[Form, Any], prec: int = 64) -> Any:
    """A rigorous mpmath ``iv`` interval holding *value*, at *prec* bits.

    >>> x = interval(sympy.log(2) / sympy.log(3))
    >>> 0.630929 < x.a <= x.b < 0.630930
    True
    """
    form = value if isinstance(value, Form) else to_form(value)
    with iv_prec(prec):
        return _poly_iv(form.n, prec) / _poly_iv(form.d, prec)


def _sign(p: Poly, a: Any, b: Any) -> tuple[int, int]:
    """The sign of a non-zero polynomial's value, by refining intervals; raises Undecided."""
    prec = 64
    while prec <= MAX_PREC:
        x = _poly_iv(p, prec)
        if x.a > 0:
            return 1, prec
        if x.b < 0:
            return -1, prec
        prec *= 2
    raise Undecided(a, b, MAX_PREC)


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as a <, =, > b, exactly; raises :class:`Undecided` rather than guess.

    >>> compare(Fraction(1, 3), Fraction(1, 2))
    -1
    """
    if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
        return (a > b) - (a < b)
    fa, fb = (a if isinstance(a, Form) else to_form(a)), (b if isinstance(b, Form) else to_form(b))
    if fa == fb:
        return 0
    difference = _add(_mul(fa.n, fb.d), _mul(fb.n, fa.d), -1)
    if not difference:
        return 0
    s, _ = _sign(difference, a, b)
    den_a, _ = _sign(fa.d, a, a)
    den_b, _ = _sign(fb.d, b, b)
    return s * den_a * den_b


def dense_ranks(values: Sequence[Any]) -> list[int]:
    """Dense ranks 0, 1, ... in increasing exact order; equal values share a rank.

    Intervals at 64 bits settle most comparisons; overlapping ones fall back
    to :func:`compare`.  Raises :class:`Undecided` on a pair it cannot order.

    >>> dense_ranks([Fraction(1, 2), Fraction(1, 3), Fraction(1, 2)])
    [1, 0, 1]
    """
    if all(isinstance(v, (int, Fraction)) for v in values):
        distinct = sorted(set(values))
        where = {v: i for i, v in enumerate(distinct)}
        return [where[v] for v in values]
    forms = [to_form(v) for v in values]
    boxes = [interval(f) for f in forms]

    def cmp(i: int, j: int) -> int:
        x, y = boxes[i], boxes[j]
        if x.b < y.a:
            return -1
        if x.a > y.b:
            return 1
        return compare(forms[i], forms[j])

    order = sorted(range(len(values)), key=functools.cmp_to_key(cmp))
    ranks = [0] * len(values)
    rank = 0
    for previous, current in zip(order, order[1:]):
        if cmp(previous, current) != 0:
            rank += 1
        ranks[current] = rank
    return ranks
