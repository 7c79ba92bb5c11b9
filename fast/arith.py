"""The arithmetic the closed forms are written in: one namespace per kind of number.

Every closed form of :mod:`tieaware.fast` (the kernels in
:mod:`tieaware.fast.kernels` and :mod:`tieaware.fast.variance_kernels`) is
written once, over the primitives here, and evaluated by four callers:

- ``EXACT``: Python numbers with Fractions (``fast``'s exact mode and the exact
  whole-run path :class:`tieaware.runs.engine.ExactQueries`);
- ``FLOAT``: Python floats (``fast``'s ``exact=False``);
- ``ARRAY``: numpy arrays, one element per tie group of every query at once
  (:mod:`tieaware.runs.engine`, :mod:`tieaware.runs.spread_engine`);
- ``SYMBOLIC``: sympy expressions with symbolic sizes, counts, starts and
  cutoffs (:mod:`tieaware.proofs` proves the very kernels the engines run);
- :class:`ArrayAPI`: arrays of any other library through the array API
  standard (torch, CuPy, JAX, array-api-strict; :mod:`tieaware.metrics`),
  computed in that library on the arrays' device.

A kernel does not choose: :func:`of` picks the namespace from its arguments
(an array, a sympy expression, a float, else exact), so the same function
object serves every caller.  The namespace only holds primitives that are not
a formula of any measure: ``where``/``minimum``/``maximum``/``clip``, a safe
``ratio`` (0 where the denominator is 0), harmonic spans
Σ_{j=lo+1..hi} 1/j, discount spans Σ_{j=lo+1..hi} D(j), powers p**e and
power gaps p**lo - p**hi (in floats without the cancellation of the two
powers when p is near 1).

Exact mode keeps two kinds of values formal until the end (:class:`Formal`):
discount spans (DCG is a linear combination Σ c_j·D(j), applied once by
:func:`tieaware.model.gains.discounted_sum`, docs/conventions.md) and powers
p**j (RBP's Σ c_j·p**j is summed in integers, not through a Fraction with a
denominator b**j per group).  :meth:`Exact.value` resolves them.

>>> from fractions import Fraction as F
>>> of(F(1), 2) is EXACT, of(1.0) is FLOAT
(True, True)
>>> EXACT.harmonic(0, 4), EXACT.ratio(F(1), 0)
(Fraction(25, 12), Fraction(0, 1))
>>> EXACT.value(F(3, 2) * EXACT.discount_span(0, 3))    # (3/2)·(1 + 1/log2(3) + 1/2)
3*log(2)/(2*log(3)) + 9/4
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Optional

import numpy as np

__all__ = ["Formal", "Exact", "Float", "Array", "ArrayAPI", "Symbolic", "EXACT", "FLOAT", "ARRAY", "SYMBOLIC", "of", "for_number"]


# -- exact: Python semantics, Fractions, formal discount spans and powers --------------


class Formal:
    """Σ c·(basis value), kept formal: discount spans Σ_{j=lo+1..hi} D(j) and powers p**j.

    Sums and scalar multiples build a tree in O(1) (a measure adds one group
    at a time); :meth:`resolve` walks it once.

    >>> x = Formal.power(Fraction(1, 2), 1) - Formal.power(Fraction(1, 2), 3)
    >>> (Fraction(1, 2) * x).resolve()
    Fraction(3, 16)
    """

    __slots__ = ("kind", "a", "b", "c")

    def __init__(self, kind: str, a: Any, b: Any = None, c: Any = None) -> None:
        self.kind, self.a, self.b, self.c = kind, a, b, c

    @classmethod
    def span(cls, lo: int, hi: int, discount: Any) -> "Formal":
        return cls("span", int(lo), int(hi), discount)

    @classmethod
    def power(cls, p: Fraction, e: int) -> "Formal":
        return cls("power", Fraction(p), int(e))

    def __add__(self, other: Any) -> "Formal":
        if isinstance(other, (int, Fraction)) and not other:
            return self
        return Formal("sum", self, other)

    __radd__ = __add__

    def __neg__(self) -> "Formal":
        return Formal("scale", self, -1)

    def __sub__(self, other: Any) -> "Formal":
        return self + (-other)

    def __rsub__(self, other: Any) -> "Formal":
        return (-self) + other

    def __mul__(self, c: Any) -> "Formal":
        if isinstance(c, Formal):
            raise TypeError("a product of two formal sums is not linear")
        return Formal("scale", self, c)

    __rmul__ = __mul__

    def __truediv__(self, c: Any) -> "Formal":
        return Formal("scale", self, Fraction(1) / c)

    def resolve(self) -> Any:
        """The exact value: a Fraction, or a sympy expression (irrational discounts)."""
        constant, spans, powers = self.terms()
        total = constant
        for p, terms in powers.items():
            total = _add_exact(total, _power_sum(p, terms))
        for key, terms in spans.items():
            from tieaware.model.gains import discounted_sum

            total = _add_exact(total, discounted_sum(terms, key))
        return total

    def terms(self) -> tuple[Any, dict[Any, dict[int, Any]], dict[Fraction, dict[int, Any]]]:
        """(constant, {discount: {j: c_j}}, {p: {e: c_e}}): the sum collected, before any discount or power is applied.

        >>> Formal.span(0, 2, "log2").terms()
        (Fraction(0, 1), {'log2': {1: 1, 2: 1}}, {})
        """
        constant: Any = Fraction(0)
        spans: dict[Any, dict[int, Any]] = {}
        powers: dict[Fraction, dict[int, Any]] = {}
        stack: list[tuple[Any, Any]] = [(self, 1)]
        while stack:
            node, scale = stack.pop()
            if not isinstance(node, Formal):
                constant = constant + scale * node
            elif node.kind == "sum":
                stack.append((node.a, scale))
                stack.append((node.b, scale))
            elif node.kind == "scale":
                stack.append((node.a, scale * node.b))
            elif node.kind == "span":
                terms = spans.setdefault(node.c, {})  # keyed by the discount (a name or a function)
                for j in range(node.a + 1, node.b + 1):
                    before = terms.get(j)
                    terms[j] = scale if before is None else before + scale
            else:
                terms = powers.setdefault(node.a, {})
                before = terms.get(node.b)
                terms[node.b] = scale if before is None else before + scale
        return constant, spans, powers


def _add_exact(a: Any, b: Any) -> Any:
    """a + b for exact values (Fraction or sympy), a Fraction whenever the sum is rational."""
    if not a:
        return b
    if not b:
        return a
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    import sympy

    total = sympy.sympify(a) + sympy.sympify(b)
    return Fraction(int(total.p), int(total.q)) if total.is_Rational else total


def _power_sum(p: Fraction, terms: dict[int, Any]) -> Fraction:
    """Σ c_j·p**j, exactly, in integers: O(depth) small steps, not a big power per term.

    With p = a/b and D the deepest power, p**j = X_j/b**D where X_j = a**j·b**(D-j)
    is an integer; X_j is stepped from one power to the next by multiplying by
    a**Δ and dividing exactly by b**Δ.  Coefficients with one denominator are
    summed as integers (one Fraction per denominator).

    >>> _power_sum(Fraction(1, 2), {1: Fraction(1, 2), 3: Fraction(-1, 2)})
    Fraction(3, 16)
    """
    if not terms:
        return Fraction(0)
    a, b = p.numerator, p.denominator
    depth = max(terms)
    per_den: dict[int, int] = {}
    j, x = 0, b**depth
    for target in sorted(terms):
        c = Fraction(terms[target])
        if not c:
            continue
        if target != j:
            x = x * a ** (target - j) // b ** (target - j)
            j = target
        per_den[c.denominator] = per_den.get(c.denominator, 0) + c.numerator * x
    total = sum((Fraction(v, d) for d, v in per_den.items()), Fraction(0))
    return total / b**depth


class Exact:
    """Python numbers with Fraction arithmetic; discount spans and powers stay :class:`Formal`."""

    name = "exact"

    @staticmethod
    def number(x: Any) -> Any:
        return x if isinstance(x, Formal) else Fraction(x)

    @staticmethod
    def value(x: Any) -> Any:
        return x.resolve() if isinstance(x, Formal) else x

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> Any:
        return a if cond else b

    @staticmethod
    def any(cond: Any) -> bool:
        """Whether *cond* holds (for arrays: for some element); loops over slots run while it does."""
        return bool(cond)

    @staticmethod
    def minimum(a: Any, b: Any) -> Any:
        return a if a <= b else b

    @staticmethod
    def maximum(a: Any, b: Any) -> Any:
        return a if a >= b else b

    def clip(self, x: Any, lo: Any, hi: Any) -> Any:
        return self.minimum(self.maximum(x, lo), hi)

    def ratio(self, num: Any, den: Any) -> Any:
        """num/den, 0 when den is 0 (formal values resolved first)."""
        if type(den) in _RATIONAL and type(num) in _RATIONAL:  # the common case, without a call per group
            return Fraction(num, den) if den else Fraction(0)
        from tieaware.model.exact import divide

        return divide(self.value(num), self.value(den))

    @staticmethod
    def harmonic(lo: int, hi: int) -> Fraction:
        """Σ_{j=lo+1..hi} 1/j, by binary splitting on integers (one gcd at the end)."""
        return _harmonic(int(lo) + 1, int(hi))

    @staticmethod
    def discount_span(lo: int, hi: int, discount: Any = "log2", power: int = 1) -> Any:
        """Σ_{j=lo+1..hi} D(j), formal until :meth:`value` (or a ratio) resolves it; only power 1."""
        if power != 1:
            raise ValueError("exact discount spans are kept formal, so linear: power must be 1")
        return Formal.span(lo, hi, discount) if hi > lo else Fraction(0)

    @staticmethod
    def power(p: Any, e: int) -> Any:
        """p**e, formal until :meth:`value` resolves it."""
        return Formal.power(p, e)

    def power_gap(self, p: Any, lo: Any, hi: Any) -> Any:
        """p**lo - p**hi, formal until :meth:`value` resolves it."""
        return self.power(p, lo) - self.power(p, hi)


_RATIONAL = (int, Fraction)


def _harmonic(first: int, last: int) -> Fraction:
    """Σ_{j=first..last} 1/j, exactly, by binary splitting on integers.

    >>> _harmonic(1, 4)
    Fraction(25, 12)
    """

    def split(lo: int, hi: int) -> tuple[int, int]:  # Σ_{lo <= j < hi} 1/j as an unreduced p/q
        if hi - lo <= 16:
            num, den = 0, 1
            for j in range(lo, hi):
                num, den = num * j + den, den * j
            return num, den
        mid = (lo + hi) // 2
        p1, q1 = split(lo, mid)
        p2, q2 = split(mid, hi)
        return p1 * q2 + p2 * q1, q1 * q2

    return Fraction(*split(first, last + 1)) if first <= last else Fraction(0)


# -- float: Python floats ----------------------------------------------------------------


class Float(Exact):
    """Python floats: spans summed with math.fsum (correctly rounded), powers as floats."""

    name = "float"

    @staticmethod
    def number(x: Any) -> float:
        return float(x)

    @staticmethod
    def value(x: Any) -> Any:
        return x

    def ratio(self, num: Any, den: Any) -> Any:
        return 0.0 if den == 0 else num / den

    @staticmethod
    def harmonic(lo: int, hi: int) -> float:
        return math.fsum(1.0 / j for j in range(int(lo) + 1, int(hi) + 1))

    @staticmethod
    def discount_span(lo: int, hi: int, discount: Any = "log2", power: int = 1) -> float:
        from tieaware.model.gains import float_discount_function

        d = float_discount_function(discount)
        return math.fsum(d(j) ** power for j in range(int(lo) + 1, int(hi) + 1))

    @staticmethod
    def power(p: Any, e: int) -> float:
        return float(p) ** e

    @staticmethod
    def power_gap(p: Any, lo: Any, hi: Any) -> float:
        """p**lo - p**hi as p**lo·(1 - p**(hi-lo)), the factor by -expm1((hi-lo)·log1p(-(1-p))) for p in [1/2, 1].

        Subtracting the two powers loses ~1e-16/(1-p) relatively when p is
        near 1.  1 - p is exact for a float p in [1/2, 1] (Sterbenz) and
        correctly rounded for a Fraction p (taken before p is rounded, so a
        decimal p such as 0.9999 keeps its 1 - p = 1/10000 to 1e-16); log1p
        and expm1 keep the small difference to a few ulps.  For p < 1/2,
        p**hi <= p**lo/2 and the plain difference has no cancellation.

        >>> abs(FLOAT.power_gap(Fraction(999999999, 10**9), 0, 2) / 1.999999999e-09 - 1) < 1e-15
        True
        """
        pf, q = _complement(p)
        if not 0.0 <= q <= 0.5:
            return pf**lo - pf**hi
        return pf**lo * -math.expm1((hi - lo) * math.log1p(-q))


def _complement(p: Any) -> tuple[float, float]:
    """(p, 1 - p) as floats, 1 - p computed before rounding (exactly for a Fraction, by Sterbenz for a float in [1/2, 1])."""
    if isinstance(p, Fraction):
        return float(p), float(1 - p)
    pf = float(p)
    return pf, 1.0 - pf


# -- array: numpy, one element per group ---------------------------------------------------


class Array:
    """numpy arrays; harmonic and discount spans from prefix sums kept in extended precision.

    A span is ``prefix[hi] - prefix[lo]`` of a cached table, in ``np.longdouble``,
    so it keeps ~1e-19 relative accuracy before it meets double arithmetic.
    """

    name = "array"

    def __init__(self) -> None:
        self._tables: dict[str, np.ndarray] = {}

    @staticmethod
    def number(x: Any) -> np.ndarray:
        return np.asarray(x, dtype=np.float64)

    @staticmethod
    def value(x: Any) -> Any:
        return x

    where = staticmethod(np.where)

    @staticmethod
    def any(cond: Any) -> bool:
        return bool(np.any(cond))
    minimum = staticmethod(np.minimum)
    maximum = staticmethod(np.maximum)
    clip = staticmethod(np.clip)

    @staticmethod
    def ratio(num: Any, den: Any) -> np.ndarray:
        num, den = np.broadcast_arrays(np.asarray(num), np.asarray(den))
        out = np.zeros(num.shape, dtype=np.result_type(num.dtype, den.dtype, np.float64))
        np.divide(num, den, out=out, where=den != 0)
        return out

    def _table(self, name: str, top: int, term: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        table = self._tables.get(name)
        if table is None or len(table) <= top:
            size = max(top + 1, 2 * (len(table) if table is not None else 1024))
            table = np.zeros(size, dtype=np.longdouble)
            np.cumsum(term(np.arange(1, size, dtype=np.longdouble)), out=table[1:])
            self._tables[name] = table
        return table

    def _span(self, name: str, lo: Any, hi: Any, term: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        lo = np.asarray(lo).astype(np.int64)
        hi = np.asarray(hi).astype(np.int64)
        top = int(max(hi.max(initial=0), lo.max(initial=0)))
        table = self._table(name, top, term)
        return table[hi] - table[lo]

    def harmonic(self, lo: Any, hi: Any) -> np.ndarray:
        """Σ_{j=lo+1..hi} 1/j per element (extended precision)."""
        return self._span("harmonic", lo, hi, lambda j: 1 / j)

    def discount_span(self, lo: Any, hi: Any, discount: Any = "log2", power: int = 1) -> np.ndarray:
        """Σ_{j=lo+1..hi} (1/log2(j+1))**power per element (extended precision); only log2."""
        if discount != "log2":
            raise ValueError("the array arithmetic knows only the log2 discount")
        return self._span(f"log2^{power}", lo, hi, lambda j: (1 / np.log2(j + 1)) ** power)

    @staticmethod
    def power(p: Any, e: Any) -> np.ndarray:
        return np.float64(p) ** np.asarray(e, dtype=np.float64)

    @staticmethod
    def power_gap(p: Any, lo: Any, hi: Any) -> np.ndarray:
        """p**lo - p**hi per element for one p (a float or a Fraction), as :meth:`Float.power_gap`."""
        pf, q = _complement(p)
        lo = np.asarray(lo, dtype=np.float64)
        hi = np.asarray(hi, dtype=np.float64)
        if not 0.0 <= q <= 0.5:
            return np.float64(pf) ** lo - np.float64(pf) ** hi
        return np.float64(pf) ** lo * -np.expm1((hi - lo) * math.log1p(-q))


# -- array API: any other array library, on its own device ---------------------------------


class ArrayAPI:
    """Arrays of a library that follows the array API standard (through ``array_api_compat``), on their device.

    The same primitives as :class:`Array`, in the arrays' own namespace
    *xp*: nothing goes back to numpy or Python lists.  The harmonic and
    discount prefix tables are :class:`Array`'s (extended precision), sent
    to the device once as two float64 parts, high and low, so a span
    ``(hi[b] - hi[a]) + (lo[b] - lo[a])`` keeps ~1e-16 relative accuracy.
    One namespace object per library and device (:meth:`for_array`).
    """

    name = "array-api"
    _known: dict[tuple[int, str], "ArrayAPI"] = {}

    def __init__(self, xp: Any, device: Any) -> None:
        self.xp, self.device = xp, device
        self._tables: dict[tuple[str, int], tuple[Any, Any]] = {}

    @classmethod
    def for_array(cls, x: Any) -> "ArrayAPI":
        import array_api_compat

        xp = array_api_compat.array_namespace(x)
        device = array_api_compat.device(x)
        key = (id(xp), repr(device))
        known = cls._known.get(key)
        if known is None:
            known = cls._known[key] = cls(xp, device)
        return known

    def _as(self, x: Any, like: Any = None) -> Any:
        """*x* as an array of this namespace (Python numbers as float64 on the device)."""
        if isinstance(x, (int, float, Fraction, np.integer, np.floating)):
            return self.xp.asarray(float(x), dtype=self.xp.float64, device=self.device)
        return x

    def number(self, x: Any) -> Any:
        return self.xp.astype(self._as(x), self.xp.float64)

    @staticmethod
    def value(x: Any) -> Any:
        return x

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        return self.xp.where(cond, self._as(a), self._as(b))

    def any(self, cond: Any) -> bool:
        cond = self._as(cond)
        return bool(self.xp.any(cond if cond.dtype == self.xp.bool else cond != 0))

    def minimum(self, a: Any, b: Any) -> Any:
        return self.xp.minimum(self._as(a), self._as(b))

    def maximum(self, a: Any, b: Any) -> Any:
        return self.xp.maximum(self._as(a), self._as(b))

    def clip(self, x: Any, lo: Any, hi: Any) -> Any:
        return self.minimum(self.maximum(x, lo), hi)

    def ratio(self, num: Any, den: Any) -> Any:
        num, den = self._as(num), self._as(den)
        nonzero = den != 0
        return self.xp.where(nonzero, num / self.xp.where(nonzero, den, self._as(1.0)), self._as(0.0))

    def _span(self, name: str, lo: Any, hi: Any, term: Callable[[np.ndarray], np.ndarray]) -> Any:
        xp = self.xp
        lo = xp.astype(self._as(lo), xp.int64)
        hi = xp.astype(self._as(hi), xp.int64)
        top = int(xp.max(xp.maximum(xp.reshape(hi, (-1,)), xp.reshape(lo, (-1,))))) if math.prod(hi.shape) else 0
        size = 1 << max(10, top.bit_length())
        parts = self._tables.get((name, size))
        if parts is None:
            table = ARRAY._table(name, size, term)[: size + 1]
            high = table.astype(np.float64)
            low = (table - high).astype(np.float64)
            parts = self._tables[(name, size)] = (xp.asarray(high, device=self.device), xp.asarray(low, device=self.device))
        high, low = parts
        shape = xp.broadcast_shapes(lo.shape, hi.shape)
        a = xp.reshape(xp.broadcast_to(lo, shape), (-1,))
        b = xp.reshape(xp.broadcast_to(hi, shape), (-1,))
        span = (xp.take(high, b) - xp.take(high, a)) + (xp.take(low, b) - xp.take(low, a))
        return xp.reshape(span, shape)

    def harmonic(self, lo: Any, hi: Any) -> Any:
        """Σ_{j=lo+1..hi} 1/j per element."""
        return self._span("harmonic", lo, hi, lambda j: 1 / j)

    def discount_span(self, lo: Any, hi: Any, discount: Any = "log2", power: int = 1) -> Any:
        """Σ_{j=lo+1..hi} (1/log2(j+1))**power per element; only log2."""
        if discount != "log2":
            raise ValueError("the array arithmetic knows only the log2 discount")
        return self._span(f"log2^{power}", lo, hi, lambda j: (1 / np.log2(j + 1)) ** power)

    def power(self, p: Any, e: Any) -> Any:
        return self._as(float(p)) ** self.number(e)

    def power_gap(self, p: Any, lo: Any, hi: Any) -> Any:
        """p**lo - p**hi per element for one p, as :meth:`Float.power_gap`."""
        pf, q = _complement(p)
        lo, hi = self.number(lo), self.number(hi)
        if not 0.0 <= q <= 0.5:
            return self._as(pf) ** lo - self._as(pf) ** hi
        return self._as(pf) ** lo * -self.xp.expm1((hi - lo) * math.log1p(-q))


# -- symbolic: sympy, for the proofs -------------------------------------------------------


class Symbolic:
    """sympy expressions; comparisons decided by the symbols' assumptions where they can be.

    ``where`` picks a branch when sympy decides the condition, else returns a
    Piecewise; ``ratio`` is 0 when the denominator is known to be 0, the
    quotient when it is known not to be, a Piecewise otherwise.  Spans are
    sympy's harmonic numbers and ``Sum`` of the discount function.
    """

    name = "symbolic"

    @staticmethod
    def number(x: Any) -> Any:
        import sympy

        return sympy.sympify(x)

    @staticmethod
    def value(x: Any) -> Any:
        return x

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> Any:
        import sympy

        c = sympy.sympify(cond)
        if c is sympy.true:
            return a
        if c is sympy.false:
            return b
        return sympy.Piecewise((a, c), (b, True))

    @staticmethod
    def any(cond: Any) -> bool:
        """A loop condition: must be decided (a loop over slots needs a number of slots)."""
        import sympy

        c = sympy.sympify(cond)
        if c in (sympy.true, sympy.false):
            return bool(c)
        if isinstance(c, sympy.Expr):
            return c != 0
        raise TypeError(f"the assumptions do not decide {c}")

    @staticmethod
    def minimum(a: Any, b: Any) -> Any:
        import sympy

        return sympy.Min(a, b)

    @staticmethod
    def maximum(a: Any, b: Any) -> Any:
        import sympy

        return sympy.Max(a, b)

    def clip(self, x: Any, lo: Any, hi: Any) -> Any:
        return self.minimum(self.maximum(x, lo), hi)

    @staticmethod
    def ratio(num: Any, den: Any) -> Any:
        import sympy

        den = sympy.sympify(den)
        if den.is_zero:
            return sympy.Integer(0)
        if den.is_zero is False:
            return num / den
        return sympy.Piecewise((0, sympy.Eq(den, 0)), (num / den, True))

    @staticmethod
    def harmonic(lo: Any, hi: Any) -> Any:
        import sympy

        return sympy.harmonic(hi) - sympy.harmonic(lo)

    @staticmethod
    def discount_span(lo: Any, hi: Any, discount: Any = "log2", power: int = 1) -> Any:
        import sympy

        j = sympy.Symbol("j", integer=True, positive=True)  # one rank variable: equal spans are equal Sums
        term = (1 / sympy.log(j + 1, 2) if discount == "log2" else discount(j)) ** power
        total = sympy.Sum(term, (j, lo + 1, hi))
        return total.doit() if sympy.sympify(hi - lo).is_Integer else total

    @staticmethod
    def power(p: Any, e: Any) -> Any:
        return p**e

    @staticmethod
    def power_gap(p: Any, lo: Any, hi: Any) -> Any:
        return p**lo - p**hi


EXACT = Exact()
FLOAT = Float()
ARRAY = Array()
SYMBOLIC = Symbolic()


_KINDS: dict[type, Any] = {int: EXACT, Fraction: EXACT, bool: EXACT, Formal: EXACT, float: FLOAT}


def of(*args: Any) -> Any:
    """The namespace for a kernel's arguments: ARRAY if any is an array, SYMBOLIC if any is sympy, FLOAT if any is a float, else EXACT.

    >>> import sympy
    >>> of(np.zeros(2)) is ARRAY, of(sympy.Symbol("n"), 1) is SYMBOLIC, of(Fraction(1), 2.0) is FLOAT
    (True, True, True)
    """
    kind = EXACT
    for x in args:
        known = _KINDS.get(type(x))  # the common types by one lookup: exact mode calls this per group
        if known is EXACT:
            continue
        if known is FLOAT:
            kind = FLOAT if kind is EXACT else kind
            continue
        if isinstance(x, np.ndarray):
            return ARRAY
        if type(x).__module__.startswith("sympy"):
            kind = SYMBOLIC
        elif isinstance(x, (float, np.floating)):
            kind = FLOAT if kind is EXACT else kind
        elif _other_array(x):
            return ArrayAPI.for_array(x)
    return kind


#: Array libraries whose arrays lack ``__array_namespace__`` (array_api_compat wraps them).
_WRAPPED = ("torch", "cupy", "jax", "jaxlib", "dask", "sparse", "ndonnx")


def _other_array(x: Any) -> bool:
    """Whether *x* is an array of a library other than numpy that the array API reaches."""
    return hasattr(x, "__array_namespace__") or type(x).__module__.split(".")[0] in _WRAPPED


def for_number(number: Optional[Callable[[Any], Any]]) -> Any:
    """The namespace of a ``number`` converter as fast's ``*_from`` functions take it.

    >>> for_number(Fraction) is EXACT, for_number(float) is FLOAT
    (True, True)
    """
    if number is None or number is Fraction:
        return EXACT
    if number is float:
        return FLOAT
    return SYMBOLIC
