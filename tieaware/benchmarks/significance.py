"""Significance over tie-breakings: ``compare_systems`` against ranx's ``compare``.

Two cases (deterministic seeds, numpy's PCG64):

- **two runs, heavy ties**: the scale benchmark's 6,980 queries × 1,000
  documents (scores 0..20, about 21 tie groups of ~50 per query, binary
  qrels) as run A, and run B with the same documents and qrels and fresh
  scores 0..20.  Measures AP, nDCG@10, P@10, RR@10 (ranx: map, ndcg@10,
  precision@10, mrr@10), the paired t test.  tieaware: ``compare_prepared``
  in float mode (the array engines) on the runs read as columns, giving per
  pair the p-value on expected values and its bounds over every joint
  tie-breaking (certified at this size), then again with the default Monte
  Carlo flip probabilities (timed apart); ranx: ``compare(stat_test="student")``
  on its own Qrels and Run objects, warm (numba kernels compiled by an
  earlier small call).  Reading is timed apart for both.  Target: tieaware's
  comparison at most 2× ranx's.
- **20 systems × 1,000 queries**, all 190 pairs: 100 documents per query,
  scores 0..9 (about 10 tie groups per query), binary qrels, each system a
  little better than the last; AP and nDCG@10, t test, float and exact mode
  (exact is the default of ``compare_systems`` and ``tieaware compare``),
  each with bounds only (``samples=0``) and with the default Monte Carlo
  flip probabilities.  Target: at most 10 s (see docs/benchmarks.md for
  which rows meet it).

- **intervals**, on the 20-system case in float mode: ``--ci 95 --test t``
  (t and bootstrap intervals with 10,000 resamples, effect sizes, rank
  intervals) against ``--test t`` alone, paired runs (medians of three
  each, alternating).  Target: at most 2x.  And the rank intervals over topics
  (and over both) with 1,000 bootstrap samples: the resampled sums of every
  system and the ranks alone (target 10 s CPU), and the whole ``--ci 95
  --resamples 1000`` without a test.

``--quick`` shrinks them.  Wall time and CPU time (``time.process_time``) are
reported; on a loaded machine read the CPU columns.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from tabulate import tabulate

__all__ = ["run", "TARGET_RATIO", "TARGET_SECONDS", "TARGET_CI_RATIO", "second_run", "systems_files"]

TARGET_RATIO = 2.0
TARGET_SECONDS = 10.0
#: --ci 95 --test t against --test t alone (float, 20 systems × 1,000 queries).
TARGET_CI_RATIO = 2.0
MEASURES = "AP nDCG@10 P@10 RR@10"
RANX_MEASURES = ["map", "ndcg@10", "precision@10", "mrr@10"]
SEED_B = 6981
SEED_SYSTEMS = 20


def second_run(run_text: str, seed: int = SEED_B) -> str:
    """Run A's lines with fresh integer scores 0..20 and run id B (same documents, same qrels)."""
    lines = run_text.splitlines()
    rng = np.random.Generator(np.random.PCG64(seed))
    scores = rng.integers(0, 21, size=len(lines)).tolist()
    return "".join(f"{line.rsplit(' ', 2)[0]} {s} B\n" for line, s in zip(lines, scores))


def systems_files(systems: int = 20, queries: int = 1000, docs: int = 100, seed: int = SEED_SYSTEMS) -> tuple[str, list[str]]:
    """(qrels text, run texts): binary qrels (1..10 relevant per query), scores 0..9, each system a bit better than the last.

    >>> qrels, runs = systems_files(systems=2, queries=2, docs=3)
    >>> len(runs), runs[0].splitlines()[0].split()[:3]
    (2, ['q0', 'Q0', 'd0'])
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    relevant = np.zeros((queries, docs), dtype=bool)
    qrels = []
    for q in range(queries):
        picked = rng.choice(docs, size=min(docs, int(rng.integers(1, 11))), replace=False)
        relevant[q, picked] = True
        qrels.extend(f"q{q} 0 d{d} 1\n" for d in sorted(picked.tolist()))
    runs = []
    for s in range(systems):
        noise = rng.normal(0.0, 1.0, size=(queries, docs)) + relevant * (0.05 * s)
        scores = np.clip(np.floor((noise + 2.5) * 2), 0, 9).astype(int)
        runs.append(
            "".join(
                f"q{q} Q0 d{d} {d + 1} {scores[q, d]} s{s}\n" for q in range(queries) for d in range(docs)
            )
        )
    return "".join(qrels), runs


def _timed(call: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _write(folder: str, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _read_columns(qrels_path: str, run_paths: list[str]) -> dict[str, Any]:
    from tieaware.io.columns import prepare, read_table

    qrels = read_table(qrels_path, "qrels")
    return {os.path.basename(p): prepare(qrels, read_table(p, "run"), trec_order=False) for p in run_paths}


def _ranx_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("ranx") is not None


def _two_runs(quick: bool, folder: str) -> tuple[list[list[str]], list[str]]:
    from tieaware.benchmarks.scale import heavy_tie_files
    from tieaware.runs.leaderboard import compare_prepared

    queries, docs = (100, 100) if quick else (6980, 1000)
    qrels_text, run_a = heavy_tie_files(queries=queries, docs=docs)
    paths = [_write(folder, "qrels", qrels_text), _write(folder, "a.run", run_a), _write(folder, "b.run", second_run(run_a))]
    del run_a
    prepared, read_wall, read_cpu = _timed(lambda: _read_columns(paths[0], paths[1:]))
    compare_prepared(prepared, "P@1", test="t", exact=False, samples=0)  # warm: imports (numpy, scipy.special)
    result, ours_wall, ours_cpu = _timed(lambda: compare_prepared(prepared, MEASURES, test="t", exact=False, samples=0))
    flips, flips_wall, flips_cpu = _timed(lambda: compare_prepared(prepared, MEASURES, test="t", exact=False))
    rows = [
        ["tieaware compare_systems (float, t, bounds)", f"{read_wall:.2f}", f"{read_cpu:.2f}", f"{ours_wall:.2f}", f"{ours_cpu:.2f}"],
        ["tieaware, bounds and Monte Carlo flips (default)", "", "", f"{flips_wall:.2f}", f"{flips_cpu:.2f}"],
    ]
    notes = []
    for m in result.measures:
        (pair,) = result.pairs[m]
        (flip,) = flips.pairs[m]
        interval = "" if flip.flip_interval is None else f" [{flip.flip_interval[0]:.3f}, {flip.flip_interval[1]:.3f}]"
        notes.append(
            f"{m}: p {pair.p_value:.4g}, p_min {pair.p_min:.3g}, p_max {pair.p_max:.3g} ({pair.bounds}), robust {pair.robust}; "
            f"flip {flip.flip_probability if flip.flip_probability is None else round(float(flip.flip_probability), 4)}"
            f"{interval} ({flip.flip_method}, {flip.flip_samples} draws)"
        )
    if not _ranx_available():
        rows.append(["ranx compare(student)", "-", "-", "-", "-"])
        return rows, notes + ["ranx is not installed: no ratio"]
    from ranx import Qrels, Run, compare

    import warnings

    tiny = Qrels({"q": {"d": 1}, "r": {"d": 1}})
    with warnings.catch_warnings():  # ranx compiles its kernels on first use; scipy warns about 2 queries
        warnings.simplefilter("ignore")
        pair = [Run({"q": {"d": 1.0, "e": 0.5}, "r": {"d": 0.2, "e": 0.5}}, name=n) for n in ("x", "y")]
        compare(tiny, pair, RANX_MEASURES, stat_test="student")

    def ranx_read() -> tuple[Any, Any, Any]:
        q = Qrels.from_file(paths[0], kind="trec")
        a, b = Run.from_file(paths[1], kind="trec"), Run.from_file(paths[2], kind="trec")
        a.name, b.name = "a", "b"
        return q, a, b

    (rq, ra, rb), ranx_read_wall, ranx_read_cpu = _timed(ranx_read)
    report, ranx_wall, ranx_cpu = _timed(lambda: compare(rq, [ra, rb], RANX_MEASURES, stat_test="student"))
    rows.append(["ranx compare(stat_test='student')", f"{ranx_read_wall:.2f}", f"{ranx_read_cpu:.2f}", f"{ranx_wall:.2f}", f"{ranx_cpu:.2f}"])
    for theirs, ours in zip(RANX_MEASURES, result.measures):
        p = report.comparisons[frozenset(("a", "b"))][theirs]["p_value"]
        notes.append(f"ranx {theirs}: p {p:.4g} on one tie-breaking (its sort order)")
    ratio = ours_cpu / ranx_cpu if ranx_cpu else float("inf")
    ratio_wall = ours_wall / ranx_wall if ranx_wall else float("inf")
    met = "met" if ratio <= TARGET_RATIO else "missed"
    notes.append(
        f"target, tieaware's comparison at most {TARGET_RATIO:g}x ranx.compare: {met} "
        f"({ratio:.2f}x by CPU time, {ratio_wall:.2f}x wall; reading excluded on both sides)"
    )
    return rows, notes


def _many_systems(quick: bool, folder: str) -> tuple[list[list[str]], list[str]]:
    from tieaware.runs.leaderboard import compare_prepared

    systems, queries, docs = (3, 20, 20) if quick else (20, 1000, 100)
    qrels_text, runs = systems_files(systems, queries, docs)
    paths = [_write(folder, "qrels20", qrels_text)] + [_write(folder, f"s{i:02d}.run", r) for i, r in enumerate(runs)]
    prepared, read_wall, read_cpu = _timed(lambda: _read_columns(paths[0], paths[1:]))
    rows, notes = [], []
    for exact, samples in ((False, 0), (False, None), (True, 0), (True, None)):
        result, wall, cpu = _timed(lambda: compare_prepared(prepared, "AP nDCG@10", test="t", exact=exact, samples=samples))
        pairs = sum(len(v) for v in result.pairs.values())
        robust = sum(1 for v in result.pairs.values() for r in v if r.robust)
        exact_bounds = sum(1 for v in result.pairs.values() for r in v if r.bounds == "exact")
        drawn = sorted({r.flip_samples for v in result.pairs.values() for r in v if r.flip_samples})
        mode = ("exact (the default)" if exact else "float (--float)") + (", bounds only (samples=0)" if samples == 0 else ", with flips")
        rows.append([f"{systems} systems, {mode}", f"{read_wall:.2f}", f"{read_cpu:.2f}", f"{wall:.2f}", f"{cpu:.2f}"])
        met = "met" if cpu <= TARGET_SECONDS else "missed"
        notes.append(
            f"{mode}: {pairs} pair-measures ({len(result.pairs['AP'])} pairs x 2 measures), {robust} robust, "
            f"{exact_bounds} with exact bounds, flips drawn {drawn or 'none'}; "
            f"target <= {TARGET_SECONDS:g} s: {met} ({cpu:.2f} s CPU, {wall:.2f} s wall)"
        )
    return rows, notes


def _intervals(quick: bool, folder: str) -> tuple[list[list[str]], list[str]]:
    import statistics

    from tieaware.runs import intervals as iv
    from tieaware.runs.leaderboard import compare_prepared

    systems, queries, docs = (3, 20, 20) if quick else (20, 1000, 100)
    qrels_text, runs = systems_files(systems, queries, docs)
    paths = [_write(folder, "qrels-ci", qrels_text)] + [_write(folder, f"ci{i:02d}.run", r) for i, r in enumerate(runs)]
    prepared = _read_columns(paths[0], paths[1:])
    compare_prepared(prepared, "P@1", test="t", exact=False, samples=0, ci=95)  # warm: imports
    alone, both = [], []
    for _ in range(3):  # paired, alternating: the load moves both alike
        alone.append(_timed(lambda: compare_prepared(prepared, "AP nDCG@10", test="t", exact=False))[1:])
        both.append(_timed(lambda: compare_prepared(prepared, "AP nDCG@10", test="t", exact=False, ci=95))[1:])
    (t_wall, t_cpu), (ci_wall, ci_cpu) = ((statistics.median(x[0] for x in runs_), statistics.median(x[1] for x in runs_))
                                          for runs_ in (alone, both))
    result, only_wall, only_cpu = _timed(
        lambda: compare_prepared(prepared, "AP nDCG@10", test=None, exact=False, ci=95, resamples=1000))
    columns = [p for p in prepared.values()]
    from tieaware.model.names import parse
    from tieaware.runs import engine

    values = np.column_stack([np.asarray(engine.values(p, parse("AP")), dtype=np.float64) for p in columns])

    def ranks() -> Any:
        boot = iv.Resamples(values.shape[0], 1000, 42)
        sums, _ = boot.sums(values)
        return iv.rank_intervals(sums, sums, sums, 95)

    _, rank_wall, rank_cpu = _timed(ranks)
    rows = [
        ["--test t (float, default flips)", "", "", f"{t_wall:.2f}", f"{t_cpu:.2f}"],
        ["--ci 95 --test t (10,000 resamples)", "", "", f"{ci_wall:.2f}", f"{ci_cpu:.2f}"],
        ["--ci 95 --resamples 1000, no test", "", "", f"{only_wall:.2f}", f"{only_cpu:.2f}"],
        ["rank intervals, 1,000 resamples (one measure)", "", "", f"{rank_wall:.2f}", f"{rank_cpu:.2f}"],
    ]
    ratio = ci_cpu / t_cpu if t_cpu else float("inf")
    (s0,) = [x for x in result.intervals["AP"].systems.values()][:1]
    notes = [
        f"target, --ci 95 --test t at most {TARGET_CI_RATIO:g}x --test t: {'met' if ratio <= TARGET_CI_RATIO else 'missed'} "
        f"({ratio:.2f}x by CPU time, {ci_wall / t_wall if t_wall else float('inf'):.2f}x wall; medians of 3 paired runs)",
        f"target, rank intervals over topics with 1,000 resamples within {TARGET_SECONDS:g} s CPU: "
        f"{'met' if rank_cpu <= TARGET_SECONDS else 'missed'} ({rank_cpu:.2f} s; the whole --ci run {only_cpu:.2f} s CPU, "
        f"its columns included); e.g. {s0.system}: topics {list(s0.rank_topics)}, both {list(s0.rank_both)}",
    ]
    return rows, notes


def run(quick: bool = False) -> str:
    """Both cases; the printable report."""
    head = ["what", "read wall s", "read CPU s", "compare wall s", "compare CPU s"]
    out = ["## Significance over tie-breakings: compare_systems vs ranx.compare", f"mode: {'quick' if quick else 'full'}"]
    with tempfile.TemporaryDirectory() as folder:
        rows, notes = _two_runs(quick, folder)
        size = "100 queries × 100 documents" if quick else "6,980 queries × 1,000 documents"
        out += ["", f"### two runs, heavy ties: {size}, {MEASURES}, paired t test", tabulate(rows, headers=head, disable_numparse=True)]
        out += notes
        rows, notes = _many_systems(quick, folder)
        size = "3 systems × 20 queries × 20 documents" if quick else "20 systems × 1,000 queries × 100 documents"
        out += ["", f"### all pairs: {size}, AP nDCG@10, paired t test", tabulate(rows, headers=head, disable_numparse=True)]
        out += notes
        rows, notes = _intervals(quick, folder)
        out += ["", f"### intervals: {size}, AP nDCG@10, float", tabulate(rows, headers=head, disable_numparse=True)]
        out += notes
    return "\n".join(out)
