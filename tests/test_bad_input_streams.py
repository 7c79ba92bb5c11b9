"""Any file, however odd, is read in bounded memory or refused in one line: no newline, a BOM, a corrupt .gz, Ctrl-C.

Every reader (tieaware.io.trec's line reader behind read_run/read_qrels,
compare and rbo; tieaware.io.columns' block reader behind eval) caps the line
length at the same MAX_LINE_BYTES with the same message, drops a leading
UTF-8 byte order mark, and reports a damaged compressed file as an input
error (exit 2), not a traceback.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from tieaware import TieawareError, read_qrels, read_run
from tieaware.cli import SUBCOMMANDS, main
from tieaware.io import blocks, columns, text
from tieaware.io.text import BOM, MAX_LINE_BYTES
from tieaware.io.trec import parse_qrels, parse_run

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 2\n"
RUN = "q1 Q0 a 1 2 r\nq1 Q0 b 2 2 r\nq2 Q0 d 1 3 r\nq2 Q0 c 2 1 r\nq2 Q0 e 3 1 r\n"
TOO_LONG = "line longer than 1,048,576 bytes (no newline within them): not a TREC text file?"


def _one_error(capsys, command: str) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"tieaware {command}: error: "), err
    return err.rstrip()


def _commands(qrels: str, run: str, other_run: str) -> list[list[str]]:
    """Every command that reads TREC files, reading *run* (and *qrels* where it reads qrels)."""
    return [
        ["eval", qrels, run],
        ["eval", qrels, run, "--format", "trec"],
        ["eval", qrels, run, "--float", "--spread"],
        ["compare", qrels, run, other_run],
        ["compare", qrels, other_run, run],
        ["rbo", run, other_run],
        ["corr", run, other_run],
    ]


class Endless(io.RawIOBase):
    """A stream of zero bytes without end (as /dev/zero), counting what was read."""

    def __init__(self, byte: bytes = b"\0") -> None:
        self.read_bytes = 0
        self.byte = byte

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = len(buffer)
        buffer[:n] = self.byte * n
        self.read_bytes += n
        return n


# -- a file without newlines: bounded memory, one line ------------------------------------------


@pytest.mark.parametrize("which", ["qrels", "run", "other run"])
def test_a_file_without_newlines_is_refused_by_every_command(capsys, tmp_path, which):
    files = {"qrels": QRELS, "run": RUN, "other run": RUN}
    paths = {}
    for key, content in files.items():
        paths[key] = tmp_path / f"{key.replace(' ', '_')}.txt"
        paths[key].write_text(content)
    paths[which].write_bytes(b"\0" * (MAX_LINE_BYTES + 10))
    for argv in _commands(str(paths["qrels"]), str(paths["run"]), str(paths["other run"])):
        if str(paths[which]) not in argv:
            continue
        assert main(argv) == 2, argv
        assert _one_error(capsys, argv[0]).endswith(f"{paths[which]}:1: {TOO_LONG}"), argv


def test_dev_zero_is_refused_by_every_command(capsys, tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    for argv in _commands(str(tmp_path / "qrels.txt"), "/dev/zero", str(tmp_path / "run.txt")):
        assert main(argv) == 2, argv
        assert _one_error(capsys, argv[0]).endswith(f"/dev/zero:1: {TOO_LONG}"), argv


@pytest.mark.parametrize("reader", ["trec", "columns"])
def test_an_endless_stream_is_refused_after_a_bounded_read(reader):
    stream = Endless()
    with pytest.raises(TieawareError, match=r"^<run>:1: line longer than 1,048,576 bytes"):
        if reader == "trec":
            read_run(io.BufferedReader(stream))
        else:
            columns.read_table(io.BufferedReader(stream, buffer_size=1 << 16), "run")
    # never more than one block plus one line in memory, whatever the input
    assert stream.read_bytes <= blocks._BLOCK + 2 * MAX_LINE_BYTES


def test_the_long_line_is_named_by_its_number_in_every_reader(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 2 r\n\nq1 Q0 b 2 " + "1" * (MAX_LINE_BYTES + 1) + " r\nq1 Q0 c 3 1 r\n")
    message = f"{path}:3: {TOO_LONG}"
    with pytest.raises(TieawareError) as trec:
        read_run(path)
    with pytest.raises(TieawareError) as table:
        columns.read_table(path, "run")
    assert str(trec.value) == str(table.value) == message


def test_a_line_of_exactly_the_cap_is_read(tmp_path):
    docno = "d" * (MAX_LINE_BYTES - len("q1 Q0  1 2 r"))
    path = tmp_path / "run.txt"
    path.write_text(f"q1 Q0 {docno} 1 2 r\n")
    assert read_run(path) == {"q1": [(docno, Fraction(2))]}
    assert columns.read_table(path, "run").docno.tolist() == [docno.encode()]


def test_a_text_stream_without_newlines_is_refused_too():
    class EndlessText(io.TextIOBase):
        def read(self, n=-1):
            return "x" * (n if n >= 0 else 1 << 30)

        def readline(self, n=-1):
            return self.read(n)

    with pytest.raises(TieawareError, match=r"^<qrels>:1: line longer"):
        read_qrels(EndlessText())


# -- a UTF-8 byte order mark ---------------------------------------------------------------------


def _values(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    return out.split("\n", 1)[1]  # without the title, which names the files


@pytest.mark.parametrize("compress", ["", ".gz", ".bz2"])
def test_a_bom_changes_no_number_in_any_command(capsys, tmp_path, compress):
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open}[compress]
    for name, content in (("qrels", QRELS), ("run", RUN), ("other", RUN.replace(" 3 r", " 1 r"))):
        with opener(tmp_path / f"{name}{compress}", "wb") as f:
            f.write(content.encode())
        with opener(tmp_path / f"bom_{name}{compress}", "wb") as f:
            f.write(BOM + content.encode())
    plain = [str(tmp_path / f"{n}{compress}") for n in ("qrels", "run", "other")]
    marked = [str(tmp_path / f"bom_{n}{compress}") for n in ("qrels", "run", "other")]
    for argv in (["eval", "{0}", "{1}", "-q", "-m", "AP P@1"], ["eval", "{0}", "{1}", "--format", "trec", "-q"],
                 ["compare", "{0}", "{1}", "{2}", "-m", "AP"], ["rbo", "{1}", "{2}"]):
        expected = _values(capsys, [a.format(*plain) for a in argv])
        assert _values(capsys, [a.format(*marked) for a in argv]) == expected, argv
        assert "\ufeff" not in expected


def test_a_bom_on_stdin_is_dropped(capsys, tmp_path, monkeypatch):
    (tmp_path / "run.txt").write_text(RUN)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BOM + QRELS.encode())))
    assert main(["eval", "-", str(tmp_path / "run.txt"), "-q", "-m", "P@1"]) == 0
    out = capsys.readouterr().out
    assert "\ufeff" not in out and "q1 " in out


@pytest.mark.parametrize(
    "source",
    [
        lambda: io.BytesIO(BOM + RUN.encode()),
        lambda: io.StringIO("\ufeff" + RUN),  # decoded as utf-8 rather than utf-8-sig
        lambda: ["\ufeff" + line for line in RUN.splitlines()][:1] + RUN.splitlines()[1:],
    ],
    ids=["bytes", "text", "lines"],
)
def test_the_python_readers_drop_a_bom(source):
    expected = parse_run(RUN.splitlines())
    data = source()
    assert (parse_run(data) if isinstance(data, list) else read_run(data)) == expected
    if not isinstance(data, list):
        table = columns.read_table(source(), "run")
        assert table.qid.tolist()[0] == b"q1"


def test_a_bom_only_at_the_start():
    # a BOM later in the file is a character like any other (part of a qid), as in trec_eval
    assert list(parse_qrels(["q1 0 a 1", "\ufeffq2 0 b 1"])) == ["q1", "\ufeffq2"]


# -- damaged compressed files ------------------------------------------------------------------


def _damaged(tmp_path):
    good = gzip.compress(RUN.encode() * 50)
    corrupt = bytearray(good)
    for i in range(20, 60):
        corrupt[i] ^= 0xFF
    bad_bz2 = bytearray(bz2.compress(RUN.encode() * 50))
    for i in range(20, 60):
        bad_bz2[i] ^= 0x55
    files = {
        "corrupt.run.gz": bytes(corrupt),  # zlib.error, which is not an OSError
        "truncated.run.gz": good[: len(good) // 2],
        "not_gzip.run.gz": b"hello\n",
        "corrupt.run.bz2": bytes(bad_bz2),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return list(files)


def test_a_damaged_compressed_file_is_one_line_in_every_command(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    for name in _damaged(tmp_path):
        for argv in _commands(str(tmp_path / "qrels.txt"), str(tmp_path / name), str(tmp_path / "run.txt")):
            assert main(argv) == 2, argv
            assert f"cannot read {str(tmp_path / name)!r}: " in _one_error(capsys, argv[0]), argv


def test_a_damaged_compressed_file_is_a_tieaware_error_in_the_api(tmp_path):
    for name in _damaged(tmp_path):
        with pytest.raises(TieawareError, match=r"^cannot read "):
            read_run(tmp_path / name)
        with pytest.raises(TieawareError, match=r"^cannot read "):
            columns.read_table(tmp_path / name, "run")
    with pytest.raises(TieawareError, match=r"damaged compressed data"):
        read_run(tmp_path / "corrupt.run.gz")


# -- Ctrl-C ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch, command):
    # every command, not only the long ones: the handler is in cli.main, and a test per command keeps it there
    import importlib

    module = importlib.import_module(f"tieaware.commands.{command}")

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "run", interrupted)
    argv = {"eval": ["eval"], "compare": ["compare", "q", "a", "b"], "rbo": ["rbo", "a", "b"],
            "check": ["check", "m:f", "AP"], "vectors": ["vectors", "--out", "x"], "bench": ["bench"],
            "corr": ["corr", "a", "b"], "prove": ["prove"], "conformance": ["conformance"], "disagree": ["disagree"],
            "ties": ["ties", "a"]}[command]
    assert main(argv) == 130
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"tieaware {command}: interrupted\n")


def test_a_real_sigint_stops_a_long_check_with_one_line(tmp_path):
    marker = tmp_path / "started"
    (tmp_path / "slow_metrics.py").write_text(
        "import pathlib, time\n"
        f"MARK = pathlib.Path({str(marker)!r})\n"
        "def ap(scores, labels):\n"
        "    MARK.touch()\n"
        "    time.sleep(60)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "tieaware", "check", "slow_metrics:ap", "AP", "--timeout", "120"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.exists(), process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert (out, err) == ("", "tieaware check: interrupted\n")


# -- results tables (tieaware corr --systems) ----------------------------------------------------

RESULTS = "system\tAP\tP@10\nbm25\t0.31\t0.50\nlm\t0.29\t0.5\ndfr\t0.30\t0.4\n"


def test_a_results_table_is_read_like_a_trec_file(capsys, tmp_path):
    from tieaware.io.systems import read_systems

    plain, marked, endless = tmp_path / "r.tsv", tmp_path / "bom.tsv", tmp_path / "zero.tsv"
    plain.write_text(RESULTS)
    marked.write_bytes(BOM + RESULTS.encode())
    endless.write_bytes(b"\0" * (MAX_LINE_BYTES + 10))
    assert read_systems(marked) == read_systems(plain)._replace(label="system")
    assert read_systems(io.StringIO("\ufeff" + RESULTS)).label == "system"
    with pytest.raises(TieawareError, match=f"^{endless}:1: line longer than 1,048,576 bytes"):
        read_systems(endless)
    (tmp_path / "bad.tsv.gz").write_bytes(_damaged(tmp_path) and (tmp_path / "corrupt.run.gz").read_bytes())
    with pytest.raises(TieawareError, match=r"^cannot read .*damaged compressed data"):
        read_systems(tmp_path / "bad.tsv.gz")
    for path in (endless, tmp_path / "bad.tsv.gz"):
        assert main(["corr", "--systems", str(path)]) == 2
        _one_error(capsys, "corr")
