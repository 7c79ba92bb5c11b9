"""The leaderboard's standings: each system's expected mean, its range over tie-breakings and its rank interval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tieaware.model.exact import Exact
from tieaware.runs.board_columns import Column, sign_near
from tieaware.runs.comparison import minus

__all__ = ["Standing", "rank_systems"]


@dataclass(frozen=True)
class Standing:
    """One system on one measure: its expected mean, its range over tie-breakings, its rank interval.

    Exact values are Fractions, or for DCG and nDCG exact sympy values
    (:func:`compare_systems`).  :func:`compare_prepared` and the command
    keep those as :class:`tieaware.model.logsum.LogSum` vectors (``.value()``
    is the sympy value; ``to_decimal`` and ``float()`` print them without it).
    """

    system: str
    mean: Exact
    #: The smallest and largest mean over every tie-breaking of this system.
    min_mean: Exact
    max_mean: Exact
    #: 1 + the number of systems with a larger expected mean (ties share a rank).
    rank: int
    #: The best and worst rank over every tie-breaking of every system.
    best_rank: int
    worst_rank: int


def rank_systems(names: Sequence[str], cols: Mapping[str, Column]) -> list[Standing]:
    """Every system's :class:`Standing` on one measure (*cols*: its :class:`Column` per system), best first."""
    mean = {s: cols[s].mean("expected") for s in names}
    low = {s: cols[s].mean("worst") for s in names}
    high = {s: cols[s].mean("best") for s in names}
    fmean = {s: float(np.mean(cols[s].floats("expected"))) for s in names}
    flow = {s: float(np.mean(cols[s].floats("worst"))) for s in names}
    fhigh = {s: float(np.mean(cols[s].floats("best"))) for s in names}

    def above(x: dict, fx: dict, t: str, y: dict, fy: dict, s: str) -> bool:
        return sign_near(lambda: minus(x[t], y[s]), fx[t] - fy[s]) > 0

    rows = []
    for s in names:
        others = [t for t in names if t != s]
        rows.append(
            Standing(
                system=s,
                mean=mean[s],
                min_mean=low[s],
                max_mean=high[s],
                rank=1 + sum(above(mean, fmean, t, mean, fmean, s) for t in others),
                best_rank=1 + sum(above(low, flow, t, high, fhigh, s) for t in others),
                worst_rank=1 + sum(above(high, fhigh, t, low, flow, s) for t in others),
            )
        )
    return sorted(rows, key=lambda r: (r.rank, names.index(r.system)))
