"""Minimum, maximum, variance and distribution of Rprec, Success@k, Judged@k and Bpref over tie-breakings.

All three read only the top d ranks (d = R for Rprec, k for Success@k,
min(k, length) for Judged@k), and only through how many of them hold a
"hit" (a relevant document; a judged one for Judged).  A group wholly above
d puts all its hits there, a group wholly below none, whatever its order;
only the one group that crosses d moves.  With m of its n slots above d and
h of its members hits, the hits it puts there, H, are hypergeometric:
P(H = i) = C(h, i)·C(n − h, m − i)/C(n, m), for max(0, m − (n − h)) <= i <= min(m, h),
with mean m·h/n and variance m·(h/n)·(1 − h/n)·(n − m)/(n − 1).  So, with F
the hits of the groups wholly above d:

- **Rprec** = (F + H)/R and **Judged@k** = (F + H)/min(k, length): the
  extremes take the fewest and the most hits H can have, the variance is
  Var H over the divisor squared, the distribution H's, shifted and scaled;
- **Success@k** = 1 when F > 0, else the Bernoulli "H > 0", whose chance is
  1 − C(n − h, m)/C(n, m) (:func:`tieaware.fast.trec_measures.success_from`,
  the expectation's own closed form): worst 0 unless that chance is 1, best
  1 unless it is 0, variance p(1 − p).

**Bpref** (trec_eval's) adds, per relevant retrieved document,
(1 − min(A, R)/min(R, N))/R, with A the judged non-relevant documents above
it.  A group's relevant documents see the judged non-relevant ones of the
groups above (fixed) plus those of their own group placed above them, so
the groups are independent: per group, a dynamic program over the
interleavings of its r relevant and a judged non-relevant members (its
unjudged members change nothing) gives min, max, variance and distribution
(:func:`tieaware.fast.tie_spread`'s per-group program); the extremes put the
relevant members first (best) or last (worst).

R and Judged's divisor follow :func:`tieaware.runs.evaluate.compute`: R is the
judged labels >= rel of *ideal* (else those of the ranking), an R of 0
makes Rprec 0, and missing ranks count as misses; ``None`` in the ranking
marks an unjudged document (for Judged; the others read it as 0).

>>> from tieaware.model.names import parse
>>> s = trec_spread(parse("Rprec"), [[1, 0, 0], 1], distribution=True)   # R = 2: the top 2 hold 0 or 1 of them
>>> s.worst, s.best, s.variance, sorted(s.distribution.items())
(Fraction(0, 1), Fraction(1, 2), Fraction(1, 18), [(Fraction(0, 1), Fraction(1, 3)), (Fraction(1, 2), Fraction(2, 3))])
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.fast.groups import Group
from tieaware.fast.spread_dp import TREC_MEASURES, SpreadStats, convolve, group_dp
from tieaware.fast.trec_measures import success_from
from tieaware.model.names import Measure, parse
from tieaware.model.params import cutoff, flag, relevant_total, threshold, trec_count
from tieaware.model.ranking import Ranking, groups, judged_groups, judgement

__all__ = ["TREC_SPREAD_MEASURES", "trec_spread", "hypergeometric", "count_spread"]

#: The measures whose spread over tie-breakings this module computes.
TREC_SPREAD_MEASURES = TREC_MEASURES


def hypergeometric(n: int, h: int, m: int) -> dict[int, Fraction]:
    """{i: P(H = i)} for the hits H among m of n slots in a random order, h of the n being hits.

    >>> hypergeometric(4, 2, 2)
    {0: Fraction(1, 6), 1: Fraction(2, 3), 2: Fraction(1, 6)}
    """
    total = comb(n, m)
    return {i: Fraction(comb(h, i) * comb(n - h, m - i), total) for i in range(max(0, m - (n - h)), min(m, h) + 1)}


def trec_spread(
    measure: Any, ranking: Ranking, ideal: Optional[Sequence[object]] = None, *, exact: bool = True, distribution: bool = False
) -> SpreadStats:
    """min, max, variance (and with *distribution*, the pmf) of Rprec, Success@k, Judged@k or Bpref over tie-breakings.

    >>> trec_spread("Success@2", [0, [0, 1, 0]])    # the relevant document is at rank 2 with chance 1/3
    SpreadStats(worst=Fraction(0, 1), best=Fraction(1, 1), variance=Fraction(2, 9), distribution=None)
    >>> trec_spread("Judged@2", [1, [None, 0, None]]).best
    Fraction(1, 1)
    >>> trec_spread("Bpref", [[1, 0]]).variance   # bpref 1 or 0, even odds (R = N = 1)
    Fraction(1, 4)
    """
    m = measure if isinstance(measure, Measure) else parse(measure)
    exact = flag(exact, "exact")
    if m.name not in TREC_SPREAD_MEASURES:
        raise bad("measure", str(m), f"is not one of {', '.join(sorted(TREC_SPREAD_MEASURES))}")
    labels = None if ideal is None else [judgement(x, f"ideal[{i}]") for i, x in enumerate(ideal)]  # negatives kept: not in N
    if m.name == "Bpref":
        stats = _bpref(judged_groups(ranking), labels, threshold(m.rel), distribution)
    elif m.name == "Judged":
        gs: Any = judged_groups(ranking)
        hits = [sum(1 for x in g if x is not None) for g in gs]
        length = sum(len(g) for g in gs)
        k = cutoff(m.k, optional=True)
        depth = length if k is None else min(k, length)
        stats = _count(gs, hits, depth, depth, distribution)
    else:
        gs = groups(ranking)
        t = threshold(m.rel)
        hits = [sum(1 for x in g if x >= t) for g in gs]
        if m.name == "Rprec":
            judged = None if labels is None else sum(1 for x in labels if x >= t)
            big_r = relevant_total(judged, sum(hits))
            if m.param("mult") is not None:  # Rprec_mult: P at trec_eval's count (long)(mult·R + 0.9), 0 below 1
                big_r = max(trec_count(m.param("mult"), big_r), 0)
            stats = _count(gs, hits, big_r, big_r, distribution)
        else:
            stats = _success(gs, hits, cutoff(m.k), distribution)
    return stats if exact else _floats(stats)


def _bpref(gs: Sequence[Sequence[Any]], labels: Optional[list[Fraction]], t: Fraction, want: bool) -> SpreadStats:
    """Bpref: per group, the interleavings of its relevant and judged non-relevant members."""
    from tieaware.model.params import nonrelevant_total

    rel = [sum(1 for x in g if x is not None and x >= t) for g in gs]
    non = [sum(1 for x in g if x is not None and 0 <= x < t) for g in gs]
    big_r = relevant_total(None if labels is None else sum(1 for x in labels if x >= t), sum(rel))
    big_n = nonrelevant_total(None if labels is None else sum(1 for x in labels if 0 <= x < t), sum(non))
    zero = Fraction(0)
    if big_r == 0:
        return SpreadStats(zero, zero, zero, {zero: Fraction(1)} if want else None)
    d = min(big_r, big_n)
    worst = best = variance = zero
    pmf: Optional[dict[Any, Any]] = {zero: Fraction(1)} if want else None
    above = 0
    for r, a in zip(rel, non):
        if r:
            def term(slot: int, relevant: bool, state: tuple[int, ...], above: int = above) -> Fraction:
                # state: (non-relevant placed, relevant placed); kinds sort as False, True
                if not relevant:
                    return zero
                return Fraction(1) - (Fraction(min(above + state[0], big_r), d) if d else zero)

            acc = group_dp({True: r, False: a}, term, zero, want)  # both kinds, even if a = 0: state is (a placed, r placed)
            mean = acc.s1 / acc.n
            worst, best = worst + acc.lo, best + acc.hi
            variance += acc.s2 / acc.n - mean * mean
            if pmf is not None:
                pmf = None if acc.pmf is None else convolve(pmf, {v: Fraction(c, acc.n) for v, c in acc.pmf.items()})
        above += a
    scale = Fraction(1, big_r)
    values = None if pmf is None else {v * scale: q for v, q in pmf.items()}
    return SpreadStats(worst * scale, best * scale, variance * scale * scale, values)


def count_spread(gs: Sequence[Sequence[Any]], hits: Sequence[int], depth: int, divisor: int, exact: bool, want: bool) -> SpreadStats:
    """(hits in the top *depth*)/*divisor* over tie-breakings (RelP@k, Rprec_mult): hypergeometric in the group crossing *depth*.

    >>> count_spread([[1, 0]], [1], 1, 1, True, False).variance
    Fraction(1, 4)
    """
    stats = _count(gs, hits, depth, divisor, want)
    return stats if exact else _floats(stats)


def _count(gs: Sequence[Sequence[Any]], hits: Sequence[int], depth: int, divisor: int, want: bool) -> SpreadStats:
    """(hits in the top *depth*)/divisor: fixed above the crossing group, hypergeometric inside it."""
    if divisor == 0:
        zero = Fraction(0)
        return SpreadStats(zero, zero, zero, {zero: Fraction(1)} if want else None)
    fixed, start, pmf = 0, 0, {0: Fraction(1)}
    for g, h in zip(gs, hits):
        n = len(g)
        if start >= depth:
            break
        if start + n <= depth:
            fixed += h
        else:  # the one group crossing the cutoff
            pmf = hypergeometric(n, h, depth - start)
        start += n
    values = {Fraction(fixed + i, divisor): q for i, q in pmf.items()}
    mean = sum((v * q for v, q in values.items()), Fraction(0))
    variance = sum((q * (v - mean) ** 2 for v, q in values.items()), Fraction(0))
    return SpreadStats(min(values), max(values), variance, values if want else None)


def _success(gs: Sequence[Sequence[Any]], hits: Sequence[int], k: int, want: bool) -> SpreadStats:
    """Success@k, a Bernoulli whose chance is the expectation's closed form (success_from)."""
    summary, start = [], 0
    for g, h in zip(gs, hits):
        summary.append(Group(start, len(g), Fraction(h), None))
        start += len(g)
    p = Fraction(success_from(summary, k))
    pmf = {v: q for v, q in ((Fraction(0), 1 - p), (Fraction(1), p)) if q}
    return SpreadStats(min(pmf), max(pmf), p * (1 - p), pmf if want else None)


def _floats(stats: SpreadStats) -> SpreadStats:
    pmf = None if stats.distribution is None else {float(v): float(q) for v, q in stats.distribution.items()}
    return SpreadStats(float(stats.worst), float(stats.best), float(stats.variance), pmf)
