"""fast == reference, exactly, for Kendall's τ and τ_AP with ties (docs/correlation.md).

What must be equal, on every pair of tied rankings of up to 6 items (up to
renaming the items: :func:`tieaware.model.structures.ranking_pairs`, 37,277 pairs
at 6 items) and on hypothesis pairs up to 8 items:

- ``kendall_tau`` and ``tau_ap``, variants a and b, value or refusal;
- ``*_expected`` and ``*_variance``: the reference enumerates every pair of
  tie-breakings;
- ``*_range``: min and max equal, and the orderings each layer returns are
  tie-breakings of x and y that attain them (the layers may pick different
  ones);
- τ_a = E[τ] always, and τ_AP,a = E[τ_AP] whenever x is untied.

The 6-item check takes about a minute (most of it Fraction arithmetic), so
it runs as its own test, marked slow; up to 5 items runs in seconds.
"""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware.model.corr_input import corr_pair
from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float
from tieaware.fast import correlation as fast
from tieaware.reference import correlation as reference
from tieaware.strategies import corr_pairs
from tieaware.model.structures import ranking_pairs

COEFFICIENTS = ("kendall_tau", "tau_ap")


def _or_refused(call, *args):
    try:
        return call(*args)
    except TieawareError as exc:
        return ("refused", str(exc))


def is_tie_breaking(order, ranking, name):
    groups = corr_pair(ranking, ranking)[0]
    start = 0
    for g in groups:
        if set(order[start : start + len(g)]) != set(g):
            return False
        start += len(g)
    return start == len(order) == len(set(order))


def check(x, y):
    for name in COEFFICIENTS:
        for variant in ("a", "b"):
            want = _or_refused(getattr(reference, name), x, y, variant)
            assert _or_refused(getattr(fast, name), x, y, variant) == want, (name, variant, x, y)
        expected = getattr(reference, f"{name}_expected")(x, y)
        assert getattr(fast, f"{name}_expected")(x, y) == expected, (name, x, y)
        assert getattr(fast, f"{name}_variance")(x, y) == getattr(reference, f"{name}_variance")(x, y), (name, x, y)
        want_range, got_range = getattr(reference, f"{name}_range")(x, y), getattr(fast, f"{name}_range")(x, y)
        assert got_range[:2] == want_range[:2], (name, x, y)
        of_orderings = reference.tau_of_orderings if name == "kendall_tau" else reference.tau_ap_of_orderings
        for result in (want_range, got_range):
            for value, (x_order, y_order) in ((result.min, result.min_orderings), (result.max, result.max_orderings)):
                assert is_tie_breaking(x_order, x, "x") and is_tie_breaking(y_order, y, "y"), (name, x, y, result)
                assert of_orderings(tuple(x_order), tuple(y_order)) == value, (name, x, y, result)
        assert want_range.min <= expected <= want_range.max
    # The a-variants are the expectations (for τ_AP, when x is untied: the paper's domain).
    assert fast.kendall_tau(x, y, "a") == fast.kendall_tau_expected(x, y)
    if all(len(g) == 1 for g in corr_pair(x, y)[0]):
        assert reference.tau_ap(x, y, "a") == reference.tau_ap_expected(x, y)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_pair_up_to_5_items(n):
    count = 0
    for x, y in ranking_pairs(n):
        check(x, y)
        count += 1
    assert count == {2: 5, 3: 33, 4: 281, 5: 2961}[n]


@pytest.mark.slow
def test_every_pair_of_6_items():
    count = 0
    for x, y in ranking_pairs(6):
        check(x, y)
        count += 1
    assert count == 37_277


@given(corr_pairs(max_items=8, max_orderings=3000))
def test_hypothesis_pairs(pair):
    x, y = pair
    check(x, y)
    # Swapping the roles: τ is symmetric, τ_AP is not (x is the reference).
    assert fast.kendall_tau_expected(y, x) == fast.kendall_tau_expected(x, y)
    assert fast.kendall_tau_variance(y, x) == fast.kendall_tau_variance(x, y)


@given(corr_pairs(max_items=9, max_orderings=10**6), st.sampled_from(COEFFICIENTS))
def test_float_modes(pair, name):
    x, y = pair
    for suffix in ("_expected", "_variance"):
        function = getattr(fast, name + suffix)
        value = function(x, y, exact=False)
        assert isinstance(value, float)
        assert value == pytest.approx(to_float(function(x, y)), abs=1e-12)
    for variant in ("a", "b"):
        exact = _or_refused(getattr(fast, name), x, y, variant)
        if isinstance(exact, tuple):
            continue
        assert getattr(fast, name)(x, y, variant, exact=False) == pytest.approx(to_float(exact), abs=1e-12)
    exact, floats = getattr(fast, name + "_range")(x, y), getattr(fast, name + "_range")(x, y, exact=False)
    assert floats[:2] == pytest.approx([to_float(v) for v in exact[:2]], abs=1e-12)
    assert floats[2:] == exact[2:]


@given(corr_pairs(max_items=5, max_orderings=200))
def test_reference_float_is_the_float_of_its_exact_value(pair):
    x, y = pair
    for name in ("kendall_tau_expected", "tau_ap_expected", "kendall_tau_variance", "tau_ap_variance"):
        assert getattr(reference, name)(x, y, exact=False) == to_float(getattr(reference, name)(x, y))


def test_by_hand():
    """x = a b c, y = a (b c): y's tie-breakings a b c (τ = 1, τ_AP = 1) and a c b (τ = 1/3, τ_AP = 1/2).

    τ_AP of a c b: c has a above it, concordant (1/1); b has a, c above, a concordant (1/2):
    2/2·(1 + 1/2) − 1 = 1/2.  Means: τ 2/3, τ_AP 3/4; variances: (1/3)² = 1/9, (1/4)² = 1/16.
    """
    x, y = ["a", "b", "c"], ["a", ("b", "c")]
    for layer in (fast, reference):
        assert layer.kendall_tau_expected(x, y) == layer.kendall_tau(x, y, "a") == Fraction(2, 3)
        assert layer.tau_ap_expected(x, y) == layer.tau_ap(x, y, "a") == Fraction(3, 4)
        assert layer.kendall_tau_variance(x, y) == Fraction(1, 9)
        assert layer.tau_ap_variance(x, y) == Fraction(1, 16)
        assert layer.kendall_tau_range(x, y)[:2] == (Fraction(1, 3), 1)
        assert layer.tau_ap_range(x, y)[:2] == (Fraction(1, 2), 1)
    assert fast.tau_ap_range(x, y).min_orderings == (["a", "b", "c"], ["a", "c", "b"])
    assert fast.tau_ap_range(x, y).max_orderings == (["a", "b", "c"], ["a", "b", "c"])
