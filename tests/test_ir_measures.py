"""tieaware.ir_measures: tieaware's provider first in ir_measures' pipeline, and the ``ta.`` measures.

On untied runs the provider's values equal ir_measures' own providers' (so
each measure keeps its meaning); on tied runs every ir_measures entry point
gives, to the last bit, what :func:`tieaware.calc_aggregate` gives
(``complete=True``: ir_measures counts a judged query the run misses as 0).
PyTerrier's ``pt.Experiment`` is tested where pyterrier is installed (the
test extra installs it; it needs no Java for DataFrames).
"""

from __future__ import annotations

import math
import random

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, ERR, IPrec, NumQ, NumRel, NumRet, RBP, RR, P, R, Rprec, SetF, SetP, Success, nDCG

import tieaware
import tieaware.ir_measures as ta

tieaware.ir_measures.uninstall()  # each test installs what it needs (importing the module installs)


@pytest.fixture
def installed():
    ta.install()
    yield
    ta.uninstall()


# One measure per family and parameter tieaware computes (ir_measures' names).
MEASURES = [
    P @ 5, P(rel=2) @ 3, R @ 10, AP, AP @ 5, AP(rel=2), RR, RR @ 5, RR(rel=2), nDCG, nDCG @ 10,
    nDCG(gains={0: 0, 1: 1, 2: 5, 3: 10}) @ 10, nDCG(dcg="exp-log2") @ 10, ir_measures.Rprec, Rprec(rel=2),
    ir_measures.Bpref, Success @ 5, ir_measures.Judged @ 10, IPrec @ 0.1, IPrec @ 0.5, NumQ, NumRet, NumRet(rel=1),
    NumRel, ir_measures.SetP, ir_measures.SetRelP, ir_measures.SetR, SetF, SetF(beta=2.0), ir_measures.SetAP,
    ir_measures.infAP, ERR @ 10, RBP(rel=1), RBP(rel=2, p=0.5),
]  # fmt: skip


def _collection(seed: int, tied: bool, queries: int = 25, missing: int = 0):
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        qid = str(q + 1)  # numbers: gdeval (ir_measures' ERR and exp-log2 nDCG) reads no other query ids
        docs = [f"d{i}" for i in range(rng.randint(2, 30))]
        qrels[qid] = {d: rng.choice([0, 1, 1, 2, 3]) for d in docs if rng.random() < 0.6}
        qrels[qid][f"x{q}"] = rng.choice([0, 1, 2])  # judged, never retrieved
        scores = [rng.randint(0, 3) / 4 for _ in docs] if tied else rng.sample(range(10**6), len(docs))
        if q >= queries - missing:
            continue  # judged, not in the run
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
    run["999"] = {"a": 1.0, "b": 1.0}  # in the run, not in the qrels: not evaluated
    return qrels, run


UNTIED = _collection(3, tied=False)
TIED = _collection(4, tied=True, missing=2)


def _ours(measures, qrels, run):
    return tieaware.calc_aggregate(measures, qrels, run, complete=True)


def test_the_issue_example(installed):
    # a, b, c tie; only a is relevant. ir_measures' msmarco provider gives RR@10 1.0 (docno ascending),
    # pytrec_eval gives P@1 0.0 and RR 1/3 (docno descending); tie-aware: 11/18, 1/3, 11/18.
    qrels, run = {"q1": {"a": 1, "b": 0, "c": 0}}, {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}}
    got = ir_measures.calc_aggregate([RR @ 10, P @ 1, RR], qrels, run)
    assert got == {RR @ 10: 11 / 18, P @ 1: 1 / 3, RR: 11 / 18}
    ta.uninstall()
    assert ir_measures.calc_aggregate([P @ 1, RR], qrels, run) == {P @ 1: 0.0, RR: 1 / 3}  # ir_measures' own again


def test_install_is_idempotent_and_reversible():
    providers = list(ir_measures.DefaultPipeline.providers)
    assert not ta.is_installed()
    ta.install()
    ta.install()
    assert ir_measures.DefaultPipeline.providers == [ta.PROVIDER, *providers] and ta.is_installed()
    ta.uninstall()
    assert ir_measures.DefaultPipeline.providers == providers and not ta.is_installed()
    assert "_evaluator" not in vars(ir_measures.DefaultPipeline)
    assert ir_measures.providers.registry["tieaware"] is ta.PROVIDER


@pytest.mark.peers
def test_untied_values_equal_ir_measures_own_providers():
    """Each measure the provider takes means what it means in ir_measures: on an untied run the values agree."""
    qrels, run = UNTIED
    checked = []
    for m in MEASURES:
        if m.NAME == "RBP" and not ir_measures.cwl_eval.is_available():
            continue  # ir_measures computes RBP through cwl_eval, in the conformance extra
        theirs = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
        ta.install()
        try:
            ours = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
        finally:
            ta.uninstall()
        assert set(ours) == set(theirs) == set(qrels), m
        # gdeval (ERR, exp-log2 nDCG) prints 5 decimals
        tol = 5e-6 if m.NAME == "ERR" or m.params.get("dcg") == "exp-log2" else 1e-15
        bad = {q: (ours[q], theirs[q]) for q in theirs if not math.isclose(ours[q], theirs[q], rel_tol=1e-12, abs_tol=tol)}
        assert not bad, (str(m), bad)
        checked.append(m)
    assert len(checked) >= 30


def test_every_measure_goes_to_the_provider(installed):
    for m in MEASURES:
        assert ta.PROVIDER.supports(m), m
    for m in (nDCG(judged_only=True) @ 10, ir_measures.alpha_nDCG @ 10, RBP, ERR, ir_measures.NERR10):
        assert not ta.PROVIDER.supports(m), m  # tieaware lacks them: ir_measures' own providers keep them


def test_aggregates_equal_tieaware_to_the_last_bit(installed):
    qrels, run = TIED
    got = ir_measures.calc_aggregate(MEASURES, qrels, run)
    want = _ours(MEASURES, qrels, run)
    want[NumQ] = float(len(qrels) - 2)  # ir_measures' NumQ counts the queries the run has
    assert got == want
    # a run with every judged query: tieaware.calc_aggregate's default query set
    full = dict(run)
    full.update({q: {"zz": 0.5} for q in qrels if q not in run})
    assert ir_measures.calc_aggregate([AP, nDCG @ 10], qrels, full) == tieaware.calc_aggregate([AP, nDCG @ 10], qrels, full)


def test_per_query_and_evaluator_and_calc(installed):
    qrels, run = TIED
    measures = [AP, P @ 5, nDCG @ 10, RR @ 10]
    theirs = list(ir_measures.iter_calc(measures, qrels, run))
    ours = {(m.query_id, m.measure): m.value for m in tieaware.iter_calc(measures, qrels, run)}
    missing = {q for q in qrels if q not in run}
    assert len(theirs) == len(qrels) * len(measures)
    for metric in theirs:
        want = 0.0 if metric.query_id in missing else ours[metric.query_id, metric.measure]
        assert metric.value == want, metric
    evaluator = ir_measures.evaluator(measures, qrels)
    assert evaluator.calc_aggregate(run) == _ours(measures, qrels, run)
    assert evaluator.calc_aggregate(TIED[1]) == evaluator.calc_aggregate(run)  # qrels reused
    agg, per_query = ir_measures.calc(measures, qrels, run)
    assert agg == _ours(measures, qrels, run) and sorted(per_query, key=repr) == sorted(theirs, key=repr)
    assert m_calc(AP, qrels, run) == _ours([AP], qrels, run)[AP]


def m_calc(measure, qrels, run):
    return measure.calc_aggregate(qrels, run)  # a measure object's own method goes through the pipeline


def test_mixed_with_other_providers_keeps_exact_means(installed):
    qrels, run = TIED
    other = nDCG(judged_only=True) @ 10  # pytrec_eval's
    measures = [AP, other, RR @ 10, P @ 3]
    got = ir_measures.calc_aggregate(measures, qrels, run)
    want = _ours([AP, RR @ 10, P @ 3], qrels, run)
    assert {m: got[m] for m in want} == want
    ta.uninstall()
    assert got[other] == ir_measures.calc_aggregate([other], qrels, run)[other]


def test_inputs_of_every_ir_measures_shape(installed):
    qrels, run = TIED
    want = _ours([AP, nDCG @ 10], qrels, run)
    q_rows = [ir_measures.Qrel(q, d, r) for q, j in qrels.items() for d, r in j.items()]
    r_rows = [ir_measures.ScoredDoc(q, d, s) for q, sc in run.items() for d, s in sc.items()]
    assert ir_measures.calc_aggregate([AP, nDCG @ 10], iter(q_rows), iter(r_rows)) == want  # generators
    assert ir_measures.calc_aggregate([AP, nDCG @ 10], pd.DataFrame(q_rows), pd.DataFrame(r_rows)) == want


def test_the_provider_cuts_in_expectation_not_inside_a_tie(installed):
    # twelve documents tie for first; the relevant one is last by docno: a cut at 10 inside the tie
    # would lose it or keep it by name; tie-aware, RR@10 = (1/12) * H_10
    docs = [f"d{i:02d}" for i in range(12)]
    qrels, run = {"q": {"d11": 1}}, {"q": {d: 1.0 for d in docs}}
    want = sum(1 / 12 / r for r in range(1, 11))
    for m in (RR @ 10, ta.RR @ 10):
        assert math.isclose(ir_measures.calc_aggregate([m], qrels, run)[m], want, rel_tol=1e-15)
    assert ir_measures.calc_aggregate([P @ 10], qrels, run)[P @ 10] == 1 / 12


def test_ta_measures_beside_ir_measures_own():
    qrels, run = TIED
    assert str(ta.P @ 5) == "ta.P@5" and str(ta.nDCG(dcg="exp-log2") @ 10) == "ta.nDCG(dcg='exp-log2')@10"
    assert ta.P @ 5 != P @ 5 and ta.P(rel=2) @ 5 == ta.P(rel=2) @ 5
    measures = [P @ 5, ta.P @ 5, AP, ta.AP, ta.NumQ]
    got = ir_measures.calc_aggregate(measures, qrels, run)  # not installed: ir_measures' runtime provider
    own = ir_measures.calc_aggregate([P @ 5, AP], qrels, run)
    assert got[P @ 5] == own[P @ 5] and got[AP] == own[AP]
    tie_aware = _ours([P @ 5, AP], qrels, run)
    assert math.isclose(got[ta.P @ 5], tie_aware[P @ 5], rel_tol=1e-15) and got[ta.NumQ] == len(qrels) - 2
    assert got[ta.P @ 5] != got[P @ 5]  # ties matter on this run
    ta.install()
    try:
        exact = ir_measures.calc_aggregate([ta.P @ 5, ta.AP], qrels, run)
    finally:
        ta.uninstall()
    assert exact == {ta.P @ 5: tie_aware[P @ 5], ta.AP: tie_aware[AP]}  # the provider: exact means


def test_mapping_of_names():
    assert str(ta.tieaware_measure(ERR @ 10)) == "ERR(g_max=4)@10"  # gdeval's ERR (docs/conventions.md)
    assert str(ta.tieaware_measure(ir_measures.SetRelP)) == "SetP(relative=True)"
    assert str(ta.tieaware_measure(ta.IPrec @ 0.2)) == "IPrec@0.2"
    assert ta.tieaware_measure(RBP) is None and ta.tieaware_measure(P(judged_only=True) @ 5) is None
    with pytest.raises(tieaware.TieawareError, match="graded RBP"):
        tieaware.calc_aggregate([RBP], *TIED)


def test_bad_input_is_tieaware_error_naming_it(installed):
    qrels, run = TIED
    with pytest.raises(tieaware.TieawareError, match="finite number"):
        ir_measures.calc_aggregate([AP], qrels, {"1": {"d0": float("nan")}})


try:
    import pyterrier as pt
except ImportError:  # the test extra installs it; without it only these tests skip
    pt = None
needs_pyterrier = pytest.mark.skipif(pt is None, reason="pt.Experiment needs pyterrier (pip install python-terrier; the test extra has it)")


def _frames():
    qrels, run = TIED
    rng = random.Random(5)
    other = {q: {d: float(rng.randint(0, 2)) for d in sc} for q, sc in run.items()}
    topics = pd.DataFrame({"qid": sorted(qrels), "query": "x"})  # every judged query, two without results
    q = pd.DataFrame([(a, d, r) for a, j in qrels.items() for d, r in j.items()], columns=["qid", "docno", "label"])

    def res(scored):
        return pd.DataFrame([(a, d, s) for a, sc in scored.items() for d, s in sc.items()], columns=["qid", "docno", "score"])

    return qrels, run, other, topics, q, res(run), res(other)


@needs_pyterrier
def test_pyterrier_experiment(installed):
    qrels, run, other, topics, q, res_a, res_b = _frames()
    third = {qid: {d: s * 2 for d, s in sc.items()} for qid, sc in other.items()}  # b's order: b's values
    res_c = res_b.assign(score=res_b["score"] * 2)
    measures = [AP, nDCG @ 10, P @ 5, RR @ 10]
    names = ["a", "b", "c"]
    table = pt.Experiment([res_a, res_b, res_c], topics, q, measures, names=names, baseline=0, correction="bonferroni")
    per_query = pt.Experiment([res_a, res_b, res_c], topics, q, measures, names=names, perquery=True)
    for name, scored in (("a", run), ("b", other), ("c", third)):
        ours = {(m.query_id, str(m.measure)): m.value for m in tieaware.iter_calc(measures, qrels, scored)}
        rows = per_query[per_query["name"] == name]
        for row in rows.itertuples():
            want = 0.0 if row.qid not in scored else ours[row.qid, row.measure]
            assert row.value == want  # per-query values equal to the last bit
        means = table.set_index("name").loc[name]
        exact = _ours(measures, qrels, scored)
        for m in measures:
            values = rows[rows["measure"] == str(m)]["value"].tolist()
            # PyTerrier's own mean of those values (a float sum, in its order): within float rounding of tieaware's
            assert math.isclose(means[str(m)], sum(values) / len(values), rel_tol=1e-15)
            assert math.isclose(means[str(m)], exact[m], rel_tol=1e-15) and len(values) == len(qrels)
    from scipy.stats import ttest_rel

    def column(name, m):
        return per_query[(per_query["name"] == name) & (per_query["measure"] == str(m))].sort_values("qid")["value"].to_numpy()

    rows = table.set_index("name")
    for m in measures:
        for name in ("b", "c"):
            p = ttest_rel(column(name, m), column("a", m)).pvalue  # PyTerrier's default test, on tieaware's values
            assert math.isclose(rows.loc[name, f"{m} p-value"], p, rel_tol=1e-12)
            assert math.isclose(rows.loc[name, f"{m} p-value corrected"], min(1.0, 2 * p), rel_tol=1e-12)  # 2 comparisons
        assert rows.loc["b", f"{m} +"] == (column("b", m) > column("a", m)).sum()


@needs_pyterrier
def test_pyterrier_side_by_side_without_installing():
    qrels, run, _, topics, q, res_a, _ = _frames()
    table = pt.Experiment([res_a], topics, q, [P @ 5, ta.P @ 5], names=["a"])
    own = ir_measures.calc_aggregate([P @ 5], qrels, run)[P @ 5]
    assert table.loc[0, "P@5"] == own
    assert math.isclose(table.loc[0, "ta.P@5"], _ours([P @ 5], qrels, run)[P @ 5], rel_tol=1e-15)


def test_runs_without_a_judged_query_give_ir_measures_defaults():
    qrels = {"q1": {"a": 1}}
    cases = [(qrels, {}), (qrels, {"zz": {"a": 1.0}}), ({}, {"zz": {"a": 1.0}}), (qrels, pd.DataFrame([], columns=["query_id", "doc_id", "score"]))]
    measures = [P @ 5, AP, NumQ]
    for q, r in cases:
        theirs = ir_measures.calc_aggregate(measures, q, r)
        per_query = list(ir_measures.iter_calc(measures, q, r))
        ta.install()
        try:
            ours = ir_measures.calc_aggregate(measures, q, r)
            assert list(ir_measures.iter_calc(measures, q, r)) == per_query
        finally:
            ta.uninstall()
        assert {str(m): repr(v) for m, v in ours.items()} == {str(m): repr(v) for m, v in theirs.items()}  # nan == nan


@needs_pyterrier
def test_pyterrier_experiment_in_batches(installed):
    """batch_size: PyTerrier evaluates a transformer's results batch by batch, each through ir_measures."""
    qrels, run, _, topics, q, res_a, _ = _frames()
    system = pt.Transformer.from_df(res_a)
    measures = [AP, nDCG @ 10]
    whole = pt.Experiment([res_a], topics, q, measures, names=["a"], perquery=True)
    batched = pt.Experiment([system], topics, q, measures, names=["a"], perquery=True, batch_size=4)
    key = ["qid", "measure"]
    assert whole.sort_values(key)["value"].tolist() == batched.sort_values(key)["value"].tolist()


def test_fast_float_for_big_runs():
    qrels, run = TIED
    exact = _ours(MEASURES, qrels, run)
    exact[NumQ] = float(len(qrels) - 2)
    ta.install(fast_float=True)
    try:
        got = ir_measures.calc_aggregate(MEASURES, qrels, run)
    finally:
        ta.uninstall()
        ta.PROVIDER.fast_float = False
    assert all(math.isclose(got[m], exact[m], rel_tol=1e-12, abs_tol=1e-15) for m in MEASURES)
    with pytest.raises(tieaware.TieawareError, match="fast_float"):
        ta.install(fast_float="yes")
    assert not ta.is_installed()


def test_without_ir_measures_the_import_says_what_to_install():
    import subprocess
    import sys

    code = "import sys; sys.modules['ir_measures'] = None\ntry:\n import tieaware.ir_measures\nexcept tieaware.TieawareError as e: print(e)"
    done = subprocess.run([sys.executable, "-c", "import tieaware\n" + code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "tieaware.ir_measures needs ir_measures: pip install ir_measures"
