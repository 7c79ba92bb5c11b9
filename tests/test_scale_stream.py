"""Streaming, --jobs and partitions change no result: equal Fractions and float bits to the in-memory path.

The reference is the in-memory path (read_table, prepare, evaluate_prepared),
which the rest of the suite checks against the layers.  The run is evaluated
in pieces of 1, 7 and many queries, in 1 and 2 processes, with its queries
contiguous and scattered (partitioned through temporary files), from text,
gzip, stdin and Parquet.
"""

from __future__ import annotations

import gzip
import io
import random
import subprocess
import sys

import numpy as np
import pytest

from tieaware.io.columns import prepare, read_table
from tieaware.runs.evaluate import evaluate_prepared
from tieaware.runs.parts import combine, evaluate_part
from tieaware.runs.stream import evaluate_files

MEASURES = "P@5 R@10 AP nDCG@10 nDCG RR RBP(p=0.8)@20 ERR@10 F1@5 Judged@5"
SPREAD = "P@5 AP nDCG@10 RR RBP@10 R@10 ERR@10"


def _files(seed: int, queries: int = 40, docs: int = 30, graded: bool = True) -> tuple[str, str]:
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(queries):
        scores = rng.integers(0, 6, size=docs) / 4
        for d in range(docs):
            run.append(f"q{q} Q0 d{d} 0 {scores[d]} r\n")
        for d in rng.choice(docs + 5, size=8, replace=False).tolist():
            label = int(rng.choice(4, p=[0.4, 0.3, 0.2, 0.1])) if graded else int(rng.integers(0, 2))
            qrels.append(f"q{q} 0 d{d} {label}\n")
    qrels.append("qonly 0 d1 1\n")  # judged, not in the run
    run.append("runonly Q0 d1 1 1 r\n")  # in the run, not judged
    return "".join(qrels), "".join(run)


def _memory(qrels: str, run: str, measures: str, exact: bool, spread: bool = False):
    p = prepare(read_table(io.BytesIO(qrels.encode()), "qrels"), read_table(io.BytesIO(run.encode()), "run"))
    ms = evaluate_prepared(p, measures, exact=exact).measures
    return combine([evaluate_part(p, ms, exact=exact, trec=True, spread=spread, level=1)], ms, exact=exact)


def _same(got, want):
    for a, b in ((got.tied, want.tied), (got.trec, want.trec)):
        assert a.queries == b.queries and a.per_query == b.per_query and a.mean == b.mean
        assert a.skipped_run == b.skipped_run and a.skipped_qrels == b.skipped_qrels
    assert got.counts == want.counts and (got.docs, got.groups) == (want.docs, want.groups)
    if want.spread is not None:
        assert got.spread == want.spread
        assert got.tied.per_query_spread == want.tied.per_query_spread


def _scatter(run: str, seed: int) -> str:
    lines = run.splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    return "".join(lines)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("scattered", [False, True])
def test_pieces_and_jobs_change_nothing(tmp_path, exact, scattered):
    qrels, run = _files(1)
    if scattered:
        run = _scatter(run, 2)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    want = _memory(qrels, run, MEASURES, exact)
    for rows, jobs in ((1, 1), (7, 2), (29, 1), (10**6, 2)):
        got = evaluate_files(tmp_path / "q", tmp_path / "r", MEASURES, exact=exact, trec=True, level=1, jobs=jobs, rows=rows)
        _same(got, want)


@pytest.mark.parametrize("exact", [False, True])
def test_spread_streamed_equals_in_memory(tmp_path, exact):
    qrels, run = _files(3, queries=15, docs=12)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r.gz").write_bytes(gzip.compress(run.encode()))
    want = _memory(qrels, run, SPREAD, exact, spread=True)
    for rows, jobs in ((1, 2), (50, 1)):
        got = evaluate_files(tmp_path / "q", tmp_path / "r.gz", SPREAD, exact=exact, trec=True, spread=True, level=1, jobs=jobs, rows=rows)
        _same(got, want)


def test_parquet_run_streamed_by_row_groups(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    qrels, run = _files(4)
    rows = [line.split() for line in run.splitlines()]
    table = pa.table({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows], "score": [float(r[4]) for r in rows]})
    pq.write_table(table, tmp_path / "r.parquet", row_group_size=37)  # row groups cut queries in two
    (tmp_path / "q").write_text(qrels)
    want = _memory(qrels, run, MEASURES, False)
    for rows_, jobs in ((1, 1), (100, 2)):
        _same(evaluate_files(tmp_path / "q", tmp_path / "r.parquet", MEASURES, exact=False, trec=True, level=1, jobs=jobs, rows=rows_), want)
    shuffled = table.take(np.random.default_rng(0).permutation(len(table)))
    pq.write_table(shuffled, tmp_path / "s.parquet", row_group_size=50)
    got = evaluate_files(tmp_path / "q", tmp_path / "s.parquet", MEASURES, exact=True, jobs=1, rows=10)
    assert got.tied.per_query == _memory(qrels, run, MEASURES, True).tied.per_query


def test_a_bad_line_is_named_as_in_memory(tmp_path):
    from tieaware import TieawareError

    qrels, run = _files(5)
    lines = run.splitlines(keepends=True)
    lines[500] = "q13 Q0 dnew 0 zz r\n"  # a bad score, in the middle of query q16
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text("".join(lines))
    with pytest.raises(TieawareError) as memory:
        _memory(qrels, "".join(lines), "AP", False)
    for rows, jobs in ((1, 1), (64, 2)):
        with pytest.raises(TieawareError) as streamed:
            evaluate_files(tmp_path / "q", tmp_path / "r", "AP", exact=False, jobs=jobs, rows=rows)
        assert str(streamed.value) == str(memory.value).replace("<run>", str(tmp_path / "r"))
        assert ":501: score must be" in str(streamed.value)


def _cli(*args, stdin=None):
    done = subprocess.run([sys.executable, "-m", "tieaware", *args], capture_output=True, text=True, input=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cli_jobs_and_stdin_print_the_same(tmp_path):
    qrels, run = _files(6)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(_scatter(run, 1))
    base = ["eval", str(tmp_path / "q")]
    one = _cli(*base, str(tmp_path / "r"), "--float", "-q", "--spread", "--jobs", "1")
    assert _cli(*base, str(tmp_path / "r"), "--float", "-q", "--spread", "--jobs", "2") == one
    assert _cli(*base, "-", "--float", "-q", "--spread", stdin=_scatter(run, 1)) == one.replace(str(tmp_path / "r"), "-")
    trec = _cli(*base, str(tmp_path / "r"), "--format", "trec", "-q", "-c", "--jobs", "2")
    assert trec == _cli(*base, str(tmp_path / "r"), "--format", "trec", "-q", "-c", "--jobs", "1")
    # a file is streamed; stdin, runid and relstring read the run whole: the same lines
    assert trec == _cli(*base, "-", "--format", "trec", "-q", "-c", stdin=_scatter(run, 1))
    for measures in (["-m", "map", "-m", "P.5,10", "-m", "num_rel_ret"], ["-m", "ndcg_cut.10", "-m", "recip_rank", "--tie-break", "none"]):
        streamed = _cli(*base, str(tmp_path / "r"), "--format", "trec", "-q", "-c", *measures)
        whole = _cli(*base, str(tmp_path / "r"), "--format", "trec", "-q", "-c", *measures, "-m", "runid")
        assert streamed == "".join(line for line in whole.splitlines(keepends=True) if not line.startswith("runid")), measures


def test_evaluate_jobs_equal_one_process():
    import tieaware
    from tieaware import TieawareError
    from tieaware.io.trec import parse_qrels, parse_run

    qrels_text, run_text = _files(8, queries=12, docs=10)
    qrels, run = parse_qrels(qrels_text.splitlines()), parse_run(run_text.splitlines())
    for exact in (True, False):
        for tie_break in (None, "trec_eval"):
            one = tieaware.evaluate(qrels, run, MEASURES, exact=exact, tie_break=tie_break)
            two = tieaware.evaluate(qrels, run, MEASURES, exact=exact, tie_break=tie_break, jobs=2)
            assert (two.per_query, two.mean, two.skipped_run, two.skipped_qrels) == (one.per_query, one.mean, one.skipped_run, one.skipped_qrels)
    with pytest.raises(TieawareError, match="^jobs must be an int >= 1"):
        tieaware.evaluate(qrels, run, "AP", jobs=0)


@pytest.mark.parametrize("scattered", [False, True])
def test_a_stream_is_spooled_to_a_file_and_streamed(tmp_path, scattered, monkeypatch):
    # a run read once (stdin, a pipe; here a BytesIO) is copied to a temporary file a block at a time,
    # then streamed from it as a file is: the same results for every piece size, and no Table of the
    # whole run when its queries are contiguous (the pieces hold a few queries and a block)
    from tieaware.io import blocks
    from tieaware.io import stream as io_stream

    qrels, run = _files(5)
    if scattered:
        run = _scatter(run, 4)
    (tmp_path / "q").write_text(qrels)
    want = _memory(qrels, run, MEASURES, False)
    monkeypatch.setattr(blocks, "_BLOCK", 512)
    largest = [0]
    concat = io_stream.concat

    def counted(tables):
        out = concat(tables)
        largest[0] = max(largest[0], len(out))
        return out

    monkeypatch.setattr(io_stream, "concat", counted)
    for rows, jobs in ((7, 1), (100, 2)):
        got = evaluate_files(tmp_path / "q", io.BytesIO(run.encode()), MEASURES, exact=False, trec=True, level=1, jobs=jobs, rows=rows)
        _same(got, want)
    lines = len(run.splitlines())
    assert largest[0] == lines if scattered else largest[0] < lines // 4  # scattered: one partition, read back whole
