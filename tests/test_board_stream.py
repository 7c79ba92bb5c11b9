"""The compare leaderboard on run files partitioned by query (tieaware.runs.board_stream) equals the in-memory path.

Four small runs with ties, their queries not contiguous (each run's lines
shuffled), each run holding a different set of queries, compared with
tieaware.runs.leaderboard.compare_prepared on the runs read whole: the same
result (equal Fractions, the same float bits, the same notes) for 1, 2 and 7
partitions and for 1 and 2 processes, with the exact distributions of an
enumeration and the Monte Carlo draws of shuffled orderings both read back
from the partitions.  Bad input names the file and the line; nothing is
printed, and the temporary files are removed, also on an error and on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import random

import pytest

from tieaware.cli import main
from tieaware.io.columns import prepare, read_table
from tieaware.model.errors import TieawareError
from tieaware.runs import board_stream
from tieaware.runs.board_stream import compare_systems_files
from tieaware.runs.leaderboard import compare_prepared

MEASURES = "AP nDCG@5 P@3 RR Bpref"


def _files(folder):
    rnd = random.Random(7)
    qids = [f"q{i}" for i in range(1, 15)]
    qrels = []
    for q in qids[:-1]:  # q14 has no qrels
        for d in range(10):
            if rnd.random() < 0.6:
                qrels.append(f"{q} 0 d{d} {rnd.choice([0, 0, 1, 2])}")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    names = []
    for r in range(4):
        lines = []
        for i, q in enumerate(qids):
            if (i + r) % 5 == 0:  # each run lacks other queries
                continue
            for d in rnd.sample(range(12), 8):
                lines.append(f"{q} Q0 d{d} 0 {rnd.choice([1, 2, 2, 3])} sys{r}")
        rnd.shuffle(lines)  # queries not contiguous
        name = f"r{r}.run"
        (folder / name).write_text("\n".join(lines) + "\n")
        names.append(str(folder / name))
    return str(folder / "qrels"), names


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("board"))


def _whole(qrels, runs, measures, **kw):
    table = read_table(qrels, "qrels")
    return compare_prepared({r: prepare(table, read_table(r, "run"), trec_order=False) for r in runs}, measures, **kw)


def _same(x, y):
    assert json.dumps(x.as_dict(12)) == json.dumps(y.as_dict(12))
    assert x.standings == y.standings and x.skipped == y.skipped and x.notes == y.notes


CASES = [
    dict(test="t", exact=True),  # few varying queries: enumerated from the distributions read back
    # few enumerable pairs: Monte Carlo over shuffled orderings (AP, RR) and over the distributions read back (nDCG@5)
    dict(test="t", exact=True, limit=16),
    dict(test="sign", exact=False, correction="holm"),  # float mode: shuffled orderings, joint over the pairs
    dict(test=None, exact=True),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("partitions, jobs", [(1, 1), (2, 2), (7, 1)])
def test_partitioned_equals_in_memory(files, case, partitions, jobs, tmp_path):
    qrels, runs = files
    kw = dict(CASES[case])
    kw.setdefault("alpha", 0.3)
    expected = _whole(qrels, runs, MEASURES, **kw)
    got = compare_systems_files(qrels, runs, MEASURES, partitions=partitions, jobs=jobs, directory=str(tmp_path), **kw)
    _same(got, expected)
    assert got.skipped and got.queries == expected.queries
    assert os.listdir(tmp_path) == []


def test_a_baseline_and_the_monte_carlo_of_a_measure_without_cutoff(files, tmp_path):
    qrels, runs = files
    kw = dict(test="t", alpha=0.5, baseline=runs[2], exact=False, samples=50)
    _same(compare_systems_files(qrels, runs, "AP R@4", partitions=3, jobs=1, **kw), _whole(qrels, runs, "AP R@4", **kw))


def test_the_command_prints_what_the_in_memory_path_computes(files, capsys):
    qrels, runs = files
    assert main(["compare", qrels, *runs, "-m", "AP P@3", "--test", "t", "--format", "json", "--jobs", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == _whole(qrels, runs, "AP P@3", test="t").as_dict()


def test_bad_input_names_the_file_and_line_and_leaves_nothing(files, tmp_path, capsys):
    qrels, runs = files
    bad = tmp_path / "bad.run"
    lines = open(runs[0]).read().splitlines()
    lines[5] = "q1 Q0 d1 0 not-a-score sys0"
    bad.write_text("\n".join(lines) + "\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(TieawareError, match=r"bad\.run:6: score"):
        compare_systems_files(qrels, [runs[1], str(bad)], "AP", directory=str(scratch), jobs=1)
    assert os.listdir(scratch) == []
    assert main(["compare", qrels, runs[1], str(bad), runs[2], "-m", "AP"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "bad.run:6: score" in out.err


def test_a_duplicate_in_a_partition_is_refused_naming_the_file(files, tmp_path):
    qrels, runs = files
    dup = tmp_path / "dup.run"
    lines = open(runs[0]).read().splitlines()
    dup.write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(TieawareError, match="dup.run"):
        compare_systems_files(qrels, [runs[1], str(dup)], "AP", partitions=3, directory=str(tmp_path), jobs=2)
    assert sorted(os.listdir(tmp_path)) == ["dup.run"]


def test_temporary_files_are_removed_on_ctrl_c(files, tmp_path, monkeypatch):
    qrels, runs = files

    def interrupted(*args, **kwargs):
        assert os.listdir(tmp_path)  # the partitions exist while evaluating
        raise KeyboardInterrupt

    monkeypatch.setattr(board_stream, "_gather", interrupted)
    with pytest.raises(KeyboardInterrupt):
        compare_systems_files(qrels, runs, "AP", test=None, partitions=4, directory=str(tmp_path), jobs=1)
    assert os.listdir(tmp_path) == []


def test_runs_sharing_no_query(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "a").write_text("q1 Q0 a 1 1 x\n")
    (tmp_path / "b").write_text("q2 Q0 b 1 1 y\n")
    with pytest.raises(TieawareError, match="share no query"):
        compare_systems_files(str(tmp_path / "qrels"), [str(tmp_path / "a"), str(tmp_path / "b")], "AP", test=None, jobs=1)


def test_a_run_on_stdin(files, capsys, monkeypatch):
    import io
    import sys

    qrels, runs = files
    expected = _whole(qrels, runs[:3], "AP", test="sign").as_dict()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(open(runs[1], "rb").read())))
    assert main(["compare", qrels, runs[0], "-", runs[2], "-m", "AP", "--test", "sign", "--format", "json", "--jobs", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["systems"] == [runs[0], "-", runs[2]]
    text = json.dumps(out).replace('"-"', json.dumps(runs[1]))
    assert json.loads(text) == expected
