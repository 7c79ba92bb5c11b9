"""The cost of ``tieaware eval --spread`` relative to plain ``tieaware eval``.

The run is the measures benchmark's synthetic run (50 queries × 1,000
documents, scores 0..20, so about 21 tie groups of about 50 documents per
query), written to TREC files.  Both commands run end to end through the
CLI (reading, evaluating tie-aware and in trec_eval's order, printing to a
discarded buffer), in float mode and in exact mode, alternately, and the
least time of the repeats is kept.  Target: --spread costs at most 2× plain
eval in float mode.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from collections.abc import Sequence

from tabulate import tabulate

from tieaware.benchmarks.measures import Query, synthetic_run

__all__ = ["run", "MEASURES", "TARGET_RATIO"]

#: eval's default measures (no -m), as a user runs it.
MEASURES = "P@5 P@10 R@10 F1@10 AP RR nDCG@10 nDCG"
TARGET_RATIO = 2.0


def _write(queries: Sequence[Query], folder: str) -> tuple[str, str]:
    qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for i, q in enumerate(queries):
            for rank, (docno, score, label) in enumerate(zip(q.docnos, q.scores, q.labels), 1):
                fq.write(f"q{i} 0 {docno} {label}\n")
                fr.write(f"q{i} Q0 {docno} {rank} {score} synthetic\n")
    return qrels, run


def _time(argv: list[str]) -> tuple[float, float]:
    from tieaware.cli import main

    start_wall, start_cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    if code != 0:
        raise RuntimeError(f"tieaware {' '.join(argv)} exited {code}")
    return time.perf_counter() - start_wall, time.process_time() - start_cpu


def run(quick: bool = False) -> str:
    """Time plain eval and eval --spread, float and exact; return the printable report."""
    n_queries = 10 if quick else 50
    repeats = 1 if quick else 3
    queries = synthetic_run(n_queries, 1000)
    exact_queries = min(n_queries, 10)  # exact --spread takes seconds per query: 10 show the ratio
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        qrels, run_file = _write(queries, folder)
        os.mkdir(os.path.join(folder, "exact"))
        files = {"--float": (qrels, run_file), "exact": _write(queries[:exact_queries], os.path.join(folder, "exact"))}
        for mode in (["--float"], []):
            base = ["eval", *files[mode[0] if mode else "exact"], *mode]
            plain, spread = [], []
            # Exact --spread takes tens of seconds at this size: once is enough to see the ratio.
            for _ in range(repeats if mode else 1):  # alternate, so that load changes hit both alike
                plain.append(_time(base))
                spread.append(_time(base + ["--spread"]))
            (pw, pc), (sw, sc) = min(plain, key=lambda t: t[1]), min(spread, key=lambda t: t[1])
            rows.append(
                [
                    f"float, {n_queries} q" if mode else f"exact, {exact_queries} q",
                    f"{pw:.2f}",
                    f"{pc:.2f}",
                    f"{sw:.2f}",
                    f"{sc:.2f}",
                    f"{sc / pc:.2f}",
                ]
            )
    table = tabulate(
        rows,
        headers=["mode", "eval wall s", "eval CPU s", "--spread wall s", "--spread CPU s", "ratio (CPU)"],
        stralign="right",
    )
    float_ratio = float(rows[0][-1])
    verdict = "met" if float_ratio <= TARGET_RATIO else "NOT met"
    return (
        f"## eval --spread vs plain eval ({n_queries} queries × 1,000 documents, heavy ties)\n"
        f"measures: {MEASURES}; end to end through the CLI (read, evaluate tie-aware and in trec_eval order, print); "
        f"least of {repeats} alternating runs in float mode ({n_queries} queries), one in exact mode ({exact_queries} queries)\n{table}\n"
        f"target, --spread at most {TARGET_RATIO:g}x plain eval in float mode (by CPU time): {verdict} ({float_ratio:.2f}x)"
    )
