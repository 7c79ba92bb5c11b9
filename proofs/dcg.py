"""E[DCG@k] and E[nDCG@k] for arbitrary symbolic gains and discounts.

DCG@k = Σ_{j<=k} G(label at j)·D(j) is linear in the gains, so its
expectation is Σ_{j<=k} D(j)·E[G(label at j)].  For a rank j of a tie group
of n documents with gains g_1..g_n, each document sits at j in (n-1)! of the
n! orderings, so E[G(label at j)] = Σ g_i·(n-1)!/n!: fast's mean_gain.  This
per-rank theorem is general (symbolic n, symbolic gains).

fast assembles the ranks in a loop, so the whole of fast.dcg and fast.ndcg
is checked, for every tie structure up to a bound, against the plain
average over every ordering, with every label's gain a separate symbol G_l
and the discount an undefined function D(j): one check covers every gain
and discount function at once.  nDCG divides by IDCG@k, a constant of the
query, so E[nDCG@k] = E[DCG@k]/IDCG@k.

>>> prove_dcg_slot().proved
True
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any

import sympy
from sympy import Eq, Function, IndexedBase, Sum, Symbol, factorial

from tieaware import fast
from tieaware.fast.kernels import mean_gain
from tieaware.proofs.theorem import GENERAL, Tex, bounded, same, theorem
from tieaware.model.structures import compositions

__all__ = ["DCG_DOCUMENTS", "expected_dcg_terms", "prove_dcg_slot", "prove_dcg", "prove_ndcg"]

#: fast.dcg and fast.ndcg are checked on every tie structure of up to this many documents.
DCG_DOCUMENTS = 6

n = Symbol("n", integer=True, positive=True)
i = Symbol("i", integer=True, positive=True)
g = IndexedBase("g")
D = Function("D")
G = sympy.symbols(f"G_0:{DCG_DOCUMENTS}")  # the gain of label l is the symbol G_l


@theorem(
    "DCG slot",
    "E[gain at any rank of a tie group of n with gains g_1..g_n] = mean_gain(Σ g_i, n), symbolic n and gains.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[G(o_j)]"), mean_gain(Sum(g[i], (i, 1, n)), n), evaluate=False),
)
def prove_dcg_slot(mean: Callable[..., Any] = mean_gain) -> str:
    # Document i is at the given rank in (n-1)! of the n! orderings of its group.
    derived = Sum(g[i] * factorial(n - 1) / factorial(n), (i, 1, n))
    same(sympy.combsimp(derived.doit()), mean(Sum(g[i], (i, 1, n)), n), "E[gain at rank j]")
    return "P(document i at rank j) = (n-1)!/n! = 1/n for symbolic n; gains g_i symbolic"


def _orderings(sizes: tuple[int, ...]) -> tuple[list[list[int]], list[tuple[int, ...]]]:
    """The ranking with distinct labels 0.. in rank order, and every ordering consistent with its ties."""
    groups, label = [], 0
    for s in sizes:
        groups.append(list(range(label, label + s)))
        label += s
    return groups, [sum(p, ()) for p in itertools.product(*(itertools.permutations(x) for x in groups))]


def expected_dcg_terms(orderings: list[tuple[int, ...]], k: Any) -> Any:
    """The plain average over *orderings* of Σ_{j<=k} G(label at j)·D(j)."""
    counts: Counter = Counter()
    for o in orderings:
        for j, lab in enumerate(o[:k], start=1):
            counts[lab, j] += 1
    return sum((sympy.Rational(c, len(orderings)) * G[lab] * D(j) for (lab, j), c in counts.items()), sympy.Integer(0))


def _check(measure: str, run: Callable[..., Any], divide_by_ideal: bool) -> str:
    checked = 0
    gain = lambda label: G[int(label)]  # noqa: E731  every label its own symbolic gain
    discount = lambda j: D(j)  # noqa: E731  an undefined discount function
    for size in range(1, DCG_DOCUMENTS + 1):
        for sizes in compositions(size):
            groups, orderings = _orderings(sizes)
            ranking = [x[0] if len(x) == 1 else x for x in groups]
            for k in (None, *range(1, size + 2)):
                derived = expected_dcg_terms(orderings, k)
                if divide_by_ideal:  # the ideal ranking: labels in decreasing order, no ties left to break
                    derived /= sum((G[lab] * D(j) for j, lab in enumerate(sorted(range(size), reverse=True)[:k], start=1)), sympy.Integer(0))
                same(derived, run(ranking, k, gain=gain, discount=discount), f"{measure}@{k} of {ranking}", polynomial=True)
                checked += 1
    return f"{checked} checks: every tie structure of 1..{DCG_DOCUMENTS} documents, every k, symbolic gains G_l and discount D(j)"


_fmt = {name: Symbol(f"{name}_g") for name in ("n", "t", "G")}
_j = Symbol("j")


def _dcg_formula() -> Any:
    ranks = Sum(D(_j), (_j, _fmt["t"] + 1, sympy.Min(_fmt["t"] + _fmt["n"], Symbol("k"))))
    return Eq(Tex(r"\mathbb{E}[DCG@k]"), Sum(mean_gain(_fmt["G"], _fmt["n"]) * ranks, (Symbol("h"), 1, Symbol("H"))), evaluate=False)


@theorem(
    "DCG@k",
    f"E[DCG@k] = Σ_groups mean_gain · Σ_(ranks j <= k) D(j): fast.dcg on every tie structure of <= {DCG_DOCUMENTS} documents.",
    bounded(f"N<={DCG_DOCUMENTS}"),
    _dcg_formula,
)
def prove_dcg(dcg: Callable[..., Any] = fast.dcg) -> str:
    return _check("DCG", dcg, divide_by_ideal=False)


@theorem(
    "nDCG@k",
    f"E[nDCG@k] = E[DCG@k]/IDCG@k: fast.ndcg on every tie structure of <= {DCG_DOCUMENTS} documents.",
    bounded(f"N<={DCG_DOCUMENTS}"),
    lambda: Eq(Tex(r"\mathbb{E}[nDCG@k]"), _dcg_formula().rhs / Tex(r"IDCG@k"), evaluate=False),
)
def prove_ndcg(ndcg: Callable[..., Any] = fast.ndcg) -> str:
    return _check("nDCG", ndcg, divide_by_ideal=True)
