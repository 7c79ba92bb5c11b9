"""Exactness (docs/conventions.md, Exactness): what goes in rational stays rational, floats never leak,
float mode is close to the exact value, and exact values print correctly.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware import TieawareError, fast, from_scores, groups, reference, to_decimal, to_exact_string, to_float

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]
F = Fraction


def is_exact(value: Any) -> bool:
    """A Fraction, or a sympy expression with no floating-point number inside."""
    if isinstance(value, Fraction):
        return True
    return isinstance(value, sympy.Basic) and not value.atoms(sympy.Float)


# -- floats and strings in --------------------------------------------------------


def test_float_label_is_read_through_its_repr():
    assert groups([0.9]) == ((F(9, 10),),)
    assert groups([0.9]) == groups(["0.9"]) == groups([F(9, 10)]) == groups([Decimal("0.9")])
    # Not the binary value 0.90000000000000002220446...
    assert groups([0.9])[0][0] != F(0.9)
    # 0.1 + 0.2 prints as 0.30000000000000004, and that is what it means.
    assert groups([0.1 + 0.2]) == ((F(30000000000000004, 10**17),),)


@pytest.mark.parametrize("layer", LAYERS)
def test_float_inputs_give_exact_results(layer):
    # Linear gain at rank 1 (discount 1): the label itself, exactly.
    assert layer.dcg([0.9, 0], 1) == F(9, 10)
    assert layer.dcg([[0.9, 0.1]], 1) == F(1, 2)  # mean of 9/10 and 1/10
    # rel given as a float is exact too: 0.9 >= 0.9.
    assert layer.precision([0.9], 1, rel=0.9) == 1
    assert layer.precision(["0.9"], 1, rel=F(9, 10)) == 1
    # Beware: 0.1 + 0.2 is above 0.3, so it is relevant at rel=0.3, and 0.3 is not at rel=0.1+0.2.
    assert layer.precision([0.1 + 0.2], 1, rel=0.3) == 1
    assert layer.precision([0.3], 1, rel=0.1 + 0.2) == 0


@pytest.mark.parametrize("layer", LAYERS)
def test_no_float_leaks_into_exact_results(layer):
    r = [0.5, [0.1, 2.0, 0], "1.5", [1, 0.25]]
    values = [
        layer.precision(r, 3),
        layer.recall(r, 3, num_rel=5),
        layer.f1(r, 4),
        layer.average_precision(r),
        layer.reciprocal_rank(r, rel=0.5),
        layer.dcg(r),
        layer.dcg(r, 2, discount=lambda j: 1 / j),  # a float-returning callable is read exactly
        layer.ndcg(r, 3, ideal=[2.0, 1.5, 1, 0.5, 0.25, 0.1, 3.5]),  # every label of r, plus one not retrieved
    ]
    for value in values:
        assert is_exact(value), value
    assert layer.dcg(r, 2, discount=lambda j: 1 / j) == F(1, 2) + F(1, 2) * (F(1, 10) + 2 + 0) / 3


def test_from_scores_compares_scores_exactly():
    # "1.0" equals "1" (and the int 1, and Decimal("1.00")): one tie group.
    assert from_scores(["1.0", "1", 1, Decimal("1.00"), "0.5"], [1, 0, 2, 3, 1]) == [[1, 0, 2, 3], 1]
    # 0.1 + 0.2 is not 0.3: two groups, 0.1 + 0.2 ranked first.
    assert 0.1 + 0.2 != 0.3
    assert from_scores([0.3, 0.1 + 0.2], [0, 1]) == [1, 0]
    # ... but the float 0.3 and the strings "0.3", "0.30" are the same score.
    assert from_scores([0.3, "0.3", "0.30", "3/10"], [1, 0, 1, 0]) == [[1, 0, 1, 0]]
    # Scores may be any rational; the measures see only the grouping:
    # 0, (1 0), 1 -> P@2 = (0 + 1·1/2)/2.
    assert from_scores(["2", "1e0", 1, "0.1"], [0, 1, 0, 1]) == [0, [1, 0], 1]
    assert fast.precision(from_scores(["2", "1e0", 1, "0.1"], [0, 1, 0, 1]), 2) == F(1, 4)


# -- float mode ------------------------------------------------------------------------

labels = st.integers(0, 3)
# At most 7 documents, groups of at most 4: the reference enumerates at most
# a few hundred orderings per call.
rankings = st.lists(st.one_of(labels, st.lists(labels, min_size=1, max_size=4)), max_size=5).filter(
    lambda r: sum(len(g) if isinstance(g, list) else 1 for g in r) <= 7
)


def _all_measures(layer, r: list, k: int, exact: bool) -> list:
    return [
        layer.precision(r, k, exact=exact),
        layer.recall(r, k, exact=exact),
        layer.recall(r, k, num_rel=6 * 4, exact=exact),
        layer.f1(r, k, exact=exact),
        layer.average_precision(r, exact=exact),
        layer.average_precision(r, k, rel=2, exact=exact),
        layer.reciprocal_rank(r, exact=exact),
        layer.reciprocal_rank(r, k, exact=exact),
        layer.dcg(r, exact=exact),
        layer.dcg(r, k, gain="exp2", exact=exact),
        layer.ndcg(r, exact=exact),
        # The ideal: every label of r, plus judged documents r did not retrieve.
        layer.ndcg(r, k, ideal=[x for g in r for x in (g if isinstance(g, list) else [g])] + [3, 3, 1], gain="exp2", exact=exact),
    ]


@pytest.mark.parametrize("layer", LAYERS)
@given(r=rankings, k=st.integers(1, 8))
def test_float_mode_is_close_to_exact(layer, r, k):
    exact = _all_measures(layer, r, k, True)
    floats = _all_measures(layer, r, k, False)
    for e, x in zip(exact, floats):
        assert is_exact(e)
        assert type(x) is float
        assert math.isclose(x, to_float(e), rel_tol=1e-12, abs_tol=1e-15), (e, x)


# -- exact values out ------------------------------------------------------------------


def _independent_round(value: Any, digits: int) -> str:
    """Round half-even to *digits* places with the decimal module (not tieaware's code)."""
    with localcontext() as context:
        context.prec = 120
        if isinstance(value, Fraction):
            d = Decimal(value.numerator) / Decimal(value.denominator)
        else:
            d = Decimal(str(sympy.N(sympy.sympify(value), 80)))
        q = d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)
        # A negative value that rounds to zero prints as "0", not decimal's "-0".
        return format(q.copy_abs() if q.is_zero() else q, "f")


@pytest.mark.parametrize(
    "value, digits, text",
    [
        (F(34, 45), 4, "0.7556"),
        (F(2, 3), 3, "0.667"),
        (F(3, 4), 3, "0.750"),
        (F(1, 8), 2, "0.12"),  # half-even: 0.125 -> 0.12
        (F(3, 8), 2, "0.38"),  # half-even: 0.375 -> 0.38
        (F(-1, 3), 2, "-0.33"),
        (F(5, 2), 0, "2"),
        (F(7), 2, "7.00"),
        (F(1, 10**12), 3, "0.000"),
    ],
)
def test_to_decimal_on_fractions(value, digits, text):
    assert to_decimal(value, digits) == text
    assert to_decimal(value, digits) == _independent_round(value, digits)


SYMBOLIC = [
    sympy.Integer(3) + 2 * sympy.log(2) / sympy.log(3),  # the tutorial's DCG@2
    fast.dcg([3, 2, 3, 0, 1]),  # the tutorial's DCG@5
    fast.ndcg([3, 2, 3, 0, 1]),  # the tutorial's nDCG@5
    -sympy.log(2) / sympy.log(7),
    10**20 * sympy.log(2) / sympy.log(3),  # more digits before the point than evalf's guard
    sympy.log(2) / sympy.log(3) / 10**15,
]


@pytest.mark.parametrize("value", SYMBOLIC, ids=range(len(SYMBOLIC)))
@pytest.mark.parametrize("digits", [0, 4, 12, 30])
def test_to_decimal_on_symbolic(value, digits):
    assert not isinstance(value, Fraction)
    assert to_decimal(value, digits) == _independent_round(value, digits)


def test_to_decimal_large_value_regression():
    # evalf counts significant digits; 21 of them sit before the point here.
    assert to_decimal(10**20 * sympy.log(2) / sympy.log(3), 5) == "63092975357145743709.95271"


@pytest.mark.parametrize("value", SYMBOLIC + [F(1, 3), F(34, 45), F(-7, 3)], ids=range(len(SYMBOLIC) + 3))
def test_to_float_is_correctly_rounded(value):
    # The nearest double: compare with the double nearest a 60-digit decimal.
    expected = float(Decimal(str(sympy.N(sympy.sympify(value), 60))))
    assert to_float(value) == expected
    assert type(to_float(value)) is float


def test_to_exact_string():
    assert to_exact_string(F(34, 45)) == "34/45"
    assert to_exact_string(F(3)) == "3/1"
    assert sympy.sympify(to_exact_string(fast.dcg([3, 2, 3, 0, 1]))) == fast.dcg([3, 2, 3, 0, 1])


@pytest.mark.parametrize("digits", [-1, 2.0, "3", True, None])
def test_to_decimal_rejects_bad_digits(digits):
    with pytest.raises(TieawareError) as info:
        to_decimal(F(1, 3), digits)
    assert "digits" in str(info.value) and repr(digits) in str(info.value)


def test_rational_reads_numpy_text_scalars_as_text():
    # np.str_ is a str: read as decimal text, not refused as a numpy scalar of no number dtype
    import numpy as np

    from tieaware.model.exact import rational

    assert rational(np.str_("0.85"), "p") == Fraction(17, 20)
    assert rational(np.array("0.5")[()], "p") == Fraction(1, 2)


def test_divide_keeps_rationals_as_fractions():
    from tieaware.model.exact import divide

    for a, b in ((Fraction(1, 2), Fraction(3, 4)), (1, 2), (Fraction(5), 3)):
        q = divide(a, b)
        assert type(q) is Fraction and q == Fraction(a) / Fraction(b)
