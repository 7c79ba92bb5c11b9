"""Sampled measures: fast's sum over the hypergeometric counts equals the expectation over the samples.

A user's test items are ranked among m negatives drawn uniformly without
replacement from N = above + equal + below.  For a level of relevant items
at score s, the value of a measure's part given the sample depends only on
x (drawn above s) and y (drawn equal to s): given those counts the level is a
tie group of r + y starting after before + x, whichever negatives they are
(exchangeability), and its expectation over the tie order is a group kernel
already proved (E[P@k], E[DCG@k], Success@k, E[RR@k]).  So, by the law of
total expectation, E = Σ_S T(x(S), y(S)) / C(N, m) over the m-subsets S.

The check derives that average by listing the m-subsets of N labelled
negatives themselves, with T an undefined sympy function (so any proved
conditional kernel composes), and demands that fast's ``over_sample`` (the
multivariate hypergeometric pmf ``sample_pmf`` times T, summed over x, y)
equals it, for every split of N <= SAMPLE_SIZE negatives into above, equal and
below, every m <= N and every *limit* (the x from which the caller knows T is 0,
T set to 0 there in the derivation).

>>> prove_sampled().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from math import comb
from typing import Any, Optional

import sympy

from tieaware.fast import sampled
from tieaware.proofs.theorem import ProofFailure, Tex, bounded, theorem

__all__ = ["SAMPLE_SIZE", "prove_sampled"]

#: Every catalogue of up to this many negatives.
SAMPLE_SIZE = 7

_T = sympy.Function("T")  # the conditional expectation given (x, y), left undefined


def _derived(m: int, above: int, equal: int, below: int, limit: Optional[int]) -> Any:
    """Σ over the m-subsets of labelled negatives of T(x, y), divided by their number; T = 0 for x >= limit."""
    kinds = ["above"] * above + ["equal"] * equal + ["below"] * below
    total = sympy.Integer(0)
    for subset in combinations(range(len(kinds)), m):
        x = sum(1 for i in subset if kinds[i] == "above")
        y = sum(1 for i in subset if kinds[i] == "equal")
        if limit is None or x < limit:
            total += _T(x, y)
    return total / comb(len(kinds), m)


@theorem(
    "sampled expectation",
    f"E over uniform m-subsets of N = a + e + b negatives of T(x, y) = Σ_(x,y) C(a,x)C(e,y)C(b,m-x-y)/C(N,m)·T(x, y), "
    f"T the level's proved tie-group expectation; every a, e, b with N <= {SAMPLE_SIZE}, every m and cutoff limit.",
    bounded(f"N<={SAMPLE_SIZE}"),
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}_S[T(x_S, y_S)]"),
        sympy.Sum(
            sympy.binomial(Tex("a"), Tex("x")) * sympy.binomial(Tex("e"), Tex("y")) * sympy.binomial(Tex("b"), Tex("m") - Tex("x") - Tex("y"))
            / sympy.binomial(Tex("N"), Tex("m")) * _T(Tex("x"), Tex("y")),
            (Tex("x"), 0, Tex("m")),
            (Tex("y"), 0, Tex("m") - Tex("x")),
        ),
        evaluate=False,
    ),
    why="over_sample is a finite sum over the drawn counts x and y, which needs numbers, and the derivation lists the "
    f"subsets themselves: every split of up to {SAMPLE_SIZE} negatives into above, equal and below, every sample size m "
    "and every cutoff limit, with the conditional expectation T left an undefined function.",
)
def prove_sampled(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or sampled.over_sample
    cases = 0
    for n in range(SAMPLE_SIZE + 1):
        for above in range(n + 1):
            for equal in range(n - above + 1):
                below = n - above - equal
                for m in range(n + 1):
                    for limit in [None, *range(m + 2)]:
                        got = sympy.sympify(kernel(m, above, equal, below, _T, limit=limit))
                        want = _derived(m, above, equal, below, limit)
                        if sympy.expand(got - want) != 0:
                            raise ProofFailure(
                                f"sampled expectation, m={m}, above={above}, equal={equal}, below={below}, limit={limit}: "
                                f"derived {want}, but fast gives {got}"
                            )
                        cases += 1
    return f"{cases} (above, equal, below, m, limit) cases, by listing the m-subsets of the negatives"
