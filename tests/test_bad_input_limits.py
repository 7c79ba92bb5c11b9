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
    assert main(["eval", qrels, str(run), "-j", "1"]) == 2
    _, err = capsys.readouterr()
    assert "documents may take a while" not in err and len(err.splitlines()) == 1


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
