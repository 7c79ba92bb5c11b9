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
- **Judged@k** is linear in the indicators "rank i is judged", so it is
  P@k's closed form with "judged" for "relevant": (judged in groups wholly
  in the top k + m·j/n for the crossing group) / k, with k cut to the
  ranking's length as ir_measures does.
- **Bpref** (trec_eval's) sums, over relevant documents d,
  1 - min(n_d, R)/min(R, N), with n_d the judged non-relevant documents above
  d.  n_d = A + X, A the judged non-relevant documents of the groups above
  d's, X those of its own group ranked before it.  In a uniformly random
  order of the group, d's place among itself and the group's a judged
  non-relevant members is uniform, so X is uniform on {0, ..., a} (unjudged
  and relevant members do not matter), and
  E[min(A + X, R)] = S/(a + 1) with S = Σ_{x=0}^{a} min(A + x, R)
  = (c + 1)·A + c(c + 1)/2 + (a - c)·R, c = min(a, R - A) when A < R, and
  (a + 1)·R otherwise (:func:`capped_sum`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import comb
from typing import Any, Optional

from tieaware.model.exact import Exact
from tieaware.fast.groups import Group, summarise
from tieaware.fast.measures import precision_from
from tieaware.model.params import cutoff, flag, nonrelevant_total, relevant_total, threshold
from tieaware.model.ranking import Ranking, groups, judged_groups

__all__ = ["r_precision", "success", "none_drawn", "success_from", "judged", "bpref", "capped_sum", "bpref_from"]


def none_drawn(m: Any, r: Any, n: Any, *, choose: Callable[[Any, Any], Any] = comb) -> Any:
    """The chance that m of a group's n slots, in a random order, hold none of its r relevant members.

    C(n - r, m) / C(n, m) = Π_{i<m} (n - r - i)/(n - i); 0 when m > n - r.
    *choose* is math.comb (a Fraction comes back); tieaware.proofs passes
    sympy.binomial to prove this very formula for symbolic m, r, n.

    >>> none_drawn(1, 1, 3), none_drawn(2, 1, 3), none_drawn(1, 0, 3)
    (Fraction(2, 3), Fraction(1, 3), Fraction(1, 1))
    """
    miss, total = choose(n - r, m), choose(n, m)
    return Fraction(miss, total) if isinstance(miss, int) and isinstance(total, int) else miss / total


def success_from(
    summary: Sequence[Group], k: int, *, number: Callable[[Any], Any] = Fraction, kernel: Optional[Callable[..., Any]] = None
) -> Any:
    """Expected Success@k from the group summaries: 1 - Π over groups in the top k of none_drawn."""
    kernel = kernel or none_drawn  # looked up when called: the kernel tieaware prove proves
    miss = number(1)
    for g in summary:
        if g.start >= k:
            break
        relevant = int(g.relevant) if isinstance(g.relevant, (float, Fraction)) else g.relevant  # a count, for comb
        miss = miss * number(kernel(min(g.size, k - g.start), relevant, g.size))
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


def judged(r: Ranking, k: Optional[int] = None, *, exact: bool = True) -> Exact:
    """Expected Judged@k = (judged in the top k, P@k's closed form with "judged" for "relevant") / min(k, length).

    ``None`` marks an unjudged document.  The divisor is ir_measures' (0 for an empty ranking).

    >>> judged([1, [None, 0, None]], 2)
    Fraction(2, 3)
    >>> judged([1, None], 10)
    Fraction(1, 2)
    """
    number = Fraction if flag(exact, "exact") else float
    gs = judged_groups(r)
    length = sum(len(g) for g in gs)
    k = cutoff(k, optional=True)
    k = length if k is None else min(k, length)
    if k == 0:
        return number(0)
    # P@k's closed form (precision_from, proved by theorem P@k) with "judged" in place of "relevant"
    summary, start = [], 0
    for g in gs:
        summary.append(Group(start, len(g), number(sum(1 for x in g if x is not None)), None))
        start += len(g)
    return precision_from(summary, k, number=number)


def capped_sum(above: Any, a: Any, big_r: Any) -> Any:
    """S = Σ_{x=0}^{a} min(above + x, R), in closed form: the first c + 1 terms are above + x, the rest R.

    Plain arithmetic (c(c + 1)/2 as a Fraction for ints), so tieaware.proofs
    runs it on symbols.

    >>> capped_sum(1, 3, 3), 1 + 2 + 3 + 3
    (Fraction(9, 1), 9)
    """
    if above >= big_r:
        return (a + 1) * big_r
    c = min(a, big_r - above)
    return (c + 1) * above + c * (c + 1) * Fraction(1, 2) + (a - c) * big_r


def bpref_from(
    counts: Sequence[tuple[int, int]], big_r: int, big_n: int, *, number: Callable[[Any], Any] = Fraction,
    kernel: Optional[Callable[..., Any]] = None,
) -> Any:
    """Expected bpref from per-group (relevant, judged non-relevant) counts, in rank order."""
    kernel = kernel or capped_sum  # looked up when called: the kernel tieaware prove proves
    if big_r == 0:
        return number(0)
    d = min(big_r, big_n)
    total, above = number(0), 0
    for relevant, a in counts:
        if relevant:
            # each relevant member: 1 - E[min(A + X, R)]/min(R, N), X uniform on 0..a
            # (with min(R, N) = 0 no judged non-relevant document exists, and every term is 1)
            miss = number(kernel(above, a, big_r)) / (a + 1) / d if d else number(0)
            total += relevant * (1 - miss)
        above += a
    return total / big_r


def bpref(
    r: Ranking, num_rel: Optional[int] = None, num_nonrel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected bpref (trec_eval's), in closed form; ``None`` marks an unjudged document.

    >>> bpref([[1, 0], 1])
    Fraction(1, 4)
    >>> bpref([None, [1, 0]], num_rel=2, num_nonrel=3)
    Fraction(3, 8)
    """
    number = Fraction if flag(exact, "exact") else float
    t = threshold(rel)
    counts = [
        (sum(1 for x in g if x is not None and x >= t), sum(1 for x in g if x is not None and 0 <= x < t))
        for g in judged_groups(r)
    ]
    big_r = relevant_total(num_rel, sum(c[0] for c in counts))
    big_n = nonrelevant_total(num_nonrel, sum(c[1] for c in counts))
    return bpref_from(counts, big_r, big_n, number=number)
