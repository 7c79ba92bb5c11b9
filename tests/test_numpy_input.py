"""NumPy input is read exactly, under numpy 1.x and 2.x alike (.ci/run runs this file in both).

numpy 2 changed ``repr(np.float64(0.9))`` to ``'np.float64(0.9)'``, which broke
reading a float through its repr; numpy integers passed to ``Fraction`` stay
numpy integers inside it (and overflow).  The rule (docs in tieaware/model/exact.py):
integer dtypes are ints, a float64 is read through its shortest repr exactly
like a Python float, and float32 / float16 / longdouble through the shortest
repr of their own precision.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tieaware import TieawareError, fast, from_scores, reference
from tieaware.model.exact import rational
from tieaware.model.ranking import groups, label

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64, np.longdouble]


def test_the_issue_example():
    # Raised "Invalid literal for Fraction: 'np.float64(0.9)'" under numpy 2.
    assert from_scores(np.array([0.9, 0.5]), np.array([0, 1])) == [Fraction(0), Fraction(1)]
    assert rational(np.array([0.9, 0.5])[0], "score") == Fraction(9, 10)


@pytest.mark.parametrize("dtype", INTS, ids=lambda t: t.__name__)
def test_integer_dtypes_are_plain_ints(dtype):
    for value in (0, 1, 5, int(np.iinfo(dtype).max)):
        got = rational(dtype(value), "x")
        assert got == Fraction(value)
        # Not a numpy integer inside the Fraction: np.int64 arithmetic would wrap around.
        assert type(got.numerator) is int and type(got.denominator) is int
    assert rational(np.uint64(2**64 - 1), "x") == 2**64 - 1
    assert label(np.int64(2**62)) * 4 == 2**64


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.__name__)
def test_float_dtypes_through_their_own_shortest_repr(dtype):
    # 0.1, 0.9 and 1e-3 are not binary fractions in any dtype: what was typed comes back.
    for text, exact in (("0.1", Fraction(1, 10)), ("0.9", Fraction(9, 10)), ("0.5", Fraction(1, 2)), ("3", Fraction(3))):
        got = rational(dtype(text), "x")
        assert got == exact, (dtype, text, got)
        assert type(got.numerator) is int
    assert rational(dtype("-0.25"), "x") == Fraction(-1, 4)


def test_float64_is_read_like_a_python_float():
    for x in (0.9, 0.1 + 0.2, 1e-300, 1.7976931348623157e308, 5e-324, 2.0**-60, 123456.789):
        assert rational(np.float64(x), "x") == rational(x, "x") == Fraction(repr(x))


def test_float32_is_not_read_through_float64():
    # The documented Beware: float() widens the binary value, whose shortest float64 repr is long.
    assert rational(np.float32(0.9), "x") == Fraction(9, 10)
    assert rational(float(np.float32(0.9)), "x") == Fraction("0.8999999761581421")
    # Values float32 cannot tell apart become equal scores: a false tie.
    assert from_scores(np.array([0.1, 0.1 + 1e-9], dtype=np.float32), [1, 0]) == [[Fraction(1), Fraction(0)]]
    assert from_scores(np.array([0.1, 0.1 + 1e-9]), [1, 0]) == [Fraction(0), Fraction(1)]


def test_zero_d_arrays_count_as_their_scalar():
    assert rational(np.array(0.25, dtype=np.float32), "x") == Fraction(1, 4)
    assert rational(np.array(7, dtype=np.uint16), "x") == Fraction(7)


@pytest.mark.parametrize(
    "value, problem",
    [
        (np.bool_(True), "must be a number, not a bool"),
        (np.complex128(1), "must be a real number (int or float dtype)"),
        (np.float32("inf"), "must be a finite number"),
        (np.float64("-inf"), "must be a finite number"),
        (np.float16("nan"), "must be a finite number"),
        (np.datetime64("2020-01-01"), "must be a real number (int or float dtype)"),
    ],
    ids=["bool", "complex", "inf32", "-inf64", "nan16", "datetime"],
)
def test_refused_scalars_name_the_argument_and_value(value, problem):
    with pytest.raises(TieawareError) as info:
        rational(value, "p")
    assert str(info.value) == f"p {problem}, got {value!r}"


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_scores_are_named_as_nan(dtype):
    with pytest.raises(TieawareError, match=r"^scores\[1\] is NaN"):
        from_scores(np.array([0.5, np.nan], dtype=dtype), [1, 0])


@pytest.mark.parametrize("layer", LAYERS)
def test_arrays_as_rankings_and_tie_groups(layer):
    as_list = layer.average_precision([1, [0, 1], 1])
    assert as_list == Fraction(31, 36)
    assert layer.average_precision([np.int64(1), np.array([0, 1]), np.uint8(1)]) == as_list
    assert layer.average_precision(np.array([1, 0, 1, 1])) == layer.average_precision([1, 0, 1, 1])
    assert layer.ndcg(np.array([0.5, 2.0], dtype=np.float32)) == layer.ndcg(["0.5", 2])
    assert layer.precision(np.array([1, 0, 1]), np.int64(2)) == Fraction(1, 2)  # a numpy k too
    assert layer.recall([1, 0, 1], 2, np.int32(4)) == Fraction(1, 4)  # and num_rel


def test_arrays_that_are_not_one_dimensional_are_refused():
    matrix = np.array([[1, 0], [0, 1]])
    with pytest.raises(TieawareError, match=r"^ranking must be a 1-d array of labels, not 2-d"):
        groups(matrix)
    with pytest.raises(TieawareError, match=r"^scores must be a list or 1-d array"):
        from_scores(matrix, [1, 0])
    with pytest.raises(TieawareError, match=r"^ranking\[0\] is an empty tie group"):
        groups([np.array([], dtype=np.int64)])


def test_numpy_text_is_read_as_text():
    assert from_scores(np.array(["0.5", "2"]), np.array(["1", "0"])) == [Fraction(0), Fraction(1)]
