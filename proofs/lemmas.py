"""The lemmas about one tie group, each derived once by counting and reused by the theorems.

Model: a tie group of n documents, r of them relevant, under random
tie-breaking.  Every ordering is equally likely, so every set of r slots is
equally likely to hold the relevant documents: each set arises from the
same r!(n-r)! orderings.  A probability is then a count of slot sets over
C(n, r), which sympy simplifies for *symbolic* n and r.

The ``p_*``/``mean_*`` functions below return those derived expressions
(never fast's kernels), for the theorems to build expectations from; the
registered lemmas compare them with fast's kernels.

>>> import sympy
>>> r, n = sympy.symbols("r n", positive=True)
>>> p_relevant(r, n), p_pair(r, n)
(r/n, r*(r - 1)/(n*(n - 1)))
"""

from __future__ import annotations

from functools import cache
from typing import Any, Callable, Optional

import sympy
from sympy import Eq, Product, Sum, binomial, combsimp

from tieaware.fast import kernels
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, same, theorem

__all__ = [
    "p_relevant",
    "p_pair",
    "mean_hits",
    "p_none_in_first",
    "p_first_at",
    "prove_exchangeability",
    "prove_pair",
    "prove_hypergeometric_mean",
    "prove_first_relevant",
    "prove_first_relevant_weights",
]

# Base symbols of the derivations: group size, relevant count, slot, prefix length.
n, r, x, m, h = sympy.symbols("n r x m h", integer=True, nonnegative=True)
n_pos = sympy.Symbol("n", integer=True, positive=True)
#: n >= 2 as n = q + 1, q >= 1: the general case of the pair lemma, where sympy knows n - 1 != 0.
q_pos = sympy.Symbol("q", integer=True, positive=True)


# -- the derivations ----------------------------------------------------------


@cache
def _relevant() -> Any:
    # Slot sets containing the given slot: choose the other r-1 of the other n-1 slots.
    return combsimp(binomial(n - 1, r - 1) / binomial(n, r))


@cache
def _pair() -> Any:
    # Slot sets containing both given slots: choose the other r-2 of the other n-2.
    return combsimp(binomial(n - 2, r - 2) / binomial(n, r))


def _hypergeometric_sum() -> Any:
    # P(h of the first m slots are relevant) = C(r, h)·C(n-r, m-h)/C(n, m).
    return Sum(h * binomial(r, h) * binomial(n - r, m - h) / binomial(n, m), (h, 0, m))


@cache
def _mean_hits() -> Any:
    # sympy sums the hypergeometric pmf in closed form, as a Piecewise on n > 0;
    # a tie group has n >= 1, which picks the general piece.
    total = _hypergeometric_sum().doit().subs(n, n_pos)
    total = sympy.simplify(sympy.piecewise_fold(total))
    if total.has(Sum, sympy.Piecewise):
        raise ProofFailure(f"sympy did not sum the hypergeometric mean: {total}")
    return total


def p_relevant(r_: Any, n_: Any) -> Any:
    """P(a given slot of the group is relevant) = C(n-1, r-1)/C(n, r), simplified."""
    return _relevant().xreplace({r: r_, n: n_})


def p_pair(r_: Any, n_: Any) -> Any:
    """P(two given distinct slots are both relevant) = C(n-2, r-2)/C(n, r), simplified."""
    return _pair().xreplace({r: r_, n: n_})


def mean_hits(m_: Any, r_: Any, n_: Any) -> Any:
    """E[relevant documents in the first m slots], summed over the hypergeometric pmf by sympy."""
    return _mean_hits().xreplace({m: m_, r: r_, n_pos: n_})


def p_none_in_first(x_: Any, r_: Any, n_: Any) -> Any:
    """P(the first x slots are all irrelevant) = C(n-x, r)/C(n, r): all r relevant slots lie after x."""
    expr = binomial(n_ - x_, r_) / binomial(n_, r_)
    return combsimp(expr) if sympy.sympify(x_).is_Integer else expr


def p_first_at(x_: Any, r_: Any, n_: Any) -> Any:
    """P(the first relevant document of the group is at slot x) = P(none in x-1) − P(none in x)."""
    return p_none_in_first(x_ - 1, r_, n_) - p_none_in_first(x_, r_, n_)


# -- the lemmas, checked against fast's kernels ---------------------------------


@theorem(
    "exchangeability",
    "A given slot of a tie group of n with r relevant is relevant with probability r/n.",
    GENERAL,
    lambda: Eq(binomial(n - 1, r - 1) / binomial(n, r), kernels.expected_hits(1, r, n), evaluate=False),
)
def prove_exchangeability(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits  # looked up when the theorem runs, as the engines do
    same(p_relevant(r, n), kernel(1, r, n), "P(slot relevant) vs expected_hits(1, r, n)")
    return "C(n-1, r-1)/C(n, r) simplifies to r/n for symbolic n, r"


@theorem(
    "pair",
    "Two given slots of a tie group are both relevant with probability r(r-1)/(n(n-1)) (n >= 2).",
    GENERAL,
    lambda: Eq(binomial(n - 2, r - 2) / binomial(n, r), (kernels.expected_hits(1, r, q_pos + 1) * kernels.pair_fraction(r, q_pos + 1)).subs(q_pos, n - 1), evaluate=False),
)
def prove_pair(hits: Optional[Callable[..., Any]] = None, pair: Optional[Callable[..., Any]] = None) -> str:
    hits, pair = hits or kernels.expected_hits, pair or kernels.pair_fraction
    # n = q + 1 with q >= 1: sympy knows n - 1 != 0, so pair_fraction's ratio is the quotient (n >= 2).
    n2 = q_pos + 1
    same(p_pair(r, n2), hits(1, r, n2) * pair(r, n2), "P(both slots relevant) vs (r/n)·pair_fraction(r, n)")
    # n = 1: there is no second slot.  fast's value there is only ever multiplied by a slot count of 0
    # (ap_slot's j - t - 1); the theorem for AP checks that case separately.
    one = pair(r, sympy.Integer(1))
    if not sympy.sympify(one).is_finite:
        raise ProofFailure(f"pair_fraction(r, 1) = {one} is not a number (the paper's 0/0)")
    return "C(n-2, r-2)/C(n, r) = (r/n)·(r-1)/(n-1) for symbolic n >= 2; pair_fraction(r, 1) is finite"


@theorem(
    "hypergeometric mean",
    "The first m slots of a tie group hold m·r/n relevant documents on average.",
    GENERAL,
    lambda: Eq(_hypergeometric_sum(), kernels.expected_hits(m, r, n), evaluate=False),
)
def prove_hypergeometric_mean(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits
    same(mean_hits(m, r, n_pos), kernel(m, r, n_pos), "hypergeometric mean vs expected_hits(m, r, n)")
    return "sympy sums h·C(r,h)·C(n-r,m-h)/C(n,m) over h = 0..m to m·r/n (n >= 1)"


@theorem(
    "first relevant (recursion)",
    "P(first x slots irrelevant) = C(n-x, r)/C(n, r) = f(x, r, n), the product of survival_step(1..x).",
    GENERAL,
    lambda: Eq(binomial(n - x, r) / binomial(n, r), Product(kernels.survival_step(h, r, n), (h, 1, x)), evaluate=False),
)
def prove_first_relevant(step: Optional[Callable[..., Any]] = None) -> str:
    step = step or kernels.survival_step
    # Induction on x.  Base: f(0) = C(n, r)/C(n, r) = 1 = the empty product.
    same(p_none_in_first(0, r, n), 1, "f(0, r, n)")
    # Step: f(x)/f(x-1) is exactly fast's survival_step(x, r, n), for symbolic x.
    ratio = combsimp(p_none_in_first(x, r, n) / p_none_in_first(x - 1, r, n))
    same(ratio, step(x, r, n), "f(x)/f(x-1) vs survival_step(x, r, n)")
    return "by induction on x: f(0) = 1 and f(x)/f(x-1) = survival_step(x, r, n) for symbolic x, r, n"


@theorem(
    "first relevant weights",
    "first_relevant_step carries f(x-1) to f(x) and gives P(first relevant at slot x) = f(x-1) - f(x), for symbolic x.",
    GENERAL,
    lambda: Eq(
        Tex(r"w_x"),
        binomial(n - x + 1, r) / binomial(n, r) - binomial(n - x, r) / binomial(n, r),
        evaluate=False,
    ),
)
def prove_first_relevant_weights(step: Optional[Callable[..., Any]] = None) -> str:
    step = step or kernels.first_relevant_step
    # rr_group and rr_moments are folds of first_relevant_step from f(0) = 1 (their own theorems check
    # the folds).  Loop invariant, by induction on x: entering step x the carried value is f(x-1); the
    # step must give the weight f(x-1) - f(x) and carry f(x).  Proved for a symbolic x.
    weight, carried = step(p_none_in_first(x - 1, r, n), x, r, n)
    same(p_first_at(x, r, n), weight, "the weight of step x")
    same(p_none_in_first(x, r, n), carried, "the value step x carries")
    return "induction on first_relevant_step for symbolic x, r, n"
