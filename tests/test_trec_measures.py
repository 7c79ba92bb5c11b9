"""Rprec and Success@k: fast == reference exactly, and both == trec_eval on untied input.

- Exhaustive: every tie structure and labelling up to 6 documents (binary)
  and 4 (grades 0-2 with rel=1 and rel=2), every cutoff up to one past the
  end, num_rel from 0 to two more than retrieved.
- Hypothesis beyond, with the project's public strategies.
- Golden values from outside: trec_eval (through pytrec_eval, which embeds
  trec_eval 9.0.x) on untied rankings: Rprec and success_k.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given

from tieaware import fast, reference
from tieaware.model.ranking import flatten, groups
from tieaware.strategies import rankings_with_cutoff
from tieaware.model.structures import all_tied_rankings


def _retrieved(r, rel) -> int:
    return sum(1 for x in flatten(groups(r)) if x >= rel)


def _check(r, k, rel):
    assert fast.success(r, k, rel=rel) == reference.success(r, k, rel=rel), (r, k, rel)
    base = _retrieved(r, rel)
    for num_rel in (None, *range(base, base + 3)):
        assert fast.r_precision(r, num_rel, rel=rel) == reference.r_precision(r, num_rel, rel=rel), (r, num_rel, rel)


@pytest.mark.parametrize("n", range(1, 7))
def test_exhaustive_binary(n):
    for r in all_tied_rankings(n, (0, 1)):
        for k in range(1, n + 2):
            _check(r, k, 1)


@pytest.mark.parametrize("n", range(1, 5))
def test_exhaustive_graded(n):
    for r in all_tied_rankings(n, (0, 1, 2)):
        for k in range(1, n + 2):
            for rel in (1, 2):
                _check(r, k, rel)


@given(rankings_with_cutoff())
def test_hypothesis(case):
    r, k = case
    _check(r, k, 1)
    assert fast.success(r, k, exact=False) == pytest.approx(float(reference.success(r, k)), abs=1e-12)
    assert fast.r_precision(r, exact=False) == pytest.approx(float(reference.r_precision(r)), abs=1e-12)


def test_by_hand():
    # Success@2 of [0, [0, 1, 0]]: rank 1 is non-relevant; the relevant document
    # takes rank 2 in 1 of the 3 orderings of the group: 1/3.
    assert fast.success([0, [0, 1, 0]], 2) == reference.success([0, [0, 1, 0]], 2) == Fraction(1, 3)
    # Success@2 of [[0, 1, 0, 1]]: no relevant in 2 slots of 4 with 2 relevant:
    # C(2, 2)/C(4, 2) = 1/6, so 5/6.
    assert fast.success([[0, 1, 0, 1]], 2) == Fraction(5, 6)
    # Rprec of [[1, 0, 0], 1] with R = 2: the top 2 are two of the group's three
    # slots, expected hits 2·(1/3), over R = 2: 1/3.  With R = 4 (more than
    # retrieved... the ranking has 4 documents, 2 relevant): (1 + 1) / 4 = 1/2.
    assert fast.r_precision([[1, 0, 0], 1], num_rel=2) == Fraction(1, 3)
    assert fast.r_precision([[1, 0, 0], 1], num_rel=4) == Fraction(1, 2)
    # R = 0: trec_eval gives 0.
    assert fast.r_precision([[0, 0], 0]) == reference.r_precision([[0, 0], 0]) == 0


def _pytrec_eval():
    """pytrec_eval, or a skip of the one test that needs it (the by-hand tests above run without it)."""
    return pytest.importorskip("pytrec_eval")


@pytest.mark.peers
@pytest.mark.parametrize("seed", range(20))
def test_trec_eval_on_untied_input(seed):
    """trec_eval's Rprec and success_k (via pytrec_eval) equal ours on untied rankings."""
    pytrec_eval = _pytrec_eval()
    rng = random.Random(seed)
    n = rng.randint(1, 15)
    labels = [rng.choice((0, 0, 1, 2)) for _ in range(n)]
    unretrieved = rng.randint(0, 3)  # judged relevant documents the run missed
    run = {"q": {f"d{i}": float(n - i) for i in range(n)}}  # distinct scores: no ties
    qrels = {"q": {f"d{i}": labels[i] for i in range(n)}}
    qrels["q"].update({f"m{j}": 1 for j in range(unretrieved)})
    if not any(v >= 1 for v in qrels["q"].values()):
        qrels["q"]["m_extra"] = 1
    got = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec", "success"}).evaluate(run)["q"]
    num_rel = sum(1 for v in qrels["q"].values() if v >= 1)
    assert float(fast.r_precision(labels, num_rel)) == pytest.approx(got["Rprec"], abs=1e-12)
    for k in (1, 5, 10):
        assert float(fast.success(labels, k)) == got[f"success_{k}"]


# ---- Judged@k and Bpref: None marks an unjudged document ----------------------


def _counts(r, rel):
    flat = [x for g in r for x in (g if isinstance(g, (list, tuple)) else [g])]
    return sum(1 for x in flat if x is not None and x >= rel), sum(1 for x in flat if x is not None and x < rel)


def _check_judged_bpref(r, k, rel):
    assert fast.judged(r, k) == reference.judged(r, k), (r, k)
    assert fast.judged(r) == reference.judged(r), r
    rel_in, non_in = _counts(r, rel)
    for num_rel in (None, rel_in, rel_in + 2):
        for num_nonrel in (None, non_in + 1, non_in + 3):
            got = fast.bpref(r, num_rel, num_nonrel, rel=rel)
            assert got == reference.bpref(r, num_rel, num_nonrel, rel=rel), (r, num_rel, num_nonrel, rel)


@pytest.mark.parametrize("n", range(1, 5))
def test_exhaustive_judged_bpref(n):
    for r in all_tied_rankings(n, (None, 0, 1)):
        for k in range(1, n + 2):
            _check_judged_bpref(r, k, 1)


@pytest.mark.parametrize("n", range(1, 5))
def test_exhaustive_judged_bpref_graded(n):
    for r in all_tied_rankings(n, (None, 0, 1, 2)):
        for rel in (1, 2):
            _check_judged_bpref(r, n, rel)


def test_judged_bpref_by_hand():
    # Judged@2 of [1, [None, 0, None]]: rank 1 judged; rank 2 is the judged 0 in 1 of 3 orders.
    assert fast.judged([1, [None, 0, None]], 2) == reference.judged([1, [None, 0, None]], 2) == Fraction(2, 3)
    # Judged@4 of two documents: ir_measures divides by the 2 documents retrieved, not by 4.
    assert fast.judged([1, None], 4) == reference.judged([1, None], 4) == Fraction(1, 2)
    assert fast.judged([]) == reference.judged([]) == 0
    # bpref of [[1, 0], 1], R=2, N=1: orders (1 0 1) -> (1 + 0)/2 and (0 1 1) -> 0; mean 1/4.
    assert fast.bpref([[1, 0], 1]) == reference.bpref([[1, 0], 1]) == Fraction(1, 4)
    # Unjudged documents are skipped by bpref: inserting them anywhere changes nothing.
    assert fast.bpref([None, [1, None, 0], None, 1]) == fast.bpref([[1, 0], 1])
    # Every other measure reads None as 0.
    assert fast.precision([None, 1], 2) == fast.precision([0, 1], 2) == reference.precision([None, 1], 2)
    # R = 0: 0, as trec_eval.
    assert fast.bpref([0, None]) == reference.bpref([0, None]) == 0


def test_judged_bpref_bad_arguments():
    from tieaware.model.errors import TieawareError

    with pytest.raises(TieawareError, match="num_nonrel"):
        fast.bpref([0, 0, 1], num_nonrel=1)
    with pytest.raises(TieawareError, match="num_nonrel"):
        reference.bpref([0, 0, 1], num_nonrel=1)
    with pytest.raises(TieawareError, match="k"):
        fast.judged([1], 0)


@given(rankings_with_cutoff())
def test_hypothesis_judged_bpref(case):
    r, k = case
    # mark every document labelled 0 at an even flat position unjudged
    i = iter(range(10**6))
    marked = [[None if x == 0 and next(i) % 2 == 0 else x for x in g] if isinstance(g, (list, tuple)) else (None if g == 0 and next(i) % 2 == 0 else g) for g in r]
    _check_judged_bpref(marked, k, 1)
    assert fast.bpref(marked, exact=False) == pytest.approx(float(reference.bpref(marked)), abs=1e-12)
    assert fast.judged(marked, k, exact=False) == pytest.approx(float(reference.judged(marked, k)), abs=1e-12)


@pytest.mark.peers
@pytest.mark.parametrize("seed", range(20))
def test_trec_eval_bpref_on_untied_input(seed):
    """trec_eval's bpref (via pytrec_eval) equals ours on untied rankings with unjudged documents."""
    pytrec_eval = _pytrec_eval()
    rng = random.Random(1000 + seed)
    n = rng.randint(1, 15)
    labels = [rng.choice((None, None, 0, 0, 1, 2)) for _ in range(n)]
    run = {"q": {f"d{i}": float(n - i) for i in range(n)}}
    qrels = {"q": {f"d{i}": x for i, x in enumerate(labels) if x is not None}}
    qrels["q"].update({f"m{j}": rng.choice((0, 1)) for j in range(rng.randint(0, 3))})  # judged, not retrieved
    qrels["q"].setdefault("m_extra", 1)
    got = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)["q"]["bpref"]
    num_rel = sum(1 for v in qrels["q"].values() if v >= 1)
    num_nonrel = sum(1 for v in qrels["q"].values() if v < 1)
    assert float(fast.bpref(labels, num_rel, num_nonrel)) == pytest.approx(got, abs=1e-12)


@pytest.mark.peers
@pytest.mark.parametrize("seed", range(10))
def test_ir_measures_judged_on_untied_input(seed):
    """ir_measures' Judged@k equals ours on untied rankings (ir_measures divides by min(k, retrieved))."""
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(2000 + seed)
    n = rng.randint(1, 12)
    labels = [rng.choice((None, 0, 1)) for _ in range(n)]
    qrels = [ir_measures.Qrel("q", f"d{i}", x) for i, x in enumerate(labels) if x is not None] + [ir_measures.Qrel("q", "m", 1)]
    run = [ir_measures.ScoredDoc("q", f"d{i}", float(n - i)) for i in range(n)]
    for k in (1, 5, 10):
        got = ir_measures.calc_aggregate([ir_measures.Judged @ k], qrels, run)[ir_measures.Judged @ k]
        assert float(fast.judged(labels, k)) == pytest.approx(got, abs=1e-12)


def test_eval_paths_agree_on_unjudged(tmp_path, capsys):
    """Judged and Bpref through evaluate (dict path, exact and float) and the CLI (column path) agree."""
    import json

    from tieaware.cli import main
    from tieaware.runs.evaluate import evaluate
    from tieaware.io.trec import parse_qrels, parse_run

    qrels_lines = ["q1 0 a 1", "q1 0 b 0", "q1 0 c 2", "q1 0 z 1", "q1 0 y 0", "q2 0 a 0", "q2 0 x 1"]
    # ties: q1 has (b, u1, c) tied, u1 and u2 unjudged; q2 has (a, u3) tied
    run_lines = ["q1 Q0 a 1 3 r", "q1 Q0 b 2 2 r", "q1 Q0 u1 3 2 r", "q1 Q0 c 4 2 r", "q1 Q0 u2 5 1 r",
                 "q2 Q0 a 1 1 r", "q2 Q0 u3 2 1 r"]  # fmt: skip
    measures = "Rprec Bpref Success@2 Judged@3 Judged"
    ev = evaluate(parse_qrels(qrels_lines), parse_run(run_lines), measures)
    # by hand, q1: R=3 (a, c, z), N=2 (b, y); ranking [1, [0, None, 2], None]
    assert ev.per_query["q1"]["Bpref"] == fast.bpref([1, [0, None, 2], None], 3, 2) == reference.bpref([1, [0, None, 2], None], 3, 2)
    assert ev.per_query["q1"]["Judged@3"] == reference.judged([1, [0, None, 2], None], 3) == Fraction(7, 9)
    assert ev.per_query["q2"]["Bpref"] == reference.bpref([[0, None]], 1, 1) == 0
    floats = evaluate(parse_qrels(qrels_lines), parse_run(run_lines), measures, exact=False)
    for q in ("q1", "q2"):
        for name in ev.per_query[q]:
            assert floats.per_query[q][name] == pytest.approx(float(ev.per_query[q][name]), abs=1e-12)
    (tmp_path / "q").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "r").write_text("\n".join(run_lines) + "\n")
    for extra in ([], ["--float"]):
        assert main(["eval", "-m", measures, str(tmp_path / "q"), str(tmp_path / "r"), "--format", "json", "--per-query", *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        assert "Bpref" in json.dumps(out) and "Judged@3" in json.dumps(out)
    assert main(["eval", "-m", measures, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    table = capsys.readouterr().out
    mean = (ev.mean["Bpref"].numerator, ev.mean["Bpref"].denominator)
    assert f"{mean[0]}/{mean[1]}" in table
