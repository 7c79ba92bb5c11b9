"""The RBO benchmark runs and reports its four tables (quick mode)."""

from tieaware.benchmarks.rbo import run


def test_quick_benchmark_report():
    report = run(quick=True)
    for title in ("1. fast RBO", "2. fast vs reference", "3. exact mode's growth", "4. one bound, exact"):
        assert title in report
    assert "10,000" not in report  # quick mode stays small
