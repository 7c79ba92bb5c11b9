"""The extremes over tie-breakings: every tie group sorted by label, descending for the best value, ascending for the worst.

``tieaware eval --spread`` (both engines) and ``fast.worst``/``fast.best``
compute a measure's minimum and maximum over the orderings of the ties as
the measure's own closed form on one ordering: each group sorted by label,
ascending (worst) or descending (best).  This theorem is why that is right,
for P, R, F1, RBP, DCG, nDCG, AP and RR at every cutoff.

**Exchange lemma.** Take an ordering and two adjacent documents of one
group, at ranks j and j+1, the one at j+1 with the larger label.  Swapping
them never lowers the measure:

- *rank-weight measures* (P, R, F1, RBP, DCG, nDCG: a constant plus
  Σ_j w_j·g(label at j)): the swap adds (w_j − w_{j+1})·(g(hi) − g(lo)),
  and the weights do not increase with the rank (P, R, F1: the weight of
  one hit within k, fast's combination kernels at hits = 1, then 0; RBP:
  (1−p)·p^(j−1) within k, fast's ``rbp_group`` over one rank; DCG: the log2
  discount within k, fast's discount span over one rank) while the gains
  do not decrease with the label (linear l and exp2 2^l − 1 have positive
  derivatives).  nDCG divides by the ideal DCG, which no ordering changes.
- *AP@k*: a relevant document moving up from j+1 to j above an irrelevant
  one keeps the relevant documents above every other document, so only its
  own term (h + 1)/rank changes, from (h+1)/(j+1) (0 past k) to (h+1)/j
  (0 past k); swapping two relevant or two irrelevant documents changes
  nothing.
- *RR@k*: only the first relevant document counts; it moves up or stays.

Each of these is checked with sympy for symbolic ranks j, cutoffs k (every
place of j and j+1 against k), persistence p ∈ (0, 1), hits h and labels.
By bubble sort, any ordering of a group reaches the descending one through
such swaps, so the descending order is a maximum; symmetrically the
ascending order is a minimum.  The groups are independent, so sorting
every group gives the extremes of the whole ranking.

**The code.** fast's extremes (:func:`tieaware.fast.tie_spread.spread_stats`,
which evaluates fast's closed forms on the sorted ordering, and what
``fast.worst``/``fast.best`` return) are also compared with the minimum and
maximum over every ordering, on every tie structure of up to
EXTREME_DOCUMENTS documents with labels 0, 1, 2 and the measures in
EXTREME_MEASURES: a slip in the direction of the sort is caught here.

>>> prove_extremes().proved
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Optional

import sympy
from sympy import Eq, Symbol, log

from tieaware.fast import arith, kernels
from tieaware.model.names import parse
from tieaware.model.structures import compositions
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, same, theorem

__all__ = ["EXTREME_DOCUMENTS", "EXTREME_MEASURES", "prove_extremes"]

#: fast's extremes are compared with every ordering on every tie structure of up to this many documents.
EXTREME_DOCUMENTS = 4
#: ... for these measures (every place of their cutoffs against the rankings' groups).
EXTREME_MEASURES = ("P@2", "R@3", "F1@1", "AP", "AP@2", "RR", "RR@2", "RBP(p=0.5)@3", "P(rel=2)@2", "AP(rel=2)")

_pos = dict(integer=True, positive=True)
j, k, h = Symbol("j", **_pos), Symbol("k", **_pos), Symbol("h", integer=True, nonnegative=True)
u, d = Symbol("u", **_pos), Symbol("d", **_pos)
p = 1 / (1 + u)  # any p in (0, 1)
label = Symbol("l", nonnegative=True)


def _nonnegative(expr: Any, what: str, *factors: Any) -> None:
    """Demand expr >= 0: expr equals the product of *factors* (when given), each of which sympy shows >= 0."""
    expr = sympy.sympify(expr)
    if factors:
        same(expr, sympy.Mul(*factors), what)
    else:
        factors = (sympy.factor(expr),)
    for f in factors:
        f = sympy.sympify(f)
        # log(a) − log(b) as log(a/b): valid here, every logarithm's argument is a positive rank + 1
        if not (f == 0 or f.is_nonnegative or sympy.logcombine(f, force=True).is_nonnegative):
            raise ProofFailure(f"{what}: sympy cannot show {f} >= 0")


def _rank_places(weight: Callable[[Any], Any]) -> list[tuple[str, Any]]:
    """w_j − w_{j+1} for j + 1 within k, j the last rank within k, and j past k: ranks as symbols placed against k."""
    return [
        ("j+1 <= k", weight(j, k + j + 1) - weight(j + 1, k + j + 1)),  # k = j + 1 + (k - 1): both within
        ("j = k", weight(k, k) - weight(k + 1, k)),
        ("j > k", weight(k + j, k) - weight(k + j + 1, k)),
    ]


def _within(rank: Any, cut: Any) -> bool:
    """Whether a rank written as a symbolic offset is within the cutoff (decided by construction)."""
    got = sympy.sympify(rank - cut) <= 0
    if got not in (sympy.true, sympy.false):
        raise ProofFailure(f"the place of rank {rank} against k = {cut} is not decided")
    return bool(got)


def _weights(kind: str) -> Callable[[Any, Any], Any]:
    """The weight of rank j at cutoff k, from fast's kernels (0 past k)."""
    one = sympy.Integer(1)
    num_rel = Symbol("R", **_pos)
    if kind == "P":
        return lambda rank, cut: kernels.precision_value(one, cut) if _within(rank, cut) else 0
    if kind == "R":
        return lambda rank, cut: kernels.recall_value(one, num_rel) if _within(rank, cut) else 0
    if kind == "F1":
        return lambda rank, cut: kernels.f1_value(one, cut, num_rel) if _within(rank, cut) else 0
    if kind == "RBP":  # rbp_group over the single rank: (1-p)·p^(rank-1)
        return lambda rank, cut: kernels.rbp_group(p, rank - 1, rank, one, one) if _within(rank, cut) else 0
    # DCG: the discount span over the single rank
    return lambda rank, cut: arith.SYMBOLIC.discount_span(rank - 1, rank).doit() if _within(rank, cut) else 0


def _rank_weights() -> int:
    checked = 0
    # the form each step takes where both ranks are within k (j + 1 <= k), as a product of factors >= 0
    steps: dict[str, tuple[Any, ...]] = {
        "P": (),
        "R": (),
        "F1": (),
        "RBP": (p ** (j - 1), (1 - p) ** 2),  # (1-p)·p^(j-1) − (1-p)·p^j
        # 1/log2(j+1) − 1/log2(j+2): log(j+2) − log(j+1) > 0 as the log of (j+2)/(j+1) > 1 (both positive)
        "DCG": (log(2), log(j + 2) - log(j + 1), 1 / log(j + 1), 1 / log(j + 2)),
    }
    for kind, form in steps.items():
        for where, diff in _rank_places(_weights(kind)):
            _nonnegative(diff, f"{kind}'s rank weights, {where}", *(form if where == "j+1 <= k" else ()))
            checked += 1
    # the gains do not decrease with the label: positive derivatives
    for name, gain in (("linear", label), ("exp2", 2**label - 1)):
        if not sympy.diff(gain, label).is_positive:
            raise ProofFailure(f"the {name} gain does not increase with the label")
        checked += 1
    return checked


def _ap_and_rr() -> int:
    # AP: the moved relevant document, with h relevant above it, from rank j+1 to j; RR: the first relevant one.
    term = lambda rank, cut, numerator: numerator / rank if _within(rank, cut) else 0  # noqa: E731
    checked = 0
    for what, numerator in (("AP", h + 1), ("RR", sympy.Integer(1))):
        for where, cut, rank in (("j+1 <= k", k + j + 1, j), ("j = k", k, k), ("j > k", k, k + j)):
            _nonnegative(term(rank, cut, numerator) - term(rank + 1, cut, numerator), f"{what}: a relevant document moving up, {where}")
            checked += 1
    return checked


def _orderings(ranking: list) -> list[list]:
    """Every ordering of a tied ranking, flattened (each group permuted on its own)."""
    per_group = [list(itertools.permutations(g)) if isinstance(g, list) else [(g,)] for g in ranking]
    return [[x for part in choice for x in part] for choice in itertools.product(*per_group)]


def _rankings(size: int) -> list[list]:
    from fractions import Fraction

    out = []
    for sizes in compositions(size):
        for labels in itertools.product((0, 1, 2), repeat=size):
            ranking, at = [], 0
            for s in sizes:
                part = [Fraction(x) for x in labels[at : at + s]]
                ranking.append(part if s > 1 else part[0])
                at += s
            out.append(ranking)
    return out


@theorem(
    "extremes",
    "min and max over tie-breakings = the measure on every group sorted by label, ascending and descending "
    "(P, R, F1, RBP, DCG, nDCG, AP, RR at every cutoff: an adjacent swap moving the larger label up never lowers them).",
    GENERAL,
    lambda: Eq(
        Tex(r"\max_\sigma M(\sigma)"),
        Tex(r"M(\text{each group by label, descending})"),
        evaluate=False,
    ),
)
def prove_extremes(extremes: Optional[Callable[..., Any]] = None) -> str:
    from tieaware import fast
    from tieaware.model.dispatch import measure_value

    if extremes is None:
        from tieaware.fast.tie_spread import spread_stats

        def extremes(m: Any, ranking: list) -> tuple[Any, Any]:
            s = spread_stats(m, ranking)
            return s.worst, s.best

    lemmas = _rank_weights() + _ap_and_rr()
    cases = 0
    for size in range(1, EXTREME_DOCUMENTS + 1):
        for ranking in _rankings(size):
            orders = _orderings(ranking)
            if len(orders) == 1:
                continue  # no ties: nothing varies
            for name in EXTREME_MEASURES:
                m = parse(name)
                values = [measure_value(fast, m, order) for order in orders]
                got = extremes(m, ranking)
                if tuple(got) != (min(values), max(values)):
                    raise ProofFailure(f"{name} on {ranking}: fast's extremes are {tuple(got)}, the orderings range over [{min(values)}, {max(values)}]")
                cases += 1
    return f"the exchange step for symbolic ranks, cutoffs, p, h and labels ({lemmas} cases); fast's extremes against every ordering in {cases} cases (<= {EXTREME_DOCUMENTS} documents)"
