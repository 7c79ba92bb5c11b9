"""Sampled recommender measures: fast's closed form == the reference's enumeration of samples and tie orders, exactly."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import tieaware
from tieaware import TieawareError, fast, reference
from tieaware.fast.sampled import over_sample, sample_pmf
from tieaware.proofs import THEOREMS

MEASURES = ["HR@1", "HR@2", "Success@3", "RR@1", "RR@2", "RR@5", "nDCG@1", "nDCG@2", "nDCG@4", "P@1", "P@3", "R@2", "R@6"]


def _equal(a, b):
    """== on Fractions; sympy values (nDCG's log2) must simplify to the same number."""
    if a == b or (isinstance(a, Fraction) and isinstance(b, Fraction)):
        return a == b
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


def _cases():
    # every catalogue of scores in {0, 1, 2} over up to 5 items, every non-empty test set of up to 2, every m
    for n in range(2, 6):
        for scores in product(range(3), repeat=n):
            items = dict(zip("abcdef", scores))
            names = list(items)
            for tests in [names[:1], names[-1:], names[:2], [names[0], names[-1]]]:
                negatives = n - len(set(tests))
                for m in range(negatives + 1):
                    yield items, set(tests), m


def test_fast_equals_reference_on_every_small_catalogue():
    checked = 0
    for items, tests, m in _cases():
        want = reference.sampled_measures(items, tests, MEASURES, m)
        got = fast.sampled_measures(items, tests, MEASURES, m)
        for name in MEASURES:
            assert _equal(got[name], want[name]), (items, tests, m, name, got[name], want[name])
        checked += 1
    assert checked > 5000


def test_seen_items_are_no_negatives():
    items = {"a": 1, "b": 1, "c": 2, "d": 0, "e": 1}
    got = fast.sampled_measures(items, {"a"}, MEASURES, 2, {"c"})
    want = reference.sampled_measures(items, {"a"}, MEASURES, 2, {"c"})
    assert all(_equal(got[n], want[n]) for n in MEASURES)
    assert got["HR@1"] == reference.sampled_measures({"a": 1, "b": 1, "d": 0, "e": 1}, {"a"}, ["HR@1"], 2)["HR@1"]


@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=7),
    st.data(),
)
def test_fast_equals_reference_hypothesis(scores, data):
    items = {f"i{j}": s for j, s in enumerate(scores)}
    names = list(items)
    tests = set(data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)))
    others = [n for n in names if n not in tests]
    seen = set(data.draw(st.lists(st.sampled_from(others), max_size=2, unique=True))) if others else set()
    negatives = len(names) - len(tests) - len(seen)
    m = data.draw(st.integers(0, negatives))
    measures = ["HR@2", "RR@3", "P@2", "R@3", "nDCG@3"]
    want = reference.sampled_measures(items, tests, measures, m, seen)
    got = fast.sampled_measures(items, tests, measures, m, seen)
    assert all(_equal(got[n], want[n]) for n in measures), (items, tests, seen, m)
    floats = fast.sampled_measures(items, tests, measures, m, seen, exact=False)
    assert all(math.isclose(floats[n], float(sympy.sympify(want[n])), rel_tol=1e-12, abs_tol=1e-15) for n in measures)


def test_golden_by_hand():
    # one test item tied with 2 of 4 negatives, 1 above, 1 below; 2 drawn.
    items = {"t": 5, "a": 9, "e1": 5, "e2": 5, "b": 1}
    got = fast.sampled_measures(items, {"t"}, ["HR@1", "RR@10"], 2)
    # samples of 2 of {a, e1, e2, b} (6): {a,*} put t at rank >= 2; {e1,e2}: t first w.p. 1/3; {e,b} (2): 1/2; {b}: none
    assert got["HR@1"] == Fraction(1, 6) * Fraction(1, 3) + Fraction(2, 6) * Fraction(1, 2)
    # a constant model: every negative tied; HR@1 is 1/(m+1), not 1
    flat = {i: 0 for i in "tabcdefghij"}
    assert fast.sampled_measures(flat, {"t"}, ["HR@1"], 4)["HR@1"] == Fraction(1, 5)


def test_pmf_is_scipy_hypergeometric_and_sums_to_one():
    assert sum(sample_pmf(x, y, 4, 3, 2, 5) for x in range(5) for y in range(5)) == 1
    assert [sample_pmf(x, 0, 3, 4, 0, 6) for x in range(4)] == [Fraction(5, 30), Fraction(15, 30), Fraction(9, 30), Fraction(1, 30)]
    assert over_sample(3, 4, 0, 6, lambda x, y: Fraction(x)) == Fraction(3 * 4, 10)  # the hypergeometric mean


def test_api_shapes_and_full_ranking():
    scores = [[3, 2, 2, 2, 1], [0, 0, 0, 0, 0], [1, 2, 3, 4, 5]]
    relevant = {0: [1], 1: [0], 2: []}
    ev = tieaware.sampled_metrics(scores, relevant, ["HR@1", "nDCG@2"], 2, seen={0: [4]})
    assert set(ev.per_user) == {0, 1} and ev.skipped == (2,)
    for user, row in ev.per_user.items():
        items = dict(enumerate(scores[user]))
        seen = {4} if user == 0 else set()
        want = reference.sampled_measures(items, set(relevant[user]), ["HR@1", "nDCG@2"], 2, seen)
        assert all(_equal(row[n], want[n]) for n in want)
        everything = len(items) - 1 - len(seen)
        full = reference.sampled_measures(items, set(relevant[user]), ["HR@1", "nDCG@2"], everything, seen)
        assert all(_equal(ev.full_per_user[user][n], full[n]) for n in full)
    assert ev.mean["HR@1"] == (ev.per_user[0]["HR@1"] + ev.per_user[1]["HR@1"]) / 2
    assert ev.per_user[1]["HR@1"] == Fraction(1, 3)
    floats = tieaware.sampled_metrics(scores, relevant, ["HR@1"], 2, seen={0: [4]}, exact=False)
    assert isinstance(floats.mean["HR@1"], float) and math.isclose(floats.mean["HR@1"], float(ev.mean["HR@1"]))


def test_full_ranking_equals_tieaware_evaluate():
    # the full-ranking value is the ordinary tie-aware measure of the whole catalogue
    scores = {"u": {"a": 2, "b": 2, "c": 1, "d": 2, "e": 0}}
    ev = tieaware.sampled_metrics(scores, {"u": ["a", "c"]}, ["P@2", "RR@3", "nDCG@3", "R@3"], 1)
    run = {"u": {d: float(s) for d, s in scores["u"].items()}}
    qrels = {"u": {"a": 1, "c": 1}}
    want = tieaware.evaluate(qrels, run, ["P@2", "RR@3", "nDCG@3", "R@3"])
    for name in ["P@2", "RR@3", "nDCG@3", "R@3"]:
        assert _equal(ev.full_mean[name], want.mean[name] if hasattr(want, "mean") else want[name]), name


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {0: [0]}, ["HR@1"], -1), "n_negatives"),
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {0: [0]}, ["HR@1"], 3), "n_negatives"),
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {0: [0]}, ["HR@0"], 1), "measures"),
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {0: [0]}, ["AP@3"], 1), "measures"),
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {0: [0]}, ["HR@1"], 1, seen={0: [0]}), "seen"),
        (lambda: tieaware.sampled_metrics([[1, float("nan"), 3]], {0: [0]}, ["HR@1"], 1), "scores"),
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {0: [0]}, ["HR@1"], 1, sampling="pop"), "sampling"),
        (lambda: tieaware.sampled_metrics([[1, 2, 3]], {5: [0]}, ["HR@1"], 1), "relevant"),
    ],
)
def test_bad_input_names_the_argument_and_user(call, argument):
    with pytest.raises(TieawareError) as e:
        call()
    message = str(e.value)
    assert message.startswith(argument + ":"), message
    assert "\n" not in message


def test_bad_input_names_the_user():
    with pytest.raises(TieawareError, match="user 'bob'"):
        tieaware.sampled_metrics({"ann": {"a": 1, "b": 2}, "bob": {"a": 1, "b": float("nan")}}, {"ann": ["a"], "bob": ["a"]}, ["HR@1"], 1)
    with pytest.raises(TieawareError, match="n_negatives: 5 is more than the 1 negatives of user 'bob'"):
        tieaware.sampled_metrics({"bob": {"a": 1, "b": 2}}, {"bob": ["a"]}, ["HR@1"], 5)


def test_the_theorem_is_proved_and_rejects_a_wrong_kernel():
    assert THEOREMS["sampled expectation"]().proved

    def with_replacement(m, above, equal, below, term, *, limit=None, number=None):  # a binomial in place of the hypergeometric
        n = above + equal + below
        total = 0
        for x in range(m + 1):
            for y in range(m - x + 1):
                if limit is not None and x >= limit:
                    continue
                p = Fraction(math.comb(m, x) * math.comb(m - x, y) * above**x * equal**y * below ** (m - x - y), n**m) if n else 1
                total = total + p * term(x, y)
        return total

    assert not THEOREMS["sampled expectation"](kernel=with_replacement).proved


def test_float_mode_on_binomials_past_the_float_range():
    # C(3000, 400) overflows a float; the float pmf divides the integers, correctly rounded
    items = {i: i % 7 for i in range(3000)}
    floats = fast.sampled_measures(items, {0}, ["HR@10", "RR@10"], 400, exact=False)
    exact = fast.sampled_measures(items, {0}, ["HR@10", "RR@10"], 400)
    assert all(math.isclose(floats[n], float(exact[n]), rel_tol=1e-12) for n in exact)
