"""Confidence intervals, effect sizes and rank intervals, each bounded over every tie-breaking.

A run with ties stands for every ordering consistent with them, so each
per-query value x_q (a system's, or a pair's difference d_q = A_q − B_q)
ranges over [low_q, high_q], both ends attained (queries and systems are
tie-broken independently; docs/uncertainty.md).  Every statistic here is
reported at the expected per-query values **and** over every tie-breaking:

- :func:`t_interval`, :func:`t_interval_bounds`: Student's t interval of the
  mean, mean ± t_{n−1}·s/√n (scipy's ``ttest_1samp(x).confidence_interval``).
  Its lower end is concave in x and its upper end convex, so each extreme
  over the box ∏[low_q, high_q] is at a vertex, and every vertex is a
  tie-breaking: enumerated (exact, attained) for up to 2^k ≤ *limit*
  vertices, else bounded through the chords of Σx² (attained when the bound
  falls on a vertex, certified otherwise);
- :class:`Resamples`: the seeded paired bootstrap (scipy.stats.bootstrap's
  resamples for ``rng=numpy.random.default_rng(seed)``, ``batch`` =
  :data:`BLOCK`), with every resampled mean summed exactly on an integer grid, so
  identical on every machine; :func:`percentile` is scipy's percentile
  interval.  A resampled mean is non-decreasing in every x_q, so the
  lowest lower end is the interval of x = low and the highest upper end
  that of x = high: exact and attained;
- :func:`cohens_dz`: the paired standardised mean difference mean(d)/sd(d)
  (= t/√n), its range over the box (:func:`tieaware.runs.significance.t_range`)
  or, when the per-query distributions are known, over every joint outcome;
- :func:`superiority`: the share of queries where A > B, ties counted half,
  and :func:`win_tie_loss`: the counts, each exact, with their range;
- :func:`rank_intervals`: each system's rank over topic resampling (the
  bootstrap of queries) and over topics and ties together.

>>> x = np.array([0.2, 0.4, 0.6, 0.8])
>>> [round(v, 6) for v in t_interval(x, 95)]
[0.089148, 0.910852]
>>> b = t_interval_bounds(x, x - 0.1, x + 0.1, 95)
>>> round(b.low, 6), round(b.high, 6), b.exact          # every vertex of the box enumerated
(-0.093506, 1.093506, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.model.errors import bad
from tieaware.runs import significance as sig

__all__ = [
    "CI",
    "BLOCK",
    "check_ci",
    "t_interval",
    "IntervalBounds",
    "t_interval_bounds",
    "Resamples",
    "percentile",
    "bootstrap_bounds",
    "EffectSize",
    "cohens_dz",
    "Share",
    "superiority",
    "WinTieLoss",
    "win_tie_loss",
    "expected_counts",
    "RankIntervals",
    "rank_intervals",
]

#: The default confidence level, in percent (``--ci``).
CI = 95.0
#: Bootstrap resamples drawn per call of the generator (scipy.stats.bootstrap's ``batch``): part of the seeding.
BLOCK = 1024
#: Largest integer a float holds exactly, with one bit to spare: the bootstrap's exact sums stay below it.
_EXACT_SUM = 2.0**52
#: The finest grid of the bootstrap's exact sums (:data:`tieaware.runs.significance.GRID`).
_FINEST = 40
#: Relative widening of a certified bound, for rounding.
_WIDEN = 1e-9


def check_ci(ci: Any, name: str = "ci") -> float:
    """*ci* (a confidence level in percent) as a float, if 0 < ci < 100; else TieawareError.

    >>> check_ci(95)
    95.0
    """
    if isinstance(ci, bool) or not isinstance(ci, (int, float, Fraction)) or not 0 < ci < 100:
        raise bad(name, ci, "must be a confidence level in percent, strictly between 0 and 100")
    return float(ci)


def _t_quantile(level: float, n: int) -> float:
    """t_{n−1} at 1 − (1 − level)/2 (*level* in percent)."""
    import scipy.special

    return float(scipy.special.stdtrit(n - 1, 1 - (1 - level / 100) / 2))


def t_interval(x: Any, ci: float = CI) -> tuple[float, float]:
    """Student's t interval of the mean of *x*: mean ± t_{n−1}·s/√n (nan, nan for fewer than 2 values).

    >>> t_interval([1.0, 1.0, 1.0])
    (1.0, 1.0)
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n < 2:
        return math.nan, math.nan
    mean = float(x.mean())
    half = _t_quantile(ci, n) * float(x.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


@dataclass(frozen=True)
class IntervalBounds:
    """An interval at the expected per-query values, and how far its ends reach over every tie-breaking."""

    #: The interval on the expected per-query values.
    expected: tuple[float, float]
    #: No tie-breaking's interval reaches below ``low`` or above ``high``.
    low: float
    high: float
    #: True: both attained by some tie-breaking; False: certified (never too narrow).
    exact: bool


def t_interval_bounds(
    expected: Any, low: Any, high: Any, ci: float = CI, *, limit: int = sig.ENUMERATION_LIMIT
) -> IntervalBounds:
    """The t interval at *expected*, with its lowest lower and highest upper end over the box [*low*, *high*].

    The lower end mean − c·s is concave in the vector (s is a norm), the
    upper end convex: each extreme over the box is at a vertex, an
    attainable tie-breaking.  Up to *limit* vertices (2^k, k the queries
    whose value varies) are enumerated; past that, Σx² is bounded by the
    chords (:func:`tieaware.runs.significance.chord_knapsack`), which turns
    each end into a function of the sum alone, convex (concave) and
    smooth on each piece: its extreme is at a breakpoint (a vertex:
    attained) or at a stationary point (certified, widened by 1e-9).

    >>> b = t_interval_bounds([0.5, 0.5], [0.0, 0.5], [1.0, 0.5])
    >>> [round(v, 4) for v in b.expected], round(b.low, 4), round(b.high, 4), b.exact
    ([0.5, 0.5], -2.9266, 3.9266, True)
    """
    e, lo, hi = _three(expected, low, high)
    ci = check_ci(ci)
    n = len(e)
    at = t_interval(e, ci)
    if n < 2:
        return IntervalBounds(at, math.nan, math.nan, True)
    varies = np.flatnonzero(lo != hi)
    if 2 ** min(len(varies), 64) <= limit:
        low_end, high_end = _vertex_extremes(lo, hi, varies, ci)
        return IntervalBounds(at, low_end, high_end, True)
    low_end, low_exact = _chord_extreme(lo, hi, ci, -1)
    high_end, high_exact = _chord_extreme(lo, hi, ci, +1)
    return IntervalBounds(at, low_end, high_end, low_exact and high_exact)


def _three(*arrays: Any) -> tuple[np.ndarray, ...]:
    out = tuple(np.asarray(a, dtype=np.float64) for a in arrays)
    if any(a.ndim != 1 or a.shape != out[0].shape for a in out) or not len(out[0]):
        raise bad("expected/low/high", [a.shape for a in out], "must be 1-d arrays of one value per query, all of one length")
    if np.any(out[1] > out[2]):
        raise bad("low", out[1][out[1] > out[2]][:3].tolist(), "must be <= high")
    return out


def _vertex_extremes(lo: np.ndarray, hi: np.ndarray, varies: np.ndarray, ci: float) -> tuple[float, float]:
    """min of the lower end and max of the upper end over every vertex (the sums of all 2^k at once)."""
    n = len(lo)
    base = lo.copy()
    S = np.array([float(base.sum())])
    Q = np.array([float((base * base).sum())])
    for q in varies.tolist():  # vertex code: bit j set = the j-th varying query at high
        step = hi[q] - lo[q]
        S = np.concatenate([S, S + step])
        Q = np.concatenate([Q, Q + hi[q] * hi[q] - lo[q] * lo[q]])
    c = _t_quantile(ci, n)
    sd = np.sqrt(np.maximum(Q - S * S / n, 0.0) / (n - 1))
    ends = []
    for sign, pick in ((-1, np.argmin), (+1, np.argmax)):
        code = int(pick(S / n + sign * c * sd / math.sqrt(n)))
        vertex = lo.copy()
        chosen = varies[[(code >> j) & 1 == 1 for j in range(len(varies))]] if len(varies) else varies
        vertex[chosen] = hi[chosen]
        ends.append(t_interval(vertex, ci)[0 if sign < 0 else 1])  # the vertex's own interval, as any tie-breaking's
    return ends[0], ends[1]


def _chord_extreme(lo: np.ndarray, hi: np.ndarray, ci: float, sign: int) -> tuple[float, bool]:
    """sign −1: a lower bound on min (mean − c·s/√n); +1: an upper bound on max (mean + c·s/√n); and whether attained.

    With V̄(S) = Q̄(S) − S²/n >= (n − 1)·s² on the box (the chords), the end
    is bounded by h(S) = S/n + sign·k·√(V̄(S)/(n − 1)), k = c/√n.  On a
    piece Q̄ = α + βS, with w = β − 2S/n, V̄ = α + n(β² − w²)/4 and h' = 0
    where w² = (4(n − 1)α + n(n − 1)β²)/(k²n² + n(n − 1)), w of sign −sign.
    """
    n = len(lo)
    k = _t_quantile(ci, n) / math.sqrt(n)
    order, S_break, Q_break, beta, alpha = sig.chord_knapsack(lo, hi)

    def h(S: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return S / n + sign * k * np.sqrt(np.maximum(Q - S * S / n, 0.0) / (n - 1))

    at_break = h(S_break, Q_break)
    i = int(np.argmin(at_break) if sign < 0 else np.argmax(at_break))
    best = float(at_break[i])
    rhs = 4 * (n - 1) * alpha + n * (n - 1) * beta * beta
    w = -sign * np.sqrt(np.maximum(rhs, 0.0) / (k * k * n * n + n * (n - 1)))
    star = n * (beta - w) / 2
    inside = (rhs >= 0) & (star > S_break[:-1]) & (star < S_break[1:])
    if np.any(inside):
        h_star = h(star[inside], alpha[inside] + beta[inside] * star[inside])
        j = int(np.argmin(h_star) if sign < 0 else np.argmax(h_star))
        if (h_star[j] < best) if sign < 0 else (h_star[j] > best):
            best = float(h_star[j])
            return best + sign * _WIDEN * (1 + abs(best)), False
    vertex = lo.copy()
    vertex[order[:i]] = hi[order[:i]]  # breakpoint i's vertex: its own interval, computed as any tie-breaking's
    return t_interval(vertex, ci)[0 if sign < 0 else 1], True


# --- the bootstrap ----------------------------------------------------------------------------------------


class Resamples:
    """*resamples* seeded bootstrap resamples of n queries, and exact resampled means.

    Resample r draws n queries with replacement; the indices are those
    scipy.stats.bootstrap draws with ``rng=numpy.random.default_rng(seed)``
    and ``batch=BLOCK`` (one ``rng.integers(0, n, (rows, n))`` per block), so
    a percentile interval here is scipy's.  The means are summed exactly:
    values are rounded to a grid of 2^-k (k <= 40, so that every sum of n
    grid values stays below 2^52) and summed as integers held in floats,
    exact in any order: the same bits on every machine, whatever the BLAS.

    >>> r = Resamples(4, 3, seed=1)
    >>> r.means(np.array([[1.0], [1.0], [1.0], [1.0]])).ravel().tolist()
    [1.0, 1.0, 1.0]
    """

    def __init__(self, n: int, resamples: int, seed: int = sig.SEED) -> None:
        for name, value, least in (("n", n, 1), ("resamples", resamples, 1), ("seed", seed, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise bad(name, value, f"must be an int >= {least}")
        self.n, self.count, self.seed = n, resamples, seed

    def blocks(self) -> Any:
        """The count matrices (rows: resamples, columns: queries), :data:`BLOCK` resamples at a time."""
        rng = np.random.default_rng(self.seed)
        n = self.n
        for first in range(0, self.count, BLOCK):
            rows = min(BLOCK, self.count - first)
            picks = rng.integers(0, n, (rows, n))
            flat = (np.arange(rows, dtype=np.int64)[:, None] * n + picks).ravel()
            yield np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)

    def scale(self, X: np.ndarray) -> int:
        """The grid exponent k for the values *X*: the largest k <= 40 with n·max|X|·2^k <= 2^52."""
        top = float(np.max(np.abs(X))) if X.size else 0.0
        if top == 0:
            return _FINEST
        return int(min(_FINEST, math.floor(math.log2(_EXACT_SUM / (self.n * top)))))

    def sums(self, X: Any) -> tuple[np.ndarray, int]:
        """(resamples × columns) exact sums Σ_q count_q·round(X_q·2^k), as integer-valued floats, and k."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        if X.shape[0] != self.n:
            raise bad("X", X.shape, f"must have one row per query ({self.n})")
        k = self.scale(X)
        grid = np.round(X * 2.0**k)
        out = np.empty((self.count, X.shape[1]))
        at = 0
        for W in self.blocks():
            out[at : at + len(W)] = W @ grid  # integers below 2^52 at every step: exact in any order
            at += len(W)
        return out, k

    def means(self, X: Any) -> np.ndarray:
        """(resamples × columns) resampled means of the columns of *X* (rows: queries), from the exact sums."""
        sums, k = self.sums(X)
        return sums / (self.n * 2.0**k)


def percentile(means: Any, ci: float = CI) -> tuple[float, float]:
    """The percentile interval: the (1 − level)/2 and (1 + level)/2 quantiles (linear, scipy's default).

    >>> percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50)
    (2.0, 4.0)
    """
    a = (1 - check_ci(ci) / 100) / 2
    lo, hi = np.quantile(np.asarray(means, dtype=np.float64), [a, 1 - a], method="linear")
    return float(lo), float(hi)


def bootstrap_bounds(expected: Any, low: Any, high: Any, ci: float = CI) -> IntervalBounds:
    """The percentile interval from resampled means of the expected, lowest and highest values (exact).

    *expected*, *low*, *high*: the resampled means (one per resample, the same
    resamples) of the expected per-query values and of every query at its
    smallest and at its largest.  Every resampled mean is non-decreasing in
    each query's value, so is every quantile of them: no tie-breaking's
    interval reaches below percentile(low)'s lower end or above
    percentile(high)'s upper end, and the tie-breakings low and high attain them.

    >>> bootstrap_bounds([1.0, 2.0], [0.0, 1.0], [2.0, 3.0], 50).low
    0.25
    """
    return IntervalBounds(percentile(expected, ci), percentile(low, ci)[0], percentile(high, ci)[1], True)


# --- effect sizes -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EffectSize:
    """A standardised effect at the expected values and its range over tie-breakings."""

    value: float
    low: float
    high: float
    #: True: both ends attained by tie-breakings; False: certified (the box's extremes).
    exact: bool


def _dz(S: Any, Q: Any, n: int) -> np.ndarray:
    """mean/sd from sums S and sums of squares Q (to find the extremes; each is recomputed on its own vector)."""
    S, Q = np.asarray(S, dtype=np.float64), np.asarray(Q, dtype=np.float64)
    spread = np.maximum(Q - S * S / n, 0.0) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (S / n) / np.sqrt(spread)
    return np.where(spread <= 0, np.where(S > 0, np.inf, np.where(S < 0, -np.inf, 0.0)), out)


def _dz_of(d: np.ndarray) -> float:
    """Cohen's d_z of one vector, from the two-pass mean and sd."""
    n = len(d)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / sd


def cohens_dz(
    expected: Any, low: Any, high: Any, *, supports: Optional[Sequence[sig.Support]] = None, limit: int = sig.ENUMERATION_LIMIT
) -> EffectSize:
    """Cohen's d_z = mean(d)/sd(d) (sd with n − 1) at *expected*, with its range over tie-breakings.

    With *supports* (each query's distinct differences, as
    :class:`tieaware.runs.significance.Support`) and at most *limit* joint
    outcomes, every outcome is evaluated: exact and attained.  Otherwise
    the range of t/√n over the box (:func:`tieaware.runs.significance.t_range`):
    exact when both ends fall on vertices, certified otherwise.  0 when
    every difference is 0; ±inf when they are all equal and not 0.

    >>> e = cohens_dz([0.5, 1.0, 1.5], [0.5, 1.0, 1.0], [0.5, 1.0, 2.0])
    >>> e.value, round(e.low, 6), round(e.high, 6), e.exact
    (2.0, 1.527525, 2.886751, True)
    """
    e, lo, hi = _three(expected, low, high)
    n = len(e)
    if n < 2:
        return EffectSize(math.nan, math.nan, math.nan, True)
    value = _dz_of(e)
    if supports is not None and sig.outcome_count(supports, limit) is not None:
        S = np.zeros(1)
        Q = np.zeros(1)
        for s in supports:
            v = np.asarray(s.values, dtype=np.float64)
            S = (S[:, None] + v[None, :]).ravel()
            Q = (Q[:, None] + (v * v)[None, :]).ravel()
        dz = _dz(S, Q, n)
        ends = [_dz_of(_outcome(supports, int(code))) for code in (np.argmin(dz), np.argmax(dz))]
        return EffectSize(value, ends[0], ends[1], True)
    t_min, t_max, at_min, at_max = sig.t_range(lo, hi)
    root = math.sqrt(n)
    low_end = _dz_of(at_min) if at_min is not None else t_min / root * (1 + _WIDEN * np.sign(t_min))
    high_end = _dz_of(at_max) if at_max is not None else t_max / root * (1 + _WIDEN * np.sign(t_max))
    return EffectSize(value, float(low_end), float(high_end), at_min is not None and at_max is not None)


def _outcome(supports: Sequence[sig.Support], code: int) -> np.ndarray:
    """The joint outcome number *code* of :func:`cohens_dz`'s enumeration (the last query varies fastest)."""
    out = np.empty(len(supports))
    for q in range(len(supports) - 1, -1, -1):
        values = np.asarray(supports[q].values, dtype=np.float64)
        code, at = divmod(code, len(values))
        out[q] = values[at]
    return out


@dataclass(frozen=True)
class Share:
    """A share of queries as an exact Fraction, with its smallest and largest value over tie-breakings."""

    value: Fraction
    low: Fraction
    high: Fraction
    #: Its expectation over uniform tie-breakings, when the per-query distributions are known (else None).
    mean: Optional[Fraction] = None


def _signs(*arrays: Any) -> tuple[np.ndarray, ...]:
    out = tuple(np.sign(np.asarray(a)).astype(np.int64) for a in arrays)
    if any(a.shape != out[0].shape or a.ndim != 1 for a in out):
        raise bad("signs", [a.shape for a in out], "must be 1-d arrays of one sign per query, all of one length")
    if np.any(out[1] > out[2]):
        raise bad("low", out[1][out[1] > out[2]][:3].tolist(), "must not have a larger sign than high")
    return out


def superiority(expected: Any, low: Any, high: Any, zero: Optional[Any] = None) -> Share:
    """The probability of superiority: the share of queries where A > B, a zero difference counted half.

    *expected*, *low*, *high*: per query, the sign (or value) of the expected
    difference and of its smallest and largest value over tie-breakings.
    A query scores 1, 1/2 or 0 as its difference is > 0, 0 or < 0; its
    smallest score is that of low (attained), its largest that of high, and
    the queries are independent, so the range is exact.  *zero*: per query,
    whether 0 is one of its differences (by default whenever
    low <= 0 <= high); this only shapes :func:`win_tie_loss`'s ranges.

    >>> superiority([1, 0, -1, 1], [1, -1, -1, 0], [1, 1, 0, 1])
    Share(value=Fraction(5, 8), low=Fraction(3, 8), high=Fraction(7, 8), mean=None)
    """
    e, lo, hi = _signs(expected, low, high)
    n = len(e)

    def score(s: np.ndarray) -> Fraction:
        return Fraction(int(2 * (s > 0).sum() + (s == 0).sum()), 2 * n)

    return Share(score(e), score(lo), score(hi))


@dataclass(frozen=True)
class WinTieLoss:
    """Per pair: the queries A wins, ties and loses on the expected values, and each count's range over tie-breakings."""

    wins: int
    ties: int
    losses: int
    wins_range: tuple[int, int]
    ties_range: tuple[int, int]
    losses_range: tuple[int, int]
    #: The expected counts over uniform tie-breakings (E[wins], E[ties], E[losses]), when the distributions are known.
    expected: Optional[tuple[Any, Any, Any]] = None


def expected_counts(supports: Sequence[sig.Support]) -> tuple[Any, Any, Any]:
    """(E[wins], E[ties], E[losses]) over independent per-query differences: Σ_q P(d_q > 0), P(d_q = 0), P(d_q < 0).

    Exact (Fractions) when the supports' weights are.

    >>> half = (Fraction(1, 2), Fraction(1, 2))
    >>> expected_counts([sig.Support(np.array([0.0, 1.0]), half), sig.Support(np.array([-1.0]), (Fraction(1),))])
    (Fraction(1, 2), Fraction(1, 2), Fraction(1, 1))
    """
    totals = [Fraction(0), Fraction(0), Fraction(0)]
    for s in supports:
        for v, w in zip(np.asarray(s.values, dtype=np.float64).tolist(), s.weights):
            totals[0 if v > 0 else 1 if v == 0 else 2] += w
    return totals[0], totals[1], totals[2]


def win_tie_loss(expected: Any, low: Any, high: Any, zero: Optional[Any] = None) -> WinTieLoss:
    """Win/tie/loss counts on the expected differences, and each count's range over tie-breakings (exact).

    A query is a win in some tie-breaking iff high > 0, in every one iff
    low > 0; a loss likewise; a tie in some iff 0 is among its differences
    (*zero*; by default low <= 0 <= high), in every one iff low = high = 0.
    The queries are independent, so each range is attained (the three are
    not attained together: wins + ties + losses = n).

    >>> win_tie_loss([1, 0, -1, 1], [1, -1, -1, 0], [1, 1, 0, 1])
    WinTieLoss(wins=2, ties=1, losses=1, wins_range=(1, 3), ties_range=(0, 3), losses_range=(0, 2), expected=None)
    """
    e, lo, hi = _signs(expected, low, high)
    may_zero = (lo <= 0) & (hi >= 0) if zero is None else np.asarray(zero, dtype=bool) & (lo <= 0) & (hi >= 0)
    return WinTieLoss(
        wins=int((e > 0).sum()),
        ties=int((e == 0).sum()),
        losses=int((e < 0).sum()),
        wins_range=(int((lo > 0).sum()), int((hi > 0).sum())),
        ties_range=(int(((lo == 0) & (hi == 0)).sum()), int(may_zero.sum())),
        losses_range=(int((hi < 0).sum()), int((lo < 0).sum())),
    )


# --- rank intervals ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankIntervals:
    """Per system (in the columns' order): rank intervals over topic resampling, and over topics and ties."""

    #: The (1 − level)/2 and (1 + level)/2 order statistics of the system's rank over the resamples.
    topics: tuple[tuple[int, int], ...]
    #: The same of its best rank over tie-breakings per resample (lower end) and of its worst (upper end).
    both: tuple[tuple[int, int], ...]
    resamples: int


def _ranks(above: np.ndarray, below: np.ndarray, self_too: bool) -> np.ndarray:
    """Per resample and system s: 1 + #{t != s: above[r, t] > below[r, s]}."""
    greater = above[:, None, :] > below[:, :, None]  # [r, s, t]
    if self_too:
        idx = np.arange(above.shape[1])
        greater[:, idx, idx] = False
    return 1 + greater.sum(axis=2)


def rank_intervals(expected: Any, worst: Any, best: Any, ci: float = CI) -> RankIntervals:
    """Rank intervals from resampled means (rows: resamples; columns: systems, one resample per row for all).

    *expected*: each system's resampled mean of its expected per-query
    values; *worst*, *best*: of its smallest and largest per-query values.
    Over topics: rank = 1 + #{systems with a larger mean} per resample; the
    interval drops the ⌊R·(1 − level)/2⌋ lowest and highest ranks.  Over
    both: per resample the best rank over tie-breakings (this system at
    best, every other at worst: 1 + #{t: worst_t > best_s}) and the worst
    (1 + #{t: best_t > worst_s}), the lower order statistic of the first and
    the upper of the second.  A resampled mean is non-decreasing in each
    query's value, so the one tie-breaking that puts s at best and the
    others at worst gives s its best rank in every resample at once: the
    interval over both is the union of the topic intervals of every
    tie-breaking, and each end is attained by one.

    >>> e = np.array([[0.5, 0.4], [0.3, 0.4]])
    >>> rank_intervals(e, e - 0.2, e + 0.2, 50)
    RankIntervals(topics=((1, 2), (1, 2)), both=((1, 2), (1, 2)), resamples=2)
    """
    E, W, B = (np.asarray(a, dtype=np.float64) for a in (expected, worst, best))
    if E.ndim != 2 or E.shape != W.shape or E.shape != B.shape:
        raise bad("expected/worst/best", [a.shape for a in (E, W, B)], "must be (resamples × systems) arrays of one shape")
    R = E.shape[0]
    drop = int(math.floor(R * (1 - check_ci(ci) / 100) / 2))
    drop = min(drop, (R - 1) // 2)
    topics, lows, highs = [], [], []
    for first in range(0, R, BLOCK):
        part = slice(first, first + BLOCK)
        topics.append(_ranks(E[part], E[part], False))
        lows.append(_ranks(W[part], B[part], True))
        highs.append(_ranks(B[part], W[part], True))
    T = np.sort(np.concatenate(topics), axis=0)
    L = np.sort(np.concatenate(lows), axis=0)
    H = np.sort(np.concatenate(highs), axis=0)
    systems = E.shape[1]
    return RankIntervals(
        topics=tuple((int(T[drop, s]), int(T[R - 1 - drop, s])) for s in range(systems)),
        both=tuple((int(L[drop, s]), int(H[R - 1 - drop, s])) for s in range(systems)),
        resamples=R,
    )
