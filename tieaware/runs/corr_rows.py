"""Rank correlation of two runs query by query: each shared query's Kendall τ or τ_AP, over every tie-breaking.

:func:`query_rows` reads two run files side by side
(:func:`tieaware.runs.paired_runs.paired_files`, in --jobs processes) and
gives one :class:`CorrRow` per shared query; :func:`correlation_row`
computes one row from two rankings (also for two columns of a systems
table).  The values are fast's (:mod:`tieaware.fast.correlation`).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from tieaware.model.errors import TieawareError
from tieaware.runs.paired_runs import paired_files, reuse_freed_memory
from tieaware.runs.stream import check_jobs

__all__ = ["CorrRow", "correlation_row", "query_rows"]


class CorrRow(NamedTuple):
    """One row: a query (or two columns), its item count, the coefficient (None when undefined) and why, the spread."""

    names: tuple[str, ...]  # qid, or (x column, y column)
    items: int
    value: Any  # None when undefined
    reason: Optional[str]
    spread: Optional[tuple[Any, Any, Any, Any]]  # E, min, max, variance


def correlation_row(names: tuple[str, ...], x: list[Any], y: list[Any], *, exact: bool, measure: str, variant: str, spread: bool) -> CorrRow:
    """The coefficient (``measure`` "tau" or "tauap", its *variant*) of rankings x and y, with its spread if asked."""
    from tieaware.fast import correlation as layer

    items = sum(len(g) if isinstance(g, tuple) else 1 for g in x)
    if items < 2:
        return CorrRow(names, items, None, "fewer than 2 items", None)
    coefficient = "kendall_tau" if measure == "tau" else "tau_ap"
    try:
        value: Any = getattr(layer, coefficient)(x, y, variant, exact=exact)
        reason = None
    except TieawareError as exc:  # variant b over a ranking that is one tie group; tau_AP,a with a tied x
        value, reason = None, _reason(str(exc))
    shown = None
    if spread:
        low, high, _, _ = getattr(layer, f"{coefficient}_range")(x, y, exact=exact)
        shown = (
            getattr(layer, f"{coefficient}_expected")(x, y, exact=exact),
            low,
            high,
            getattr(layer, f"{coefficient}_variance")(x, y, exact=exact),
        )
    return CorrRow(names, items, value, reason, shown)


def _reason(message: str) -> str:
    if "one tie group" in message:
        return "a ranking is one tie group (variant b is 0/0)"
    if "untied" in message:
        return "x has ties (tau_AP,a takes x untied)"
    return message


def query_rows(
    run_a: Any, run_b: Any, *, exact: bool, measure: str, variant: str, spread: bool, docs: str, jobs: Optional[int]
) -> tuple[list[CorrRow], int, int]:
    """(each shared query's row, in no set order; queries only in A; queries only in B) of two run files.

    *docs*: "common" (the documents both runs retrieved) or "all" (a run's
    missing documents tied below its last).
    """
    # both runs read as columns, side by side or partitioned by query when large, in --jobs processes (as tieaware rbo reads them)
    reuse_freed_memory(run_a, run_b)
    check_jobs(jobs, "--jobs")
    return paired_files(run_a, run_b, _pair_rows, None, ((exact, measure, variant, spread, docs),), jobs)


def _pair_rows(ranked_a: dict, ranked_b: dict, settings: tuple) -> list[CorrRow]:
    """One partition's rows: each shared query's correlation (a worker's part of :func:`query_rows`)."""
    ((exact, measure, variant, spread, docs),) = settings
    rows = []
    for qid in ranked_a.keys() & ranked_b.keys():
        a, b = [list(g) for g in ranked_a[qid]], [list(g) for g in ranked_b[qid]]
        x, y = _documents(a, b, docs), _documents(b, a, docs)
        rows.append(correlation_row((qid,), x, y, exact=exact, measure=measure, variant=variant, spread=spread))
    return rows


def _documents(groups: list[list[str]], other: list[list[str]], docs: str) -> list[Any]:
    """One run's ranking over the documents chosen by --docs, groups as tuples."""
    mine = {d for g in groups for d in g}
    theirs = {d for g in other for d in g}
    if docs == "common":
        kept = [tuple(d for d in g if d in theirs) for g in groups]
    else:
        kept = [tuple(g) for g in groups]
        missing = sorted(theirs - mine)
        if missing:
            kept.append(tuple(missing))
    return [g[0] if len(g) == 1 else g for g in kept if g]
