"""E[RR@k]: fast's first-relevant recursion equals the expectation.

RR@k is decided by the first group holding a relevant document: every rank
above it is surely irrelevant.  With that group starting after rank t,
holding r relevant of n, and s = min(n, k - t) of its slots within the
cutoff,

    E[RR@k] = Σ_{x=1..s} P(first relevant at slot x) / (t + x),

with P(first relevant at slot x) = f(x-1) - f(x) and f(x) = C(n-x, r)/C(n, r)
(lemma "first relevant").  fast's rr_group runs the paper's recursion in a
loop over the s slots: a fold of rr_step, proved by induction on the slot
for symbolic x, n, r and t, so the theorem holds for every s.  fast's whole
RR function is then run on symbolic rankings: with an uninterpreted group
value for symbolic slot counts, and with the real rr_group for slot counts
up to a bound (its loop needs the count as a number).

>>> prove_rr_group().proved
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol, binomial

from tieaware.fast.groups import Group
from tieaware.fast import kernels, measures
from tieaware.proofs.lemmas import p_first_at, p_none_in_first
from tieaware.proofs.theorem import GENERAL, Tex, decided, same, theorem

__all__ = ["expected_rr", "RR_SLOTS", "RR_TEMPLATE_SLOTS", "prove_rr_group", "prove_reciprocal_rank"]

#: The loop of rr_group is also run for every count of slots within the cutoff up to this.
RR_SLOTS = 8
#: fast's whole RR function is also run with the real rr_group when the decisive group has up to this many slots in k.
RR_TEMPLATE_SLOTS = 4

_pos = dict(integer=True, positive=True)
t, n, r, A, C, u, v, k0 = sympy.symbols("t n r A C u v k", **_pos)
e = Symbol("e", integer=True, nonnegative=True)
r3 = Symbol("r_3", integer=True, nonnegative=True)
x = Symbol("x", integer=True, positive=True)


def expected_rr(t_: Any, r_: Any, n_: Any, slots: int) -> Any:
    """Σ_{x=1..slots} P(first relevant at slot x)/(t + x), from the lemma."""
    return sum((p_first_at(x_, r_, n_) / (t_ + x_) for x_ in range(1, slots + 1)), sympy.Integer(0))


def _formula() -> Any:
    s = Symbol("s")
    derived = Sum((binomial(n - x + 1, r) - binomial(n - x, r)) / binomial(n, r) / (t + x), (x, 1, s))
    return Eq(Tex(r"\mathrm{rr\_group}(t, r, n, s)"), derived, evaluate=False)


@theorem(
    "RR group",
    "rr_group(t, r, n, s) = Σ_(x<=s) P(first relevant at slot x)/(t+x), symbolic t, r, n, every s.",
    GENERAL,
    _formula,
)
def prove_rr_group(step: Optional[Callable[..., Any]] = None, group: Optional[Callable[..., Any]] = None) -> str:
    step = step or kernels.rr_step
    group = group or kernels.rr_group
    # rr_group is a fold of rr_step from (0, f(0) = 1).  Loop invariant, by induction on x: entering
    # step x the state is (Σ_(y<x) P(first at y)/(t+y), f(x-1)); the step must add P(first at x)/(t+x)
    # and carry f(x).  Proved for symbolic x and any running total, hence for every s.
    so_far = Symbol("S", real=True)
    total, carried = step(so_far, p_none_in_first(x - 1, r, n), x, t, r, n)
    same(so_far + p_first_at(x, r, n) / (t + x), total, "the total after step x")
    same(p_none_in_first(x, r, n), carried, "the value step x carries")
    # The fold itself (start state, slot numbering, length), run for every slot count up to a bound.
    for s in range(1, RR_SLOTS + 1):
        same(expected_rr(t, r, n, s), group(t, r, n, s), f"E[1/rank] over {s} slots")
    return f"induction on rr_step for symbolic x, t, r, n; the fold also run for s = 1..{RR_SLOTS}"


def _cases() -> Iterator[tuple[str, list[Group], Optional[Any], Any]]:
    """(case, symbolic ranking, k, derived E[RR@k]) for every place k can fall around the decisive group."""
    zero = sympy.Integer(0)
    for s in range(1, RR_TEMPLATE_SLOTS + 1):
        for prefix in (True, False):
            start = A if prefix else zero

            def ranking(size: Any, relevant: Any) -> list[Group]:
                head = [Group(0, A, zero, None)] if prefix else []  # no relevant document: ranks 1..A
                return head + [Group(start, size, relevant, None), Group(start + size, C, r3, None)]

            where = f"s = {s}, {'after an irrelevant group' if prefix else 'at the top'}"
            # The whole group within k: its size is the number s, so its relevant count runs over 1..s.
            for rr in range(1, s + 1):
                whole = expected_rr(start, sympy.Integer(rr), sympy.Integer(s), s)
                for place, k in (("k = None", None), ("k at the group's end", start + s), ("k past the group", start + s + u)):
                    yield f"{where}, r = {rr}, {place}", ranking(sympy.Integer(s), sympy.Integer(rr)), k, whole
            # The group crosses k: only s of its n = s + v slots count; r is symbolic.
            yield f"{where}, k crossing the group", ranking(s + v, r), start + s, expected_rr(start, r, s + v, s)
        # k at or above the decisive group's start: nothing relevant within k.
        yield f"s = {s}, k above the relevant group", [Group(0, k0 + e, zero, None), Group(k0 + e, n, r, None)], k0, zero


def _symbolic_cases(rr: Any) -> Iterator[tuple[str, list[Group], Optional[Any], Any]]:
    """Like _cases, with symbolic slot counts and an uninterpreted rr(t, r, n, s) for the group's value."""
    zero = sympy.Integer(0)
    for prefix in (True, False):
        start = A if prefix else zero
        head = [Group(0, A, zero, None)] if prefix else []

        def ranking(size: Any) -> list[Group]:
            return head + [Group(start, size, r, None), Group(start + size, C, r3, None)]

        where = "after an irrelevant group" if prefix else "at the top"
        yield f"{where}, k = None", ranking(n), None, rr(start, r, n, n)
        yield f"{where}, k at or past the group's end", ranking(n), start + n + e, rr(start, r, n, n)
        yield f"{where}, k crossing the group", ranking(u + v), start + u, rr(start, r, u + v, u)
    yield "k above the relevant group", [Group(0, k0 + e, zero, None), Group(k0 + e, n, r, None)], k0, zero


@theorem(
    "RR@k",
    "E[RR@k] = rr_group(t, r, n, min(n, k-t)) of the first group holding a relevant document (0 if none within k).",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[RR@k]"),
        Tex(r"\mathrm{rr\_group}(t_c, r_c, n_c, \min(n_c, k - t_c))"),
        evaluate=False,
    ),
)
def prove_reciprocal_rank(group: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    group = group or kernels.rr_group
    compose = compose or measures.reciprocal_rank_from
    # fast's own comparisons (g.start >= k, min(size, k - start)) are decided by the symbols' assumptions.
    # 1. For symbolic sizes, starts and cutoffs, fast picks the right group and slot count: its group
    #    kernel is replaced by an uninterpreted function, whose value theorem "RR group" proves for every s.
    rr = sympy.Function("rr")
    cases = 0
    for where, summary, k, derived in _symbolic_cases(rr):
        same(derived, compose(summary, k, number=sympy.sympify, group=rr), f"RR@k, {where}")
        cases += 1
    # 2. The same with the real kernel, for decisive slot counts up to a bound (its loop needs a number).
    for where, summary, k, derived in _cases():
        got = compose(summary, k, number=sympy.sympify, group=group)
        same(decided(derived, where), got, f"RR@k, {where}")
        cases += 1
    return f"{cases} cases: symbolic sizes, starts, r and cutoff; with the real rr_group for slot counts 1..{RR_TEMPLATE_SLOTS}"
