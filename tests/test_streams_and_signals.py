"""Nothing lost, nothing left: a closed or full stdout, a closed stdin, SIGTERM and SIGHUP.

Every command: stdout closed (``>&-``) or full (``> /dev/full``) is one line
on stderr and exit 2, never a traceback nor a silent exit 0; ``-`` with stdin
closed names stdin; SIGTERM and SIGHUP remove the temporary files as Ctrl-C
does and exit 128 + the signal's number (143, 129).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 a 1 2 r\nq1 Q0 b 2 2 r\nq2 Q0 c 1 1 r\nq2 Q0 d 2 1 r\n"

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full") or sys.platform == "win32", reason="needs /dev/full and POSIX signals")


@pytest.fixture
def files(tmp_path):
    q, r, r2 = tmp_path / "qrels", tmp_path / "run", tmp_path / "run2"
    q.write_text(QRELS)
    r.write_text(RUN)
    r2.write_text(RUN)
    return str(q), str(r), str(r2)


def _tieaware(*argv, **kw):
    return subprocess.run([sys.executable, "-m", "tieaware", *argv], capture_output=kw.pop("capture", None) is None and "stdout" not in kw, text=True, **kw)


COMMANDS = {
    "eval table": lambda q, r, r2: ["eval", q, r],
    "eval trec": lambda q, r, r2: ["eval", q, r, "--format", "trec"],
    "eval json": lambda q, r, r2: ["eval", q, r, "--format", "json"],
    "compare": lambda q, r, r2: ["compare", q, r, r],
    "rbo": lambda q, r, r2: ["rbo", r, r],
    "corr": lambda q, r, r2: ["corr", r, r],
    "disagree --help": lambda q, r, r2: ["disagree", "--help"],
    "check --help": lambda q, r, r2: ["check", "--help"],
    "tieaware --help": lambda q, r, r2: ["--help"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_full_stdout_is_one_line_and_exit_2(files, command):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "tieaware", *COMMANDS[command](*files)], stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [done.stderr.strip()] and "cannot write to stdout: No space left on device" in done.stderr


@pytest.mark.parametrize("command", ["eval table", "eval trec", "rbo"])
def test_closed_stdout_is_one_line_and_exit_2(files, command):
    done = subprocess.run(
        [sys.executable, "-m", "tieaware", *COMMANDS[command](*files)], stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1)
    )
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and "stdout is closed" in done.stderr


def test_closed_stdin_names_stdin(files):
    done = subprocess.run(
        [sys.executable, "-m", "tieaware", "eval", files[0], "-"], capture_output=True, text=True, preexec_fn=lambda: os.close(0)
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["tieaware eval: error: stdin is closed: '-' reads the run from stdin, which this process was started without"]


def _left(directory) -> list[str]:
    return [name for name in os.listdir(directory) if name.startswith("tieaware")]


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
@pytest.mark.parametrize("argv", [["compare", "{q}", "-", "{r}", "{r2}"], ["eval", "{q}", "-"]])
def test_signals_remove_temporary_files(files, tmp_path, signum, code, argv):
    """The run comes on a pipe that stays open: the command is copying it into its private folder when the signal comes."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    words = [w.format(q=files[0], r=files[1], r2=files[2]) for w in argv]
    env = {**os.environ, "TMPDIR": str(scratch)}
    proc = subprocess.Popen([sys.executable, "-m", "tieaware", *words], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        proc.stdin.write(RUN.encode() * 1000)
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not _left(scratch) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _left(scratch), f"the command never made its temporary folder: {proc.poll()}"
        time.sleep(0.2)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert _left(scratch) == []
    assert out == b"" and len(err.decode().splitlines()) == 1 and signal.Signals(signum).name in err.decode()
