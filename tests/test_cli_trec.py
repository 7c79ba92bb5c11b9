"""trec_eval's options on `tieaware eval`: -q, -c, -l, repeated -m, counters, --tie-break, --format trec.

The hand example of tests/test_cli_eval.py, plus q3: judged, absent from the run.
Tie-aware by hand (tests/test_evaluate.py has the working):
  AP  q1 11/18, q2 3/4;   in trec_eval's order q1 2/3, q2 1/2
  P(rel=2)@2  q1 1/4, q2 0;   in trec_eval's order q1 1/2, q2 0
With -c, q3 adds a 0: MAP = (11/18 + 3/4 + 0)/3 = 49/108 = 0.453703...
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tieaware import TieawareError
from tieaware.cli import main
from tieaware.runs.evaluate import evaluate
from tieaware.io.trec import parse_qrels, parse_run

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 x 1\nq2 0 a 1\nq3 0 z 1\nq3 0 y 2\n"
RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 2 r\nq1 Q0 d 4 1 r\nq2 Q0 a 1 0.5 r\nq2 Q0 b 2 0.50 r\n"


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def _run(capsys, *argv):
    code = main(["eval", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _lines(out: str) -> list[list[str]]:
    return [[field.strip() for field in line.split("\t")] for line in out.splitlines()]


def test_q_is_per_query(files, capsys):
    _, long, _ = _run(capsys, *files, "-m", "AP RR", "--per-query")
    _, short, _ = _run(capsys, *files, "-m", "AP RR", "-q")
    assert short == long and "\nq2 " in short


def test_m_repeats_as_in_trec_eval(files, capsys):
    _, once, _ = _run(capsys, *files, "-m", "AP RR", "--format", "json")
    _, twice, _ = _run(capsys, *files, "-m", "AP", "-m", "RR", "--format", "json")
    assert once == twice


def test_c_averages_over_every_judged_query(files, capsys):
    _, out, _ = _run(capsys, *files, "-m", "AP", "--format", "json", "-c")
    data = json.loads(out)
    assert data["complete"] is True and data["queries"] == ["q1", "q2"]
    assert data["mean"]["AP"]["tie_aware"]["exact"] == "49/108"
    assert data["mean"]["AP"]["trec_eval_order"]["exact"] == "7/18"  # (2/3 + 1/2 + 0) / 3
    _, table, _ = _run(capsys, *files, "-m", "AP", "-c")
    assert "-c: means over every judged query, 1 judged query missing from the run counted as 0" in table
    _, plain, _ = _run(capsys, *files, "-m", "AP", "--format", "json")
    assert json.loads(plain)["mean"]["AP"]["tie_aware"]["exact"] == "49/72"  # without -c: (11/18 + 3/4)/2


def test_trec_layout_with_c_and_counters(files, capsys):
    code, out, err = _run(capsys, *files, "--format", "trec", "-c", "-q", "-m", "map num_q num_rel num_ret num_rel_ret")
    assert code == 0 and err == ""
    assert _lines(out) == [
        ["num_ret", "q1", "4"], ["num_rel", "q1", "3"], ["num_rel_ret", "q1", "2"], ["map", "q1", "0.6111"],
        ["num_ret", "q2", "2"], ["num_rel", "q2", "1"], ["num_rel_ret", "q2", "1"], ["map", "q2", "0.7500"],
        ["num_q", "all", "3"],          # -c: every judged query
        ["num_ret", "all", "6"],
        ["num_rel", "all", "6"],        # -c: q3's two relevant documents count too
        ["num_rel_ret", "all", "3"],
        ["map", "all", "0.4537"],       # 49/108
    ]  # fmt: skip
    assert out.splitlines()[0] == "num_ret               \tq1\t4"  # %-22s, tabs


def test_trec_layout_tie_break(files, capsys):
    _, out, _ = _run(capsys, *files, "--format", "trec", "-m", "map", "--tie-break", "trec_eval")
    assert _lines(out) == [["map", "all", "0.5833"]]  # (2/3 + 1/2)/2, trec_eval's number


def test_l_sets_the_relevance_level(files, capsys):
    _, out, _ = _run(capsys, *files, "--format", "trec", "-l", "2", "-q", "-m", "P@2 num_rel num_rel_ret")
    assert _lines(out) == [
        ["num_rel", "q1", "1"], ["num_rel_ret", "q1", "1"], ["P_2", "q1", "0.2500"],
        ["num_rel", "q2", "0"], ["num_rel_ret", "q2", "0"], ["P_2", "q2", "0.0000"],
        ["num_rel", "all", "1"], ["num_rel_ret", "all", "1"], ["P_2", "all", "0.1250"],
    ]  # fmt: skip
    _, table, _ = _run(capsys, *files, "-l", "2", "-m", "P@2 P(rel=1)@2 nDCG@1")
    assert "P(rel=2)@2" in table and "P(rel=1)@2" in table and "nDCG@1" in table  # explicit rel= kept


def test_measures_trec_eval_lacks_keep_their_names_after_its_own(files, capsys):
    _, out, _ = _run(capsys, *files, "--format", "trec", "-m", "F1@2 RR@1 nDCG@1 map P(rel=2)@2")
    assert [line[0] for line in _lines(out)] == ["map", "ndcg_cut_1", "F1@2", "RR@1", "P(rel=2)@2"]


def test_one_line_per_trec_eval_name(files, capsys):
    _, out, _ = _run(capsys, *files, "--format", "trec", "-m", "P@2 P(rel=1)@2 AP AP(rel=1)")
    assert [line[0] for line in _lines(out)] == ["map", "P_2"]


def test_trec_eval_families_in_m(files, capsys):
    _, families, _ = _run(capsys, *files, "--format", "trec", "-q", "-m", "P.2,1", "-m", "map_cut.2 recall.3")
    _, names, _ = _run(capsys, *files, "--format", "trec", "-q", "-m", "P@1 P@2 AP@2 R@3")
    assert families == names and "P_1 " in families and "recall_3" in families


def test_trec_eval_sets(files, capsys):
    code, out, err = _run(capsys, *files, "--format", "trec", "-m", "official")
    assert code == 0 and [line[0] for line in _lines(out)][:10] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"
    ]
    assert err == ""  # every member of the set is computed
    _, default, _ = _run(capsys, *files, "--format", "trec")
    assert default == out  # official is --format trec's default
    _, everything, err = _run(capsys, *files, "--format", "trec", "-m", "all_trec")
    names = [line[0] for line in _lines(everything)]
    assert {"recall_1000", "ndcg", "ndcg_cut_5", "map_cut_1000", "num_nonrel_judged_ret", "iprec_at_recall_0.50"} <= set(names)
    assert err == ""
    code, table, _ = _run(capsys, *files, "-m", "official")  # the counts are measures in a table too
    assert code == 0 and "P@1000" in table and "NumRet" in table


def test_counters_alone(files, capsys):
    _, out, _ = _run(capsys, *files, "--format", "trec", "-m", "num_q")
    assert _lines(out) == [["num_q", "all", "2"]]


def test_trec_default_is_trec_eval_official_subset(capsys):
    _, out, _ = _run(capsys, "--format", "trec")
    names = [line[0] for line in _lines(out)]
    assert names[:11] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall_0.00"]
    assert names[-1] == "P_1000" and len(names) == 30


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-n"], "--no-summary applies to --format trec only"),
        (["-Z", "z.txt"], "--zscores applies to --format trec only"),
        (["-M", "-1", "--format", "trec"], "-M must be an int >= 0 (documents per query), got -1"),
        (["-m", "P.", "--format", "trec"], "-m has an empty parameter list (trec_eval: improper measure), got 'P.'"),
        (["-m", "utility.1,2", "--format", "trec"], "-m needs 4 coefficients (trec_eval: improper number of coefficients)"),
        (["-m", "ndcg.1=2=3", "--format", "trec"], "must be rel_level=gain pairs"),
        (["-l", "0", "--format", "trec"], "-l must be a relevance level > 0, got '0'"),
        (["-l", "x", "-m", "num_q", "--format", "trec"], "-l must be a finite decimal"),
        (["-m", "P.5,5"], "-m has duplicate cutoffs (trec_eval refuses them), got 'P.5,5'"),
        (["-m", "ndcg_cut.0"], "-m needs cutoffs > 0 (trec_eval: negative cutoff detected), got 'ndcg_cut.0'"),
        (["-m", "iprec_at_recall.0.5,.5"], "-m has duplicate cutoffs (trec_eval refuses them)"),
    ],
)
def test_bad_options(files, capsys, argv, message):
    code, out, err = _run(capsys, *files, *argv)
    assert code == 2 and out == ""
    assert err.startswith("tieaware eval: error: ") and message in err


def test_other_relevance_formats_are_left_out(files, capsys):
    # trec_eval's preference measures read -R prefs or qrels_jg files: named, they are left out with a note
    code, out, err = _run(capsys, *files, "--format", "trec", "-m", "prefs", "-m", "map")
    assert code == 0 and [line[0] for line in _lines(out)] == ["map"]
    assert "prefs read other relevance formats" in err


def test_evaluate_complete_in_python():
    qrels, run = parse_qrels(QRELS.splitlines()), parse_run(RUN.splitlines())
    ev = evaluate(qrels, run, "AP", complete=True)
    assert ev.mean["AP"] == Fraction(49, 108) and ev.complete and set(ev.per_query) == {"q1", "q2"}
    assert evaluate(qrels, run, "AP").mean["AP"] == Fraction(49, 72)
    assert evaluate(qrels, run, "AP", complete=True, exact=False).mean["AP"] == pytest.approx(49 / 108)
    with pytest.raises(TieawareError, match="complete must be True or False"):
        evaluate(qrels, run, "AP", complete="yes")
