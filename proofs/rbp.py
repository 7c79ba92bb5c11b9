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
import functools
import importlib
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol

from tieaware.fast import kernels
from tieaware.proofs.lemmas import p_relevant
from tieaware.proofs.precision import cutoff_cases
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, Theorem, decided, same, theorem

__all__ = ["RBP_GROUP", "expected_rbp_group", "prove_rbp_group", "prove_rbp"]

p = Symbol("p", positive=True)
t = Symbol("t", integer=True, nonnegative=True)
m, n, r = sympy.symbols("m n r", integer=True, positive=True)  # m: the group's ranks within the cutoff
j = Symbol("j", integer=True, positive=True)


def expected_rbp_group(p_: Any, t_: Any, m_: Any, r_: Any, n_: Any) -> Any:
    """Σ_{j=t+1..t+m} (1 - p)·p^(j-1)·P(rank j relevant), summed by sympy."""
    return Sum((1 - p_) * p_ ** (j - 1) * p_relevant(r_, n_), (j, t_ + 1, t_ + m_)).doit()


@functools.lru_cache(maxsize=1)
def _general_group_sum() -> Any:
    """expected_rbp_group for symbolic t, m, r, n, summed by sympy once (a closed form, no Piecewise)."""
    derived = expected_rbp_group(p, t, m, r, n)
    if derived.has(Sum, sympy.Piecewise):
        raise ProofFailure(f"sympy did not sum the geometric series in closed form: {derived}")
    return derived


def prove_rbp_group(group: Optional[Callable[..., Any]] = None) -> str:
    group = group or kernels.rbp_group
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
    formula=lambda: Eq(Tex(r"\mathbb{E}[\mathrm{RBP}_{\mathrm{group}}]"), kernels.rbp_group(p, t, t + m, r, n), evaluate=False),
)


@theorem(
    "RBP@k",
    "E[RBP@k] = Σ_groups rbp_group(p, t, t + within(t, n, k), r, n): fast's rbp_from on symbolic rankings, symbolic p, every place of k.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[RBP@k]"),
        Sum(kernels.rbp_group(p, Symbol("t_g"), Symbol("t_g") + Tex(r"\min(n_g, \max(0, k - t_g))"), Symbol("r_g"), Symbol("n_g")), (Symbol("g"), 1, Symbol("G"))),
        evaluate=False,
    ),
)
def prove_rbp(group: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    # Exact mode runs the same rbp_from with its powers kept formal and summed in integers: theorem
    # "exact arithmetic" checks that summation; here the powers are sympy's.
    group = group or kernels.rbp_group
    compose = compose or importlib.import_module("tieaware.fast.rbp").rbp_from  # the module: tieaware.fast.rbp is also a function
    cases = 0
    places = list(cutoff_cases())
    _, summary, _ = places[-1]
    places.append(("no cutoff", summary, None))
    for where, summary, k in places:
        derived = sympy.Integer(0)
        for g in summary:
            slots = g.size if k is None else decided(sympy.Max(0, sympy.Min(g.size, k - g.start)), f"slots of the group at {g.start} within {k}")
            if slots != 0:  # the lemma's sum, summed once for symbolic t, m, r, n (valid for every m >= 1), at this group
                derived += _general_group_sum().subs({t: g.start, m: slots, r: g.relevant, n: g.size}, simultaneous=True)
        same(derived, compose(summary, p, k, number=sympy.sympify, group=group), f"RBP@k, {where}")
        cases += 1
    return f"{cases} places of k (and no cutoff) in a ranking of 3 symbolic groups, symbolic relevant counts and p"
