"""E[AP@k]: fast's per-rank term and its sums equal the expectation.

AP@k = (1/num_rel) Σ_{j<=k} rel(j)·hits(j)/j.  For rank j in a group that
starts after rank t with r relevant of n, and B relevant documents in the
groups above it (a fixed number: whole groups lie above t),

    E[rel(j)·hits(j)] = B·P(rel j) + P(rel j) + Σ_{t<i<j} P(rel i ∧ rel j)

since rel(j)² = rel(j).  Exchangeability and the pair lemma give every
term, so the per-rank theorem is general.  Summing over ranks is linearity;
fast's loops over ranks (and its exact-mode harmonic shortcut) need numeric
group sizes, so those sums are checked for every tie structure up to a bound
with the relevant counts and num_rel left symbolic.

>>> prove_ap_slot().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol, summation

from tieaware.fast import measures
from tieaware.fast.groups import Group
from tieaware.fast.kernels import ap_slot
from tieaware.fast.measures import average_precision_from
from tieaware.proofs.lemmas import p_pair, p_relevant
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, bounded, same, theorem
from tieaware.model.structures import compositions

__all__ = ["expected_slot", "expected_ap", "AP_DOCUMENTS", "HARMONIC_BOUND", "prove_ap_slot", "prove_ap_harmonic", "prove_average_precision"]

#: AP@k's sums over ranks are checked on every tie structure of up to this many documents.
AP_DOCUMENTS = 5
#: The exact-mode harmonic shortcut is checked for group starts t <= this and slot counts m <= this.
HARMONIC_BOUND = 6

_pos = dict(integer=True, positive=True)
j, t, B, i = sympy.symbols("j t B i", integer=True, nonnegative=True)
n2 = Symbol("n", integer=True, positive=True)  # n >= 2 in the general case (pair_fraction's branch)
r = Symbol("r", integer=True, nonnegative=True)
R = Symbol("R", **_pos)


def expected_slot(j_: Any, t_: Any, before: Any, r_: Any, n_: Any) -> Any:
    """E[rel(j)·P@j] from the lemmas, for rank j of a group starting after rank t."""
    p = p_relevant(r_, n_)
    same_group = summation(p_pair(r_, n_), (i, t_ + 1, j_ - 1)) if n_ != 1 else 0  # no other slot when n = 1
    return (before * p + p + same_group) / j_


def _pair_probability(a: tuple[int, Group], b: tuple[int, Group]) -> Any:
    (ga, ia), (gb, ib) = a, b
    if ga is gb:
        return p_pair(ga.relevant, ga.size)
    return p_relevant(ga.relevant, ga.size) * p_relevant(gb.relevant, gb.size)  # groups are shuffled independently


def expected_ap(summary: list[Group], k: Optional[int], num_rel: Any) -> Any:
    """E[AP@k] from the per-ordering definition, rank by rank and pair by pair (numeric sizes)."""
    ranks = [(g, s) for g in summary for s in range(g.size)]  # rank j = index + 1
    depth = len(ranks) if k is None else min(k, len(ranks))
    total = sympy.Integer(0)
    for jj in range(1, depth + 1):
        g, _ = ranks[jj - 1]
        both = p_relevant(g.relevant, g.size) + sum((_pair_probability(ranks[ii - 1], ranks[jj - 1]) for ii in range(1, jj)), sympy.Integer(0))
        total += both / jj
    return total / num_rel


_fmt = {name: Symbol(f"{name}_g") for name in ("n", "r", "t", "B")}


@theorem(
    "AP slot",
    "E[rel(j)·P@j] = ap_slot(j, t, B, r, n) for rank j of a group (start t, n, r) below B relevant; n = 1 too.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[\mathrm{rel}(j)\,P@j]"), ap_slot(j, t, B, r, n2), evaluate=False),
)
def prove_ap_slot(slot: Callable[..., Any] = ap_slot) -> str:
    # General case: symbolic n (not == 1, so pair_fraction's general branch), any slot j = t + i of the group.
    jj = t + i
    same(expected_slot(jj, t, B, r, n2), slot(jj, t, B, r, n2), "E[rel(j)·P@j], n >= 2")
    # n = 1, stated separately: the only slot is j = t + 1, relevant with probability r in {0, 1}.
    for r_ in (0, 1):
        one = sympy.Integer(1)
        same(expected_slot(t + 1, t, B, sympy.Integer(r_), one), slot(t + 1, t, B, sympy.Integer(r_), one), f"E[rel(j)·P@j], n = 1, r = {r_}")
    return "symbolic j, t, B, r, n (n >= 2); and n = 1 with r = 0, 1"


@theorem(
    "AP harmonic sum",
    f"fast's exact-mode sum over a group's ranks equals Σ_j E[rel(j)·P@j] (t, m <= {HARMONIC_BOUND}).",
    bounded(f"t<={HARMONIC_BOUND}, m<={HARMONIC_BOUND}"),
    lambda: Eq(
        Tex(r"\mathrm{ap\_slots}(t+1, t+m)"),
        Sum(ap_slot(j, t, B, r, n2), (j, t + 1, t + Symbol("m"))),
        evaluate=False,
    ),
)
def prove_ap_harmonic(group_sum: Optional[Callable[..., Any]] = getattr(measures, "_ap_slots_exact", None)) -> str:
    if group_sum is None:
        return "fast has no exact-mode shortcut: nothing to prove"
    # The shortcut sums 1/j as integers, so the ranks are numbers; n, r and B stay symbolic.
    for t_ in range(0, HARMONIC_BOUND + 1):
        for m_ in range(1, HARMONIC_BOUND + 1):
            derived = sum((expected_slot(t_ + s, t_, B, r, n2) for s in range(1, m_ + 1)), sympy.Integer(0))
            same(derived, group_sum(t_ + 1, t_ + m_, t_, B, r, n2), f"ranks {t_ + 1}..{t_ + m_} of a group after rank {t_}")
    return f"every start t <= {HARMONIC_BOUND} and slot count m <= {HARMONIC_BOUND}, symbolic n, r, B"


@theorem(
    "AP@k",
    f"E[AP@k] = (1/num_rel)·Σ_groups Σ_(ranks j <= k) ap_slot(j, t, B, r, n), every tie structure of <= {AP_DOCUMENTS} documents.",
    bounded(f"N<={AP_DOCUMENTS}"),
    lambda: Eq(
        Tex(r"\mathbb{E}[AP@k]"),
        Sum(
            Sum(ap_slot(j, _fmt["t"], _fmt["B"], _fmt["r"], _fmt["n"]), (j, _fmt["t"] + 1, sympy.Min(_fmt["t"] + _fmt["n"], Symbol("k")))),
            (Symbol("g"), 1, Symbol("G")),
        )
        / Tex(r"\mathrm{num\_rel}"),
        evaluate=False,
    ),
)
def prove_average_precision(slot: Callable[..., Any] = ap_slot, compose: Callable[..., Any] = average_precision_from) -> str:
    # Group sizes are numbers (fast loops over ranks); relevant counts and num_rel are symbols, so every
    # labelling of each structure is covered at once.  Both number paths of fast are run: the per-rank
    # loop (sympy numbers) and exact mode's harmonic shortcut (number=Fraction).
    checked = 0
    for size in range(1, AP_DOCUMENTS + 1):
        for sizes in compositions(size):
            rel = sympy.symbols(f"r_1:{len(sizes) + 1}", integer=True, nonnegative=True)
            summary, start = [], 0
            for s, rr in zip(sizes, rel):
                summary.append(Group(start, s, rr, None))
                start += s
            for k in (None, *range(1, size + 2)):
                derived = expected_ap(summary, k, R)
                for number in (sympy.sympify, Fraction):
                    same(derived, compose(summary, k, R, number=number, slot=slot), f"AP@{k} of sizes {sizes} ({number.__name__})", polynomial=True)
                    checked += 1
    zero = compose([Group(0, 2, sympy.Integer(0), None)], None, 0, number=sympy.sympify, slot=slot)
    if sympy.sympify(zero) != 0:
        raise ProofFailure(f"AP with num_rel = 0 is {zero}, not 0")
    return f"{checked} checks: every tie structure of 1..{AP_DOCUMENTS} documents, every k, symbolic relevant counts and num_rel"
