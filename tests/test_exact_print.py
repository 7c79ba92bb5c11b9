"""tieaware.io.exact_print prints exact values correctly rounded, with their sign, and sizes without str().

The reference for irrational values is mpmath at 60 significant digits
(independent of the interval code under test), rounded half-even with
:mod:`decimal`; cases within 10**-45 of a rounding boundary are left out
(none occur in the examples drawn).
"""

from __future__ import annotations

import contextlib
import decimal as stdlib_decimal
import io
import re
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware.cli import main
from tieaware.commands.eval import _signed
from tieaware.io.exact_print import SHORT, _fraction, decimal, int_text, interval, short_form, signed
from tieaware.model.exact import to_decimal

LOG2_3 = sympy.log(2) / sympy.log(3)


def _reference(expr, digits: int) -> str | None:
    """expr rounded half-even to *digits* places, from 60 significant digits of mpmath; None near a tie."""
    with mpmath.workdps(60):
        value = mpmath.mpf(sympy.N(expr, 60))
        text = mpmath.nstr(value, 60, strip_zeros=False, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)
    exact = stdlib_decimal.Decimal(text)
    step = stdlib_decimal.Decimal(1).scaleb(-digits)
    with stdlib_decimal.localcontext() as ctx:
        ctx.prec = 200
        scaled = exact / step
        if abs(scaled - scaled.to_integral_value(rounding=stdlib_decimal.ROUND_HALF_EVEN)) > stdlib_decimal.Decimal("0.5") - stdlib_decimal.Decimal("1e-40"):
            return None
        rounded = exact.quantize(step, rounding=stdlib_decimal.ROUND_HALF_EVEN)
    out = f"{rounded:f}"
    return "0." + "0" * digits if rounded == 0 and digits else ("0" if rounded == 0 else out)


small = st.fractions(min_value=-5, max_value=5, max_denominator=50)
bases = st.integers(2, 30)


@st.composite
def irrational(draw):
    """q1 + q2·log(a)/log(b) [+ q3·sqrt(c)]: the shapes DCG, nDCG and their differences take."""
    q1, q2, a, b = draw(small), draw(small.filter(bool)), draw(bases), draw(bases)
    expr = sympy.Rational(q1.numerator, q1.denominator) + sympy.Rational(q2.numerator, q2.denominator) * sympy.log(a) / sympy.log(b)
    if draw(st.booleans()):
        q3 = draw(small)
        expr += sympy.Rational(q3.numerator, q3.denominator) * sympy.sqrt(draw(st.integers(2, 50)))
    return expr


@given(irrational(), st.integers(0, 12))
def test_decimal_of_irrational_values_is_correctly_rounded(expr, digits):
    want = _reference(expr, digits)
    if want is not None:
        assert decimal(expr, digits) == want


@given(irrational(), irrational(), st.integers(0, 8))
def test_decimal_of_a_difference_is_the_difference_rounded(a, b, digits):
    want = _reference(a - b, digits)
    if want is not None:
        assert decimal(a, digits, minus=b) == want


@given(st.fractions(max_denominator=10**6), st.fractions(max_denominator=10**6), st.integers(0, 10))
def test_decimal_of_rationals_is_to_decimal(a, b, digits):
    assert decimal(a, digits) == to_decimal(a, digits)
    assert decimal(a, digits, minus=b) == to_decimal(a - b, digits)


@pytest.mark.parametrize(
    "value, minus, digits, text",
    [
        (-sympy.sqrt(2), None, 5, "-1.41421"),
        (1 - sympy.sqrt(2), None, 5, "-0.41421"),
        (Fraction(1), sympy.sqrt(2), 5, "-0.41421"),  # a negative irrational difference keeps its sign
        (LOG2_3, Fraction(1), 6, "-0.369070"),
        (-LOG2_3, None, 10, "-0.6309297536"),
        (sympy.sqrt(2), Fraction(1), 5, "0.41421"),
        (sympy.exp(-3) - sympy.Rational(1, 10), None, 8, "-0.05021293"),
        (LOG2_3 - sympy.Rational(5, 8), None, 4, "0.0059"),
    ],
)
def test_decimal_examples(value, minus, digits, text):
    assert decimal(value, digits, minus=minus) == text


@pytest.mark.parametrize("expr", [sympy.sqrt(2), 1 / sympy.sqrt(3), sympy.log(5), sympy.exp(sympy.Rational(1, 3)), LOG2_3, sympy.Rational(2, 3) ** -3,
                                  sympy.sqrt(2) + sympy.log(3), 1 + LOG2_3 / 7])
def test_interval_handles_each_node_itself(expr):
    # sqrt, 1/sqrt, log, exp, powers and quotients are enclosed by interval arithmetic at the precision
    # asked (width ~2**-prec), not by sympy's evalf widened by a guard of 2**(6 - prec)
    low, high = (_fraction(end) for end in interval(expr, 120)._mpi_)
    value = Fraction(str(sympy.N(expr, 60)))
    assert low - Fraction(1, 10**55) <= value <= high + Fraction(1, 10**55)
    assert high - low < Fraction(1, 2**115) * max(1, abs(value))


@pytest.mark.parametrize("expr, text", [(sympy.pi, "3.1415926536"), (sympy.cos(1) - 1, "-0.4596976941"), (sympy.Float("0.125", 30), "0.1250000000")])
def test_decimal_of_other_nodes_through_sympys_evaluation(expr, text):
    # nodes tieaware's values never hold are enclosed by sympy's evalf with a guard: still correctly rounded
    assert decimal(expr, 10) == text
    assert signed(expr, 10) == ("" if text.startswith("-") else "+") + text


@pytest.mark.parametrize("prec", [53, 80, 200, 400])
def test_interval_of_other_nodes_encloses_the_value(prec):
    # sympy's evalf is rounded: the interval around it must be widened by a real guard at every precision
    for expr in (sympy.pi, sympy.cos(1), sympy.pi * sympy.sqrt(2)):
        low, high = (_fraction(end) for end in interval(expr, prec)._mpi_)
        value = Fraction(str(sympy.N(expr, 150)))
        assert low < value < high and high - low < Fraction(1, 2 ** (prec - 10))


def test_interval_encloses_negative_values():
    box = interval(-LOG2_3, 80)
    assert -0.63093 < box.a <= box.b < -0.63092 and box.b - box.a < 1e-20


@pytest.mark.parametrize(
    "value, minus, digits, text",
    [
        (LOG2_3, Fraction(2, 3), 4, "-0.0357"),
        (Fraction(2, 3), LOG2_3, 4, "+0.0357"),
        (Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10**9), 4, "-0.0000"),  # rounds to zero, still negative
        (Fraction(1, 3) + Fraction(1, 10**9), Fraction(1, 3), 4, "+0.0000"),
        (LOG2_3, LOG2_3 + sympy.Rational(1, 10**9), 4, "-0.0000"),
        (LOG2_3 + sympy.Rational(1, 10**9), LOG2_3, 4, "+0.0000"),
        (0.25, 0.5, 3, "-0.250"),
        (Fraction(1, 3), Fraction(1, 3), 3, "0.000"),
        (sympy.log(6) / sympy.log(2), 1 + sympy.log(3) / sympy.log(2), 4, "0.0000"),  # zero, not structurally: no sign
    ],
)
def test_signed(value, minus, digits, text):
    assert signed(value, digits, minus=minus) == text


def test_signed_without_minus():
    assert [signed(v, 3) for v in (Fraction(1, 2), Fraction(-1, 2), Fraction(0), 0.25, -LOG2_3)] == ["+0.500", "-0.500", "0.000", "+0.250", "-0.631"]


def test_the_difference_column_sign():
    assert _signed(LOG2_3, Fraction(2, 3), 4) == "-0.0357"
    assert _signed(Fraction(2, 3), LOG2_3, 4) == "+0.0357"
    assert _signed(LOG2_3, LOG2_3, 4) == "0"
    assert _signed(Fraction(1, 2), Fraction(1, 2) + Fraction(1, 10**7), 4) == "-0.0000"
    assert _signed(0.5, 0.5, 4) == "0"


def test_eval_prints_a_negative_irrational_difference_with_its_sign(tmp_path):
    # b (relevant) and a (not) tie; trec_eval puts b first (docno descending): nDCG 1.
    # Tie-aware nDCG is (1 + 1/log2(3))/2 = 0.8155, so the difference is -0.1845, irrational.
    (tmp_path / "qrels").write_text("q 0 a 0\nq 0 b 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 0.5 r\nq Q0 b 2 0.5 r\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "nDCG", "--digits", "4"]) == 0
    row = next(line for line in out.getvalue().splitlines() if line.startswith("nDCG"))
    assert row.split()[1] == "0.8155" and row.split()[-1] == "-0.1845", row


@pytest.mark.parametrize(
    "value, text",
    [
        (Fraction(1, 3), "1/3"),
        (Fraction(-7, 2), "-7/2"),
        (Fraction(10**50, 3), "51/1-digit p/q"),
        (Fraction(10**21, 10**22 + 1), "22/23-digit p/q"),
        (LOG2_3, "log(2)/log(3)"),
        (sum(sympy.log(b) / sympy.log(b + 1) for b in range(2, 40)), "irrational"),
    ],
)
def test_short_form(value, text):
    assert short_form(value) == text


def test_short_form_length_limit():
    # p/q is written out while it fits SHORT characters, and abbreviated beyond
    fits = Fraction(10 ** (SHORT - 3) + 1, 7)  # numerator SHORT-2 digits, "/", 1 digit: SHORT characters
    assert short_form(fits) == f"{fits.numerator}/7" and len(short_form(fits)) == SHORT
    over = Fraction(10 ** (SHORT - 2) + 1, 7)
    assert short_form(over) == f"{SHORT - 1}/1-digit p/q"


@pytest.mark.parametrize("digits", [1, 2, 3, 17, SHORT - 3, SHORT - 2])
def test_short_form_counts_digits_exactly_at_the_limit(digits):
    # p/q is written out up to SHORT characters: a numerator of SHORT - 2 nines over 1 just fits,
    # so a digit count one too high (or too low) shows in the form
    for n in (10**digits - 1, 10 ** (digits - 1)):
        text = short_form(Fraction(n, 1))
        assert text == (f"{n}/1" if digits + 2 <= SHORT else f"{digits}/1-digit p/q")
    assert short_form(Fraction(10 ** (SHORT - 1) - 1, 1)) == f"{SHORT - 1}/1-digit p/q"
    assert short_form(Fraction(-(10 ** (SHORT - 2) - 1), 1)) == f"{SHORT - 2}/1-digit p/q"  # the sign is a character too


@pytest.mark.parametrize("n", [0, 9, 10, 99, 100, 10**20 - 1, 10**20, -(10**6)])
def test_short_form_digits_of_integers(n):
    digits = len(str(abs(n)))
    if digits + 2 <= SHORT:
        assert short_form(Fraction(n, 1)) == f"{n}/1"
    assert short_form(Fraction(10**60 + n if n >= 0 else 10**60 - n, 1)) == "61/1-digit p/q"


def test_int_text_past_pythons_limit():
    n = 7 * 10**5000 + 3
    assert int_text(n) == "7" + "0" * 4999 + "3"
    assert re.fullmatch(r"-?\d+", int_text(-n))


def test_missing_values_print_as_nan_or_skipped():
    # norel=nan makes a query without relevant documents NaN (sympy's nan on the exact path), norel=skip
    # leaves it out (None): docs/conventions.md; they print as trec_eval-style "nan" and as "skipped"
    assert short_form(sympy.nan) == "nan" and short_form(float("nan")) == "nan" and short_form(None) == "skipped"
    assert decimal(sympy.nan, 4) == "nan" and decimal(sympy.sqrt(2), 4, minus=sympy.nan) == "nan"
    assert signed(sympy.nan, 4) == "nan"


def test_a_value_whose_enclosure_is_infinite_is_not_printed():
    # log 2 + log 3 - log 6 is exactly 0 (sympy keeps it unsimplified), so its reciprocal has no value:
    # every enclosure of it has infinite ends, and decimal() refuses rather than print a number
    zero = sympy.log(2) + sympy.log(3) - sympy.log(6)
    with pytest.raises(ArithmeticError, match="infinite or NaN"):
        decimal(1 / zero, 4)


def test_a_difference_that_is_exactly_zero_but_not_structurally():
    # log 6 - (log 2 + log 3) = 0: no enclosure settles its sign or its rounding, so the exact difference
    # decides (0.0000, without a sign), not the first operand alone
    assert decimal(sympy.log(6), 4, minus=sympy.log(2) + sympy.log(3)) == "0.0000"
    assert signed(sympy.log(6), 4, minus=sympy.log(2) + sympy.log(3)) == "0.0000"


def test_a_difference_on_a_rounding_boundary_prints_the_difference():
    # log 6 + 3/20000 - (log 2 + log 3) is exactly 0.00015, halfway between 0.0001 and 0.0002: no enclosure
    # settles, so the digits come from the exact difference (not from the first operand, 1.7920).
    # Beware: which neighbour a symbolic tie rounds to is not fixed (sympy does not see the logs cancel).
    text = decimal(sympy.log(6) + sympy.Rational(3, 20000), 4, minus=sympy.log(2) + sympy.log(3))
    assert text in ("0.0001", "0.0002")
