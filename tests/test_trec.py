"""TREC qrels/run reading, tie groups from exact score strings, trec_eval's order."""

import contextlib
import importlib.util
import io
from fractions import Fraction
from pathlib import Path

import pytest

import tieaware
from tieaware import TieawareError
from tieaware.cli import main
from tieaware.io.trec import (
    parse_qrels,
    parse_run,
    read_qrels,
    read_run,
    read_sample,
    run_ranking,
    tie_groups,
    trec_eval_order,
    trec_eval_ranking,
)

F = Fraction
DATA = Path(tieaware.__file__).parent / "data"


# -- reading ------------------------------------------------------------------


def test_qrels_columns_and_blank_lines():
    qrels = parse_qrels(["q1 0 d1 2", "   ", "q1 0 d2 0", "q2\t0\td1\t1"])
    assert qrels == {"q1": {"d1": F(2), "d2": F(0)}, "q2": {"d1": F(1)}}


def test_run_scores_are_exact_fractions_of_the_text():
    run = parse_run(["q1 Q0 a 1 0.1 r", "q1 Q0 b 2 1e-1 r", "q1 Q0 c 3 0.10000000000000001 r", "q1 Q0 d 9 -3 r"])
    assert run == {"q1": [("a", F(1, 10)), ("b", F(1, 10)), ("c", F(10000000000000001, 10**17)), ("d", F(-3))]}


def test_read_from_path_and_file_object(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\n")
    assert read_qrels(path) == read_qrels(str(path)) == read_qrels(io.StringIO("q1 0 d1 1\n")) == {"q1": {"d1": F(1)}}
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 r\n")
    assert read_run(path) == read_run(io.StringIO("q1 Q0 d1 1 2.5 r\n")) == {"q1": [("d1", F(5, 2))]}


def test_rank_column_is_ignored_as_in_trec_eval():
    # trec_eval ranks by score alone; a rank column that disagrees changes nothing.
    run = parse_run(["q1 Q0 a 1 1 r", "q1 Q0 b 2 5 r"])
    assert trec_eval_order(run["q1"]) == ["b", "a"]


# -- bad input: file:line, the offending value, TieawareError ------------------


@pytest.mark.parametrize(
    "lines, message",
    [
        (["q1 0 d1 1", "q1 0 d2"], "qrels.txt:2: expected 4 columns (qid iter docno label), got 3: 'q1 0 d2'"),
        (["q1 0 d1 1 extra"], "qrels.txt:1: expected 4 columns (qid iter docno label), got 5: 'q1 0 d1 1 extra'"),
        (["q1 0 d1 high"], "qrels.txt:1: label must be a decimal number such as 12, -0.5 or 1.5e-3, got 'high'"),
        (["q1 0 d1 nan"], "qrels.txt:1: label must be a decimal number such as 12, -0.5 or 1.5e-3, got 'nan'"),
        (["q1 0 d1 1", "q1 0 d1 2"], "qrels.txt:2: duplicate judgement of docno 'd1' for query 'q1' (first on line 1)"),
    ],
)
def test_bad_qrels(lines, message):
    with pytest.raises(TieawareError) as info:
        parse_qrels(lines, "qrels.txt")
    assert str(info.value) == message


@pytest.mark.parametrize(
    "lines, message",
    [
        (
            ["q1 Q0 a 1 2 r", "", "q1 Q0 b 2 1"],
            "run.txt:3: expected 6 columns (qid Q0 docno rank score run_id), got 5: 'q1 Q0 b 2 1'",
        ),
        (["q1 Q0 a 1 NaN r"], "run.txt:1: score is NaN, got 'NaN'; a NaN score has no place in a ranking"),
        (["q1 Q0 a 1 -nan r"], "run.txt:1: score is NaN, got '-nan'; a NaN score has no place in a ranking"),
        (["q1 Q0 a 1 high r"], "run.txt:1: score must be a decimal number such as 12, -0.5 or 1.5e-3, got 'high'"),
        (["q1 Q0 a 1 inf r"], "run.txt:1: score must be a decimal number such as 12, -0.5 or 1.5e-3, got 'inf'"),
        (
            ["q1 Q0 a 1 2 r", "q2 Q0 a 1 2 r", "q1 Q0 a 2 1 r"],
            "run.txt:3: duplicate docno 'a' for query 'q1' (first on line 1)",
        ),
    ],
)
def test_bad_run(lines, message):
    with pytest.raises(TieawareError) as info:
        parse_run(lines, "run.txt")
    assert str(info.value) == message


def test_file_name_in_messages_comes_from_the_path(tmp_path):
    path = tmp_path / "myrun.txt"
    path.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 x r\n")
    with pytest.raises(TieawareError, match=r"myrun\.txt:2: score must be a decimal number such as 12, -0.5 or 1.5e-3, got 'x'$"):
        read_run(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(TieawareError, match=r"^cannot read '.*nope\.txt': No such file or directory$"):
        read_qrels(tmp_path / "nope.txt")
    path = tmp_path / "bin.run"
    path.write_bytes(b"q1 Q0 a 1 \xff r\n")
    with pytest.raises(TieawareError, match=r"bin\.run:1: not UTF-8 text \(invalid start byte, byte offset 10 in the line\)$"):
        read_run(path)


# -- tie groups and orders ------------------------------------------------------


def test_ties_come_from_exact_score_values():
    # "2", "2.0" and "20e-1" are one value; 2.0000000000000001 is another,
    # although all four are the same float.
    run = parse_run(["q Q0 a 1 2 r", "q Q0 b 2 2.0 r", "q Q0 c 3 20e-1 r", "q Q0 d 4 2.0000000000000001 r"])["q"]
    assert tie_groups(run) == [["d"], ["c", "b", "a"]]


def test_run_ranking_labels_unjudged_as_zero():
    run = parse_run(["q Q0 a 1 3 r", "q Q0 b 2 2.0 r", "q Q0 c 3 2 r", "q Q0 d 4 1 r"])["q"]
    qrels = {"a": F(1), "b": F(0), "c": F(2), "x": F(1)}
    assert run_ranking(run, qrels) == [F(1), [F(2), F(0)], F(0)]
    # trec_eval: a (3); then the tie b, c in descending docno: c, b; then d.
    assert trec_eval_order(run) == ["a", "c", "b", "d"]
    assert trec_eval_ranking(run, qrels) == [F(1), F(2), F(0), F(0)]


def test_trec_eval_breaks_ties_by_docno_descending_bytewise():
    # strcmp order: "B" < "a" < "a1" < "b", so descending is b, a1, a, B.
    run = [("a", F(1)), ("B", F(1)), ("b", F(1)), ("a1", F(1)), ("z", F(0))]
    assert trec_eval_order(run) == ["b", "a1", "a", "B", "z"]


def test_trec_eval_order_compares_scores_as_c_floats():
    # trec_eval 9.0.8 reads a score with atof and keeps it in a C float (trec_format.h:
    # `float sim`), so scores equal as float32s tie there and are broken by docno.
    run = [("a", F("0.1")), ("b", F("0.10000000000000000001"))]  # one double
    assert tie_groups(run) == [["b"], ["a"]]
    assert trec_eval_order(run) == ["b", "a"]
    run = [("b", F("0.1")), ("a", F("0.10000000000000000001"))]
    assert trec_eval_order(run) == ["b", "a"]  # docno decides, not the exact score
    for high, low in [("1.00000002", "1.00000001"), ("1e301", "1e300"), ("1e-50", "0")]:
        # distinct doubles, one float32 (1e300 and 1e301 overflow to inf, 1e-50 underflows to 0)
        run = [("a", F(high)), ("b", F(low))]
        assert tie_groups(run) == [["a"], ["b"]]
        assert trec_eval_order(run) == ["b", "a"]
    assert trec_eval_order([("a", F("1.0000002")), ("b", F("1.0000001"))]) == ["a", "b"]  # two float32s


def test_trec_eval_tie_break_through_the_columns_reader_uses_c_floats(tmp_path):
    # The CLI reads files through tieaware.io.columns, a second implementation of the order.
    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 0\n")
    (tmp_path / "run").write_text("q Q0 a 1 1.00000002 r\nq Q0 b 2 1.00000001 r\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        argv = ["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "--format", "trec", "-m", "P.1"]
        assert main(argv + ["--tie-break", "trec_eval"]) == 0
        assert main(argv) == 0  # tie-aware: the exact scores differ, a first
    assert out.getvalue().split() == ["P_1", "all", "0.0000", "P_1", "all", "1.0000"]


@pytest.mark.peers
def test_trec_eval_order_matches_pytrec_eval():
    # pytrec_eval runs trec_eval's own C code; with one relevant doc, RR reveals
    # its position in trec_eval's order.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    docnos = ["a", "B", "b", "a1", "c10", "c9"]
    for relevant in docnos:
        qrels = {"q": {relevant: 1}}
        run = {"q": {d: 1.0 for d in docnos}}
        got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]["recip_rank"]
        ours = trec_eval_order([(d, F(1)) for d in docnos])
        assert got == 1 / (ours.index(relevant) + 1)


@pytest.mark.peers
def test_trec_eval_order_matches_pytrec_eval_on_near_ties_beyond_float32():
    # pytrec_eval compiles trec_eval 9.0.8, whose scores are C floats: 1 + 2e-8 and 1 + 1e-8
    # are distinct doubles but one float32, so docno decides.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    scores = {"a": 1.00000002, "b": 1.00000001, "c": 1.0000002, "d": 1e-50, "e": 0.0}
    for relevant in scores:
        qrels = {"q": {relevant: 1}}
        got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate({"q": scores})["q"]["recip_rank"]
        ours = trec_eval_order([(d, F(repr(s))) for d, s in scores.items()])
        assert got == 1 / (ours.index(relevant) + 1)


# -- the bundled sample ------------------------------------------------------------


def _generator():
    spec = importlib.util.spec_from_file_location("make_sample", DATA / "make_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sample_is_what_the_generator_writes():
    qrels_text, run_text = _generator().make_sample()
    assert (DATA / "sample.qrels").read_text() == qrels_text
    assert (DATA / "sample.run").read_text() == run_text


def test_generator_writes_files(tmp_path, capsys):
    assert _generator().main(["--out", str(tmp_path)]) == 0
    assert (tmp_path / "sample.run").read_text() == (DATA / "sample.run").read_text()
    assert "wrote" in capsys.readouterr().out


def test_sample_shape():
    qrels, run = read_sample()
    assert sorted(run) == sorted(qrels) == ["q1", "q2", "q3", "q4", "q5"]
    for qid, docs in run.items():
        assert 15 <= len(docs) <= 40
        assert {s for _, s in docs} <= {F(b) for b in range(6)}  # in-degree buckets 0..5
        assert any(len(g) > 1 for g in tie_groups(docs))
        assert set(qrels[qid].values()) <= {F(0), F(1), F(2)}
        retrieved = {d for d, _ in docs}
        assert any(d not in retrieved for d in qrels[qid])  # judged relevant, not retrieved
        assert any(d not in qrels[qid] for d in retrieved)  # unjudged
