"""The leaderboard as rows: CSV, PyTerrier's DataFrame shape, and the long per-query form.

Each writer reads a :class:`tieaware.runs.leaderboard.SystemsComparison`
through its attributes (io imports no room above the model).

- :func:`records`: one dict per system and measure (``kind`` = ``system``),
  then per pair and measure (``kind`` = ``pair``), every number a float
  (exact shares also as ``p/q`` text): what ``--format csv`` writes.
- :func:`pyterrier_frame`: PyTerrier's ``Experiment`` shape with a baseline,
  long: ``name, measure, value, +, -, p-value, corrected p-value``.
- :func:`per_query_frame`: ``name, qid, measure, value, min, max``, one row
  per system, query and measure (PyTerrier's ``perquery=True`` columns, with
  each query's smallest and largest value over tie-breakings).
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Optional

import numpy as np

from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float

__all__ = ["records", "csv_text", "pyterrier_frame", "per_query_frame", "PYTERRIER_COLUMNS", "PER_QUERY_COLUMNS"]

PYTERRIER_COLUMNS = ("name", "measure", "value", "+", "-", "p-value", "corrected p-value")
PER_QUERY_COLUMNS = ("name", "qid", "measure", "value", "min", "max")
#: Snapping of per-query differences before their sign is read (tieaware.runs.significance.GRID).
_GRID = 2.0**40


def _f(value: Any) -> Optional[float]:
    return None if value is None else to_float(value)


def _interval(prefix: str, b: Any) -> dict[str, Any]:
    """An IntervalBounds as columns: the interval at the expected values, its ends over ties, exact or certified."""
    return {
        f"{prefix} low": b.expected[0],
        f"{prefix} high": b.expected[1],
        f"{prefix} low (ties)": b.low,
        f"{prefix} high (ties)": b.high,
        f"{prefix} bounds": "exact" if b.exact else "certified",
    }


def records(c: Any, digits: int = 4) -> list[dict[str, Any]]:
    """Every system's and pair's values, one flat dict each (floats; see the module docstring)."""
    out: list[dict[str, Any]] = []
    for m in c.measures:
        got = c.intervals.get(m)
        for s in c.standings[m]:
            row: dict[str, Any] = {
                "kind": "system", "measure": m, "name": s.system, "other": "",
                "value": _f(s.mean), "min": _f(s.min_mean), "max": _f(s.max_mean),
                "rank": s.rank, "rank best (ties)": s.best_rank, "rank worst (ties)": s.worst_rank,
            }
            if got is not None:
                x = got.systems[s.system]
                row.update(_interval("t", x.t))
                row.update(_interval("bootstrap", x.bootstrap))
                row.update({"rank best (topics)": x.rank_topics[0], "rank worst (topics)": x.rank_topics[1],
                            "rank best (both)": x.rank_both[0], "rank worst (both)": x.rank_both[1]})
            out.append(row)
        for r in c.pairs[m]:
            row = {
                "kind": "pair", "measure": m, "name": r.a, "other": r.b,
                "value": _f(r.expected_difference), "min": _f(r.min_difference), "max": _f(r.max_difference),
                "order": r.order, "test": r.test, "p-value": r.p_value, "p min": r.p_min, "p max": r.p_max,
                "p bounds": r.bounds, "corrected p-value": r.p_adjusted, "corrected p min": r.p_adjusted_min,
                "corrected p max": r.p_adjusted_max, "verdict": r.verdict, "robust": r.robust,
            }
            if got is not None:
                x = got.pairs[(r.a, r.b)]
                row.update(_interval("t", x.t))
                row.update(_interval("bootstrap", x.bootstrap))
                row.update({
                    "d_z": x.dz.value, "d_z low (ties)": x.dz.low, "d_z high (ties)": x.dz.high,
                    "d_z bounds": "exact" if x.dz.exact else "certified",
                    "superiority": float(x.superiority.value), "superiority exact": str(x.superiority.value),
                    "superiority low (ties)": str(x.superiority.low), "superiority high (ties)": str(x.superiority.high),
                    "wins": x.counts.wins, "ties": x.counts.ties, "losses": x.counts.losses,
                    "wins range": "{}-{}".format(*x.counts.wins_range), "ties range": "{}-{}".format(*x.counts.ties_range),
                    "losses range": "{}-{}".format(*x.counts.losses_range),
                })
                if x.counts.expected is not None:  # the expectations over tie-breakings (distributions known)
                    row.update({"superiority expected": str(x.superiority.mean),
                                **{f"{k} expected": str(v) for k, v in zip(("wins", "ties", "losses"), x.counts.expected)}})
            out.append(row)
    return out


def csv_text(c: Any, digits: int = 4) -> str:
    """:func:`records` as CSV (a header of every column any row has; empty cells where a row has none)."""
    rows = records(c, digits)
    header: dict[str, None] = {}
    for row in rows:
        header.update(dict.fromkeys(row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return buffer.getvalue().rstrip("\n")


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise TieawareError("DataFrames need pandas, which is not installed: pip install 'tieaware[pandas]'") from None
    return pandas


def _counts(c: Any, m: str, a: str, b: str) -> tuple[int, int]:
    """(queries where a's expected value is above b's, below): from the exact counts when computed."""
    got = c.intervals.get(m)
    if got is not None:
        if (a, b) in got.pairs:
            k = got.pairs[(a, b)].counts
            return k.wins, k.losses
        if (b, a) in got.pairs:
            k = got.pairs[(b, a)].counts
            return k.losses, k.wins
    d = np.round((c.per_query[m][a][0] - c.per_query[m][b][0]) * _GRID)
    return int((d > 0).sum()), int((d < 0).sum())


def _pair(c: Any, m: str, a: str, b: str) -> Any:
    for r in c.pairs[m]:
        if {r.a, r.b} == {a, b}:
            return r
    return None


def pyterrier_frame(c: Any) -> Any:
    """PyTerrier's shape (see the module docstring); a ``baseline`` column with baselines; then min, max, p min, p max."""
    pd = _pandas()
    rows = []
    for b in c.baselines or (None,):
        for s in c.systems:
            for m in c.measures:
                st = next(x for x in c.standings[m] if x.system == s)
                row: dict[str, Any] = {"name": s, "measure": m, "value": _f(st.mean)}
                plus = minus = p = p_adj = p_min = p_max = math.nan
                if b is not None and s != b:
                    plus, minus = _counts(c, m, s, b)
                    r = _pair(c, m, s, b)
                    if r is not None and r.test is not None:
                        p, p_adj, p_min, p_max = r.p_value, r.p_adjusted, r.p_min, r.p_max
                row.update({"+": plus, "-": minus, "p-value": p, "corrected p-value": p_adj})
                if c.baselines:
                    row["baseline"] = b
                row.update({"min": _f(st.min_mean), "max": _f(st.max_mean), "p min": p_min, "p max": p_max})
                rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ("+", "-"):
        frame[column] = frame[column].astype("Int64") if frame[column].notna().any() else frame[column]
    return frame


def per_query_frame(c: Any) -> Any:
    """``name, qid, measure, value, min, max`` (floats), systems in order, then queries, then measures."""
    pd = _pandas()
    n = len(c.query_ids)
    parts = []
    for s in c.systems:
        for m in c.measures:
            e, lo, hi = c.per_query[m][s]
            parts.append(pd.DataFrame({"name": [s] * n, "qid": list(c.query_ids), "measure": [m] * n,
                                       "value": np.asarray(e), "min": np.asarray(lo), "max": np.asarray(hi)}))
    frame = pd.concat(parts, ignore_index=True)
    order = {m: i for i, m in enumerate(c.measures)}
    key = frame["measure"].map(order)
    frame = frame.assign(_m=key, _s=frame["name"].map({s: i for i, s in enumerate(c.systems)}),
                         _q=np.tile(np.arange(n), len(c.systems) * len(c.measures)))
    return frame.sort_values(["_s", "_q", "_m"], kind="stable").drop(columns=["_m", "_s", "_q"]).reset_index(drop=True)
