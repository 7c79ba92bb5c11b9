"""Every path that reads a score text gives the double Python's ``float()`` gives, and the exact value ``Fraction()`` gives.

A run's scores are read four ways, by how the text looks and how many
distinct texts there are (tieaware.io.columns._scores):

- ``[-+]digits[.digits]`` with at most 15 digits: in numpy, as M / 10**f
  (``_simple_decimals``; exact because M < 2**53 and 10**f <= 10**15 are
  exact doubles and one division rounds once);
- longer plain decimals: numpy's own ``astype(float64)``;
- texts with an exponent (or any other byte): ``check_number``, one by one
  (tieaware.io.text, which trec.py's line reader uses too);
- more than 1,000 distinct rows: the same, after deduplicating texts by hash.

``float()`` is correctly rounded, and trec_eval's ``atof`` is too, so each
path must give exactly ``float(text)``.  With 16 or 17 digits M / 10**f
rounds twice (M itself is rounded to a double first) and about 5% of such
texts come out one ulp off: an earlier audit widened the fast path to 17
digits and no test noticed.  The texts here have 1 to 20 significant digits,
with and without a sign, a point and an exponent.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tieaware import TieawareError
from tieaware.io import columns
from tieaware.io.columns import prepare, read_table
from tieaware.io.text import check_number, number_text
from tieaware.io.trec import parse_run


@st.composite
def score_texts(draw, exponent: bool | None = None) -> str:
    """A decimal text of 1-20 significant digits, as trec_eval's NUMBER syntax allows."""
    digits = draw(st.integers(1, 20))
    significant = str(draw(st.integers(1, 9))) + "".join(draw(st.lists(st.sampled_from("0123456789"), min_size=digits - 1, max_size=digits - 1)))
    leading = "0" * draw(st.integers(0, 3))  # 0.000123...
    text = leading + significant
    point = draw(st.integers(0, len(text)))
    form = draw(st.sampled_from(["int", "point", "lead"])) if point < len(text) else "int"
    if form == "point" and point > 0:
        text = text[:point] + "." + text[point:]
    elif form == "lead":
        text = "0." + text
    elif draw(st.booleans()):
        text += "."  # "12." is a number
    if exponent if exponent is not None else draw(st.booleans()):
        text += draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "-", "+"])) + str(draw(st.integers(0, 30)))
    return draw(st.sampled_from(["", "-", "+"])) + text


def _scores_of(texts: list[str]) -> list[float]:
    """The doubles tieaware.io.columns gives the run rows with these score texts, one row each."""
    lines = "".join(f"q Q0 d{i} {i + 1} {t} r\n" for i, t in enumerate(texts))
    run = read_table(io.BytesIO(lines.encode()), "run")
    values, _, _ = columns._scores(run)
    return values.tolist()


def _same_double(a: float, b: float) -> bool:
    return a == b and math.copysign(1, a) == math.copysign(1, b)  # -0.0 stays -0.0, as float("-0") is


@given(score_texts())
@example("0.9308161409916927")  # 16 digits: M / 10**16 is one ulp above float()
@example("-0.30000000000000004")
@example("00000000000000000001")
@example("9007199254740993")  # 2**53 + 1
@example("123456789012345.6")  # 16 digits
@example("0.1e-0")
def test_check_number_and_number_text_are_float_and_fraction(text):
    assert _same_double(check_number(text, "score", "run:1"), float(text))
    assert number_text(text, "score", "run:1") == Fraction(text)


@given(st.lists(score_texts(), min_size=1, max_size=40))
def test_every_columnar_path_gives_float(texts):
    got = _scores_of(texts)
    assert all(_same_double(g, float(t)) for g, t in zip(got, texts)), [(t, g, float(t)) for g, t in zip(got, texts) if not _same_double(g, float(t))]


@given(st.lists(score_texts(exponent=False), min_size=1, max_size=40))
def test_plain_decimals_give_float(texts):
    # no exponent: only the numpy paths (M / 10**f, astype), never check_number
    got = _scores_of(texts)
    assert all(_same_double(g, float(t)) for g, t in zip(got, texts))


def test_sixteen_and_seventeen_digit_texts_give_float():
    # repr of random doubles: 16-17 significant digits, the texts `tieaware eval` sees most
    rng = np.random.default_rng(11)
    texts = [repr(float(x)) for x in rng.random(3000)] + [repr(float(-x * 1e3)) for x in rng.random(3000)]
    texts = [t for t in texts if "e" not in t]
    assert sum(1 for t in texts if len(t.lstrip("-0.").replace(".", "")) >= 16) > 3000
    got = _scores_of(texts)
    wrong = [(t, g) for t, g in zip(texts, got) if g != float(t)]
    assert not wrong, wrong[:3]


def test_many_distinct_and_repeated_texts_give_float():
    # > 1,000 distinct rows and heavy repetition: the texts are deduplicated by hash first
    rng = np.random.default_rng(12)
    pool = [repr(float(x)) for x in rng.random(400)] + [f"{x:.3f}" for x in rng.random(400)] + [f"{x:.5e}" for x in rng.random(200)]
    texts = [pool[i] for i in rng.integers(0, len(pool), size=5000)]
    assert _scores_of(texts) == [float(t) for t in texts]


@given(st.lists(score_texts(), min_size=1, max_size=20))
def test_the_line_reader_reads_exact_values(texts):
    run = parse_run([f"q Q0 d{i} {i + 1} {t} r" for i, t in enumerate(texts)])
    assert run["q"] == [(f"d{i}", Fraction(t)) for i, t in enumerate(texts)]


def test_a_near_tie_keeps_its_exact_order():
    # d1 (relevant) scores 0.9308161409916927, d2 (not relevant) the same double written 4 digits longer,
    # exactly larger: d2 ranks first and RR = 1/2, in both modes.  (Read as M / 10**16, d1's text gives
    # the next double up, one ulp above d2's.)
    low = "0.9308161409916927"
    high = low + "0001"
    assert float(high) == float(low) and Fraction(high) > Fraction(low)
    assert int(low[2:]) / 10.0**16 == math.nextafter(float(low), 1)
    qrels = read_table(io.BytesIO(b"q 0 d1 1\nq 0 d2 0\n"), "qrels")
    run = read_table(io.BytesIO(f"q Q0 d1 1 {low} r\nq Q0 d2 2 {high} r\n".encode()), "run")
    from tieaware.runs.evaluate import evaluate_prepared

    for exact in (True, False):
        result = evaluate_prepared(prepare(qrels, run), "RR", exact=exact)
        assert result.per_query["q"]["RR"] == Fraction(1, 2)


def test_many_short_repeated_texts_give_float():
    # texts of at most 8 bytes are their own 64-bit codes when deduplicated; 9 bytes are hashed
    rng = np.random.default_rng(13)
    for width in (6, 8, 9):  # "0.1234", "0.123456", "0.1234567"
        pool = [f"{x:.{width - 2}f}" for x in rng.random(300)]
        assert max(len(t) for t in pool) == width
        texts = [pool[i] for i in rng.integers(0, len(pool), size=3000)]
        assert _scores_of(texts) == [float(t) for t in texts]


def test_colliding_hashes_of_score_texts_are_checked_on_the_texts(monkeypatch):
    # deduplicating > 1,000 rows of long texts goes through a 64-bit hash; force the 300 texts into 7
    # hash values: the texts are compared, so no row takes another text's value
    rng = np.random.default_rng(14)
    pool = [repr(float(x)) for x in rng.random(300)]
    texts = [pool[i] for i in rng.integers(0, len(pool), size=3000)]
    real = columns.hash_texts
    monkeypatch.setattr(columns, "hash_texts", lambda strings, width: real(strings, width) % np.uint64(7))
    assert _scores_of(texts) == [float(t) for t in texts]


def test_signs_and_points_of_short_decimals():
    # the numpy path of <= 15 digits: a leading minus (and only it) makes the value negative
    texts = ["-0.5", ".5", "+0.25", "-3", "-.75", "5.", "+.125", "-0", "0.000001", "-123456789012345"]
    got = _scores_of(texts)
    assert all(_same_double(g, float(t)) for g, t in zip(got, texts)), list(zip(texts, got))


@pytest.mark.parametrize("text", [".", "-", "+", "-.", "+.", "1-2", "0.5+", "--1", "+-1", "1.2.3"])
def test_a_text_that_is_not_a_number_is_refused(text):
    # a NUMBER has a digit, one sign at most and only in front, one point at most: the score is refused
    # with its line, not read as 0 or with the sign dropped
    lines = f"q Q0 d0 1 0.5 r\nq Q0 d1 2 {text} r\n"
    run = read_table(io.BytesIO(lines.encode()), "run")
    with pytest.raises(TieawareError, match=r"<run>:2: score must be a decimal number"):
        columns._scores(run)
