"""Which tie rule does each installed library follow?  The record behind tieaware's --tie-break presets.

    python scripts/tie_presets_probe.py            # every library importable here
    TIEAWARE_TREC_EVAL=/path/to/trec_eval python scripts/tie_presets_probe.py

Queries whose tie-broken reciprocal rank differs for every rule: groups of 4
documents named against their input order (input c a d b), pairs whose
scores differ only beyond float32's precision, and groups of 17 to 65
documents with random docnos in random input order.  Each library computes
RR (or nDCG with one relevant document, which gives the rank); a line lists
every (rule, score precision) that explains all its values, from
tieaware.model.tie_presets' rules.  The heavy libraries (torch and what needs
it) run in their own environment: this script imports only what it finds.
"""

from __future__ import annotations

import importlib.metadata as metadata
import logging
import os
import random
import subprocess
import tempfile
from fractions import Fraction

from tieaware.io.tie_break import broken_docnos
from tieaware.model.tie_presets import RULES, Preset

logging.disable(logging.WARNING)


def queries() -> dict:
    qs = {
        "1": ([("c", 1.0), ("a", 1.0), ("d", 1.0), ("b", 1.0)], {"c": 1, "a": 0, "d": 0, "b": 0}),
        "2": ([("c", 1.0), ("a", 1.0), ("d", 1.0), ("b", 1.0)], {"b": 1, "a": 0, "d": 0, "c": 0}),
        "3": ([("x", 1.0 + 2**-30), ("y", 1.0)], {"y": 1, "x": 0}),
        "4": ([("y2", 1.0 + 2**-30), ("x2", 1.0)], {"x2": 1, "y2": 0}),
    }
    rng = random.Random(7)
    for q in range(5, 11):
        n = rng.choice([17, 40, 65])
        names = list(dict.fromkeys(f"doc{rng.randrange(10**6):06d}" for _ in range(n)))
        rng.shuffle(names)
        rel = rng.choice(names[3:])
        qs[str(q)] = ([(d, 2.0 if i < 3 else 1.0) for i, d in enumerate(names)], {d: int(d == rel) for d in names})
    return qs


def explain(values: dict, k: int = 0, tolerance: float = 1e-6) -> list[str]:
    """Every rule and score precision under which the RR values are those of the ordinary measure."""
    qs = queries()
    fits = []
    for scores in ("exact", "float32"):
        for rule in RULES:
            p = Preset(rule, rule, scores)
            ok = True
            for q, v in values.items():
                docs, qrels = qs[q]
                order = _broken(docs, qrels, p)[: k or None]
                rr = next((1 / r for r, d in enumerate(order, 1) if qrels.get(d, 0) >= 1), 0.0)
                ok = ok and abs(rr - v) < tolerance
            if ok:
                fits.append(f"{rule} ({scores})")
    return fits


def _broken(docs, qrels, p: Preset) -> list[str]:
    from tieaware.model import tie_presets

    name = f"{p.rule}@{p.scores}"
    tie_presets.PRESETS.setdefault(name, Preset(name, p.rule, p.scores))
    return broken_docnos([(d, Fraction(s)) for d, s in docs], {d: Fraction(x) for d, x in qrels.items()}, name)


def rank_rr(ndcg: float) -> float:
    """The reciprocal rank of the one relevant document (label 1) from its nDCG: 1 / log2(r + 1)."""
    return 1 / round(2 ** (1 / ndcg) - 1) if ndcg > 0 else 0.0


def probe() -> list[tuple[str, str, list[str]]]:
    qs = queries()
    qrels = {q: dict(j) for q, (docs, j) in qs.items()}
    run = {q: dict(docs) for q, (docs, j) in qs.items()}
    out = []

    def version(dist: str) -> str:
        return f"{dist} {metadata.version(dist)}"

    binary = os.environ.get("TIEAWARE_TREC_EVAL")
    if binary:
        with tempfile.TemporaryDirectory() as tmp:
            qf, rf = os.path.join(tmp, "q"), os.path.join(tmp, "r")
            with open(qf, "w") as f:
                f.writelines(f"{q} 0 {d} {x}\n" for q, j in qrels.items() for d, x in j.items())
            with open(rf, "w") as f:
                f.writelines(f"{q} Q0 {d} {i} {s!r} r\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items()))
            text = subprocess.run([binary, "-q", "-m", "recip_rank", qf, rf], capture_output=True, text=True, check=True).stdout
            values = {q: float(v) for m, q, v in (line.split() for line in text.splitlines()) if q != "all"}
            out.append(("trec_eval", binary, explain(values, tolerance=5.1e-5)))  # printed to 4 decimals
    try:
        import pytrec_eval

        got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
        out.append(("pytrec_eval", version("pytrec_eval-terrier"), explain({q: v["recip_rank"] for q, v in got.items()})))
    except ImportError:
        pass
    try:
        import ir_measures

        for provider, measure, k in (("pytrec_eval", ir_measures.RR, 0), ("msmarco", ir_measures.RR @ 10, 10), ("trectools", ir_measures.RR, 0)):
            values = {r.query_id: r.value for r in getattr(ir_measures, provider).iter_calc([measure], qrels, run)}
            out.append((f"ir_measures.{provider} {measure}", version("ir_measures"), explain(values, k)))
    except ImportError:
        pass
    try:
        from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores, mrr

        res = calculate_retrieval_scores(run, qrels, [100])
        out.append(("mteb MRR@100", version("mteb"), explain(dict(zip(run, mrr(qrels, run, [100])["MRR@100"])), 100)))
        out.append(("mteb nDCG@100 (pytrec_eval)", version("mteb"), explain({q: rank_rr(v["ndcg_cut_100"]) for q, v in res.all_scores.items()}, 100)))
    except ImportError:
        pass
    try:
        out.append(("sentence-transformers MRR@100", version("sentence-transformers"), explain(_sentence_transformers(qs), 100)))
    except ImportError:
        pass
    try:
        import torch
        from ignite.metrics.rec_sys import NDCG

        values = {}
        for q, (docs, j) in qs.items():
            m = NDCG(top_k=[100])
            m.update((torch.tensor([[s for _, s in docs]], dtype=torch.float32), torch.tensor([[float(j[d]) for d, _ in docs]])))
            values[q] = rank_rr(m.compute()[0])
        out.append(("pytorch-ignite NDCG (float32 tensors)", version("pytorch-ignite"), explain(values, 100)))
    except ImportError:
        pass
    return out


def _sentence_transformers(qs: dict) -> dict:
    """InformationRetrievalEvaluator's MRR@100 per query, with a hand-made encoder: the dot product is the score."""
    import torch
    from sentence_transformers import util
    from sentence_transformers.sentence_transformer.evaluation import InformationRetrievalEvaluator

    values = {}
    for q, (docs, j) in qs.items():
        table = dict(docs)
        evaluator = InformationRetrievalEvaluator(
            {q: q}, {d: d for d, _ in docs}, {q: {d for d, x in j.items() if x}}, score_functions={"dot": util.dot_score},
            mrr_at_k=[100], ndcg_at_k=[100], accuracy_at_k=[1], precision_recall_at_k=[1], map_at_k=[100], show_progress_bar=False,
        )
        evaluator.embed_inputs = lambda model, texts, **kw: torch.tensor([[1.0, 0.0] if t == q else [table[t], 0.0] for t in texts])
        values[q] = evaluator.compute_metrices(model=None)["dot"]["mrr@k"][100]
    return values


if __name__ == "__main__":
    for name, where, fits in probe():
        print(f"{name:<40} {where:<32} {', '.join(fits) or 'no fixed rule'}")
