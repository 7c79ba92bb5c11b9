"""tieaware.check.implementation: every deliberately wrong implementation is caught and diagnosed;
right ones (float or exact) pass without false alarms.

The wrong implementations below are written independently of tieaware: plain
tie-oblivious measures on a sorted list, the way libraries write them.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import pytest

from tieaware import TieawareError, fast, from_scores
from tieaware.check import adapters, implementation

BUDGET = dict(max_size=3, max_examples=30)


# -- tie-oblivious measures on one ordering (a list of labels) ----------------


def ap_of(o, k=None, offset=0):
    relevant = sum(1 for x in o if x >= 1)
    hits, total = 0, 0.0
    for rank, x in enumerate(o[:k] if k else o, start=1):
        if x >= 1:
            hits += 1
            total += hits / (rank + offset)
    return total / relevant if relevant else 0.0


def rr_of(o, offset=0):
    for rank, x in enumerate(o, start=1):
        if x >= 1:
            return 1 / (rank + offset)
    return 0.0


def p_of(o, k):
    return sum(1 for x in o[:k] if x >= 1) / k


def ndcg_of(o, k):
    def dcg(xs):
        return sum(x / math.log2(j + 1) for j, x in enumerate(xs[:k], start=1))

    ideal = dcg(sorted(o, reverse=True))
    return dcg(o) / ideal if ideal else 0.0


def sort_by(scores, labels, key):
    return [labels[i] for i in sorted(range(len(scores)), key=lambda i: key(scores, labels, i))]


def stable(s, l, i):
    return -s[i]


def optimistic(s, l, i):
    return (-s[i], -l[i])


def pessimistic(s, l, i):
    return (-s[i], l[i])


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def groups_of(scores, labels):
    return [g if isinstance(g, list) else [g] for g in from_scores(scores, labels)]


def p_whole_straddling_group(k):
    """Tie-aware P@k, except that a group straddling k counts all its relevant documents."""

    def impl(scores, labels):
        hits, top = 0.0, 0
        for g in groups_of(scores, labels):
            if top < k:
                hits += sum(1 for x in g if x >= 1)
            top += len(g)
        return hits / k

    return impl


def trec_eval_style(metric):
    """An ir_measures-style function: ties broken by docno descending, as trec_eval does."""

    def fn(qrels, run):
        docs = sorted(run["q1"].items(), key=lambda d: d[0], reverse=True)
        docs.sort(key=lambda d: d[1], reverse=True)
        return {"q1": metric([qrels["q1"][d] for d, _ in docs])}

    return fn


# -- the battery: (measure, wrong implementation, expected diagnosis) --------

WRONG = {
    "AP ties by input order": ("AP", lambda s, l: ap_of(sort_by(s, l, stable)), "input_order"),
    "RR ties by input order": ("RR", lambda s, l: rr_of(sort_by(s, l, stable)), "input_order"),
    "nDCG@3 ties by input order": ("nDCG@3", lambda s, l: ndcg_of(sort_by(s, l, stable), 3), "input_order"),
    "AP ties by docno": ("AP", adapters.from_qrels_run(trec_eval_style(ap_of)), "docno"),
    "P@2 ties by docno": ("P@2", adapters.from_qrels_run(trec_eval_style(lambda o: p_of(o, 2))), "docno"),
    "RR ties optimistic": ("RR", lambda s, l: rr_of(sort_by(s, l, optimistic)), "optimistic"),
    "AP ties optimistic": ("AP", lambda s, l: ap_of(sort_by(s, l, optimistic)), "optimistic"),
    "P@3 ties pessimistic": ("P@3", lambda s, l: p_of(sort_by(s, l, pessimistic), 3), "pessimistic"),
    "P@2 straddling group counted whole": ("P@2", p_whole_straddling_group(2), "cutoff_straddle"),
    "P@5 straddling group counted whole": ("P@5", p_whole_straddling_group(5), "cutoff_straddle"),
    "AP on float32 scores": (
        "AP",
        lambda s, l: fast.average_precision(from_scores([f32(x) for x in s], l), exact=False),
        "float32_scores",
    ),
    "nDCG@3 on float32 scores": (
        "nDCG@3",
        lambda s, l: fast.ndcg(from_scores([f32(x) for x in s], l), 3, exact=False),
        "float32_scores",
    ),
    "RR on float32 scores, then ties by docno": (
        "RR",
        adapters.from_qrels_run(
            lambda q, r: trec_eval_style(rr_of)(q, {"q1": {d: f32(s) for d, s in r["q1"].items()}})
        ),
        "docno",  # the exact ties are met first, and there the docno tie-break is the whole story
    ),
    "AP off by one": ("AP", lambda s, l: ap_of(sort_by(s, l, stable), offset=1), "definition"),
    "RR off by one": ("RR", lambda s, l: rr_of(sort_by(s, l, stable), offset=1), "definition"),
    "P@3 computed at k=2": ("P@3", lambda s, l: fast.precision(from_scores(s, l), 2, exact=False), "cutoff_off_by_one"),
    "AP@3 computed at k=4": (
        "AP@3",
        lambda s, l: fast.average_precision(from_scores(s, l), 4, exact=False),
        "cutoff_off_by_one",
    ),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_implementations_are_caught_with_the_right_diagnosis(name):
    measure, impl, cause = WRONG[name]
    result = implementation(impl, measure, **BUDGET)
    assert not result.ok, name
    assert result.counterexample is not None
    assert result.diagnosis is not None and result.diagnosis.cause == cause, (name, str(result))


def test_a_tie_broken_counterexample_is_small_and_fully_reported():
    result = implementation(lambda s, l: ap_of(sort_by(s, l, stable)), "AP", **BUDGET)
    cex = result.counterexample
    # Smallest tied case: two tied documents, the relevant one listed second.
    # Tie-aware AP = mean of AP(0,1) = 1/2 and AP(1,0) = 1, i.e. 3/4; input order gives 1/2.
    assert (cex.scores, cex.labels) == ((1.0, 1.0), (0, 1))
    assert cex.expected == Fraction(3, 4)
    assert cex.got == 0.5
    assert cex.absolute_error == 0.25
    assert cex.relative_error == pytest.approx(1 / 3)
    assert cex.lre == pytest.approx(-math.log10(1 / 3))
    assert cex.phase == "exhaustive"
    text = str(result)
    for piece in ("DIFFERS", "expected 3/4", "got      0.5", "cause    input order"):
        assert piece in text


def test_float32_collapse_is_found_on_near_ties():
    measure, impl, _ = WRONG["AP on float32 scores"]
    cex = implementation(impl, measure, **BUDGET).counterexample
    assert cex.phase == "near-ties"
    assert len(set(cex.scores)) == len(cex.scores)  # distinct doubles ...
    assert len({f32(x) for x in cex.scores}) < len(cex.scores)  # ... equal in float32


CORRECT_FLOAT = {
    "AP": lambda s, l: fast.average_precision(from_scores(s, l), exact=False),
    "AP@3": lambda s, l: fast.average_precision(from_scores(s, l), 3, exact=False),
    "RR": lambda s, l: fast.reciprocal_rank(from_scores(s, l), exact=False),
    "P@2": lambda s, l: fast.precision(from_scores(s, l), 2, exact=False),
    "P(rel=2)@3": lambda s, l: fast.precision(from_scores(s, l), 3, rel=2, exact=False),
    "R@2": lambda s, l: fast.recall(from_scores(s, l), 2, exact=False),
    "nDCG@3": lambda s, l: fast.ndcg(from_scores(s, l), 3, exact=False),
    "nDCG(dcg='exp-log2')": lambda s, l: fast.ndcg(from_scores(s, l), gain="exp2", exact=False),
}


@pytest.mark.parametrize("measure", sorted(CORRECT_FLOAT))
def test_right_float_implementations_pass(measure):
    result = implementation(CORRECT_FLOAT[measure], measure, **BUDGET)
    assert result.ok, str(result)
    assert result.counterexample is None and result.diagnosis is None
    assert "conforms" in str(result)


def test_an_independent_tie_averaging_ndcg_passes():
    """DCG with each tie group's gain spread evenly over its ranks' discounts (sklearn's method, rewritten)."""

    def ndcg(scores, labels, k=3):
        def discount(j):
            return 1 / math.log2(j + 1) if j <= k else 0.0

        dcg, top = 0.0, 0
        for g in groups_of(scores, labels):
            mean_gain = float(sum(g)) / len(g)
            dcg += mean_gain * sum(discount(j) for j in range(top + 1, top + len(g) + 1))
            top += len(g)
        ideal = sum(float(x) * discount(j) for j, x in enumerate(sorted(labels, reverse=True), start=1))
        return dcg / ideal if ideal else 0.0

    assert implementation(ndcg, "nDCG@3", **BUDGET).ok


def test_exact_results_are_compared_exactly():
    right = implementation(lambda s, l: fast.average_precision(from_scores(s, l)), "AP", **BUDGET)
    assert right.ok
    # 10**-20 is far inside the float tolerance, but a Fraction must be exact.
    off = implementation(lambda s, l: fast.average_precision(from_scores(s, l)) + Fraction(1, 10**20), "AP", **BUDGET)
    assert not off.ok
    assert off.counterexample.got - off.counterexample.expected == Fraction(1, 10**20)


def test_tolerance_is_configurable():
    def slightly_off(s, l):
        return fast.precision(from_scores(s, l), 2, exact=False) * (1 + 1e-12)

    assert implementation(slightly_off, "P@2", **BUDGET).ok
    strict = implementation(slightly_off, "P@2", rel_tol=1e-15, **BUDGET)
    assert not strict.ok
    assert strict.counterexample.lre == pytest.approx(12, abs=0.1)


def test_expected_zero_needs_abs_tol():
    def tiny(s, l):
        return fast.precision(from_scores(s, l), 2, exact=False) + 1e-18

    assert not implementation(tiny, "P@2", **BUDGET).ok  # P@2 of a non-relevant document is exactly 0
    assert implementation(tiny, "P@2", abs_tol=1e-15, **BUDGET).ok


def test_raising_implementations_are_reported():
    def fails_on_ties(s, l):
        if len(set(s)) < len(s):
            raise ValueError("ties not supported")
        return fast.precision(from_scores(s, l), 1, exact=False)

    result = implementation(fails_on_ties, "P@1", **BUDGET)
    assert not result.ok
    assert result.counterexample.exception == "ValueError: ties not supported"
    assert result.counterexample.got is None and result.counterexample.error is None
    assert "got      exception ValueError: ties not supported" in str(result)


def test_non_numbers_are_reported():
    result = implementation(lambda s, l: "0.5", "P@1", **BUDGET)
    assert "returned a non-number" in result.counterexample.exception


def test_nan_is_a_failure():
    result = implementation(lambda s, l: float("nan"), "P@1", **BUDGET)
    assert not result.ok and result.counterexample.got != result.counterexample.got


def test_failures_beyond_the_exhaustive_size_are_shrunk():
    def breaks_on_long(s, l):
        value = fast.precision(from_scores(s, l), 2, exact=False)
        return value + 1 if 6 <= len(s) <= 9 else value  # the structured large groups have 10 and more

    result = implementation(breaks_on_long, "P@2", max_size=3, near_tie_size=3, max_examples=100)
    cex = result.counterexample
    assert cex.phase == "hypothesis"
    assert len(cex.scores) == 6
    assert set(cex.labels) == {0}  # labels shrink to non-relevant


def test_verdicts_are_deterministic():
    def subtle(s, l):
        value = fast.average_precision(from_scores(s, l), exact=False)
        return value + 0.01 if len(s) >= 7 and len(set(s)) < len(s) - 2 else value

    runs = [implementation(subtle, "AP", max_size=3, max_examples=80) for _ in range(2)]
    assert runs[0] == runs[1]
    assert not runs[0].ok


def test_min_size_skips_small_inputs():
    def needs_two(s, l):
        if len(s) < 2:
            raise ValueError("need two documents")
        return fast.precision(from_scores(s, l), 1, exact=False)

    assert not implementation(needs_two, "P@1", **BUDGET).ok
    assert implementation(needs_two, "P@1", min_size=2, **BUDGET).ok


@pytest.mark.parametrize(
    "args, options, message",
    [
        ((42, "AP"), {}, r"impl must be a function impl\(scores, labels\) -> number, got 42"),
        ((len, "XYZ@3"), {}, r"measure is not a known measure.*got 'XYZ@3'"),
        ((len, "P"), {}, r"measure needs a cutoff, e\.g\. P@10, got 'P'"),
        ((len, "AP"), {"max_size": -1}, r"max_size must be an int >= 1, got -1"),
        ((len, "AP"), {"max_examples": 1.5}, r"max_examples must be an int >= 0, got 1\.5"),
        ((len, "AP"), {"rel_tol": -1e-9}, r"rel_tol must be a number in \[0, 1\), got -1e-09"),
        ((len, "AP"), {"abs_tol": "0"}, r"abs_tol must be a number in \[0, 1\), got '0'"),
        ((len, "AP"), {"labels": ()}, r"labels must be a non-empty list of labels.*got \(\)"),
        ((len, "AP"), {"labels": (0, -2)}, r"labels must be >= 0, got -2"),
    ],
)
def test_bad_arguments_name_the_argument(args, options, message):
    with pytest.raises(TieawareError, match=message):
        implementation(*args, **options)


def test_progress_bar_option_changes_nothing_but_stderr(capsys):
    impl = CORRECT_FLOAT["RR"]
    quiet = implementation(impl, "RR", **BUDGET)
    shown = implementation(impl, "RR", progress=True, **BUDGET)
    assert quiet == shown
    assert capsys.readouterr().out == ""  # a bar, if any, goes to stderr


def test_untied_only_checks_the_ordinary_measure():
    stable_ap = WRONG["AP ties by input order"][1]
    result = implementation(stable_ap, "AP", ties=False, **BUDGET)
    assert result.ok  # right whenever there are no ties to break
    off = implementation(WRONG["AP off by one"][1], "AP", ties=False, **BUDGET)
    assert not off.ok and len(set(off.counterexample.scores)) == len(off.counterexample.scores)


def test_ties_must_be_a_bool():
    with pytest.raises(TieawareError, match=r"ties must be True or False, got 'no'"):
        implementation(len, "AP", ties="no")
