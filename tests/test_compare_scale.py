"""`tieaware compare` at scale: the array engines, bounded convolution work, the --float hint.

compare reads its files as columns and evaluates them as `eval --spread`
does (tieaware.runs.comparison.compare_runs_prepared); per-query distributions are
computed only while the convolution for P(A > B) goes on, and the
convolution's work is bounded (EXACT_WORK, FLOAT_WORK, max_support), so its
cost does not grow with the square of the number of queries.  No timing is
asserted: the bounds are checked by counting the work done.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from tieaware.benchmarks.scale import heavy_tie_files
from tieaware.cli import main
from tieaware.io.trec import parse_qrels, parse_run
from tieaware.runs import comparison
from tieaware.runs.comparison import FLOAT_TIE, compare_runs

MEASURES = "AP nDCG@10 P@10 RR"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 300-query heavy-tie pair of runs on the same qrels (scores 0..20, 20 documents per query)."""
    folder = tmp_path_factory.mktemp("scale")
    qrels, run_a = heavy_tie_files(300, 20, seed=1)
    _, run_b = heavy_tie_files(300, 20, seed=2)
    for name, text in (("qrels", qrels), ("a", run_a), ("b", run_b)):
        (folder / name).write_text(text)
    return folder, parse_qrels(qrels.splitlines()), parse_run(run_a.splitlines()), parse_run(run_b.splitlines())


def _as_float(c):
    return [float(x) for x in (c.mean_a, c.mean_b, c.expected_difference, c.min_difference, c.max_difference, c.sd_difference)]


def test_float_mode_gives_the_exact_values_to_1e12(files):
    _, qrels, a, b = files
    exact = compare_runs(qrels, a, b, MEASURES)
    fast = compare_runs(qrels, a, b, MEASURES, exact=False)
    for e, f in zip(exact, fast):
        assert e.measure == f.measure and e.verdict == f.verdict
        assert (e.method == "normal") == (f.method == "normal") and f.method in ("normal", "float", "bounds")
        assert _as_float(f) == pytest.approx(_as_float(e), rel=1e-12, abs=1e-12)
        assert float(f.p_greater) == pytest.approx(float(e.p_greater), abs=1e-9)


def test_the_command_reads_columns_and_agrees_with_the_api(files, capsys):
    folder, qrels, a, b = files
    assert main(["compare", str(folder / "qrels"), str(folder / "a"), str(folder / "b"), "--format", "json", "--digits", "12"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    for c in compare_runs(qrels, a, b, MEASURES):
        got = out["measures"][c.measure]
        assert got["mean_a"]["float"] == pytest.approx(float(c.mean_a), rel=1e-15)
        assert got["p_greater_method"] == c.method and got["verdict"] == c.verdict


def test_many_queries_reach_the_normal_approximation_after_few_distributions(files, monkeypatch):
    _, qrels, a, b = files
    computed: list[str] = []
    original = comparison._distribution

    def counting(m, ranking, ideal, exact):
        computed.append(str(m))
        return original(m, ranking, ideal, exact)

    monkeypatch.setattr(comparison, "_distribution", counting)
    for exact in (True, False):
        for measure in ("AP", "nDCG@10", "RR"):  # supports that grow fast: stopped after a few queries
            computed.clear()
            (c,) = compare_runs(qrels, a, b, measure, exact=exact)
            assert c.method == "normal", c.note
            assert len(computed) < 2 * 40, (measure, len(computed))  # of 600 (300 queries, 2 runs)
        computed.clear()
        (c,) = compare_runs(qrels, a, b, "P@10", exact=exact)  # multiples of 1/10: the support grows slowly
        assert c.method == ("exact" if exact else "float") and len(computed) == 600


def test_p_greater_is_exact_while_the_convolution_is_small():
    # 20 queries, each: A's relevant document tied with one other, B's second: P(A > B) = 1 - 2**-20 exactly
    qrels = parse_qrels([f"q{i} 0 a 1" for i in range(20)])
    a = parse_run([f"q{i} Q0 {d} 1 1 A" for i in range(20) for d in "ab"])
    b = parse_run([line for i in range(20) for line in (f"q{i} Q0 b 1 2 B", f"q{i} Q0 a 2 1 B")])
    (c,) = compare_runs(qrels, a, b, "P@1")
    assert (c.method, c.p_greater) == ("exact", 1 - Fraction(1, 2**20))
    (f,) = compare_runs(qrels, a, b, "P@1", exact=False)
    assert f.method == "float" and f.p_greater == pytest.approx(1 - 2**-20, abs=1e-15)


def test_past_the_exact_bound_the_convolution_goes_on_in_floats(monkeypatch):
    qrels = parse_qrels([f"q{i} 0 a 1" for i in range(20)])
    a = parse_run([f"q{i} Q0 {d} 1 1 A" for i in range(20) for d in "abc"])
    b = parse_run([line for i in range(20) for line in (f"q{i} Q0 b 1 2 B", f"q{i} Q0 a 2 1 B")])
    (exact,) = compare_runs(qrels, a, b, "RR")
    assert exact.method == "exact"
    monkeypatch.setattr(comparison, "EXACT_WORK", 50)
    (c,) = compare_runs(qrels, a, b, "RR")
    assert c.method == "float" and "exact convolution would combine more than 50 pairs" in c.note
    assert c.p_greater == pytest.approx(float(exact.p_greater), abs=1e-12)
    assert c.mean_a == exact.mean_a and c.sd_difference == exact.sd_difference  # the rest stays exact


def test_float_grid_ties_at_zero_as_floats_do():
    # A and B identical: every difference is 0 or symmetric, so P(A > B) = P(A < B) and the ties are exact
    qrels = parse_qrels(["q1 0 a 1", "q2 0 c 1"])
    run = parse_run(["q1 Q0 a 1 1 A", "q1 Q0 b 2 1 A", "q2 Q0 c 1 3 A", "q2 Q0 d 2 3 A", "q2 Q0 e 3 3 A"])
    for measure in ("AP", "nDCG", "RR"):
        (e,) = compare_runs(qrels, run, run, measure)
        (f,) = compare_runs(qrels, run, run, measure, exact=False)
        assert f.method == "float" and f.p_greater == pytest.approx(float(e.p_greater), abs=1e-12), measure
    assert FLOAT_TIE == 1e-12


def test_the_float_hint_on_large_exact_comparisons(files, capsys, monkeypatch):
    folder = files[0]
    from tieaware.commands import compare as command

    monkeypatch.setattr(command, "LARGE_EXACT", 1_000)
    argv = ["compare", str(folder / "qrels"), str(folder / "a"), str(folder / "b"), "-m", "P@10"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    # files are streamed: the count is judged from their size before reading them
    assert re.match(r"tieaware compare: note: exact comparison of about [0-9,]+ documents may take a while; --float", err), err
    assert main(argv + ["--float"]) == 0
    assert capsys.readouterr().err == ""


def test_a_dcg_comparison_keeps_its_grid_inside_int64():
    # DCG has no upper bound of 1: the float grid is chosen from the reach of the sum
    qrels = parse_qrels([f"q{i} 0 d{j} 1000" for i in range(3) for j in range(4)])
    a = parse_run([f"q{i} Q0 d{j} {j} 1 A" for i in range(3) for j in range(4)])
    b = parse_run([f"q{i} Q0 d{j} {j} {j} B" for i in range(3) for j in range(4)])
    (e,) = compare_runs(qrels, a, b, "DCG(dcg='exp-log2')")
    (f,) = compare_runs(qrels, a, b, "DCG(dcg='exp-log2')", exact=False)
    assert math.isfinite(f.p_greater) and f.p_greater == pytest.approx(float(e.p_greater), abs=1e-9)
