"""The Python API and the commands on odd values: one TieawareError (or one line, exit 2), never a traceback or a guess.

Values of any size print (Python's 4,300-digit limit on int <-> str is never
hit by the library's own exact values); every entry point checks its flags
as evaluate() does; ambiguous inputs are refused or warned about.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import tieaware
from tieaware import TieawareError, fast, from_scores, to_decimal, to_exact_string, to_float
from tieaware.cli import main
from tieaware.io.text import number_text
from tieaware.io.trec import parse_qrels, parse_run
from tieaware.model.exact import rational


def _big_ap() -> Fraction:
    # depth 10,000, the last 9,900 documents tied: AP's exact value has > 4,300 digits
    scores = [10_000 - i if i < 100 else 0 for i in range(10_000)]
    labels = [1 if i in (5, 9_999) else 0 for i in range(10_000)]
    value = fast.average_precision(from_scores(scores, labels))
    assert value.denominator.bit_length() > 4300 * 3.33  # more than 4,300 decimal digits
    return value


def test_the_librarys_own_large_exact_values_print():
    value = _big_ap()
    text = to_exact_string(value)
    p, q = text.split("/")
    assert len(q) > 4300 and p.isdigit() and q.isdigit()
    assert to_decimal(value, 4) == to_decimal(Fraction(round(value * 10**6), 10**6), 4)
    assert to_decimal(-value, 5000).startswith("-0.") and len(to_decimal(value, 5000)) == 5002


def test_five_thousand_digits_of_an_irrational_value():
    value = fast.ndcg(from_scores([1] * 6 + [0] * 6, [1, 0] * 6))  # a sympy expression
    digits = to_decimal(value, 5000)
    assert len(digits) == 5002 and digits.startswith(to_decimal(value, 30)[:-1])
    assert to_exact_string(value * 10**5000)  # sympy prints its big integers too


@pytest.mark.parametrize("value", [object(), "1/3", None, [1], True, {"a": 1}])
def test_to_float_refuses_non_numbers(value):
    with pytest.raises(TieawareError, match=r"^value must be a number"):
        to_float(value)


@pytest.mark.parametrize("value", [object(), None, True])
def test_to_exact_string_refuses_non_numbers(value):
    with pytest.raises(TieawareError, match=r"^value must be a number"):
        to_exact_string(value)


def test_to_float_keeps_taking_numbers():
    import numpy as np
    import sympy

    assert to_float(Fraction(1, 4)) == to_float(np.float32(0.25)) == to_float(sympy.Rational(1, 4)) == 0.25
    assert to_float(np.int64(3)) == 3.0


def test_compare_digits_beyond_the_int_string_limit(capsys, tmp_path):
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "a").write_text("q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\n")
    (tmp_path / "b").write_text("q1 Q0 b 1 2 r\nq1 Q0 a 2 1 r\n")
    for fmt in ("table", "json"):
        assert main(["compare", str(tmp_path / "q"), str(tmp_path / "a"), str(tmp_path / "b"), "--digits", "5000", "--format", fmt]) == 0
        out, err = capsys.readouterr()
        assert err == "" and "0." + "0" * 100 in out


# -- entry points check their arguments as evaluate() does ------------------------------------


QRELS = {"q1": {"a": 1, "b": 0}}
RUN = {"q1": {"a": 1.0, "b": 1.0}}  # pytrec_eval's shape


def test_compare_runs_and_evaluate_spread_take_every_input_shape():
    native_q, native_r = parse_qrels(["q1 0 a 1", "q1 0 b 0"]), parse_run(["q1 Q0 a 1 1 r", "q1 Q0 b 2 1 r"])
    assert tieaware.compare_runs(QRELS, RUN, RUN, "AP") == tieaware.compare_runs(native_q, native_r, native_r, "AP")
    tuples = [("q1", "a", 1.0), ("q1", "b", 1.0)]
    assert tieaware.compare_runs(QRELS, tuples, RUN, "AP")[0].p_greater == Fraction(1, 4)
    assert tieaware.evaluate_spread(QRELS, RUN, "AP") == tieaware.evaluate_spread(native_q, native_r, "AP")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: tieaware.compare_runs(QRELS, RUN, RUN, "AP", max_support=0), "max_support must be an int >= 1, got 0"),
        (lambda: tieaware.compare_runs(QRELS, RUN, RUN, "AP", max_support=2.5), "max_support must be an int >= 1, got 2.5"),
        (lambda: tieaware.compare_runs(QRELS, RUN, RUN, "AP", max_support=True), "max_support must be an int >= 1, got True"),
        (lambda: tieaware.compare_runs(QRELS, RUN, RUN, "AP", exact="yes"), "exact must be True or False, got 'yes'"),
        (lambda: tieaware.compare_runs(QRELS, RUN, RUN, "AP", progress=1), "progress must be True or False, got 1"),
        (lambda: tieaware.compare_runs(QRELS, "run.txt", RUN, "AP"), "run must be"),
        (lambda: tieaware.calc_aggregate(["AP"], QRELS, RUN, exact="yes"), "exact must be True or False, got 'yes'"),
        (lambda: tieaware.calc_aggregate(["AP"], QRELS, RUN, fast_float=1), "fast_float must be True or False, got 1"),
        (lambda: tieaware.iter_calc(["AP"], QRELS, RUN, layer="slow"), "layer must be one of ('fast', 'reference'), got 'slow'"),
        (lambda: tieaware.evaluator(["AP"], QRELS, tie_break="docno"), "tie_break must be None (tie-aware) or 'trec_eval', got 'docno'"),
    ],
)
def test_entry_points_refuse_what_evaluate_refuses(call, message):
    with pytest.raises(TieawareError) as info:
        call()
    assert str(info.value).startswith(message) or message in str(info.value)


# -- ambiguities ---------------------------------------------------------------------------------


def test_a_dataframe_with_both_column_sets_is_refused():
    pd = pytest.importorskip("pandas")
    both = pd.DataFrame({"qid": ["q1"], "docno": ["a"], "label": [1], "query_id": ["q1"], "doc_id": ["b"], "relevance": [0]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(TieawareError, match=r"^qrels is a DataFrame with both 'query_id' and 'qid' columns; keep one"):
        tieaware.evaluate(both, run, "AP")
    run_both = pd.DataFrame({"qid": ["q1"], "query_id": ["q1"], "docno": ["a"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(TieawareError, match=r"^run is a DataFrame with both 'query_id' and 'qid' columns"):
        tieaware.evaluate(QRELS, run_both, "AP")
    assert tieaware.evaluate(both[["qid", "docno", "label"]], run, "AP").mean == {"AP": 1}  # one set: fine


def test_a_query_named_all_is_warned_about(capsys, tmp_path):
    (tmp_path / "q").write_text("all 0 a 1\nq2 0 a 1\n")
    (tmp_path / "r").write_text("all Q0 a 1 1 r\nq2 Q0 a 1 1 r\nq2 Q0 b 2 1 r\n")
    warning = "tieaware eval: warning: a query is named 'all', as the summary rows are"
    for extra in (["-q"], ["-q", "--format", "trec"]):
        assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1", *extra]) == 0
        out, err = capsys.readouterr()
        assert err.startswith(warning) and err.count("\n") == 1
    for extra in ([], ["--format", "trec"], ["-q", "--format", "json"]):  # no per-query rows named "all"
        assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1", *extra]) == 0
        assert capsys.readouterr().err == ""
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1", "-q", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["queries"] == ["all", "q2"]


def test_a_query_named_mean_is_warned_about_in_rbo(capsys, tmp_path):
    (tmp_path / "a").write_text("mean Q0 a 1 1 r\nq2 Q0 a 1 1 r\n")
    assert main(["rbo", str(tmp_path / "a"), str(tmp_path / "a")]) == 0
    assert capsys.readouterr().err.startswith("tieaware rbo: warning: a query is named 'mean'")


@pytest.mark.parametrize("text, value", [("1e00001", 10), ("1E+0002", 100), ("2.5e-00001", Fraction(1, 4)), ("1e0000", 1)])
def test_leading_zeros_in_an_exponent_are_read_as_trec_eval_reads_them(text, value):
    assert number_text(text, "score", "run:1") == value == rational(text, "score")
    run = parse_run([f"q1 Q0 a 1 {text} r"])
    assert run["q1"][0][1] == value


def test_a_long_exponent_is_named_as_the_reason(capsys, tmp_path):
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1e12345 r\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        "r:1: score has an exponent of more than 4 digits, far beyond double range (about 1e-308 to 1.8e308), got '1e12345'"
    )
    (tmp_path / "r").write_text("q1 Q0 a 1 1e00001 r\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1"]) == 0
