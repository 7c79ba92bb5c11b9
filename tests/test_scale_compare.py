"""compare streams its run files (runs.stream.compare_runs_files): the same Comparisons as the in-memory path.

The reference is :func:`tieaware.runs.comparison.compare_runs_prepared` on the
whole files read as columns, which the rest of the suite checks against the
layers.  The streamed path is run in pieces of a few queries, in 1 and 2
processes, on a run whose queries are scattered (partitioned through
temporary files), with the distributions read back a window of 2 queries at
a time, so that P(A > B)'s convolution crosses many windows.
"""

from __future__ import annotations

import random

import pytest

from tieaware.io.columns import prepare, read_table
from tieaware.runs import stream as stream_module
from tieaware.runs.comparison import compare_runs_prepared
from tieaware.runs.stream import compare_runs_files

from test_scale_stream import _files

MEASURES = "P@5 AP nDCG@10 RR ERR@10 Judged@5 Bpref"


@pytest.fixture
def runs(tmp_path):
    qrels, a = _files(31, queries=20, docs=12)
    _, b = _files(32, queries=20, docs=12)
    lines = b.splitlines(keepends=True)
    random.Random(3).shuffle(lines)  # B's queries are not contiguous
    for name, text in (("qrels", qrels), ("a", a), ("b", "".join(lines))):
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("exact", [False, True])
def test_streamed_compare_equals_in_memory(runs, exact, monkeypatch):
    qrels = read_table(str(runs / "qrels"), "qrels")
    want = compare_runs_prepared(
        prepare(qrels, read_table(str(runs / "a"), "run"), trec_order=False),
        prepare(qrels, read_table(str(runs / "b"), "run"), trec_order=False),
        MEASURES,
        exact=exact,
    )
    monkeypatch.setattr(stream_module._Windows, "FIRST", 2)
    for jobs, rows in ((1, 5), (2, 30)):
        got, ev_a, ev_b = compare_runs_files(str(runs / "qrels"), str(runs / "a"), str(runs / "b"), MEASURES, exact=exact, jobs=jobs, rows=rows)
        assert got == want, (jobs, rows)
        assert ev_a.queries == ev_b.queries and len(ev_a.queries) == want[0].queries


def test_cli_compare_jobs_prints_the_same(runs, capsys):
    from tieaware.cli import main

    argv = ["compare", str(runs / "qrels"), str(runs / "a"), str(runs / "b"), "-m", MEASURES, "--float"]
    assert main(argv + ["--jobs", "1"]) == 0
    one = capsys.readouterr().out
    assert main(argv + ["--jobs", "2"]) == 0
    assert capsys.readouterr().out == one
    assert main(argv + ["--jobs", "0"]) != 0
    captured = capsys.readouterr()
    assert captured.out == "" and "error: --jobs must be an int >= 1" in captured.err


@pytest.mark.parametrize("command", [["corr", "--spread"], ["corr", "-m", "tauap", "--docs", "union"], ["rbo", "--float"]])
def test_corr_and_rbo_partitions_and_jobs_change_nothing(runs, capsys, monkeypatch, command):
    # corr RUN_A RUN_B reads the runs as rbo does (runs.paired_runs.paired_files); B's queries are scattered
    from tieaware.cli import main
    from tieaware.io import stream

    argv = [command[0], str(runs / "a"), str(runs / "b"), *command[1:]]
    assert main(argv + ["--jobs", "1"]) == 0
    one = capsys.readouterr().out
    monkeypatch.setattr(stream, "partition_count", lambda source, rows=0: 3)  # as if the runs were large
    for jobs in ("1", "2"):
        assert main(argv + ["--jobs", jobs]) == 0
        assert capsys.readouterr().out == one, jobs
    assert main(argv + ["--jobs", "0"]) != 0
    assert "error: --jobs must be an int >= 1" in capsys.readouterr().err


def test_cli_compare_reads_a_run_from_stdin_as_from_a_file(runs, capsys, monkeypatch):
    # stdin is copied to a temporary file (a block at a time) and streamed as the file is
    import io
    import sys

    from tieaware.cli import main

    argv = ["compare", str(runs / "qrels"), str(runs / "a"), str(runs / "b"), "-m", "P@5 RR", "--float", "--jobs", "1"]
    assert main(argv) == 0
    want = capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((runs / "b").read_bytes())))
    assert main(argv[:3] + ["-"] + argv[4:]) == 0
    assert capsys.readouterr().out == want.replace(f"B = {runs / 'b'}", "B = -")
