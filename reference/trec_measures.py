"""R-precision and Success@k, by brute force (docs/conventions.md, Measures).

Enumerate every ordering consistent with the ties, evaluate trec_eval's
tie-oblivious definition on it, take the exact mean.  Nothing here knows a
closed form.

- **Rprec**: relevant documents in the top R, divided by R, where R is
  num_rel (trec_eval's ``Rprec``; 0 when R is 0; ranks past the end of the
  ranking count as non-relevant, as in P@k).
- **Success@k**: 1 if a relevant document is in the top k, else 0
  (trec_eval's ``success_k``, ir_measures' ``Success@k``).
- **Judged@k**: the judged documents in the top k, divided by min(k, the
  ranking's length), as ir_measures' ``Judged@k`` does (a ranking shorter
  than k is not penalised; no k: the whole ranking; an empty ranking: 0).
  A label ``None`` marks an unjudged document.
- **Bpref**: trec_eval's ``bpref`` (m_bpref.c): over the relevant retrieved
  documents d, the sum of 1 - min(n_d, R)/min(R, N), divided by R, where n_d
  is the number of judged non-relevant documents ranked above d, R = num_rel
  and N = num_nonrel (judged non-relevant documents of the query).
  Unjudged documents (``None``) and negative labels (in the qrels but not
  judged, trec_eval's RELVALUE_UNJUDGED) are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Optional

from tieaware.model.exact import Exact, to_float
from tieaware.model.params import cutoff, flag, nonrelevant_total, relevant_total, threshold
from tieaware.model.ranking import Ranking, flatten, groups, judged_groups
from tieaware.reference.orderings import orderings

__all__ = ["r_precision", "success", "success_of", "judged", "bpref", "bpref_of"]


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


#: A sortable stand-in for an unjudged document inside the enumeration, below every label
#: (a negative label is a document in the qrels that was not judged: a label, not this).
_UNJUDGED = float("-inf")


def _coded(r: Ranking) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(_UNJUDGED if x is None else x for x in g) for g in judged_groups(r))


def judged(r: Ranking, k: Optional[int] = None, *, exact: bool = True) -> Exact:
    """Expected Judged@k: judged documents in the top k over min(k, length); ``None`` marks an unjudged one.

    >>> judged([1, [None, 0, None]], 2)     # rank 2 is judged in 1 of 3 orders: (1 + 1/3) / 2
    Fraction(2, 3)
    >>> judged([1, None], 10)               # ir_measures: divided by the 2 documents, not by 10
    Fraction(1, 2)
    """
    gs = _coded(r)
    k = cutoff(k, optional=True)
    depth = sum(len(g) for g in gs) if k is None else min(k, sum(len(g) for g in gs))
    if depth == 0:
        value = Fraction(0)
    else:
        value = _mean([Fraction(sum(1 for x in o[:depth] if x != _UNJUDGED), depth) for o in orderings(gs)])
    return value if flag(exact, "exact") else to_float(value)


def bpref_of(o: Sequence[Fraction], big_r: int, big_n: int, rel: Fraction) -> Fraction:
    """trec_eval's bpref of one ordering (m_bpref.c's loop); -inf marks an unjudged document.

    Unjudged documents and negative labels (in the qrels, not judged) are skipped.
    """
    nonrel, total = 0, Fraction(0)
    for x in o:
        if x == _UNJUDGED or x < 0:
            continue
        if x < rel:
            nonrel += 1
        elif nonrel > 0:
            total += 1 - Fraction(min(nonrel, big_r), min(big_r, big_n))
        else:
            total += 1
    return total / big_r if big_r else Fraction(0)


def bpref(
    r: Ranking, num_rel: Optional[int] = None, num_nonrel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected bpref, trec_eval's definition; ``None`` marks an unjudged document.

    num_rel (R) and num_nonrel (N, judged non-relevant documents) default to
    those in the ranking.

    >>> bpref([[1, 0], 1])    # R=2, N=1: (1 0 1) gives (1 + 0)/2, (0 1 1) gives 0
    Fraction(1, 4)
    >>> bpref([None, [1, 0]], num_rel=2, num_nonrel=3)   # mean of 1/2 and (1 - 1/2)/2
    Fraction(3, 8)
    """
    gs = _coded(r)
    t = threshold(rel)
    flat = [x for g in gs for x in g]
    big_r = relevant_total(num_rel, sum(1 for x in flat if x >= t))
    big_n = nonrelevant_total(num_nonrel, sum(1 for x in flat if 0 <= x < t))
    value = _mean([bpref_of(o, big_r, big_n, t) for o in orderings(gs)])
    return value if flag(exact, "exact") else to_float(value)
