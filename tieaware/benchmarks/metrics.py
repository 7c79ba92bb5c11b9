"""tieaware.metrics against a plain numpy argsort + gather of the same measures (tie-oblivious), and its import time.

The batch is what an embedding evaluation holds: 10,000 queries × 1,000
candidates of float16 scores (uniform in [0, 1): float16 has about 1,000
values there, so most rows hold ties, several at the cut), about 2% of the
cells relevant with grades 1-3.  The measures are nDCG@10, RR@10 and R@100.

The baseline is the code such an evaluation runs today: one full
``np.argsort`` of each row, the labels gathered in that order, then nDCG@10
(linear gain, log2 discount, ideal from the row's sorted labels), RR@10 and
R@100 on that one ordering.  Ours is ``tieaware.metrics.evaluate(scores,
labels, "nDCG@10 RR@10 R@100")``: the expected values over every ordering
the ties allow.  Both run alternately in this process; the least CPU time of
the repeats is kept.  Target: at most 1.2x the baseline.

The import time is ``import tieaware.metrics`` in a fresh interpreter (numpy
included), beside ``import numpy`` alone; the least of five.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import numpy as np

__all__ = ["run", "TARGET_RATIO", "MEASURES", "baseline", "batch"]

TARGET_RATIO = 1.2
MEASURES = "nDCG@10 RR@10 R@100"


def batch(rows: int, width: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(float16 scores, int8 grades) of the benchmark."""
    rng = np.random.default_rng(seed)
    scores = rng.random((rows, width), dtype=np.float32).astype(np.float16)
    labels = (rng.integers(1, 4, (rows, width)) * (rng.random((rows, width)) < 0.02)).astype(np.int8)
    return scores, labels


def baseline(scores: np.ndarray, labels: np.ndarray) -> dict[str, np.ndarray]:
    """nDCG@10, RR@10 and R@100 of the argsort order (ties broken as the sort leaves them)."""
    order = np.argsort(-scores, axis=1)[:, :100]
    gains = np.take_along_axis(labels, order, axis=1).astype(np.float64)
    discount = 1.0 / np.log2(np.arange(2, 12))
    dcg = gains[:, :10] @ discount
    ideal = np.sort(labels, axis=1)[:, ::-1][:, :10].astype(np.float64) @ discount
    relevant = gains > 0
    first = np.argmax(relevant[:, :10], axis=1)
    num_rel = np.count_nonzero(labels > 0, axis=1)
    return {
        "nDCG@10": np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0),
        "RR@10": np.where(relevant[:, :10].any(axis=1), 1.0 / (first + 1), 0.0),
        "R@100": np.divide(relevant.sum(axis=1), num_rel, out=np.zeros(len(gains)), where=num_rel > 0),
    }


def _timed(fn: Any, *args: Any) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def _import_time(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) for _ in range(5)]
    return min(runs)


def run(quick: bool = False) -> str:
    """Time tieaware.metrics against the baseline; return the printable report."""
    from tieaware import metrics

    rows = 1000 if quick else 10_000
    repeats = 2 if quick else 5
    scores, labels = batch(rows)
    tied_rows = int(np.count_nonzero((np.diff(np.sort(scores, axis=1), axis=1) == 0).any(axis=1)))
    metrics.evaluate(scores[:10], labels[:10], MEASURES)  # the kernels' tables and array_api_compat loaded once
    ours, theirs = [], []
    for _ in range(repeats):  # alternate, so that load changes hit both alike
        theirs.append(_timed(baseline, scores, labels))
        ours.append(_timed(metrics.evaluate, scores, labels, MEASURES))
    bw, bc, base = min(theirs, key=lambda t: t[1])
    ow, oc, got = min(ours, key=lambda t: t[1])
    ratio = oc / bc
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    gaps = ", ".join(f"{m} {float(np.mean(got[m]) - np.mean(base[m])):+.4f}" for m in base)
    imp, numpy_imp = _import_time("tieaware.metrics"), _import_time("numpy")
    return (
        f"## tieaware.metrics vs numpy argsort + gather ({rows:,} × 1,000 float16 scores, {MEASURES})\n"
        f"{tied_rows:,} of {rows:,} rows hold a tie; least CPU of {repeats} alternating runs\n"
        f"numpy argsort + gather (tie-oblivious): {bw:.3f} s wall, {bc:.3f} s CPU\n"
        f"tieaware.metrics.evaluate (tie-aware):  {ow:.3f} s wall, {oc:.3f} s CPU\n"
        f"mean tie-aware minus tie-oblivious: {gaps}\n"
        f"target, at most {TARGET_RATIO:g}x the baseline (CPU): {verdict} ({ratio:.2f}x)\n"
        f"import tieaware.metrics in a fresh interpreter: {imp:.3f} s (import numpy alone: {numpy_imp:.3f} s)"
    )
