"""Exact accumulation for the fast RBO: rationals, square roots and one logarithm.

Every exact RBO value is q0 + Σ_k q_k·√k + q_ln·ln(1/(1−p)), with rational
q's and distinct square-free integers k > 1.  Square roots of distinct
square-free integers are linearly independent over Q (Besicovitch 1940), and
ln(1/(1−p)) is transcendental for rational p (Lindemann–Weierstrass), so the
q's are unique.  :func:`to_value` builds the sympy sum from them in one
fixed shape; two such values are equal exactly when their coefficients are,
which :func:`coefficients` reads back (it re-derives square-free radicands
with a full factorisation, so it also accepts values built elsewhere).

Sums of many Fractions are added pairwise (:func:`exact_sum`): the
denominators grow like p^-d, and pairwise addition keeps most additions
between small numbers.

>>> to_value({1: Fraction(1, 2), 6: Fraction(2, 3)}, Fraction(0), Fraction(9, 10))
1/2 + 2*sqrt(6)/3
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any, Optional

import sympy

__all__ = ["exact_sum", "powers", "power_series", "inverse_root", "RootSum", "to_value", "coefficients"]


def exact_sum(terms: Iterable[Fraction]) -> Fraction:
    """The exact sum, added pairwise so that big denominators meet late.

    >>> exact_sum(Fraction(1, 2**d) for d in range(1, 11))
    Fraction(1023, 1024)
    """
    values = list(terms)
    if not values:
        return Fraction(0)
    while len(values) > 1:
        paired = [values[i] + values[i + 1] for i in range(0, len(values) - 1, 2)]
        if len(values) % 2:
            paired.append(values[-1])
        values = paired
    return Fraction(values[0])


def powers(p: Fraction, exponents: Iterable[int]) -> dict[int, Fraction]:
    """{d: p^d} for every d in *exponents*, each from the one before it.

    p^d2 = p^d1 · p^(d2-d1) multiplies a big coprime Fraction by a small one,
    whose cross gcds are big-by-small: linear in the digits, where a fresh
    ``p**d`` costs a big power each time (most of an exact RBO^b with thousands
    of distinct square roots, each with its own single power of p).

    >>> powers(Fraction(1, 2), [3, 1])
    {1: Fraction(1, 2), 3: Fraction(1, 8)}
    """
    out: dict[int, Fraction] = {}
    last, value = 0, Fraction(1)
    for d in sorted(set(exponents)):
        value *= p ** (d - last)
        out[d], last = value, d
    return out


def power_series(coefficients: dict[int, Fraction], p: Fraction, cache: Optional[dict[int, Fraction]] = None) -> Fraction:
    """Σ_d coefficients[d]·p^d exactly (d >= 0), by binary splitting.

    Adding the terms one by one as Fractions costs a gcd of ever bigger
    numbers per addition (9 s at 10,000 depths); Horner's rule over a common
    denominator multiplies big by big at every step.  Splitting the range of
    powers in halves, and reducing only the final Fraction, takes
    O(M(n) log n) for n-digit results: 0.1 s at 10,000 depths.

    >>> power_series({1: Fraction(1, 2), 2: Fraction(1, 3)}, Fraction(1, 2))
    Fraction(1, 3)
    """
    items = sorted((d, Fraction(q)) for d, q in coefficients.items() if q)
    if not items:
        return Fraction(0)
    if len(items) == 1:  # one term: Fraction's cross-gcds are all small-by-big
        d, q = items[0]
        return q * (cache[d] if cache is not None and d in cache else p**d)
    a, b = p.numerator, p.denominator

    def split(i: int, j: int) -> tuple[int, int]:
        # Σ_{i<=k<j} q_k·(a/b)^(d_k-d_i) == N / (Q·b^(d_(j-1)-d_i)); returns (N, Q).
        if j - i == 1:
            return items[i][1].numerator, items[i][1].denominator
        m = (i + j) // 2
        n1, q1 = split(i, m)
        n2, q2 = split(m, j)
        shift = items[j - 1][0] - items[m - 1][0]
        return n1 * q2 * b**shift + a ** (items[m][0] - items[i][0]) * n2 * q1, q1 * q2

    n, q = split(0, len(items))
    return Fraction(n * a ** items[0][0], q * b ** items[-1][0])


@lru_cache(maxsize=1 << 16)
def _factor(n: int) -> tuple[tuple[int, int], ...]:
    return tuple(sympy.factorint(n).items())


def inverse_root(*radicands: Fraction) -> tuple[Fraction, int]:
    """1/√(Π radicands) as (f, k) with f rational and k square-free: f·√k.

    >>> inverse_root(Fraction(10, 3), Fraction(7, 2))
    (Fraction(1, 35), 105)
    """
    exponents: Counter[int] = Counter()
    for r in radicands:
        for prime, e in _factor(r.numerator):
            exponents[prime] -= e
        for prime, e in _factor(r.denominator):
            exponents[prime] += e
    # In integers: Fraction arithmetic per prime cost most of an exact RBO^b.
    numerator = denominator = k = 1
    for prime, e in exponents.items():
        half = e // 2  # floor division keeps √ of the odd part
        if half > 0:
            numerator *= prime**half
        elif half < 0:
            denominator *= prime**-half
        if e % 2:
            k *= prime
    return Fraction(numerator, denominator), k


class RootSum:
    """Σ coefficient·p^d / √(radicand product), kept per square-free √k and power d.

    >>> total = RootSum(Fraction(1, 2))
    >>> total.add(Fraction(1), 1, Fraction(2))
    >>> total.add(Fraction(1), 1, Fraction(1, 2))
    >>> total.totals()
    {2: Fraction(3, 4)}
    """

    def __init__(self, p: Fraction) -> None:
        self.p = p
        self.terms: defaultdict[int, defaultdict[int, Fraction]] = defaultdict(lambda: defaultdict(Fraction))

    def add(self, coefficient: Fraction, power: int, *radicands: Fraction) -> None:
        """Add coefficient·p^power / √(Π radicands); no radicands: a rational term."""
        if not coefficient:
            return
        f, k = inverse_root(*radicands) if radicands else (Fraction(1), 1)
        self.terms[k][power] += coefficient * f

    def totals(self) -> dict[int, Fraction]:
        """{k: q_k}, 1 standing for the rational part; zero coefficients dropped."""
        single = [next(iter(v)) for v in self.terms.values() if len(v) == 1]
        cache = powers(self.p, single)
        result = {k: power_series(v, self.p, cache) for k, v in self.terms.items()}
        return {k: q for k, q in result.items() if q}


def to_value(totals: dict[int, Fraction], log_coefficient: Fraction, p: Fraction) -> Any:
    """A Fraction when rational, else the sympy sum q0 + Σ q_k√k + q_ln·ln(1/(1−p)).

    The sum is assembled in sympy's canonical form directly (:func:`_canonical`):
    sympy's own construction re-reduces every 30,000-digit Rational by a gcd
    and re-factors every √k, which took most of the 30-40 s of an exact
    RBO^b at 10,000 tied items.  tests/test_rbo_exact_value.py checks that the
    result is identical (same srepr) to the one sympy builds itself.

    >>> to_value({1: Fraction(1, 4)}, Fraction(0), Fraction(1, 2))
    Fraction(1, 4)
    """
    irrational = {k: q for k, q in totals.items() if k != 1 and q}
    if not irrational and not log_coefficient:
        return Fraction(totals.get(1, 0))
    return _canonical(irrational, totals.get(1, Fraction(0)), log_coefficient, p)


def _rational(q: Fraction) -> Any:
    """sympy's Rational of a Fraction, without sympy reducing it again.

    A Fraction is already in lowest terms, but sympy.Rational(n, d) runs a gcd
    of n and d anyway: seconds for 30,000-digit numbers.  This builds the
    object as sympy's own constructor does once it has reduced (private
    sympy API, checked by tests/test_rbo_exact_value.py).
    """
    if q.denominator == 1:
        return sympy.Integer(q.numerator)
    if q.denominator == 2 and abs(q.numerator) == 1:
        return sympy.Rational(q.numerator, 2)  # a singleton in sympy
    value = sympy.Expr.__new__(sympy.Rational)
    value.p, value.q = q.numerator, q.denominator
    return value


def _canonical(roots: dict[int, Fraction], q0: Fraction, q_ln: Fraction, p: Fraction) -> Any:
    """The canonical sympy Add of q0, q_k·√k (k square-free > 1) and q_ln·ln(1/(1−p)).

    √k of a square-free k > 1 is Pow(k, 1/2) unevaluated and evaluated alike;
    a Rational coefficient stands first in a Mul; an Add holds its terms sorted
    by ``_args_sortkey`` (as tieaware.model.gains builds its log sums).
    """
    from sympy.core.basic import _args_sortkey

    parts = []
    for k, q in roots.items():
        root = sympy.Pow(sympy.Integer(k), sympy.S.Half, evaluate=False)
        parts.append(root if q == 1 else sympy.Mul._from_args((_rational(q), root)))
    if q_ln:
        ln = sympy.log(1 / (1 - sympy.Rational(p.numerator, p.denominator)))
        parts.append(sympy.Mul(_rational(q_ln), ln))
    if q0:
        parts.append(_rational(q0))
    if len(parts) == 1:
        return parts[0]
    return sympy.Add._from_args(tuple(sorted(parts, key=_args_sortkey)))


def coefficients(value: Any) -> dict[Any, Fraction]:
    """Read a value back into canonical coefficients: {1: q0, k: q_k, log: q_ln}.

    Accepts a Fraction, an int, or a sympy sum of rationals times square
    roots of rationals and rationals times one logarithm; raises ValueError
    for anything else, so a comparison through it never passes by accident.

    >>> import sympy
    >>> coefficients(sympy.sqrt(8) / 3 + sympy.Rational(1, 2))
    {1: Fraction(1, 2), 2: Fraction(2, 3)}
    """
    if isinstance(value, (int, Fraction)):
        return {1: Fraction(value)} if value else {}
    result: dict[Any, Fraction] = defaultdict(Fraction)
    for term, q in sympy.sympify(value).as_coefficients_dict().items():
        if not q.is_Rational:
            raise ValueError(f"coefficient {q} of {term} is not rational")
        c = Fraction(int(q.p), int(q.q))
        if term == 1:
            result[1] += c
        elif term.is_Pow and term.exp == sympy.Rational(1, 2) and term.base.is_Rational:
            base = Fraction(int(term.base.p), int(term.base.q))
            f, k = inverse_root(1 / base)  # √base = f·√k
            result[k] += c * f
        elif isinstance(term, sympy.log) and term.args[0].is_Rational:
            result[term] += c
        else:
            raise ValueError(f"term {term} is not a rational, a square root or a log")
    return {k: v for k, v in result.items() if v}
