"""fast's RBO kernels: right on numbers, and plain arithmetic on sympy symbols."""

import itertools
from fractions import Fraction

import sympy

from tieaware.fast.rbo_kernels import (
    contribution,
    crossing_contribution,
    group_squares,
    group_total,
    measurable_squares,
    overlap,
    ratio,
    unseen_max,
    unseen_mean,
)


def test_contribution_counts_orderings():
    # Eq. (8): the share of a group's orderings that put an item at rank <= d.
    for t, b in [(1, 1), (1, 3), (4, 6), (2, 5)]:
        group = list(range(b - t + 1))
        orders = list(itertools.permutations(group))
        for d in range(1, b + 3):
            counted = Fraction(sum(1 for o in orders if t + o.index(0) <= d), len(orders))
            assert contribution(t, b, d) == counted


def test_symbolic_kernels():
    t, b, d, c_S, c_L = sympy.symbols("t b d c_S c_L", positive=True)
    assert crossing_contribution(t, b, d) == (d - t + 1) / (b - t + 1)
    assert sympy.expand(group_total(t, b, d)) == sympy.expand(d - t + 1)
    assert sympy.simplify(group_squares(t, b, d) - (d - t + 1) ** 2 / (b - t + 1)) == 0
    assert measurable_squares(t, b, b) == b  # untied once the group is passed
    assert overlap(1, 2, 3, 4, c_S, c_L) == 1 + 2 * c_S + 3 * c_L + 4 * c_S * c_L


def test_ints_never_divide_into_floats():
    assert ratio(1, 3) == Fraction(1, 3) and isinstance(ratio(1, 3), Fraction)
    assert isinstance(crossing_contribution(1, 3, 2), Fraction)
    assert isinstance(unseen_mean(1, 2, Fraction(1, 2)), Fraction)
    assert isinstance(crossing_contribution(1, 3, 2.0), float)


def test_unseen_max_takes_active_items_first():
    # 2 active items (c = 1) then 3 in the straddled group (c = 1/3 each).
    c = Fraction(1, 3)
    assert [unseen_max(k, 2, 3, c) for k in range(0, 7)] == [0, 1, 2, 2 + c, 2 + 2 * c, 3, 3]
