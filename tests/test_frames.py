"""Results as long tables (PyTerrier's name, qid, measure, value): Evaluation.to_long / to_polars, eval --format csv|parquet.

Every input format of ``tieaware eval`` (TREC text, gzip, bzip2, Parquet,
Feather) gives the same rows in both outputs, and they equal
``tieaware.evaluate``'s exact values rounded once.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import polars as pl
import pytest

import tieaware
from tieaware.cli import main
from tieaware.io import frames

# tests/test_cli_eval.py's hand example: q1 has b and c tied, q2 a and b tied.
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 x 1\nq2 0 a 1\n"
RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 2 r\nq1 Q0 d 4 1 r\nq2 Q0 a 1 0.5 r\nq2 Q0 b 2 0.50 r\n"
MEASURES = "P@2 AP RR nDCG@3"


def _evaluation():
    return tieaware.evaluate(tieaware.read_qrels(io.StringIO(QRELS)), tieaware.read_run(io.StringIO(RUN)), MEASURES)


def test_to_long_is_pyterriers_shape():
    ev = _evaluation()
    frame = ev.to_long("bm25")
    assert list(frame.columns) == ["name", "qid", "measure", "value"] and frame["value"].dtype == np.float64
    assert len(frame) == 2 * 4 and set(frame["name"]) == {"bm25"}
    for row in frame.itertuples():
        assert row.value == tieaware.to_float(ev.per_query[row.qid][row.measure])  # one rounding of the exact value
    assert frame.query("qid == 'q1' and measure == 'P@2'")["value"].item() == 0.75
    exact = ev.to_long("bm25", exact=True)
    assert exact.loc[0, "value"] == Fraction(3, 4) and exact["value"].dtype == object
    # concatenates with and pivots like pt.Experiment(perquery=True)'s frame
    theirs = pd.DataFrame({"name": ["pt"], "qid": ["q1"], "measure": ["P@2"], "value": [1.0]})
    both = pd.concat([theirs, frame], ignore_index=True)
    assert both.pivot_table(index=["name", "qid"], columns="measure", values="value").loc[("bm25", "q1"), "P@2"] == 0.75


def test_to_polars_keeps_the_exact_text():
    ev = _evaluation()
    frame = ev.to_polars("bm25")
    assert isinstance(frame, pl.DataFrame) and frame.columns == ["name", "qid", "measure", "value", "exact"]
    row = frame.filter((pl.col("qid") == "q1") & (pl.col("measure") == "AP")).row(0, named=True)
    assert row["exact"] == "11/18" and row["value"] == 11 / 18
    floats = tieaware.evaluate(tieaware.read_qrels(io.StringIO(QRELS)), tieaware.read_run(io.StringIO(RUN)), "AP", exact=False)
    assert floats.to_polars()["exact"].null_count() == 2  # float mode claims no exact text


def test_evaluate_matrix_has_the_same_frames():
    scores = np.array([[0.9, 0.9, 0.1], [0.3, 0.2, 0.1]], dtype=np.float32)
    ev = tieaware.evaluate_matrix(scores, [{1}, {0}], "RR@10 nDCG@10")
    frame = ev.to_long("encoder")
    assert frame.query("qid == '0' and measure == 'RR@10'")["value"].item() == 0.75
    assert ev.to_polars("encoder").shape == (4, 5)


def test_bad_name_is_one_error():
    with pytest.raises(tieaware.TieawareError, match="name"):
        _evaluation().to_long(3)


def _inputs(tmp_path, kind):
    """The hand example's qrels and run in one input format."""
    q, r = tmp_path / "qrels", tmp_path / "run"
    if kind == "text":
        q.write_text(QRELS), r.write_text(RUN)
        return str(q), str(r)
    if kind in ("gz", "bz2"):
        opener = gzip.open if kind == "gz" else bz2.open
        paths = []
        for path, text in ((q, QRELS), (r, RUN)):
            name = f"{path}.{kind}"
            with opener(name, "wt") as f:
                f.write(text)
            paths.append(name)
        return tuple(paths)
    qf = pd.DataFrame([line.split() for line in QRELS.splitlines()], columns=["qid", "it", "docno", "label"]).astype({"label": int})
    rf = pd.DataFrame([line.split() for line in RUN.splitlines()], columns=["qid", "q0", "docno", "rank", "score", "tag"])
    rf["score"] = rf["score"].astype(float)  # 2.0 and 2, 0.5 and 0.50: equal numbers, still tied
    suffix = {"parquet": "parquet", "feather": "feather"}[kind]
    paths = (f"{q}.{suffix}", f"{r}.{suffix}")
    for frame, path in zip((qf, rf), paths):
        frame.to_parquet(path) if kind == "parquet" else frame.reset_index(drop=True).to_feather(path)
    return paths


def _expected(per_query: bool):
    ev = _evaluation()
    rows = [(q, m, tieaware.to_float(ev.per_query[q][m])) for q in ev.queries for m in MEASURES.split()] if per_query else []
    return rows + [("all", m, tieaware.to_float(ev.mean[m])) for m in MEASURES.split()]


@pytest.mark.parametrize("kind", ["text", "gz", "bz2", "parquet", "feather"])
def test_eval_csv_and_parquet_for_every_input(tmp_path, kind, capsys):
    qrels, run = _inputs(tmp_path, kind)
    assert main(["eval", qrels, run, "-m", MEASURES, "-q", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["name", "qid", "measure", "value", "exact", "trec_eval"]
    assert [(r["qid"], r["measure"], float(r["value"])) for r in rows] == _expected(True)
    assert {r["name"] for r in rows} == {run.rsplit("/", 1)[-1]}
    by = {(r["qid"], r["measure"]): r for r in rows}
    assert by["all", "AP"]["exact"] == "49/72" and float(by["all", "AP"]["trec_eval"]) == 7 / 12
    done = subprocess.run(
        [sys.executable, "-m", "tieaware", "eval", qrels, run, "-m", MEASURES, "--format", "parquet"],
        capture_output=True,
        check=True,
    )
    table = pd.read_parquet(io.BytesIO(done.stdout))
    assert list(table.columns) == ["name", "qid", "measure", "value", "exact", "trec_eval"]
    assert list(zip(table["qid"], table["measure"], table["value"])) == _expected(False)  # without -q: the means


def test_eval_csv_in_float_mode_has_no_exact_text(tmp_path, capsys):
    qrels, run = _inputs(tmp_path, "text")
    assert main(["eval", qrels, run, "-m", "AP", "--float", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["exact"] == "" and abs(float(rows[0]["value"]) - 49 / 72) < 1e-15


def test_parquet_to_a_terminal_is_one_line(tmp_path, capsys, monkeypatch):
    qrels, run = _inputs(tmp_path, "text")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["eval", qrels, run, "-m", "AP", "--format", "parquet"]) != 0
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "redirect" in err


def test_csv_text_matches_the_rows():
    rows = frames.long_rows("x", ["q1"], {"q1": {"P@1": Fraction(1, 3)}}, ["P@1"])
    assert frames.to_csv(rows) == "name,qid,measure,value,exact\nx,q1,P@1,0.3333333333333333,1/3\n"


def test_compare_systems_long_frames_hold_each_runs_values():
    qrels = tieaware.read_qrels(io.StringIO(QRELS))
    runs = {"a": tieaware.read_run(io.StringIO(RUN)), "b": tieaware.read_run(io.StringIO(RUN.replace(" 3 r", " 0 r")))}
    c = tieaware.compare_systems(qrels, runs, "AP P@2", test=None)
    frame = c.to_long()
    assert list(frame.columns[:4]) == ["name", "qid", "measure", "value"] and frame.equals(c.per_query_dataframe())
    for name, run in runs.items():
        ev = tieaware.evaluate(qrels, run, "AP P@2")
        mine = frame[frame["name"] == name]
        assert [(r.qid, r.measure, r.value) for r in mine.itertuples()] == [
            (q, m, tieaware.to_float(ev.per_query[q][m])) for q in ev.queries for m in ("AP", "P@2")
        ]
    polars = c.to_polars()
    assert polars.columns == list(frame.columns) and polars["value"].to_list() == frame["value"].tolist()


def test_eval_csv_with_spread_and_from_stdin(tmp_path, capsys, monkeypatch):
    qrels, run = _inputs(tmp_path, "text")
    assert main(["eval", qrels, run, "-m", "AP P@2", "-q", "--spread", "--format", "csv"]) == 0
    rows = {(r["qid"], r["measure"]): r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    # By hand: q1 is a, then b (0) and c (2) in either order, then d; num_rel 3 (a, c, x).  b first: AP (1 + 2/3)/3
    # = 5/9, P@2 1/2; c first: AP 2/3, P@2 1.  q2: a (1) and b tie, num_rel 1: AP 1 or 1/2, P@2 1/2 either way.
    want = {
        ("q1", "AP"): (5 / 9, 2 / 3), ("q1", "P@2"): (1 / 2, 1.0), ("q2", "AP"): (1 / 2, 1.0), ("q2", "P@2"): (1 / 2, 1 / 2),
        ("all", "AP"): (19 / 36, 5 / 6), ("all", "P@2"): (1 / 2, 3 / 4),
    }  # fmt: skip
    assert {key: (float(rows[key]["min"]), float(rows[key]["max"])) for key in want} == want
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    assert main(["eval", qrels, "-", "-m", "AP", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "stdin,all,AP,0.6805555555555556,49/72,0.5833333333333334"


def test_long_frames_with_a_spread_have_min_and_max():
    scores = np.array([[0.9, 0.9, 0.1], [0.3, 0.2, 0.1]], dtype=np.float32)
    ev = tieaware.evaluate_matrix(scores, [{1}, {0}], "RR@10 P@1", spread=True)
    frame = ev.to_long("encoder")
    assert list(frame.columns) == ["name", "qid", "measure", "value", "min", "max"]  # compare_systems' per-query columns
    row = frame.query("qid == '0' and measure == 'RR@10'").iloc[0]
    assert (row["value"], row["min"], row["max"]) == (0.75, 0.5, 1.0)  # the relevant column ties for first
    polars = ev.to_polars("encoder")
    assert polars.columns == ["name", "qid", "measure", "value", "min", "max", "exact"]
    assert polars["min"].to_list() == frame["min"].tolist()
