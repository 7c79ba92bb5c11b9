"""The `tieaware eval` command: formats, the bundled sample, bad input."""

import json
import subprocess
import sys

import pytest

from tieaware.cli import main

# The hand example of tests/test_evaluate.py, as files.  q1: a (3), b and c
# tied (2.0 == 2), d (1); labels a=1, b=0, c=2, d unjudged, x judged relevant
# but not retrieved.  q2: a (label 1) and b (unjudged) tied at 0.5 == 0.50.
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 x 1\nq2 0 a 1\n"
RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 2 r\nq1 Q0 d 4 1 r\nq2 Q0 a 1 0.5 r\nq2 Q0 b 2 0.50 r\n"
# By hand (see test_evaluate.py for the working):
#   tie-aware  P@2: q1 3/4, q2 1/2, mean 5/8      AP: q1 11/18, q2 3/4, MAP 49/72 = 0.680555...
#              RR: q1 1, q2 3/4, MRR 7/8
#   trec_eval  P@2: q1 1, q2 1/2, mean 3/4        AP: q1 2/3, q2 1/2, MAP 7/12 = 0.583333...
#              RR: q1 1, q2 1/2, MRR 3/4
#   differences: P@2 -1/8, MAP 49/72 - 42/72 = 7/72 = 0.097222..., MRR 1/8


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


def test_json_exact_values(files, capsys):
    code, out, err = _run(capsys, *files, "-m", "P@2 AP RR", "--format", "json", "--per-query", "--digits", "6")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["queries"] == ["q1", "q2"] and data["docs"] == 6 and data["tie_groups"] == 2
    mean = data["mean"]
    assert mean["P@2"]["tie_aware"]["exact"] == "5/8"
    assert mean["P@2"]["trec_eval_order"]["exact"] == "3/4"
    assert mean["P@2"]["difference"]["exact"] == "-1/8"
    assert mean["AP"]["tie_aware"] == {
        "exact": "49/72", "rational": True, "numerator": "49", "denominator": "72", "decimal": "0.680556", "float": 49 / 72
    }
    assert mean["AP"]["trec_eval_order"]["exact"] == "7/12"
    assert mean["AP"]["difference"]["decimal"] == "0.097222"
    assert mean["RR"]["tie_aware"]["exact"] == "7/8" and mean["RR"]["trec_eval_order"]["exact"] == "3/4"
    per = data["per_query"]
    assert per["q1"]["AP"]["tie_aware"]["exact"] == "11/18" and per["q2"]["AP"]["tie_aware"]["exact"] == "3/4"
    assert per["q1"]["P@2"]["trec_eval_order"]["exact"] == "1/1"


def test_json_symbolic_ndcg(files, capsys):
    # q2: DCG = (1 + 1/log2(3))/2 over IDCG 1, so irrational; the exact text is sympy's.
    code, out, _ = _run(capsys, *files, "-m", "nDCG", "--format", "json", "--per-query")
    value = json.loads(out)["per_query"]["q2"]["nDCG"]["tie_aware"]
    assert value["rational"] is False
    assert value["exact"] == "log(2)/(2*log(3)) + 1/2"
    # 1/2 + 0.6309297535714574/2 = 0.81546487678...
    assert value["decimal"] == "0.8155"


def test_table_means(files, capsys):
    code, out, err = _run(capsys, *files, "-m", "P@2 AP RR")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"qrels {files[0]}, run {files[1]}: 2 queries, 6 docs, 2 tie groups with >1 doc")
    assert lines[1].split() == ["measure", "tie-aware", "exact", "trec_eval", "order", "difference"]
    rows = {line.split()[0]: line.split() for line in lines[3:6]}
    assert rows["P@2"] == ["P@2", "0.6250", "5/8", "0.7500", "-0.1250"]
    assert rows["AP"] == ["AP", "0.6806", "49/72", "0.5833", "+0.0972"]
    assert rows["RR"] == ["RR", "0.8750", "7/8", "0.7500", "+0.1250"]
    assert "trec_eval order: ties broken by docno, descending" in lines[-1]


def test_table_per_query_and_zero_difference(files, capsys):
    code, out, _ = _run(capsys, *files, "-m", "RR", "--per-query")
    rows = [line.split() for line in out.splitlines()[3:6]]
    # q1's RR is 1 either way: the difference is exactly 0.
    assert rows == [
        ["q1", "RR", "1.0000", "1/1", "1.0000", "0"],
        ["q2", "RR", "0.7500", "3/4", "0.5000", "+0.2500"],
        ["all", "RR", "0.8750", "7/8", "0.7500", "+0.1250"],
    ]


def test_trec_format(files, capsys):
    code, out, _ = _run(capsys, *files, "-m", "P@2 map", "--format", "trec", "--per-query")
    # trec_eval's names and measure order (map before P); the values are tie-aware.
    assert [line.split("\t") for line in out.splitlines()] == [
        ["map" + " " * 19, "q1", "0.6111"],  # 11/18
        ["P_2" + " " * 19, "q1", "0.7500"],
        ["map" + " " * 19, "q2", "0.7500"],
        ["P_2" + " " * 19, "q2", "0.5000"],
        ["map" + " " * 19, "all", "0.6806"],
        ["P_2" + " " * 19, "all", "0.6250"],
    ]


def test_float_mode_and_reference_layer(files, capsys):
    _, exact, _ = _run(capsys, *files, "-m", "P@2 AP RR nDCG", "--format", "trec")
    _, floats, _ = _run(capsys, *files, "-m", "P@2 AP RR nDCG", "--format", "trec", "--float")
    _, ref, _ = _run(capsys, *files, "-m", "P@2 AP RR nDCG", "--format", "trec", "--layer", "reference")
    assert exact == floats == ref
    _, table, _ = _run(capsys, *files, "--float", "-m", "AP")
    assert table.splitlines()[1].split() == ["measure", "tie-aware", "trec_eval", "order", "difference"]
    assert "(layer fast, float)" in table.splitlines()[0]


def test_skipped_queries_are_reported(tmp_path, capsys):
    (tmp_path / "q").write_text(QRELS + "q3 0 z 1\n")
    (tmp_path / "r").write_text(RUN + "q9 Q0 a 1 1 r\n")
    _, out, _ = _run(capsys, str(tmp_path / "q"), str(tmp_path / "r"), "-m", "AP")
    assert "2 queries, 6 docs, 2 tie groups with >1 doc; skipped 1 run query without qrels and 1 judged query not in the run" in out


def test_no_arguments_shows_the_bundled_sample_against_trec_eval(capsys):
    code, out, err = _run(capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("bundled sample (tieaware/data/sample.qrels, sample.run): 5 queries, 149 docs,")
    assert "trec_eval order" in lines[1] and "difference" in lines[1]
    assert [line.split()[0] for line in lines[3:11]] == ["P@5", "P@10", "R@10", "F1@10", "AP", "RR", "nDCG@10", "nDCG"]
    assert lines[9].split()[2] == "irrational"  # nDCG@10's exact value has log terms
    # The sample's scores are coarse, so ties move the numbers: no difference is 0 here.
    assert all(line.split()[-1] != "0" for line in lines[3:11])


def test_console_script_entry_point():
    result = subprocess.run([sys.executable, "-m", "tieaware", "eval", "-m", "P@5"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "bundled sample" in result.stdout and "P@5" in result.stdout


def test_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["eval", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for text in ("QRELS", "RUN", "--per-query", "--format {table,json,trec,csv,parquet}", "--float", "--digits", "--layer", "bundled sample", "docno"):
        assert text in out


# -- bad input: one line on stderr, nothing on stdout, exit 2 ---------------------


@pytest.mark.parametrize(
    "qrels, run, message",
    [
        (QRELS, RUN + "q2 Q0 c 3 1\n", "run.txt:7: expected 6 columns (qid Q0 docno rank score run_id), got 5: 'q2 Q0 c 3 1'"),
        (QRELS, RUN + "q2 Q0 c 3 nan r\n", "run.txt:7: score is NaN, got 'nan'; a NaN score has no place in a ranking"),
        (QRELS, RUN + "q2 Q0 c 3 1,5 r\n", "run.txt:7: score must be a decimal number such as 12, -0.5 or 1.5e-3, got '1,5'"),
        (QRELS, RUN + "q2 Q0 a 3 0.1 r\n", "run.txt:7: duplicate docno 'a' for query 'q2' (first on line 5)"),
        ("q1 0 a\n" + QRELS, RUN, "qrels.txt:1: expected 4 columns (qid iter docno label), got 3: 'q1 0 a'"),
        (QRELS + "q2 0 b R\n", RUN, "qrels.txt:6: label must be a decimal number such as 12, -0.5 or 1.5e-3, got 'R'"),
        ("q7 0 a 1\n", RUN, "run has no query that appears in the qrels (1 judged query), got ['q1', 'q2']"),
    ],
)
def test_bad_files(tmp_path, capsys, qrels, run, message):
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    code, out, err = _run(capsys, str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert (code, out) == (2, "")
    assert err.startswith("tieaware eval: error: ") and err.rstrip().endswith(message)
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["only-one-file"], "files must be both QRELS and RUN, or neither for the bundled sample, got ['only-one-file']"),
        (["--digits", "-1"], "--digits must be an int >= 0, got -1"),
        (["-m", "AP Q@5"], "measure is not a known measure"),
        (["-m", "AP RBO"], "measure cannot be computed on one run ranking (RBO compares two rankings; use `tieaware rbo`), got 'RBO'"),
        (["-m", "P@0"], "measure needs a cutoff @k with k an int >= 1, got 'P@0'"),
        (["--layer", "reference"], "query 'q1': ranking has"),
        (["/nonexistent/q", "/nonexistent/r"], "cannot read '/nonexistent/q': No such file or directory"),
    ],
)
def test_bad_arguments(capsys, argv, message):
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (2, "")
    assert message in err


def test_bad_file_via_subprocess_prints_nothing_on_stdout(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN + "q2 Q0 c 3 NaN r\n")
    result = subprocess.run(
        [sys.executable, "-m", "tieaware", "eval", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"tieaware eval: error: {tmp_path / 'run.txt'}:7: score is NaN, got 'NaN'; a NaN score has no place in a ranking\n"


def test_long_exact_values_are_abbreviated_in_the_table_only():
    from fractions import Fraction

    import sympy

    from tieaware.commands.eval import _short_exact

    assert _short_exact(Fraction(2, 3)) == "2/3"
    assert _short_exact(Fraction(10**50 + 1, 3)) == "51/1-digit p/q"
    assert _short_exact(sympy.log(2) / sympy.log(3)) == "log(2)/log(3)"
    assert _short_exact(sum(sympy.log(2) / sympy.log(p) for p in (3, 5, 7, 11))) == "irrational"


def test_equal_symbolic_values_differ_by_exactly_zero(tmp_path, capsys):
    # No ties: tie-aware and trec_eval order are the same ranking, so the
    # irrational nDCG values are equal and the difference is printed as 0.
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 r\nq1 Q0 c 2 2 r\nq1 Q0 b 3 3 r\n")
    _, out, _ = _run(capsys, str(tmp_path / "q"), str(tmp_path / "r"), "-m", "nDCG", "--per-query")
    rows = [line.split() for line in out.splitlines()[3:5]]
    assert [row[-1] for row in rows] == ["0", "0"]
    # b, c, a: DCG = 1 + 1/log2(4) = 3/2; IDCG = 1 + 1/log2(3); the value is irrational.
    assert rows[0][3] == "irrational" or "log" in rows[0][3]
