"""The correlation input model and its refusals: both layers, the same TieawareError naming the argument."""

from fractions import Fraction

import pytest

from tieaware.model.corr_input import corr_pair, corr_variant, ranking_from_scores
from tieaware.model.errors import TieawareError
from tieaware.fast import correlation as fast
from tieaware.reference import correlation as reference

NAMES = [
    "kendall_tau",
    "tau_ap",
    "kendall_tau_expected",
    "tau_ap_expected",
    "kendall_tau_range",
    "tau_ap_range",
    "kendall_tau_variance",
    "tau_ap_variance",
]
BAD = [
    (["a", "b"], ["a", "c"], r"^y holds an item that x does not rank .*got 'c'$"),
    (["a", "b", "c"], ["a", "b"], r"^y does not rank an item that x ranks .*got 'c'$"),
    (["a"], ["a"], r"^x must rank at least 2 items"),
    (["a", "a"], ["a"], r"^x holds a duplicate item, got 'a'$"),
    (["a", ()], ["a"], r"^x has an empty tie group"),
    ("a b", ["a", "b"], r"^x must be a sequence"),
    (["a", 1.5], ["a", 1.5], r"^x holds an item that is not a str or int"),
    (["a", True], ["a", True], r"^x holds an item that is not a str or int"),
]


@pytest.mark.parametrize("layer", [fast, reference], ids=["fast", "reference"])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("x, y, message", BAD)
def test_bad_rankings(layer, name, x, y, message):
    with pytest.raises(TieawareError, match=message):
        getattr(layer, name)(x, y)


@pytest.mark.parametrize("layer", [fast, reference], ids=["fast", "reference"])
def test_bad_arguments(layer):
    for name in ("kendall_tau", "tau_ap"):
        with pytest.raises(TieawareError, match=r'^variant must be "a" or "b", got \'c\'$'):
            getattr(layer, name)(["a", "b"], ["a", "b"], "c")
    for name in NAMES:
        with pytest.raises(TieawareError, match="^exact"):
            getattr(layer, name)(["a", "b"], ["a", "b"], exact="yes")


@pytest.mark.parametrize("layer", [fast, reference], ids=["fast", "reference"])
def test_undefined_values_are_refused(layer):
    # τ_b and τ_AP,b are 0/0 when a ranking is one tie group (scipy gives nan).
    for name in ("kendall_tau", "tau_ap"):
        with pytest.raises(TieawareError, match=r"^y is one tie group: variant b is undefined \(0/0\)"):
            getattr(layer, name)(["a", "b"], [("a", "b")], "b")
        with pytest.raises(TieawareError, match=r"^x is one tie group"):
            getattr(layer, name)([("a", "b")], ["a", "b"], "b")
    # τ_AP,a takes x as the true ranking: untied.
    with pytest.raises(TieawareError, match=r'^x must be untied for variant "a"'):
        layer.tau_ap([("a", "b"), "c"], ["a", "b", "c"], "a")
    # Everything else is defined, even when both rankings are one tie group.
    for name in NAMES[2:]:
        getattr(layer, name)([("a", "b")], [("a", "b")])
    assert layer.kendall_tau([("a", "b")], [("a", "b")], "a") == 0


def test_the_layers_refuse_with_the_same_message():
    for x, y, _ in BAD:
        messages = []
        for layer in (fast, reference):
            with pytest.raises(TieawareError) as info:
                layer.tau_ap_variance(x, y)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_groups_of_any_kind_and_items_of_both_types():
    x = ["a", {"b", 1}, ("c",)]
    y = [frozenset({"c", "a"}), [1], "b"]
    assert corr_pair(x, y) == ((("a",), (1, "b"), ("c",)), (("a", "c"), (1,), ("b",)))
    assert fast.kendall_tau_variance(x, y) == reference.kendall_tau_variance(x, y)


def test_the_reference_refuses_too_many_orderings():
    from tieaware.reference import ordering_limit

    x = [tuple(range(7))]
    with ordering_limit(1000), pytest.raises(TieawareError, match=r"needs 5040 pairs of orderings.*ordering_limit\(5040\)"):
        reference.kendall_tau_variance(x, list(range(7)))
    assert fast.kendall_tau_variance(x, list(range(7))) == Fraction(7 * 6 * 19, 18) / 21**2


def test_ranking_from_scores():
    assert ranking_from_scores({"a": "1.0", "b": 1, "c": 0.5}) == [("a", "b"), "c"]
    assert ranking_from_scores([2, 1, 2]) == [(0, 2), 1]
    assert ranking_from_scores([2, 1, 2], decreasing=False) == [1, (0, 2)]
    with pytest.raises(TieawareError, match="^scores must be a finite number"):
        ranking_from_scores([1, float("nan")])
    with pytest.raises(TieawareError, match="^scores must be a mapping"):
        ranking_from_scores("12")
    with pytest.raises(TieawareError, match="^decreasing must be True or False"):
        ranking_from_scores([1, 2], decreasing="yes")
    with pytest.raises(TieawareError, match="^scores holds an item that is not a str or int"):
        ranking_from_scores({1.5: 1, 2.5: 2})
    assert corr_variant("a") == "a"
