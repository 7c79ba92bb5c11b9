"""E[RBP@k]: fast's per-group closed form equals the expectation, for symbolic p, t, n, r and cut.

RBP@k = (1 - p)·Σ_{j<=k} rel_j·p^(j-1) is linear in rel_j, and a rank of a tie
group with r relevant of n is relevant with probability r/n (lemma
"exchangeability").  A group at ranks t+1 .. t+n, cut at rank e <= t + n,
therefore contributes Σ_{j=t+1..e} (1 - p)·p^(j-1)·r/n; sympy sums the
geometric series for symbolic p, t, e, r and n, and the result must equal
fast's rbp_group.  Groups past the cutoff contribute nothing, and by
linearity the whole ranking is the sum over its groups.

>>> RBP_GROUP().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy
from sympy import Eq, Sum, Symbol

from tieaware.fast.rbp import rbp_group
from tieaware.proofs.lemmas import p_relevant
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, Theorem, same

__all__ = ["RBP_GROUP", "expected_rbp_group", "prove_rbp_group"]

p = Symbol("p", positive=True)
t = Symbol("t", integer=True, nonnegative=True)
m, n, r = sympy.symbols("m n r", integer=True, positive=True)  # m: the group's ranks within the cutoff
j = Symbol("j", integer=True, positive=True)


def expected_rbp_group(p_: Any, t_: Any, m_: Any, r_: Any, n_: Any) -> Any:
    """Σ_{j=t+1..t+m} (1 - p)·p^(j-1)·P(rank j relevant), summed by sympy."""
    return Sum((1 - p_) * p_ ** (j - 1) * p_relevant(r_, n_), (j, t_ + 1, t_ + m_)).doit()


def prove_rbp_group(group: Callable[..., Any] = rbp_group) -> str:
    derived = expected_rbp_group(p, t, m, r, n)
    if derived.has(Sum, sympy.Piecewise):
        raise ProofFailure(f"sympy did not sum the geometric series in closed form: {derived}")
    same(derived, group(p, t, t + m, r, n), "E[RBP contribution of a group]")
    return "geometric sum over the group's ranks within k, symbolic p, t, m, r, n"


#: Registered in proofs/__init__.py; tests/test_proof_checker.py holds its wrong kernels.
RBP_GROUP = Theorem(
    name="RBP group",
    statement="A tie group at ranks t+1..t+n with r relevant, cut after m of its ranks, adds (r/n)(p^t - p^(t+m)) to E[RBP@k].",
    scope=GENERAL,
    check=prove_rbp_group,
    formula=lambda: Eq(Tex(r"\mathbb{E}[\mathrm{RBP}_{\mathrm{group}}]"), rbp_group(p, t, t + m, r, n), evaluate=False),
)
