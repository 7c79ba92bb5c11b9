"""R-precision and Success@k, by brute force (docs/conventions.md, Measures).

Enumerate every ordering consistent with the ties, evaluate trec_eval's
tie-oblivious definition on it, take the exact mean.  Nothing here knows a
closed form.

- **Rprec**: relevant documents in the top R, divided by R, where R is
  num_rel (trec_eval's ``Rprec``; 0 when R is 0; ranks past the end of the
  ranking count as non-relevant, as in P@k).
- **Success@k**: 1 if a relevant document is in the top k, else 0
  (trec_eval's ``success_k``, ir_measures' ``Success@k``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Optional

from tieaware.exact import Exact, to_float
from tieaware.params import cutoff, flag, relevant_total, threshold
from tieaware.ranking import Ranking, flatten, groups
from tieaware.reference.orderings import orderings

__all__ = ["r_precision", "success", "success_of"]


def success_of(o: Sequence[Fraction], k: int, rel: Fraction) -> int:
    """1 if a label >= rel is among the first k of one ordering, else 0."""
    return int(any(x >= rel for x in o[:k]))


def _mean(values: list) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def r_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected R-precision: relevant documents in the top R over R, R = num_rel.

    num_rel defaults to the relevant documents in the ranking.

    >>> r_precision([[1, 0], 1, 0])      # R = 2: mean of 1/2 (1 0 1 0) and 1/2 (0 1 1 0)
    Fraction(1, 2)
    >>> r_precision([[1, 0, 0], 1], num_rel=2)   # the top 2 are 2 of the group's 3 slots: 2·(1/3) / 2
    Fraction(1, 3)

    Beware: with num_rel larger than the ranking, missing ranks count as
    non-relevant, as trec_eval's Rprec does.
    """
    gs = groups(r)
    t = threshold(rel)
    big_r = relevant_total(num_rel, sum(1 for x in flatten(gs) if x >= t))
    if big_r == 0:
        value = Fraction(0)
    else:
        value = _mean([Fraction(sum(1 for x in o[:big_r] if x >= t), big_r) for o in orderings(gs)])
    return value if flag(exact, "exact") else to_float(value)


def success(r: Ranking, k: int, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected Success@k: the probability that a relevant document is in the top k.

    >>> success([0, [0, 1, 0]], 2)     # the relevant one is at rank 2 in 1 of 3 orders
    Fraction(1, 3)
    """
    gs = groups(r)
    t = threshold(rel)
    k = cutoff(k)
    value = _mean([Fraction(success_of(o, k, t)) for o in orderings(gs)])
    return value if flag(exact, "exact") else to_float(value)
