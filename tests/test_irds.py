"""Qrels and official runs by ir_datasets id (tieaware.io.irds), read wherever a file is read.

No download: the datasets are registered here, through ir_datasets' own
registry API, over local files (ir_datasets' TrecQrels and TrecScoredDocs
on LocalDownload), as a dataset of ir_datasets' catalogue is registered.
"""

from __future__ import annotations

import json
import sys
import uuid

import pytest

ir_datasets = pytest.importorskip("ir_datasets", reason="the irds extra (the test extra installs it)")
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import TrecQrels, TrecScoredDocs  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402

import tieaware  # noqa: E402
from tieaware.cli import main  # noqa: E402

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 x 1\nq2 0 a 1\n"
RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 2 r\nq1 Q0 d 4 1 r\nq2 Q0 a 1 0.5 r\nq2 Q0 b 2 0.5 r\n"
OTHER = "q1 Q0 c 1 1 r\nq1 Q0 a 2 1 r\nq1 Q0 b 3 0 r\nq2 Q0 b 1 1 r\nq2 Q0 a 2 1 r\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("irds")
    paths = {}
    for name, text in (("qrels", QRELS), ("run", RUN), ("other", OTHER)):
        paths[name] = root / f"{name}.txt"
        paths[name].write_text(text)
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture(scope="module")
def dataset(files):
    """Two datasets in ir_datasets' registry: one with qrels and an official run, one with qrels only."""
    name = f"tieaware-test-{uuid.uuid4().hex[:8]}"
    defs = {0: "not relevant", 1: "relevant", 2: "highly relevant"}
    ir_datasets.registry.register(
        f"{name}/full", Dataset(TrecQrels(LocalDownload(files["qrels"]), defs), TrecScoredDocs(LocalDownload(files["run"])))
    )
    ir_datasets.registry.register(f"{name}/judged", Dataset(TrecQrels(LocalDownload(files["qrels"]), defs)))
    return name


def _json(capsys, *argv):
    assert main(list(argv)) == 0
    out = json.loads(capsys.readouterr().out)
    out.pop("title")
    return out


def test_read_qrels_and_run_by_id(files, dataset):
    assert tieaware.read_qrels(f"irds:{dataset}/full") == tieaware.read_qrels(files["qrels"])
    assert tieaware.read_run(f"irds:{dataset}/full") == tieaware.read_run(files["run"])  # 2.0 and 2 still tie
    ev = tieaware.evaluate(f"irds:{dataset}/judged", f"irds:{dataset}/full", "AP P@2")
    assert ev.mean == tieaware.evaluate(tieaware.read_qrels(files["qrels"]), tieaware.read_run(files["run"]), "AP P@2").mean
    assert tieaware.evaluate(f"irds:{dataset}/judged", tieaware.read_run(files["run"]), "AP").mean["AP"] == ev.mean["AP"]


def test_eval_with_a_bare_id_and_the_official_run(files, dataset, capsys):
    want = _json(capsys, "eval", files["qrels"], files["run"], "-m", "AP P@2 RR", "-q", "--format", "json")
    assert _json(capsys, "eval", f"{dataset}/judged", files["run"], "-m", "AP P@2 RR", "-q", "--format", "json") == want
    assert _json(capsys, "eval", f"irds:{dataset}/judged", f"irds:{dataset}/full", "-m", "AP P@2 RR", "-q", "--format", "json") == want
    assert main(["eval", f"{dataset}/judged", files["run"], "-m", "AP", "--format", "trec"]) == 0
    assert capsys.readouterr().out == ("map                   \tall\t0.6806\n")


def test_compare_and_corr_read_ids(files, dataset, capsys):
    args = ["-m", "AP RR", "--format", "json"]
    assert main(["compare", files["qrels"], files["run"], files["other"], *args]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main(["compare", f"{dataset}/judged", f"irds:{dataset}/full", files["other"], *args]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["measures"] == want["measures"] and _numbers(got) == _numbers(want)
    assert main(["corr", files["run"], files["other"], "--format", "json"]) == 0
    corr_want = json.loads(capsys.readouterr().out)
    assert main(["corr", f"irds:{dataset}/full", files["other"], "--format", "json"]) == 0
    assert _numbers(json.loads(capsys.readouterr().out)) == _numbers(corr_want)


def _numbers(data):
    """The values of a JSON report, without the names of its inputs."""
    if isinstance(data, dict):
        return {k: _numbers(v) for k, v in data.items() if k not in ("a", "b", "x", "y", "title", "run_a", "run_b", "qrels", "files")}
    if isinstance(data, list):
        return [_numbers(v) for v in data]
    return data


def _one_line(capsys, argv):
    assert main(argv) != 0
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    return err


def test_errors_are_one_line(files, dataset, capsys):
    err = _one_line(capsys, ["eval", f"irds:{dataset}/ful", files["run"]])
    assert "not a dataset id ir_datasets knows" in err and f"irds:{dataset}/full" in err  # the closest id
    err = _one_line(capsys, ["eval", f"{dataset}/judged", f"irds:{dataset}/judged"])
    assert "has no official run" in err
    err = _one_line(capsys, ["eval", "no-such/dataset", files["run"]])
    assert "No such file" in err and "nor is it a dataset id" in err
    with pytest.raises(tieaware.TieawareError, match="not a dataset id"):
        tieaware.read_qrels("irds:no-such/dataset")


def test_without_ir_datasets_one_line_names_the_extra(files, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets raises ImportError
    err = _one_line(capsys, ["eval", "irds:msmarco-passage/trec-dl-2019/judged", files["run"]])
    assert "pip install 'tieaware[irds]'" in err
    err = _one_line(capsys, ["eval", "msmarco-passage/trec-dl-2019/judged", files["run"]])
    assert "No such file" in err and "pip install 'tieaware[irds]'" in err
    with pytest.raises(tieaware.TieawareError, match="needs ir_datasets"):
        tieaware.read_qrels("irds:x/y")
