"""Expected reciprocal rank (Chapelle et al. 2009) in closed form, O(n²) per tie group.

ERR@k = Σ_i (1/i)·R_i·Π_{j<i}(1 - R_j) with R(g) = (2**g - 1)/2**g_max.  It is
not linear in the labels, but its expectation under random tie-breaking
factorises (docs/disagreement.md has the derivation):

- the survival product over whole earlier groups is the same in every
  ordering, so it is a constant S per group;
- inside a group of n starting after rank t, a member e sits at slot x with
  probability 1/n, and then the x-1 members above it are a uniformly random
  (x-1)-subset of the others, so E[Π (1 - R)] over them is M_{x-1}, the
  mean over the (x-1)-subsets of the others' q = 1 - R
  (e_{x-1}(q_others) / C(n-1, x-1), e_m the elementary symmetric
  polynomial), folded one member at a time by
  :func:`tieaware.fast.kernels.subset_mean_step` (:func:`subset_means`).

So a group contributes S · Σ_e Σ_{x <= slots} err_slot(R_e, M_{x-1}(q_others(e)), n, t, x),
with :func:`tieaware.fast.kernels.err_slot` = R·(mean keep)/(n·(t + x)) and R
from :func:`tieaware.fast.kernels.err_stop`, and passes on S · Π_e q_e.  The
float engine (:mod:`tieaware.runs.engine`) calls the same three kernels, on
every group at once; the spread's dynamic programme calls ``err_stop`` and
``err_term``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Callable, Optional

from tieaware.fast import kernels
from tieaware.model.exact import Exact
from tieaware.model.params import cutoff, flag, grade_ceiling
from tieaware.model.ranking import Groups, Ranking, flatten, groups

__all__ = ["err", "subset_means", "err_group"]


def subset_means(keeps: Sequence[Any], top: int, plain: int = 0, number: Callable[[int], Any] = Fraction) -> list:
    """[M_0, ..., M_top]: M_m the mean of Π keep over the m-subsets of *plain* members of keep 1 and *keeps*.

    The fold of :func:`tieaware.fast.kernels.subset_mean_step` over the
    members, from the plain ones' means (1 up to *plain*, then 0: no such
    subsets).  M_m = e_m(keeps, 1, ..., 1)/C(plain + len(keeps), m), e_m the
    elementary symmetric polynomial (theorem "ERR subset mean").

    >>> subset_means([Fraction(1, 2), Fraction(1, 3)], 2)
    [Fraction(1, 1), Fraction(5, 12), Fraction(1, 6)]
    >>> subset_means([Fraction(1, 2)], 2, plain=1)    # {1/2, 1}: pairs 1/2, singles (1/2 + 1)/2
    [Fraction(1, 1), Fraction(3, 4), Fraction(1, 2)]
    """
    one, zero = number(1), number(0)
    means = [one if m <= plain else zero for m in range(top + 1)]
    size = plain
    for keep in keeps:
        for m in range(min(top, size + 1), 0, -1):  # downwards: M_{m-1} is still the smaller set's
            means[m] = kernels.subset_mean_step(means[m], means[m - 1], keep, size, m)
        size += 1
    return means


def err_group(t: int, stops: Sequence[Any], slots: int, number: Callable[[int], Any] = Fraction) -> Any:
    """Expected Σ_{x<=slots} R_{t+x}/(t+x)·Π_{earlier in group}(1-R) for one group, survival S = 1.

    *stops* are the members' R values.  Members with equal R share one
    "others" fold, so the work is O(distinct R · relevant members · slots);
    members with R = 0 (keep 1) cost nothing.

    >>> err_group(0, [Fraction(1, 2), Fraction(0)], 2)    # (1/2)·(1/2·1 + 1/2·1/2)
    Fraction(3, 8)
    """
    n = len(stops)
    total = number(0)
    for stop, count in Counter(stops).items():
        if not stop:
            continue
        others = list(stops)
        others.remove(stop)
        keeps = [1 - s for s in others if s != 0]
        means = subset_means(keeps, slots - 1, len(others) - len(keeps), number)
        inner = number(0)
        for x in range(1, slots + 1):
            inner += kernels.err_slot(stop, means[x - 1], n, t, x)
        total += count * inner
    return total


def err(r: Ranking, k: Optional[int] = None, *, max_label: Optional[int] = None, exact: bool = True) -> Exact:
    """Expected ERR@k in closed form; g_max = *max_label*, by default the ranking's largest label (at least 1).

    >>> err([[1, 0]])
    Fraction(3, 8)
    >>> err([2, 0], max_label=2)    # R(2) = 3/4 at rank 1
    Fraction(3, 4)

    Beware: with binary labels and g_max = 1, R(1) = 1/2, so ERR is not
    reciprocal rank.
    """
    gs = groups(r)
    k_ = cutoff(k, optional=True)
    g_max = grade_ceiling(flatten(gs), max_label)
    number = Fraction if flag(exact, "exact") else float
    total, survive, start = number(0), number(1), 0
    for g in gs:
        if k_ is not None and start >= k_:
            break
        stops = [kernels.err_stop(number(int(x)), g_max) for x in g]
        slots = len(g) if k_ is None else min(len(g), k_ - start)
        total += survive * err_group(start, stops, slots, number)
        for s in stops:
            survive *= 1 - s
        start += len(g)
    return total
