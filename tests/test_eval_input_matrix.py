"""Every output format and option of `tieaware eval` reads every input format the README lists.

Text, .gz, .bz2, Parquet, Arrow (Feather v2), and the run on stdin: each gives
the very output the plain text files give (the title names the files, so it
is compared with the names replaced).  The scores are exact in binary (3,
2.5, 0.5, ...), so Parquet's float64 scores order and tie as the text does.
"""

from __future__ import annotations

import bz2
import gzip
import io
import sys

import pytest

from tieaware.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
feather = pytest.importorskip("pyarrow.feather")

QRELS = [("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2), ("q2", "d", 1), ("q2", "e", 1), ("q3", "f", 1)]
RUN = [("q1", "a", 3.0), ("q1", "b", 2.5), ("q1", "c", 2.5), ("q1", "x", 0.5), ("q2", "y", 1.0), ("q2", "d", 1.0), ("q2", "e", 0.25)]

OUTPUTS = {
    "table": [],
    "table -q --spread": ["-q", "--spread", "-m", "AP P@2 nDCG"],
    "table --float": ["--float", "-m", "AP nDCG@2"],
    "json -c": ["--format", "json", "-c", "-m", "AP RR"],
    "table -M -J": ["-M", "2", "-J", "-m", "AP P@2"],
    "trec": ["--format", "trec"],
    "trec -q trec_eval": ["--format", "trec", "-q", "--tie-break", "trec_eval", "-m", "all_trec"],
    "trec -M -J": ["--format", "trec", "-q", "-M", "2", "-J", "-m", "map", "-m", "11pt_avg"],
    "trec relstring": ["--format", "trec", "-q", "-m", "relstring", "-m", "map", "--tie-break", "trec_eval"],
}


def _text(kind: str) -> bytes:
    rows = QRELS if kind == "qrels" else RUN
    if kind == "qrels":
        return "".join(f"{q} 0 {d} {v}\n" for q, d, v in rows).encode()
    return "".join(f"{q} Q0 {d} {i} {v!r} t\n" for i, (q, d, v) in enumerate(rows, 1)).encode()


def _arrow(kind: str):
    rows = QRELS if kind == "qrels" else RUN
    names = ("qid", "docno", "label" if kind == "qrels" else "score")
    return pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})


def _write(tmp_path, kind: str, form: str) -> str:
    path = tmp_path / f"{kind}.{form}"
    if form == "txt":
        path.write_bytes(_text(kind))
    elif form == "gz":
        path.write_bytes(gzip.compress(_text(kind)))
    elif form == "bz2":
        path.write_bytes(bz2.compress(_text(kind)))
    elif form == "parquet":
        pq.write_table(_arrow(kind), path)
    elif form == "arrow":
        feather.write_feather(_arrow(kind), path)
    return str(path)


def _eval(capsys, monkeypatch, argv: list[str], stdin: bytes = b"") -> str:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(["eval", *argv, "-j", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("output", list(OUTPUTS))
@pytest.mark.parametrize("form", ["gz", "bz2", "parquet", "arrow", "stdin"])
def test_every_input_format_gives_the_text_output(tmp_path, capsys, monkeypatch, output, form):
    options = OUTPUTS[output]
    q_txt, r_txt = _write(tmp_path, "qrels", "txt"), _write(tmp_path, "run", "txt")
    expected = _eval(capsys, monkeypatch, [q_txt, r_txt, *options])
    if form == "stdin":
        q, r = q_txt, "-"
        got = _eval(capsys, monkeypatch, [q, r, *options], stdin=_text("run"))
    else:
        q, r = _write(tmp_path, "qrels", form), _write(tmp_path, "run", form)
        got = _eval(capsys, monkeypatch, [q, r, *options])
    got = got.replace(f"qrels {q}, run {r}", f"qrels {q_txt}, run {r_txt}")
    if form in ("parquet", "arrow"):  # runid is a text run's sixth column; a columnar run has none
        assert ("runid                 \tall\t\n" in got) == ("runid                 \tall\tt\n" in expected)
        got = got.replace("runid                 \tall\t\n", "runid                 \tall\tt\n")
    assert got == expected
