"""The leaderboard as a matplotlib figure: each system's expected mean, its range over tie-breakings, its rank interval."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import to_float

__all__ = ["plot"]


def plot(c: Any, path: Optional[str], measure: Optional[str]) -> Any:
    """*c* (a SystemsComparison) on one axis per measure (or *measure* alone), saved to *path* if given."""
    try:
        import matplotlib

        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise TieawareError("plots need matplotlib, which is not installed: pip install 'tieaware[plots]'") from None
    chosen = list(c.measures) if measure is None else [measure]
    for m in chosen:
        if m not in c.standings:
            raise bad("measure", m, f"must be one of {', '.join(c.measures)}")
    fig, axes = plt.subplots(1, len(chosen), figsize=(5.5 * len(chosen), 0.55 * len(c.systems) + 2.2), squeeze=False)
    for ax, m in zip(axes[0], chosen):
        rows = c.standings[m][::-1]
        y = np.arange(len(rows))
        mean = np.array([to_float(s.mean) for s in rows])
        lo = np.array([to_float(s.min_mean) for s in rows])
        hi = np.array([to_float(s.max_mean) for s in rows])
        got = c.intervals.get(m)
        if got is not None:  # the t interval at the expected values, and its reach over every tie-breaking
            t = [got.systems[s.system].t for s in rows]
            ax.hlines(y, [b.low for b in t], [b.high for b in t], color="0.55", linewidth=1,
                      label=f"{got.ci:g}% t interval over tie-breakings")
            ax.hlines(y, [b.expected[0] for b in t], [b.expected[1] for b in t], color="tab:blue", linewidth=2,
                      label=f"{got.ci:g}% t interval at the expected values")
        ax.hlines(y, lo, hi, color="tab:blue", linewidth=4, alpha=0.35, label="range over tie-breakings")
        ax.plot(mean, y, "o", color="tab:blue", label="expected mean")
        ax.set_yticks(y)
        ax.set_yticklabels([s.system for s in rows])
        for yy, s, h in zip(y, rows, hi):
            span = f"{s.best_rank}" if s.best_rank == s.worst_rank else f"{s.best_rank}–{s.worst_rank}"
            if got is not None:  # the rank intervals over topics and over both, beside the one over ties
                x = got.systems[s.system]
                h = max(h, x.t.high)
                span += f"; topics {x.rank_topics[0]}–{x.rank_topics[1]}; both {x.rank_both[0]}–{x.rank_both[1]}"
            ax.annotate(f"rank {span}", (h, yy), xytext=(6, -3), textcoords="offset points", fontsize=8)
        ax.set_xlabel(m)
        ax.set_title(f"{m}: means, tie ranges, rank intervals", fontsize=10)
        ax.margins(x=0.25)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14 - 0.6 / (len(rows) + 1)), ncol=2, fontsize=7, frameon=False)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig
