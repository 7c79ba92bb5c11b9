"""The leaderboard's intervals: per system and per pair, each bounded over every tie-breaking.

For one measure, from every system's per-query columns
(:class:`tieaware.runs.board_columns.Column`: the expected value and the
smallest and largest value of each query), :func:`measure_intervals` gives

- per system: the t and the bootstrap percentile interval of its mean, at
  the expected values and over every tie-breaking; its rank interval over
  topic resampling, and over topics and ties together;
- per pair (A, B): the same two intervals for the mean difference, Cohen's
  d_z, the probability of superiority and the win/tie/loss counts, each
  with its range over tie-breakings.

One set of seeded bootstrap resamples (:class:`tieaware.runs.intervals.Resamples`)
serves every system, pair and rank of the measure, so the rank intervals
and the pairs' bootstrap intervals come from the same resampled topics.
The statistics and their arguments are in :mod:`tieaware.runs.intervals`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from tieaware.runs import intervals as iv
from tieaware.runs import significance as sig
from tieaware.runs.board_columns import Column, difference, sign_near
from tieaware.runs.board_pairs import pair_supports

__all__ = ["SystemInterval", "PairInterval", "MeasureIntervals", "measure_intervals", "query_signs"]


@dataclass(frozen=True)
class SystemInterval:
    """One system's mean on one measure: its intervals, and its rank intervals over topics and over both."""

    system: str
    t: iv.IntervalBounds
    bootstrap: iv.IntervalBounds
    #: Rank intervals (best, worst) over topic resampling, and over topics and tie-breakings together.
    rank_topics: tuple[int, int]
    rank_both: tuple[int, int]


@dataclass(frozen=True)
class PairInterval:
    """A pair's mean difference A − B on one measure: intervals and effect sizes with their ranges."""

    a: str
    b: str
    t: iv.IntervalBounds
    bootstrap: iv.IntervalBounds
    dz: iv.EffectSize
    superiority: iv.Share
    counts: iv.WinTieLoss


@dataclass(frozen=True)
class MeasureIntervals:
    """Every system's and pair's intervals on one measure."""

    ci: float
    resamples: int
    seed: int
    systems: dict[str, SystemInterval]
    pairs: dict[tuple[str, str], PairInterval]


def query_signs(ca: Column, which_a: str, cb: Column, which_b: str, exact: bool) -> np.ndarray:
    """Per query, the sign of A's *which_a* value minus B's *which_b* value: exact in exact mode.

    Float mode: the sign of the difference snapped to :data:`tieaware.runs.significance.GRID`
    (as the tests see it).  Exact mode: the float's sign where it is clearly
    away from 0, else the exact difference's.
    """
    rough = sig.snap(ca.floats(which_a) - cb.floats(which_b))
    out = np.sign(rough).astype(np.int64)
    if exact:
        x, y = getattr(ca, which_a), getattr(cb, which_b)
        for q in np.flatnonzero(np.abs(ca.floats(which_a) - cb.floats(which_b)) <= 1e-9).tolist():
            if isinstance(x[q], Fraction) and isinstance(y[q], Fraction):
                out[q] = (x[q] > y[q]) - (x[q] < y[q])  # most near-zero differences are equal Fractions
            else:
                out[q] = sign_near(lambda: difference(x[q], y[q]), 0.0)
    return out


def measure_intervals(
    cols: Mapping[str, Column],
    pairs: Sequence[tuple[str, str]],
    *,
    ci: float,
    resamples: int,
    seed: int,
    limit: int,
    exact: bool,
) -> MeasureIntervals:
    """The intervals of every system and pair of one measure (*cols*: {system: its column}, in board order)."""
    names = list(cols)
    n = len(next(iter(cols.values())).expected)
    boot = iv.Resamples(n, resamples, seed)
    # one exact resampled sum per system and kind (expected, worst, best): pairs and ranks are their differences
    X = np.column_stack([cols[s].floats(k) for s in names for k in ("expected", "worst", "best")])
    sums, k = boot.sums(sig.snap(X))
    scale = n * 2.0**k
    column = {(s, kind): sums[:, 3 * i + j] for i, s in enumerate(names) for j, kind in enumerate(("expected", "worst", "best"))}
    ranks = iv.rank_intervals(
        *(np.column_stack([column[(s, kind)] for s in names]) for kind in ("expected", "worst", "best")), ci
    )
    systems = {}
    for i, s in enumerate(names):
        c = cols[s]
        e, lo, hi = (sig.snap(c.floats(kind)) for kind in ("expected", "worst", "best"))
        systems[s] = SystemInterval(
            system=s,
            t=iv.t_interval_bounds(e, lo, hi, ci, limit=limit),
            bootstrap=iv.bootstrap_bounds(*(column[(s, kind)] / scale for kind in ("expected", "worst", "best")), ci),
            rank_topics=ranks.topics[i],
            rank_both=ranks.both[i],
        )
    out = {}
    for a, b in pairs:
        ca, cb = cols[a], cols[b]
        e = sig.snap(ca.floats("expected") - cb.floats("expected"))
        lo = sig.snap(ca.floats("worst") - cb.floats("best"))
        hi = sig.snap(ca.floats("best") - cb.floats("worst"))
        supports = pair_supports(ca, cb, limit)
        signs = [query_signs(ca, x, cb, y, exact) for x, y in (("expected", "expected"), ("worst", "best"), ("best", "worst"))]
        zero = None if supports is None else [bool(np.any(s.values == 0)) for s in supports]
        counts = iv.win_tie_loss(*signs, zero=zero)
        share = iv.superiority(*signs)
        if supports is not None:  # every per-query distribution known: the expectations over tie-breakings
            wins, ties, losses = iv.expected_counts(supports)
            counts = replace(counts, expected=(wins, ties, losses))
            share = replace(share, mean=(wins + ties / 2) / n)
        out[(a, b)] = PairInterval(
            a=a,
            b=b,
            t=iv.t_interval_bounds(e, lo, hi, ci, limit=limit),
            bootstrap=iv.bootstrap_bounds(
                (column[(a, "expected")] - column[(b, "expected")]) / scale,
                (column[(a, "worst")] - column[(b, "best")]) / scale,
                (column[(a, "best")] - column[(b, "worst")]) / scale,
                ci,
            ),
            dz=iv.cohens_dz(e, lo, hi, supports=supports, limit=limit),
            superiority=share,
            counts=counts,
        )
    return MeasureIntervals(ci=ci, resamples=resamples, seed=seed, systems=systems, pairs=out)

