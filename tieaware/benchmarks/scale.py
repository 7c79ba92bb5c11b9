"""Evaluation at MS MARCO scale: tieaware against trec_eval, pytrec_eval, ir_measures and ranx.

Two synthetic runs are written to a temporary directory (deterministic
seeds, numpy's PCG64, so the files are the same on every machine):

- **heavy ties**: 6,980 queries × 1,000 documents (MS MARCO dev's query
  count, TREC DL's depth), integer scores 0..20 (about 21 tie groups of ~50
  per query), binary qrels with 1..20 relevant documents retrieved per query
  plus one relevant document not retrieved;
- **graded**: 43 queries × 1,000 documents (TREC DL 2019's query count),
  scores with 3 decimals (few ties), about 200 judged documents per query
  with graded labels 0..3.

Each tool runs in its own fresh process, started through a small wrapper
that reports the wall time and the peak resident memory (``ru_maxrss`` of
the child) of the whole process, interpreter start-up, imports, file
reading and printing included.  Five measures are asked of every tool: AP,
nDCG@10, P@10, RR@10 (trec_eval's ``recip_rank`` has no cutoff, the others
cut at 10) and R@1000.

- ``tieaware float``: ``tieaware eval --float`` (tie-aware and trec_eval-order values);
- ``tieaware exact``: ``tieaware eval`` (exact values, printed as decimals);
- ``pytrec_eval``: ``parse_qrel``/``parse_run`` then ``RelevanceEvaluator.evaluate``;
- ``ir_measures``: ``read_trec_qrels``/``read_trec_run`` then ``calc_aggregate``;
- ``ranx``: ``Qrels.from_file``/``Run.from_file`` then ``evaluate`` (if installed;
  its first call compiles with numba, which is counted);
- ``trec_eval``: the C binary, if :func:`tieaware.testing.trec_eval_binary.locate` finds one.

The ratio column is each tool's wall time over pytrec_eval's, from the same
run.  ``--quick`` (used by the tests) shrinks both runs to a few queries.

>>> qrels, run = heavy_tie_files(queries=2, docs=5)
>>> len(run.splitlines()), run.splitlines()[0].split()[:3]
(10, ['q0', 'Q0', 'd0'])
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np
from tabulate import tabulate

__all__ = ["heavy_tie_files", "graded_files", "Timing", "time_tool", "run", "TOOLS"]

SEED_HEAVY = 6980
SEED_GRADED = 43
#: The five measures, in each tool's own names.
MEASURES = {
    "tieaware": "AP nDCG@10 P@10 RR@10 R@1000",
    "pytrec_eval": ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000"],
    "ir_measures": "AP nDCG@10 P@10 RR@10 R@1000",
    "ranx": ["map", "ndcg@10", "precision@10", "mrr@10", "recall@1000"],
    "trec_eval": ["-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "recip_rank", "-m", "recall.1000"],
}
TOOLS = ("tieaware float", "tieaware exact", "pytrec_eval", "ir_measures", "ranx", "trec_eval")


def _lines(qids: np.ndarray, docs: np.ndarray, middle: str, values: list[str], tail: str) -> str:
    return "".join(f"q{q} {middle} d{d} {v}{tail}\n" for q, d, v in zip(qids.tolist(), docs.tolist(), values))


def heavy_tie_files(queries: int = 6980, docs: int = 1000, seed: int = SEED_HEAVY) -> tuple[str, str]:
    """(qrels text, run text) of the heavy-tie run: scores 0..20, binary qrels."""
    rng = np.random.Generator(np.random.PCG64(seed))
    q = np.repeat(np.arange(queries), docs)
    d = np.tile(np.arange(docs), queries)
    score = rng.integers(0, 21, size=queries * docs)
    run = "".join(f"q{a} Q0 d{b} {i % docs + 1} {s} heavy\n" for i, (a, b, s) in enumerate(zip(q.tolist(), d.tolist(), score.tolist())))
    qrels = []
    for qi in range(queries):
        n_rel = int(rng.integers(1, 21))
        for doc in sorted(rng.choice(docs, size=min(n_rel, docs), replace=False).tolist()):
            qrels.append(f"q{qi} 0 d{doc} 1\n")
        qrels.append(f"q{qi} 0 unretrieved{qi} 1\n")
    return "".join(qrels), run


def graded_files(queries: int = 43, docs: int = 1000, seed: int = SEED_GRADED) -> tuple[str, str]:
    """(qrels text, run text) of the graded run: 3-decimal scores, ~200 judged documents per query, labels 0..3."""
    rng = np.random.Generator(np.random.PCG64(seed))
    run, qrels = [], []
    for qi in range(queries):
        scores = np.round(rng.normal(10, 3, size=docs), 3)
        for rank, doc in enumerate(np.argsort(-scores, kind="stable").tolist(), start=1):
            run.append(f"{1000 + qi} Q0 D{doc} {rank} {scores[doc]:.3f} graded\n")
        n_judged = min(200, docs)
        judged = rng.choice(docs + docs // 10, size=n_judged, replace=False)  # some judged documents are not retrieved
        labels = rng.choice(4, size=n_judged, p=[0.5, 0.25, 0.15, 0.1])
        for doc, label in sorted(zip(judged.tolist(), labels.tolist())):
            qrels.append(f"{1000 + qi} 0 D{doc} {label}\n")
    return "".join(qrels), "".join(run)


@dataclass(frozen=True)
class Timing:
    tool: str
    seconds: Optional[float]
    peak_mb: Optional[float]
    note: str = ""
    cpu: Optional[float] = None


_WRAPPER = """
import resource, subprocess, sys, time, json
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = usage.ru_maxrss / 1024
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": rss, "code": done.returncode, "err": done.stderr.decode()[-300:]}))
"""

_PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3].split(",")))
res = ev.evaluate(run)
for m in sys.argv[3].split(","):
    print(m, sum(v[m] for v in res.values()) / len(res))
"""

_IR_MEASURES = """
import sys, ir_measures
qrels = ir_measures.read_trec_qrels(sys.argv[1])
run = ir_measures.read_trec_run(sys.argv[2])
print(ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in sys.argv[3].split()], qrels, run))
"""

_RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, sys.argv[3].split(",")))
"""


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _command(tool: str, qrels: str, run_: str) -> Optional[list[str]]:
    py = sys.executable
    if tool == "tieaware float":
        return [py, "-m", "tieaware", "eval", qrels, run_, "-m", MEASURES["tieaware"], "--float"]
    if tool == "tieaware exact":
        return [py, "-m", "tieaware", "eval", qrels, run_, "-m", MEASURES["tieaware"]]
    if tool == "pytrec_eval":
        return [py, "-c", _PYTREC, qrels, run_, ",".join(MEASURES["pytrec_eval"])] if _available("pytrec_eval") else None
    if tool == "ir_measures":
        return [py, "-c", _IR_MEASURES, qrels, run_, MEASURES["ir_measures"]] if _available("ir_measures") else None
    if tool == "ranx":
        return [py, "-c", _RANX, qrels, run_, ",".join(MEASURES["ranx"])] if _available("ranx") else None
    if tool == "trec_eval":
        from tieaware.testing.trec_eval_binary import locate

        try:
            binary = locate()
        except Exception:
            return None
        return [binary, *MEASURES["trec_eval"], qrels, run_] if binary else None
    raise ValueError(tool)


def time_tool(tool: str, qrels: str, run_: str, timeout: float = 1800) -> Timing:
    """Run one tool in a fresh process; its wall time and peak RSS, or why it did not run."""
    cmd = _command(tool, qrels, run_)
    if cmd is None:
        return Timing(tool, None, None, "not installed")
    env = dict(os.environ, TQDM_DISABLE="1")
    try:
        out = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return Timing(tool, None, None, f"over {timeout:.0f} s, stopped")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    note = "" if report["code"] == 0 else f"exit {report['code']}: {report['err'].strip().splitlines()[-1:]}"
    return Timing(tool, report["wall"], report["rss_mb"], note, report["cpu"])


def _table(timings: list[Timing], base: Optional[str] = "pytrec_eval") -> str:
    name = base or "-"
    base_time = next((t.seconds for t in timings if t.tool == name and t.seconds), None)
    base_rss = next((t.peak_mb for t in timings if t.tool == name and t.peak_mb), None)
    base_cpu = next((t.cpu for t in timings if t.tool == name and t.cpu), None)
    base = base_time
    rows = []
    for t in timings:
        if t.seconds is None:
            rows.append([t.tool, "-", "-", "-", "-", "-", "-", t.note])
            continue
        ratio = f"{t.seconds / base:.2f}" if base else "-"
        rss_ratio = f"{t.peak_mb / base_rss:.2f}" if base_rss else "-"
        cpu_ratio = f"{t.cpu / base_cpu:.2f}" if base_cpu and t.cpu is not None else "-"
        cpu = f"{t.cpu:.2f}" if t.cpu is not None else "-"
        rows.append([t.tool, f"{t.seconds:.2f}", ratio, cpu, cpu_ratio, f"{t.peak_mb:.0f}", rss_ratio, t.note])
    return tabulate(
        rows,
        headers=["tool", "wall (s)", f"÷ {name}", "CPU (s)", f"CPU ÷ {name}", "peak RSS (MB)", f"RSS ÷ {name}", "note"],
        disable_numparse=True,
        colalign=("left", "right", "right", "right", "right", "right", "right", "left"),
    )


def _cli_all_measures(qrels: str, run_: str) -> Timing:
    """``tieaware eval`` exact, every default measure, on the 50 × 1,000 heavy-tie run (target < 5 s)."""
    cmd = [sys.executable, "-m", "tieaware", "eval", qrels, run_, "-m", "P@5 P@10 R@10 F1@10 AP RR nDCG@10 nDCG RBP(p=0.8) ERR@20"]
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, env=dict(os.environ, TQDM_DISABLE="1"))
    report = json.loads(out.stdout.strip().splitlines()[-1])
    note = "" if report["code"] == 0 else report["err"][-200:]
    return Timing("tieaware exact, 10 measures", report["wall"], report["rss_mb"], note, report["cpu"])


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _eval_float(qrels: str, run_: str, jobs: Optional[int] = None, table: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "tieaware", "eval", qrels, run_, "-m", MEASURES["tieaware"], "--float"]
    cmd += [] if table else ["--format", "trec"]
    return cmd + ([] if jobs is None else ["--jobs", str(jobs)])


def _time_command(tool: str, cmd: list[str], timeout: float = 3600) -> Timing:
    env = dict(os.environ, TQDM_DISABLE="1")
    try:
        out = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return Timing(tool, None, None, f"over {timeout:.0f} s, stopped")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    note = "" if report["code"] == 0 else f"exit {report['code']}: {report['err'].strip().splitlines()[-1:]}"
    return Timing(tool, report["wall"], report["rss_mb"], note, report["cpu"])


def _median(tool: str, cmd: list[str], repeats: int) -> Timing:
    """The run of median wall time among *repeats* runs (the machine is shared: one run is noisy)."""
    runs = [_time_command(tool, cmd) for _ in range(repeats)]
    done = sorted((t for t in runs if t.seconds is not None), key=lambda t: t.seconds)  # type: ignore[arg-type,return-value]
    if not done:
        return runs[0]
    mid = done[len(done) // 2]
    note = f"median of {len(done)}" + (f"; {mid.note}" if mid.note else "") if repeats > 1 else mid.note
    return Timing(tool, mid.seconds, max(t.peak_mb or 0 for t in done), note, mid.cpu)


def _ten_million(tmp: str, quick: bool, repeats: int) -> tuple[list[str], Optional[Timing], str, str]:
    """10^7 lines, heavy ties: tieaware (every core, one core, the two-column table) beside the peers."""
    from tieaware.benchmarks.scale_peers import write_heavy
    from tieaware.runs.stream import default_jobs

    nq, nd = (20, 200) if quick else (10_000, 1_000)
    qrels, run_ = os.path.join(tmp, "big.qrels"), os.path.join(tmp, "big.run")
    write_heavy(qrels, run_, nq, nd, SEED_HEAVY)
    jobs = default_jobs()
    timings = [
        _median(f"tieaware eval --float --format trec (--jobs {jobs})", _eval_float(qrels, run_), repeats),
        _median("tieaware eval --float --format trec --jobs 1", _eval_float(qrels, run_, jobs=1), repeats),
        _median(f"tieaware eval --float (table: tie-aware and trec_eval order, --jobs {jobs})", _eval_float(qrels, run_, table=True), repeats),
    ]
    for tool in ("trec_eval", "pytrec_eval") + (() if quick else ("ranx",)):  # ranx compiles with numba for minutes
        cmd = _command(tool, qrels, run_)
        timings.append(Timing(tool, None, None, "not installed") if cmd is None else _median(tool, cmd, repeats if tool == "trec_eval" else 1))
    size = os.path.getsize(run_) / 1e6
    head = [f"### 10^7 lines: heavy ties, {nq:,} queries × {nd:,} documents (run file {size:.0f} MB; {jobs} cores)"]
    trec = next((t for t in timings if t.tool == "trec_eval" and t.seconds), None)
    ours = timings[0]
    lines = head + [_table(timings, base="trec_eval" if trec else "pytrec_eval")]
    if trec and ours.seconds:
        lines.append(
            f"targets: wall ≤ 0.5 × trec_eval's: {ours.seconds / trec.seconds:.2f}×; "  # type: ignore[operator]
            f"peak RSS ≤ trec_eval's: {ours.peak_mb:.0f} MB vs {trec.peak_mb:.0f} MB"
        )
    return lines, ours, qrels, run_


def _hundred_million(tmp: str, quick: bool, ten: Optional[Timing]) -> list[str]:
    from tieaware.benchmarks.scale_peers import SEED_BIG, write_heavy

    nq, nd = (200, 200) if quick else (100_000, 1_000)
    need = nq * nd * 40
    free = shutil.disk_usage(tmp).free
    title = f"### 10^8 lines: {nq:,} queries × {nd:,} documents, written to a temporary directory and deleted"
    if free < 2 * need:
        return [title, f"skipped: {free / 1e9:.1f} GB free, {2 * need / 1e9:.1f} GB wanted"]
    qrels, run_ = os.path.join(tmp, "huge.qrels"), os.path.join(tmp, "huge.run")
    start = time.perf_counter()
    write_heavy(qrels, run_, nq, nd, SEED_BIG)
    written = time.perf_counter() - start
    size = os.path.getsize(run_) / 1e9
    t = _time_command("tieaware eval --float --format trec", _eval_float(qrels, run_))
    os.remove(run_)
    os.remove(qrels)
    lines = [title, f"run file {size:.1f} GB, written in {written:.0f} s", _table([t], base=None)]
    if t.seconds and ten is not None and ten.seconds:
        lines.append(f"targets: peak RSS ≤ 2 GB: {t.peak_mb / 1024:.2f} GB; time ≤ 12 × the 10^7 run: {t.seconds / ten.seconds:.1f}×")
    return lines


def _rbo(tmp: str, quick: bool, qrels: str, run_: str, ten: Optional[Timing]) -> list[str]:
    from tieaware.benchmarks.scale_peers import write_heavy

    nq, nd = (20, 200) if quick else (10_000, 1_000)
    other, other_qrels = os.path.join(tmp, "other.run"), os.path.join(tmp, "other.qrels")
    write_heavy(other_qrels, other, nq, nd, SEED_HEAVY + 1)
    t = _time_command("tieaware rbo A B --float", [sys.executable, "-m", "tieaware", "rbo", run_, other, "--float"], timeout=3600)
    lines = [f"### rbo: two runs of {nq * nd:,} lines ({nq:,} queries × {nd:,} documents)", _table([t], base=None)]
    if t.seconds and ten is not None and ten.seconds:
        lines.append(
            f"targets: within 2 × eval --float on one run: {t.seconds / ten.seconds:.1f}×; peak RSS ≤ 2 GB: {t.peak_mb / 1024:.2f} GB"
        )
    lines += ["", f"### the other commands on the same runs ({nq * nd:,} lines each; ratio: wall over eval --float --format trec)"]
    py = [sys.executable, "-m", "tieaware"]
    others = [
        _time_command("tieaware eval --float --spread", py + ["eval", qrels, run_, "-m", MEASURES["tieaware"], "--float", "--spread"]),
        _time_command("tieaware compare A B --float", py + ["compare", qrels, run_, other, "-m", MEASURES["tieaware"], "--float"]),
        _time_command(
            "tieaware compare A B --float --format markdown (leaderboard)",
            py + ["compare", qrels, run_, other, "-m", MEASURES["tieaware"], "--float", "--format", "markdown"],
        ),
        _time_command("tieaware corr A B --float (Kendall's tau_b per query)", py + ["corr", run_, other, "--float"]),
    ]
    if ten is not None and ten.seconds:
        others.insert(0, replace(ten, tool="eval"))  # the 10^7 run above, named short for the ratio columns
    lines.append(_table(others, base="eval" if ten is not None and ten.seconds else None))
    os.remove(other)
    return lines


def run(quick: bool = False) -> str:
    """Write the runs, time every tool on each, and return the printable report."""
    from tieaware.benchmarks import scale_peers as peers

    repeats = 1 if quick else 3
    parts = [
        "## Scale: tieaware vs trec_eval, pytrec_eval, ir_measures, ranx; 10^8 lines; rbo; recommender data; score matrices",
        f"mode: {'quick' if quick else 'full'}; each tool in a fresh process (start-up, imports, reading, printing included); "
        "peak RSS = ru_maxrss of that process; measures AP nDCG@10 P@10 RR@10 (trec_eval/pytrec_eval: recip_rank) R@1000; "
        f"{'one run each' if quick else 'tieaware and trec_eval: the median of 3 runs (the machine is shared)'}",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        lines, ten, big_qrels, big_run = _ten_million(tmp, quick, repeats)
        parts += [""] + lines
        parts += [""] + _hundred_million(tmp, quick, ten)
        parts += [""] + _rbo(tmp, quick, big_qrels, big_run, ten)
        os.remove(big_run)
        qrels_text, run_text = graded_files(*((5, 200) if quick else (43, 1000)))
        qrels, run_ = os.path.join(tmp, "g.qrels"), os.path.join(tmp, "g.run")
        _write(qrels, qrels_text)
        _write(run_, run_text)
        parts += ["", f"### graded: {5 if quick else 43} queries × {200 if quick else 1000} documents (3-decimal scores, labels 0..3)"]
        parts.append(_table([time_tool(t, qrels, run_) for t in TOOLS if not (quick and t == "ranx")]))
        qrels_text, run_text = heavy_tie_files(5 if quick else 50, 1000, seed=50)
        qrels, run_ = os.path.join(tmp, "50.qrels"), os.path.join(tmp, "50.run")
        _write(qrels, qrels_text)
        _write(run_, run_text)
        t = _cli_all_measures(qrels, run_)
        parts += ["", f"### exact, all measures, through the CLI ({5 if quick else 50} × 1,000 heavy ties; target < 5 s)"]
        parts.append(f"tieaware eval (exact, 10 measures incl. full nDCG and ERR@20): {t.seconds:.2f} s wall, {t.cpu:.2f} s CPU, {t.peak_mb:.0f} MB {t.note}")
    users, items = (200, 100) if quick else (5000, 1000)
    parts += ["", f"### recommender data: {users:,} users × {items:,} items, integer predictions 1–5, a tenth rated 1–5 (seconds in-process)",
              f"tieaware: {peers.RECOMMENDER_MEASURES} (recommenders' ndcg_at_k and map_at_k: binary gain, AP ÷ min(R, k))"]
    parts.append(tabulate(peers.recommender(quick), headers=["tool", "wall (s)", "CPU (s)", "nDCG@10", "MAP@10", "note"], disable_numparse=True))
    rows_, cols = (200, 100) if quick else (10000, 1000)
    parts += ["", f"### score matrix: {rows_:,} × {cols:,} float32, scores rounded to 1/64 (seconds in-process; target ≤ 1 s)"]
    parts.append(tabulate(peers.matrix(quick), headers=["tool", "seconds", "nDCG@10", "RR@10", "R@100", "note"], disable_numparse=True))
    return "\n".join(parts)
