"""tieaware.check.spread: code that computes the worst, best, variance or distribution of a measure over
tie-breakings, checked like implementations of the measure, with diagnoses of its own.

The implementations below are written here: brute force over the orderings of each tie group (small
inputs), or a deliberate mistake.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product

import pytest

from tieaware import TieawareError
from tieaware.check import spread

BUDGET = dict(max_examples=0, labels="binary", max_docs=9)


def groups_by(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    out, last = [], None
    for i in order:
        if out and scores[i] == last:
            out[-1].append(labels[i])
        else:
            out.append([labels[i]])
        last = scores[i]
    return out


def p_at(k, divide_by_retrieved=False):
    def value(o):
        hits = sum(1 for x in o[:k] if x >= 1)
        d = min(k, len(o)) if divide_by_retrieved else k
        return hits / d if d else 0.0

    return value


def values_over_orderings(scores, labels, value):
    gs = groups_by(scores, labels)
    return [value([x for part in parts for x in part]) for parts in product(*(set(permutations(g)) for g in gs))]


def worst(value):
    return lambda s, l: min(values_over_orderings(s, l, value))


def best(value):
    return lambda s, l: max(values_over_orderings(s, l, value))


def variance(value, sd=False):
    def impl(s, l):
        vs = values_over_orderings(s, l, value)
        mean = sum(vs) / len(vs)
        var = sum((v - mean) ** 2 for v in vs) / len(vs)
        return var**0.5 if sd else var

    return impl


def distribution(value):
    def impl(s, l):
        vs = values_over_orderings(s, l, value)
        out = {}
        for v in vs:
            out[v] = out.get(v, 0) + 1 / len(vs)
        return out

    return impl


@pytest.mark.parametrize("statistic, impl", [("min", worst(p_at(3))), ("max", best(p_at(3))), ("variance", variance(p_at(3))), ("distribution", distribution(p_at(3)))])
def test_right_spreads_conform(statistic, impl):
    result = spread(impl, "P@3", statistic, **BUDGET)
    assert result.ok, str(result)


def test_a_min_that_divides_by_the_documents_retrieved_is_named():
    # the worst P@k computed with P@k divided by min(k, n): larger than the expected value when n < k
    result = spread(worst(p_at(3, divide_by_retrieved=True)), "P@3", "min", **BUDGET)
    assert result.cause == "convention" and result.conforms_as == "P(norm=retrieved)@3"


def test_min_and_max_swapped():
    result = spread(best(p_at(3)), "P@3", "min", **BUDGET)
    assert result.cause == "swapped" and len(result.counterexample.labels) == 4  # a tie across rank 3 is the smallest


def test_the_expected_value_in_place_of_the_extreme():
    def mean(s, l):
        vs = values_over_orderings(s, l, p_at(3))
        return sum(vs) / len(vs)

    assert spread(mean, "P@3", "max", **BUDGET).cause == "expected_value"


def test_the_standard_deviation_in_place_of_the_variance():
    assert spread(variance(p_at(3), sd=True), "P@3", "variance", **BUDGET).cause == "standard_deviation"


def test_one_orderings_value_in_place_of_the_extreme():
    def input_order(s, l):
        order = sorted(range(len(s)), key=lambda i: -s[i])
        return p_at(3)([l[i] for i in order])

    assert spread(input_order, "P@3", "min", **BUDGET).cause == "tie_broken_value"


def test_a_wrong_distribution_is_caught():
    def shifted(s, l):
        return {v: p for v, p in distribution(p_at(3))(s, l).items() if p < 1} or {0.0: 1.0}

    assert not spread(shifted, "P@3", "distribution", **BUDGET).ok


def test_bad_statistic():
    with pytest.raises(TieawareError, match="statistic"):
        spread(worst(p_at(3)), "P@3", "median")
