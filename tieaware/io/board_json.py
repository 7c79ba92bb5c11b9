"""The leaderboard as JSON-ready data: every exact value as ``{"exact", "rational", "decimal", "float"}``."""

from __future__ import annotations

from typing import Any, Optional

from tieaware.model.exact import is_rational, to_decimal, to_exact_string, to_float
from tieaware.model.logsum import LogSum

__all__ = ["as_dict"]


def _value(value: Any, digits: int) -> Optional[dict[str, Any]]:
    if value is None:
        return None
    if isinstance(value, LogSum):  # the exact text needs sympy; its decimal and float as the sympy value prints them
        value = value.value()
    if isinstance(value, float):
        return {"decimal": to_decimal(value, digits), "float": value}
    return {"exact": to_exact_string(value), "rational": is_rational(value), "decimal": to_decimal(value, digits), "float": to_float(value)}


def as_dict(c: Any, digits: int) -> dict[str, Any]:
    """*c* (a SystemsComparison) as plain data; p-values stay floats."""
    out: dict[str, Any] = {
        "systems": list(c.systems),
        "queries": c.queries,
        "skipped": list(c.skipped),
        "exact": c.exact,
        "test": c.test,
        "alpha": c.alpha,
        "correction": c.correction,
        "baseline": c.baseline,
        "resamples": c.resamples if c.test in ("randomization", "bootstrap") else None,
        "seed": c.seed,
        "notes": list(c.notes),
        "baselines": list(c.baselines),
        "ci": c.ci,
        "ci_resamples": c.resamples if c.ci is not None else None,
        "measures": {},
    }
    for m in c.measures:
        out["measures"][m] = {
            "leaderboard": [
                {
                    "system": s.system,
                    "rank": s.rank,
                    "best_rank": s.best_rank,
                    "worst_rank": s.worst_rank,
                    "mean": _value(s.mean, digits),
                    "min_mean": _value(s.min_mean, digits),
                    "max_mean": _value(s.max_mean, digits),
                }
                for s in c.standings[m]
            ],
            "pairs": [
                {
                    "a": r.a,
                    "b": r.b,
                    "mean_a": _value(r.mean_a, digits),
                    "mean_b": _value(r.mean_b, digits),
                    "expected_difference": _value(r.expected_difference, digits),
                    "min_difference": _value(r.min_difference, digits),
                    "max_difference": _value(r.max_difference, digits),
                    "order": r.order,
                    "p_value": r.p_value,
                    "p_min": r.p_min,
                    "p_max": r.p_max,
                    "bounds": r.bounds,
                    "p_adjusted": r.p_adjusted,
                    "p_adjusted_min": r.p_adjusted_min,
                    "p_adjusted_max": r.p_adjusted_max,
                    "better": r.better,
                    "flip_probability": _value(r.flip_probability, digits),
                    "flip_method": r.flip_method,
                    "flip_samples": r.flip_samples,
                    "flip_interval": None if r.flip_interval is None else list(r.flip_interval),
                    "robust": r.robust,
                    "outcomes": r.outcomes,
                }
                for r in c.pairs[m]
            ],
        }
        if m in c.intervals:
            out["measures"][m]["intervals"] = _intervals(c.intervals[m])
    return out


def _num(x: float) -> Any:
    """A float for JSON: "inf" or "-inf" for infinities (d_z of a constant difference), None for nan (one query)."""
    if x != x:
        return None
    return x if abs(x) != float("inf") else ("inf" if x > 0 else "-inf")


def _bounds(b: Any) -> dict[str, Any]:
    return {"expected": [_num(v) for v in b.expected], "low": _num(b.low), "high": _num(b.high),
            "bounds": "exact" if b.exact else "certified"}


def _share(share: Any) -> dict[str, Any]:
    return {k: {"exact": str(v), "float": float(v)} for k, v in (("value", share.value), ("low", share.low), ("high", share.high))}


def _intervals(got: Any) -> dict[str, Any]:
    """A measure's intervals (tieaware.runs.board_intervals.MeasureIntervals) as plain data; floats but the shares."""
    return {
        "ci": got.ci,
        "systems": [
            {"system": x.system, "t": _bounds(x.t), "bootstrap": _bounds(x.bootstrap),
             "rank_topics": list(x.rank_topics), "rank_both": list(x.rank_both)}
            for x in got.systems.values()
        ],
        "pairs": [
            {
                "a": x.a, "b": x.b, "t": _bounds(x.t), "bootstrap": _bounds(x.bootstrap),
                "d_z": {"value": _num(x.dz.value), "low": _num(x.dz.low), "high": _num(x.dz.high), "bounds": "exact" if x.dz.exact else "certified"},
                "superiority": _share(x.superiority),
                "wins": x.counts.wins, "ties": x.counts.ties, "losses": x.counts.losses,
                "wins_range": list(x.counts.wins_range), "ties_range": list(x.counts.ties_range),
                "losses_range": list(x.counts.losses_range),
                "expected_counts": None if x.counts.expected is None else [
                    {"exact": str(v), "float": float(v)} for v in x.counts.expected],
                "superiority_expected": None if x.superiority.mean is None else {
                    "exact": str(x.superiority.mean), "float": float(x.superiority.mean)},
            }
            for x in got.pairs.values()
        ],
    }
