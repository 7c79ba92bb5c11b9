"""Bad input (docs/conventions.md, Bad input): a TieawareError, which is a ValueError, naming the argument and the value.

Every case runs against both layers and, where the argument applies, every
measure.  The message check is literal: the argument's name and the
``repr`` of the offending value must both appear.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from tieaware import TieawareError, fast, from_scores, reference

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]

# Each measure called with a valid ranking and cutoff, plus keyword overrides.
MEASURES: dict[str, Callable[..., Any]] = {
    "precision": lambda L, r=(1, 0), k=2, **kw: L.precision(list(r), k, **kw),
    "recall": lambda L, r=(1, 0), k=2, **kw: L.recall(list(r), k, **kw),
    "f1": lambda L, r=(1, 0), k=2, **kw: L.f1(list(r), k, **kw),
    "average_precision": lambda L, r=(1, 0), k=None, **kw: L.average_precision(list(r), k, **kw),
    "reciprocal_rank": lambda L, r=(1, 0), k=None, **kw: L.reciprocal_rank(list(r), k, **kw),
    "dcg": lambda L, r=(1, 0), k=None, **kw: L.dcg(list(r), k, **kw),
    "ndcg": lambda L, r=(1, 0), k=None, **kw: L.ndcg(list(r), k, **kw),
}
BINARY = ["precision", "recall", "f1", "average_precision", "reciprocal_rank"]
WITH_NUM_REL = ["recall", "f1", "average_precision"]
GRADED = ["dcg", "ndcg"]


def raises_naming(argument: str, value: object, call: Callable[[], object]) -> TieawareError:
    """Run *call*; it must raise TieawareError (a ValueError) naming *argument* and *value*."""
    with pytest.raises(TieawareError) as info:
        call()
    error = info.value
    assert isinstance(error, ValueError)
    message = str(error)
    assert argument in message, message
    assert repr(value) in message, message
    return error


# -- rankings and labels -------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
def test_empty_group(layer, measure):
    raises_naming("ranking[1]", [], lambda: MEASURES[measure](layer, r=(1, [], 0)))
    raises_naming("ranking[0]", (), lambda: MEASURES[measure](layer, r=((), 1)))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("value", ["abc", math.nan, math.inf, -math.inf, True, "1/0"])
def test_bad_label(layer, measure, value):
    # As a singleton group and inside a tie group.
    raises_naming("ranking[1]", value, lambda: MEASURES[measure](layer, r=(1, value)))
    raises_naming("ranking[1][1]", value, lambda: MEASURES[measure](layer, r=(1, [0, value])))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
def test_none_label_is_unjudged_and_reads_as_0(layer, measure):
    # None marks an unjudged document (Judged@k, Bpref); every other measure reads it as 0.
    assert MEASURES[measure](layer, r=(1, None)) == MEASURES[measure](layer, r=(1, 0))
    assert MEASURES[measure](layer, r=(1, [0, None])) == MEASURES[measure](layer, r=(1, [0, 0]))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("value", [-1, Fraction(-1, 2), "-0.5", -2])
def test_negative_label_is_in_the_qrels_not_judged_and_reads_as_0(layer, measure, value):
    # trec_eval reads a negative qrels label (TREC Web track: -2 for junk) as "in the pool,
    # not judged": non-relevant, gain 0, for every measure here (Judged counts it as judged).
    assert MEASURES[measure](layer, r=(1, value)) == MEASURES[measure](layer, r=(1, 0))
    assert MEASURES[measure](layer, r=(1, [0, value])) == MEASURES[measure](layer, r=(1, [0, 0]))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("ranking", ["1 0 1", b"10", 5, None, {1, 0}])
def test_ranking_not_a_sequence(layer, measure, ranking):
    raises_naming("ranking", ranking, lambda: _call_raw(layer, measure, ranking))


def _call_raw(layer, measure: str, ranking: object) -> object:
    # The MEASURES helpers copy the ranking into a list; pass it untouched here.
    fn = getattr(layer, measure)
    return fn(ranking, 2) if measure in ("precision", "recall", "f1") else fn(ranking)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("value", ["x", math.nan])
def test_bad_ideal_label(layer, value):
    raises_naming("ideal[1]", value, lambda: layer.ndcg([1, 0], ideal=[2, value]))


# -- the cutoff k ------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True, False, Fraction(2), 2.0])
def test_bad_cutoff(layer, measure, k):
    raises_naming("k", k, lambda: MEASURES[measure](layer, k=k))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", ["precision", "recall", "f1"])
def test_cutoff_required(layer, measure):
    # P, R and F1 have no "whole ranking" default.
    raises_naming("k", None, lambda: MEASURES[measure](layer, k=None))


# -- num_rel and rel -----------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", WITH_NUM_REL)
def test_num_rel_below_relevant_retrieved(layer, measure):
    # Two relevant documents retrieved (one inside a tie group), num_rel = 1.
    error = raises_naming("num_rel", 1, lambda: MEASURES[measure](layer, r=(1, [1, 0]), num_rel=1))
    assert "2" in str(error)  # says how many were retrieved
    # With rel=2 only one document counts, so num_rel = 1 is fine.
    MEASURES[measure](layer, r=(2, [1, 0]), num_rel=1, rel=2)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", WITH_NUM_REL)
@pytest.mark.parametrize("num_rel", [2.5, "3", True, Fraction(3), 3.0, -1])
def test_num_rel_not_an_int(layer, measure, num_rel):
    raises_naming("num_rel", num_rel, lambda: MEASURES[measure](layer, num_rel=num_rel))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", BINARY)
@pytest.mark.parametrize("rel", [0, -1, "0", Fraction(-1, 2), "abc", None, math.nan, True])
def test_bad_threshold(layer, measure, rel):
    raises_naming("rel", rel, lambda: MEASURES[measure](layer, rel=rel))


# -- gain, discount, exact ----------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", GRADED)
@pytest.mark.parametrize("gain", ["exp", "Linear", "", None, 2])
def test_unknown_gain(layer, measure, gain):
    raises_naming("gain", gain, lambda: MEASURES[measure](layer, gain=gain))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", GRADED)
@pytest.mark.parametrize("discount", ["ln", "log10", "LOG2", None, 2])
def test_unknown_discount(layer, measure, discount):
    raises_naming("discount", discount, lambda: MEASURES[measure](layer, discount=discount))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", GRADED)
def test_callable_gain_or_discount_returning_garbage(layer, measure):
    # A user's callable is held to the same rules as any other number.
    raises_naming("gain", math.nan, lambda: MEASURES[measure](layer, gain=lambda label: math.nan))
    raises_naming("gain", "x", lambda: MEASURES[measure](layer, gain=lambda label: "x"))
    raises_naming("discount", None, lambda: MEASURES[measure](layer, discount=lambda j: None))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", GRADED)
@pytest.mark.parametrize("ranking", [(1, "1/2"), ([2, "0.5"], 1), (1.5, 0)])
def test_exp2_needs_integer_labels(layer, measure, ranking):
    error = raises_naming("gain", "exp2", lambda: MEASURES[measure](layer, r=ranking, gain="exp2"))
    assert "integer" in str(error)
    # The offending label is named too.
    assert any(text in str(error) for text in ("1/2", "3/2"))


@pytest.mark.parametrize("layer", LAYERS)
def test_exp2_non_integer_ideal_label(layer):
    error = raises_naming("gain", "exp2", lambda: layer.ndcg([1, 0], ideal=["2.5", 1], gain="exp2"))
    assert "5/2" in str(error)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("exact", ["yes", 1, 0, None, "False"])
def test_exact_not_a_bool(layer, measure, exact):
    raises_naming("exact", exact, lambda: MEASURES[measure](layer, exact=exact))


# -- from_scores -------------------------------------------------------------------------


@pytest.mark.parametrize("position", [0, 2])
def test_nan_score(position):
    scores: list[object] = [3, 2, 1]
    scores[position] = math.nan
    error = raises_naming(f"scores[{position}]", math.nan, lambda: from_scores(scores, [1, 0, 1]))
    assert "NaN" in str(error)


@pytest.mark.parametrize("score", [math.inf, -math.inf, "abc", None, True, "nan"])
def test_other_bad_scores(score):
    raises_naming("scores[1]", score, lambda: from_scores([1, score], [1, 0]))


@pytest.mark.parametrize("scores, labels", [([1, 2, 3], [1, 0]), ([1], [1, 0]), ([], [1])])
def test_mismatched_lengths(scores, labels):
    error = raises_naming("labels", labels, lambda: from_scores(scores, labels))
    assert str(len(scores)) in str(error)


@pytest.mark.parametrize("value", ["abc", None, math.nan])
def test_bad_label_in_from_scores(value):
    raises_naming("labels[1]", value, lambda: from_scores([1, 2], [1, value]))


# -- the reference's enumeration limit ------------------------------------------


@pytest.mark.parametrize("measure", MEASURES)
def test_reference_refuses_too_many_orderings(measure):
    # (0 1 2 3) has 4! = 24 distinct orderings; (0 0 1 1) has only 6.
    with reference.ordering_limit(10):
        with pytest.raises(TieawareError) as info:
            MEASURES[measure](reference, r=([0, 1, 2, 3],), k=2)
        assert isinstance(info.value, ValueError)
        assert "24" in str(info.value) and "10" in str(info.value)
        assert "ordering_limit" in str(info.value)
        MEASURES[measure](reference, r=([0, 0, 1, 1],), k=2)  # 6 <= 10: allowed
    # Raising the limit to the stated count lets it through, with fast's value.
    with reference.ordering_limit(24):
        assert MEASURES[measure](reference, r=([0, 1, 2, 3],), k=2) == MEASURES[measure](fast, r=([0, 1, 2, 3],), k=2)


def test_default_limit_states_the_count():
    # Ten distinct labels in one group: 10! = 3628800 orderings, over the default 10**6.
    assert reference.get_ordering_limit() == 1_000_000
    with pytest.raises(TieawareError, match="3628800"):
        reference.precision([list(range(10))], 1)
    # The count is of distinct orderings: products over groups, equal labels merged.
    # (0 0 1 2 3 4 5 6 7) has 9!/2! = 181440, (8 9 10) has 3! = 6: 1088640 in all.
    with pytest.raises(TieawareError, match="1088640"):
        reference.precision([[0, 0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10]], 1)
    # fast never enumerates.
    assert fast.precision([list(range(10))], 1) == Fraction(9, 10)


def test_ordering_limit_restores_and_validates():
    with reference.ordering_limit(5) as limit:
        assert limit == 5 and reference.get_ordering_limit() == 5
    assert reference.get_ordering_limit() == 1_000_000
    with pytest.raises(RuntimeError):
        with reference.ordering_limit(7):
            raise RuntimeError
    assert reference.get_ordering_limit() == 1_000_000  # restored after an error too
    for limit in (0, -3, 2.5, "10", True, None):
        with pytest.raises(TieawareError) as info:
            with reference.ordering_limit(limit):
                pass
        assert "limit" in str(info.value) and repr(limit) in str(info.value)


@pytest.mark.parametrize("layer", [fast, reference], ids=["fast", "reference"])
@pytest.mark.parametrize("call", [
    lambda m: m.dcg([1, "1/2"], k=1, gain="exp2"),        # the bad label sits past the cutoff
    lambda m: m.ndcg([1, 0], k=1, ideal=[1, "0.5"], gain="exp2"),
    lambda m: m.ndcg([[1, "3/2"]], gain="exp2"),
])
def test_exp2_refuses_non_integer_labels_anywhere(layer, call):
    with pytest.raises(TieawareError, match=r"gain='exp2' needs integer labels .* has the label (1/2|3/2)"):
        call(layer)


# -- inputs that once crashed, hung or gave a wrong value -------------------------
# Each asserts the whole message, the exit code for the command line, and
# that nothing else was printed (capsys sees both streams).


def test_reference_enumerates_a_long_tie_group_without_recursion(capsys):
    # Was RecursionError: one recursive call per position of the group.
    # One relevant document among 1001 tied: E[1/rank] = H(1001) / 1001.
    expected = sum(Fraction(1, j) for j in range(1, 1002)) / 1001
    assert reference.average_precision([[0] * 1000 + [1]]) == expected == fast.average_precision([[0] * 1000 + [1]])
    assert capsys.readouterr() == ("", "")


def test_reference_guard_states_a_count_too_long_to_print(capsys):
    # C(16000, 8000) orderings: more than the 4,300 digits str() accepts, so
    # the guard's own message raised ValueError.  Its digit count, from lgamma:
    log10_count = (math.lgamma(16001) - 2 * math.lgamma(8001)) / math.log(10)
    digits = math.floor(log10_count) + 1
    assert digits > 4300
    with pytest.raises(TieawareError) as info:
        reference.precision([[0] * 8000 + [1] * 8000], 5)
    assert str(info.value) == (
        f"ranking has a {digits}-digit number of orderings consistent with its ties, "
        "over the reference's limit of 1000000; use tieaware.fast"
    )
    assert fast.precision([[0] * 8000 + [1] * 8000], 5) == Fraction(1, 2)
    assert capsys.readouterr() == ("", "")


def test_disagree_k_1_is_a_usage_error(capsys):
    # Was ZeroDivisionError: one vector (1), so no pair and 0/0 percentages.
    from tieaware.cli import main
    from tieaware.analysis.disagreement import disagreement

    assert main(["disagree", "-k", "1"]) == 2
    assert capsys.readouterr() == (
        "",
        "tieaware disagree: error: -k must be >= 2 unless --with-zero is given: -k 1 gives one vector and no pair, got 1\n",
    )
    # The library counts (zero pairs) but refuses a percentage of nothing.
    result = disagreement("P AP", k=1)
    assert result.pairs == 0 and result.count("P", "AP") == 0
    with pytest.raises(TieawareError) as info:
        result.percent("P", "AP")
    assert str(info.value) == (
        "k gives one vector and no pair, so no percentage; use k >= 2 or include the all-zero vector, got 1"
    )
    # With the all-zero vector there is a pair, and the command works.
    assert main(["disagree", "-k", "1", "--with-zero", "-m", "P AP", "--no-float"]) == 0
    out, err = capsys.readouterr()
    assert "2 ordered pairs of distinct vectors" in out and err == ""


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(
    "ranking, ideal, grade, ours, theirs",
    [
        ([2, 1], [1], 2, "1 label", 0),  # was 2.63: an nDCG above 1
        ([2, 1], [3], 1, "2 labels", 1),  # fewer labels than the ranking's relevant ones
        ([[1, "1/2"], 0], ["1/2", "1/2"], 1, "1 label", 0),  # smaller labels
    ],
)
def test_ndcg_ideal_that_cannot_be_the_rankings_ideal(layer, ranking, ideal, grade, ours, theirs, capsys):
    with pytest.raises(TieawareError) as info:
        layer.ndcg(ranking, ideal=ideal)
    assert str(info.value) == (
        f"ideal cannot be the ideal of the ranking: the ranking has {ours} >= {grade} but ideal has {theirs}; "
        f"it must list every judged label of the query, got {ideal!r}"
    )
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("layer", LAYERS)
def test_ndcg_ideal_with_more_judged_labels_is_fine(layer):
    # Zeros in the ranking need no partner (unjudged documents), and judged
    # documents the run missed only add to the ideal.
    assert layer.ndcg([2, 1, 0, 0], ideal=[2, 1]) == 1
    assert layer.ndcg([1, 2], k=1, ideal=[2, 1, 1]) == Fraction(1, 2)


def test_to_decimal_refuses_what_is_not_a_number(capsys):
    from tieaware import to_decimal

    # Was AttributeError: 'str' object has no attribute 'evalf'.
    with pytest.raises(TieawareError) as info:
        to_decimal("abc", 3)
    assert str(info.value) == "value must be a number: a Fraction, int, float, Decimal or sympy value, got 'abc'"
    for value in (None, True, [1], {}):
        with pytest.raises(TieawareError, match=r"^value must be a number"):
            to_decimal(value, 3)
    with pytest.raises(TieawareError, match=r"^value must be a finite number, got nan"):
        to_decimal(math.nan, 3)
    assert capsys.readouterr() == ("", "")


def test_to_decimal_prints_more_digits_than_str_allows():
    from tieaware import to_decimal

    assert to_decimal(Fraction(1, 3), 5000) == "0." + "3" * 5000


def test_version(capsys):
    from importlib.metadata import version

    import tieaware
    from tieaware.cli import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert tieaware.__version__ == version("tieaware")  # pyproject and the package agree
    assert capsys.readouterr() == (f"tieaware {tieaware.__version__}\n", "")


def test_messages_show_huge_and_long_values_briefly(capsys):
    # repr() of an int beyond 4,300 digits raises ValueError; a 6,000-character
    # list would make a 6,000-character message.
    with pytest.raises(TieawareError) as info:
        fast.precision([1], -(10**5000))
    assert str(info.value) == "k must be an int >= 1, got an int of 5001 digits"
    with pytest.raises(TieawareError) as info:
        fast.ndcg([2, 1], ideal=[1] * 2000)
    message = str(info.value)
    assert message.startswith("ideal cannot be the ideal of the ranking: the ranking has 1 label >= 2 but ideal has 0")
    assert message.endswith(", 1, 1] (6000 characters in all)") and len(message) < 500
    assert capsys.readouterr() == ("", "")


def test_huge_exponents_in_strings_are_refused_at_once(capsys):
    # Fraction("1e999999999") computes 10**999999999: minutes at 100% CPU.
    # Through the Python API too, not only in TREC files.
    with pytest.raises(TieawareError) as info:
        from_scores(["1e999999999", "0.5"], [1, 0])
    assert str(info.value) == "scores[0] has an exponent of more than 4 digits, got '1e999999999'"
    with pytest.raises(TieawareError, match=r"^ranking\[0\] has an exponent of more than 4 digits, got '2e-1_0000'$"):
        fast.dcg(["2e-1_0000"])
    # Four digits are fine, and exact.
    assert from_scores(["1e9999", "1e-9999"], [1, 0]) == [Fraction(1), Fraction(0)]
    assert capsys.readouterr() == ("", "")
