"""``eval --spread`` and ``compare`` on trec_eval's other families, against brute force over every tie-breaking.

The truth enumerates every ordering of every query's tie groups
(tieaware.reference.orderings), computes the measure on each through the
reference layer (trec_eval's loops), and takes the extremes of the mean
over queries (of the sum for the counts, of the geometric mean for GMAP),
and for compare the mean difference A - B over every pair of tie-breakings.
A document missing from the qrels is ``None`` (not pooled), as in trec_eval.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from tieaware import reference
from tieaware.cli import main
from tieaware.io.trec import parse_qrels, parse_run
from tieaware.model.dispatch import measure_value
from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float
from tieaware.model.names import parse
from tieaware.reference.orderings import orderings
from tieaware.runs.comparison import compare_runs
from tieaware.runs.evaluate import geometric_mean

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 e 1\nq1 0 f -2\nq2 0 x 1\nq2 0 y 1\nq2 0 v 0\nq3 0 z 1\n"
RUN_A = (
    "q1 Q0 a 1 3 A\nq1 Q0 b 2 3 A\nq1 Q0 f 3 3 A\nq1 Q0 c 4 1 A\nq1 Q0 d 5 1 A\n"
    "q2 Q0 x 1 2 A\nq2 Q0 w 2 2 A\nq2 Q0 y 3 2 A\nq2 Q0 v 4 1 A\n"
)
RUN_B = (
    "q1 Q0 b 1 5 B\nq1 Q0 c 2 4 B\nq1 Q0 a 3 4 B\nq1 Q0 e 4 4 B\n"
    "q2 Q0 w 1 9 B\nq2 Q0 x 2 1 B\nq2 Q0 y 3 1 B\nq2 Q0 v 4 1 B\n"
)


def _rankings(run_text):
    """{qid: (tie groups of labels, None for a document not in the qrels; the judged labels)}."""
    qrels = parse_qrels(QRELS.splitlines())
    run = parse_run(run_text.splitlines())
    out = {}
    for q, docs in run.items():
        if q not in qrels:
            continue
        by_score = {}
        for doc, score in docs:
            by_score.setdefault(Fraction(score), []).append(qrels[q].get(doc))
        ranking = [by_score[s] for s in sorted(by_score, reverse=True)]
        out[q] = ([g if len(g) > 1 else g[0] for g in ranking], list(qrels[q].values()))
    return out


def _values(m, ranking, ideal):
    from tieaware.model.ranking import judged_groups

    return [measure_value(reference, m, list(o), ideal=ideal) for o in orderings(judged_groups(ranking))]


def _aggregate(m, values):
    if m.aggregate == "sum":
        return sum(values, Fraction(0))
    if m.aggregate == "gm":
        return geometric_mean(list(values))
    return sum(values, Fraction(0)) / len(values)


@pytest.fixture
def files(tmp_path):
    for name, text in (("qrels", QRELS), ("a", RUN_A), ("b", RUN_B)):
        (tmp_path / name).write_text(text)
    return str(tmp_path / "qrels"), str(tmp_path / "a"), str(tmp_path / "b")


RATIONAL = ["infAP", "IPrec@0.5", "IPrecAvg", "SetP", "SetF", "RelP@2", "Rprec(mult=0.5)", "NumRet", "NumRelRet", "GMAP", "Utility"]


@pytest.mark.parametrize("measure", RATIONAL)
def test_eval_spread_equals_brute_force(files, capsys, measure):
    m = parse(measure)
    assert main(["eval", files[0], files[1], "-m", measure, "--spread", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["spread"][str(m)]
    per_query = [_values(m, *v) for _, v in sorted(_rankings(RUN_A).items())]
    lo = _aggregate(m, [min(v) for v in per_query])
    hi = _aggregate(m, [max(v) for v in per_query])
    assert all(lo <= _aggregate(m, combo) <= hi for combo in itertools.product(*per_query))
    if isinstance(lo, Fraction):
        assert (Fraction(s["min_mean"]["exact"]), Fraction(s["max_mean"]["exact"])) == (lo, hi)
    else:  # GMAP: an algebraic number
        assert s["min_mean"]["float"] == pytest.approx(to_float(lo), abs=1e-15)
        assert s["max_mean"]["float"] == pytest.approx(to_float(hi), abs=1e-15)
    assert s["queries_moved"] == sum(1 for v in per_query if len(set(v)) > 1)
    if m.aggregate == "gm":
        assert s["sd_mean"] is None  # not computed: said so (docs/eval.md), not guessed
    else:
        var = Fraction(0)
        for v in per_query:
            mean = sum(v, Fraction(0)) / len(v)
            var += sum(((x - mean) ** 2 for x in v), Fraction(0)) / len(v)
        n = 1 if m.aggregate == "sum" else len(per_query)
        assert s["sd_mean"]["float"] == pytest.approx(float(var) ** 0.5 / n, abs=1e-15)
    # float mode: the same, to 1e-12 (the array engine hands these measures to tie_spread)
    assert main(["eval", files[0], files[1], "-m", measure, "--spread", "--format", "json", "--float"]) == 0
    f = json.loads(capsys.readouterr().out)["spread"][str(m)]
    for key in ("min_mean", "max_mean"):
        assert f[key]["float"] == pytest.approx(s[key]["float"], abs=1e-12)


def test_eval_spread_table_says_what_is_not_computed(files, capsys):
    assert main(["eval", files[0], files[1], "-m", "GMAP NumRet BinG G RnDCG", "--spread"]) == 0
    out = capsys.readouterr().out
    assert "n/a" in out and "its sd over tie-breakings is not computed" in out and "no spread" not in out


@pytest.mark.parametrize("measure", ["infAP", "IPrec@0.5", "SetP", "RnDCG", "G", "BinG"])
def test_compare_equals_brute_force(measure):
    m = parse(measure)
    qrels = parse_qrels(QRELS.splitlines())
    a, b = _rankings(RUN_A), _rankings(RUN_B)
    queries = sorted(q for q in a if q in b)
    pairs = [[(x, y) for x in _values(m, *a[q]) for y in _values(m, *b[q])] for q in queries]
    exact = m.name not in ("RnDCG", "G", "BinG")
    diffs = [
        sum((Fraction(x) - Fraction(y) if exact else to_float(x) - to_float(y) for x, y in combo), Fraction(0) if exact else 0.0)
        / len(queries)
        for combo in itertools.product(*pairs)
    ]
    (c,) = compare_runs(qrels, parse_run(RUN_A.splitlines()), parse_run(RUN_B.splitlines()), measure)
    assert c.queries == len(queries) == 2
    if exact:
        assert (c.min_difference, c.max_difference) == (min(diffs), max(diffs))
        assert c.expected_difference == sum(diffs, Fraction(0)) / len(diffs)
        assert c.p_greater == Fraction(sum(1 for d in diffs if d > 0), len(diffs))
    else:
        assert to_float(c.min_difference) == pytest.approx(min(diffs), abs=1e-12)
        assert to_float(c.max_difference) == pytest.approx(max(diffs), abs=1e-12)
        assert to_float(c.expected_difference) == pytest.approx(sum(diffs) / len(diffs), abs=1e-12)
    assert c.verdict == ("every" if min(diffs) > 0 else "none" if max(diffs) <= 0 else "some")


def test_compare_cli_with_the_new_families(files, capsys):
    assert main(["compare", files[0], files[1], files[2], "-m", "infAP IPrec@0.5 RnDCG SetP G", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    for name in ("infAP", "IPrec@0.5", "RnDCG", "SetP", "G"):
        assert f'"{name}"' in text


@pytest.mark.parametrize("measure", ["NumRet", "GMAP", "GMBpref"])
def test_compare_refuses_what_is_not_a_mean(measure):
    qrels = parse_qrels(QRELS.splitlines())
    with pytest.raises(TieawareError, match="not a mean over queries"):
        compare_runs(qrels, parse_run(RUN_A.splitlines()), parse_run(RUN_B.splitlines()), measure)
