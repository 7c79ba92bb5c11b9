"""E[bpref]: fast's closed form equals the expectation over tie orders (trec_eval's bpref), in general.

bpref = (1/R) Σ_{relevant d} (1 - min(n_d, R)/min(R, N)), n_d the judged
non-relevant documents ranked above d (trec_eval's m_bpref.c; unjudged
documents are skipped; with no judged non-relevant document, N = 0, every
term is 1).  The sum is linear in the per-document terms, so
E[bpref] = (1/R) Σ_d E[1 - min(n_d, R)/min(R, N)].  For d in a group with a
judged non-relevant members, n_d = A + X, A those of the groups above
(fixed), X those of d's own group placed before it.

Lemma (counted from the orderings): in a uniformly random order of a group
of n = 1 + a + u members (d, a judged non-relevant ones, u others), the
orderings with exactly x of the a before d choose the a + 1 places of d and
those members, C(n, a+1) ways, order the a members with d at place x + 1
among them, a! ways, and the others, u! ways: C(n, a+1)·a!·u!/n! = 1/(a+1)
for every x.  So X is uniform on {0, ..., a}, and
E[min(A + X, R)] = S/(a + 1), S = Σ_{x=0}^{a} min(A + x, R).

The check

1. proves the lemma for symbolic a, u, x;
2. runs fast's kernel ``capped_sum`` on symbols against S, summed by sympy
   with the cap placed by the case: A >= R (every term R), A < R with
   a <= R - A (no term capped), A < R with a > R - A (the terms past
   x = R - A capped);
3. runs fast's ``bpref_from`` on three groups with symbolic relevant and
   judged non-relevant counts and symbolic R and N, in each case R <= N,
   N < R, N = 0 and R = 0, with S an undefined function: fast must give
   (1/R) Σ_g r_g·(1 - S(A_g, a_g, R)/((a_g + 1)·min(R, N))), A_g the
   judged non-relevant members of the groups above g.

Steps 1-2 prove each group's term, step 3 the composition for every ranking
(the code treats every group alike), so the result is general.

>>> prove_bpref().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import sympy

from tieaware.fast import trec_measures as tm
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, decided, same, theorem

__all__ = ["capped_cases", "prove_bpref"]

_nonneg = dict(integer=True, nonnegative=True)
_pos = dict(integer=True, positive=True)
_A, _a, _u, _x, _w = sympy.symbols("A a u x w", **_nonneg)
_v, _j = sympy.symbols("v j", **_pos)
_S = sympy.Function("S")  # Σ_{x=0}^{a} min(A + x, R), left undefined for the composition
_R, _N = sympy.symbols("R N", **_pos)
_r = sympy.symbols("r_1 r_2 r_3", **_nonneg)
_n = sympy.symbols("a_1 a_2 a_3", **_nonneg)


def capped_cases() -> list[tuple[str, Any, Any, Any]]:
    """(case, A, a, R): A >= R; A < R with a <= R - A; A < R with a > R - A."""
    return [
        ("A >= R", _v + _w, _a, _v),
        ("A < R, a <= R - A", _A, _a, _A + _a + _j),
        ("A < R, a > R - A", _A, _v + _j, _A + _v),
    ]


def _capped_derived(above: Any, a: Any, big_r: Any) -> Any:
    # Σ_{x=0}^{a} min(A + x, R): the terms with A + x < R, i.e. x < R - A, are A + x; the others R.
    below = decided(sympy.Min(a + 1, sympy.Max(0, big_r - above)), "the terms below the cap")
    return sympy.Sum(above + _x, (_x, 0, below - 1)).doit() + sympy.Sum(big_r, (_x, below, a)).doit()


def _composition_cases() -> list[tuple[str, Any, Any, tuple[Any, ...]]]:
    # (case, R, N, judged non-relevant per group)
    return [
        ("R <= N", _R, _R + _w, _n),
        ("N < R", _N + _j, _N, _n),
        ("N = 0", _R, sympy.Integer(0), (0, 0, 0)),
    ]


@theorem(
    "Bpref",
    "E[bpref] = (1/R) Σ_groups r·(1 - Σ_{x=0}^{a} min(A+x, R) / ((a+1)·min(R, N))): X uniform on 0..a counted from "
    "the orderings, capped_sum for symbolic A, a, R, symbolic counts, R and N.",
    GENERAL,
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[\mathrm{bpref}]"),
        sympy.Sum(
            Tex("r_g") * (1 - sympy.Sum(sympy.Min(Tex("A_g") + _x, Tex("R")), (_x, 0, Tex("a_g"))) / ((Tex("a_g") + 1) * sympy.Min(Tex("R"), Tex("N")))),
            (Tex("g"), 1, Tex("G")),
        ) / Tex("R"),
        evaluate=False,
    ),
)
def prove_bpref(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel, compose = kernel or tm.capped_sum, compose or tm.bpref_from  # looked up when run, as fast does
    # 1. The lemma: P(exactly x of the a judged non-relevant members precede d) = 1/(a+1), whatever x.
    n = 1 + _a + _u
    same(sympy.binomial(n, _a + 1) * sympy.factorial(_a) * sympy.factorial(_u) / sympy.factorial(n), 1 / (_a + 1), "P(X = x)")
    # 2. The kernel against the capped sum, in each case.
    for case, above, a, big_r in capped_cases():
        same(_capped_derived(above, a, big_r), kernel(above, a, big_r), f"Σ min(A + x, R), {case}")
    # 3. The composition, with S undefined.
    cases = 0
    for case, big_r, big_n, nonrel in _composition_cases():
        counts = list(zip(_r, nonrel))
        derived, above = sympy.Integer(0), sympy.Integer(0)
        scale = decided(sympy.Min(big_r, big_n), "min(R, N)")
        for relevant, a in counts:
            # E[1 - min(A + X, R)/min(R, N)] = 1 - S/((a+1)·min(R, N)); with N = 0 no judged non-relevant
            # document exists, n_d = 0 and the term is 1.
            derived += relevant * (1 - (_S(above, a, big_r) / ((a + 1) * scale) if scale != 0 else 0))
            above += a
        same(derived / big_r, compose(counts, big_r, big_n, number=sympy.sympify, kernel=_S), f"bpref, {case}")
        cases += 1
    if sympy.sympify(compose(list(zip(_r, _n)), 0, _N, number=sympy.sympify, kernel=_S)) != 0:
        raise ProofFailure("bpref with R = 0 is not 0")
    return f"lemma for symbolic a, u; capped_sum in its 3 cases for symbolic A, a, R; composition of 3 symbolic groups, {cases} cases of R, N and R = 0"
