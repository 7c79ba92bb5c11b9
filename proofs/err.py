"""E[ERR@k]: fast's per-group kernel equals the expectation over every ordering of the group.

Theorem "ERR subset mean" (general) proves the kernel behind every engine's
ERR inside a tie group: :func:`tieaware.fast.kernels.subset_mean_step`
takes the mean of Π keep over the m-subsets of a set to the mean over the
m-subsets of the set and one member more.  By induction on the members
(from the empty set, whose one subset is empty: means 1, 0, 0, ...), its
fold is the mean over subsets of any set, for symbolic size and m; that
fold is what fast.err (:func:`tieaware.fast.err.subset_means`) and the
float engine run.  Theorem "ERR group" then composes it.

Within ERR@k = Σ_i (1/i)·R_i·Π_{j<i}(1 - R_j), the survival product over whole
earlier groups is the same in every ordering (a product does not depend on
the order of its factors), so each tie group contributes that constant times
the expectation, over a uniformly random order σ of the group, of

    Σ_{x <= s} R_σ(x) / (t + x) · Π_{y < x} (1 - R_σ(y)).

fast's err_group computes that expectation through elementary symmetric
polynomials (docs/disagreement.md has the derivation).  Here it is compared
with the plain average over all n! orders, with every member's stop
probability a separate symbol and the group's start t a symbol, for every
group of up to ERR_MEMBERS members, every pattern of equal stop
probabilities among them (equal labels share work in err_group), and every
number s of slots within the cutoff.  err_group is a loop over members and
slots, so the sizes must be numbers: the scope is bounded.  Its terms are the
kernel :func:`tieaware.fast.kernels.err_slot`, which the float engine calls
too.  Then the whole of fast.err (stop probabilities from
:func:`tieaware.fast.kernels.err_stop`, the survival product over earlier
groups, the cutoff) is compared with the reference's enumeration on every
tied ranking of up to ERR_DOCUMENTS documents with labels 0..2, at every
cutoff, with g_max the default and 3.

>>> ERR_GROUP().proved
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, Optional

import sympy
from sympy import Eq, Symbol, binomial

from tieaware.fast import err as fast_err  # the function fast.err (the package exports it)
from tieaware.fast import kernels
from tieaware.fast.err import err_group, subset_means
from tieaware.model.structures import all_tied_rankings
from tieaware.reference import err as reference_err
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, Theorem, bounded, same

__all__ = ["ERR_SUBSET_MEAN", "ERR_GROUP", "ERR_MEMBERS", "ERR_DOCUMENTS", "expected_err_group", "prove_subset_mean", "prove_err_group"]

#: err_group is checked for every group of up to this many members.
ERR_MEMBERS = 4
#: The whole of fast.err is compared with the enumeration on every tied ranking of up to this many documents.
ERR_DOCUMENTS = 4

t = Symbol("t", integer=True, nonnegative=True)
R = sympy.symbols(f"R_0:{ERR_MEMBERS}", positive=True)
U = (None,) + sympy.symbols(f"U_1:{ERR_MEMBERS + 1}")  # U[x] stands for 1/(t + x)


def expected_err_group(t_: Any, stops: tuple[Any, ...], slots: int, reciprocal: Any = None) -> Any:
    """The plain average, over all n! orders of the group, of its ERR terms within *slots* slots.

    *reciprocal(x)* stands for 1/(t + x); by default it is that.
    """
    at = reciprocal or (lambda x: 1 / (t_ + x))
    total = sympy.Integer(0)
    for order in itertools.permutations(stops):
        survive = sympy.Integer(1)
        for x, stop in enumerate(order[:slots], start=1):
            total += survive * stop * at(x)
            survive *= 1 - stop
    return total / math.factorial(len(stops))


def _in_reciprocals(expr: Any, slots: int) -> Any:
    """*expr*, a sum of c_x(R)/(t + x), with each 1/(t + x) replaced by the symbol U[x], expanded.

    The functions 1/(t + x) of t are linearly independent for distinct x, so two
    such sums are equal exactly when their coefficient polynomials c_x are.
    """
    # Replace before expanding: expand() would multiply constants into the denominators.
    out = sympy.expand(sympy.sympify(expr).xreplace({1 / (t + x): U[x] for x in range(1, slots + 1)}))
    if out.has(t):
        raise ProofFailure(f"fast's value is not a sum of c_x/(t + x) over slots x <= {slots}: {expr}")
    return out


def _partitions(n: int) -> list[tuple[int, ...]]:
    """Restricted growth strings: each set partition of n members once, as a block label per member.

    >>> _partitions(3)
    [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (0, 1, 2)]
    """
    out = [()]
    for _ in range(n):
        out = [s + (b,) for s in out for b in range((max(s) + 2) if s else 1)]
    return out


# -- the subset mean: one member more ------------------------------------------------

N = Symbol("N", integer=True, nonnegative=True)  # the set's size before the step
m = Symbol("m", integer=True, positive=True)
M_m, M_below, q = sympy.symbols("M_m M_{m-1} q")
#: The fold is also run on symbolic keeps for every set of up to this many members (the loop, not the step).
SUBSET_MEMBERS = 4


def prove_subset_mean(step: Optional[Callable[..., Any]] = None, means: Optional[Callable[..., Any]] = None) -> str:
    step = step or kernels.subset_mean_step
    means = means or subset_means
    # The m-subsets of the set and a new member of keep q: C(N, m) leave it out, C(N, m-1) hold it.
    def derived(mm: Any) -> Any:
        return (binomial(N, mm) * M_m + q * binomial(N, mm - 1) * M_below) / binomial(N + 1, mm)

    same(derived(m), step(M_m, M_below, q, N, m), "mean over the m-subsets of N + 1 members, 1 <= m <= N")
    same(derived(N + 1), step(M_m, M_below, q, N, N + 1), "the one (N+1)-subset: all the members")  # C(N, N+1) = 0
    same(M_m, step(M_m, M_below, q, N, 0), "the empty subset")
    same(0, step(0, 0, q, N, m + N + 1), "no subsets past the set's size (0 stays 0)")
    same(1, step(1, 1, 1, N, m), "a member of keep 1 leaves the plain members' means 1")
    same(1, step(0, 1, 1, N, N + 1), "a member of keep 1 adds a 1 at m = N + 1")
    # The fold (fast.err.subset_means): from the plain members' means, one step per member, m downwards.
    keeps = sympy.symbols(f"q_1:{SUBSET_MEMBERS + 1}")
    checked = 0
    for size in range(SUBSET_MEMBERS + 1):
        for plain in range(3):
            members = (sympy.Integer(1),) * plain + keeps[:size]
            got = means(list(keeps[:size]), plain + size + 1, plain, sympy.Integer)
            for mm in range(plain + size + 2):
                subsets = list(itertools.combinations(members, mm))
                want = sympy.Add(*(sympy.Mul(*c) for c in subsets)) / len(subsets) if subsets else sympy.Integer(0)
                if sympy.expand(want - got[mm]) != 0:
                    raise ProofFailure(f"subset_means of {members}, m = {mm}: the subsets give {want}, the fold {got[mm]}")
                checked += 1
    return (
        "the step for symbolic size N and m (1 <= m <= N, m = N + 1, m = 0, past N, keep 1), hence by induction the fold "
        f"for every set; the fold's loop against the subsets listed in {checked} cases (<= {SUBSET_MEMBERS} symbolic keeps, 0..2 plain)"
    )


#: Registered in proofs/__init__.py with ERR_GROUP; tests/test_proof_checker.py holds its wrong kernels.
ERR_SUBSET_MEAN = Theorem(
    name="ERR subset mean",
    statement="subset_mean_step takes the mean of Π keep over the m-subsets of N members to the mean over the m-subsets of "
    "those and one more, for symbolic N and m; folded from the empty set it is the mean over subsets that ERR needs inside a tie group.",
    scope=GENERAL,
    check=prove_subset_mean,
    formula=lambda: Eq(
        Tex(r"\frac{\binom{N}{m} M_m + q \binom{N}{m-1} M_{m-1}}{\binom{N+1}{m}}"),
        kernels.subset_mean_step(M_m, M_below, q, N, m),
        evaluate=False,
    ),
)


def _formula() -> Any:
    return Eq(Tex(r"\mathrm{err\_group}(t, (R_0, R_1), 2)"), err_group(t, R[:2], 2, sympy.Integer), evaluate=False)


def prove_err_group(group: Callable[..., Any] = err_group) -> str:
    checked = 0
    for n in range(1, ERR_MEMBERS + 1):
        # Which members share a stop probability: every set partition of the members.
        for pattern in _partitions(n):
            stops = tuple(R[i] for i in pattern)
            for slots in range(1, n + 1):
                derived = sympy.expand(expected_err_group(t, stops, slots, reciprocal=lambda x: U[x]))
                claimed = _in_reciprocals(group(t, stops, slots, sympy.Integer), slots)
                if sympy.expand(derived - claimed) != 0:
                    raise ProofFailure(f"group {stops}, {slots} slots: derived {derived}, but fast gives {claimed}")
                checked += 1
    whole = 0
    for n in range(1, ERR_DOCUMENTS + 1):
        for ranking in all_tied_rankings(n, (0, 1, 2)):
            for k in (None, *range(1, n + 1)):
                for g_max in (None, 3):
                    derived = reference_err(ranking, k, max_label=g_max)
                    claimed = fast_err(ranking, k, max_label=g_max)
                    if derived != claimed:
                        raise ProofFailure(f"ERR@{k} of {ranking}, g_max {g_max}: the orderings give {derived}, fast.err {claimed}")
                    whole += 1
    return (
        f"{checked} checks: groups of 1..{ERR_MEMBERS} members, every pattern of equal stop probabilities, every slot count; "
        f"fast.err = the enumeration in {whole} cases (rankings of <= {ERR_DOCUMENTS} documents, labels 0..2, every cutoff)"
    )


#: Built, not yet registered: test_proof_checker demands a wrong kernel for every theorem in
#: THEOREMS, so it is registered (proofs/__init__.py) together with those.
ERR_GROUP = Theorem(
    name="ERR group",
    statement=f"err_group(t, R, s) = the mean over all orders of a tie group of its ERR terms, symbolic t and R_i, "
    f"every group of <= {ERR_MEMBERS} members, every pattern of equal R_i, every s; fast.err = the orderings' mean "
    f"for N <= {ERR_DOCUMENTS}, labels 0..2.",
    scope=bounded(f"n<={ERR_MEMBERS}; N<={ERR_DOCUMENTS} whole"),
    check=prove_err_group,
    formula=_formula,
    why="sympy cannot sum over the permutations of a group of symbolic size, and err_group's loops over members and slots need numbers: every group of <= 4 members with symbolic t and R_i, every pattern of equal R_i.",
)
