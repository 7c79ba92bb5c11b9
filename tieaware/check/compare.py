"""Comparing a value someone computed with the exact value it should be.

Two kinds of comparison:

- **exact**, for values that claim to be exact (int, Fraction, sympy):
  equal or not, decided without floats;
- **within tolerance**, for floats: the absolute and relative error against
  the exact value, and the digits of accuracy (the log relative error, LRE).

>>> from fractions import Fraction
>>> exact_equal(Fraction(1, 2), Fraction(2, 4))
True
>>> e = error_of(0.3333333333333333, Fraction(1, 3))
>>> e.absolute < 1e-16, round(e.lre, 1)
(True, 16.3)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import Exact, to_decimal

__all__ = ["LRE_CAP", "Error", "exact_equal", "is_exact_number", "as_number", "error_of", "approximate", "plain_label", "shown"]

#: Digits of accuracy are capped here: the expected value is carried to 40 digits,
#: and no float result can honestly claim more than about 17.
LRE_CAP = 30.0


def is_exact_number(value: object) -> bool:
    """True for ints (incl. numpy ints), Fractions and sympy numbers: values compared exactly.

    >>> is_exact_number(Fraction(1, 3)), is_exact_number(0.5), is_exact_number(True)
    (True, False, False)
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Rational):
        return True
    return _is_sympy(value)


def _is_sympy(value: object) -> bool:
    return type(value).__module__.startswith("sympy")


def as_number(value: object, argument: str) -> Any:
    """*value* as a Fraction, a sympy value, a Decimal or a float; anything else is refused.

    numpy scalars become their Python counterparts; a one-element array or
    tensor (anything with ``.item()``, ``__array__`` or ``__dlpack__``) its
    number, without importing its library.

    >>> as_number(Fraction(1, 2), "got"), as_number(2, "got"), as_number(Decimal("0.5"), "got")
    (Fraction(1, 2), Fraction(2, 1), Decimal('0.5'))
    """
    if isinstance(value, bool) or value is None:
        raise bad(argument, value, "must be a number")
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if _is_sympy(value):
        return value
    if isinstance(value, Decimal):  # exact as written: kept a Decimal, so that it is compared exactly first
        return value if value.is_finite() else float(value)
    if isinstance(value, numbers.Real):  # float, numpy floats of any width
        return float(value)
    if hasattr(value, "item") and getattr(value, "shape", None) in ((), (1,), (1, 1)):
        return as_number(value.reshape(-1)[0].item() if value.shape else value.item(), argument)
    if hasattr(value, "__array__") or hasattr(value, "__dlpack__"):  # a tensor of another library, read without importing it
        import numpy as np

        try:
            array = np.asarray(value) if hasattr(value, "__array__") else np.from_dlpack(value)
        except (TypeError, ValueError, RuntimeError, BufferError):
            raise bad(argument, value, "must be a number, or a tensor numpy can read (__array__ or DLPack)") from None
        if array.size == 1:
            return as_number(array.reshape(-1)[0].item(), argument)
        raise bad(argument, value, f"must hold one number, not {array.size}")
    raise bad(argument, value, "must be a number (int, float, Fraction, Decimal or sympy)")


def exact_equal(a: Exact, b: Exact) -> bool:
    """a == b, decided exactly; sympy values are compared by simplifying their difference.

    >>> import sympy
    >>> exact_equal(sympy.log(4) / sympy.log(2), Fraction(2))
    True
    """
    if not _is_sympy(a) and not _is_sympy(b):
        return a == b
    import sympy

    difference = sympy.sympify(a) - sympy.sympify(b)
    if difference == 0:
        return True
    # A clear numerical gap settles it fast; only a tiny one needs simplify.
    if abs(difference.evalf(50)) > sympy.Float(10) ** -40:
        return False
    return bool(sympy.simplify(difference) == 0)


def approximate(value: Exact) -> Fraction:
    """A Fraction within 10**-40 of *value*: the value itself when it is rational.

    >>> import sympy
    >>> float(approximate(sympy.sqrt(2)))
    1.4142135623730951
    """
    if isinstance(value, numbers.Rational):
        return Fraction(value)
    if isinstance(value, (float, Decimal)):
        return Fraction(value)
    return Fraction(to_decimal(value, 40))


@dataclass(frozen=True)
class Error:
    """How far *got* is from the exact value."""

    #: |got - expected|, as a float.
    absolute: float
    #: |got - expected| / |expected|; None when expected is 0.
    relative: Optional[float]
    #: Digits of accuracy, -log10(relative error) (absolute error when expected is 0), capped at LRE_CAP.
    lre: float


def error_of(got: Any, expected: Exact) -> Error:
    """The error of *got* (a float, Fraction or sympy value) against the exact *expected*.

    The float's exact binary value is used, so 0.1 is not 1/10 here.

    >>> error_of(0.5, Fraction(1, 2))
    Error(absolute=0.0, relative=0.0, lre=30.0)
    >>> round(error_of(0.25, Fraction(1, 5)).lre, 3)   # 25% off: 0.6 digits
    0.602
    """
    want = approximate(expected)
    have = approximate(got)
    absolute = abs(have - want)
    relative = None if want == 0 else absolute / abs(want)
    basis = _float(absolute if relative is None else relative)  # underflows to 0 past 1e-308: capped anyway
    lre = LRE_CAP if basis == 0 else min(LRE_CAP, max(0.0, -math.log10(basis)))
    return Error(_float(absolute), None if relative is None else _float(relative), lre)


def _float(x: Fraction) -> float:
    """*x* as a float; inf when it is beyond the float range (an implementation returned 10**5000)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


#: Longest repr shown for a value an implementation returned.
SHOWN_CHARS = 200


def shown(value: Any) -> str:
    """repr(*value*) for a report, shortened; never raises on a huge int or Fraction.

    >>> shown(0.5)
    '0.5'
    >>> shown(Fraction(10**5000))
    'Fraction(10**5000 (about))'
    """
    try:
        text = repr(value)
    except ValueError:  # Python refuses int -> str beyond 4,300 digits
        if isinstance(value, numbers.Rational):
            digits = round((abs(value.numerator).bit_length() - value.denominator.bit_length()) * math.log10(2))
            sign = "-" if value < 0 else ""
            return f"{type(value).__name__}({sign}10**{digits} (about))"
        text = f"<{type(value).__name__} that cannot be printed>"
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def plain_label(x: Fraction) -> Any:
    """A label as a person writes it: an int when whole, else the Fraction.

    >>> plain_label(Fraction(2)), plain_label(Fraction(1, 2))
    (2, Fraction(1, 2))
    """
    return int(x) if x.denominator == 1 else x
