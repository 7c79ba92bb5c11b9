"""Sampled recommender measures: the expectation over a uniform sample of negatives and the tie order.

A user's test items are ranked among m negatives drawn uniformly without
replacement from the N catalogue items that are neither seen nor relevant.
For one level of relevant scores s, the negatives fall into three counts:
*above* (scored > s), *equal* (= s) and *below* (< s).  Which negatives are
drawn does not matter to the level, only how many from each count: x above
and y equal, with the multivariate hypergeometric chance

    C(above, x)·C(equal, y)·C(below, m - x - y) / C(N, m)        (:func:`sample_pmf`)

(every m-subset is equally likely, and the subsets with those counts pick
each count's members independently).  Given (x, y), the level is an
ordinary tie group (its r relevant items and the y drawn negatives, n = r + y)
starting after t = before + x, so its conditional expectation is a proved
group kernel of :mod:`tieaware.fast.kernels` (expected hits, DCG, first
relevant); :func:`over_sample` takes that expectation over (x, y) by the law
of total expectation (theorem "sampled expectation").

>>> from fractions import Fraction as F
>>> sample_pmf(1, 0, 1, 1, 1, 1)    # one of three negatives drawn, the one above
Fraction(1, 3)
>>> over_sample(1, 1, 1, 1, lambda x, y: F(1, 1 + x + y))    # E[1/size of the group from 1 up]
Fraction(2, 3)
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from fractions import Fraction
from math import comb
from typing import Any, Optional

from tieaware.fast import kernels, trec_measures
from tieaware.fast.arith import EXACT, FLOAT
from tieaware.model.errors import TieawareError

__all__ = ["sample_pmf", "over_sample", "KINDS", "level_term", "sampled_level", "sampled_measures", "SAMPLED", "parse_measure"]

Num = Any

# A level's sum asks for the same few binomials of large ints again and again (each x with every y).
_comb = functools.lru_cache(maxsize=1 << 14)(comb)


def sample_pmf(x: int, y: int, m: int, above: int, equal: int, below: int, number: Optional[Callable[[Any], Any]] = None) -> Num:
    """P(a uniform m-subset of above + equal + below negatives holds x above and y equal): the multivariate hypergeometric pmf.

    *number* converts the ratio (default: a Fraction).

    >>> [sample_pmf(x, 0, 2, 2, 0, 2) for x in range(3)]
    [Fraction(1, 6), Fraction(2, 3), Fraction(1, 6)]

    Beware: whole numbers only (ints), not symbols or arrays; 0 outside the support.

    >>> sample_pmf(0, 0, 400, 0, 0, 3000, float)    # C(3000, 400) is far past a float's range
    1.0
    """
    rest = m - x - y
    if min(x, y, rest) < 0 or x > above or y > equal or rest > below:
        ways = 0
    else:
        ways = _comb(above, x) * _comb(equal, y) * _comb(below, rest)
    total = _comb(above + equal + below, m)
    if number is float:  # int / int is correctly rounded however large the binomials (float(total) overflows past 1e308)
        return ways / total
    ratio = Fraction(ways, total)
    return ratio if number is None else number(ratio.numerator) / number(ratio.denominator)


def over_sample(
    m: int,
    above: int,
    equal: int,
    below: int,
    term: Callable[[int, int], Num],
    *,
    limit: Optional[int] = None,
    number: Optional[Callable[[Any], Any]] = None,
) -> Num:
    """Σ_{x, y} sample_pmf(x, y) · term(x, y): the expectation over the sample of a value that depends on x, y only.

    *limit* skips x >= limit, where the caller knows the term is 0 (the
    level starts at or below the cutoff), so the sum costs O(min(k, m)·m)
    terms rather than O(m²).  The term may return a Fraction, a float or a
    formal DCG span (:class:`tieaware.fast.arith.Formal`).

    >>> from fractions import Fraction as F
    >>> over_sample(2, 1, 0, 2, lambda x, y: F(x))    # the hypergeometric mean m·above/N
    Fraction(2, 3)
    """
    total: Num = 0 if number is None else number(0)
    top = min(m, above) if limit is None else min(m, above, limit - 1)
    for x in range(max(0, m - equal - below), top + 1):
        for y in range(max(0, m - x - below), min(equal, m - x) + 1):
            total = total + sample_pmf(x, y, m, above, equal, below, number) * term(x, y)
    return total


#: What a level contributes: expected hits in the top k (P@k, R@k), expected DCG@k (nDCG@k),
#: and, for the top relevant level only, P(a relevant item in the top k) (Success@k) and E[RR@k].
KINDS = ("hits", "dcg", "success", "rr")


def level_term(kind: str, k: int, before: int, r: int, number: Callable[[Any], Any] = Fraction) -> Callable[[int, int], Num]:
    """The conditional expectation, given x negatives drawn above and y tied, of a level of r relevant items.

    The level is then a tie group of n = r + y starting after t = before + x
    (*before*: the relevant items scored above it), and fast's group kernels
    give its expectation over the tie order: ``expected_hits`` of its
    ``within(t, n, k)`` slots, ``dcg_group`` with gain r, ``none_drawn``
    (Success, top level: before = 0) and ``rr_group`` (RR, top level).

    >>> level_term("rr", 10, 0, 1)(0, 1)    # one relevant tied with one negative at the top: (1 + 1/2)/2
    Fraction(3, 4)
    """
    rel = number(r)

    def term(x: int, y: int) -> Num:
        t, n = before + x, r + y
        slots = kernels.within(t, n, k)
        if kind == "hits":
            return kernels.expected_hits(slots, rel, number(n))
        if kind == "dcg":
            return kernels.dcg_group(rel, number(n), t, t + slots)
        if kind == "success":
            return 1 - number(trec_measures.none_drawn(slots, r, n)) if slots > 0 else number(0)
        if kind == "rr":
            return kernels.rr_group(t, rel, number(n), slots)
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")

    return term


def sampled_level(
    kind: str, k: int, m: int, above: int, equal: int, below: int, before: int, r: int, number: Callable[[Any], Any] = Fraction
) -> Num:
    """A relevant level's expected *kind* at cutoff k over the sample of m negatives and the tie order.

    >>> sampled_level("success", 1, 1, 0, 1, 1, 0, 1)    # half the samples tie the item: 1/2 + 1/2·1/2
    Fraction(3, 4)
    """
    exact = number is Fraction
    return over_sample(
        m, above, equal, below, level_term(kind, k, before, r, number), limit=max(0, k - before), number=None if exact else number
    )


# -- one user ------------------------------------------------------------------------------


def sampled_measures(
    scores: Mapping[Hashable, Any],
    relevant: Collection[Hashable],
    measures: Sequence[str],
    n_negatives: int,
    seen: Collection[Hashable] = (),
    *,
    exact: bool = True,
) -> dict[str, Num]:
    """One user's expected measures over a uniform sample of *n_negatives* negatives and the tie order.

    *scores* maps every catalogue item to its score; the negatives are the
    items neither *relevant* nor *seen*.  Measures: ``HR@k`` (= ``Success@k``),
    ``RR@k``, ``nDCG@k`` (binary gains, log2 discount), ``P@k``, ``R@k``.
    Arguments are checked by :func:`tieaware.runs.sampled.sampled_metrics`.

    >>> sampled_measures({"a": 1, "b": 1, "c": 0}, {"a"}, ["HR@1", "RR@2", "P@1"], 1)
    {'HR@1': Fraction(3, 4), 'RR@2': Fraction(7, 8), 'P@1': Fraction(3, 4)}

    Beware: with exact=False the values are floats; nDCG@k with exact=True is a sympy value where log2 is irrational.
    """
    number: Callable[[Any], Any] = Fraction if exact else float
    A = EXACT if exact else FLOAT
    negatives = sorted(s for i, s in scores.items() if i not in relevant and i not in seen)
    count = Counter(scores[i] for i in relevant)
    levels, before = [], 0  # (above, equal, below, relevant above, r), best level first
    for s in sorted(count, reverse=True):
        low, high = bisect_left(negatives, s), bisect_right(negatives, s)
        levels.append((len(negatives) - high, high - low, low, before, count[s]))
        before += count[s]
    total = before
    m = n_negatives

    @functools.lru_cache(maxsize=None)
    def summed(kind: str, k: int) -> Num:
        chosen = levels[:1] if kind in ("success", "rr") else levels  # only the top level holds the first relevant item
        return sum((sampled_level(kind, k, m, *level, number=number) for level in chosen), number(0))

    out: dict[str, Num] = {}
    for name in measures:
        measure, k = parse_measure(name)
        if total == 0:
            out[name] = number(0)
        elif measure == "Success":
            out[name] = summed("success", k)
        elif measure == "RR":
            out[name] = summed("rr", k)
        elif measure == "P":
            out[name] = kernels.precision_value(summed("hits", k), number(k))
        elif measure == "R":
            out[name] = kernels.recall_value(summed("hits", k), number(total))
        else:  # nDCG: the ideal ranking puts the min(total, k) relevant items first
            ideal = A.discount_span(0, min(total, k))
            out[name] = A.value(kernels.ndcg_value(summed("dcg", k), ideal))
    return out


#: The measures of sampled evaluation, by their name in tieaware's measure syntax (HR is Success).
SAMPLED = ("HR", "Success", "RR", "nDCG", "P", "R")


def parse_measure(name: str) -> tuple[str, int]:
    """(measure, k) of 'HR@10' and the like; HR is Success."""
    if not isinstance(name, str):
        raise TieawareError(f"measures: expected names like 'nDCG@10', got {name!r}")
    head, at, tail = name.partition("@")
    if head == "HR":
        head = "Success"
    if head not in SAMPLED or not at:
        raise TieawareError(f"measures: {name!r} is not a sampled measure; known: {', '.join(m + '@k' for m in SAMPLED)}")
    try:
        k = int(tail)
    except ValueError:
        raise TieawareError(f"measures: {name!r} needs a whole cutoff k after '@'") from None
    if k <= 0:
        raise TieawareError(f"measures: k must be > 0, got {name!r}")
    return head, k
