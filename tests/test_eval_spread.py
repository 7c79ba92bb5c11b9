"""``tieaware eval --spread``: min and max of the mean, sd due to ties, queries moved; checked by brute force."""

import itertools
import json
import math
from fractions import Fraction

import pytest

from tieaware.cli import main
from tieaware.runs.evaluate import compute
from tieaware.model.exact import to_float
from tieaware.model.names import parse
from tieaware.model.ranking import groups
from tieaware.reference.orderings import orderings
from tieaware.io.trec import parse_qrels, parse_run, run_ranking

QRELS = "q1 0 a 1\nq1 0 c 2\nq2 0 x 1\nq3 0 z 1\n"
RUN = (
    "q1 Q0 a 1 2 A\nq1 Q0 b 2 2 A\nq1 Q0 c 3 1 A\nq1 Q0 d 4 1 A\n"
    "q2 Q0 x 1 1 A\nq2 Q0 y 2 1 A\nq2 Q0 w 3 1 A\n"
    "q3 Q0 z 1 5 A\nq3 Q0 v 2 4 A\n"
)


def brute_force(measure):
    """(min, max, variance, moved) of the mean over every tie-breaking of every query."""
    qrels, run = parse_qrels(QRELS.splitlines()), parse_run(RUN.splitlines())
    m = parse(measure)
    per_query = []
    for q in sorted(run):
        ideal = list(qrels[q].values())
        per_query.append([compute(m, list(o), ideal=ideal) for o in orderings(groups(run_ranking(run[q], qrels[q])))])
    n = len(per_query)
    means = [sum(combo, Fraction(0)) / n for combo in itertools.product(*per_query)] if all(
        isinstance(v, Fraction) for vs in per_query for v in vs
    ) else None
    moved = sum(1 for vs in per_query if len({to_float(v) for v in vs}) > 1)
    return means, moved


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


@pytest.mark.parametrize("measure", ["AP", "P@2", "RR", "R@2", "RBP(p=0.5)", "ERR@2"])
def test_json_spread_matches_brute_force(files, capsys, measure):
    assert main(["eval", *files, "-m", measure, "--spread", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["spread"][measure]
    means, moved = brute_force(measure)
    mean = sum(means) / len(means)
    variance = sum((x - mean) ** 2 for x in means) / len(means)
    assert s["min_mean"]["exact"] == _pq(min(means)) and s["max_mean"]["exact"] == _pq(max(means))
    assert s["sd_mean"]["float"] == pytest.approx(math.sqrt(variance), abs=1e-15)
    assert (s["queries_moved"], s["queries"]) == (moved, 3)


def _pq(x):
    return f"{x.numerator}/{x.denominator}"


def test_table_columns_and_float_mode(files, capsys):
    assert main(["eval", *files, "-m", "AP nDCG@3", "--spread", "--per-query"]) == 0
    out = capsys.readouterr().out
    assert "sd (ties)" in out and "moved" in out and "2/3" in out
    assert main(["eval", *files, "-m", "AP nDCG@3", "--spread", "--float", "--format", "json"]) == 0
    floats = json.loads(capsys.readouterr().out)["spread"]
    assert main(["eval", *files, "-m", "AP nDCG@3", "--spread", "--format", "json"]) == 0
    exact = json.loads(capsys.readouterr().out)["spread"]
    for m in ("AP", "nDCG@3"):
        for key in ("min_mean", "max_mean", "sd_mean"):
            assert floats[m][key]["float"] == pytest.approx(exact[m][key]["float"], abs=1e-12)


def test_without_spread_nothing_changes(files, capsys):
    assert main(["eval", *files, "-m", "AP", "--format", "json"]) == 0
    assert "spread" not in json.loads(capsys.readouterr().out)


def test_spread_refuses_the_trec_format(files, capsys):
    assert main(["eval", *files, "--spread", "--format", "trec"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tieaware eval: error: --spread") and err.count("\n") == 1


def test_complete_counts_missing_judged_queries_as_fixed_zeros(tmp_path, capsys):
    (tmp_path / "qrels").write_text(QRELS + "q4 0 u 1\n")
    (tmp_path / "run").write_text(RUN)
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert main(["eval", *files, "-m", "P@2", "--spread", "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)["spread"]["P@2"]
    assert main(["eval", *files, "-m", "P@2", "--spread", "--format", "json", "-c"]) == 0
    complete = json.loads(capsys.readouterr().out)["spread"]["P@2"]
    assert complete["queries"] == plain["queries"] + 1 == 4 and complete["queries_moved"] == plain["queries_moved"]
    for key in ("min_mean", "max_mean"):
        assert Fraction(complete[key]["exact"]) == Fraction(plain[key]["exact"]) * 3 / 4


def test_columns_path_equals_the_mapping_path(tmp_path):
    """eval reads columns (tieaware.io.columns); evaluate_spread_prepared must equal evaluate_spread exactly."""
    from tieaware.benchmarks.measures import synthetic_run
    from tieaware.benchmarks.spread import _write
    from tieaware.io.columns import prepare, read_table
    from tieaware.runs.comparison import evaluate_spread, evaluate_spread_prepared
    from tieaware.io.trec import read_qrels, read_run

    q, r = _write(synthetic_run(4, 60), str(tmp_path))
    measures = "P@5 R@10 F1@10 AP RR nDCG@10 nDCG RBP(p=0.5) ERR@5"
    expected = evaluate_spread(read_qrels(q), read_run(r), measures, exact=True)
    got = evaluate_spread_prepared(prepare(read_table(q, "qrels"), read_table(r, "run")), measures, exact=True)
    assert got == expected
    # Float mode: the columns path computes every query at once (tieaware.runs.spread_engine), the
    # mapping path one query at a time (tie_spread): the same numbers up to rounding.
    expected = evaluate_spread(read_qrels(q), read_run(r), measures, exact=False)
    got = evaluate_spread_prepared(prepare(read_table(q, "qrels"), read_table(r, "run")), measures, exact=False)
    assert got.keys() == expected.keys()
    for m, s in got.items():
        e = expected[m]
        assert (s.measure, s.queries, s.queries_moved) == (e.measure, e.queries, e.queries_moved)
        for field in ("min_mean", "max_mean", "sd_mean"):
            assert getattr(s, field) == pytest.approx(getattr(e, field), rel=1e-12, abs=1e-15), (m, field)


def test_trec_measures_spread_with_unjudged_documents(tmp_path):
    """Rprec, Success, Judged and Bpref in eval --spread: unjudged rows stay apart (None) on both paths."""
    from tieaware.io.columns import prepare, read_table
    from tieaware.runs.comparison import evaluate_spread, evaluate_spread_prepared
    from tieaware.io.trec import read_qrels, read_run

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 z 1\nq2 0 a 0\nq2 0 c 1\n")
    # q1: a, b and an unjudged u tie at the top; q2: c alone above a tie of a and unjudged v
    run.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 2 r\nq1 Q0 u 3 2 r\nq1 Q0 w 4 1 r\nq2 Q0 c 1 3 r\nq2 Q0 a 2 1 r\nq2 Q0 v 3 1 r\n")
    measures = "Rprec Success@1 Judged@2 Bpref"
    for exact in (True, False):
        expected = evaluate_spread(read_qrels(str(qrels)), read_run(str(run)), measures, exact=exact)
        got = evaluate_spread_prepared(prepare(read_table(str(qrels), "qrels"), read_table(str(run), "run")), measures, exact=exact)
        assert got == expected
    # q1's Judged@2: the top 2 of (a b u) hold 2 judged documents with chance 1/3, else 1: min 1/2, max 1;
    # q2's: c, then one of (a v): 1/2 or 1.  Bpref of q1 (R = 2, N = 1): 1/2 if a is above b, else 0.
    s = evaluate_spread(read_qrels(str(qrels)), read_run(str(run)), measures)
    assert (s["Judged@2"].min_mean, s["Judged@2"].max_mean) == (Fraction(1, 2), Fraction(1))
    assert (s["Bpref"].min_mean, s["Bpref"].max_mean) == (Fraction(1, 2), Fraction(3, 4))
