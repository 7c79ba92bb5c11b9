"""fast/rbo_exact.py's exact arithmetic equals the plain computation it speeds up.

Each helper of exact RBO (pairwise sums, chained powers, binary-splitting
power series, 1/√ of a product, the sum of roots per square-free radicand,
the canonical sympy value and reading it back) has an obvious slow
equivalent: plain ``sum``, ``p**d``, a term-by-term series, sympy's own
``sqrt`` and ``Add``.  These tests compare them on drawn inputs, so a change
to any of them fails here and not only through a whole RBO value.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware.fast.rbo_exact import RootSum, coefficients, exact_sum, inverse_root, power_series, powers, to_value

fractions = st.fractions(min_value=-50, max_value=50, max_denominator=60)
positive = st.fractions(min_value=Fraction(1, 60), max_value=60, max_denominator=60)
probabilities = st.fractions(min_value=Fraction(1, 50), max_value=Fraction(49, 50), max_denominator=50)


@given(st.lists(fractions, max_size=20))
def test_exact_sum_is_sum(values):
    assert exact_sum(iter(values)) == sum(values, Fraction(0))
    assert type(exact_sum(values)) is Fraction


@given(probabilities, st.lists(st.integers(0, 40), max_size=12))
def test_powers_are_powers(p, exponents):
    assert powers(p, exponents) == {d: p**d for d in exponents}


@given(st.dictionaries(st.integers(0, 40), fractions, max_size=12), probabilities, st.booleans())
def test_power_series_is_the_series(coefficients_, p, cached):
    cache = powers(p, coefficients_) if cached else None
    assert power_series(coefficients_, p, cache) == sum((q * p**d for d, q in coefficients_.items()), Fraction(0))


@given(st.lists(positive, min_size=1, max_size=4))
def test_inverse_root_is_one_over_the_square_root(radicands):
    f, k = inverse_root(*radicands)
    assert k >= 1 and sympy.factorint(k) == {prime: 1 for prime in sympy.factorint(k)}  # square-free
    product = math.prod(radicands, start=Fraction(1))
    assert f * f * k * product == 1 and f > 0  # (f·√k)² = 1/Π


@given(probabilities, st.lists(st.tuples(fractions, st.integers(0, 12), st.lists(positive, max_size=2)), max_size=8))
def test_root_sum_totals_are_the_sum(p, terms):
    total = RootSum(p)
    expected = sympy.Integer(0)
    for c, d, radicands in terms:
        total.add(c, d, *radicands)
        root = sympy.sqrt(sympy.Rational(math.prod(radicands, start=Fraction(1))))
        expected += sympy.Rational(c) * sympy.Rational(p) ** d / root
    totals = total.totals()
    assert all(q for q in totals.values())  # zero coefficients are dropped
    assert totals == coefficients(sympy.expand(expected))  # sympy's sqrt of a Rational is q·√k, k square-free


@given(st.dictionaries(st.sampled_from([1, 2, 3, 5, 6, 7, 10]), fractions, max_size=4), fractions, probabilities)
def test_to_value_is_sympys_own_sum_and_reads_back(totals, log_coefficient, p):
    value = to_value(totals, log_coefficient, p)
    plain = sum((sympy.Rational(q) * sympy.sqrt(k) for k, q in totals.items()), sympy.Integer(0))
    plain += sympy.Rational(log_coefficient) * sympy.log(1 / (1 - sympy.Rational(p)))
    if all(k == 1 or not q for k, q in totals.items()) and not log_coefficient:
        assert type(value) is Fraction and value == totals.get(1, 0)
    else:
        assert sympy.srepr(value) == sympy.srepr(plain)  # the same object sympy builds
    back = coefficients(value)
    want = {k: q for k, q in totals.items() if q}
    if log_coefficient and not isinstance(value, Fraction):
        want[sympy.log(1 / (1 - sympy.Rational(p)))] = log_coefficient
    assert back == want


def test_coefficients_refuse_other_terms():
    import pytest

    for value in (sympy.pi, sympy.sqrt(2) * sympy.pi, sympy.log(sympy.pi), sympy.Symbol("x")):
        with pytest.raises(ValueError):
            coefficients(value)
    assert coefficients(Fraction(0)) == {} and coefficients(3) == {1: Fraction(3)}
    assert coefficients(sympy.sqrt(sympy.Rational(9, 2))) == {2: Fraction(3, 2)}  # 3/√2 = (3/2)·√2
