"""trec_eval (through pytrec_eval and ir_measures) agrees with tieaware on untied runs.

trec_eval is tie-oblivious, so every run here has distinct scores: then the
order is the same for everyone and tie-breaking (trec_eval: score
descending, then docno in reverse lexicographic order) never matters.

trec_eval's conventions, and how each is mapped onto tieaware:

- a retrieved document missing from the qrels is unjudged and counts as
  label 0;
- relevant means qrels label >= 1 (pytrec_eval's default relevance_level),
  tieaware's default ``rel=1``;
- num_rel counts every relevant qrels entry, retrieved or not: pass
  ``num_rel=`` (recall, map, map_cut);
- the ideal ranking of ndcg / ndcg_cut sorts every qrels label, retrieved
  or not: pass ``ideal=``; the gain is the label (linear), the discount
  1/log2(rank + 1);
- P_k with k beyond the ranking counts the missing ranks as non-relevant,
  which is tieaware's rule too;
- with num_rel = 0, recall, map and recip_rank are 0 (tieaware agrees).

P_k, recall_k and recip_rank are a single division of two integers in
trec_eval, so its double is the correctly rounded value of our Fraction:
those compare with ``==``.  Sums (map, ndcg) compare to 1e-12 relative.

A missing peer skips this module (pytest.importorskip), so a partial
install still runs the rest; .ci/run imports every peer before testing, so
CI fails loudly instead of skipping.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from tieaware import fast, reference, to_float

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")

pytestmark = pytest.mark.peers

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]
CUTOFFS = (1, 3, 5, 10, 20)


def _collection(queries: int = 100, seed: int = 1992):
    """A derandomized batch: qrels with graded labels 0..3, runs with distinct scores.

    Runs mix judged and unjudged documents, are shorter or longer than the
    cutoffs, and some queries have no relevant document at all.
    """
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        qid = f"q{q}"
        judged = {f"d{i}": rng.choice([0, 0, 1, 1, 2, 3]) for i in range(rng.randint(1, 12))}
        if q % 10 == 0:
            judged = {d: 0 for d in judged}  # no relevant document
        qrels[qid] = judged
        pool = list(judged) + [f"u{i}" for i in range(8)]  # u*: never judged
        docs = rng.sample(pool, rng.randint(1, min(15, len(pool))))
        # Distinct scores, in an order unrelated to the labels.
        values = rng.sample(range(1000), len(docs))
        run[qid] = {d: float(v) / 8 for d, v in zip(docs, values)}
    return qrels, run


QRELS, RUN = _collection()


def _ranking(qid: str) -> list[int]:
    """Labels in rank order; distinct scores, so no tie groups."""
    docs = sorted(RUN[qid], key=lambda d: RUN[qid][d], reverse=True)
    return [QRELS[qid].get(d, 0) for d in docs]


def _num_rel(qid: str) -> int:
    return sum(1 for v in QRELS[qid].values() if v >= 1)


def _ours(layer, qid: str) -> dict[str, object]:
    r, num_rel, ideal = _ranking(qid), _num_rel(qid), list(QRELS[qid].values())
    out: dict[str, object] = {
        "map": layer.average_precision(r, num_rel=num_rel),
        "recip_rank": layer.reciprocal_rank(r),
        "ndcg": layer.ndcg(r, ideal=ideal),
    }
    for k in CUTOFFS:
        out[f"P_{k}"] = layer.precision(r, k)
        out[f"recall_{k}"] = layer.recall(r, k, num_rel=num_rel)
        out[f"map_cut_{k}"] = layer.average_precision(r, k, num_rel=num_rel)
        out[f"ndcg_cut_{k}"] = layer.ndcg(r, k, ideal=ideal)
    return out


def _exact_in_trec_eval(measure: str) -> bool:
    return measure.startswith(("P_", "recall_", "recip_rank"))


@pytest.fixture(scope="module")
def trec_eval_results() -> dict[str, dict[str, float]]:
    cuts = ",".join(map(str, CUTOFFS))
    wanted = {"map", "recip_rank", "ndcg", f"P.{cuts}", f"recall.{cuts}", f"map_cut.{cuts}", f"ndcg_cut.{cuts}"}
    return pytrec_eval.RelevanceEvaluator(QRELS, wanted).evaluate(RUN)


def test_the_batch_covers_the_conventions():
    lengths = [len(RUN[q]) for q in RUN]
    assert min(lengths) < max(CUTOFFS) and max(lengths) > 5  # P_k with k > n occurs
    assert any(_num_rel(q) == 0 for q in QRELS)
    assert any(_num_rel(q) > sum(1 for x in _ranking(q) if x >= 1) for q in QRELS)  # unretrieved relevant
    assert any(any(d.startswith("u") for d in RUN[q]) for q in RUN)  # unjudged retrieved
    assert any(len(set(_ranking(q))) > 2 for q in QRELS)  # graded labels in a ranking


@pytest.mark.parametrize("layer", LAYERS)
def test_pytrec_eval(layer, trec_eval_results):
    failures = []
    checked = 0
    for qid in QRELS:
        theirs = trec_eval_results[qid]
        for measure, value in _ours(layer, qid).items():
            if _exact_in_trec_eval(measure):
                assert isinstance(value, Fraction)
                ok = float(value) == theirs[measure]
            else:
                ok = math.isclose(to_float(value), theirs[measure], rel_tol=1e-12, abs_tol=0.0)
            checked += 1
            if not ok:
                failures.append((qid, measure, value, theirs[measure]))
    assert checked == 100 * (3 + 4 * len(CUTOFFS))
    assert not failures, failures[:5]


# ir_measures names of the same measures.
IR_MEASURES = {"AP": "map", "RR": "recip_rank", "nDCG": "ndcg"}
for _k in CUTOFFS:
    IR_MEASURES |= {f"P@{_k}": f"P_{_k}", f"R@{_k}": f"recall_{_k}"}
    IR_MEASURES |= {f"AP@{_k}": f"map_cut_{_k}", f"nDCG@{_k}": f"ndcg_cut_{_k}"}


@pytest.mark.parametrize("layer", LAYERS)
def test_ir_measures(layer):
    measures = [ir_measures.parse_measure(name) for name in IR_MEASURES]
    ours = {qid: _ours(layer, qid) for qid in QRELS}
    failures = []
    seen = 0
    for metric in ir_measures.iter_calc(measures, QRELS, RUN):
        value = ours[metric.query_id][IR_MEASURES[str(metric.measure)]]
        seen += 1
        if not math.isclose(to_float(value), metric.value, rel_tol=1e-12, abs_tol=0.0):
            failures.append((metric.query_id, str(metric.measure), value, metric.value))
    assert seen == 100 * len(IR_MEASURES)
    assert not failures, failures[:5]


@pytest.mark.parametrize("layer", LAYERS)
def test_ir_measures_msmarco_reciprocal_rank(layer):
    # ir_measures' own pure-Python MS MARCO evaluator, independent of trec_eval.
    measures = [ir_measures.RR, ir_measures.RR @ 3, ir_measures.RR @ 10]
    got = {(m.query_id, str(m.measure)): m.value for m in ir_measures.msmarco.iter_calc(measures, QRELS, RUN)}
    for qid in QRELS:
        r = _ranking(qid)
        assert float(layer.reciprocal_rank(r)) == got[qid, "RR"]
        assert float(layer.reciprocal_rank(r, 3)) == got[qid, "RR@3"]
        assert float(layer.reciprocal_rank(r, 10)) == got[qid, "RR@10"]


def test_aggregates_are_exact_means(trec_eval_results):
    # MAP over the batch: the exact mean of the per-query Fractions, against
    # trec_eval's per-query doubles averaged.
    ours = sum((fast.average_precision(_ranking(q), num_rel=_num_rel(q)) for q in QRELS), Fraction(0)) / len(QRELS)
    theirs = math.fsum(trec_eval_results[q]["map"] for q in QRELS) / len(QRELS)
    assert isinstance(ours, Fraction)
    assert math.isclose(float(ours), theirs, rel_tol=1e-12)
