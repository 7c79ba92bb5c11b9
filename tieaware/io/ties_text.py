"""``tieaware ties``' outputs: the terminal table, JSON and the plot of a :class:`tieaware.runs.ties.TieReport`.

The report is read through its public fields only (this room imports no
engine); exact values print as decimals (:func:`tieaware.to_decimal`).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_decimal

__all__ = ["render", "as_json", "plot", "DIGITS"]

#: Decimal places of the table's values.
DIGITS = 4


def _d(x: Any, digits: int = DIGITS) -> str:
    return "-" if x is None else to_decimal(x, digits)


def _pct(x: Any) -> str:
    return f"{100 * float(x):.1f}%"


def render(report: Any, digits: int = DIGITS) -> str:
    """The report as the terminal table: the census, the formats, the ties left per format, the cost."""
    c = report.census
    docs = sum(c.documents.values())
    lines = [
        f"{len(c.queries)} queries, {docs} documents: {c.total_groups} tie groups, {c.total_tied} tied documents "
        f"({_pct(c.total_tied / docs if docs else 0)}), largest group {max(c.largest_group.values(), default=0)}",
    ]
    lines.append("tied share of the top k: " + ", ".join(f"k={k} {_pct(v)}" for k, v in c.overall_tied_at_k.items()))
    if c.total_groups:
        lines.append("group sizes: " + ", ".join(f"{s}: {n}" for s, n in c.size_counts.items()))
        lines.append("")
        lines.append("format     tied docs holding it   narrowest (groups, docs)   ties left once rounded (groups, docs)")
        narrow = c.narrowest_counts
        for fmt, held in c.representable.items():
            g, t = narrow.get(fmt, (0, 0))
            rg, rt = c.rounded[fmt]
            lines.append(f"{fmt:<10} {held:>8} ({_pct(held / c.total_tied):>6})    {g:>8}, {t:<10}       {rg:>8}, {rt}")
        for fmt in sorted(f for f in narrow if f not in c.representable):
            g, t = narrow[fmt]
            lines.append(f"{fmt:<10} {'':>19}    {g:>8}, {t}")
        share = c.representable.get("bfloat16", 0) / c.total_tied
        if share >= 0.5:
            lines.append(
                f"{_pct(share)} of tied documents carry bfloat16-representable scores: probably precision artefacts, "
                "unless the scores are coarse by design (small whole numbers are representable too)"
            )
    if report.separated is not None:
        lines.append(
            f"the reference scores separate {_pct(report.separated)} of the tie groups ({_pct(report.fully_separated)} completely)"
        )
    if report.cost:
        lines.append("")
        head = ["measure", "tie-aware", "worst", "best"]
        if report.tie_break:
            head.append(report.tie_break)
        if any(mc.reference is not None for mc in report.cost.values()):
            head.append("reference")
        head.append("moved most (query: best - worst)")
        rows = []
        for name, mc in report.cost.items():
            row = [name, _d(mc.expected, digits), _d(mc.worst, digits), _d(mc.best, digits)]
            if report.tie_break:
                row.append(_d(mc.oblivious, digits))
            if "reference" in head:
                row.append(_d(mc.reference, digits))
            row.append(", ".join(f"{q}: {_d(r, digits)}" for q, r in mc.most_moved[:3]) or "-")
            rows.append(row)
        widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
        for r in [head, *rows]:
            lines.append("  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip())
    if getattr(report, "verdict", None) is not None:
        lines.append("")
        lines.append(
            "verdict against the second system no longer depends on ties from: "
            + ", ".join(f"{m} {fmt or 'no format (not even float64)'}" for m, fmt in report.verdict.items())
        )
    for note in report.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def as_json(report: Any) -> str:
    """The report as JSON (:meth:`tieaware.runs.ties.TieReport.as_dict`)."""
    return json.dumps(report.as_dict(), indent=2)


def plot(report: Any, path: Optional[str]) -> Any:
    """Two panels: the distribution of tie group sizes, and each query's range (best - worst) per measure."""
    try:
        import matplotlib

        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise TieawareError("plots need matplotlib, which is not installed: pip install 'tieaware[plots]'") from None
    c = report.census
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    sizes = c.size_counts
    left.bar([str(s) for s in sizes], list(sizes.values()), color="tab:blue")
    left.set_xlabel("tie group size")
    left.set_ylabel("tie groups")
    left.set_title(f"{c.total_groups} tie groups, {c.total_tied} tied documents")
    for name, mc in report.cost.items():
        ranges = sorted((float(v[2]) - float(v[1]) for v in mc.per_query.values()), reverse=True)
        right.plot(range(1, len(ranges) + 1), ranges, label=name)
    right.set_xlabel("queries, by range")
    right.set_ylabel("best - worst over tie-breakings")
    right.set_title("per-query ranges" if report.cost else "no labels: no ranges")
    if report.cost:
        right.legend()
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
        plt.close(fig)
    return fig
