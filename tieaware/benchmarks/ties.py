"""``tieaware.ties`` on a score matrix against ``tieaware.evaluate_matrix`` on the same data.

The batch is the one of the metrics benchmark: 10,000 queries × 1,000
candidates of float16 scores (uniform in [0, 1): most rows hold ties), about
2% of the cells relevant with grades 1-3.  Timed, alternately in this
process (least CPU time of the repeats):

- ``tieaware.evaluate_matrix(scores, labels, "nDCG@10 RR@10 R@100")``, the
  tie-aware values (float), and with ``spread=True`` (worst and best too,
  which the cost reports);
- ``tieaware.ties(scores)``: the census and the precision forensics alone;
- ``tieaware.ties(scores, labels, measures=..., exact=False)``: the census,
  the forensics and the cost (expected, worst and best over tie-breakings).

Target: the census and forensics in at most 2x evaluate_matrix's time;
the full report is printed against evaluate_matrix with and without its
spread (the cost is that spread, plus the census).
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["run", "TARGET_RATIO", "MEASURES"]

TARGET_RATIO = 2.0
MEASURES = "nDCG@10 RR@10 R@100"


def _cpu(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def run(quick: bool = False) -> str:
    """Time ties() against evaluate_matrix(); return the printable report."""
    import tieaware
    from tieaware.benchmarks.metrics import batch

    rows = 1000 if quick else 10_000
    repeats = 2 if quick else 3
    scores, labels = batch(rows)
    tieaware.ties(scores[:10], labels[:10], measures=MEASURES, exact=False)  # imports, outside the timing
    base, spread, census_only, full = [], [], [], []
    for _ in range(repeats):
        base.append(_cpu(tieaware.evaluate_matrix, scores, labels, MEASURES))
        spread.append(_cpu(tieaware.evaluate_matrix, scores, labels, MEASURES, spread=True))
        census_only.append(_cpu(tieaware.ties, scores))
        full.append(_cpu(tieaware.ties, scores, labels, measures=MEASURES, exact=False))
    bw, bc, _ = min(base, key=lambda t: t[1])
    cw, cc, rep = min(census_only, key=lambda t: t[1])
    fw, fc, _ = min(full, key=lambda t: t[1])
    sw, sc, _ = min(spread, key=lambda t: t[1])
    ratio = cc / bc
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    c = rep.census
    return (
        f"## tieaware.ties vs evaluate_matrix ({rows:,} × 1,000 float16 scores, {MEASURES})\n"
        f"{c.total_groups:,} tie groups, {c.total_tied:,} tied documents; least CPU of {repeats} alternating runs\n"
        f"evaluate_matrix (tie-aware values):            {bw:.3f} s wall, {bc:.3f} s CPU\n"
        f"evaluate_matrix(spread=True) (and worst, best): {sw:.3f} s wall, {sc:.3f} s CPU ({sc / bc:.2f}x)\n"
        f"ties(scores) (census and formats):             {cw:.3f} s wall, {cc:.3f} s CPU ({ratio:.2f}x)\n"
        f"ties(scores, labels) (census, formats, cost):  {fw:.3f} s wall, {fc:.3f} s CPU "
        f"({fc / bc:.2f}x evaluate_matrix, {fc / sc:.2f}x with spread)\n"
        f"target, census and formats at most {TARGET_RATIO:g}x evaluate_matrix (CPU): {verdict} ({ratio:.2f}x)"
    )
