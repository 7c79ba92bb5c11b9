"""Var over random tie-breaking: fast's closed forms (fast/variance_kernels.py) equal the variances they claim.

The groups of a ranking are ordered independently, so a separable
measure's variance is the sum of its groups' variances; each theorem here
is about one group (and, for P@k, about fast's sum over the groups).  The
derivations never call the kernel they prove:

- **Var P@k**: from the exchangeability and pair lemmas, E[X²] for the hits X
  in m slots is m·P(slot) + m(m−1)·P(pair), for symbolic m, r, n;
- **Var DCG@k**: a uniform bijection σ puts document e at rank j with
  probability (n−1)!/n! and e, f at ranks i ≠ j with (n−2)!/n!, which gives
  E[Σ x_e w_σ(e)] and E[(Σ x_e w_σ(e))²] in the power sums of x and w, for
  symbolic n; and every permutation of up to 4 symbolic documents;
- **Var RR**: the first-relevant distribution (lemma) summed slot by slot,
  by induction on fast's step; and every placement of the relevant
  documents, enumerated;
- **Var AP**: every placement of the relevant documents, enumerated, with
  arbitrary symbolic slot weights c(s) and symbolic b (and t).

>>> prove_precision_variance().proved
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, Optional

import sympy
from sympy import Eq, Function, Max, Min, Sum, Symbol, binomial, factorial

from tieaware.fast import variance_kernels
from tieaware.proofs.lemmas import p_first_at, p_none_in_first, p_pair, p_relevant
from tieaware.fast.groups import Group
from tieaware.proofs.average_precision import ap_cases
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, bounded, decided, same, theorem

__all__ = [
    "variance_of",
    "derived_hits_variance",
    "PERMUTED_DOCUMENTS",
    "RR_SYMBOLIC_SLOTS",
    "RR_GROUP_SIZE",
    "AP_WEIGHTED_SIZE",
    "AP_GROUP_SIZE",
    "prove_precision_variance",
    "prove_dcg_variance",
    "prove_rbp_variance",
    "prove_rr_variance",
    "prove_ap_variance",
]

#: Var DCG@k is also checked on every permutation of up to this many documents with symbolic gains and discounts.
PERMUTED_DOCUMENTS = 4
#: rr_moments' fold is run with symbolic r, t and group size for slot counts within k up to this.
RR_SYMBOLIC_SLOTS = 4
#: Var RR is checked against every placement of r relevant documents for every group size up to this.
RR_GROUP_SIZE = 7
#: ap_weighted_variance is checked with symbolic slot weights for every group size up to this.
AP_WEIGHTED_SIZE = 6
#: ap_group_variance is checked with symbolic start t for every group size up to this (numeric t beyond).
AP_GROUP_SIZE = 3

_pos = dict(integer=True, positive=True)
m, r = sympy.symbols("m r", integer=True, nonnegative=True)
n2 = Symbol("q", **_pos) + 1  # n = q + 1 >= 2: sympy knows n - 1 != 0, the kernels' general branch
t, b = sympy.symbols("t b", integer=True, nonnegative=True)
x, v = sympy.symbols("x v", **_pos)
r1 = Symbol("r", **_pos)  # the decisive group of RR holds at least one relevant document
X1, X2, W1, W2 = sympy.symbols("X_1 X_2 W_1 W_2", real=True)
c = Function("c")  # an arbitrary slot weight c(s)


def variance_of(values: Sequence[Any]) -> Any:
    """The variance of a uniformly random one of *values*: mean of squares − squared mean."""
    count = len(values)
    mean = sympy.Add(*values) / count
    return sympy.Add(*[y * y for y in values]) / count - mean * mean


# -- Var P@k ------------------------------------------------------------------------


def derived_hits_variance(m_: Any, r_: Any, n_: Any) -> Any:
    """Var[hits in m slots] = m·P(slot) + m(m−1)·P(pair) − (m·P(slot))², from the lemmas (x_s² = x_s)."""
    p1, p2 = p_relevant(r_, n_), p_pair(r_, n_)
    return m_ * p1 + m_ * (m_ - 1) * p2 - (m_ * p1) ** 2


_g = {name: Symbol(f"{name}_g") for name in ("n", "r", "t")}
_k = Symbol("k")


def _precision_formula() -> Any:
    slots = Min(_g["n"], Max(0, _k - _g["t"]))
    return Eq(Tex(r"\mathrm{Var}[P@k]"), Sum(variance_kernels.hits_variance(slots, _g["r"], _g["n"]), (Symbol("g"), 1, Symbol("G"))) / _k**2, evaluate=False)


@theorem(
    "Var P@k",
    "Var[P@k] = Σ_groups hits_variance(min(n, max(0, k-t)), r, n)/k², hits_variance = m·r·(n-r)·(n-m)/(n²(n-1)); R, F1 alike.",
    GENERAL,
    _precision_formula,
)
def prove_precision_variance(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or variance_kernels.hits_variance  # looked up when the theorem runs, as the engines do
    compose = compose or variance_kernels.hits_variance_from
    # 1. One group, symbolic m, r, n >= 2: the hypergeometric variance from the pair lemma.
    same(derived_hits_variance(m, r, n2), kernel(m, r, n2), "Var[hits in m slots of a group]")
    # n = 1: one ordering, so no variance, for m, r in {0, 1}.
    one = sympy.Integer(1)
    for m_, r_ in itertools.product((0, 1), repeat=2):
        got = sympy.sympify(kernel(sympy.Integer(m_), sympy.Integer(r_), one))
        if not (got.is_finite and got == 0):
            raise ProofFailure(f"Var[hits] of a singleton group with m = {m_}, r = {r_} is {got}, not 0")
    # 2. fast's sum over the groups, as fast runs it (its module's kernel), for every place of k: the
    #    groups are ordered independently, so the variances add.  P divides by k², R by num_rel²,
    #    F1 by ((k + num_rel)/2)² (constants of the query).
    cases = 0
    for where, sizes, k in ap_cases():
        if k is None:
            continue  # P, R and F1 have a cutoff
        summary, start = [], sympy.Integer(0)
        for size, rel in sizes:
            summary.append(Group(start, size, rel, None))
            start += size
        derived = sympy.Integer(0)
        for g in summary:
            slots = decided(Max(0, Min(g.size, k - g.start)), f"slots of the group at {g.start} within {k}")
            derived += derived_hits_variance(slots, g.relevant, g.size) if g.size != 1 else 0 * slots  # a singleton: one ordering
        same(derived, compose(summary, k), f"Var[hits@k], {where}")
        cases += 1
    return f"symbolic m, r, n (n >= 2) and n = 1; fast's sum over groups at {cases} cutoff positions of 3 symbolic groups"


# -- Var DCG@k ----------------------------------------------------------------------


def _dcg_formula() -> Any:
    spread = Tex(r"\sum_e (x_e - \bar{x})^2")
    w1, w2 = Tex(r"\left(\sum_j w_j\right)"), Tex(r"\sum_j w_j^2")
    return Eq(Tex(r"\mathrm{Var}\left[\sum_e x_e w_{\sigma(e)}\right]"), variance_kernels.rank_statistic_variance(spread, w1, w2, Symbol("n")), evaluate=False)


@theorem(
    "Var DCG@k",
    "Var Σ_e x_e·w_σ(e) over a uniform bijection σ = Σ(x-x̄)²·(Σw² - (Σw)²/n)/(n-1) (Hoeffding): DCG@k, nDCG@k, RBP per group.",
    GENERAL,
    _dcg_formula,
)
def prove_dcg_variance(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or variance_kernels.rank_statistic_variance
    # 1. Symbolic n >= 2, power sums X1 = Σx, X2 = Σx², W1 = Σw, W2 = Σw².  Counting orderings:
    #    P(σ(e) = j) = (n-1)!/n!; P(σ(e) = i, σ(f) = j) = (n-2)!/n! for e != f, i != j, and
    #    Σ_{i != j} w_i w_j = W1² - W2, Σ_{e != f} x_e x_f = X1² - X2.
    one_rank = sympy.combsimp(factorial(n2 - 1) / factorial(n2))
    two_ranks = sympy.combsimp(factorial(n2 - 2) / factorial(n2))
    mean = X1 * W1 * one_rank
    square = X2 * W2 * one_rank + (X1**2 - X2) * (W1**2 - W2) * two_ranks
    same(square - mean**2, kernel(X2 - X1**2 / n2, W1, W2, n2), "Var Σ x_e w_σ(e), symbolic n")
    # With x in {0, 1} and r ones (P, R, F1, RBP): X1 = X2 = r, so Σ(x - x̄)² = r(n - r)/n.
    same((square - mean**2).subs({X1: r, X2: r}), kernel(r * (n2 - r) / n2, W1, W2, n2), "Var Σ rel_e w_σ(e), r relevant")
    # n = 1: one ordering.
    w = Symbol("w", real=True)
    single = sympy.sympify(kernel(sympy.Integer(0), w, w**2, sympy.Integer(1)))
    if not (single.is_finite and single == 0):
        raise ProofFailure(f"the variance of a singleton group is {single}, not 0")
    # 2. Every permutation of n <= PERMUTED_DOCUMENTS documents, gains x_e and weights w_j all symbols.
    for size in range(2, PERMUTED_DOCUMENTS + 1):
        xs, ws = sympy.symbols(f"x_1:{size + 1}"), sympy.symbols(f"w_1:{size + 1}")
        values = [sympy.Add(*[xs[e] * ws[j] for e, j in enumerate(perm)]) for perm in itertools.permutations(range(size))]
        x_bar = sympy.Add(*xs) / size
        spread = sympy.Add(*[(y - x_bar) ** 2 for y in xs])
        got = kernel(spread, sympy.Add(*ws), sympy.Add(*[y * y for y in ws]), size)
        same(sympy.expand(variance_of(values)), sympy.expand(got), f"Var over the {len(values)} orderings of {size} documents", polynomial=True)
    return f"symbolic n >= 2 and power sums, from the one- and two-rank probabilities; n = 1; every permutation of 2..{PERMUTED_DOCUMENTS} symbolic documents"


# -- Var RBP ------------------------------------------------------------------------


def _rbp_formula() -> Any:
    pc, tc, ec, rc, nc = (Symbol(name) for name in ("p", "t", "e", "r", "n"))
    return Eq(Tex(r"\mathrm{Var}[RBP_{\mathrm{group}}]"), variance_kernels.rbp_group_variance(pc, tc, ec, rc, nc), evaluate=False)


@theorem(
    "Var RBP",
    "Var of a group's RBP contribution (r relevant of n, ranks t+1..t+m within k) = rbp_group_variance: Hoeffding's statistic "
    "on the weights (1-p)·p^(j-1), whose sum and sum of squares are geometric; symbolic p, t, m, r, n.",
    GENERAL,
    _rbp_formula,
)
def prove_rbp_variance(kernel: Optional[Callable[..., Any]] = None, squares: Optional[Callable[..., Any]] = None) -> str:
    from tieaware.fast import kernels

    kernel = kernel or variance_kernels.rbp_group_variance
    squares = squares or kernels.rbp_weight_squares
    p = Symbol("p", positive=True)
    m_ = Symbol("m", integer=True, positive=True)  # the group's ranks within k
    j = Symbol("j", integer=True, positive=True)
    weight = (1 - p) * p ** (j - 1)
    # 1. The squared weights of ranks t+1..t+m: a geometric sum (sympy; p = 1 is its own branch, where both are 0).
    w1 = Sum(weight, (j, t + 1, t + m_)).doit()
    w2 = Sum(weight**2, (j, t + 1, t + m_)).doit()
    same(w2, squares(p, t, t + m_), "Σ_j ((1-p)·p^(j-1))² over the group's ranks within k")
    # 2. The variance from the lemmas, x_j the relevance of rank j (x_j² = x_j): E[x_j] = P(slot), E[x_i x_j] = P(pair)
    #    for i != j, so Var Σ_j w_j x_j = P(slot)·Σw² + P(pair)·((Σw)² − Σw²) − (P(slot)·Σw)²; ranks past k weigh 0.
    p1, p2 = p_relevant(r, n2), p_pair(r, n2)
    derived = p1 * w2 + p2 * (w1**2 - w2) - (p1 * w1) ** 2
    same(derived, kernel(p, t, t + m_, r, n2), "Var of a group's RBP contribution, n >= 2")
    # n = 1: one ordering.
    single = sympy.sympify(kernel(p, t, t + m_, sympy.Integer(1), sympy.Integer(1)))
    if not (single.is_finite and sympy.simplify(single) == 0):
        raise ProofFailure(f"the RBP variance of a singleton group is {single}, not 0")
    return "geometric sums of the weights and their squares, symbolic p, t, m; the variance from the slot and pair lemmas, symbolic r, n >= 2; n = 1"


# -- Var RR -------------------------------------------------------------------------


def _rr_formula() -> Any:
    s, tc, nc, rc, big_s = (Symbol(name) for name in ("s", "t_c", "n_c", "r_c", "S"))
    p = binomial(nc - s, rc - 1) / binomial(nc, rc)
    return Eq(
        Tex(r"\mathrm{Var}[RR@k]"),
        Sum(p / (tc + s) ** 2, (s, 1, big_s)) - Sum(p / (tc + s), (s, 1, big_s)) ** 2,
        evaluate=False,
    )


def _rr_placements(t_: Any, size: int, relevant: int, q: Any) -> list[Any]:
    """RR of the decisive group for every placement of its relevant documents (k = t + q, or None)."""
    zero = sympy.Integer(0)
    return [1 / (t_ + min(p)) if q is None or min(p) <= q else zero for p in itertools.combinations(range(1, size + 1), relevant)]


@theorem(
    "Var RR",
    "Var[RR@k] = Σ_s P_s/(t+s)² - (Σ_s P_s/(t+s))², P_s = C(n-s, r-1)/C(n, r), s <= min(n, k-t), of the first group holding a relevant document.",
    GENERAL,
    _rr_formula,
)
def prove_rr_variance(
    step: Optional[Callable[..., Any]] = None, moments: Optional[Callable[..., Any]] = None, variance: Optional[Callable[..., Any]] = None
) -> str:
    step = step or variance_kernels.rr_moment_step
    moments = moments or variance_kernels.rr_moments
    variance = variance or variance_kernels.rr_variance
    # Every rank above the decisive group is irrelevant, so RR = 1/(t + s) for its first relevant slot s
    # within k, else 0 (RR@k's own theorem shows fast picks that group).
    # 1. rr_moments is a fold of rr_moment_step from (0, 0, f(0) = 1).  Induction on the slot x: entering
    #    step x the state is (Σ_{y<x} P_y/(t+y), Σ_{y<x} P_y/(t+y)², f(x-1)), for symbolic x, t, r, n.
    mean_so_far, second_so_far = sympy.symbols("M S", real=True)
    got = step(mean_so_far, second_so_far, p_none_in_first(x - 1, r1, n2), x, t, r1, n2)
    weight = p_first_at(x, r1, n2)
    same(mean_so_far + weight / (t + x), got[0], "E[RR] after step x")
    same(second_so_far + weight / (t + x) ** 2, got[1], "E[RR²] after step x")
    same(p_none_in_first(x, r1, n2), got[2], "the value step x carries")
    # 2. The fold (start state, slot count min(n, k - t)) with symbolic r, t and a group crossing k.
    for q in range(0, RR_SYMBOLIC_SLOTS + 1):
        size = q + v  # k = t + q falls inside the group
        first = sympy.Integer(0)
        second = sympy.Integer(0)
        for s in range(1, q + 1):
            first += p_first_at(s, r1, size) / (t + s)
            second += p_first_at(s, r1, size) / (t + s) ** 2
        got_mean, got_second = moments(t, size, r1, t + q)
        same(first, got_mean, f"E[RR], {q} slots within k")
        same(second, got_second, f"E[RR²], {q} slots within k")
        same(second - first**2, variance(t, size, r1, t + q), f"Var[RR], {q} slots within k")
    # 3. The definition: every placement of r relevant documents in a group of n <= RR_GROUP_SIZE, symbolic t,
    #    k = None, above the group, at each of its ranks, at its end and past it.
    cases = 0
    for size in range(1, RR_GROUP_SIZE + 1):
        for relevant in range(1, size + 1):
            for q in (None, *range(-1, size + 2)):
                derived = variance_of(_rr_placements(t, size, relevant, q))
                same(derived, variance(t, size, sympy.Integer(relevant), None if q is None else t + q), f"Var[RR], n = {size}, r = {relevant}, k = t + {q}")
                cases += 1
    return (
        f"induction on rr_moment_step for symbolic x, t, r, n; the fold with symbolic r, t, n for 0..{RR_SYMBOLIC_SLOTS} slots within k; "
        f"{cases} groups of n <= {RR_GROUP_SIZE} against every placement, symbolic t, every k"
    )


# -- Var AP -------------------------------------------------------------------------


def _ap_formula() -> Any:
    tc, nc, rc, bc = (Symbol(name) for name in ("t_g", "n_g", "r_g", "b_g"))
    group = Tex(r"\mathrm{ap\_group\_variance}(t_g, n_g, r_g, b_g, k)")
    return Eq(Tex(r"\mathrm{Var}[AP@k]"), Sum(group, (Symbol("g"), 1, Symbol("G"))) / Tex(r"\mathrm{num\_rel}") ** 2, evaluate=False)


def _ap_placements(weights: Sequence[Any], relevant: int) -> list[Any]:
    """Σ_s c_s·x_s·(b + hits up to s) for every placement of *relevant* documents on the slots."""
    return [sympy.Add(*[weights[s - 1] * (b + i) for i, s in enumerate(p, start=1)]) for p in itertools.combinations(range(1, len(weights) + 1), relevant)]


@theorem(
    "Var AP",
    "Var[AP@k] = Σ_groups Var[Σ_(s<=k-t) x_s·(b + hits to s)/(t+s)]/num_rel², by ap_weighted_variance's O(n) moments (p_1..p_4).",
    bounded(f"n<={AP_WEIGHTED_SIZE}"),
    _ap_formula,
    why="the kernel's O(n) sums over slots need a number n, and sympy cannot decide identities between nested Sums of an "
    "undefined c(s); n <= 6 settles every coefficient of c_a·c_b, a polynomial of degree <= 2 in a and b - a (docs/proofs.md)",
)
def prove_ap_variance(weighted: Optional[Callable[..., Any]] = None, group: Optional[Callable[..., Any]] = None) -> str:
    weighted = weighted or variance_kernels.ap_weighted_variance
    group = group or variance_kernels.ap_group_variance
    # A group after rank t with b relevant above adds (1/num_rel)·Σ_{s relevant, t+s <= k} (b + hits in the
    # group up to s)/(t+s): b is fixed by the tie structure, so groups are independent.
    # 1. Any slot weights c(s), symbolic b, every n <= AP_WEIGHTED_SIZE and every r: every placement.
    checked = 0
    for size in range(1, AP_WEIGHTED_SIZE + 1):
        weights = [c(s) for s in range(1, size + 1)]
        for relevant in range(size + 1):
            derived = sympy.expand(variance_of(_ap_placements(weights, relevant)))
            same(derived, weighted(weights, sympy.Integer(relevant), b), f"Var C, n = {size}, r = {relevant}, weights c(s)", polynomial=True)
            checked += 1
    # 2. ap_group_variance's weights: c_s = 1/(t+s) within k, 0 past it; symbolic b, every k, every r;
    #    symbolic t for n <= AP_GROUP_SIZE, and t = 0 and t = 3 for n <= AP_WEIGHTED_SIZE.
    for size in range(1, AP_WEIGHTED_SIZE + 1):
        starts = (t, sympy.Integer(0), sympy.Integer(3)) if size <= AP_GROUP_SIZE else (sympy.Integer(0), sympy.Integer(3))
        for start in starts:
            for relevant in range(size + 1):
                for q in (None, *range(-1, size + 2)):
                    weights = [1 / (start + s) if q is None or s <= q else sympy.Integer(0) for s in range(1, size + 1)]
                    derived = sympy.expand(variance_of(_ap_placements(weights, relevant)))
                    got = sympy.expand(group(start, size, sympy.Integer(relevant), b, None if q is None else start + q))
                    where = f"Var of the AP group, n = {size}, r = {relevant}, t = {start}, k = t + {q}"
                    same(derived, got, where, polynomial=start.is_Integer)  # a polynomial in b once t is a number
                    checked += 1
    return (
        f"{checked} checks against every placement: symbolic weights c(s) and b for n <= {AP_WEIGHTED_SIZE}, every r; "
        f"c_s = 1/(t+s) within k, symbolic b, every k: symbolic t for n <= {AP_GROUP_SIZE}, t = 0, 3 for n <= {AP_WEIGHTED_SIZE}"
    )
