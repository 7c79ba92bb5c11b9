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
