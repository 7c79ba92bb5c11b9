"""E[AP@k]: fast's per-rank term, its group sum and AP@k's sum over groups equal the expectation.

AP@k = (1/num_rel) Σ_{j<=k} rel(j)·hits(j)/j.  For rank j in a group that
starts after rank t with r relevant of n, and B relevant documents in the
groups above it (a fixed number: whole groups lie above t),

    E[rel(j)·hits(j)] = B·P(rel j) + P(rel j) + Σ_{t<i<j} P(rel i ∧ rel j)

since rel(j)² = rel(j).  Exchangeability and the pair lemma give every
term.  Summed over a group's ranks t+1..last, the terms are c₀/j + c₁, so the
sum is c₀·(H(last) − H(t)) + c₁·(last − t) with H the harmonic numbers (their
definition, H(m) = Σ_{j<=m} 1/j): :func:`sum_over_ranks`.  fast's group
kernel ``ap_group`` (the one the engines and exact mode run) must equal that
for symbolic t, last, B, r and n, and fast's ``average_precision_from`` must
equal the sum over a symbolic ranking of three groups, for every place of k.

>>> prove_ap_slot().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol

from tieaware.fast import kernels
from tieaware.fast import measures
from tieaware.fast.groups import Group
from tieaware.proofs.lemmas import p_pair, p_relevant
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, decided, same, theorem

__all__ = ["expected_slot", "sum_over_ranks", "ap_cases", "prove_ap_slot", "prove_ap_harmonic", "prove_average_precision"]

_pos = dict(integer=True, positive=True)
j, t, B, i, m = sympy.symbols("j t B i m", integer=True, nonnegative=True)
q = Symbol("q", **_pos)  # n = q + 1 >= 2: sympy knows n - 1 != 0 (pair_fraction's quotient)
r = Symbol("r", integer=True, nonnegative=True)
R = Symbol("R", **_pos)
_j = Symbol("j", integer=True, positive=True)


def expected_slot(j_: Any, t_: Any, before: Any, r_: Any, n_: Any) -> Any:
    """E[rel(j)·P@j] from the lemmas, for rank j of a group starting after rank t."""
    p = p_relevant(r_, n_)
    same_group = (j_ - t_ - 1) * p_pair(r_, n_) if n_ != 1 else 0  # j - t - 1 other slots above j; none when n = 1
    return (before * p + p + same_group) / j_


def sum_over_ranks(expr: Any, var: Any, lo: Any, hi: Any) -> Any:
    """Σ_{var=lo+1..hi} expr for an expr of the form c₀/var + c₁: c₀·(H(hi) − H(lo)) + c₁·(hi − lo).

    Partial fractions in *var* split the summand; H is sympy's harmonic number.
    """
    total = sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.apart(sympy.together(expr), var)):
        if not term.has(var):
            total += term * (hi - lo)
            continue
        c0 = sympy.cancel(term * var)
        if c0.has(var):
            raise ProofFailure(f"the summand {expr} is not c0/j + c1 in j")
        total += c0 * (sympy.harmonic(hi) - sympy.harmonic(lo))
    return total


_fmt = {name: Symbol(f"{name}_g") for name in ("n", "r", "t", "B", "l")}


@theorem(
    "AP slot",
    "E[rel(j)·P@j] = ap_slot(j, t, B, r, n) for rank j of a group (start t, n, r) below B relevant; n = 1 too.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[\mathrm{rel}(j)\,P@j]"), kernels.ap_slot(j, t, B, r, q + 1), evaluate=False),
)
def prove_ap_slot(slot: Optional[Callable[..., Any]] = None) -> str:
    slot = slot or kernels.ap_slot
    # General case: symbolic n = q + 1 >= 2, any slot j = t + i of the group.
    jj = t + i
    same(expected_slot(jj, t, B, r, q + 1), slot(jj, t, B, r, q + 1), "E[rel(j)·P@j], n >= 2")
    # n = 1, stated separately: the only slot is j = t + 1, relevant with probability r in {0, 1}.
    for r_ in (0, 1):
        one = sympy.Integer(1)
        same(expected_slot(t + 1, t, B, sympy.Integer(r_), one), slot(t + 1, t, B, sympy.Integer(r_), one), f"E[rel(j)·P@j], n = 1, r = {r_}")
    return "symbolic j, t, B, r, n (n >= 2); and n = 1 with r = 0, 1"


@theorem(
    "AP harmonic sum",
    "ap_group(t, t+m, B, r, n) = Σ_(j=t+1..t+m) E[rel(j)·P@j] for symbolic t, m, B, r, n (n = 1 too): AP's group kernel.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathrm{ap\_group}(t, t+m, B, r, n)"),
        Sum(kernels.ap_slot(j, t, B, r, Symbol("n")), (j, t + 1, t + m)),
        evaluate=False,
    ),
)
def prove_ap_harmonic(group: Optional[Callable[..., Any]] = None) -> str:
    group = group or kernels.ap_group
    # n = q + 1 >= 2: the expected terms summed over the group's m ranks in closed form.
    derived = sum_over_ranks(expected_slot(_j, t, B, r, q + 1), _j, t, t + m)
    same(derived, group(t, t + m, B, r, q + 1), "Σ_j E[rel(j)·P@j] over m ranks of a group, n >= 2")
    # n = 1 (its one rank, or none within k), r = 0, 1.
    one = sympy.Integer(1)
    for r_ in (0, 1):
        rr = sympy.Integer(r_)
        same(sum_over_ranks(expected_slot(_j, t, B, rr, one), _j, t, t + 1), group(t, t + 1, B, rr, one), f"a singleton group, r = {r_}")
        same(sympy.Integer(0), group(t, t, B, rr, one), f"a singleton group past k, r = {r_}")
    return "symbolic t, m, B, r and n >= 2 (harmonic numbers H(t+m) − H(t)); n = 1 with r = 0, 1, in k or not"


def ap_cases() -> list[tuple[str, list[tuple[Any, Any]], Any]]:
    """(where k falls, [(size, relevant)] of three groups, k) with symbolic sizes, counts and cutoff.

    Sizes are q + 1 (so n >= 2 is known) or 1 (a singleton, where pair_fraction is 0/0 → 0);
    k falls inside or at the end of each group, or past the ranking.
    """
    A, Bs, C, u, v = sympy.symbols("A B C u v", **_pos)
    r1, r2, r3 = sympy.symbols("r_1 r_2 r_3", integer=True, nonnegative=True)
    a, b, c = A + 1, Bs + 1, C + 1
    out = []
    places = {
        "k inside group 1": ((u + v + 1, b, c), u),
        "k at the end of group 1": ((a, b, c), a),
        "k inside group 2": ((a, u + v + 1, c), a + u),
        "k at the end of group 2": ((a, b, c), a + b),
        "k inside group 3": ((a, b, u + v + 1), a + b + u),
        "k at the end of the ranking": ((a, b, c), a + b + c),
        "k past the end of the ranking": ((a, b, c), a + b + c + u),
        "no cutoff": ((a, b, c), None),
    }
    for where, (sizes, k) in places.items():
        out.append((where, list(zip(sizes, (r1, r2, r3))), k))
    one = sympy.Integer(1)
    for g in range(3):  # a singleton group in each position (relevant or not), k past it
        for r_ in (0, 1):
            sizes = [(a, r1), (b, r2), (c, r3)]
            sizes[g] = (one, sympy.Integer(r_))
            out.append((f"group {g + 1} a singleton with r = {r_}", sizes, None))
            out.append((f"group {g + 1} a singleton with r = {r_}, k after it", sizes, sum((s for s, _ in sizes[: g + 1]), sympy.Integer(0))))
    return out


def expected_ap(sizes: list[tuple[Any, Any]], k: Any, num_rel: Any) -> Any:
    """E[AP@k] of a ranking of symbolic groups, from the lemmas: Σ_groups Σ_(ranks within k) E[rel(j)·hits(j)/j] / num_rel."""
    total, start, before = sympy.Integer(0), sympy.Integer(0), sympy.Integer(0)
    for size, rel in sizes:
        slots = size if k is None else decided(sympy.Max(0, sympy.Min(size, k - start)), f"slots of the group at {start} within {k}")
        if slots != 0:
            total += sum_over_ranks(expected_slot(_j, start, before, rel, size), _j, start, start + slots)
        # the group's ranks hold size·P(rel) = r relevant documents for every group below it
        before += sympy.cancel(size * p_relevant(rel, size))
        start += size
    return total / num_rel


@theorem(
    "AP@k",
    "E[AP@k] = ap_value(Σ_groups ap_group(t, t + within(t, n, k), B, r, n), num_rel), for symbolic sizes, counts, cutoff and num_rel.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[AP@k]"),
        Sum(
            Tex(r"\mathrm{ap\_group}(t_g, t_g + \min(n_g, \max(0, k - t_g)), B_g, r_g, n_g)"),
            (Symbol("g"), 1, Symbol("G")),
        )
        / Tex(r"\mathrm{num\_rel}"),
        evaluate=False,
    ),
)
def prove_average_precision(group: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    group = group or kernels.ap_group
    compose = compose or measures.average_precision_from
    checked = 0
    for where, sizes, k in ap_cases():
        summary, start = [], sympy.Integer(0)
        for size, rel in sizes:
            summary.append(Group(start, size, rel, None))
            start += size
        same(expected_ap(sizes, k, R), compose(summary, k, R, number=sympy.sympify, group=group), f"AP@k, {where}")
        checked += 1
    zero = compose([Group(0, sympy.Integer(2), sympy.Integer(0), None)], None, 0, number=sympy.sympify, group=group)
    if sympy.sympify(zero) != 0:
        raise ProofFailure(f"AP with num_rel = 0 is {zero}, not 0")
    return f"{checked} cases of 3 symbolic groups (sizes >= 2 or singletons), symbolic relevant counts, cutoff and num_rel; num_rel = 0 gives 0"
