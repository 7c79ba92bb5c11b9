"""``tieaware corr``: per query between two runs, and between the system rankings of a results table."""

import json
import math
from fractions import Fraction

import pytest

from tieaware.cli import main
from tieaware.model.exact import to_exact_string
from tieaware.reference import correlation as reference

RUN_A = """\
q1 Q0 d1 1 3 r
q1 Q0 d2 2 2.0 r
q1 Q0 d3 3 2 r
q1 Q0 d4 4 1 r
q2 Q0 d1 1 1 r
q2 Q0 d2 2 1 r
q3 Q0 z 1 1 r
"""
RUN_B = """\
q1 Q0 d2 1 5 r
q1 Q0 d1 2 4e0 r
q1 Q0 d3 3 4 r
q1 Q0 d5 4 1 r
q2 Q0 d1 1 2 r
q2 Q0 d2 2 1 r
q2 Q0 d3 3 1 r
q4 Q0 w 1 1 r
"""
# By hand: q1 in A is d1 (d2 d3) d4 ("2.0" and "2" tie), in B d2 (d1 d3) d5 ("4e0" and "4" tie).
# Common documents: A d1 (d2 d3), B d2 (d1 d3).  Union: A d1 (d2 d3) d4 d5, B d2 (d1 d3) d5 d4.
# q2: A (d1 d2), B d1 (d2 d3); common: A (d1 d2), B d1 d2.  q3, q4 are in one run only.
COMMON = {"q1": (["d1", ("d2", "d3")], ["d2", ("d1", "d3")]), "q2": ([("d1", "d2")], ["d1", "d2"])}
UNION = {
    "q1": (["d1", ("d2", "d3"), "d4", "d5"], ["d2", ("d1", "d3"), "d5", "d4"]),
    "q2": ([("d1", "d2"), "d3"], ["d1", ("d2", "d3")]),
}
RESULTS = "system\tAP\tP@10\tnDCG@10\nbm25\t0.31\t0.50\t0.45\nlm\t0.29\t0.5\t0.47\ndfr\t0.30\t0.4\t0.45\ntfidf\t0.22\t0.30\t0.31\n"
# Column rankings (higher first, 0.50 == 0.5): AP bm25 dfr lm tfidf; P@10 (bm25 lm) dfr tfidf;
# nDCG@10 lm (bm25 dfr) tfidf.
COLUMNS = {
    "AP": ["bm25", "dfr", "lm", "tfidf"],
    "P@10": [("bm25", "lm"), "dfr", "tfidf"],
    "nDCG@10": ["lm", ("bm25", "dfr"), "tfidf"],
}


@pytest.fixture
def files(tmp_path):
    a, b, t = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "results.tsv"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    t.write_text(RESULTS)
    return str(a), str(b), str(t)


def run_json(capsys, *argv):
    assert main(["corr", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_runs_common_documents_tau_b(files, capsys):
    out = run_json(capsys, files[0], files[1])
    assert [r["qid"] for r in out["rows"]] == ["q1", "q2"]
    q1 = reference.kendall_tau(*COMMON["q1"], "b")
    assert out["rows"][0]["value"]["exact"] == to_exact_string(q1) == "-1/2"
    # q2: A ties its only two common documents: τ_b is 0/0, reported and left out of the mean.
    assert out["rows"][1]["value"] is None and "one tie group" in out["rows"][1]["undefined"]
    assert out["mean"]["exact"] == "-1/2"
    assert "1 in only one run skipped" not in out["notes"][0] and "2 in only one run skipped" in out["notes"][0]


def test_runs_union_tau_ap_with_spread(files, capsys):
    out = run_json(capsys, files[0], files[1], "--docs", "union", "-m", "tauap", "--spread")
    for row in out["rows"]:
        x, y = UNION[row["qid"]]
        assert row["items"] == len(x) + sum(len(g) - 1 for g in x if isinstance(g, tuple))
        assert row["value"]["exact"] == to_exact_string(reference.tau_ap(x, y, "b"))
        spread = row["spread"]
        assert spread["expected"]["exact"] == to_exact_string(reference.tau_ap_expected(x, y))
        low, high, _, _ = reference.tau_ap_range(x, y)
        assert (spread["min"]["exact"], spread["max"]["exact"]) == (to_exact_string(low), to_exact_string(high))
        variance = reference.tau_ap_variance(x, y)
        assert float(spread["sd"]["decimal"]) == pytest.approx(math.sqrt(variance), abs=5e-5)
    # The mean over queries: its range is the mean of the ranges (the queries' ties are independent).
    lows = [reference.tau_ap_range(*UNION[q])[0] for q in ("q1", "q2")]
    assert out["mean_spread"]["min"]["exact"] == to_exact_string(sum(lows) / 2)


def test_tau_ap_a_needs_an_untied_x(files, capsys):
    out = run_json(capsys, files[0], files[1], "-m", "tauap", "--variant", "a")
    assert all(r["value"] is None and "x has ties" in r["undefined"] for r in out["rows"])
    assert out["mean"] is None


def test_systems_every_pair_of_columns(files, capsys):
    out = run_json(capsys, "--systems", files[2], "--spread")
    pairs = [(r["x"], r["y"]) for r in out["rows"]]
    assert pairs == [("AP", "P@10"), ("AP", "nDCG@10"), ("P@10", "nDCG@10")]  # τ is symmetric: each pair once
    for row in out["rows"]:
        x, y = COLUMNS[row["x"]], COLUMNS[row["y"]]
        assert row["value"]["exact"] == to_exact_string(reference.kendall_tau(x, y, "b"))
        assert row["spread"]["expected"]["exact"] == to_exact_string(reference.kendall_tau_expected(x, y))
    assert out["rows"][0]["value"]["exact"] == "sqrt(30)/10"  # S = 3 over √(6·5)


def test_systems_tau_ap_ordered_pairs_and_reference(files, capsys):
    out = run_json(capsys, "--systems", files[2], "-m", "tauap")
    assert len(out["rows"]) == 6  # τ_AP is asymmetric: both orders
    out = run_json(capsys, "--systems", files[2], "-m", "tauap", "--reference", "AP", "--variant", "a")
    assert [(r["x"], r["y"]) for r in out["rows"]] == [("AP", "P@10"), ("AP", "nDCG@10")]
    assert out["rows"][0]["value"]["exact"] == to_exact_string(reference.tau_ap(COLUMNS["AP"], COLUMNS["P@10"], "a"))


def test_systems_ascending_column(files, capsys):
    out = run_json(capsys, "--systems", files[2], "--ascending", "AP", "--variant", "a")
    reversed_ap = COLUMNS["AP"][::-1]
    assert out["rows"][0]["value"]["exact"] == to_exact_string(reference.kendall_tau(reversed_ap, COLUMNS["P@10"], "a"))


def test_table_output(files, capsys):
    assert main(["corr", files[0], files[1], "--docs", "union", "--spread"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Kendall's tau_b between")
    assert "qid" in out and "sd" in out and "mean" in out
    assert main(["corr", files[0], files[1]]) == 0
    assert "1 n/a, left out of the mean" in capsys.readouterr().out


def test_float_mode_agrees(files, capsys):
    exact = run_json(capsys, "--systems", files[2], "--spread")
    floats = run_json(capsys, "--systems", files[2], "--spread", "--float")
    for e, f in zip(exact["rows"], floats["rows"]):
        assert f["value"]["exact"] is None and f["value"]["decimal"] == e["value"]["decimal"]
        assert f["spread"]["sd"]["decimal"] == e["spread"]["sd"]["decimal"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("system\tAP\n", "header needs a system column and at least 2 measure columns"),
        ("system\tAP\tAP\nx\t1\t2\ny\t1\t1\n", "measure 'AP' is named twice"),
        ("system\tAP\tP\nx\t1\t2\nx\t1\t1\n", ":3: system 'x' is listed twice (first on line 2)"),
        ("system\tAP\tP\nx\t1\n", ":2: expected 3 tab-separated cells"),
        ("system\tAP\tP\nx\t1\tNA\ny\t1\t1\n", ":2: the value of 'P' must be a decimal number"),
        ("system\tAP\tP\nx\t1\t2\n", "needs at least 2 systems"),
        ("", "no header line"),
    ],
)
def test_bad_results_tables(tmp_path, capsys, content, message):
    path = tmp_path / "bad.tsv"
    path.write_text(content)
    assert main(["corr", "--systems", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err


def test_bad_arguments(files, capsys):
    a, b, t = files
    for argv, message in (
        ([a], "RUN_A RUN_B must be two run files"),
        ([a, b, "--systems", t], "must not be given with --systems"),
        ([a, b, "--reference", "AP"], "--reference applies to --systems only"),
        (["--systems", t, "--reference", "MAP"], "--reference must be one of the columns"),
        (["--systems", t, "--digits", "-1"], "--digits must be an int >= 0"),
    ):
        assert main(["corr", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err


def test_help_names_both_modes(capsys):
    with pytest.raises(SystemExit):
        main(["corr", "--help"])
    out = capsys.readouterr().out
    assert "--systems RESULTS.tsv" in out and "RUN_A" in out and "docs/correlation.md" in out


def test_read_systems_keeps_exact_values(tmp_path):
    from tieaware.io.systems import read_systems

    path = tmp_path / "r.tsv"
    path.write_text(RESULTS)
    table = read_systems(str(path))
    assert table.values["P@10"]["lm"] == table.values["P@10"]["bm25"] == Fraction(1, 2)
    assert table.systems == ["bm25", "lm", "dfr", "tfidf"]
