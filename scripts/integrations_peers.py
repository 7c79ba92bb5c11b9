"""sentence-transformers, MTEB and torchmetrics beside tieaware.integrations on the same tied inputs (docs/integrations.md).

Run in an environment with torch, sentence-transformers, mteb and torchmetrics (not CI's):
    PYTHONPATH=. python scripts/integrations_peers.py
No model weights: a hand-made model object returns fixed embeddings.
"""
import datetime, logging, warnings
warnings.filterwarnings("ignore")
import numpy as np, torch
import sentence_transformers, mteb, torchmetrics
from sentence_transformers.util import cos_sim
from sentence_transformers.sentence_transformer.evaluation import InformationRetrievalEvaluator as STEvaluator
from tieaware.integrations.sentence_transformers import InformationRetrievalEvaluator as TAEvaluator
from tieaware.integrations.mteb import retrieval_scores
from tieaware.integrations.stateful import TieAwareMetric
from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores, make_score_dict

print("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
print("versions: torch", torch.__version__, "sentence-transformers", sentence_transformers.__version__, "mteb", mteb.__version__, "torchmetrics", torchmetrics.__version__, "numpy", np.__version__)

class CardData:
    def set_evaluation_metrics(self, *a, **k): pass

class FixedModel:
    """A hand-made model: fixed embeddings per text, cosine similarity (no weights)."""
    similarity_fn_name = "cosine"
    model_card_data = CardData()
    def __init__(self, table): self.table = table
    def _enc(self, texts, **kw): return torch.tensor([self.table[t] for t in texts], dtype=torch.float32)
    encode = encode_query = encode_document = _enc
    def similarity(self, a, b): return cos_sim(a, b)

import inspect

ours, theirs = inspect.signature(TAEvaluator.__init__).parameters, inspect.signature(STEvaluator.__init__).parameters
same = list(ours) == list(theirs) and all(ours[n].default == theirs[n].default for n in ours)
print("InformationRetrievalEvaluator's parameters (names, order, defaults) equal sentence-transformers':", same)

# one query, three documents with the same embedding (tied), the relevant one named "b"
table = {"query": [1.0, 0.0], "x": [1.0, 0.0], "y": [1.0, 0.0], "z": [1.0, 0.0], "far": [0.0, 1.0]}
queries = {"q1": "query"}
for names in (("a", "b", "c"), ("c", "b", "a")):  # the same documents, renamed: the relevant one is first or last by id
    corpus = {names[0]: "x", names[1]: "y", names[2]: "z", "e": "far"}
    relevant = {"q1": {names[0]}}  # the relevant document holds the name names[0]: first or last of the tie by id
    kw = dict(mrr_at_k=[10], ndcg_at_k=[10], accuracy_at_k=[1], precision_recall_at_k=[1, 3], map_at_k=[10])
    st = STEvaluator(queries, corpus, relevant, **kw)(FixedModel(table))
    ta = TAEvaluator(queries, corpus, relevant, **kw)(FixedModel(table))
    print(f"\nsentence-transformers, relevant document named {names[0]!r} among tied {names[:3]}:")
    for key in st:
        print(f"  {key:22s} sentence-transformers {st[key]:.4f}   tieaware {ta[key]:.4f} [{ta[key + '_worst']:.4f}, {ta[key + '_best']:.4f}]")

# MTEB: the same tie in its results format
for relevant_name in ("a", "c"):
    qrels = {"q1": {relevant_name: 1}}
    results = {"q1": {"a": 0.5, "b": 0.5, "c": 0.5, "e": 0.1}}
    r = calculate_retrieval_scores(results, qrels, [1, 3, 10])
    theirs = make_score_dict(ndcg=r.ndcg, _map=r.map, recall=r.recall, precision=r.precision, mrr=r.mrr, naucs=r.naucs, naucs_mrr=r.naucs_mrr, hit_rate=r.hit_rate, task_scores={})
    ours = retrieval_scores(qrels, results, [1, 3, 10])
    w, b = retrieval_scores(qrels, results, [1, 3, 10], order="worst"), retrieval_scores(qrels, results, [1, 3, 10], order="best")
    print(f"\nMTEB, a, b, c tied, relevant {relevant_name!r}:")
    for key in ("ndcg_at_1", "ndcg_at_10", "map_at_10", "recall_at_1", "precision_at_1", "mrr_at_10", "hit_rate_at_1", "accuracy"):
        print(f"  {key:15s} MTEB {theirs[key]:.5f}   tieaware {ours[key]:.5f} [{w[key]:.5f}, {b[key]:.5f}]")
    print("  same keys:", sorted(theirs) == sorted(ours), len(theirs))

# torchmetrics: tied predictions
from torchmetrics.retrieval import RetrievalMRR, RetrievalNormalizedDCG, RetrievalPrecision
preds = torch.tensor([0.5, 0.5, 0.5, 0.1, 0.9, 0.2, 0.2, 0.2])
target = torch.tensor([1, 0, 0, 0, 0, 0, 0, 1])
indexes = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
tm = {name: cls(**kw)(preds, target, indexes=indexes).item() for name, cls, kw in (("RR@10", RetrievalMRR, {"top_k": 10}), ("nDCG@10", RetrievalNormalizedDCG, {"top_k": 10}), ("P@1", RetrievalPrecision, {"top_k": 1}))}
m = TieAwareMetric("RR@10 nDCG@10 P@1", bounds=True)
m.update(preds.reshape(2, 4), target.reshape(2, 4))
ours = m.compute()
print("\ntorchmetrics, two queries with ties (row 0: relevant first of three tied; row 1: relevant last of three tied):")
for name in tm:
    print(f"  {name:8s} torchmetrics {tm[name]:.4f}   tieaware {float(ours[name]):.4f} [{float(ours[name + ' worst']):.4f}, {float(ours[name + ' best']):.4f}]  ({type(ours[name]).__name__})")
target2 = torch.tensor([0, 0, 1, 0, 0, 1, 0, 0])  # the relevant document moved within the same ties
tm2 = {name: cls(**kw)(preds, target2, indexes=indexes).item() for name, cls, kw in (("RR@10", RetrievalMRR, {"top_k": 10}), ("nDCG@10", RetrievalNormalizedDCG, {"top_k": 10}), ("P@1", RetrievalPrecision, {"top_k": 1}))}
m.reset(); m.update(preds.reshape(2, 4), target2.reshape(2, 4)); ours2 = m.compute()
print("  the relevant documents moved to other places within their ties:")
for name in tm2:
    print(f"  {name:8s} torchmetrics {tm2[name]:.4f}   tieaware {float(ours2[name]):.4f}")


# A real SentenceTransformer built from a hand-made module (no weights): both evaluators through model.encode_*
from sentence_transformers import SentenceTransformer

WORDS = sorted(table)


class Lookup(torch.nn.Module):
    """A first module whose texts are single words with fixed embeddings."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding.from_pretrained(torch.tensor([table[w] for w in WORDS]))

    def tokenize(self, texts, **kwargs):
        return {"ids": torch.tensor([WORDS.index(t) for t in texts])}

    def forward(self, features):
        features["sentence_embedding"] = self.emb(features["ids"])
        return features

    def get_sentence_embedding_dimension(self):
        return 2

    def save(self, *a, **k):
        pass


model = SentenceTransformer(modules=[Lookup()], device="cpu")
print("\na SentenceTransformer (hand-made module), documents a, b, c tied:")
for rel in ("a", "c"):
    kw = dict(mrr_at_k=[10], ndcg_at_k=[10], accuracy_at_k=[1], precision_recall_at_k=[1], map_at_k=[10])
    st = STEvaluator(queries, {"a": "x", "b": "y", "c": "z", "e": "far"}, {"q1": {rel}}, **kw)(model)
    ta = TAEvaluator(queries, {"a": "x", "b": "y", "c": "z", "e": "far"}, {"q1": {rel}}, **kw)(model)
    print(f"  relevant {rel!r}: keys equal {list(st) == [k for k in ta if not k.endswith(('_worst', '_best'))]}; " + ", ".join(f"{k.split('_', 1)[1]} {st[k]:.4f} vs {ta[k]:.4f}" for k in st))


# tieaware.integrations.mteb.install(): MTEB's own retrieval evaluator scores tie-aware
import tieaware.integrations.mteb as ta
from mteb._evaluators.retrieval_evaluator import RetrievalEvaluator

print("\nMTEB with tieaware.integrations.mteb.install(), 10 queries x 40 documents, 5 score levels:")

def score(qrels, results, ks):
    r = RetrievalEvaluator.evaluate(None, qrels, results, ks)  # the method MTEB's retrieval tasks call (it uses no state)
    return make_score_dict(ndcg=r.ndcg, _map=r.map, recall=r.recall, precision=r.precision, mrr=r.mrr, naucs=r.naucs, naucs_mrr=r.naucs_mrr, hit_rate=r.hit_rate, task_scores={})

rng = np.random.default_rng(3)
qrels, results = {}, {}
for q in range(10):
    docs = [f"d{j}" for j in range(40)]
    results[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.integers(0, 5, 40) / 4)}
    qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 8, replace=False)}
ks = [1, 3, 5, 10]
before = score(qrels, results, ks)
ta.install()
after = score(qrels, results, ks)
ta.uninstall()
again = score(qrels, results, ks)
ours = ta.retrieval_scores(qrels, results, ks)
print("mteb", mteb.__version__)
print("installed == retrieval_scores:", all(abs(after[k] - ours[k]) < 1e-12 for k in ours), "same keys:", sorted(after) == sorted(ours))
print("uninstalled == MTEB's own:", again == before)
for k in ("ndcg_at_10", "map_at_10", "recall_at_3", "precision_at_1", "mrr_at_10", "hit_rate_at_1"):
    print(f"  {k:15s} MTEB {before[k]:.5f}  installed {after[k]:.5f}")
untied = {q: {d: s + 1e-4 * j for j, (d, s) in enumerate(r.items())} for q, r in results.items()}  # distinct even in float32, as pytrec_eval reads scores
plain = score(qrels, untied, ks)
ta.install()
tied_aware = score(qrels, untied, ks)
ta.uninstall()
print("untied run: installed == MTEB's own:", all(abs(plain[k] - tied_aware[k]) < 1e-9 for k in plain))
for k in plain:
    if abs(plain[k] - tied_aware[k]) >= 1e-9:
        print(" differs:", k, plain[k], tied_aware[k])
