"""The trec_eval binary locator (tieaware/testing/trec_eval_binary.py) and its build script.

The locator is checked with stand-in executables, so these tests need no
trec_eval; the one test that runs the real binary is skipped when none is
installed (scripts/build_trec_eval.sh builds one).
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tieaware import TieawareError
from tieaware.testing import trec_eval_binary as teb

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "build_trec_eval.sh"


def _fake(directory: Path, body: str, name: str = "trec_eval") -> Path:
    exe = directory / name
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_env_wins_over_path(tmp_path):
    on_path = _fake(tmp_path, "echo path")
    chosen = _fake(tmp_path, "echo env", name="my_trec_eval")
    assert teb.locate(environ={"PATH": str(tmp_path)}) == str(on_path)
    assert teb.locate(environ={teb.ENV: str(chosen), "PATH": str(tmp_path)}) == str(chosen)


def test_nothing_installed(tmp_path):
    assert teb.locate(environ={"PATH": str(tmp_path)}) is None
    assert teb.locate(environ={teb.ENV: "", "PATH": str(tmp_path)}) is None  # empty: unset


@pytest.mark.parametrize("make", ["missing", "not_executable", "directory"])
def test_a_bad_env_value_is_an_error_not_a_silent_fallback(tmp_path, make):
    target = tmp_path / "trec_eval"
    if make == "not_executable":
        target.write_text("#!/bin/sh\n")
    elif make == "directory":
        target.mkdir()
    (tmp_path / "bin").mkdir()
    _fake(tmp_path / "bin", "echo path")  # a good binary on PATH must not be picked silently
    with pytest.raises(TieawareError, match=f"{teb.ENV} must name an executable trec_eval binary, got"):
        teb.locate(environ={teb.ENV: str(target), "PATH": str(tmp_path / "bin")})


def test_run_passes_options_then_files(tmp_path):
    exe = _fake(tmp_path, 'printf "%s|" "$@"')
    out = teb.run(tmp_path / "q", tmp_path / "r", ["-c", "-m", "P.5"], binary=str(exe))
    assert out == f"-c|-m|P.5|{tmp_path / 'q'}|{tmp_path / 'r'}|"


def test_run_reports_trec_eval_failure(tmp_path):
    exe = _fake(tmp_path, 'echo "trec_eval: cannot open qrels" >&2; exit 1')
    with pytest.raises(TieawareError, match="trec_eval exited with 1: trec_eval: cannot open qrels"):
        teb.run("q", "r", binary=str(exe))


def test_require_says_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.delenv(teb.ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TieawareError, match="scripts/build_trec_eval.sh"):
        teb.require()


def test_build_script_help_and_bad_source(tmp_path):
    assert os.access(SCRIPT, os.X_OK)
    shown = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True, check=True).stdout
    assert "--source SRC" in shown and "OPTIONAL" in shown
    done = subprocess.run(
        ["bash", str(SCRIPT), "--source", str(tmp_path / "nothing"), "--prefix", str(tmp_path / "bin")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "no such file or directory" in done.stderr
    assert not (tmp_path / "bin").exists()  # nothing installed on failure


@pytest.mark.skipif(teb.locate() is None, reason="no trec_eval binary (scripts/build_trec_eval.sh builds one)")
def test_the_installed_binary_runs(tmp_path):
    assert teb.version().startswith("trec_eval version")
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n")
    out = teb.run(tmp_path / "qrels", tmp_path / "run", ["-m", "P.1"])
    assert out.split() == ["P_1", "all", "1.0000"]
