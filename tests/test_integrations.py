"""tieaware.integrations: the stateful metric, the sentence-transformers evaluator and the MTEB scorer.

No torch, sentence-transformers or MTEB here (docs/integrations.md records the
real runs beside those libraries): the evaluator gets a tiny hand-made model
whose ``encode`` returns fixed embeddings, the MTEB scorer is checked against
pytrec_eval (what MTEB calls) on untied runs and against tieaware.evaluate on
tied ones.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import tieaware
from tieaware import TieawareError, metrics
from tieaware.integrations.mteb import retrieval_scores
from tieaware.integrations.sentence_transformers import InformationRetrievalEvaluator
from tieaware.integrations.stateful import TieAwareMetric


def test_importing_the_integrations_imports_no_heavy_library():
    code = (
        "import sys, json, tieaware, tieaware.integrations.stateful, tieaware.integrations.sentence_transformers, "
        "tieaware.integrations.mteb; "
        "print(json.dumps(sorted(m for m in ('torch', 'sentence_transformers', 'mteb', 'torchmetrics', 'sympy', 'transformers') if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


# -- the stateful metric -------------------------------------------------------------------------------


def _batches(seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(3):
        scores = rng.integers(0, 3, (7, 9)).astype(np.float32)
        yield scores, rng.integers(0, 3, (7, 9)) * (rng.random((7, 9)) < 0.4)


def test_stateful_metric_is_the_mean_of_every_row_so_far():
    m = TieAwareMetric("nDCG@5 RR AP", bounds=True)
    rows = {name: [] for name in ("nDCG@5", "RR", "AP")}
    worst = []
    for scores, labels in _batches():
        batch_means = m(scores, labels)
        got = metrics.evaluate(scores, labels, "nDCG@5 RR AP")
        for name in rows:
            rows[name].append(got[name])
            assert float(batch_means[name]) == pytest.approx(float(np.mean(got[name])), abs=1e-15)
        worst.append(metrics.evaluate(scores, labels, "RR", order="worst")["RR"])
    means = m.compute()
    for name, parts in rows.items():
        assert float(means[name]) == pytest.approx(float(np.mean(np.concatenate(parts))), abs=1e-15)
    assert float(means["RR worst"]) == pytest.approx(float(np.mean(np.concatenate(worst))), abs=1e-15)
    assert float(means["RR worst"]) <= float(means["RR"]) <= float(means["RR best"])
    assert m.compute(per_row=True)["AP"].tolist() == np.concatenate(rows["AP"]).tolist()
    assert m.rows == 21
    m.reset()
    with pytest.raises(TieawareError, match="update"):
        m.compute()


def test_stateful_metric_skip_empty_and_array_api_strict():
    m = TieAwareMetric("RR", skip_empty=True)
    m.update(np.array([[1.0, 1.0], [1.0, 0.0]]), np.array([[1, 0], [0, 0]]))  # the second row has no relevant document
    assert m.compute(per_row=True)["RR"].tolist() == [0.75]
    xp = pytest.importorskip("array_api_strict")
    m = TieAwareMetric("RR@10 P@1")
    m.update(xp.asarray([[1.0, 1.0, 1.0]]), xp.asarray([[1, 0, 0]]))
    out = m.compute()
    assert type(out["RR@10"]).__module__.startswith("array_api_strict") and float(out["P@1"]) == pytest.approx(1 / 3)
    with pytest.raises(TieawareError, match="one array library"):
        m.update(np.array([[1.0]]), np.array([[1]]))


def test_stateful_metric_checks_its_measures_at_once():
    with pytest.raises(TieawareError, match="Bpref"):
        TieAwareMetric("Bpref")


# -- the sentence-transformers evaluator ---------------------------------------------------------------


class FixedModel:
    """A hand-made model: each text's embedding is looked up in a table."""

    def __init__(self, table):
        self.table = table
        self.calls = []

    def encode(self, texts, **kwargs):
        self.calls.append(kwargs)
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def _st_reference(queries, corpus, relevant, model, ks):
    """sentence-transformers' definitions on one ordering (ties by corpus id ascending), written out here."""
    ids = list(corpus)
    emb_c = model.encode([corpus[c] for c in ids])
    out = {f"{m}@{k}": [] for m in ("accuracy", "precision", "recall", "mrr", "ndcg", "map") for k in ks}
    for qid, text in queries.items():
        q = model.encode([text])[0]
        sims = emb_c @ q / (np.linalg.norm(emb_c, axis=1) * np.linalg.norm(q))
        ranked = [c for _, c in sorted(zip((-s for s in sims.tolist()), ids))]
        rel = relevant[qid]
        for k in ks:
            top = [c in rel for c in ranked[:k]]
            hits = sum(top)
            out[f"accuracy@{k}"].append(float(hits > 0))
            out[f"precision@{k}"].append(hits / k)
            out[f"recall@{k}"].append(hits / len(rel))
            out[f"mrr@{k}"].append(next((1 / (i + 1) for i, t in enumerate(top) if t), 0.0))
            dcg = sum(t / math.log2(i + 2) for i, t in enumerate(top))
            out[f"ndcg@{k}"].append(dcg / sum(1 / math.log2(i + 2) for i in range(min(len(rel), k))))
            found, total = 0, 0.0
            for i, t in enumerate(top):
                if t:
                    found += 1
                    total += found / (i + 1)
            out[f"map@{k}"].append(total / min(k, len(rel)))
    return {key: float(np.mean(v)) for key, v in out.items()}


def _corpus(seed, tied):
    rng = np.random.default_rng(seed)
    dims = 3
    table = {}
    corpus = {f"d{i:02d}": f"doc {i}" for i in range(25)}
    queries = {f"q{i}": f"query {i}" for i in range(6)}
    for text in list(corpus.values()) + list(queries.values()):
        v = rng.integers(0, 3, dims) + 1 if tied else rng.random(dims) + 0.01
        table[text] = v.astype(float).tolist()
    relevant = {q: set(rng.choice(list(corpus), size=3, replace=False).tolist()) for q in queries}
    relevant["q0"].add("not-in-corpus")
    return queries, corpus, relevant, FixedModel(table)


KS = dict(mrr_at_k=[3, 10], ndcg_at_k=[3, 10], accuracy_at_k=[1, 3], precision_recall_at_k=[1, 5], map_at_k=[10])


def test_evaluator_equals_sentence_transformers_definitions_on_untied_scores():
    queries, corpus, relevant, model = _corpus(1, tied=False)
    out = InformationRetrievalEvaluator(queries, corpus, relevant, name="dev", **KS)(model)
    ref = _st_reference(queries, corpus, relevant, model, [1, 3, 5, 10])
    for key, value in out.items():
        metric = key[len("dev_cosine_") :].removesuffix("_worst").removesuffix("_best")
        assert value == pytest.approx(ref[metric], abs=1e-6), key  # float32 similarities: no ties here
    keys = {f"dev_cosine_{m}@{k}" for m, ks in (("accuracy", [1, 3]), ("precision", [1, 5]), ("recall", [1, 5]), ("mrr", [3, 10]), ("ndcg", [3, 10]), ("map", [10])) for k in ks}
    assert set(out) == keys | {k + "_worst" for k in keys} | {k + "_best" for k in keys}
    plain = [k for k in out if not k.endswith(("_worst", "_best"))]  # sentence-transformers' order of the metrics
    assert [k.split("_")[2].split("@")[0] for k in plain] == ["accuracy"] * 2 + ["precision"] * 2 + ["recall"] * 2 + ["ndcg"] * 2 + ["mrr"] * 2 + ["map"]


def test_evaluator_on_ties_is_the_expectation_and_lies_in_its_range():
    queries, corpus, relevant, model = _corpus(2, tied=True)
    ev = InformationRetrievalEvaluator(queries, corpus, relevant, **KS)
    out = ev(model)
    assert ev.primary_metric == "cosine_ndcg@10"
    # the same candidates through tieaware.evaluate_matrix on the whole score matrix (float32, as computed)
    emb_q = model.encode(list(queries.values()))
    emb_c = model.encode(list(corpus.values()))
    from tieaware.integrations.sentence_transformers import cosine

    sims = cosine(emb_q, emb_c)
    ids = list(corpus)
    labels = [{ids.index(c) for c in relevant[q] if c in corpus} for q in queries]
    judged = [[1] * len(relevant[q]) for q in queries]
    direct = metrics.evaluate(sims, labels, "RR@10 nDCG@10 AP(norm=capped)@10 Success@3", judged=judged)
    assert out["cosine_mrr@10"] == pytest.approx(float(np.mean(direct["RR@10"])), abs=1e-15)
    assert out["cosine_ndcg@10"] == pytest.approx(float(np.mean(direct["nDCG@10"])), abs=1e-15)
    assert out["cosine_map@10"] == pytest.approx(float(np.mean(direct["AP(norm=capped)@10"])), abs=1e-15)
    assert out["cosine_accuracy@3"] == pytest.approx(float(np.mean(direct["Success@3"])), abs=1e-15)
    for key in [k for k in out if not k.endswith(("_worst", "_best"))]:
        assert out[key + "_worst"] - 1e-12 <= out[key] <= out[key + "_best"] + 1e-12, key
    assert any(out[k + "_worst"] < out[k + "_best"] for k in out if not k.endswith(("_worst", "_best")))  # ties matter here
    # the corpus chunk size changes nothing: ties at the cut are kept whole across chunks
    small = InformationRetrievalEvaluator(queries, corpus, relevant, corpus_chunk_size=4, **KS)(model)
    assert small == pytest.approx(out, abs=1e-15)


def test_evaluator_writes_sentence_transformers_csv(tmp_path):
    queries, corpus, relevant, model = _corpus(3, tied=True)
    ev = InformationRetrievalEvaluator(queries, corpus, relevant, name="x", write_predictions=True, **KS)
    out = ev(model, output_path=str(tmp_path), epoch=1, steps=5)
    lines = (tmp_path / "Information-Retrieval_evaluation_x_results.csv").read_text().splitlines()
    assert lines[0].split(",")[:4] == ["epoch", "steps", "cosine-Accuracy@1", "cosine-Accuracy@3"]
    assert lines[0].endswith("cosine-MAP@10") and lines[1].startswith("1,5,")
    assert float(lines[1].split(",")[-1]) == out["x_cosine_map@10"]
    assert ev.primary_metric == "x_cosine_ndcg@10"
    predictions = (tmp_path / "Information-Retrieval_evaluation_x_predictions_cosine.jsonl").read_text().splitlines()
    assert len(predictions) == len(queries) and json.loads(predictions[0])["query_id"] == "q0"


def test_evaluator_uses_given_score_functions_and_refuses_bad_cutoffs():
    queries, corpus, relevant, model = _corpus(4, tied=True)
    dot = lambda a, b: a @ b.T  # noqa: E731
    out = InformationRetrievalEvaluator(queries, corpus, relevant, score_functions={"dot": dot}, main_score_function="dot", **KS)(model)
    assert "dot_ndcg@10" in out and "dot_ndcg@10_best" in out
    with pytest.raises(TieawareError, match="ndcg_at_k"):
        InformationRetrievalEvaluator(queries, corpus, relevant, ndcg_at_k=[0])


# -- the MTEB scorer -------------------------------------------------------------------------------------


def _run(seed, tied):
    rng = np.random.default_rng(seed)
    qrels, results = {}, {}
    for q in range(8):
        docs = [f"d{j}" for j in range(30)]
        scores = rng.integers(0, 4, 30) / 4 if tied else rng.random(30)
        results[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs + ["x1", "x2"], size=8, replace=False)}
    return qrels, results


KV = [1, 3, 5, 10, 20]


def test_mteb_scores_equal_pytrec_eval_on_untied_runs():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, results = _run(5, tied=False)
    ours = retrieval_scores(qrels, results, KV)
    names = {"ndcg_cut": "ndcg_at", "map_cut": "map_at", "recall": "recall_at", "P": "precision_at", "success": "hit_rate_at"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"{m}.{','.join(map(str, KV))}" for m in names})
    per_query = evaluator.evaluate(results)
    for measure, key in names.items():
        for k in KV:
            mean = sum(v[f"{measure}_{k}"] for v in per_query.values()) / len(per_query)
            assert ours[f"{key}_{k}"] == round(mean, 5), (key, k)
    assert ours["accuracy"] == ours["recall_at_1"]
    # MRR@k as MTEB computes it: the first document with grade > 0 in the top k
    for k in KV:
        rr = []
        for q, docs in results.items():
            top = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)[:k]
            rr.append(next((1 / (i + 1) for i, (d, _) in enumerate(top) if qrels[q].get(d, 0) > 0), 0.0))
        assert ours[f"mrr_at_{k}"] == pytest.approx(sum(rr) / len(rr), abs=1e-15)


def test_mteb_scores_on_ties_equal_tieaware_evaluate():
    qrels, results = _run(6, tied=True)
    ours = retrieval_scores(qrels, results, KV)
    names = {"ndcg_at": "nDCG", "map_at": "AP", "recall_at": "R", "precision_at": "P", "hit_rate_at": "Success", "mrr_at": "RR"}
    ev = tieaware.evaluate(qrels, results, " ".join(f"{m}@{k}" for m in names.values() for k in KV))
    for key, m in names.items():
        for k in KV:
            exact = float(ev.mean[f"{m}@{k}"])
            assert ours[f"{key}_{k}"] == (pytest.approx(exact, abs=1e-12) if key == "mrr_at" else round(exact, 5)), (key, k)
    worst, best = retrieval_scores(qrels, results, KV, order="worst"), retrieval_scores(qrels, results, KV, order="best")
    assert all(worst[k] <= ours[k] <= best[k] for k in ours if k.startswith(("ndcg", "map", "recall", "precision", "mrr", "hit")))
    assert list(ours)[:3] == ["ndcg_at_1", "ndcg_at_3", "ndcg_at_5"]


def test_mteb_scores_refuse_bad_input():
    with pytest.raises(TieawareError, match="k_values"):
        retrieval_scores({"q": {"a": 1}}, {"q": {"a": 1.0}}, [0])
    with pytest.raises(TieawareError, match="share a query"):
        retrieval_scores({"q": {"a": 1}}, {"p": {"a": 1.0}}, [1])
    with pytest.raises(TieawareError, match="scores must be finite"):
        retrieval_scores({"q": {"a": 1}}, {"q": {"a": float("nan")}}, [1])


def test_mteb_install_without_mteb_names_it():
    import importlib.util

    from tieaware.integrations import mteb as ta

    if importlib.util.find_spec("mteb") is not None:
        pytest.skip("mteb is installed here: scripts/integrations_peers.py runs install() against it (docs/integrations.md)")
    for call in (ta.install, lambda: ta.calculate_retrieval_scores({"q": {"a": 1.0}}, {"q": {"a": 1}}, [1])):
        with pytest.raises(ModuleNotFoundError, match="pip install mteb"):
            call()
    ta.uninstall()  # nothing installed: nothing to undo
