"""tieaware.calc_aggregate / iter_calc / evaluator: ir_measures' calling convention, tie-aware values.

On untied runs the values equal ir_measures' own (trec_eval's C code through
pytrec_eval); on tied runs ``tie_break="trec_eval"`` gives ir_measures'
numbers and the default gives the tie-aware expectation.

ir_measures and pandas are imported plainly (test extra): a missing peer
fails loudly instead of skipping.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, RR, P, R, nDCG

import tieaware
from tieaware import TieawareError
from tieaware.runs.compat import Metric, calc_aggregate, evaluator, iter_calc
from tieaware.runs.evaluate import evaluate
from tieaware.io.inputs import to_qrels, to_run

MEASURES = [AP, AP @ 5, P @ 5, P(rel=2) @ 3, R @ 10, RR, RR @ 3, nDCG, nDCG @ 10]


def _collection(seed: int, tied: bool, queries: int = 30):
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(2, 15))]
        qrels[qid] = {d: rng.choice([0, 1, 1, 2]) for d in docs if rng.random() < 0.6}
        qrels[qid][f"x{q}"] = rng.choice([0, 1])  # judged, never retrieved
        scores = [rng.randint(0, 3) / 4 for _ in docs] if tied else rng.sample(range(10**6), len(docs))
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


UNTIED = _collection(7, tied=False)
TIED = _collection(8, tied=True)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.peers
def test_untied_values_equal_ir_measures():
    qrels, run = UNTIED
    theirs = ir_measures.calc_aggregate(MEASURES, qrels, run)
    ours = calc_aggregate(MEASURES, qrels, run)
    assert list(ours) == MEASURES  # keyed by the objects given, in their order
    assert all(isinstance(v, float) for v in ours.values())
    bad = {str(m): (ours[m], theirs[m]) for m in MEASURES if not _close(ours[m], theirs[m])}
    assert not bad


@pytest.mark.peers
def test_untied_per_query_equal_ir_measures():
    qrels, run = UNTIED
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}
    ours = list(iter_calc(MEASURES, qrels, run))
    assert all(type(m) is Metric and m._fields == ir_measures.Metric._fields for m in ours)
    assert len(ours) == len(theirs) == len(qrels) * len(MEASURES)
    bad = [m for m in ours if not _close(m.value, theirs[m.query_id, str(m.measure)])]
    assert not bad


@pytest.mark.peers
def test_tied_run_trec_eval_tie_break_equals_ir_measures():
    qrels, run = TIED
    assert any(len(set(s.values())) < len(s) for s in run.values())
    # Only measures ir_measures sends to pytrec_eval (trec_eval's documented docno order):
    # RR@3 goes to another provider, whose tie order is its own and is not asserted.
    by_trec_eval = [m for m in MEASURES if m != RR @ 3]
    theirs = ir_measures.calc_aggregate(by_trec_eval, qrels, run)
    ours = calc_aggregate(by_trec_eval, qrels, run, tie_break="trec_eval")
    assert all(_close(ours[m], theirs[m]) for m in by_trec_eval), {str(m): (ours[m], theirs[m]) for m in by_trec_eval}
    tie_aware = calc_aggregate(by_trec_eval, qrels, run)
    assert any(not _close(tie_aware[m], theirs[m]) for m in by_trec_eval)  # ties matter on this run


def test_values_are_the_rounded_exact_values():
    qrels, run = TIED
    exact = calc_aggregate(MEASURES, qrels, run, exact=True)
    floats = calc_aggregate(MEASURES, qrels, run)
    ev = evaluate(to_qrels(qrels), to_run(run), [str(m) for m in MEASURES])
    for m in MEASURES:
        assert exact[m] == ev.mean[str(m)]
        assert floats[m] == tieaware.to_float(exact[m])  # one rounding of the exact value
    assert isinstance(exact[AP], Fraction)
    fast = calc_aggregate(MEASURES, qrels, run, fast_float=True)
    assert all(_close(fast[m], floats[m]) for m in MEASURES)


def test_names_and_objects_mix():
    qrels, run = TIED
    got = calc_aggregate([AP @ 5, "map_cut_5", "P@5", P @ 5, "ndcg_cut_10"], qrels, run)
    assert list(got) == [AP @ 5, "map_cut_5", "P@5", P @ 5, "ndcg_cut_10"]
    assert got[AP @ 5] == got["map_cut_5"] and got["P@5"] == got[P @ 5]
    assert got["ndcg_cut_10"] == calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
    assert calc_aggregate("AP", qrels, run) == calc_aggregate(["AP"], qrels, run)  # one name alone


def test_evaluator_reuses_qrels():
    qrels, run = TIED
    ev = evaluator([AP, RR @ 3], qrels)
    assert ev.calc_aggregate(run) == calc_aggregate([AP, RR @ 3], qrels, run)
    assert list(ev.iter_calc(run)) == list(iter_calc([AP, RR @ 3], qrels, run))


def test_pyterrier_frames():
    qrels, run = TIED
    q = pd.DataFrame([(a, d, r) for a, j in qrels.items() for d, r in j.items()], columns=["qid", "docno", "label"])
    rows = [(a, i, d, s) for a, sc in run.items() for i, (d, s) in enumerate(sc.items())]
    res = pd.DataFrame(rows, columns=["qid", "docid", "docno", "score"])  # docid: PyTerrier's internal int id
    assert calc_aggregate([AP, nDCG @ 10], q, res) == calc_aggregate([AP, nDCG @ 10], qrels, run)


def test_top_level_exports():
    assert tieaware.calc_aggregate is calc_aggregate and tieaware.iter_calc is iter_calc
    assert tieaware.Metric is Metric and tieaware.evaluator is evaluator


@pytest.mark.parametrize(
    "measures, message",
    [
        ([ir_measures.alpha_nDCG @ 10], "measure"),
        ([nDCG(judged_only=True) @ 10], "judged_only"),
        ([3], "must hold ir_measures measures"),
        ([], "names no measure"),
    ],
)
def test_unsupported_measures_are_refused_by_name(measures, message):
    qrels, run = TIED
    with pytest.raises(TieawareError, match=message):
        calc_aggregate(measures, qrels, run)


def test_bad_options_and_input_raise_at_the_call():
    qrels, run = TIED
    with pytest.raises(TieawareError, match="fast_float"):
        calc_aggregate([AP], qrels, run, exact=True, fast_float=True)
    with pytest.raises(TieawareError, match="finite number"):
        iter_calc([AP], qrels, {"q1": {"d0": float("nan")}})  # not deferred to the first next()
