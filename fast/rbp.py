"""Rank-biased precision (Moffat & Zobel 2008) in closed form, O(number of groups).

RBP is linear in the per-rank relevance, and every member of a tie group is
equally likely at every rank of the group, so each rank of a group holding
r relevant documents out of n is relevant with probability r/n.  The ranks
t+1 .. e of a group carry total weight Σ_{j=t+1..e} (1-p)·p**(j-1) =
p**t - p**e, which gives

    E[RBP@k] = Σ_groups (r/n)·(p**t - p**min(t + n, k)),

the kernel :func:`tieaware.fast.kernels.rbp_group` (theorem "RBP group").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.fast import kernels
from tieaware.fast.arith import for_number
from tieaware.fast.groups import Group, summarise
from tieaware.fast.kernels import rbp_group
from tieaware.model.exact import Exact
from tieaware.model.params import cutoff, flag, probability, threshold
from tieaware.model.ranking import Ranking, groups

__all__ = ["rbp", "rbp_residual", "rbp_from", "rbp_group"]


def rbp_from(summary: Sequence[Group], p: Any, k: Optional[Any], *, number: Callable[[Any], Any] = Fraction, group: Optional[Callable[..., Any]] = None) -> Any:
    """Expected RBP@k from group summaries: Σ_groups rbp_group(p, t, t + within(t, n, k), r, n).

    Groups without a relevant document add nothing and are skipped.  In exact
    mode the powers of p stay formal and are summed once, in integers
    (:mod:`tieaware.fast.arith`); *group* defaults to
    :func:`tieaware.fast.kernels.rbp_group`.

    >>> rbp_from([Group(0, 2, Fraction(1), None), Group(2, 1, Fraction(1), None)], Fraction(1, 2), None)
    Fraction(1, 2)
    """
    group = group or kernels.rbp_group
    A = for_number(number)
    total = number(0)
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            total = total + group(p, g.start, g.start + kernels.within(g.start, g.size, k), g.relevant, g.size)
    return A.value(total)


def rbp(r: Ranking, p: object, k: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected RBP@k = Σ_groups (r/n)·(p**t - p**min(t+n, k)); relevance is label >= *rel*.

    ``k=None`` evaluates the whole ranking.  This is the lower bound; add
    :func:`rbp_residual` for the upper one.

    >>> rbp([[1, 0], 1], "0.5")
    Fraction(1, 2)

    Beware: a float *p* is read through its repr, so 0.85 means 17/20.
    """
    gs = groups(r)
    p_ = probability(p)
    k_ = cutoff(k, optional=True)
    number = Fraction if flag(exact, "exact") else float
    summary = summarise(gs, threshold(rel), None, number)
    return rbp_from(summary, p_, k_, number=number)  # float mode too: the kernel takes 1 - p before rounding


def rbp_residual(r: Ranking, p: object, k: Optional[int] = None, *, exact: bool = True) -> Exact:
    """The RBP residual p**d, d = k (or the ranking's length): the weight of every rank past d.

    >>> rbp_residual([1, 0, 1], "0.5")
    Fraction(1, 8)
    """
    gs = groups(r)
    p_ = probability(p)
    k_ = cutoff(k, optional=True)
    depth = sum(len(g) for g in gs) if k_ is None else k_
    return p_**depth if flag(exact, "exact") else float(p_) ** depth
