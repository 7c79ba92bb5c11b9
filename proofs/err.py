"""E[ERR@k]: fast's per-group kernel equals the expectation over every ordering of the group.

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
from typing import Any

import sympy
from sympy import Eq, Symbol

from tieaware.fast import err as fast_err  # the function fast.err (the package exports it)
from tieaware.fast.err import err_group
from tieaware.model.structures import all_tied_rankings
from tieaware.reference import err as reference_err
from tieaware.proofs.theorem import ProofFailure, Tex, Theorem, bounded

__all__ = ["ERR_GROUP", "ERR_MEMBERS", "ERR_DOCUMENTS", "expected_err_group", "prove_err_group"]

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
)
