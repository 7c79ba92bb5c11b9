"""Printing exact values cheaply: decimals by interval arithmetic, sizes without str().

An exact nDCG mean over thousands of queries is a sympy expression with
millions of nodes; ``evalf`` and ``str`` on it take minutes.  Here:

- :func:`decimal` evaluates the expression tree once with ``mpmath.iv``
  (interval arithmetic, every node's enclosure cached), at a precision a
  little above the digits asked for, and returns the decimal when both ends
  of the enclosure round to it; otherwise it doubles the precision.  So the
  printed digits are the exact value correctly rounded (half-even), as
  :func:`tieaware.model.exact.to_decimal` prints them, without expanding anything;
- :func:`short_form` says what an exact value is in a few characters
  (``p/q``, ``1234/1240-digit p/q``, short sympy text, or ``irrational``),
  judging sizes from bit lengths and node counts, never from ``str``;
- :func:`int_text` prints integers of any size (Python refuses ``str`` of an
  int over 4,300 digits by default).

>>> import sympy
>>> decimal(sympy.log(2) / sympy.log(3), 10)
'0.6309297536'
>>> decimal(Fraction(2, 3), 4), short_form(Fraction(10**50, 3))
('0.6667', '51/1-digit p/q')
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.exact import Exact, big_ints, is_rational, to_decimal, to_float  # big_ints: exported here too

__all__ = ["decimal", "signed", "interval", "missing", "nearest_float", "short_form", "int_text", "big_ints", "SHORT"]

#: Exact forms longer than this are abbreviated in the table.
SHORT = 44




def int_text(n: int) -> str:
    """str(n) for an int of any size.

    >>> len(int_text(10**5000))
    5001
    """
    with big_ints():
        return str(n)


def _digits(n: int) -> int:
    """The number of decimal digits of |n|, from its bit length (exact, no str)."""
    n = abs(n)
    if n == 0:
        return 1
    d = int(n.bit_length() * math.log10(2))  # within one of the answer
    return d + 1 if n >= 10**d else d


def _small(expr: Any, limit: int = 30) -> bool:
    """True when the sympy tree has at most *limit* nodes (stops counting early)."""
    count = 0
    stack = [expr]
    while stack:
        node = stack.pop()
        count += 1
        if count > limit:
            return False
        stack.extend(node.args)
    return True


def missing(value: Any) -> Optional[str]:
    """``"nan"`` or ``"skipped"`` for a value that is not a number (``norel=nan``, ``norel=skip``), else None.

    >>> import sympy
    >>> missing(sympy.nan), missing(float("nan")), missing(None), missing(Fraction(1))
    ('nan', 'nan', 'skipped', None)
    """
    if value is None:
        return "skipped"
    if isinstance(value, float):
        return "nan" if value != value else None
    if getattr(value, "is_number", False) and value is getattr(sys.modules.get("sympy"), "nan", object()):
        return "nan"
    return None


def short_form(value: Exact) -> str:
    """A short exact form: ``p/q``; ``m/n-digit p/q`` when long; short sympy text, or ``irrational``.

    >>> import sympy
    >>> short_form(Fraction(1, 3)), short_form(sympy.log(2) / sympy.log(3))
    ('1/3', 'log(2)/log(3)')
    """
    gap = missing(value)
    if gap is not None:
        return gap
    if is_rational(value):
        f = Fraction(value)
        p, q = _digits(f.numerator), _digits(f.denominator)
        if p + q + 1 + (f < 0) <= SHORT:  # digits, "/" and the sign
            return f"{f.numerator}/{f.denominator}"
        return f"{p}/{q}-digit p/q"
    if _small(value):
        text = str(value)
        if len(text) <= SHORT:
            return text
    return "irrational"


# -- interval evaluation ---------------------------------------------------------


def interval(expr: Any, prec: int, cache: Optional[dict] = None) -> Any:
    """An ``mpmath.iv`` interval enclosing the sympy expression *expr*, at *prec* bits.

    Handles what tieaware's exact values are made of (rationals, Add, Mul,
    integer and half powers, log, exp, sqrt); anything else goes through
    sympy's evalf with a guard.
    """
    import mpmath
    import sympy

    iv = mpmath.iv
    cache = {} if cache is None else cache

    def ev(node: Any) -> Any:
        got = cache.get(node)
        if got is not None:
            return got
        if node.is_Rational:
            out = iv.mpf(int(node.p)) / int(node.q) if node.q != 1 else iv.mpf(int(node.p))
        elif node.is_Add:
            out = iv.mpf(0)
            for a in node.args:
                out = out + ev(a)
        elif node.is_Mul:
            out = iv.mpf(1)
            for a in node.args:
                out = out * ev(a)
        elif node.is_Pow and node.exp.is_Integer:
            base, e = ev(node.base), int(node.exp)
            out = base ** abs(e) if e >= 0 else 1 / (base ** (-e))
        elif node.is_Pow and node.exp == sympy.Rational(1, 2):
            out = iv.sqrt(ev(node.base))
        elif node.is_Pow and node.exp == sympy.Rational(-1, 2):
            out = 1 / iv.sqrt(ev(node.base))
        elif isinstance(node, sympy.log) and len(node.args) == 1:
            out = iv.log(ev(node.args[0]))
        elif isinstance(node, sympy.exp):
            out = iv.exp(ev(node.args[0]))
        else:  # unknown: sympy's own evaluation, widened by a relative guard
            digits = int(prec * 0.30103) + 10
            mid = iv.mpf(str(node.evalf(digits)))
            # the guard in interval arithmetic: as a double, 1 - 2**(6 - prec) is 1.0 once prec > 59
            guard = iv.mpf(2) ** (6 - prec)
            out = mid * (1 + iv.mpf([-1, 1]) * guard)
        cache[node] = out
        return out

    before = iv.prec
    iv.prec = prec
    try:
        return ev(expr)
    finally:
        iv.prec = before


def nearest_float(value: Exact) -> float:
    """The float of an exact value; a sympy value by interval arithmetic, not ``evalf``.

    An exact nDCG variance summed over 2,000 queries takes seconds in
    ``evalf`` and milliseconds here (the tree is evaluated once, every node
    cached).  The precision doubles until both ends of the enclosure give
    the same double.

    >>> import sympy
    >>> nearest_float(sympy.log(3) / sympy.log(2)), nearest_float(Fraction(1, 3))
    (1.584962500721156, 0.3333333333333333)
    """
    if isinstance(value, float):
        return value
    if is_rational(value):
        return float(value)
    import sympy

    expr = sympy.sympify(value)
    for prec in (64, 128, 256):
        box = interval(expr, prec)
        low, high = float(box.a), float(box.b)
        if low == high:
            return low
    return to_float(expr)


def _fraction(raw: tuple) -> Fraction:
    """The exact value of a raw mpf tuple (sign, mantissa, exponent, bits)."""
    sign, man, exp, _ = raw
    if not man and exp:
        raise ArithmeticError("an interval end is infinite or NaN")
    value = Fraction(int(man) * 2**exp) if exp >= 0 else Fraction(int(man), 2 ** (-exp))
    return -value if sign else value


def decimal(value: Exact, digits: int, *, minus: Optional[Exact] = None) -> str:
    """*value* (or *value* - *minus*) as a decimal with *digits* digits, correctly rounded.

    Rationals and floats go to :func:`tieaware.model.exact.to_decimal`; symbolic
    values are enclosed in intervals of rising precision until both ends
    round to the same decimal.

    >>> import sympy
    >>> decimal(sympy.sqrt(2), 5, minus=Fraction(1))
    '0.41421'
    """
    gap = missing(value) or (None if minus is None else missing(minus))
    if gap is not None:
        return gap
    if minus is None and (is_rational(value) or isinstance(value, float)):
        return to_decimal(value, digits)
    if minus is not None and all(is_rational(v) or isinstance(v, float) for v in (value, minus)):
        return to_decimal(Fraction(value) - Fraction(minus), digits)
    import sympy

    a = sympy.sympify(value)
    b = None if minus is None else sympy.sympify(minus)
    prec = int(digits * 3.33) + 64
    for _ in range(8):
        cache: dict = {}
        box = interval(a, prec, cache)
        if b is not None:
            box = box - interval(b, prec, cache)
        low, high = box._mpi_
        lo, hi = to_decimal(_fraction(low), digits), to_decimal(_fraction(high), digits)
        if lo == hi:
            return lo
        prec *= 2
    # the value sits on a rounding boundary at every precision tried (it may be exactly 0 or a tie)
    exact = a if b is None else a - b
    return to_decimal(exact, digits)


def signed(value: Exact, digits: int, *, minus: Optional[Exact] = None) -> str:
    """*value* - *minus* as :func:`decimal` prints it, with its sign always written: ``+0.0417``, ``-0.0417``.

    The sign is the exact value's, also when the digits round to zero: a
    difference of -10**-9 prints as ``-0.0000``, not ``+0.0000`` (and not
    ``0.0000``, which would say "equal").  An exact zero prints as ``0.0000``
    without a sign; so does a symbolic difference whose sign intervals
    cannot settle (a zero that is not structurally zero).

    >>> import sympy
    >>> signed(sympy.log(2) / sympy.log(3), 4, minus=Fraction(2, 3)), signed(Fraction(1, 3), 4, minus=Fraction(1, 3) + Fraction(1, 10**9))
    ('-0.0357', '-0.0000')
    """
    text = decimal(value, digits, minus=minus).lstrip("-")
    if all(is_rational(v) or isinstance(v, float) for v in (value, Fraction(0) if minus is None else minus)):
        difference = Fraction(value) - Fraction(0 if minus is None else minus)
        return ("-" if difference < 0 else "+" if difference > 0 else "") + text
    import sympy

    a = sympy.sympify(value)
    if minus is not None:
        b = sympy.sympify(minus)
    prec = int(digits * 3.33) + 64
    for _ in range(8):
        cache: dict = {}
        box = interval(a, prec, cache)
        if minus is not None:
            box = box - interval(b, prec, cache)
        low, high = (_fraction(end) for end in box._mpi_)
        if low > 0:
            return "+" + text
        if high < 0:
            return "-" + text
        prec *= 2
    return text
