"""trec_eval's preference measures: fast.prefs's kernels equal the expectations over tie orders, in general.

Theorem ``prefs``.  Every preference measure (``-m all_prefs``) is a count
of fulfilled preferences over a count of possible ones, per query, per
judgment group, or per document pair; only "a retrieved and ranked above b"
depends on how ties are broken, and the possible counts never do.  So each
expectation is a sum of per-preference (per-pair) expectations over a fixed
denominator, and it suffices that:

1. counted from the orderings: in a uniformly random order of a tie group of
   n >= 2 members, a given member precedes another given one in
   C(n, 2)·(n - 2)!/n! = 1/2 of the orderings (choose the two places, the
   first to a, order the rest), for symbolic n; fast's
   ``order_probability`` gives 1/2 for one group, 1 and 0 for groups in
   order and reversed;
2. prefs_pair's term of a tied pair with counts c_ab, c_ba > 0 (symbolic) is
   c_ab/(c_ab + c_ba) in one order and c_ba/(c_ab + c_ba) in the other:
   their mean is fast's ``tied_pair_share``.

Theorem ``prefs_Rnonrel``.  prefs_avgjg_Rnonrel keeps the first k members of
a jg's last class (by rank) and pairs each retrieved document p of a higher
class with them: fulfilled for every kept member ranked below p, k -
min(k, n_p) of them, n_p the class's members ranked above p.  n_p = A + X,
A those in groups above p's, X those of p's own group placed before it,
uniform on 0..a (Bpref's lemma, counted again here: C(n, a+1)·a!·u!/n! =
1/(a+1)).  So E = k - S/(a+1), S = Σ_{x=0}^{a} min(A + x, k), summed here in
each case of the cap (A >= k; A < k with a <= k - A; A < k with a > k - A)
and compared with fast's ``kept_below`` run on symbols.  In a jg with
sub-groups the kept set can depend on the ordering (the cut inside a tie
group of a non-relevant members, j kept): every j-subset is equally likely,
and given one, another member of the group precedes a given kept one with
probability Σ_{p=1}^{j} Σ_{x=0}^{p-1} 1/((a+1)j) = (j+1)/(2(a+1)) (its X
uniform, the kept one's place p uniform on 1..j): fast's
``tied_kept_precedes``.

>>> prove_prefs().proved, prove_prefs_rnonrel().proved
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import sympy

from tieaware.fast import prefs as fp
from tieaware.proofs.bpref import capped_cases
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, same, theorem

__all__ = ["prove_prefs", "prove_prefs_rnonrel"]

_n = sympy.Symbol("n", integer=True, positive=True)
_g, _h = sympy.symbols("g h", integer=True, nonnegative=True)
_c1, _c2 = sympy.symbols("c_ab c_ba", integer=True, positive=True)
_a, _u = sympy.symbols("a u", integer=True, nonnegative=True)


@theorem(
    "prefs",
    "E[fulfilled] = Σ_prefs P(a above b), P = 1/2 within a tie group (counted from the orderings, symbolic n); "
    "a tied pair's prefs_pair term c_ab/(c_ab+c_ba) or c_ba/(c_ab+c_ba) has mean 1/2 (symbolic counts).",
    GENERAL,
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[\mathrm{ful}]"),
        sympy.Sum(Tex(r"P(a \prec b)"), (Tex("(a,b)"), Tex("1"), Tex(r"\mathrm{prefs}"))),
        evaluate=False,
    ),
)
def prove_prefs(order: Optional[Callable[..., Any]] = None, share: Optional[Callable[..., Any]] = None) -> str:
    order, share = order or fp.order_probability, share or fp.tied_pair_share  # looked up when run
    # 1. a before b in a random order of n >= 2 members: the two places chosen, a in the first, the rest in any order
    n = _n + 1  # n >= 2
    derived = sympy.binomial(n, 2) * sympy.factorial(n - 2) / sympy.factorial(n)
    same(derived, order(_g, _g, number=sympy.sympify), "P(a before b) within one group")
    if sympy.sympify(order(_g, _g + _h + 1, number=sympy.sympify)) != 1 or sympy.sympify(order(_g + _h + 1, _g, number=sympy.sympify)) != 0:
        raise ProofFailure("order_probability for groups in order (1) and reversed (0)")
    # 2. the tied pair's two orders
    mean = (_c1 / (_c1 + _c2) + _c2 / (_c1 + _c2)) / 2
    same(mean, share(_c1, _c2, number=sympy.sympify), "prefs_pair's tied pair term")
    return "P(a before b) = 1/2 within a group of symbolic size n >= 2, 1 and 0 across groups; the tied pair's share for symbolic counts"


def _kept_capped(above: Any, a: Any, k: Any, case: str) -> Any:
    """Σ_{x=0}^{a} min(A + x, k) in the case named: k each; A + x each; A + x below the cap, then k."""
    x = sympy.Symbol("x", integer=True, nonnegative=True)
    if case.startswith("A >="):
        return (a + 1) * k
    if "a <=" in case:
        return sympy.summation(above + x, (x, 0, a))
    return sympy.summation(above + x, (x, 0, k - above - 1)) + (a - (k - above) + 1) * k


@theorem(
    "prefs_Rnonrel",
    "E[kept members of the last class below p] = k - Σ_{x=0}^{a} min(A+x, k)/(a+1): X uniform on 0..a counted from "
    "the orderings, the sum in each case of the cap for symbolic A, a, k.",
    GENERAL,
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[k - \min(k, n_p)]"),
        Tex("k") - sympy.Sum(sympy.Min(Tex("A") + Tex("x"), Tex("k")), (Tex("x"), 0, Tex("a"))) / (Tex("a") + 1),
        evaluate=False,
    ),
)
def prove_prefs_rnonrel(kernel: Optional[Callable[..., Any]] = None, precedes: Optional[Callable[..., Any]] = None) -> str:
    kernel, precedes = kernel or fp.kept_below, precedes or fp.tied_kept_precedes
    n = 1 + _a + _u
    same(sympy.binomial(n, _a + 1) * sympy.factorial(_a) * sympy.factorial(_u) / sympy.factorial(n), 1 / (_a + 1), "P(X = x)")
    for case, above, a, k in capped_cases():
        derived = k - _kept_capped(above, a, k, case) / (a + 1)
        same(derived, kernel(above, a, k, number=sympy.sympify), f"E[kept below p], {case.replace('R', 'k')}")
    # a jg with sub-groups whose cut falls inside a tie group of a non-relevant members, j of them kept (the first j):
    # another member o of the group has X of the a before it, uniform on 0..a (the lemma above); given the kept
    # subset, a given kept one is at place p uniform on 1..j among the a; o precedes it when X < p
    j = sympy.Symbol("j", integer=True, positive=True)
    p, x = sympy.symbols("p x", integer=True, positive=True)
    derived = sympy.summation(sympy.summation(1 / ((_a + 1) * j), (x, 0, p - 1)), (p, 1, j))
    same(derived, precedes(_a, j, number=sympy.sympify), "P(another group member precedes a kept one)")
    return (
        "X uniform on 0..a for symbolic a, u; kept_below in the 3 cases of the cap for symbolic A, a, k; "
        "a kept member preceded by another with probability (j+1)/(2(a+1)), symbolic a, j"
    )
