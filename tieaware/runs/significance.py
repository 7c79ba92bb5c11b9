"""Paired significance tests, and how far their p-values move over tie-breakings.

A paired test turns the per-query differences d_q = A_q − B_q of two runs
into a p-value.  With ties, each d_q is a random variable over the
tie-breakings of both runs (queries and runs broken independently); the
test is a function of the vector d.  This module gives, for one pair:

- :func:`pvalues`: the test on each row of a matrix of difference vectors
  (the expected differences, every enumerated outcome, or Monte Carlo
  samples), with the direction of the effect (+1: A > B, −1: B > A, 0);
- :func:`certified_bounds`: bounds on the p-value over **every** vector in
  the box ∏_q [low_q, high_q] of per-query ranges, which contains every
  tie-breaking's vector (docs/uncertainty.md, "Significance", proves each);
- :func:`enumerate_pair`: every joint outcome of the per-query difference
  distributions, with its probability, when there are at most
  :data:`ENUMERATION_LIMIT` of them: the exact (attained) bounds and the exact
  probability that the verdict differs from the verdict on expected values.

The tests (two-sided, as scipy's defaults):

========================  ===========================================================================
``t``                     paired Student t: scipy.stats.ttest_rel(a, b)
``wilcoxon``              signed rank: scipy.stats.wilcoxon(a, b) (zeros dropped, method "auto")
``sign``                  sign test: scipy.stats.binomtest(#{d > 0}, #{d != 0}, 1/2)
``randomization``         paired randomisation (sign flips of d, mean difference): scipy.stats.permutation_test
                          with ``permutation_type="samples"``; exact over all 2^n flips when 2^n <= resamples,
                          else *resamples* seeded random flips, p = (1 + #{|T*| >= |T|}) / (resamples + 1)
``bootstrap``             paired bootstrap of the mean difference on shifted data (Efron & Tibshirani 1993,
                          ch. 16): p = (1 + #{|mean(d*) - mean(d)| >= |mean(d)|}) / (resamples + 1)
========================  ===========================================================================

Where scipy returns NaN (every difference 0, or a single query for the t
test) the p-value here is 1: no evidence either way.  Differences are
rounded to multiples of :data:`GRID` (2^-40) first, so that equal
differences reached along different float paths compare equal (ties for
the signed rank and sign tests, exact sums for the resampling tests).

>>> import numpy as np
>>> d = np.array([[0.1, 0.2, 0.3, 0.25]])
>>> p, direction = pvalues("t", d)
>>> round(float(p[0]), 6), int(direction[0])
(0.015587, 1)

Beware: the resampling tests are functions of the seed; the bounds and the
flip probability are over tie-breakings for that seed's resamples.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.model.errors import TieawareError, bad

__all__ = [
    "TESTS",
    "CORRECTIONS",
    "ENUMERATION_LIMIT",
    "RESAMPLES",
    "SEED",
    "GRID",
    "snap",
    "pvalues",
    "Bounds",
    "certified_bounds",
    "t_range",
    "chord_knapsack",
    "Support",
    "Enumerated",
    "enumerate_pair",
    "adjust",
    "clopper_pearson",
    "check_test",
]

#: The tests, by their names in ``tieaware compare --test`` and ``compare_systems(test=...)``.
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
#: Multiple-comparison corrections across the pairs of one measure.
CORRECTIONS = ("none", "bonferroni", "holm")
#: Joint outcomes enumerated for exact bounds and flip probabilities; past this, certified bounds and Monte Carlo.
ENUMERATION_LIMIT = 100_000
#: Resamples of the randomisation and bootstrap tests.
RESAMPLES = 10_000
#: Seed of the resampling tests and of the Monte Carlo over tie-breakings.
SEED = 42
#: Differences are rounded to multiples of this before any test (see the module docstring).
GRID = 2.0**-40
#: scipy.stats.permutation_test's relative tolerance when comparing resampled statistics with the observed one.
_RTOL = 100 * np.finfo(np.float64).eps
#: Rows of a difference matrix handled at once (memory).
_CHUNK_CELLS = 1 << 22


def check_test(test: object) -> str:
    """*test* if it is one of :data:`TESTS`, else TieawareError.

    >>> check_test("t")
    't'
    """
    if test not in TESTS:
        raise bad("test", test, f"must be one of {', '.join(TESTS)}")
    return test  # type: ignore[return-value]


class _Distributions:
    """The distribution functions the tests need, from scipy.special (which scipy.stats calls; a quicker import)."""

    def __init__(self, special: Any):
        self.special = special

    def t_sf(self, t: Any, df: float) -> Any:
        return self.special.stdtr(df, -np.asarray(t, dtype=np.float64))

    def norm_sf(self, z: Any) -> Any:
        return self.special.ndtr(-np.asarray(z, dtype=np.float64))

    def binom_cdf(self, k: Any, n: Any) -> Any:
        """P(X <= k) for X ~ Binomial(n, 1/2), correctly rounded (exact integer sums, cached per n)."""
        k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
        out = np.empty(k.shape)
        for size in np.unique(n).tolist():
            at = n == size
            out[at] = _half_binomial_cdf(int(size))[np.clip(k[at], 0, size)]
        return out

    def beta_ppf(self, q: float, a: float, b: float) -> float:
        return float(self.special.betaincinv(a, b, q))


@functools.lru_cache(maxsize=256)
def _half_binomial_cdf(n: int) -> np.ndarray:
    """[P(X <= k) for k = 0..n], X ~ Binomial(n, 1/2), each the float nearest the exact rational."""
    total, running, term, out = 2**n, 0, 1, []
    for k in range(n + 1):
        running += term  # C(n, 0) + ... + C(n, k)
        out.append(running / total)  # int / int: correctly rounded
        term = term * (n - k) // (k + 1)
    return np.array(out)


def _scipy() -> _Distributions:
    """scipy's distribution functions, or a TieawareError that names the extra to install."""
    try:
        import scipy.special
    except ImportError:  # pragma: no cover - scipy comes with the test extra
        raise TieawareError(
            "significance tests need scipy, which is not installed: pip install 'tieaware[stats]'"
        ) from None
    return _Distributions(scipy.special)


def snap(values: Any) -> np.ndarray:
    """*values* as floats rounded to multiples of :data:`GRID` (exact: a power-of-two scaling).

    >>> float(snap([0.3 - 0.1])[0]) == float(snap([0.4 - 0.2])[0])
    True
    """
    x = np.asarray(values, dtype=np.float64)
    return np.round(x * 2.0**40) * GRID


# --- the tests on a batch of difference vectors ------------------------------------------------------------


def pvalues(
    test: str, D: Any, *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[np.ndarray, np.ndarray]:
    """(p-values, directions) of *test* on each row of *D* (rows: difference vectors A − B).

    Rows are snapped to :data:`GRID` first.  Directions: +1 when the
    statistic favours A, −1 when it favours B, 0 when it is neutral (then p = 1).

    >>> p, s = pvalues("sign", [[1.0, 1.0, 1.0, 1.0, 1.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    >>> p.tolist(), s.tolist()
    ([0.21875, 1.0], [1, 0])
    """
    check_test(test)
    D = snap(D)
    if D.ndim != 2:
        raise bad("D", D.shape, "must be a 2-d array (one difference vector per row)")
    out_p = np.empty(D.shape[0])
    out_s = np.empty(D.shape[0], dtype=np.int64)
    rows = max(1, _CHUNK_CELLS // max(1, D.shape[1]))
    for lo in range(0, D.shape[0], rows):
        part = D[lo : lo + rows]
        if test == "t":
            p, s = _t_test(part)
        elif test == "wilcoxon":
            p, s = _wilcoxon(part)
        elif test == "sign":
            p, s = _sign_test(part)
        else:
            p, s = _resampling(test, part, resamples, seed)
        out_p[lo : lo + rows], out_s[lo : lo + rows] = p, s
    return out_p, out_s


def _t_test(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    stats = _scipy()
    n = D.shape[1]
    mean = D.mean(axis=1)
    direction = np.sign(mean).astype(np.int64)
    if n < 2:
        return np.ones(len(D)), direction
    var = D.var(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    p = 2 * stats.t_sf(np.abs(t), n - 1)
    p = np.where(np.isnan(t), 1.0, np.minimum(p, 1.0))  # 0/0: every difference 0 (scipy: NaN)
    return p, np.where(p >= 1.0, 0, direction) * (np.abs(t) > 0)


def _sign_test(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    stats = _scipy()
    pos = (D > 0).sum(axis=1)
    neg = (D < 0).sum(axis=1)
    return _sign_p(stats, pos, neg), np.sign(pos - neg).astype(np.int64)


def _sign_p(stats: Any, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Two-sided binomial p of pos successes in pos + neg trials at 1/2 (binomtest's, by symmetry)."""
    n = pos + neg
    with np.errstate(invalid="ignore"):
        p = 2 * stats.binom_cdf(np.minimum(pos, neg), n)
    return np.where(n == 0, 1.0, np.minimum(p, 1.0))


def _midranks(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the average ranks of *A* (1-based) and, per element, the size of its run of equal values."""
    m, n = A.shape
    order = np.argsort(A, axis=1, kind="stable")
    S = np.take_along_axis(A, order, axis=1)
    idx = np.broadcast_to(np.arange(n), (m, n))
    first = np.ones((m, n), dtype=bool)
    first[:, 1:] = S[:, 1:] != S[:, :-1]
    last = np.ones((m, n), dtype=bool)
    last[:, :-1] = first[:, 1:]
    start = np.maximum.accumulate(np.where(first, idx, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, idx, n - 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((m, n))
    runs = np.empty((m, n))
    np.put_along_axis(ranks, order, (start + end) / 2 + 1, axis=1)
    np.put_along_axis(runs, order, (end - start + 1).astype(np.float64), axis=1)
    return ranks, runs


@functools.lru_cache(maxsize=None)
def _flip_counts(doubled: tuple[int, ...]) -> np.ndarray:
    """Counts of Σ (included doubled ranks) over the 2^k inclusion patterns of the k items (a DP)."""
    counts = np.zeros(sum(doubled) + 1)
    counts[0] = 1.0
    for r in doubled:  # every doubled rank is >= 2
        shifted = np.zeros_like(counts)
        shifted[r:] = counts[: len(counts) - r]
        counts = counts + shifted
    return counts


@functools.lru_cache(maxsize=1 << 16)
def _flip_p(doubled: tuple[int, ...], observed: int) -> float:
    counts = _flip_counts(doubled)
    total = counts.sum()
    upper = counts[observed:].sum() / total
    lower = counts[: observed + 1].sum() / total
    return min(1.0, 2 * min(upper, lower))


def _wilcoxon(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    stats = _scipy()
    m, N = D.shape
    zero = D == 0
    A = np.where(zero, np.inf, np.abs(D))
    ranks, runs = _midranks(A)
    ranks = np.where(zero, 0.0, ranks)
    n = (~zero).sum(axis=1)
    r_plus = (ranks * (D > 0)).sum(axis=1)
    r_minus = (ranks * (D < 0)).sum(axis=1)
    direction = np.sign(r_plus - r_minus).astype(np.int64)
    tie = np.where(zero, 0.0, runs**2 - 1).sum(axis=1)  # Σ over runs of t^3 - t
    has_ties = np.where(zero, 1.0, runs).max(axis=1, initial=1.0) > 1
    nz = n.astype(np.float64)
    mn = nz * (nz + 1) / 4
    se = np.sqrt((nz * (nz + 1) * (2 * nz + 1) - tie / 2) / 24)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mn) / se
    p = np.where(se > 0, 2 * stats.norm_sf(np.abs(z)), 1.0)
    if N <= 50:
        exact = ~(has_ties | zero.any(axis=1))
        flips = ~exact & (N <= 13)
        for i in np.flatnonzero(exact | flips):
            if n[i] == 0:
                p[i] = 1.0
                continue
            doubled = tuple(sorted(int(round(2 * r)) for r in ranks[i][~zero[i]]))
            p[i] = _flip_p(doubled, int(round(2 * r_plus[i])))
    p = np.minimum(p, 1.0)
    return p, np.where(n == 0, 0, direction)


# --- randomisation and bootstrap ---------------------------------------------------------------------------


def _exact_flips(n: int, resamples: int) -> bool:
    return n <= 30 and 2**n <= resamples


def _resample_blocks(test: str, n: int, resamples: int, seed: int, block: int = 512) -> Iterator[np.ndarray]:
    """The weight matrices W (rows: resamples) of the resampling test, *block* rows at a time.

    Randomisation: sign vectors (all 2^n of them when 2^n <= resamples).
    Bootstrap: the counts of each query in a resample, minus 1 (so W·d = n·(mean(d*) − mean(d))).
    Each block comes from its own generator seeded with (seed, block number): reproducible.
    """
    if test == "randomization" and _exact_flips(n, resamples):
        total = 2**n
        for lo in range(0, total, block):
            codes = np.arange(lo, min(total, lo + block), dtype=np.int64)
            bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
            yield (1 - 2 * bits).astype(np.float64)
        return
    for number, lo in enumerate(range(0, resamples, block)):
        rows = min(block, resamples - lo)
        rng = np.random.Generator(np.random.PCG64([seed, number]))
        if test == "randomization":
            yield (1 - 2 * rng.integers(0, 2, size=(rows, n))).astype(np.float64)
        else:
            picks = rng.integers(0, n, size=(rows, n))
            counts = np.zeros((rows, n))
            np.add.at(counts, (np.repeat(np.arange(rows), n), picks.ravel()), 1.0)
            yield counts - 1.0


def _slack(n: int) -> float:
    """How far |W·d| and |Σd| of snapped differences may each sit from their unsnapped values, together.

    Snapping moves each d_q by at most GRID/2, so a sum with weights of total
    size at most 2n moves by at most n·GRID, and |Σd| by at most n·GRID/2:
    statistics equal before snapping (1/3 + 1/3 against 2/3) still compare
    equal, as scipy's relative tolerance makes them on unsnapped floats.
    """
    return 2 * n * GRID


def _resampling(test: str, D: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    m, n = D.shape
    total = D.sum(axis=1)
    threshold = np.abs(total) * (1 - _RTOL) - _slack(n)
    count = np.zeros(m)
    used = 0
    for W in _resample_blocks(test, n, resamples, seed):
        count += (np.abs(D @ W.T) >= threshold[:, None]).sum(axis=1)
        used += len(W)
    if test == "randomization" and _exact_flips(n, resamples):
        p = count / used
    else:
        p = (1 + count) / (used + 1)
    direction = np.sign(total).astype(np.int64)
    return np.minimum(p, 1.0), np.where(total == 0, 0, direction)


# --- certified bounds over the box of per-query ranges ----------------------------------------------------


@dataclass(frozen=True)
class Bounds:
    """p-value bounds over every difference vector in a box (or every enumerated outcome)."""

    #: No tie-breaking has a smaller (larger) p-value.
    p_min: float
    p_max: float
    #: True: both bounds are attained by some tie-breaking; False: certified (never too narrow) only.
    exact: bool
    #: The smallest and largest direction (−1, 0, +1) any tie-breaking's statistic can take.
    direction_min: int
    direction_max: int


def certified_bounds(
    test: str,
    low: Any,
    high: Any,
    *,
    zero: Optional[Any] = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Bounds:
    """Bounds on *test*'s p-value over every vector d with low <= d <= high (per query).

    *zero* (bool per query) says whether d_q = 0 is possible; by default
    whenever low_q <= 0 <= high_q.  The bounds are sound for every vector
    of the box; ``exact`` is True only where the argument of
    docs/uncertainty.md shows them attained by vectors whose entries are
    each query's low or high (always attainable: the queries are
    independent, and low and high are each query's extremes).

    >>> b = certified_bounds("sign", [0.1, -0.2, 0.3], [0.2, 0.1, 0.4], zero=[False, False, False])
    >>> b.p_min, b.p_max, b.exact                       # 3 wins (p 1/4) or 2 wins, 1 loss (p 1)
    (0.25, 1.0, True)
    >>> certified_bounds("sign", [0.1, -0.2, 0.3], [0.2, 0.1, 0.4]).exact    # may the middle one be 0?
    False
    """
    check_test(test)
    lo, hi = snap(low), snap(high)
    if lo.shape != hi.shape or lo.ndim != 1 or not len(lo):
        raise bad("low/high", (lo.shape, hi.shape), "must be two 1-d arrays of one value per query")
    if np.any(lo > hi):
        raise bad("low", lo[lo > hi][:3].tolist(), "must be <= high")
    zero_possible = (lo <= 0) & (hi >= 0) if zero is None else np.asarray(zero, dtype=bool) & (lo <= 0) & (hi >= 0)
    if np.array_equal(lo, hi):  # one vector (untied runs): its own p-value, attained
        p, direction = pvalues(test, lo[None, :], resamples=resamples, seed=seed)
        return Bounds(float(p[0]), float(p[0]), True, int(direction[0]), int(direction[0]))
    if test == "t":
        return _t_bounds(lo, hi)
    if test == "sign":
        return _sign_bounds(lo, hi, zero_possible, exact_zero=zero is not None or bool(np.all((lo == 0) | (hi == 0) | ~((lo < 0) & (hi > 0)))))
    if test == "wilcoxon":
        return _wilcoxon_bounds(lo, hi, zero_possible)
    return _resampling_bounds(test, lo, hi, resamples, seed)


def _mean_direction(lo: np.ndarray, hi: np.ndarray) -> tuple[int, int]:
    s_lo, s_hi = math.fsum(lo), math.fsum(hi)
    return int(np.sign(s_lo)), int(np.sign(s_hi))


def _t_of(S: np.ndarray, Q: np.ndarray, n: int) -> np.ndarray:
    """t from the sum S and the sum of squares Q of n values (inf when the spread is 0 and S != 0)."""
    spread = n * Q - S * S
    with np.errstate(divide="ignore", invalid="ignore"):
        t = S * math.sqrt(n - 1) / np.sqrt(np.maximum(spread, 0.0))
    return np.where(spread <= 0, np.where(S > 0, np.inf, np.where(S < 0, -np.inf, 0.0)), t)


def _t_max(lo: np.ndarray, hi: np.ndarray) -> tuple[float, Optional[np.ndarray]]:
    """max of t over the box, and a maximiser whose entries are each at a bound (None if not found).

    For a fixed sum the box's smallest sum of squares is the water level
    d = clip(c, lo, hi); along c, t is largest at a breakpoint or at c = B/A
    inside a segment (A, B: the sum and sum of squares of the clipped
    entries; k entries free at c): there d/dc t ∝ k·n·(B − A·c).
    """
    n = len(lo)
    cuts = np.unique(np.concatenate([lo, hi]))
    lo_sorted, hi_sorted = np.sort(lo), np.sort(hi)
    lo_suffix = np.concatenate([np.cumsum(lo_sorted[::-1])[::-1], [0.0]])
    lo_suffix2 = np.concatenate([np.cumsum((lo_sorted**2)[::-1])[::-1], [0.0]])
    hi_prefix = np.concatenate([[0.0], np.cumsum(hi_sorted)])
    hi_prefix2 = np.concatenate([[0.0], np.cumsum(hi_sorted**2)])

    def clipped(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # the a smallest hi sit at hi, the entries from b on (by lo) at lo, b − a entries are free
        return hi_prefix[a] + lo_suffix[b], hi_prefix2[a] + lo_suffix2[b], (b - a)

    # at a breakpoint c: hi <= c at hi, lo > c at lo, the rest (lo <= c < hi) at c
    A, B, k = clipped(np.searchsorted(hi_sorted, cuts, side="right"), np.searchsorted(lo_sorted, cuts, side="right"))
    t_cut = _t_of(A + k * cuts, B + k * cuts * cuts, n)
    i = int(np.argmax(t_cut))
    best = float(t_cut[i])
    d = np.clip(cuts[i], lo, hi)
    attained: Optional[np.ndarray] = d if np.all((d == lo) | (d == hi)) else None
    if len(cuts) > 1:
        left, right = cuts[:-1], cuts[1:]
        A, B, k = clipped(np.searchsorted(hi_sorted, left, side="right"), np.searchsorted(lo_sorted, right, side="left"))
        if np.any((k == n) & (right > 0)):
            return np.inf, None  # every entry free at one positive level: no spread, t infinite
        with np.errstate(divide="ignore", invalid="ignore"):
            star = np.where(A != 0, B / A, np.nan)
        inside = (star > left) & (star < right) & (k > 0)
        if np.any(inside):
            c = star[inside]
            t_star = _t_of(A[inside] + k[inside] * c, B[inside] + k[inside] * c * c, n)
            j = int(np.argmax(t_star))
            if t_star[j] > best:
                best, attained = float(t_star[j]), None
    return best, attained


def _t_min(lo: np.ndarray, hi: np.ndarray) -> tuple[float, Optional[np.ndarray]]:
    """A lower bound on t over the box when every vector has sum > 0, and a box vertex attaining it (or None).

    Σd² <= Σ((lo+hi)·d − lo·hi) on the box, with equality at its vertices; the
    right side's maximum for a given sum is a fractional knapsack (raise the
    entries with the largest lo + hi first), concave and piecewise linear in
    the sum S.  t >= S·√(n−1)/√(n·Q̄(S) − S²); on a segment Q̄ = α + βS this is
    smallest at a breakpoint or at S = −2α/β.
    """
    n = len(lo)
    order, S_break, Q_break, beta, alpha = chord_knapsack(lo, hi)
    t_break = _t_of(S_break, Q_break, n)
    i = int(np.argmin(t_break))
    best = float(t_break[i])
    vertex = lo.copy()
    vertex[order[:i]] = hi[order[:i]]  # the first i entries raised: the breakpoint's vertex
    attained: Optional[np.ndarray] = vertex
    with np.errstate(divide="ignore", invalid="ignore"):
        star = np.where(beta != 0, -2 * alpha / beta, np.nan)
    inside = (star > S_break[:-1]) & (star < S_break[1:])
    if np.any(inside):
        Q_star = alpha[inside] + beta[inside] * star[inside]
        t_star = _t_of(star[inside], Q_star, n)
        j = int(np.argmin(t_star))
        if t_star[j] < best:
            best, attained = float(t_star[j]), None
    return best, attained


def chord_knapsack(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The largest Σd² for each sum S over the box, bounded by chords: (order, S_break, Q_break, beta, alpha).

    On [lo_q, hi_q], d_q² <= (lo_q + hi_q)·d_q − lo_q·hi_q (the chord; equal
    at both ends), so Σd² <= Q̄(S), the chords' largest sum for the sum S: a
    fractional knapsack that raises the entries from lo to hi in *order*
    (largest lo + hi first).  Q̄ is concave and piecewise linear, with
    value Q_break at S_break (breakpoint i: the box vertex with the first i
    entries of *order* at hi, the rest at lo, where Q̄ = Σd²) and
    Q̄ = alpha + beta·S on the piece after breakpoint i.

    >>> order, S, Q, beta, alpha = chord_knapsack(np.array([0.0, 0.0]), np.array([1.0, 2.0]))
    >>> order.tolist(), S.tolist(), Q.tolist()
    ([1, 0], [0.0, 2.0, 3.0], [0.0, 4.0, 5.0])
    """
    m = lo + hi
    order = np.argsort(-m, kind="stable")
    widths = (hi - lo)[order]
    S_break = lo.sum() + np.concatenate([[0.0], np.cumsum(widths)])
    Q_break = (lo * lo).sum() + np.concatenate([[0.0], np.cumsum(widths * m[order])])
    beta = m[order]
    alpha = Q_break[:-1] - beta * S_break[:-1]
    return order, S_break, Q_break, beta, alpha


def t_range(low: Any, high: Any) -> tuple[float, float, Optional[np.ndarray], Optional[np.ndarray]]:
    """The smallest and largest paired t statistic over every vector of the box low <= d <= high.

    Returns (t_min, t_max, d_min, d_max): d_min (d_max) is a box vertex
    attaining t_min (t_max), or None when the extreme lies inside the box
    (then it bounds every vertex's t, attained or not).  With fewer than 2
    queries t is undefined: (nan, nan, None, None).  A box holding a
    constant positive (negative) vector has t_max = inf (t_min = −inf).

    >>> t_range(np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 4.0]))[:2] == t_range([1.0, 2.0, 4.0], [1.0, 2.0, 4.0])[:2]
    True
    """
    lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if len(lo) < 2:
        return math.nan, math.nan, None, None
    top, top_at = _t_top(lo, hi)
    bottom, bottom_at = _t_top(-hi, -lo)
    return -bottom, top, (None if bottom_at is None else -bottom_at), top_at


def _t_top(lo: np.ndarray, hi: np.ndarray) -> tuple[float, Optional[np.ndarray]]:
    """The largest t over the box: the water level where some sum is > 0, else the least |t| of the mirrored box."""
    s_hi = math.fsum(hi)
    if s_hi > 0:
        return _t_max(lo, hi)
    if s_hi == 0:
        return 0.0, hi.copy()  # t <= 0 everywhere, 0 at the sum-0 vertex
    least, at = _t_min(-hi, -lo)  # every sum < 0: the largest t is minus the smallest |t|
    return -least, None if at is None else -at


def _t_bounds(lo: np.ndarray, hi: np.ndarray) -> Bounds:
    stats = _scipy()
    n = len(lo)
    d_lo, d_hi = _mean_direction(lo, hi)
    if n < 2:
        return Bounds(1.0, 1.0, True, d_lo, d_hi)
    s_lo, s_hi = math.fsum(lo), math.fsum(hi)
    # the largest |t|: over the S > 0 part (max t) and the S < 0 part (max −t)
    top, top_at = 0.0, lo if s_lo == s_hi == 0 else None  # neither part: the box is one vector, sum 0
    if s_hi > 0:
        top, top_at = _t_max(lo, hi)
    if s_lo < 0:
        other, other_at = _t_max(-hi, -lo)
        if other > top:
            top, top_at = other, None if other_at is None else -other_at
    # the smallest |t|
    if s_lo > 0:
        bottom, bottom_at = _t_min(lo, hi)
    elif s_hi < 0:
        bottom, bottom_at = _t_min(-hi, -lo)
        bottom_at = None if bottom_at is None else -bottom_at
    else:
        bottom, bottom_at = 0.0, None  # some vector of the box has sum 0
    # attained bounds are the p-values of their vertices, computed as every tie-breaking's is
    if top_at is not None:
        p_min = float(pvalues("t", top_at[None, :])[0][0])
    else:
        p_min = (float(2 * stats.t_sf(top, n - 1)) if np.isfinite(top) else 0.0) * (1 - 1e-9)
    if bottom_at is not None:
        p_max = float(pvalues("t", bottom_at[None, :])[0][0])
    else:
        p_max = min(1.0, float(2 * stats.t_sf(bottom, n - 1)) * (1 + 1e-9))
    return Bounds(p_min, p_max, top_at is not None and bottom_at is not None, d_lo, d_hi)


def _sign_bounds(lo: np.ndarray, hi: np.ndarray, zero: np.ndarray, exact_zero: bool) -> Bounds:
    """The sign test over the box: (wins, losses) range over a polygon; p is read on its boundary.

    Per query the outcome is a win, a loss or a zero, from the set each
    query allows; the attainable (P, N) are the integer points of
    {P_lo <= P <= P_hi, N_lo <= N <= N_hi, S_lo <= P + N <= S_hi} (sums of
    the per-query bounds).  The two-sided p depends on (|P − N|, P + N),
    decreases in |P − N| and does not decrease in P + N at fixed |P − N|,
    so per value u of P − N only the smallest (for p_min) and largest (for
    p_max) P + N on the polygon count.
    """
    stats = _scipy()
    can_win, can_lose = hi > 0, lo < 0
    must_win, must_lose = lo > 0, hi < 0
    p_lo, p_hi = int(must_win.sum()), int(can_win.sum())
    n_lo, n_hi = int(must_lose.sum()), int(can_lose.sum())
    s_lo, s_hi = int((~zero).sum()), int((can_win | can_lose).sum())
    u = np.arange(p_lo - n_hi, p_hi - n_lo + 1)
    least = np.maximum.reduce([2 * p_lo - u, 2 * n_lo + u, np.full_like(u, s_lo)])
    least += (least - u) % 2  # P + N has the parity of P − N
    most = np.minimum.reduce([2 * p_hi - u, 2 * n_hi + u, np.full_like(u, s_hi)])
    most -= (most - u) % 2
    ok = least <= most
    u, least, most = u[ok], least[ok], most[ok]
    small = _sign_p(stats, (least + u) // 2, (least - u) // 2)
    large = _sign_p(stats, (most + u) // 2, (most - u) // 2)
    d_lo, d_hi = int(np.sign(u.min())), int(np.sign(u.max()))
    return Bounds(float(small.min()), float(large.max()), exact_zero, d_lo, d_hi)


def _pairs_above(x: np.ndarray) -> tuple[int, int]:
    """(#pairs i<j with x_i + x_j > 0, #pairs with x_i + x_j < 0)."""
    s = np.sort(x)
    n = len(s)
    # for each i, the j > i with s_j > -s_i (resp. < -s_i)
    above = n - np.searchsorted(s, -s, side="right")
    below = np.searchsorted(s, -s, side="left")
    self_above = (2 * s > 0).sum()
    self_below = (2 * s < 0).sum()
    return int((above.sum() - self_above) // 2), int((below.sum() - self_below) // 2)


def _signed_rank_max(lo: np.ndarray, hi: np.ndarray, zero: np.ndarray) -> int:
    """An upper bound on T = Σ_{i} sgn(d_i) + Σ_{i<j} sgn(d_i + d_j) (over non-zero entries) on the box.

    Each term is largest at d = hi; a pair term is 0 instead of −1 when
    either entry may be 0 (the pair is then dropped).
    """
    singles = int(np.sign(hi).sum())
    up, down = _pairs_above(hi)
    _, down_sure = _pairs_above(hi[~zero])  # pairs with a negative sum that no zero can drop
    return singles + up - down_sure


def _wilcoxon_bounds(lo: np.ndarray, hi: np.ndarray, zero: np.ndarray) -> Bounds:
    """Certified bounds for the signed rank test (docs/uncertainty.md gives the argument).

    With n non-zero differences and midranks ρ, z = T/√(Σρ²), where
    T = 2·r_plus − n(n+1)/2 = Σ sgn(d_i) + Σ_{i<j} sgn(d_i + d_j).  T lies in
    [T_lo, T_hi] (each term monotone in d), Σρ² is at most n(n+1)(2n+1)/6
    and at least that minus n(ω² − 1)/12, ω the most |d| ranges sharing a
    value (groups of equal |d| have at most ω members), and |T| <= n(n+1)/2.
    scipy's regimes (exact for n <= 50 untied without zeros, sign flips for
    n <= 13 with ties or zeros, the normal approximation otherwise) each get
    their own bounds, for the regimes some vector of the box can reach.
    """
    stats = _scipy()
    N = len(lo)
    t_hi = _signed_rank_max(lo, hi, zero)
    t_lo = -_signed_rank_max(-hi, -lo, zero)
    nonzero_lo = int((~zero).sum())
    nonzero_hi = int(((lo != 0) | (hi != 0)).sum())
    d_lo, d_hi = int(np.sign(t_lo)), int(np.sign(t_hi))
    far = max(abs(t_lo), abs(t_hi))
    near = 0 if t_lo <= 0 <= t_hi else min(abs(t_lo), abs(t_hi))
    # the most non-zero |d| that can be equal: |d_i| = |d_j| = v needs v in both |d| ranges
    may = (lo != 0) | (hi != 0)
    a_lo = np.where((lo < 0) & (hi > 0), 0.0, np.minimum(np.abs(lo), np.abs(hi)))[may]
    a_hi = np.maximum(np.abs(lo), np.abs(hi))[may]
    omega = _most_overlapping(a_lo, a_hi)
    can_tie, can_zero = omega > 1, nonzero_lo < N
    p_min, p_max = 1.0, 0.0
    if nonzero_lo == 0:
        p_max = 1.0  # every difference may be 0
    counts = np.arange(max(1, nonzero_lo), nonzero_hi + 1, dtype=np.float64)
    if len(counts) and (N > 50 or (N > 13 and (can_tie or can_zero))):  # the normal approximation
        # Σρ² = c(c+1)(2c+1)/6 − Σ_g (t_g³ − t_g)/12 over the groups of equal |d|, each of at most ω
        # members: Σ_g (t_g³ − t_g) <= c(ω² − 1) (and Σρ² >= c(c+1)²/4, every |d| equal)
        w = np.minimum(omega, counts)
        squares = np.maximum(counts * (counts + 1) * (2 * counts + 1) / 6 - counts * (w * w - 1) / 12, counts * (counts + 1) ** 2 / 4)
        z_top = np.minimum(np.minimum(far, counts * (counts + 1) / 2) / np.sqrt(squares), np.sqrt(counts))
        p_min = min(p_min, float(2 * stats.norm_sf(z_top.max())))
        top = nonzero_hi
        z_bottom = near / math.sqrt(top * (top + 1) * (2 * top + 1) / 6) if top else 0.0
        p_max = max(p_max, float(min(1.0, 2 * stats.norm_sf(z_bottom))))
    if N <= 50 and nonzero_hi == N:  # scipy's exact distribution (untied, no zeros: every query may be non-zero): n = N
        counts_exact = _flip_counts(tuple(2 * r for r in range(1, N + 1)))
        total = counts_exact.sum()
        mn2 = N * (N + 1) // 2  # doubled mean of r_plus
        high_r2 = mn2 + min(far, N * (N + 1) // 2)  # doubled r_plus at the largest |T|
        p_min = min(p_min, min(1.0, 2 * counts_exact[_even_floor(high_r2):].sum() / total))
        low_r2 = mn2 + near
        p_max = max(p_max, min(1.0, 2 * counts_exact[_even_ceil(low_r2):].sum() / total))
    if N <= 13 and nonzero_hi and (can_tie or can_zero):  # sign flips with ties or zeros: at least the observed pattern
        p_min = min(p_min, min(1.0, 2.0 ** (1 - nonzero_hi)))
        p_max = 1.0
    if p_max < p_min:
        p_max = p_min
    return Bounds(p_min * (1 - 1e-9), min(1.0, p_max * (1 + 1e-9)), False, d_lo, d_hi)


def _most_overlapping(lo: np.ndarray, hi: np.ndarray) -> int:
    """The most closed intervals [lo_i, hi_i] that share a point (0 for none).

    >>> _most_overlapping(np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0]))
    2
    """
    if not len(lo):
        return 0
    where = np.concatenate([lo, hi])
    step = np.concatenate([np.ones(len(lo), dtype=np.int64), -np.ones(len(hi), dtype=np.int64)])
    order = np.lexsort((-step, where))  # at one point, openings before closings (closed intervals)
    return int(np.cumsum(step[order]).max())


def _even_floor(x: int) -> int:
    return x - (x % 2)


def _even_ceil(x: int) -> int:
    return x + (x % 2)


def _resampling_bounds(test: str, lo: np.ndarray, hi: np.ndarray, resamples: int, seed: int) -> Bounds:
    """Per resample W_r, whether |W_r·d| >= c·|Σd| holds for some / every d of the box.

    With a = (W_r − c)·d and b = (W_r + c)·d the condition is a·b >= 0.  The
    box maps onto a convex polygon of the (a, b) plane, with a and b ranging
    over [a_lo, a_hi] and [b_lo, b_hi]: the condition holds everywhere when
    the polygon sits in a closed quadrant where a·b >= 0 (a_lo >= 0 and
    b_lo >= 0, or a_hi <= 0 and b_hi <= 0), and somewhere unless it sits in
    an open quadrant where a·b < 0.
    """
    n = len(lo)
    c = 1 - _RTOL
    always = possible = used = 0
    scale = 1e-9 * (np.abs(lo).sum() + np.abs(hi).sum() + 1e-300) + _slack(n)  # margins cover the slack
    for W in _resample_blocks(test, n, resamples, seed):
        ranges = []
        for coef in (W - c, W + c):
            pos, neg = np.maximum(coef, 0), np.minimum(coef, 0)
            ranges.append((pos @ lo + neg @ hi, pos @ hi + neg @ lo))
        (a_lo, a_hi), (b_lo, b_hi) = ranges
        # W = ±(1, ..., 1): |W·d| = |Σd| whatever d
        trivial = np.all(W == W[:, :1], axis=1) if test == "randomization" else np.zeros(len(W), dtype=bool)
        always += int((trivial | ((a_lo >= scale) & (b_lo >= scale)) | ((a_hi <= -scale) & (b_hi <= -scale))).sum())
        possible += int((trivial | ~(((a_hi < -scale) & (b_lo > scale)) | ((a_lo > scale) & (b_hi < -scale)))).sum())
        used += len(W)
    adj = 0 if test == "randomization" and _exact_flips(n, resamples) else 1
    d_lo, d_hi = _mean_direction(lo, hi)
    return Bounds((adj + always) / (used + adj), min(1.0, (adj + possible) / (used + adj)), False, d_lo, d_hi)


# --- enumeration of the joint outcomes --------------------------------------------------------------------


@dataclass(frozen=True)
class Support:
    """One query's difference A_q − B_q over tie-breakings: its distinct values and their probabilities."""

    values: np.ndarray
    #: Probabilities, Fractions when exact, floats otherwise; they sum to 1.
    weights: tuple


@dataclass(frozen=True)
class Enumerated:
    """Every joint outcome of one pair's per-query differences, tested."""

    outcomes: int
    p: np.ndarray
    direction: np.ndarray
    #: The probability of each outcome as floats, and the exact products (None when not exact).
    probability: np.ndarray
    exact_probability: Optional[list]

    def bounds(self) -> Bounds:
        return Bounds(
            float(self.p.min()), float(self.p.max()), True, int(self.direction.min()), int(self.direction.max())
        )

    def verdicts(self, level: float) -> np.ndarray:
        """+1 / −1 where the outcome is significant at *level* (raw p), 0 where not."""
        return np.where(self.p <= level, self.direction, 0)

    def probability_of(self, mask: np.ndarray) -> Any:
        """P(outcome in *mask*): a Fraction when the weights are exact."""
        if self.exact_probability is not None:
            return sum((w for w, keep in zip(self.exact_probability, mask.tolist()) if keep), Fraction(0))
        return float(self.probability[mask].sum())


def outcome_count(supports: Sequence[Support], limit: int = ENUMERATION_LIMIT) -> Optional[int]:
    """∏ of the support sizes, or None once it exceeds *limit*."""
    total = 1
    for s in supports:
        total *= len(s.values)
        if total > limit:
            return None
    return total


def enumerate_pair(
    test: str,
    supports: Sequence[Support],
    *,
    limit: int = ENUMERATION_LIMIT,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Optional[Enumerated]:
    """Every joint outcome of the per-query difference distributions and its p-value, or None past *limit*.

    >>> from fractions import Fraction as F
    >>> half = (F(1, 2), F(1, 2))
    >>> e = enumerate_pair("sign", [Support(np.array([0.0, 0.5]), half), Support(np.array([0.25]), (F(1),))])
    >>> e.outcomes, e.p.tolist(), e.bounds().exact
    (2, [1.0, 0.5], True)
    """
    check_test(test)
    total = outcome_count(supports, limit)
    if total is None:
        return None
    n = len(supports)
    variable = [i for i, s in enumerate(supports) if len(s.values) > 1]
    base = np.array([s.values[0] for s in supports], dtype=np.float64)
    sizes = [len(supports[i].values) for i in variable]
    ps, ds = [], []
    rows = max(1, _CHUNK_CELLS // max(1, n))
    for lo in range(0, total, rows):
        codes = np.arange(lo, min(total, lo + rows), dtype=np.int64)
        D = np.repeat(base[None, :], len(codes), axis=0)
        for i, size in zip(variable, sizes):
            D[:, i] = supports[i].values[codes % size]
            codes = codes // size
        p, d = pvalues(test, D, resamples=resamples, seed=seed)
        ps.append(p)
        ds.append(d)
    exact = all(isinstance(w, Fraction) for s in supports for w in s.weights)
    probability = np.ones(1)
    exact_probability: Optional[list] = [Fraction(1)] if exact else None
    for i in reversed(variable):  # the first variable query varies fastest
        w = supports[i].weights
        probability = np.multiply.outer(probability, np.array([float(x) for x in w])).ravel()
        if exact_probability is not None:
            exact_probability = [a * b for a in exact_probability for b in w]
    return Enumerated(total, np.concatenate(ps), np.concatenate(ds), probability, exact_probability)


# --- corrections and intervals ----------------------------------------------------------------------------


def adjust(p: Any, correction: str) -> np.ndarray:
    """Adjusted p-values of one family: Bonferroni min(1, m·p) or Holm's step-down (monotone in each p).

    >>> adjust([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    """
    if correction not in CORRECTIONS:
        raise bad("correction", correction, f"must be one of {', '.join(CORRECTIONS)}")
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    if correction == "none" or m <= 1:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1) * (m - np.arange(m))
    ranked = np.minimum(1.0, np.maximum.accumulate(ranked, axis=-1))
    out = np.empty_like(p)
    np.put_along_axis(out, order, ranked, axis=-1)
    return out


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) two-sided interval for a binomial proportion k/n.

    >>> lo, hi = clopper_pearson(0, 1000)
    >>> lo, round(hi, 5)
    (0.0, 0.00368)
    """
    stats = _scipy()
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else stats.beta_ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta_ppf(1 - a, k + 1, n - k)
    return lo, hi

