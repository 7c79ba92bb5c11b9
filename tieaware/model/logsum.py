"""DCG and nDCG values as rational vectors over the log2 discounts, summed and subtracted without sympy.

With the log2 discount a DCG is a *linear form*: a rational plus
Σ_b c_b·log(2)/log(b) over integers b >= 3 that are not perfect powers
(:func:`tieaware.model.gains.discounted_sum`).  nDCG divides two of them,
and a mean of nDCG values over queries is a sum of such quotients.  A
:class:`LogSum` holds that sum as ``{ideal form I: numerator form N}``, the
value Σ_I N/I, each form a dict ``{b: c_b}`` with Fraction coefficients (b = 2
is the rational part, as log(2)/log(2) = 1).  Sums, differences and means
are then dictionary additions of Fractions, however many queries share an
ideal, and a sympy expression is built only when a value is shown
(:meth:`LogSum.value`), in a canonical form of a few terms.

Canonical form: each ideal form is scaled so that its coefficient on its
smallest base is 1, and each numerator is reduced by it (a multiple
c·I of the ideal is moved into the rational bucket as c), so a numerator
has no term on its ideal's smallest base.  Two LogSums built from the same
values are then structurally equal (``==``); a different structure proves
nothing by itself, exactly as for :mod:`tieaware.model.exactcmp`, whose
certified interval arithmetic decides the sign (:meth:`LogSum.sign`).

>>> from fractions import Fraction
>>> third = LogSum.linear({2: Fraction(1)})          # the discount of rank 2, 1/log2(3)
>>> third.value()
log(2)/log(3)
>>> ((third + 1) / (third + 1)).value()
Fraction(1, 1)
>>> mean = (third / (third + 1) + LogSum.of(Fraction(1))) / 2
>>> mean.value(), mean.sign()
(log(2)/(2*(log(2)/log(3) + 1)*log(3)) + 1/2, 1)

Beware: only the log2 discount and rational coefficients are held here; a
Formal with another discount or with powers (RBP) is refused with
TieawareError, and callers keep the sympy path for those.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, Union

from tieaware.model.errors import TieawareError, bad

__all__ = ["LogSum", "Form"]

#: A linear form {b: c_b}: Σ_b c_b·log(2)/log(b), b = 2 the rational part; no zero coefficient.
Form = dict[int, Fraction]
#: An ideal form's key: its items sorted by base, scaled so that the first coefficient is 1; () is the form 1.
Key = tuple[tuple[int, Fraction], ...]

_ONE: Key = ()


@functools.lru_cache(maxsize=1 << 16)
def _basis(rank: int) -> tuple[int, int]:
    """(b, m) with rank + 1 == b**m, b smallest: the discount 1/log2(rank + 1) is (1/m)·log(2)/log(b)."""
    from tieaware.model.gains import perfect_power

    return perfect_power(rank + 1)


def _axpy(target: Form, scale: Fraction, source: Mapping[int, Fraction]) -> None:
    """target += scale·source, dropping zeros."""
    for b, c in source.items():
        v = target.get(b)
        v = scale * c if v is None else v + scale * c
        if v:
            target[b] = v
        else:
            target.pop(b, None)


def _number(x: Any) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        raise bad("value", x, "must be an int or a Fraction")
    return Fraction(x)


class LogSum:
    """Σ_I N_I/I exactly, N_I and I linear forms over log(2)/log(b) with Fraction coefficients (see the module).

    Supports +, -, unary -, * and / by a rational, / by another LogSum
    that is a linear form (one bucket, the ideal 1), == and hashing (structural,
    on the canonical form).  :meth:`value` gives the Fraction or sympy value.
    """

    __slots__ = ("parts", "_hash", "_value")
    #: Read by :func:`tieaware.model.exact.divide`, which divides such values as they divide themselves.
    vectors = True

    def __init__(self, parts: dict[Key, Form]) -> None:
        self.parts = parts  # canonical: reduced, no empty numerator
        self._hash: Any = None
        self._value: Any = None  # value(), remembered: the parts never change after construction

    # -- construction ----------------------------------------------------------------------------

    @classmethod
    def linear(cls, coefficients: Mapping[int, Any], constant: Any = 0) -> "LogSum":
        """constant + Σ_j c_j/log2(j + 1) (the coefficients of :func:`tieaware.model.gains.discounted_sum`).

        >>> LogSum.linear({1: Fraction(1), 3: Fraction(1, 2)}).value()   # 1 + (1/2)/log2(4)
        Fraction(5, 4)
        """
        form: Form = {}
        constant = _number(constant)
        if constant:
            form[2] = constant
        for j, c in coefficients.items():
            if type(c) is not Fraction:
                c = _number(c)
            if not c:
                continue
            b, m = _basis(int(j))
            share = c if m == 1 else c / m
            v = form.get(b)
            v = share if v is None else v + share
            if v:
                form[b] = v
            else:
                del form[b]
        return cls({_ONE: form} if form else {})

    @classmethod
    def of(cls, value: Any) -> "LogSum":
        """A LogSum from an int, a Fraction, a LogSum or an exact-mode formal DCG sum (:class:`tieaware.fast.arith.Formal`).

        >>> LogSum.of(Fraction(3, 2)).value()
        Fraction(3, 2)
        """
        if isinstance(value, LogSum):
            return value
        if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
            return cls.linear({}, value)
        terms = getattr(value, "terms", None)
        if terms is None:
            raise bad("value", value, "must be an int, a Fraction, a LogSum or a formal discounted sum")
        constant, spans, powers = terms()
        if powers or any(key != "log2" for key in spans):
            raise TieawareError(f"value {value!r}: only sums of log2 discounts with rational coefficients are held as a LogSum")
        return cls.linear(spans.get("log2", {}), constant)

    # -- arithmetic ----------------------------------------------------------------------------

    @staticmethod
    def _coerce(other: Any) -> "LogSum":
        return other if isinstance(other, LogSum) else LogSum.of(other)

    def _combine(self, other: Any, sign: int) -> "LogSum":
        other = self._coerce(other)
        parts = {k: dict(v) for k, v in self.parts.items()}
        for key, form in other.parts.items():
            target = parts.setdefault(key, {})
            _axpy(target, Fraction(sign), form)
            if not target:
                del parts[key]
        return LogSum(parts)

    def __add__(self, other: Any) -> "LogSum":
        if isinstance(other, (int, Fraction)) and not other:
            return self
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> "LogSum":
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> "LogSum":
        return self._coerce(other)._combine(self, -1)

    def __neg__(self) -> "LogSum":
        return self * -1

    def __mul__(self, scale: Any) -> "LogSum":
        s = _number(scale)
        if not s:
            return LogSum({})
        return LogSum({k: {b: c * s for b, c in v.items()} for k, v in self.parts.items()})

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "LogSum":
        if not isinstance(other, LogSum):
            s = _number(other)
            if not s:
                raise ZeroDivisionError("LogSum divided by 0")
            return self * (1 / s)
        den = other.linear_form()
        num = self.linear_form()
        if den is None or num is None:
            raise TieawareError("only a linear form (a DCG) is divided by a linear form (an ideal DCG)")
        if not den:
            raise ZeroDivisionError("LogSum divided by 0")
        key, inverse = _normalized(tuple(sorted((b, c.numerator, c.denominator) for b, c in den.items())))
        if key == _ONE:  # a rational ideal: num/den is linear
            return LogSum({_ONE: {b: c * inverse for b, c in num.items()}} if num else {})
        numerator = {b: c * inverse for b, c in num.items()}
        rational: Form = {}
        parts: dict[Key, Form] = {}
        _reduce(key, numerator, rational)
        if numerator:
            parts[key] = numerator
        if rational:
            parts[_ONE] = rational
        return LogSum(parts)

    def __rtruediv__(self, other: Any) -> "LogSum":
        return LogSum.of(other) / self

    def linear_form(self) -> Union[Form, None]:
        """The form {b: c} when the value is linear (no quotient), else None."""
        if not self.parts:
            return {}
        if set(self.parts) == {_ONE}:
            return self.parts[_ONE]
        return None

    # -- comparison and values -------------------------------------------------------------------

    def _canonical(self) -> frozenset:
        return frozenset((k, tuple(sorted(v.items()))) for k, v in self.parts.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (int, Fraction)) and not isinstance(other, bool):
            other = LogSum.of(other)
        if not isinstance(other, LogSum):
            return NotImplemented
        return self._canonical() == other._canonical()

    def __hash__(self) -> int:
        if self._hash is None:
            q = self.rational()
            self._hash = hash(q) if q is not None else hash(self._canonical())
        return self._hash

    def __bool__(self) -> bool:
        return bool(self.parts)

    def __repr__(self) -> str:
        return f"LogSum({self.value()})"

    def rational(self) -> Union[Fraction, None]:
        """The value when it is (structurally) rational, else None."""
        if not self.parts:
            return Fraction(0)
        form = self.linear_form()
        if form is not None and set(form) <= {2}:
            return form.get(2, Fraction(0))
        return None

    def value(self) -> Any:
        """The exact value: a Fraction when rational, else a sympy expression of log(2)/log(b) terms."""
        if self._value is None:
            self._value = self._build_value()
        return self._value

    def _build_value(self) -> Any:
        q = self.rational()
        if q is not None:
            return q
        import sympy

        from tieaware.model.gains import log2_sum_rational

        terms = []
        for key in sorted(self.parts, key=lambda k: (len(k), k)):
            num = log2_sum_rational(self.parts[key])
            if key == _ONE:
                terms.append(num)
            else:
                den = log2_sum_rational(dict(key))
                terms.append(_sym(num) / _sym(den))
        total = terms[0] if len(terms) == 1 else sympy.Add(*(_sym(t) for t in terms))
        if isinstance(total, Fraction):
            return total
        return Fraction(int(total.p), int(total.q)) if total.is_Rational else total

    def sign(self) -> int:
        """-1, 0 or 1, certified: an enclosure away from 0 (:meth:`enclosure`), else
        :func:`tieaware.model.exactcmp.compare` (which raises its Undecided rather than guess)."""
        q = self.rational()
        if q is not None:
            return (q > 0) - (q < 0)
        low, high = self.enclosure(64)
        if low > 0 or high < 0:
            return 1 if low > 0 else -1
        from tieaware.model.exactcmp import compare

        return compare(self.value(), 0)

    def enclosure(self, prec: int) -> tuple[Fraction, Fraction]:
        """Rational bounds low <= value <= high, by mpmath's interval arithmetic at *prec* bits (no sympy).

        >>> low, high = LogSum.linear({2: Fraction(1)}).enclosure(64)     # 1/log2(3) = 0.63092975357145743...
        >>> Fraction(63092975357145743, 10**17) < low < high < Fraction(63092975357145744, 10**17)
        True
        """
        import mpmath

        from tieaware.model.exactcmp import iv_prec, log_interval

        iv = mpmath.iv
        with iv_prec(prec):
            log2 = log_interval(2, prec)

            def form(f: Mapping[int, Fraction]) -> Any:
                total = iv.mpf(0)
                for b, c in f.items():
                    term = iv.mpf(c.numerator) / c.denominator
                    total = total + (term if b == 2 else term * log2 / log_interval(b, prec))
                return total

            box = iv.mpf(0)
            for key, numerator in self.parts.items():
                box = box + (form(numerator) if key == _ONE else form(numerator) / form(dict(key)))
            low, high = box._mpi_
        return _exact(low), _exact(high)

    def decimal(self, digits: int) -> str:
        """The value with *digits* digits after the point, correctly rounded (half-even), without sympy.

        Both ends of an enclosure (:meth:`enclosure`) at rising precision must round alike; a value
        that stays on a rounding boundary goes to :func:`tieaware.model.exact.to_decimal` of :meth:`value`.

        >>> LogSum.linear({2: Fraction(1)}).decimal(10)     # 1/log2(3)
        '0.6309297536'
        """
        from tieaware.model.exact import to_decimal

        q = self.rational()
        if q is not None:
            return to_decimal(q, digits)
        prec = int(digits * 3.33) + 64
        for _ in range(8):
            low, high = (to_decimal(x, digits) for x in self.enclosure(prec))
            if low == high:
                return low
            prec *= 2
        return to_decimal(self.value(), digits)

    def __float__(self) -> float:
        """The nearest float, from enclosures of rising precision (without sympy while they settle it)."""
        q = self.rational()
        if q is not None:
            return float(q)
        for prec in (64, 128, 256, 512):
            low, high = (float(x) for x in self.enclosure(prec))
            if low == high:
                return low
        from tieaware.model.exact import to_float

        return to_float(self.value())

    @staticmethod
    def total(values: Iterable["LogSum"]) -> "LogSum":
        """Σ values, accumulated in place (one pass over the buckets, not a new LogSum per term).

        >>> LogSum.total([LogSum.of(Fraction(1, 2)), LogSum.of(Fraction(1, 3))]).value()
        Fraction(5, 6)
        """
        # per bucket and base, numerators summed as integers per denominator (one Fraction per denominator)
        sums: dict[Key, dict[int, dict[int, int]]] = {}
        for v in values:
            for key, form in LogSum._coerce(v).parts.items():
                per_base = sums.get(key)
                if per_base is None:
                    per_base = sums[key] = {}
                for b, c in form.items():
                    per_den = per_base.get(b)
                    if per_den is None:
                        per_den = per_base[b] = {}
                    d = c.denominator
                    per_den[d] = per_den.get(d, 0) + c.numerator
        parts: dict[Key, Form] = {}
        for key, per_base in sums.items():
            form = {}
            for b, per_den in per_base.items():
                c = sum((Fraction(n, d) for d, n in per_den.items()), Fraction(0))
                if c:
                    form[b] = c
            if form:
                parts[key] = form
        return LogSum(parts)


@functools.lru_cache(maxsize=1 << 12)
def _normalized(den: tuple[tuple[int, int, int], ...]) -> tuple[Key, Fraction]:
    """(the key of a non-zero form given as sorted (b, numerator, denominator): scaled so that its smallest
    base has coefficient 1, and 1/that scale)."""
    s = Fraction(den[0][1], den[0][2])
    key = tuple((b, Fraction(p, q) / s) for b, p, q in den)
    return (_ONE if len(key) == 1 and key[0][0] == 2 else key), 1 / s


def _reduce(key: Key, numerator: Form, rational: Form) -> None:
    """numerator -= c·I with c its coefficient on I's smallest base (I[lead] = 1); c goes to *rational* (base 2)."""
    lead = key[0][0]
    c = numerator.get(lead)
    if not c:
        return
    _axpy(numerator, -c, dict(key))
    v = rational.get(2, Fraction(0)) + c
    if v:
        rational[2] = v
    else:
        rational.pop(2, None)


def _exact(raw: tuple) -> Fraction:
    """The value of an mpmath raw mpf (sign, mantissa, exponent, bits), exactly."""
    sign, man, exp, _ = raw
    if not man and exp:
        raise ArithmeticError("an interval end is infinite or NaN")
    value = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -value if sign else value


def _sym(x: Any) -> Any:
    import sympy

    return sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x
