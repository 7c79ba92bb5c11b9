"""No hangs, no late tracebacks: an endless run, an unbounded --digits, a note that would mislead."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tieaware.cli import main

QRELS = "q1 0 a 1\nq2 0 c 1\n"
RUN = "q1 Q0 a 1 2 r\nq2 Q0 c 1 1 r\n"


@pytest.fixture
def qrels(tmp_path):
    q = tmp_path / "qrels"
    q.write_text(QRELS)
    return str(q)


@pytest.mark.skipif(not os.path.exists("/dev/urandom"), reason="needs /dev/urandom")
@pytest.mark.parametrize("command", ["eval", "compare"])
def test_endless_binary_run_fails_within_seconds(qrels, command):
    """The run is copied (spooled) before it is read twice: binary noise stops the copy at once."""
    argv = [command, qrels, "/dev/urandom"] + (["/dev/urandom"] if command == "compare" else [])
    done = subprocess.run([sys.executable, "-m", "tieaware", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()] and "/dev/urandom:1: not UTF-8 text" in done.stderr


def test_digits_is_bounded(qrels, tmp_path, capsys):
    run = tmp_path / "run"
    run.write_text(RUN)
    assert main(["eval", qrels, str(run), "--digits", "1000000000"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "tieaware eval: error: --digits must be at most 1000, got 1000000000"
    assert main(["eval", qrels, str(run), "--digits", "1000", "-m", "AP"]) == 0


def test_one_long_line_claims_no_million_documents(qrels, tmp_path, capsys):
    run = tmp_path / "run"
    run.write_bytes(b"q1 Q0 " + b"a" * (9 * 1024 * 1024))  # one line, 9 MB: refused, with no note first
    for argv in (["eval", qrels, str(run), "-j", "1"], ["compare", qrels, str(run), str(run), "-j", "1"]):
        assert main(argv) == 2
        _, err = capsys.readouterr()
        assert "may take a while" not in err and len(err.splitlines()) == 1, err


def test_float_spread_of_a_query_that_cannot_move_is_zero(tmp_path):
    """AP on 60 documents in ties of equal labels only: every tie-breaking gives one value; its sd is 0.0, not ~1e-11."""
    from tieaware.io.columns import prepare, read_table
    from tieaware.runs.comparison import spread
    from tieaware.runs.parts import query_spreads
    from tieaware.model.names import parse

    qrels = "".join(f"q1 0 d{d} {1 if d % 3 == 0 else 0}\n" for d in range(60))
    run = "".join(f"q1 Q0 d{d} {d} {(d // 6) * 2 + (1 if d % 3 == 0 else 0)} r\n" for d in range(60))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    p = prepare(read_table(str(tmp_path / "q"), "qrels"), read_table(str(tmp_path / "r"), "run"))
    ms = (parse("AP"), parse("nDCG"), parse("RR"))
    stats = query_spreads(p, ms, exact=False)["q1"]
    assert all(s.variance == 0.0 and s.worst == s.best for s in stats.values())
    assert spread({"q1": stats}, [str(m) for m in ms], exact=False)["AP"].sd_mean == 0.0


def test_vectors_refuses_a_folder_it_cannot_make_before_any_work(tmp_path, capsys, monkeypatch):
    import tieaware.vectors.generate as gen

    def never(*args, **kwargs):
        raise AssertionError("generation started before --out was checked")

    monkeypatch.setattr(gen, "build", never)
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["vectors", "--out", str(blocker / "sub"), "--family", "precision"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tieaware vectors: error: --out cannot be created") and len(err.splitlines()) == 1
    assert not (blocker / "sub").exists()


def _files(tmp_path):
    q, r, r2 = tmp_path / "q", tmp_path / "r", tmp_path / "r2"
    q.write_text(QRELS)
    r.write_text(RUN)
    r2.write_text(RUN)
    return str(q), str(r), str(r2)


def _one_line_error(capsys, argv, text):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and text in err, err


@pytest.mark.parametrize("plot, text", [("nodir/x.png", "folder that does not exist"), ("x.xyz", "format matplotlib does not write"), ("x", "needs a file name ending"), ("/dev/null", "")])
def test_plot_is_checked_before_any_work(tmp_path, capsys, monkeypatch, plot, text):
    pytest.importorskip("matplotlib")
    import tieaware.runs.board_stream as board

    monkeypatch.setattr(board, "compare_systems_files", lambda *a, **k: pytest.fail("work started before --plot was checked"))
    monkeypatch.chdir(tmp_path)
    q, r, r2 = _files(tmp_path)
    _one_line_error(capsys, ["compare", q, r, r2, "--plot", plot], text or "--plot")


@pytest.mark.parametrize("option", [["--alpha", "2"], ["--alpha", "nan"], ["--resamples", "0"], ["--samples", "-1"]])
def test_two_run_compare_refuses_bad_test_options(tmp_path, capsys, option):
    q, r, r2 = _files(tmp_path)
    _one_line_error(capsys, ["compare", q, r, r2, *option], option[0])


def test_conformance_refuses_max_size_0(capsys):
    _one_line_error(capsys, ["conformance", "--max-size", "0"], "--max-size must be an int >= 1")


@pytest.mark.parametrize("qrels", [b"q1 0 a\x00b 1\n", b"q1 0 a 1\x00\n"])
def test_nul_bytes_are_refused_naming_file_and_line(tmp_path, capsys, qrels):
    q, r, _ = _files(tmp_path)
    (tmp_path / "q").write_bytes(b"q2 0 c 1\n" + qrels)
    _one_line_error(capsys, ["eval", q, r], f"{q}:2: holds a NUL byte")


@pytest.mark.parametrize("line", ["q1 map abc 0.1", "q1 map 0.5x 0.1", "q1 map 0.5 -"])
def test_malformed_zscore_line_is_refused(tmp_path, capsys, line):
    q, r, _ = _files(tmp_path)
    z = tmp_path / "z"
    z.write_text("q1 map 0.5 0.1\n" + line + "\n")
    _one_line_error(capsys, ["eval", q, r, "--format", "trec", "-Z", str(z), "-m", "map"], f"{z}:2:")


def test_api_bad_inputs_name_the_argument():
    import numpy as np

    import tieaware
    from tieaware.model.errors import bad

    for call in (lambda: tieaware.read_qrels(None), lambda: tieaware.read_run(None)):
        with pytest.raises(tieaware.TieawareError, match="source must be a path"):
            call()
    with pytest.raises(tieaware.TieawareError, match="names 'a' twice"):
        tieaware.rbo_ranking("a a")
    assert "\n" not in str(bad("scores", np.zeros((3, 4)), "must be x"))


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_parquet_id_column_of_lists_is_one_line(tmp_path, capsys, column):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    data = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    data[column] = [[v] for v in data[column]]
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table(data), path)
    q, _, _ = _files(tmp_path)
    for fmt in ("table", "trec"):
        _one_line_error(capsys, ["eval", q, str(path), "--format", fmt], f"{path}: column {column!r} must hold text or integers, got list<")


def test_evaluate_matrix_speaks_of_rows():
    import warnings

    import tieaware

    with pytest.raises(tieaware.TieawareError, match="no relevant .* column in any row"):
        tieaware.evaluate_matrix([[1.0, 2.0], [3.0, 4.0]], [set(), set()], "P@1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = tieaware.evaluate_matrix([[1.0, 2.0], [3.0, 4.0]], [{1}, set()], "P@1")
    assert ev.skipped_run == ("1",) and ev.mean["P@1"] == 1.0
    assert len(caught) == 1 and "1 of 2 rows (1)" in str(caught[0].message) and "empty_rows='zero'" in str(caught[0].message)
    ev = tieaware.evaluate_matrix([[1.0, 2.0], [3.0, 4.0]], [{1}, set()], "P@1", empty_rows="zero")
    assert ev.skipped_qrels == ("1",) and ev.mean["P@1"] == 0.5
    with pytest.raises(tieaware.TieawareError, match="empty_rows"):
        tieaware.evaluate_matrix([[1.0]], [{0}], "P@1", empty_rows="drop")
