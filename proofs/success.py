"""E[Success@k]: fast's closed form equals the expectation, for symbolic rankings and cutoffs.

Success@k of one ordering is 1 - [no relevant document in the top k], so
E[Success@k] = 1 - P(no relevant document in the top k).  The groups are
ordered independently, so that probability is the product over the groups
of P(the slots a group has within k hold none of its relevant members).

The per-group chance is derived by counting orderings, not from fast: of
the n! orderings of a group of n with r relevant members, those whose first
m slots hold only non-relevant members fill those slots with m of the n - r
non-relevant members in order, (n-r)!/(n-r-m)! ways, and the remaining
n - m members in (n - m)! ways; when m > n - r there are none.

The check

1. runs fast's kernel ``none_drawn`` on symbols (sympy's binomial for
   ``choose``) against that count for symbolic m, r, n, in both cases
   m <= n - r and m > n - r;
2. runs fast's whole summary-level function (``success_from``, the code
   ``fast.success`` calls) on a ranking of three groups with symbolic sizes
   and relevant counts, at every place the cutoff can fall (the places of
   P@k), with the per-group chance an undefined function: fast must
   multiply the chances of exactly the groups within k, each at its
   min(n, k - t) slots, and subtract the product from 1.

Step 1 proves the chance for every group, step 2 the composition for every
ranking (the code treats every group alike), so the result is general.

>>> prove_success().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import sympy

from tieaware.fast import trec_measures as tm
from tieaware.fast.trec_measures import none_drawn
from tieaware.proofs.precision import cutoff_cases
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, decided, same, theorem

__all__ = ["p_none_in_slots", "prove_success"]

_nonneg = dict(integer=True, nonnegative=True)
_m, _r, _w, _y = sympy.symbols("m r w y", **_nonneg)
_j = sympy.Symbol("j", integer=True, positive=True)
_miss = sympy.Function("none_in_slots")  # a group's chance, left undefined for the composition


def p_none_in_slots(m: Any, r: Any, n: Any) -> Any:
    """P(the first m slots of a uniformly ordered group of n, r relevant, hold no relevant member), m <= n - r.

    Orderings that put non-relevant members in slots 1..m, in order: (n-r)!/(n-r-m)!; the other n - m
    members in any order: (n-m)!; out of n!.
    """
    return sympy.combsimp(sympy.factorial(n - r) / sympy.factorial(n - r - m) * sympy.factorial(n - m) / sympy.factorial(n))


def _kernel_cases() -> list[tuple[str, Any, Any, Any, Any]]:
    # (case, m, r, n, derived chance): n - r = m + w non-relevant members reach the m slots, or n - r = w < m = w + j.
    return [
        ("m <= n - r", _m, _r, _r + _m + _w, p_none_in_slots(_m, _r, _r + _m + _w)),
        ("m > n - r", _w + _j, _j + _y, _j + _y + _w, sympy.Integer(0)),  # only w non-relevant members for w + j slots
    ]


@theorem(
    "Success@k",
    "E[Success@k] = 1 - Π_groups C(n-r, m)/C(n, m), m = min(n, max(0, k-t)) the group's slots within k: "
    "P(no relevant in the top k) counted from the orderings, symbolic sizes, counts and k.",
    GENERAL,
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[\mathrm{Success}@k]"),
        1 - sympy.Product(none_drawn(Tex("m_g"), Tex("r_g"), Tex("n_g"), choose=sympy.binomial), (Tex("g"), 1, Tex("G"))),
        evaluate=False,
    ),
)
def prove_success(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel, compose = kernel or tm.none_drawn, compose or tm.success_from  # looked up when run, as fast does
    # 1. The kernel, on symbols, against the count of orderings.
    for case, m, r, n, derived in _kernel_cases():
        same(derived, sympy.combsimp(sympy.sympify(kernel(m, r, n, choose=sympy.binomial))), f"P(no relevant in {m} slots of {n}), {case}")
    # 2. The composition, with the per-group chance left undefined.
    cases = 0
    for where, summary, k in cutoff_cases():
        miss = sympy.Integer(1)
        for g in summary:
            slots = decided(sympy.Max(0, sympy.Min(g.size, k - g.start)), f"slots of the group at {g.start} within {k}")
            if slots != 0:  # a group with no slot in the top k cannot hide a relevant document there
                miss *= _miss(slots, g.relevant, g.size)
        got = compose(summary, k, number=sympy.sympify, kernel=_miss)
        same(1 - miss, got, f"Success@k, {where}")
        cases += 1
    if cases != 7:
        raise ProofFailure(f"{cases} cutoff places, expected 7")
    return f"kernel counted from the orderings for symbolic m, r, n (m <= n - r and m > n - r); composition at {cases} cutoff places in a ranking of 3 symbolic groups"

