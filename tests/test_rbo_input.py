"""RBO's input model: the text parser, and every bad input in both layers.

Each bad input must raise TieawareError (a ValueError) whose message names
the argument and shows the value (docs/conventions.md, Bad input), identically in both layers.
"""

from fractions import Fraction

import pytest

from tieaware.model.errors import TieawareError
from tieaware.fast.rank_biased_overlap import rbo as fast_rbo
from tieaware.fast.rank_biased_overlap import rbo_expected
from tieaware.model.rbo_input import from_string, rbo_pair, tie_groups, to_string
from tieaware.reference.rank_biased_overlap import rbo as reference_rbo

LAYERS = [
    pytest.param(reference_rbo, id="reference"),
    pytest.param(fast_rbo, id="fast"),
    pytest.param(lambda S, L, p, **kw: rbo_expected(S, L, p, bound=kw.get("bound", "ext")), id="expected"),
]


def test_parser_reads_the_official_readme_form():
    # The official README: from_string('red (blue green) yellow pink')
    assert from_string("red (blue green) yellow pink") == ["red", ("blue", "green"), "yellow", "pink"]
    assert from_string("(blue red) white (yellow black purple) green") == [
        ("blue", "red"),
        "white",
        ("yellow", "black", "purple"),
        "green",
    ]


def test_parser_round_trips_and_tolerates_spacing():
    text = "red (blue green) yellow pink"
    assert to_string(from_string(text)) == text
    assert from_string("  a  ( b   c )d ") == ["a", ("b", "c"), "d"]
    assert from_string("(x)") == [("x",)]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a (b c", "has a '(' without a matching ')'"),
        ("a b) c", "has a ')' without a matching '('"),
        ("a () b", "has an empty tie group '()'"),
        ("(a (b c))", "must not nest tie groups"),
    ],
)
def test_parser_rejects_malformed_text(text, problem):
    with pytest.raises(TieawareError) as info:
        from_string(text)
    assert str(info.value) == f"text {problem}, got {text!r}"


def test_parser_rejects_non_text():
    with pytest.raises(TieawareError, match=r"^text must be a string"):
        from_string(["a"])


def test_sets_are_ordered_deterministically_and_sequences_kept():
    assert tie_groups([{"b", "a", 2, 1}], "S") == ((1, 2, "a", "b"),)
    assert tie_groups([["b", "a"]], "S") == (("b", "a"),)


def test_the_longer_ranking_passed_first_is_swapped():
    assert rbo_pair(["a", "b"], ["c"]) == ((("c",),), (("a",), ("b",)))


@pytest.mark.parametrize("rbo", LAYERS)
@pytest.mark.parametrize(
    "S, L, argument, value, problem",
    [
        (["a", "b", "a"], ["a"], "S", "'a'", "holds a duplicate item"),
        (["a", ("b", "a")], ["a"], "S", "'a'", "holds a duplicate item"),
        (["a"], ["x", ("y", "x")], "L", "'x'", "holds a duplicate item"),
        (["a", []], ["a"], "S", "['a', []]", "has an empty tie group"),
        (["a"], [set()], "L", "[set()]", "has an empty tie group"),
        ([], ["a"], "S", "[]", "must hold at least one item"),
        (["a", ["b", ["c"]]], ["a"], "S", "['c']", "holds an unhashable item; items must be str or int"),
        (["a", {"k": 1}], ["a"], "S", "{'k': 1}", "holds an unhashable item; items must be str or int"),
        (["a", 1.5], ["a"], "S", "1.5", "holds an item that is not a str or int"),
        (["a", True], ["a"], "S", "True", "holds an item that is not a str or int"),
        ("a b", ["a"], "S", "'a b'", "must be a sequence of items and tie groups (use from_string for text)"),
        (["a"], None, "L", "None", "must be a sequence of items and tie groups (use from_string for text)"),
    ],
)
def test_bad_rankings(rbo, S, L, argument, value, problem):
    with pytest.raises(TieawareError) as info:
        rbo(S, L, "0.9")
    assert str(info.value) == f"{argument} {problem}, got {value}"


@pytest.mark.parametrize("rbo", LAYERS)
@pytest.mark.parametrize("p", [0, 1, "1.5", -0.1, Fraction(3, 2)])
def test_p_outside_the_open_unit_interval(rbo, p):
    with pytest.raises(TieawareError) as info:
        rbo(["a"], ["a"], p)
    assert str(info.value) == f"p must be strictly between 0 and 1, got {p!r}"


@pytest.mark.parametrize("rbo", LAYERS)
def test_p_that_is_no_number(rbo):
    with pytest.raises(TieawareError) as info:
        rbo(["a"], ["a"], "ninety")
    assert str(info.value) == "p must be a finite decimal or p/q number, got 'ninety'"


@pytest.mark.parametrize("rbo", [reference_rbo, fast_rbo], ids=["reference", "fast"])
@pytest.mark.parametrize("variant", ["x", "A", "", None, ["a"]])
def test_unknown_variant(rbo, variant):
    with pytest.raises(TieawareError) as info:
        rbo(["a"], ["a"], "0.9", variant=variant)
    assert str(info.value) == f'variant must be "w", "a" or "b", got {variant!r}'


@pytest.mark.parametrize("rbo", LAYERS)
@pytest.mark.parametrize("bound", ["avg", "EXT", None])
def test_unknown_bound(rbo, bound):
    with pytest.raises(TieawareError) as info:
        rbo(["a"], ["a"], "0.9", bound=bound)
    assert str(info.value) == f'bound must be "min", "max", "ext" or "res", got {bound!r}'


@pytest.mark.parametrize("rbo", [reference_rbo, fast_rbo], ids=["reference", "fast"])
def test_exact_must_be_a_bool(rbo):
    with pytest.raises(TieawareError) as info:
        rbo(["a"], ["a"], "0.9", exact="no")
    assert str(info.value) == "exact must be True or False, got 'no'"


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        fast_rbo(["a", "a"], ["a"], "0.9")


def test_float_p_means_its_repr():
    # docs/conventions.md, Exactness: the float 0.9 is exactly 9/10, so exact results agree.
    assert fast_rbo(["a", "b"], ["b", "a"], 0.9) == fast_rbo(["a", "b"], ["b", "a"], Fraction(9, 10))
    assert reference_rbo(["a", "b"], ["b", "a"], 0.9) == fast_rbo(["a", "b"], ["b", "a"], "0.9")


def test_reference_refuses_too_many_orderings_and_the_limit_can_be_raised():
    from tieaware.reference.orderings import ordering_limit

    S, L = [("a", "b", "c")], [("a", "b"), "c"]  # 3! · 2! = 12 pairs of orderings
    with ordering_limit(11), pytest.raises(TieawareError) as info:
        reference_rbo(S, L, "0.9", variant="a")
    assert str(info.value) == (
        "RBO needs 12 pairs of orderings, over the reference's limit of 11; "
        "raise it with tieaware.reference.ordering_limit(12) or use tieaware.fast"
    )
    with ordering_limit(8), pytest.raises(TieawareError, match=r"^RBO needs 9 group orderings per depth"):
        reference_rbo(S, L, "0.9", variant="b")  # 3! + 2! + 1! = 9
    with ordering_limit(12):
        assert reference_rbo(S, L, "0.9", variant="a") == rbo_expected(S, L, "0.9")
