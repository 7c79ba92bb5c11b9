"""Rank-biased precision (Moffat & Zobel 2008), by brute force.

RBP@k of one ordering is ``(1 - p) · Σ_{i <= k} rel_i · p**(i-1)`` with
binary relevance ``rel_i = [label_i >= rel]``.  The tie-aware value is its
exact mean over every ordering consistent with the ties; nothing here knows
a closed form.

The residual ``p**d`` is the weight RBP gives to every rank past the
evaluated depth d (``d = k``, or the ranking's length when ``k`` is None):
the most the score could still grow if those unseen ranks were relevant.
It depends on no label, so ties cannot change it.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Optional

from tieaware.model.exact import Exact, to_float
from tieaware.model.params import cutoff, flag, probability, threshold
from tieaware.model.ranking import Ranking, flatten, groups
from tieaware.reference.orderings import orderings

__all__ = ["rbp", "rbp_residual", "rbp_of"]


def rbp_of(o: Sequence[Fraction], p: Fraction, k: int, rel: Fraction) -> Fraction:
    """RBP@k of one ordering: (1 - p)·Σ_{i<=k, label_i >= rel} p**(i-1).

    >>> rbp_of([Fraction(1), Fraction(0), Fraction(1)], Fraction(1, 2), 3, Fraction(1))
    Fraction(5, 8)
    """
    return (1 - p) * sum((p ** (i - 1) for i, x in enumerate(o[:k], start=1) if x >= rel), Fraction(0))


def rbp(r: Ranking, p: object, k: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected RBP@k (the lower bound: unseen ranks count as non-relevant) over every ordering.

    Relevance is binary: a label counts when it is >= *rel*.  ``k=None``
    evaluates the whole ranking; ranks past its end count as non-relevant.

    >>> rbp([[1, 0], 1], "0.5")    # mean of 5/8 (1 0 1) and 3/8 (0 1 1)
    Fraction(1, 2)

    Beware: RBP is not realisable; its maximum at depth d is 1 - p**d, and
    the residual :func:`rbp_residual` is the gap.
    """
    gs = groups(r)
    p_ = probability(p)
    k_ = cutoff(k, optional=True)
    t = threshold(rel)
    depth = len(flatten(gs)) if k_ is None else k_
    values = [rbp_of(o, p_, depth, t) for o in orderings(gs)]
    value = sum(values, Fraction(0)) / len(values)
    return value if flag(exact, "exact") else to_float(value)


def rbp_residual(r: Ranking, p: object, k: Optional[int] = None, *, exact: bool = True) -> Exact:
    """The RBP residual p**d, d = k (or the ranking's length): the weight of every rank past d.

    RBP lower bound + residual is the upper bound (all unseen ranks relevant).

    >>> rbp_residual([1, 0, 1], "0.5")
    Fraction(1, 8)
    >>> rbp_residual([1, 0, 1], "0.5", k=10)
    Fraction(1, 1024)
    """
    gs = groups(r)
    p_ = probability(p)
    k_ = cutoff(k, optional=True)
    depth = len(flatten(gs)) if k_ is None else k_
    value = p_**depth
    return value if flag(exact, "exact") else to_float(value)
