"""`tieaware bench --only scale --quick`: the scale benchmark runs end to end (no timing asserted)."""

from tieaware.benchmarks import scale
from tieaware.cli import main


def test_quick_scale_benchmark_reports_every_tool(capsys):
    assert main(["bench", "--quick", "--only", "scale"]) == 0
    out = capsys.readouterr().out
    for text in ("### 10^7 lines: heavy ties", "### 10^8 lines", "### rbo", "### the other commands", "tieaware compare A B --float", "(leaderboard)", "tieaware eval --float --spread", "tieaware corr A B --float", "### graded", "### recommender data", "### score matrix",
                 "tieaware float", "tieaware exact", "tieaware.evaluate_matrix", "pytrec_eval", "÷ pytrec_eval", "peak RSS (MB)", "target < 5 s"):
        assert text in out, text
    # every tool that is installed ran to completion (a failure shows "exit N" in the note column)
    assert "exit " not in out, out


def test_generated_runs_are_deterministic():
    assert scale.heavy_tie_files(3, 50) == scale.heavy_tie_files(3, 50)
    assert scale.graded_files(2, 30) == scale.graded_files(2, 30)
    qrels, run = scale.graded_files(2, 30)
    assert len(run.splitlines()) == 60 and {line.split()[3] for line in qrels.splitlines()} <= {"0", "1", "2", "3"}


def test_import_tieaware_and_float_eval_do_not_load_sympy():
    import subprocess
    import sys

    code = (
        "import sys, tieaware\n"
        "from tieaware.runs.evaluate import evaluate\n"
        "from tieaware.io.trec import read_sample\n"
        "q, r = read_sample(); evaluate(q, r, 'AP nDCG@10 P@5 RR R@10', exact=False)\n"
        "assert 'sympy' not in sys.modules, 'sympy loaded'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
