"""E[bpref]: fast's closed form equals the expectation over tie orders (trec_eval's bpref).

bpref = (1/R) Σ_{relevant d} (1 - min(n_d, R)/min(R, N)), n_d the judged
non-relevant documents ranked above d (trec_eval's m_bpref.c; unjudged
documents are skipped).  The sum is linear in the per-document terms, so
E[bpref] = (1/R) Σ_d E[1 - min(n_d, R)/min(R, N)].  For d in a group with a
judged non-relevant members, n_d = A + X, A those of the groups above
(fixed), X those of d's own group placed before it.

Lemma (pairwise order within a group): in a uniformly random order of the
group, d's place among itself and the a judged non-relevant members is
uniform, so X is uniform on {0, ..., a}, whatever the other members.  Hence
E[min(A + X, R)] = S/(a + 1), S = Σ_{x=0}^{a} min(A + x, R), and fast's
``capped_sum`` gives S in closed form:
(c + 1)·A + c(c + 1)/2 + (a - c)·R with c = min(a, R - A) if A < R, else (a + 1)·R.

The check

1. proves the uncapped sums symbolically: Σ_{x=0}^{c} (A + x) = (c + 1)·A + c(c + 1)/2
   (general, sympy), the identity capped_sum's formula rests on;
2. checks the kernel under test against Σ min(A + x, R) for every A, a, R <= BPREF_KERNEL_BOUND;
3. checks the lemma by enumerating every order of every group of up to
   BPREF_DOCUMENTS members (r relevant, a judged non-relevant, u unjudged);
4. runs fast's ``bpref_from`` with the kernel under test against the
   expectation computed by enumerating every ordering of every tie structure
   of up to BPREF_DOCUMENTS documents (every mix of relevant, judged
   non-relevant and unjudged members per group), R and N at and above the
   counts in the ranking (so a wrong kernel, or a wrong composition, is caught).

>>> prove_bpref().proved
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from typing import Any

import sympy
from sympy.utilities.iterables import multiset_permutations

from tieaware.fast.trec_measures import bpref_from, capped_sum
from tieaware.proofs.theorem import ProofFailure, Tex, bounded, same, theorem
from tieaware.model.structures import compositions

__all__ = ["BPREF_DOCUMENTS", "BPREF_KERNEL_BOUND", "prove_bpref"]

#: Tie structures of up to this many documents are enumerated in full.
BPREF_DOCUMENTS = 5
#: capped_sum is checked for every A, a, R up to this bound.
BPREF_KERNEL_BOUND = 12

_A, _x, _c = sympy.symbols("A x c", integer=True, nonnegative=True)


def _bpref_of(order: tuple, big_r: int, big_n: int) -> Fraction:
    """trec_eval's bpref of one ordering of 'r' (relevant), 'n' (judged non-relevant), 'u' (unjudged)."""
    nonrel, total = 0, Fraction(0)
    for x in order:
        if x == "n":
            nonrel += 1
        elif x == "r":
            total += 1 - Fraction(min(nonrel, big_r), min(big_r, big_n)) if nonrel else 1
    return total / big_r if big_r else Fraction(0)


def _expected(groups: list[tuple[int, int, int]], big_r: int, big_n: int) -> Fraction:
    per_group = [list(multiset_permutations(["r"] * r + ["n"] * a + ["u"] * u)) for r, a, u in groups]
    values = [_bpref_of(tuple(x for part in parts for x in part), big_r, big_n) for parts in product(*per_group)]
    return sum(values, Fraction(0)) / len(values)


@theorem(
    "Bpref",
    "E[bpref] = (1/R) Σ_groups r·(1 - Σ_{x=0}^{a} min(A+x, R) / ((a+1)·min(R, N))).",
    bounded(f"N<={BPREF_DOCUMENTS}; kernel A,a,R<={BPREF_KERNEL_BOUND}; sum identity general"),
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[\mathrm{bpref}]"),
        sympy.Sum(
            Tex("r_g") * (1 - sympy.Sum(sympy.Min(Tex("A_g") + _x, Tex("R")), (_x, 0, Tex("a_g"))) / ((Tex("a_g") + 1) * sympy.Min(Tex("R"), Tex("N")))),
            (Tex("g"), 1, Tex("G")),
        ) / Tex("R"),
        evaluate=False,
    ),
)
def prove_bpref(kernel: Callable[..., Any] = capped_sum, compose: Callable[..., Any] = bpref_from) -> str:
    # 1. The uncapped sum, in general.
    same(sympy.summation(_A + _x, (_x, 0, _c)), (_c + 1) * _A + _c * (_c + 1) / 2, "Σ_{x=0}^{c} (A + x)")
    # 2. The kernel against the capped sum, term by term.
    bound = BPREF_KERNEL_BOUND
    for above, a, big_r in product(range(bound + 1), range(bound + 1), range(1, bound + 1)):
        want = sum(min(above + x, big_r) for x in range(a + 1))
        got = kernel(above, a, big_r)
        if got != want:
            raise ProofFailure(f"capped sum A={above}, a={a}, R={big_r}: kernel gives {got}, the sum is {want}")
    # 3. The lemma: X (judged non-relevant members before a given relevant one) is uniform on 0..a.
    for size in range(1, BPREF_DOCUMENTS + 1):
        for r, a in product(range(1, size + 1), range(size + 1)):
            if r + a > size:
                continue
            members = ["r*"] + ["r"] * (r - 1) + ["n"] * a + ["u"] * (size - r - a)
            seen = Counter(o[: o.index("r*")].count("n") for o in multiset_permutations(members))
            if len(set(seen.values())) != 1 or sorted(seen) != list(range(a + 1)):
                raise ProofFailure(f"X is not uniform on 0..{a} in a group of {size} with r={r}: {dict(seen)}")
    # 4. The composition, with the kernel under test, against full enumeration.
    cases = 0
    for total in range(1, BPREF_DOCUMENTS + 1):
        for sizes in compositions(total):
            mixes = [[(r, a, n - r - a) for r in range(n + 1) for a in range(n + 1 - r)] for n in sizes]
            for groups in product(*mixes):
                rel_in = sum(g[0] for g in groups)
                non_in = sum(g[1] for g in groups)
                for big_r, big_n in product((rel_in, rel_in + 1), (non_in, non_in + 2)):
                    got = compose([(r, a) for r, a, _ in groups], big_r, big_n, kernel=kernel)
                    want = _expected(list(groups), big_r, big_n)
                    if got != want:
                        raise ProofFailure(f"bpref of groups {groups} (r, a, u), R={big_r}, N={big_n}: {got} != {want}")
                    cases += 1
    return f"sum identity symbolic; kernel for A, a, R <= {bound}; lemma and {cases} (structure, R, N) cases up to N={BPREF_DOCUMENTS}"
