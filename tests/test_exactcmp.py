"""tieaware.model.exactcmp: structural equality, rigorous order, and honest "undecided"."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware import TieawareError, fast
from tieaware.model.exactcmp import Undecided, compare, dense_ranks, interval, to_form

LOG2, LOG3 = sympy.log(2), sympy.log(3)


def test_equal_by_structure_perfect_powers():
    # 1/log2(9) = 1/(2 log2 3): log(9) is reduced to 2·log(3).
    assert compare(LOG2 / sympy.log(9), LOG2 / LOG3 / 2) == 0
    assert to_form(LOG2 / sympy.log(8)) == to_form(Fraction(1, 3))


def test_equal_tied_dcg_is_mean_of_orderings():
    # E[DCG] of a tie = mean over its orderings: the same number built two different ways.
    tied = fast.dcg([[1, 0, 1], 0, 1])
    mean = sympy.Add(*(fast.dcg(o) for o in ([1, 0, 1, 0, 1], [0, 1, 1, 0, 1], [1, 1, 0, 0, 1]))) / 3
    assert compare(tied, mean) == 0


def test_equal_ratios_by_cross_multiplication():
    # nDCG-like ratios a/b and 2a/2b are structurally different expressions, equal values.
    a, b = fast.dcg([0, 1, 1]), fast.dcg([1, 1, 1])
    x = sympy.Mul(a, sympy.Pow(b, -1))
    y = sympy.Mul(sympy.expand(2 * a), sympy.Pow(sympy.expand(2 * b), -1))
    assert x != y  # not == as sympy expressions
    assert compare(x, y) == 0


def test_unequal_needs_more_than_64_bits():
    # The float nearest 1/log2(3), read exactly, differs from it by about 1e-17:
    # decided after refining the intervals, with the right sign.
    third = LOG2 / LOG3
    near = Fraction(0.6309297535714574)
    truth = mpmath.mpf(1) / mpmath.log(3, 2)
    with mpmath.workdps(60):
        want = 1 if mpmath.log(2) / mpmath.log(3) > mpmath.mpf(near.numerator) / near.denominator else -1
    assert compare(third, near) == want
    assert compare(near, third) == -want
    assert abs(float(truth) - float(near)) < 1e-15


def test_undecided_is_reported_not_guessed():
    # log 6 = log 2 + log 3, but the two forms differ structurally: no interval can separate them.
    with pytest.raises(Undecided) as info:
        compare(sympy.log(6), sympy.log(2, evaluate=False) + LOG3)
    assert "cannot decide" in str(info.value)


def test_dense_ranks_with_ties_and_mixed_types():
    third = LOG2 / LOG3  # 0.6309...
    values = [Fraction(1, 2), third, Fraction(1, 2), LOG2 / sympy.log(9) * 2, Fraction(7, 10)]
    assert dense_ranks(values) == [0, 1, 0, 1, 2]


def test_interval_contains_value():
    # 1/log2(3) = 0.630929753571457437099527114342760854... (30 digits bracket it).
    x = interval(LOG2 / LOG3, 128)
    with mpmath.workdps(50):
        assert mpmath.mpf("0.630929753571457437099527114342") <= x.a <= x.b <= mpmath.mpf("0.630929753571457437099527114343")


@pytest.mark.parametrize("value", [True, 1.5, "1", sympy.sqrt(2), sympy.log(Fraction(3, 2))])
def test_bad_values(value):
    with pytest.raises(TieawareError) as info:
        to_form(value)
    assert "value" in str(info.value)


vectors = st.lists(st.integers(0, 2), min_size=1, max_size=9)


@given(vectors, vectors)
def test_order_matches_high_precision(a, b):
    # Independent check: sympy's own 60-digit evaluation of the difference.
    ideal = a + b + [2, 2, 1]  # one ideal that can be the ideal of both (every label of each, and more)
    for x, y in ((fast.dcg(a), fast.dcg(b)), (fast.ndcg(a, ideal=ideal), fast.ndcg(b, ideal=ideal))):
        diff = sympy.N(sympy.sympify(x) - sympy.sympify(y), 60)
        got = compare(x, y)
        if abs(diff) > 1e-40:
            assert got == (1 if diff > 0 else -1)
        else:
            assert got == 0
