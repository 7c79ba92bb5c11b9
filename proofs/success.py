"""E[Success@k]: fast's closed form equals the expectation.

Success@k = 1 - [no relevant document in the top k].  The groups are ordered
independently, so P(no relevant in the top k) is the product over the groups
reaching into the top k of P(the group's m slots there hold none of its r
relevant members out of n).  fast's kernel gives that as
C(n - r, m)/C(n, m) (choose the m documents that land in the slots).

The check derives the same probability another way, choosing the r
relevant members' positions among the n slots: C(n - m, r)/C(n, r), and

1. proves the two equal for symbolic n, r, m (sympy, general);
2. runs fast's whole summary-level function (``success_from``, the code
   ``fast.success`` calls) against the derived product on every group
   structure of up to SUCCESS_DOCUMENTS documents, every relevant count per
   group and every cutoff up to one past the end, with the kernel under test
   (so a wrong kernel, or a wrong composition, is caught).

>>> prove_success().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import product
from math import comb
from typing import Any

import sympy

from tieaware.fast.groups import Group
from tieaware.fast.trec_measures import none_drawn, success_from
from tieaware.proofs.theorem import ProofFailure, Tex, bounded, same, theorem
from tieaware.model.structures import compositions

__all__ = ["SUCCESS_DOCUMENTS", "prove_success"]

#: Rankings of up to this many documents are checked in full.
SUCCESS_DOCUMENTS = 7

_n, _r, _m = sympy.symbols("n r m", integer=True, nonnegative=True)


def _derived_miss(m: int, r: int, n: int) -> Fraction:
    """P(none of r relevant members among m given slots of n): the r positions avoid the m slots."""
    return Fraction(comb(n - m, r), comb(n, r))


@theorem(
    "Success@k",
    "E[Success@k] = 1 - Π_groups C(n-r, m)/C(n, m), m = the group's slots within k.",
    bounded(f"N<={SUCCESS_DOCUMENTS}; kernel identity general"),
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[\mathrm{Success}@k]"),
        1 - sympy.Product(sympy.binomial(_n - _r, _m) / sympy.binomial(_n, _m), (Tex("g"), 1, Tex("G"))),
        evaluate=False,
    ),
)
def prove_success(kernel: Callable[..., Any] = none_drawn, compose: Callable[..., Any] = success_from) -> str:
    # 1. The kernel's counting and the derived counting agree in general.
    same(
        sympy.binomial(_n - _m, _r) / sympy.binomial(_n, _r),
        sympy.binomial(_n - _r, _m) / sympy.binomial(_n, _m),
        "C(n-m, r)/C(n, r) = C(n-r, m)/C(n, m)",
    )
    # 2. The composition, with the kernel under test, on every small structure.
    cases = 0
    for total in range(1, SUCCESS_DOCUMENTS + 1):
        for sizes in compositions(total):
            starts = [sum(sizes[:i]) for i in range(len(sizes))]
            for relevant in product(*(range(n + 1) for n in sizes)):
                summary = [Group(t, n, Fraction(r), None) for t, n, r in zip(starts, sizes, relevant)]
                for k in range(1, total + 2):
                    miss = Fraction(1)
                    for t, n, r in zip(starts, sizes, relevant):
                        if t < k:
                            miss *= _derived_miss(min(n, k - t), r, n)
                    got = compose(summary, k, kernel=kernel)
                    if got != 1 - miss:
                        raise ProofFailure(f"Success@{k} of sizes {sizes}, relevant {relevant}: {got} != {1 - miss}")
                    cases += 1
    return f"kernel identity for symbolic n, r, m; {cases} (structure, relevant counts, k) cases up to N={SUCCESS_DOCUMENTS}"
