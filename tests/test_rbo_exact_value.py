"""fast.rbo_exact.to_value builds sympy's canonical expression without sympy's slow path.

to_value assembles q0 + Σ q_k√k + q_ln·ln(1/(1−p)) directly in canonical
form (it skips re-reducing huge Rationals and re-factoring square roots).
These tests compare it with what sympy builds itself, term for term (srepr),
so a sympy release that changes its canonical form fails here loudly.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware.fast.rbo_exact import to_value

square_free = st.sampled_from([2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 21, 30, 105, 1001, 9699690])
rationals = st.fractions(max_denominator=10**6).filter(bool)


def sympy_own(totals, log_coefficient, p):
    parts = [sympy.Rational(q.numerator, q.denominator) * sympy.sqrt(k) for k, q in totals.items() if k != 1]
    q0 = totals.get(1, Fraction(0))
    parts.append(sympy.Rational(q0.numerator, q0.denominator))
    ln = sympy.log(1 / (1 - sympy.Rational(p.numerator, p.denominator)))
    parts.append(sympy.Rational(log_coefficient.numerator, log_coefficient.denominator) * ln)
    return sympy.Add(*parts)


@given(
    st.dictionaries(square_free, rationals, max_size=6),
    st.one_of(st.just(Fraction(0)), rationals),
    st.one_of(st.just(Fraction(0)), rationals),
    st.sampled_from([Fraction(1, 2), Fraction(9, 10), Fraction(99, 100)]),
)
def test_to_value_is_sympys_canonical_expression(roots, q0, q_ln, p):
    totals = dict(roots)
    if q0:
        totals[1] = q0
    got = to_value(totals, q_ln, p)
    want = sympy_own(totals, q_ln, p)
    if not roots and not q_ln:
        assert got == q0 and isinstance(got, Fraction)
    else:
        assert sympy.srepr(got) == sympy.srepr(want)
        assert got == want and hash(got) == hash(want)


def test_huge_coefficients():
    q = Fraction(3**20000 + 1, 7**15000)
    got = to_value({1: q, 6: q, 10: -q}, Fraction(0), Fraction(9, 10))
    want = sympy_own({1: q, 6: q, 10: -q}, Fraction(0), Fraction(9, 10))
    assert got == want and got.args == want.args  # structural: same terms, same order
    assert [type(a) for a in got.args] == [type(a) for a in want.args]
