"""R-precision and Success@k in closed form (docs/conventions.md, Measures).

- **Rprec** is P@R with R = num_rel, so its expectation is P@k's closed form
  at k = R: (relevant in groups above R + (R - t_c)·r_c/n_c) / R.
- **Success@k** is 1 minus the probability that the top k holds no relevant
  document.  Groups are shuffled independently, so that probability is the
  product over the groups reaching into the top k of the chance that the m
  slots a group has there (m = its size, or k - start for the crossing
  group) draw none of its r relevant members out of n:
  C(n - r, m) / C(n, m) (hypergeometric).  A group wholly inside the top k
  with a relevant member makes it 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import comb
from typing import Any, Optional

from tieaware.exact import Exact
from tieaware.fast.groups import Group, summarise
from tieaware.fast.measures import precision_from
from tieaware.params import cutoff, flag, relevant_total, threshold
from tieaware.ranking import Ranking, groups

__all__ = ["r_precision", "success", "none_drawn", "success_from"]


def none_drawn(m: Any, r: Any, n: Any) -> Fraction:
    """The chance that m of a group's n slots, in a random order, hold none of its r relevant members.

    C(n - r, m) / C(n, m) = Π_{i<m} (n - r - i)/(n - i).

    >>> none_drawn(1, 1, 3), none_drawn(2, 1, 3), none_drawn(1, 0, 3)
    (Fraction(2, 3), Fraction(1, 3), Fraction(1, 1))
    """
    return Fraction(comb(n - r, m), comb(n, m))


def success_from(
    summary: Sequence[Group], k: int, *, number: Callable[[Any], Any] = Fraction, kernel: Callable[..., Any] = none_drawn
) -> Any:
    """Expected Success@k from the group summaries: 1 - Π over groups in the top k of none_drawn."""
    miss = number(1)
    for g in summary:
        if g.start >= k:
            break
        miss = miss * number(kernel(min(g.size, k - g.start), int(g.relevant), g.size))
        if miss == 0:
            break
    return 1 - miss


def r_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected R-precision, in closed form: P@R's with R = num_rel (0 when R is 0).

    >>> r_precision([[1, 0], 1, 0])
    Fraction(1, 2)
    >>> r_precision([[1, 0, 0], 1], num_rel=2)
    Fraction(1, 3)

    Beware: with num_rel larger than the ranking, missing ranks count as
    non-relevant, as trec_eval's Rprec does.
    """
    number = Fraction if flag(exact, "exact") else float
    t = threshold(rel)
    summary = summarise(groups(r), t, None, number)
    big_r = relevant_total(num_rel, int(sum(g.relevant for g in summary)))
    if big_r == 0:
        return number(0)
    return precision_from(summary, big_r, number=number)


def success(r: Ranking, k: int, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected Success@k = 1 - Π C(n_g - r_g, m_g)/C(n_g, m_g) over the groups in the top k.

    >>> success([0, [0, 1, 0]], 2)
    Fraction(1, 3)
    """
    number = Fraction if flag(exact, "exact") else float
    summary = summarise(groups(r), threshold(rel), None, number)
    return success_from(summary, cutoff(k), number=number)
