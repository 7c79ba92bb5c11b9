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
    return out
