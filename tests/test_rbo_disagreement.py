"""Where the paper's RBO^a formula and the average of bare RBO over tie-breakings differ.

docs/rbo.md keeps both: fast.rbo(variant="a") is the paper's formula (what the
official implementation prints); reference.rbo(variant="a") and
fast.rbo_expected are the exact average over every tie-breaking.  A
systematic search by size (|S| + |L| = 2, 3, 4, 5; every tie structure and
every labelling of L's items up to renaming) finds where they first differ.
docs/rbo.md carries the same table.
"""

import itertools
from fractions import Fraction

import sympy

from tieaware.fast.rank_biased_overlap import rbo_bounds as fast_bounds
from tieaware.fast.rank_biased_overlap import rbo_expected_bounds
from tieaware.reference.rank_biased_overlap import rbo_bounds as reference_bounds
from tieaware.model.structures import compositions


def labellings(s, l):
    """L's items in order: S's items a, b, ... or new ones x, y, ... named in order of appearance."""
    S_items = "abcde"[:s]

    def extend(prefix, new):
        if len(prefix) == l:
            yield list(prefix)
            return
        for e in S_items:
            if e not in prefix:
                yield from extend(prefix + [e], new)
        yield from extend(prefix + ["xyzuv"[new]], new + 1)

    return extend([], 0)


def build(items, sizes):
    ranking, i = [], 0
    for n in sizes:
        group = items[i : i + n]
        ranking.append(group[0] if n == 1 else tuple(group))
        i += n
    return ranking


def cases_of_size(n):
    for s in range(1, n // 2 + 1):
        for sizes_S in compositions(s):
            for sizes_L in compositions(n - s):
                for items_L in labellings(s, n - s):
                    yield build(list("abcde"[:s]), sizes_S), build(items_L, sizes_L)


def first_departures(p, largest):
    """{bound: (size, S, L)} of the first case, by size, where the two differ."""
    found = {}
    for n in range(2, largest + 1):
        for S, L in cases_of_size(n):
            paper, average = fast_bounds(S, L, p, variant="a"), reference_bounds(S, L, p, variant="a")
            assert rbo_expected_bounds(S, L, p) == average
            for bound in ("min", "max", "ext", "res"):
                if bound not in found and getattr(paper, bound) != getattr(average, bound):
                    found[bound] = (n, S, L)
    return found


def test_smallest_counterexamples():
    for p in (Fraction(1, 2), Fraction(9, 10)):
        found = first_departures(p, 5)
        # MIN never differs (both are linear in the contributions, Eq. 22);
        # MAX, EXT and RES first differ at |S| + |L| = 4, on the same pair.
        assert set(found) == {"max", "ext", "res"}
        assert found["max"] == found["ext"] == found["res"] == (4, ["a"], ["a", ("x", "y")])


def test_the_smallest_counterexample_by_hand():
    # S = ⟨a⟩, L = ⟨a [x y]⟩, p = 1/2, s = 1, l = 3.  At depth 2, S's one
    # unseen item matches x or y.  In every tie-breaking that item is at rank
    # 2, so the overlap is 2 and A_2 = 1.  The paper gives x and y their
    # crossing contribution 1/2 (Eqs. 19, 21), so A_2 = 3/4.  All other
    # depths agree: A_1 = A_3 = 1 and the tail is p^4/(1-p) = 1/8.
    # Average: (1-p)/p·(1/2 + 1/4 + 1/8 + 1/8) = 1.
    # Paper:   (1-p)/p·(1/2 + (3/4)/4 + 1/8 + 1/8) = 15/16 (the official
    # implementation prints 0.9375, tests/data/rbo_official.json tc64).
    S, L = ["a"], ["a", ("x", "y")]
    paper, average = fast_bounds(S, L, "1/2", variant="a"), reference_bounds(S, L, "1/2", variant="a")
    assert (paper.max, paper.ext) == (Fraction(15, 16), Fraction(15, 16))
    assert (average.max, average.ext) == (1, 1)
    # MIN = ln 2 for both: (1-p)/p·(1/2 + 1/8 + 1/24 + ln 2 - 2/3).
    assert paper.min == average.min == sympy.log(2)
    assert average.res == 1 - sympy.log(2) and paper.res == Fraction(15, 16) - sympy.log(2)
