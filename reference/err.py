"""Expected reciprocal rank (Chapelle et al. 2009), by brute force.

ERR@k of one ordering is ``Σ_{i <= k} (1/i) · R_i · Π_{j < i} (1 - R_j)``
with Chapelle's stopping probability ``R(g) = (2**g - 1) / 2**g_max``.  The
tie-aware value is its exact mean over every ordering consistent with the
ties; nothing here knows a closed form.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Optional

from tieaware.model.exact import Exact, to_float
from tieaware.model.params import cutoff, flag, grade_ceiling
from tieaware.model.ranking import Groups, Ranking, flatten, groups
from tieaware.reference.orderings import orderings

__all__ = ["err", "err_of", "stop_probability"]


def stop_probability(g: Fraction, g_max: int) -> Fraction:
    """Chapelle's R(g) = (2**g - 1) / 2**g_max.

    >>> stop_probability(Fraction(1), 1), stop_probability(Fraction(2), 3)
    (Fraction(1, 2), Fraction(3, 8))
    """
    return Fraction(2 ** int(g) - 1, 2**g_max)


def err_of(o: Sequence[Fraction], k: int, g_max: int) -> Fraction:
    """ERR@k of one ordering.

    >>> err_of([Fraction(1), Fraction(1)], 2, 1)    # 1/2 + (1/2)(1/2)(1/2)
    Fraction(5, 8)
    """
    total, survive = Fraction(0), Fraction(1)
    for i, x in enumerate(o[:k], start=1):
        stop = stop_probability(x, g_max)
        total += survive * stop / i
        survive *= 1 - stop
    return total


def err(r: Ranking, k: Optional[int] = None, *, max_label: Optional[int] = None, exact: bool = True) -> Exact:
    """Expected ERR@k over every ordering consistent with the ties.

    ``max_label`` is g_max in R(g) = (2**g - 1)/2**g_max; by default the
    largest label in the ranking (at least 1).

    >>> err([[1, 0]])    # mean of 1/2 (1 0) and 1/4 (0 1)
    Fraction(3, 8)

    Beware: with binary labels and g_max = 1 a relevant document stops the
    user only half the time, so ERR is *not* reciprocal rank; and the
    default g_max depends on the ranking, so pass ``max_label`` to compare
    queries on one scale.
    """
    gs = groups(r)
    k_ = cutoff(k, optional=True)
    g_max = grade_ceiling(flatten(gs), max_label)
    depth = len(flatten(gs)) if k_ is None else k_
    values = [err_of(o, depth, g_max) for o in orderings(gs)]
    value = sum(values, Fraction(0)) / len(values)
    return value if flag(exact, "exact") else to_float(value)
