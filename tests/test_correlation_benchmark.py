"""The correlation benchmark runs and reports its four tables (quick mode)."""

from tieaware.benchmarks.correlation import run


def test_quick_benchmark_report():
    report = run(quick=True)
    for title in ("1. fast at scale", "2. the extremes", "3. fast vs reference", "4. fast (float) vs O(n²)"):
        assert title in report
    assert "10,000" not in report  # quick mode stays small
