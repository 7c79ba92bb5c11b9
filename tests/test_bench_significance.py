"""`tieaware bench --only significance` (quick): the report has every case and its target lines.

No timing thresholds here; docs/benchmarks.md records a full run.
"""

from tieaware.benchmarks.significance import second_run, systems_files
from tieaware.cli import main


def test_quick_report(capsys):
    assert main(["bench", "--quick", "--only", "significance"]) == 0
    out = capsys.readouterr().out
    for part in ("### two runs, heavy ties", "### all pairs", "tieaware compare_systems", "target <= 10 s", "p_min",
                 "### intervals", "--ci 95 --test t at most 2x", "rank intervals over topics with 1,000 resamples"):
        assert part in out, part


def test_the_second_run_keeps_the_documents():
    text = "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 1 A\n"
    lines = second_run(text).splitlines()
    assert [line.split()[:3] for line in lines] == [["q1", "Q0", "d1"], ["q1", "Q0", "d2"]]
    assert all(0 <= int(line.split()[4]) <= 20 and line.endswith(" B") for line in lines)


def test_systems_files_are_deterministic():
    assert systems_files(systems=2, queries=3, docs=4) == systems_files(systems=2, queries=3, docs=4)
