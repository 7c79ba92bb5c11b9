"""E[P@k], E[R@k] and E[F1@k]: fast's closed forms equal the expectations, for symbolic rankings.

All three are linear in hits@k = Σ_{j<=k} rel(j), so their expectations are
Σ over groups of E[relevant among the group's slots within k], which the
hypergeometric-mean lemma gives for the min(n, max(0, k - t)) slots of each
group inside the cutoff.  Missing ranks past the end of the ranking count as
non-relevant.

The check runs fast's whole summary-level function (precision_from & co.,
the code the public functions call) on a symbolic ranking of three groups
with symbolic sizes and relevant counts, once for every place the cutoff can
fall: inside or at the end of each group, or past the ranking.  Each place
is a set of sympy assumptions (k = a + u with u, v > 0, ...), so fast's
comparisons ``g.start >= k`` and ``min(size, k - start)`` are decided by
sympy, not assumed.  By linearity, groups further down or up behave like
these, so the result holds for every ranking.

>>> prove_precision().proved
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Optional

import sympy
from sympy import Eq, Max, Min, Sum, Symbol

from tieaware.fast.groups import Group
from tieaware.fast import kernels, measures
from tieaware.proofs.lemmas import mean_hits
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, decided, same, theorem

__all__ = ["cutoff_cases", "expected_hits_at", "prove_precision", "prove_recall", "prove_f1"]

_pos = dict(integer=True, positive=True)
A, B, C, u, v = sympy.symbols("A B C u v", **_pos)
r1, r2, r3 = sympy.symbols("r_1 r_2 r_3", integer=True, nonnegative=True)
R = Symbol("R", **_pos)  # num_rel


def cutoff_cases() -> Iterator[tuple[str, list[Group], Any]]:
    """(where k falls, three symbolic groups, k) for every place the cutoff can fall.

    Sizes and cutoff are sums of positive symbols chosen so that the place
    is implied by the assumptions alone.
    """
    places = {
        "k inside group 1": (u + v, B, C, u),
        "k at the end of group 1": (A, B, C, A),
        "k inside group 2": (A, u + v, C, A + u),
        "k at the end of group 2": (A, B, C, A + B),
        "k inside group 3": (A, B, u + v, A + B + u),
        "k at the end of the ranking": (A, B, C, A + B + C),
        "k past the end of the ranking": (A, B, C, A + B + C + u),
    }
    for where, (a, b, c, k) in places.items():
        yield where, [Group(0, a, r1, None), Group(a, b, r2, None), Group(a + b, c, r3, None)], k


def expected_hits_at(summary: list[Group], k: Any) -> Any:
    """E[hits@k] derived from the lemmas: Σ_groups mean_hits(slots of the group within k)."""
    total = sympy.Integer(0)
    for g in summary:
        slots = decided(Max(0, Min(g.size, k - g.start)), f"slots of the group at {g.start} within {k}")
        total += mean_hits(slots, g.relevant, g.size)
    return total  # ranks past the last group are non-relevant: they add nothing


def _check(measure: str, compose: Callable[..., Any], kernel: Callable[..., Any], derive: Callable[[Any, Any], Any], *extra: Any) -> str:
    cases = 0
    for where, summary, k in cutoff_cases():
        got = compose(summary, k, *extra, number=sympy.sympify, hits=kernel)
        same(derive(expected_hits_at(summary, k), k), got, f"{measure}, {where}")
        cases += 1
    return f"{cases} cutoff positions in a ranking of 3 symbolic groups"


_g = {name: Symbol(f"{name}_g") for name in ("n", "r", "t")}
_k = Symbol("k")


def _hits_formula() -> Any:
    return Sum(kernels.expected_hits(Min(_g["n"], Max(0, _k - _g["t"])), _g["r"], _g["n"]), (Symbol("g"), 1, Symbol("G")))


@theorem(
    "P@k",
    "E[P@k] = (1/k)·Σ_groups expected_hits(min(n, max(0, k-t)), r, n); ranks past the end are non-relevant.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[P@k]"), _hits_formula() / _k, evaluate=False),
)
def prove_precision(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits
    compose = compose or measures.precision_from
    return _check("P@k", compose, kernel, lambda hits, k: hits / k)


@theorem(
    "R@k",
    "E[R@k] = E[hits@k]/num_rel (num_rel > 0), and 0 when num_rel = 0.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[R@k]"), _hits_formula() / Tex(r"\mathrm{num\_rel}"), evaluate=False),
)
def prove_recall(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits
    compose = compose or measures.recall_from
    detail = _check("R@k", compose, kernel, lambda hits, k: hits / R, R)
    # num_rel = 0 means nothing is relevant; the definition says R@k = 0 then.
    empty = [Group(0, A, sympy.Integer(0), None), Group(A, B, sympy.Integer(0), None)]
    got = compose(empty, A + u, 0, number=sympy.sympify, hits=kernel)
    if sympy.sympify(got) != 0:
        raise ProofFailure(f"R@k with num_rel = 0 is {got}, not 0")
    return detail + ", symbolic num_rel; num_rel = 0 gives 0"


@theorem(
    "F1@k",
    "E[F1@k] = 2·E[hits@k]/(k + num_rel): F1 = 2·hits/(k + num_rel) is linear in hits.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[F_1@k]"), 2 * _hits_formula() / (_k + Tex(r"\mathrm{num\_rel}")), evaluate=False),
)
def prove_f1(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits
    compose = compose or measures.f1_from
    return _check("F1@k", compose, kernel, lambda hits, k: 2 * hits / (k + R), R) + ", symbolic num_rel"
