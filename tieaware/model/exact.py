"""Exact numbers in, exact numbers out.

Inputs that are rational stay rational: int, Fraction, Decimal and decimal
strings such as ``"0.9"`` or ``"1e-3"``.  A float is converted through its
shortest repr, so ``0.9`` becomes ``Fraction(9, 10)`` and not the binary
fraction 0.90000000000000002220446...; this is what a person who typed 0.9
meant.

NumPy scalars are taken exactly too, in numpy 1.x and 2.x alike: integer
dtypes as ints, a float64 through its shortest repr (as a float), and
float32, float16 and longdouble through the shortest repr *of their own
precision*, so ``np.float32(0.9)`` is 9/10 as well.  A 0-d array counts as
its scalar.  numpy bools, complex numbers, NaN and infinities are refused.

Results are a :class:`fractions.Fraction` when rational and an exact sympy
expression when irrational (log discounts, ln(1/(1-p)), square roots).
:func:`to_float` and :func:`to_decimal` turn either into something to print.
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational
from typing import Any, Union

from tieaware.model.errors import bad

__all__ = ["Exact", "rational", "to_float", "to_decimal", "to_exact_string", "is_rational", "divide", "big_ints", "numpy_scalar"]

#: What tieaware returns: a Fraction, or a sympy expression for irrational values.
Exact = Union[Fraction, Any]


def rational(value: object, argument: str) -> Fraction:
    """Convert *value* to a Fraction, or raise TieawareError naming *argument*.

    >>> rational("0.9", "p"), rational(0.9, "p"), rational(3, "k")
    (Fraction(9, 10), Fraction(9, 10), Fraction(3, 1))
    >>> import numpy as np
    >>> rational(np.float64(0.9), "p"), rational(np.float32(0.9), "p"), rational(np.int64(3), "k")
    (Fraction(9, 10), Fraction(9, 10), Fraction(3, 1))

    A decimal string's exponent may have at most 4 digits, so that
    ``"1e999999999"`` is refused at once rather than computed for minutes.

    Beware: ``rational(0.1 + 0.2, "x")`` is 3/10 + 1/25000000000000000,
    because the float 0.1 + 0.2 prints as 0.30000000000000004.

    Beware: ``np.float32(0.9)`` is 9/10, but ``float(np.float32(0.9))`` is
    the float64 0.8999999761581421, read as 8999999761581421/10**16: convert
    float32 data to float64 *after* tieaware reads it, not before.
    """
    # Plain Python types first, by exact type: the common case stays quick.
    kind = type(value)
    if kind is Fraction:
        return value  # type: ignore[return-value]
    if kind is int:
        return Fraction(value)  # type: ignore[arg-type]
    if kind is not float and kind is not str:
        scalar = numpy_scalar(value)
        if scalar is not None:
            return _numpy_rational(scalar, value, argument)
    if isinstance(value, bool):
        raise bad(argument, value, "must be a number, not a bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))  # never an int subclass inside the Fraction
    if isinstance(value, Rational):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise bad(argument, value, "must be a finite number")
        return Fraction(float.__repr__(value))  # the shortest repr, whatever repr() a subclass has
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise bad(argument, value, "must be a finite number")
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip()
        exponent = _EXPONENT.search(text)
        if exponent and len(exponent.group(1).replace("_", "").lstrip("0")) > MAX_EXPONENT_DIGITS:
            # Fraction("1e999999999") builds 10**999999999: minutes of CPU and gigabytes.
            raise bad(argument, value, f"has an exponent of more than {MAX_EXPONENT_DIGITS} digits")
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise bad(argument, value, "must be a finite decimal or p/q number") from None
    raise bad(argument, value, "must be an int, Fraction, Decimal, float or decimal string")


#: Decimal strings may carry an exponent of at most this many digits (e-9999 .. e9999).
MAX_EXPONENT_DIGITS = 4
_EXPONENT = re.compile(r"[eE][-+]?([0-9_]+)$")


def numpy_scalar(value: object) -> Any:
    """*value* as a numpy scalar if it is one (or a 0-d array), else None."""
    np = sys.modules.get("numpy")  # a numpy value means numpy is imported already
    if np is None or isinstance(value, str):  # np.str_ is a str: read as text below
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    return value if isinstance(value, np.generic) else None


def _numpy_rational(scalar: Any, value: object, argument: str) -> Fraction:
    import numpy as np

    if isinstance(scalar, np.bool_):
        raise bad(argument, value, "must be a number, not a bool")
    if isinstance(scalar, np.integer):
        return Fraction(int(scalar))  # a plain int: numpy ints would overflow in Fraction arithmetic
    if isinstance(scalar, np.floating):
        if not np.isfinite(scalar):
            raise bad(argument, value, "must be a finite number")
        if isinstance(scalar, np.float64):
            return Fraction(repr(float(scalar)))  # as a Python float: its shortest repr
        # The shortest repr that round-trips in the scalar's own precision.
        return Fraction(np.format_float_scientific(scalar, unique=True, trim="-"))
    raise bad(argument, value, "must be a real number (int or float dtype)")


def is_rational(value: object) -> bool:
    """True for an int or Fraction result, False for a symbolic one.

    >>> is_rational(Fraction(1, 3))
    True
    """
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def to_float(value: Exact) -> float:
    """The nearest float to an exact result.

    >>> to_float(Fraction(1, 3))
    0.3333333333333333
    >>> to_float("1/3")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: value must be a number: a Fraction, int, float, Decimal or sympy value, got '1/3'

    Beware: a value beyond the float range (about 1.8e308) raises
    OverflowError, as ``float()`` does.
    """
    if isinstance(value, (int, float, Fraction, Decimal)) and not isinstance(value, bool):
        return float(value)
    scalar = numpy_scalar(value)
    if scalar is not None and not isinstance(scalar, _np_bool()):
        return float(scalar)
    if getattr(value, "vectors", False):  # DCG sums kept as vectors (tieaware.model.logsum.LogSum): its own nearest float
        return float(value)
    if isinstance(value, bool) or not hasattr(value, "evalf"):
        raise bad("value", value, "must be a number: a Fraction, int, float, Decimal or sympy value")
    approx = value.evalf(20)
    if not getattr(approx, "is_real", False) or not approx.is_number:
        raise bad("value", value, "must be a real number")
    return float(approx)


def to_decimal(value: Exact, digits: int = 30) -> str:
    """*value* as a decimal string with *digits* digits after the point.

    Rationals are rounded half-even exactly; symbolic values are evaluated
    with guard digits first.

    >>> to_decimal(Fraction(2, 3), 5)
    '0.66667'
    >>> import sympy
    >>> to_decimal(1 / sympy.log(3, 2), 10)
    '0.6309297536'

    Beware: a float is printed from its binary value, not its repr:
    ``to_decimal(0.1, 20)`` is ``'0.10000000000000000555'``.
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        raise bad("digits", digits, "must be an int >= 0")
    if getattr(value, "vectors", False):  # a LogSum prints itself, correctly rounded, without sympy
        return value.decimal(digits)
    scalar = numpy_scalar(value)
    if scalar is not None and not isinstance(scalar, _np_bool()):
        value = scalar.item()  # numpy int -> int, float16/32/64 -> the float of the same value
    if isinstance(value, bool) or not isinstance(value, (int, Fraction, float, Decimal)) and not hasattr(value, "evalf"):
        raise bad("value", value, "must be a number: a Fraction, int, float, Decimal or sympy value")
    if isinstance(value, (float, Decimal)):
        if not math.isfinite(value):
            raise bad("value", value, "must be a finite number")
        value = Fraction(value)
    elif not isinstance(value, (int, Fraction)):
        value = _symbolic_to_fraction(value, digits)
    q = Fraction(value) * 10**digits
    n = round(q)  # round() on a Fraction is exact and half-even
    sign = "-" if n < 0 else ""
    s = _int_text(abs(n)).rjust(digits + 1, "0")
    return sign + (s[:-digits] + "." + s[-digits:] if digits else s)


def _np_bool() -> type:
    """numpy's bool type, or a type nothing is an instance of when numpy is not imported."""
    np = sys.modules.get("numpy")
    return np.bool_ if np is not None else type(None)


#: Below this size str() converts an int (computed once: 10**4000 costs ~50 µs, per printed value).
_STR_LIMIT = 10**4000


def _int_text(n: int) -> str:
    # str() refuses ints of more than 4,300 digits (sys.get_int_max_str_digits);
    # Decimal converts without that limit, and exactly.
    return str(n) if -_STR_LIMIT < n < _STR_LIMIT else str(Decimal(n))


def _symbolic_to_fraction(expr: Any, digits: int) -> Fraction:
    # evalf to well beyond the requested digits, then round exactly.  evalf
    # counts significant digits, so a value with m digits before the point
    # needs m more of them to keep *digits* after it.
    rough = expr.evalf(15)
    if not rough.is_real or not rough.is_number:
        raise bad("value", expr, "must be a real number")
    whole_digits = len(_int_text(abs(int(rough)))) if rough else 0
    approx = expr.evalf(digits + 15 + whole_digits)
    # The binary value of sympy's Float, exactly (its decimal text may exceed
    # Python's 4,300-digit limit on str -> int); it is within the guard digits.
    sign, mantissa, exponent, _ = approx._mpf_
    value = Fraction(int(mantissa) * 2**exponent) if exponent >= 0 else Fraction(int(mantissa), 2 ** (-exponent))
    return -value if sign else value


def to_exact_string(value: Exact) -> str:
    """The exact value as ``"p/q"`` (always with a denominator) or as sympy text.

    >>> to_exact_string(Fraction(34, 45)), to_exact_string(Fraction(1))
    ('34/45', '1/1')
    """
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        f = Fraction(value)
        return f"{_int_text(f.numerator)}/{_int_text(f.denominator)}"
    if getattr(value, "vectors", False):  # a LogSum: the text of its sympy value
        return to_exact_string(value.value())
    if isinstance(value, bool) or not isinstance(value, (float, Decimal)) and not hasattr(value, "evalf"):
        raise bad("value", value, "must be a number: a Fraction, int, float, Decimal or sympy value")
    with big_ints():  # sympy prints its integers with str()
        return str(value)


@contextlib.contextmanager
def big_ints() -> Iterator[None]:
    """Lift Python's 4,300-digit limit on int <-> str conversions for the duration (3.11+).

    >>> with big_ints():
    ...     len(str(10**5000))
    5001
    """
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:
        yield
        return
    before = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def divide(numerator: Exact, denominator: Exact) -> Exact:
    """numerator / denominator, exact; 0 when the denominator is 0 (as nDCG wants).

    >>> divide(Fraction(1, 2), Fraction(3, 4)), divide(Fraction(1), Fraction(0))
    (Fraction(2, 3), Fraction(0, 1))
    """
    if denominator == 0:
        return Fraction(0)
    if isinstance(numerator, (int, Fraction)) and isinstance(denominator, (int, Fraction)):
        return Fraction(numerator) / Fraction(denominator)
    if getattr(numerator, "vectors", False) or getattr(denominator, "vectors", False):
        return numerator / denominator  # DCG sums kept as vectors (tieaware.model.logsum.LogSum)
    import sympy  # only symbolic values reach here

    return sympy.sympify(numerator) / sympy.sympify(denominator)
