"""E[RR@k]: fast's first-relevant recursion equals the expectation.

RR@k is decided by the first group holding a relevant document: every rank
above it is surely irrelevant.  With that group starting after rank t,
holding r relevant of n, and s = min(n, k - t) of its slots within the
cutoff,

    E[RR@k] = Σ_{x=1..s} P(first relevant at slot x) / (t + x),

with P(first relevant at slot x) = f(x-1) - f(x) and f(x) = C(n-x, r)/C(n, r)
(lemma "first relevant").  fast's rr_group runs the paper's recursion in a
loop over the s slots, so s must be a number: the theorem holds for symbolic
n, r and t and every s up to a bound.

>>> prove_rr_group().proved
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol, binomial

from tieaware.fast.groups import Group
from tieaware.fast.kernels import rr_group
from tieaware.fast.measures import reciprocal_rank_from
from tieaware.proofs.lemmas import p_first_at
from tieaware.proofs.theorem import Tex, bounded, decided, same, theorem

__all__ = ["expected_rr", "RR_SLOTS", "RR_TEMPLATE_SLOTS", "prove_rr_group", "prove_reciprocal_rank"]

#: rr_group is checked for every count of slots within the cutoff up to this.
RR_SLOTS = 8
#: fast's whole RR function is checked on symbolic rankings whose decisive group has up to this many slots in k.
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
    f"rr_group(t, r, n, s) = Σ_(x<=s) P(first relevant at slot x)/(t+x), symbolic t, r, n, every s <= {RR_SLOTS}.",
    bounded(f"s<={RR_SLOTS}"),
    _formula,
)
def prove_rr_group(group: Callable[..., Any] = rr_group) -> str:
    for s in range(1, RR_SLOTS + 1):
        same(expected_rr(t, r, n, s), group(t, r, n, s), f"E[1/rank] over {s} slots")
    return f"every slot count 1..{RR_SLOTS}, symbolic t, r, n (n >= s)"


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


@theorem(
    "RR@k",
    f"E[RR@k] = rr_group of the first group holding a relevant document, with min(n, k-t) slots (<= {RR_TEMPLATE_SLOTS}).",
    bounded(f"s<={RR_TEMPLATE_SLOTS}"),
    lambda: Eq(
        Tex(r"\mathbb{E}[RR@k]"),
        Tex(r"\mathrm{rr\_group}(t_c, r_c, n_c, \min(n_c, k - t_c))"),
        evaluate=False,
    ),
)
def prove_reciprocal_rank(group: Callable[..., Any] = rr_group, compose: Callable[..., Any] = reciprocal_rank_from) -> str:
    # fast's own comparisons (g.start >= k, min(size, k - start)) are decided by the symbols' assumptions.
    cases = 0
    for where, summary, k, derived in _cases():
        got = compose(summary, k, number=sympy.sympify, group=group)
        same(decided(derived, where), got, f"RR@k, {where}")
        cases += 1
    return f"{cases} cases: symbolic sizes, starts, r and cutoff; decisive slot counts 1..{RR_TEMPLATE_SLOTS}"
