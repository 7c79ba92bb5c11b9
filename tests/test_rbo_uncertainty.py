"""RBO worst, best and variance over tie-breakings: fast == reference, exactly.

The reference enumerates every pair of orderings of S and L and takes the
bare RBO of each (tieaware.reference.rbo_bounds on the untied pair); fast
uses the two constructed tie-breakings (fast.rbo_uncertainty.rbo_best_orderings
and rbo_worst_orderings) and Hoeffding's permutation variance.  So these
tests are also the proof, by exhaustion on small cases, that the
constructed orderings are extremal.

Exhaustive cases:

- every labelling: every tie structure of S and L with 1..3 items each
  (and 2+4, 4+2), and every way L's items can be S's items or new ones, up
  to renaming; every bound, p = 1/2;
- every tie structure up to 5 + 5 items over the arrangements of
  tests/test_rbo_differential.py (identical, reversed, partly overlapping,
  disjoint, prefix), p = 9/10, bound EXT (MIN and MAX have the same random
  part as each other, RES none; the labelling test covers all four).

Then hypothesis beyond, and the float modes.
"""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware.model.exact import to_float
from tieaware.fast import rbo_uncertainty as fast
from tieaware.fast.rank_biased_overlap import rbo_expected_bounds
from tieaware.reference import rbo_uncertainty as reference
from tieaware.reference.rank_biased_overlap import rbo_bounds as reference_bounds
from tieaware.model.rbo_input import rbo_pair
from tieaware.strategies import rbo_pairs
from tieaware.model.structures import compositions

BOUNDS = ("min", "max", "ext", "res")


def build(items, sizes):
    ranking, start = [], 0
    for n in sizes:
        group = items[start : start + n]
        ranking.append(group[0] if n == 1 else tuple(group))
        start += n
    return ranking


def labellings(n_S, n_L):
    """Every L of n_L items drawn from S = 0..n_S-1 and new items, up to renaming the new ones."""
    S = list(range(n_S))
    for k in range(min(n_S, n_L) + 1):
        for shared in itertools.permutations(S, k):
            for places in itertools.combinations(range(n_L), k):
                L, it = [f"n{i}" for i in range(n_L)], iter(shared)
                for place in places:
                    L[place] = next(it)
                yield S, L


def is_tie_breaking(order, ranking):
    groups = rbo_pair(ranking, ranking)[0]
    start = 0
    for g in groups:
        if set(order[start : start + len(g)]) != set(g):
            return False
        start += len(g)
    return start == len(order)


def check(S, L, p, bounds=BOUNDS, attained=True):
    short, long = rbo_pair(S, L)
    best_S, best_L = fast.rbo_best_orderings(S, L)
    worst_S, worst_L = fast.rbo_worst_orderings(S, L)
    for order, ranking in ((best_S, short), (best_L, long), (worst_S, short), (worst_L, long)):
        assert is_tie_breaking(order, ranking), (S, L, order)
    for bound in bounds:
        low, high = reference.rbo_worst(S, L, p, bound=bound), reference.rbo_best(S, L, p, bound=bound)
        assert fast.rbo_worst(S, L, p, bound=bound) == low, (S, L, p, bound)
        assert fast.rbo_best(S, L, p, bound=bound) == high, (S, L, p, bound)
        if attained:  # the stated orderings attain them, by the reference's own bare RBO
            assert getattr(reference_bounds(worst_S, worst_L, p), bound) == low
            assert getattr(reference_bounds(best_S, best_L, p), bound) == high
        assert fast.rbo_variance(S, L, p, bound=bound) == reference.rbo_variance(S, L, p, bound=bound), (S, L, p, bound)


@pytest.mark.parametrize("n_S, n_L", [(a, b) for a in range(1, 4) for b in range(1, 4)] + [(2, 4), (4, 2)])
def test_every_labelling(n_S, n_L):
    count = 0
    for items_S, items_L in labellings(n_S, n_L):
        for sizes_S in compositions(n_S):
            for sizes_L in compositions(n_L):
                check(build(items_S, sizes_S), build(items_L, sizes_L), Fraction(1, 2))
                count += 1
    assert count > 0


def arrangements(n_S, n_L):
    S = list(range(n_S))
    cases = []
    if n_S == n_L:
        cases += [S, S[::-1]]
    partial = [S[i // 2] if i % 2 == 0 and i // 2 < n_S else f"x{i}" for i in range(n_L)]
    cases += [partial[::-1] if n_L > 2 else partial, [f"y{i}" for i in range(n_L)]]
    if n_L > n_S:
        cases += [S + [f"z{i}" for i in range(n_L - n_S)]]
    return [(S, L) for L in cases]


@pytest.mark.parametrize("n_S, n_L", [(a, b) for a in range(1, 6) for b in range(1, 6) if max(a, b) >= 4])
def test_exhaustive_structures(n_S, n_L):
    for items_S, items_L in arrangements(n_S, n_L):
        for sizes_S in compositions(n_S):
            for sizes_L in compositions(n_L):
                check(build(items_S, sizes_S), build(items_L, sizes_L), Fraction(9, 10), ("ext",), attained=False)


@given(rbo_pairs(max_items=7, max_orderings=2000), st.sampled_from([Fraction(1, 2), Fraction(4, 5), Fraction(95, 100)]))
def test_hypothesis(pair, p):
    S, L = pair
    check(S, L, p, bounds=("ext", "max"))


@given(rbo_pairs(max_items=6, max_orderings=200), st.sampled_from(BOUNDS))
def test_order_statistics(pair, bound):
    """worst <= expected <= best, variance 0 exactly when worst == best."""
    S, L = pair
    low, high = fast.rbo_worst(S, L, "0.9", bound=bound), fast.rbo_best(S, L, "0.9", bound=bound)
    mean = getattr(rbo_expected_bounds(S, L, "0.9"), bound)
    assert to_float(low) <= to_float(mean) + 1e-12 and to_float(mean) <= to_float(high) + 1e-12
    assert (fast.rbo_variance(S, L, "0.9", bound=bound) == 0) is (to_float(high) - to_float(low) < 1e-15)


@given(rbo_pairs(max_items=8), st.sampled_from(BOUNDS))
def test_float_modes(pair, bound):
    S, L = pair
    for name in ("rbo_worst", "rbo_best", "rbo_variance"):
        exact = getattr(fast, name)(S, L, "0.9", bound=bound)
        value = getattr(fast, name)(S, L, "0.9", bound=bound, exact=False)
        assert isinstance(value, float)
        assert value == pytest.approx(to_float(exact), abs=1e-12)


def test_reference_float_is_the_float_of_its_exact_value():
    S, L = ["a", ("b", "c"), "d"], [("d", "b"), "a", "e"]
    for name in ("rbo_worst", "rbo_best", "rbo_variance"):
        assert getattr(reference, name)(S, L, "0.9", exact=False) == to_float(getattr(reference, name)(S, L, "0.9"))


def test_by_hand():
    """S = <a (b c)>, L = <a b c>, p = 1/2: two tie-breakings of S, each equally likely.

    S = a b c gives X = (1, 2, 3): RBO = 1 (identical rankings).
    S = a c b gives X = (1, 1, 3): EXT = (1/2)/(1/2)·(1·1/2 + (1/2)·1/4 + 1·1/8 + 1·1/8) = 7/8.
    Mean 15/16, variance ((1/16)² + (1/16)²)/2 = 1/256.
    """
    S, L = ["a", ("b", "c")], ["a", "b", "c"]
    for layer in (fast, reference):
        assert layer.rbo_best(S, L, "1/2") == 1
        assert layer.rbo_worst(S, L, "1/2") == Fraction(7, 8)
        assert layer.rbo_variance(S, L, "1/2") == Fraction(1, 256)
    assert fast.rbo_worst_orderings(S, L) == (["a", "c", "b"], ["a", "b", "c"])


@pytest.mark.parametrize("layer", [fast, reference])
def test_bad_input(layer):
    with pytest.raises(ValueError, match="bound"):
        layer.rbo_variance(["a"], ["a"], "0.5", bound="mean")
    with pytest.raises(ValueError, match="p"):
        layer.rbo_worst(["a"], ["a"], "2")
    with pytest.raises(ValueError, match="duplicate"):
        layer.rbo_best(["a", "a"], ["a"], "0.5")
    with pytest.raises(ValueError, match="exact"):
        layer.rbo_best(["a"], ["a"], "0.5", exact="yes")
