"""fast.tie_spread.spread_stats == enumeration over every ordering, for every run measure.

The truth: every ordering consistent with the ties (tieaware.reference.orderings),
the ordinary measure on each (tieaware.runs.evaluate.compute on the untied ordering),
then min, max, variance and the distribution of those values.
"""

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware.runs.evaluate import compute
from tieaware.model.exact import to_float
from tieaware.fast.tie_spread import spread_stats
from tieaware.model.names import parse
from tieaware.model.ranking import groups
from tieaware.reference.orderings import orderings
from tieaware.model.structures import all_tied_rankings

RATIONAL = ["P@2", "R@3", "F1@2", "AP", "AP@3", "RR", "RR@2", "RBP(p=0.5)", "RBP(p=0.5)@3", "ERR", "ERR@2", "P(rel=2)@3", "AP(rel=2)"]
IRRATIONAL = ["DCG@3", "nDCG", "nDCG@2", "nDCG(dcg='exp-log2')@3"]


def truth(m, ranking, ideal):
    return [compute(m, list(o), ideal=ideal) for o in orderings(groups(ranking))]


def check(name, ranking, ideal):
    m = parse(name)
    values = truth(m, ranking, ideal)
    floats = [to_float(v) for v in values]
    mean = sum(floats) / len(floats)
    var = sum((v - mean) ** 2 for v in floats) / len(floats)
    exact = spread_stats(m, ranking, ideal, distribution=True)
    if name in RATIONAL:
        mean = sum(values, Fraction(0)) / len(values)
        assert exact.worst == min(values) and exact.best == max(values), (name, ranking)
        assert exact.variance == sum((v - mean) ** 2 for v in values) / len(values), (name, ranking)
        assert exact.distribution == {v: Fraction(c, len(values)) for v, c in Counter(values).items()}
    else:  # exact sympy values: compared through their floats, and the extremes exactly
        assert exact.distribution is None
        assert abs(to_float(exact.worst) - min(floats)) < 1e-12 and abs(to_float(exact.best) - max(floats)) < 1e-12
        assert abs(to_float(exact.variance) - var) < 1e-12
        assert any(exact.worst == v for v in values) and any(exact.best == v for v in values)
    # Without a distribution, other paths run (closed forms for P, R, F1, RBP, DCG, nDCG;
    # array DP for AP and RR): they must agree too.
    plain = spread_stats(m, ranking, ideal)
    assert (plain.worst, plain.best, plain.variance) == (exact.worst, exact.best, exact.variance) or (
        abs(to_float(plain.variance) - var) < 1e-12 and plain.worst == exact.worst and plain.best == exact.best
    ), (name, ranking)
    for distribution in (True, False):
        floats_mode = spread_stats(m, ranking, ideal, exact=False, distribution=distribution)
        assert abs(floats_mode.worst - min(floats)) < 1e-12 and abs(floats_mode.best - max(floats)) < 1e-12, (name, ranking)
        assert abs(floats_mode.variance - var) < 1e-12, (name, ranking)
        if distribution:
            assert abs(sum(floats_mode.distribution.values()) - 1) < 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_exhaustive_graded(n):
    """Every tied ranking of up to 4 documents over labels 0, 1, 2, with two judged extras."""
    for ranking in all_tied_rankings(n, (0, 1, 2)):
        ideal = [x for g in ranking for x in (g if isinstance(g, list) else [g])] + [1, 2]
        for name in RATIONAL + (IRRATIONAL if n <= 3 else []):
            check(name, ranking, ideal)


@given(st.lists(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=1, max_size=4), min_size=1, max_size=3), st.sampled_from(RATIONAL + IRRATIONAL))
def test_hypothesis(ranking_groups, name):
    ranking = [g if len(g) > 1 else g[0] for g in ranking_groups]
    ideal = [x for g in ranking_groups for x in g] + [1]
    check(name, ranking, ideal)


def test_large_groups_are_polynomial():
    """One group of 400 with 40 relevant: O(n·r) states, no enumeration (C(400, 40) orderings)."""
    ranking = [[1] * 40 + [0] * 360]
    s = spread_stats("AP", ranking, exact=False)
    assert s.worst == pytest.approx(sum((i + 1) / (360 + i + 1) for i in range(40)) / 40)
    assert s.best == pytest.approx(1.0) and 0 < s.variance < 0.01
    assert spread_stats("P@10", ranking).variance == Fraction(1, 10) ** 2 * 10 * Fraction(40, 400) * Fraction(360, 400) * Fraction(390, 399)
