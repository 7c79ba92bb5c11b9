"""E[DCG@k] and E[nDCG@k] for arbitrary symbolic gains and discounts, repeated labels included.

DCG@k = Σ_{j<=k} G(label at j)·D(j) is linear in the gains, so its
expectation is Σ_{j<=k} D(j)·E[G(label at j)].  For a rank j of a tie group
of n documents, each document sits at j in (n-1)! of the n! orderings, so
E[G(label at j)] = Σ_l c_l·G_l·(n-1)!/n! for a group holding c_l documents of
label l: fast's mean_gain (theorem "DCG slot").  Summed over the group's ranks
within k this is a constant times Σ_{j=t+1..last} D(j), the kernel
``dcg_group`` that exact mode, the exact whole-run path and the engine run.

"DCG@k" runs fast's ``dcg_from`` on a ranking of three symbolic groups, each
holding two labels with symbolic multiplicities (so labels repeat inside and
across groups), symbolic gains G_l and an undefined discount D(j), for every
place of k.  nDCG divides by IDCG@k, a constant of the query: the DCG of the
ideal ranking, whose runs of equal labels are groups that every ordering
leaves ideal (``ideal_groups``); "nDCG@k" checks that composition for three
labels of symbolic multiplicity and every place of k in the ideal ranking.
Both also run the public ``fast.dcg``/``fast.ndcg`` on every tie structure of
up to DCG_DOCUMENTS documents (labels repeating), against the plain average
over every ordering.

>>> prove_dcg_slot().proved
True
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any, Optional

import sympy
from sympy import Eq, Function, IndexedBase, Max, Min, Sum, Symbol, factorial

from tieaware.fast import kernels
from tieaware.fast import measures
from tieaware.fast.groups import Group
from tieaware.model.structures import compositions
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, decided, same, theorem

__all__ = ["DCG_DOCUMENTS", "expected_dcg_terms", "dcg_cases", "prove_dcg_slot", "prove_dcg", "prove_ndcg"]

#: fast.dcg and fast.ndcg are also run on every tie structure of up to this many documents.
DCG_DOCUMENTS = 5

_pos = dict(integer=True, positive=True)
n = Symbol("n", **_pos)
i = Symbol("i", **_pos)
g = IndexedBase("g")
D = Function("D")
G = sympy.symbols(f"G_0:{DCG_DOCUMENTS}")  # the gain of label l is the symbol G_l
_j = Symbol("j", **_pos)  # the rank variable of discount spans, as fast.arith's symbolic spans name it


@theorem(
    "DCG slot",
    "E[gain at any rank of a tie group of n with gains g_1..g_n] = mean_gain(Σ g_i, n), symbolic n and gains.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[G(o_j)]"), kernels.mean_gain(Sum(g[i], (i, 1, n)), n), evaluate=False),
)
def prove_dcg_slot(mean: Optional[Callable[..., Any]] = None) -> str:
    mean = mean or kernels.mean_gain
    # Document i is at the given rank in (n-1)! of the n! orderings of its group.
    derived = Sum(g[i] * factorial(n - 1) / factorial(n), (i, 1, n))
    same(sympy.combsimp(derived.doit()), mean(Sum(g[i], (i, 1, n)), n), "E[gain at rank j]")
    return "P(document i at rank j) = (n-1)!/n! = 1/n for symbolic n; gains g_i symbolic"


def _span(lo: Any, hi: Any) -> Any:
    """Σ_{j=lo+1..hi} D(j), as a sympy Sum over the rank variable j."""
    return Sum(D(_j), (_j, lo + 1, hi))


def dcg_cases() -> list[tuple[str, list[tuple[Any, Any]], Any]]:
    """(where k falls, [(size, count of label 0)] of three groups, k): label 1 fills the rest of each group."""
    A, B, C, u, v = sympy.symbols("A B C u v", **_pos)
    c1, c2, c3 = sympy.symbols("c_1 c_2 c_3", integer=True, nonnegative=True)
    places = {
        "k inside group 1": ((u + v, B, C), u),
        "k at the end of group 1": ((A, B, C), A),
        "k inside group 2": ((A, u + v, C), A + u),
        "k at the end of group 2": ((A, B, C), A + B),
        "k inside group 3": ((A, B, u + v), A + B + u),
        "k past the end of the ranking": ((A, B, C), A + B + C + u),
        "no cutoff": ((A, B, C), None),
    }
    return [(where, list(zip(sizes, (c1, c2, c3))), k) for where, (sizes, k) in places.items()]


def _expected_dcg(groups: list[tuple[Any, Any, Any]], k: Any) -> Any:
    """Σ_groups Σ_{ranks j within k} D(j)·E[G(label at j)] for groups (size, [(count, gain)]), from counting orderings."""
    total, start = sympy.Integer(0), sympy.Integer(0)
    for size, labels in groups:
        at_rank = sympy.combsimp(factorial(size - 1) / factorial(size))  # P(a given document at a given rank)
        mean = sum((count * gain * at_rank for count, gain in labels), sympy.Integer(0))
        slots = size if k is None else decided(Max(0, Min(size, k - start)), f"slots of the group at {start} within {k}")
        if slots != 0:
            total += mean * _span(start, start + slots)
        start += size
    return total


def _summary(groups: list[tuple[Any, Any]]) -> list[Group]:
    out, start = [], sympy.Integer(0)
    for size, labels in groups:
        out.append(Group(start, size, None, sum((count * gain for count, gain in labels), sympy.Integer(0))))
        start += size
    return out


def _enumerate(measure: str, run: Callable[..., Any], divide_by_ideal: bool) -> int:
    """fast.dcg/fast.ndcg on every tie structure of <= DCG_DOCUMENTS documents, labels 0, 1, 2 repeating, every k."""
    checked = 0
    gain = lambda label: G[int(label)]  # noqa: E731  every label its own symbolic gain
    discount = lambda j: D(j)  # noqa: E731  an undefined discount function
    for size in range(1, DCG_DOCUMENTS + 1):
        for sizes in compositions(size):
            labels = [x % 3 for x in range(size)]
            groups, at = [], 0
            for s in sizes:
                groups.append(labels[at : at + s])
                at += s
            orderings = [sum(p, ()) for p in itertools.product(*(itertools.permutations(x) for x in groups))]
            ranking = [x[0] if len(x) == 1 else x for x in groups]
            for k in (None, *range(1, size + 2)):
                derived = expected_dcg_terms(orderings, k)
                got = run(ranking, k, gain=gain, discount=discount)
                if divide_by_ideal:  # the ideal ranking: labels in decreasing order
                    best = sum((G[lab] * D(j) for j, lab in enumerate(sorted(labels, reverse=True)[:k], start=1)), sympy.Integer(0))
                    same_ratio(derived, best, got, f"{measure}@{k} of {ranking}")
                else:
                    same(derived, got, f"{measure}@{k} of {ranking}", polynomial=True)
                checked += 1
    return checked


def same_ratio(numerator: Any, denominator: Any, got: Any, what: str) -> None:
    """Demand got == numerator/denominator where the denominator is not 0, and got == 0 where it is.

    fast's symbolic ratio is Piecewise((0, Eq(den, 0)), (num/den, True)) unless sympy decides den.
    """
    got = sympy.sympify(got)
    if isinstance(got, sympy.Piecewise):
        (zero, cond), (value, otherwise) = got.args
        if zero != 0 or otherwise is not sympy.true or not isinstance(cond, sympy.Eq) or cond.rhs != 0:
            raise ProofFailure(f"{what}: fast gives {got}, not 0 where the ideal is 0 and a ratio elsewhere")
        same(denominator, cond.lhs, f"{what} (the ideal fast divides by)", polynomial=True)
        got = value
    same(numerator / denominator, got, what, polynomial=True)


def expected_dcg_terms(orderings: list[tuple[int, ...]], k: Any) -> Any:
    """The plain average over *orderings* (of labels) of Σ_{j<=k} G(label at j)·D(j)."""
    counts: Counter = Counter()
    for o in orderings:
        for j, lab in enumerate(o[:k], start=1):
            counts[lab, j] += 1
    return sum((sympy.Rational(c, len(orderings)) * G[lab] * D(j) for (lab, j), c in counts.items()), sympy.Integer(0))


def _dcg_formula() -> Any:
    t, nn, gg, k = (Symbol(name) for name in ("t_g", "n_g", "G_g", "k"))
    return Eq(
        Tex(r"\mathbb{E}[DCG@k]"),
        Sum(kernels.mean_gain(gg, nn) * Sum(D(_j), (_j, t + 1, Min(t + nn, k))), (Symbol("h"), 1, Symbol("H"))),
        evaluate=False,
    )


@theorem(
    "DCG@k",
    "E[DCG@k] = Σ_groups dcg_group(G, n, t, t + within(t, n, k)) = Σ_groups mean_gain·Σ_(ranks j <= k) D(j), symbolic sizes, label counts, gains, D and k.",
    GENERAL,
    _dcg_formula,
)
def prove_dcg(compose: Optional[Callable[..., Any]] = None, dcg: Optional[Callable[..., Any]] = None) -> str:
    compose = compose or measures.dcg_from
    dcg = dcg or measures.dcg
    cases = 0
    for where, sizes, k in dcg_cases():
        groups = [(size, [(c0, G[0]), (size - c0, G[1])]) for size, c0 in sizes]
        got = compose(_summary(groups), k, number=sympy.sympify, discount=D)
        same(_expected_dcg(groups, k), got, f"DCG@k, {where}")
        cases += 1
    checked = _enumerate("DCG", dcg, divide_by_ideal=False)
    return (
        f"{cases} places of k in 3 symbolic groups of 2 labels each (symbolic counts and gains, repeated across groups), "
        f"undefined D; and fast.dcg on {checked} tie structures of <= {DCG_DOCUMENTS} documents with repeated labels"
    )


def _ideal_cases() -> list[tuple[str, Any]]:
    d0, d1, d2, u = sympy.symbols("d_0 d_1 d_2 u", **_pos)
    return [
        ("k inside the best label's run", (d0 + u, d1, d2), d0),
        ("k at the end of the best label's run", (d0, d1, d2), d0),
        ("k inside the second label's run", (d0, d1 + u, d2), d0 + d1),
        ("k inside the last label's run", (d0, d1, d2 + u), d0 + d1 + d2),
        ("k past the ideal ranking", (d0, d1, d2), d0 + d1 + d2 + u),
        ("no cutoff", (d0, d1, d2), None),
    ]


@theorem(
    "nDCG@k",
    "E[nDCG@k] = ndcg_value(E[DCG@k], IDCG@k), IDCG@k = Σ_(runs of equal labels, best first) dcg_group: symbolic counts, gains, D, k.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[nDCG@k]"), _dcg_formula().rhs / Tex(r"IDCG@k"), evaluate=False),
)
def prove_ndcg(
    compose: Optional[Callable[..., Any]] = None, ideal: Optional[Callable[..., Any]] = None, ratio: Optional[Callable[..., Any]] = None, ndcg: Optional[Callable[..., Any]] = None
) -> str:
    compose = compose or measures.dcg_from
    ideal = ideal or measures.ideal_groups
    ratio = ratio or kernels.ndcg_value
    ndcg = ndcg or measures.ndcg
    cases = 0
    numerator = Symbol("E_DCG", positive=True)  # E[DCG@k], proved by "DCG@k"
    for where, counts, k in _ideal_cases():
        # The ideal ranking: runs of labels 2, 1, 0 (gains G_2, G_1, G_0), each run in any order.
        runs = [(count, [(count, G[2 - l])]) for l, count in enumerate(counts)]
        idcg = _expected_dcg(runs, k)
        best = compose(ideal([(G[2 - l], count) for l, count in enumerate(counts)]), k, number=sympy.sympify, discount=D)
        same(idcg, best, f"IDCG@k, {where}")
        same_ratio(numerator, idcg, ratio(numerator, best), f"nDCG@k = E[DCG@k]/IDCG@k, {where}")  # 0 when IDCG is 0
        cases += 1
    zero = ratio(sympy.Integer(0), sympy.Integer(0))
    if sympy.sympify(zero) != 0:
        raise ProofFailure(f"nDCG with IDCG = 0 is {zero}, not 0")
    checked = _enumerate("nDCG", ndcg, divide_by_ideal=True)
    return (
        f"{cases} places of k in an ideal ranking of 3 labels of symbolic multiplicity, symbolic gains and D, IDCG = 0 gives 0; "
        f"and fast.ndcg on {checked} tie structures of <= {DCG_DOCUMENTS} documents with repeated labels"
    )
