"""Checks for the scalar arguments that both layers share (docs/conventions.md, Bad input).

Each returns the normalised value or raises TieawareError naming the argument.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Optional

from tieaware.model.errors import bad
from tieaware.model.exact import rational

__all__ = ["cutoff", "threshold", "relevant_total", "nonrelevant_total", "probability", "flag", "grade_ceiling", "choice", "trec_count"]


def cutoff(k: object, *, optional: bool = False) -> Optional[int]:
    """A cutoff k: an int >= 1 (or None where the measure allows it).

    >>> cutoff(5), cutoff(None, optional=True)
    (5, None)
    """
    if k is None and optional:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        problem = "must be an int >= 1" + (" or None" if optional else "")
        raise bad("k", k, problem)
    return int(k)  # a numpy integer becomes a plain int


def threshold(rel: object) -> Fraction:
    """The relevance threshold: a label counts as relevant when label >= rel > 0.

    >>> threshold(2)
    Fraction(2, 1)
    """
    value = rational(rel, "rel")
    if value <= 0:
        raise bad("rel", rel, "must be > 0 (labels >= rel count as relevant)")
    return value


def relevant_total(num_rel: object, retrieved: int) -> int:
    """num_rel, defaulting to the relevant documents retrieved, never below them.

    >>> relevant_total(None, 3), relevant_total(5, 3)
    (3, 5)
    """
    if num_rel is None:
        return retrieved
    if isinstance(num_rel, bool) or not isinstance(num_rel, numbers.Integral):
        raise bad("num_rel", num_rel, "must be an int or None")
    if num_rel < retrieved:
        raise bad("num_rel", num_rel, f"must be >= the {retrieved} relevant documents in the ranking")
    return int(num_rel)


def nonrelevant_total(num_nonrel: object, retrieved: int) -> int:
    """Bpref's N (judged non-relevant documents), defaulting to those retrieved, never below them.

    >>> nonrelevant_total(None, 2), nonrelevant_total(4, 2)
    (2, 4)
    """
    if num_nonrel is None:
        return retrieved
    if isinstance(num_nonrel, bool) or not isinstance(num_nonrel, int):
        raise bad("num_nonrel", num_nonrel, "must be an int or None")
    if num_nonrel < retrieved:
        raise bad("num_nonrel", num_nonrel, f"must be >= the {retrieved} judged non-relevant documents in the ranking")
    return num_nonrel


def probability(p: object) -> Fraction:
    """RBO's persistence p, strictly between 0 and 1.

    >>> probability("0.9")
    Fraction(9, 10)
    """
    value = rational(p, "p")
    if not 0 < value < 1:
        raise bad("p", p, "must be strictly between 0 and 1")
    return value


def flag(value: object, argument: str) -> bool:
    """A genuine bool, so that exact="no" is not silently truthy.

    >>> flag(False, "exact")
    False
    """
    if not isinstance(value, bool):
        raise bad(argument, value, "must be True or False")
    return value


def grade_ceiling(labels: Sequence[Fraction], max_label: object) -> int:
    """ERR's g_max: *max_label* (an int >= every label), or the largest label (at least 1).

    Every label must be a whole number, since R(g) = (2**g - 1)/2**g_max.

    >>> grade_ceiling([Fraction(2), Fraction(0)], None), grade_ceiling([Fraction(1)], 3)
    (2, 3)
    """
    for x in labels:
        if x.denominator != 1:
            raise bad("ranking", [str(y) for y in labels], "must hold whole-number labels for ERR (R(g) = (2**g - 1)/2**g_max)")
    top = int(max(labels, default=0))
    if max_label is None:
        return max(top, 1)
    if isinstance(max_label, bool) or not isinstance(max_label, int) or max_label < 1:
        raise bad("max_label", max_label, "must be an int >= 1 or None")
    if max_label < top:
        raise bad("max_label", max_label, f"must be >= the largest label in the ranking ({top})")
    return max_label


def choice(value: object, argument: str, choices: Sequence[str]) -> str:
    """*value* when it is one of *choices* (strings), else a TieawareError naming *argument*.

    >>> choice("capped", "norm", ("R", "capped", "hits"))
    'capped'
    """
    if not isinstance(value, str) or value not in choices:
        raise bad(argument, value, f"must be one of {list(choices)}")
    return value


def trec_count(fraction: object, total: int) -> int:
    """trec_eval's count for a fraction of R: ``(long) (p * R + 0.9)``, in C doubles.

    iprec_at_recall, 11pt_avg and Rprec_mult turn a recall level or a
    multiple p of num_rel R into a number of documents this way
    (m_iprec_at_recall.c, m_Rprec_mult.c), with p read by ``atof``.  The
    double arithmetic matters: for p = 0.7 and R = 3, 0.7 * 3 + 0.9 is
    2.9999999999999996 in doubles, so the count is 2, not 3.

    >>> trec_count("0.7", 3), trec_count("0.5", 3), trec_count(0, 5), trec_count(1, 4)
    (2, 2, 0, 4)
    """
    p = float(rational(fraction, "recall level"))  # atof: the correctly rounded double
    return int(p * total + 0.9)  # C's (long): truncation toward zero
