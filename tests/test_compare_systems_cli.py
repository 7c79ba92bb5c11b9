"""``tieaware compare`` with more runs, --test, --baseline, --plot, markdown, LaTeX and JSON: the leaderboard path.

The numbers themselves are checked against brute force in tests/test_significance.py;
here the command must print what tieaware.compare_systems computes, and refuse bad input
with one line on stderr and nothing on stdout.
"""

import json

import pytest

from tieaware.cli import main
from tieaware.io.trec import parse_qrels, parse_run
from tieaware.runs.leaderboard import compare_systems

from test_significance import QRELS, RUN_A, RUN_B, RUN_C


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B), ("c.run", RUN_C)):
        (tmp_path / name).write_text(text)
    return ["qrels", "a.run", "b.run", "c.run"]


def python_side(measures, **kw):
    qrels = parse_qrels(QRELS.splitlines())
    runs = {name: parse_run(text.splitlines()) for name, text in (("a.run", RUN_A), ("b.run", RUN_B), ("c.run", RUN_C))}
    return compare_systems(qrels, runs, measures, **kw)


def test_json_equals_the_python_api(files, capsys):
    argv = ["compare", *files, "-m", "AP RR", "--test", "wilcoxon", "--alpha", "0.3", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    ours = python_side("AP RR", test="wilcoxon", alpha=0.3).as_dict()
    assert out == ours
    assert out["systems"] == ["a.run", "b.run", "c.run"] and out["queries"] == 4
    pair = out["measures"]["AP"]["pairs"][0]
    assert pair["bounds"] == "exact" and pair["flip_method"] in ("exact", "bounds")


def test_two_runs_with_a_test(files, capsys):
    assert main(["compare", "qrels", "a.run", "b.run", "-m", "AP", "--test", "t", "--alpha", "0.3"]) == 0
    out = capsys.readouterr().out
    (pair,) = python_side("AP", test="t", alpha=0.3).pairs["AP"][:1]
    assert "AP: pairs" in out and "p min" in out and f"{pair.p_min:.4f}" in out
    assert out.startswith("qrels qrels: 4 queries in every run\n2 systems, 4 queries (exact); t test, alpha 0.3")


def test_two_runs_without_a_test_print_as_before(files, capsys):
    assert main(["compare", "qrels", "a.run", "b.run", "-m", "AP"]) == 0
    assert "P(A > B)" in capsys.readouterr().out


@pytest.mark.parametrize("fmt, marker", [("markdown", "### AP: leaderboard"), ("latex", "\\begin{tabular}")])
def test_markdown_and_latex(files, capsys, fmt, marker):
    assert main(["compare", *files, "-m", "AP", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert marker in out and "rank range" in out and "no test" in out


def test_baseline_correction_and_plot(files, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    argv = ["compare", *files, "-m", "AP", "--test", "sign", "--baseline", "b.run", "--correction", "bonferroni", "--plot", "board.png"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "a.run  b.run" in out and "c.run  b.run" in out and "p adj [min, max]" in out
    assert (tmp_path / "board.png").stat().st_size > 1000


def test_resampling_options_are_passed(files, capsys):
    argv = ["compare", *files, "-m", "AP", "--test", "bootstrap", "--resamples", "300", "--seed", "5", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["resamples"] == 300 and out["seed"] == 5
    assert out == python_side("AP", test="bootstrap", resamples=300, seed=5).as_dict()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--test", "t", "--baseline", "x.run"], "--baseline"),
        (["--test", "t", "--alpha", "0"], "--alpha"),
        (["--test", "t", "--resamples", "0"], "--resamples"),
        (["--test", "t", "--samples", "-2"], "--samples"),
        (["--test", "t", "--max-outcomes", "0"], "--max-outcomes"),
        (["--test", "t", "-m", "RBO"], "RBO"),
        (["--test", "t", "-m", "XYZ"], "XYZ"),
    ],
)
def test_bad_input(files, capsys, argv, message):
    assert main(["compare", *files, *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tieaware compare: error:") and message in err and err.count("\n") == 1


def test_a_run_named_twice(files, capsys):
    assert main(["compare", "qrels", "a.run", "a.run", "--test", "t"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "each run file once" in err


def test_the_significance_example_of_the_docs(tmp_path, monkeypatch, capsys):
    """docs/uncertainty.md, "By hand": the page shows what the command prints on those files."""
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 a 1\n" for i in range(1, 7)))
    (tmp_path / "a.run").write_text("".join(f"q{i} Q0 a 1 1 A\nq{i} Q0 b 2 1 A\n" for i in range(1, 7)))
    (tmp_path / "b.run").write_text("".join(f"q{i} Q0 b 1 2 B\nq{i} Q0 a 2 1 B\n" for i in range(1, 7)))
    assert main(["compare", "qrels", "a.run", "b.run", "-m", "P@1", "--test", "sign"]) == 0
    out = capsys.readouterr().out
    page = (Path(__file__).parent.parent / "docs" / "uncertainty.md").read_text()
    block = page.split("$ tieaware compare qrels a.run b.run -m P@1 --test sign\n", 1)[1].split("```", 1)[0]
    assert out == block
    flat = " ".join(page.split())
    assert "p = 2·(1/2)⁶ = **1/32 = 0.03125**" in flat and "probability **63/64**" in flat and "probability **42/64**" in flat
