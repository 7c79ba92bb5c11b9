"""``tieaware rbo RUN_A RUN_B``: ties from exact scores, shared queries, --depth, formats, errors."""

import json
from fractions import Fraction

import pytest

from tieaware.cli import main
from tieaware.model.exact import to_exact_string
from tieaware.reference.rank_biased_overlap import rbo as reference_rbo

RUN_A = """\
q1 Q0 d1 1 3 r
q1 Q0 d2 2 2.0 r
q1 Q0 d3 3 2 r
q1 Q0 d4 4 1 r
q2 Q0 x 1 1 r
q3 Q0 z 1 1 r
"""
RUN_B = """\
q1 Q0 d2 1 5 r
q1 Q0 d1 2 4e0 r
q1 Q0 d5 3 4 r
q2 Q0 x 9 1 r
q2 Q0 y 1 0.5 r
q4 Q0 w 1 1 r
"""
# By hand: q1 in A is d1 (d2 d3) d4 ("2.0" and "2" tie); in B d2 (d1 d5)
# ("4e0" and "4" tie).  q2: A is x; B is x y (rank column ignored).
# q3 and q4 are in one run only.
Q1_A, Q1_B = ["d1", ("d2", "d3"), "d4"], ["d2", ("d1", "d5")]
Q2_A, Q2_B = ["x"], ["x", "y"]


@pytest.fixture
def runs(tmp_path):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    return str(a), str(b)


def run_json(capsys, *argv):
    assert main(["rbo", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_exact_values_over_shared_queries(runs, capsys):
    out = run_json(capsys, *runs, "-p", "0.9", "--variant", "a")
    assert [q["qid"] for q in out["queries"]] == ["q1", "q2"]
    assert out["skipped_queries"] == 2
    # Variant a of the command is the paper's formula; on these inputs no
    # group of L-only items straddles a depth between s and l, so the
    # reference's average is the same number.
    q1 = reference_rbo(Q1_A, Q1_B, "0.9", variant="a")
    q2 = reference_rbo(Q2_A, Q2_B, "0.9", variant="a")
    assert out["queries"][0]["ext"]["exact"] == to_exact_string(q1)
    assert out["queries"][1]["ext"]["exact"] == to_exact_string(q2)
    assert out["mean"]["ext"]["exact"] == to_exact_string((q1 + q2) / 2)
    assert (out["queries"][0]["length_a"], out["queries"][0]["length_b"]) == (4, 3)


def test_all_bounds_and_symbolic_values(runs, capsys):
    out = run_json(capsys, *runs, "--variant", "b", "--bound", "all", "--digits", "6")
    assert set(out["queries"][0]) == {"qid", "length_a", "length_b", "min", "max", "ext", "res"}
    assert "log(10)" in out["queries"][0]["min"]["exact"]
    expected = reference_rbo(Q1_A, Q1_B, "0.9", variant="b", bound="min")
    assert out["queries"][0]["min"]["exact"] == to_exact_string(expected)
    assert out["queries"][0]["min"]["decimal"].count(".") == 1 and len(out["queries"][0]["min"]["decimal"]) == 8


def test_depth_keeps_a_straddling_group_whole(runs, capsys):
    out = run_json(capsys, *runs, "--depth", "2", "--variant", "w")
    # A's q1 keeps d1 and the whole group (d2 d3) that starts at rank 2.
    assert out["queries"][0]["length_a"] == 3
    expected = reference_rbo(["d1", ("d2", "d3")], Q1_B, "0.9", variant="w")
    assert out["queries"][0]["ext"]["exact"] == to_exact_string(expected)
    out = run_json(capsys, *runs, "--depth", "1")
    assert (out["queries"][0]["length_a"], out["queries"][0]["length_b"]) == (1, 1)


def test_float_mode(runs, capsys):
    out = run_json(capsys, *runs, "--float", "--digits", "10")
    assert out["exact"] is False and out["queries"][0]["ext"]["exact"] is None
    exact = reference_rbo(Q1_A, Q1_B, "0.9", variant="a")
    assert abs(Fraction(out["queries"][0]["ext"]["decimal"]) - exact) < Fraction(1, 10**9)


def test_table(runs, capsys):
    assert main(["rbo", *runs, "--bound", "all"]) == 0
    text = capsys.readouterr().out
    assert "RBO^a ext" in text and "RBO^a res" in text
    assert "2 shared queries; 2 in only one run skipped" in text
    assert text.splitlines()[-1].startswith("mean")


def _error(capsys, argv):
    assert main(["rbo", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing printed before the error
    return captured.err.strip()


def test_malformed_line_names_file_and_line(runs, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 r\n")
    err = _error(capsys, [runs[0], str(bad)])
    assert err == f"tieaware rbo: error: {bad}:2: expected 6 columns (qid Q0 docno rank score run_id), got 5: 'q1 Q0 d2 2 r'"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-p", "1"], "p must be strictly between 0 and 1, got '1'"),
        (["-p", "x"], "p must be a finite decimal or p/q number, got 'x'"),
        (["--depth", "0"], "--depth must be an int >= 1, got 0"),
        (["--digits", "-1"], "--digits must be an int >= 0, got -1"),
    ],
)
def test_bad_options(runs, capsys, extra, message):
    assert _error(capsys, [*runs, *extra]) == f"tieaware rbo: error: {message}"


def test_runs_without_a_shared_query(tmp_path, capsys):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("q1 Q0 d1 1 1 r\n")
    b.write_text("q2 Q0 d1 1 1 r\n")
    err = _error(capsys, [str(a), str(b)])
    assert err == f"tieaware rbo: error: RUN_A and RUN_B must share at least one query, got {[str(a), str(b)]!r}"
