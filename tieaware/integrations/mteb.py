"""MTEB's retrieval score dict, tie-aware: :func:`retrieval_scores` takes what MTEB's retrieval evaluator takes.

MTEB scores a retrieval task from ``results`` (query id -> {document id:
score}) and ``qrels`` (query id -> {document id: grade}) with pytrec_eval's
``ndcg_cut``, ``map_cut``, ``recall``, ``P`` and ``success`` at each k and
its own MRR@k, and reports them as ``ndcg_at_10``, ``map_at_10``,
``recall_at_10``, ``precision_at_10``, ``mrr_at_10``, ``hit_rate_at_10``,
``accuracy`` (recall@1), ...  Ties are broken by document id, descending.
:func:`retrieval_scores` returns the same keys with the expected values over
every ordering the tied scores allow (or, with ``order="worst"`` /
``"best"``, the range's ends), with MTEB's rounding (5 decimals, MRR not
rounded); and, when MTEB is installed, its nAUC keys computed by MTEB's own
``evaluate_abstention`` from the tie-aware per-query values.

The measures keep pytrec_eval's definitions (trec_eval's): nDCG@k with
linear gains and the ideal of every judged grade of the query, AP@k divided
by the query's relevant documents, relevant meaning grade >= 1; the queries
are those in both ``results`` and ``qrels``.

>>> qrels = {"q1": {"a": 1}}
>>> results = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}}        # a, b and c tie
>>> s = retrieval_scores(qrels, results, [1, 10])
>>> round(s["mrr_at_10"], 12), s["precision_at_1"], s["ndcg_at_10"], s["accuracy"]   # (1 + 1/log2(3) + 1/2)/3
(0.611111111111, 0.33333, 0.71031, 0.33333)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tieaware.metrics import evaluate
from tieaware.model.errors import TieawareError, bad

__all__ = ["retrieval_scores", "calculate_retrieval_scores", "install", "uninstall", "KEYS"]

#: MTEB's key prefix -> the measure (ir_measures name, before @k) with pytrec_eval's definition.
KEYS = {"ndcg_at": "nDCG", "map_at": "AP", "recall_at": "R", "precision_at": "P", "mrr_at": "RR", "hit_rate_at": "Success"}
_ROUNDED = ("ndcg_at", "map_at", "recall_at", "precision_at", "hit_rate_at")  # MTEB rounds these to 5 decimals


def _arrays(qrels: Mapping[str, Mapping[str, Any]], results: Mapping[str, Mapping[str, float]], qids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(scores, grades, mask, judged grades) of the queries, one row each, padded."""
    width = max(1, max(len(results[q]) for q in qids))
    judged_width = max(1, max(len(qrels[q]) for q in qids))
    scores = np.zeros((len(qids), width))
    grades = np.zeros((len(qids), width))
    mask = np.zeros((len(qids), width), dtype=bool)
    judged = np.zeros((len(qids), judged_width))
    for i, q in enumerate(qids):
        row = results[q]
        scores[i, : len(row)] = np.fromiter((float(v) for v in row.values()), dtype=np.float64, count=len(row))
        grades[i, : len(row)] = [max(float(qrels[q].get(d, 0)), 0.0) for d in row]  # pytrec_eval: a negative grade is not relevant and gains 0
        mask[i, : len(row)] = True
        judged[i, : len(qrels[q])] = [max(float(g), 0.0) for g in qrels[q].values()]
    return scores, grades, mask, judged


def _per_query(
    qrels: Mapping[str, Mapping[str, Any]], results: Mapping[str, Mapping[str, float]], k_values: Sequence[int], order: str, skip_first_result: bool
) -> tuple[list[int], Mapping[str, Mapping[str, float]], list[str], dict[str, Any]]:
    """(ks, results as scored, the queries scored, {measure: per-query values}) in MTEB's query order."""
    ks = list(k_values)
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise bad("k_values", k_values, "must be a non-empty sequence of ints >= 1")
    if skip_first_result:
        results = {q: dict(sorted(r.items(), key=lambda x: x[1], reverse=True)[1:]) for q, r in results.items()}
    qids = [q for q in results if q in qrels and len(results[q]) > 0]
    if not qids:
        raise TieawareError("results and qrels must share a query with results, got none")
    scores, grades, mask, judged = _arrays(qrels, results, qids)
    measures = [f"{name}@{k}" for name in KEYS.values() for k in ks]
    return ks, results, qids, evaluate(scores, grades, measures, mask=mask, judged=judged, order=order)


def retrieval_scores(
    qrels: Mapping[str, Mapping[str, Any]],
    results: Mapping[str, Mapping[str, float]],
    k_values: Sequence[int] = (1, 3, 5, 10, 20, 100, 1000),
    *,
    order: str = "expected",
    skip_first_result: bool = False,
) -> dict[str, Any]:
    """MTEB's retrieval score dict (``make_score_dict``'s keys) with tie-aware values.

    *order*: ``"expected"``, ``"worst"`` or ``"best"``.  *skip_first_result*
    drops each query's best-scored document first, as MTEB does.

    Beware: MTEB keeps only each query's top documents of ``results``; a tie
    cut there is already lost before any measure sees it.
    """
    ks, results, qids, per_query = _per_query(qrels, results, k_values, order, skip_first_result)
    out: dict[str, Any] = {}
    for prefix, name in KEYS.items():
        for k in ks:
            mean = float(np.mean(per_query[f"{name}@{k}"]))
            out[f"{prefix}_{k}"] = round(mean, 5) if prefix in _ROUNDED else mean
    if 1 in ks:
        out["accuracy"] = out["recall_at_1"]
    out.update(_naucs(results, qids, per_query, ks))
    return _in_mteb_order(out, ks)


def calculate_retrieval_scores(
    results: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, Any]],
    k_values: Sequence[int],
    skip_first_result: bool = False,
) -> Any:
    """MTEB's ``calculate_retrieval_scores`` (the same arguments and ``RetrievalEvaluationResult``), tie-aware; needs MTEB.

    What :func:`install` puts in MTEB's place, so that a whole MTEB run
    reports tie-aware retrieval scores: per-query values in pytrec_eval's
    keys (``ndcg_cut_10``, ``map_cut_10``, ``recall_10``, ``P_10``,
    ``success_10``), the means rounded as MTEB rounds them, MRR@k, and the
    nAUCs from MTEB's own code on these values.
    """
    _need_mteb()
    from mteb._evaluators.retrieval_metrics import evaluate_abstention  # type: ignore[import-not-found]
    from mteb.types import RetrievalEvaluationResult  # type: ignore[import-not-found]

    ks, results, qids, per_query = _per_query(qrels, results, k_values, "expected", skip_first_result)
    trec = {"nDCG": "ndcg_cut_", "AP": "map_cut_", "R": "recall_", "P": "P_", "Success": "success_"}
    all_scores = {q: {trec[name] + str(k): float(per_query[f"{name}@{k}"][i]) for name in trec for k in ks} for i, q in enumerate(qids)}
    lists = {label: {f"{label}@{k}": per_query[f"{name}@{k}"].tolist() for k in ks} for label, name in (("NDCG", "nDCG"), ("MAP", "AP"), ("Recall", "R"), ("P", "P"), ("HitRate", "Success"), ("MRR", "RR"))}
    means = {label: {key: sum(v) / len(v) for key, v in values.items()} for label, values in lists.items()}
    rounded = {label: {key: round(v, 5) for key, v in values.items()} for label, values in means.items()}
    kept = {q: results[q] for q in qids}
    scored = {**lists["NDCG"], **lists["MAP"], **lists["Recall"], **lists["P"]}
    return RetrievalEvaluationResult(
        all_scores=all_scores,
        ndcg=rounded["NDCG"],
        map=rounded["MAP"],
        recall=rounded["Recall"],
        precision=rounded["P"],
        naucs=evaluate_abstention(kept, scored),
        mrr=means["MRR"],
        naucs_mrr=evaluate_abstention(kept, lists["MRR"]),
        hit_rate=rounded["HitRate"],
    )


_SAVED: dict[str, Any] = {}


def _need_mteb() -> None:
    """Raise ModuleNotFoundError naming MTEB (not one of its modules) when it is not installed."""
    import importlib.util

    if importlib.util.find_spec("mteb") is None:
        raise ModuleNotFoundError("tieaware.integrations.mteb.install and calculate_retrieval_scores need mteb, which is not installed: pip install mteb", name="mteb")


def install() -> None:
    """Put :func:`calculate_retrieval_scores` in MTEB's place: every retrieval task MTEB evaluates from now on is scored tie-aware.

    MTEB has no hook for this: its retrieval evaluator and its sub-query
    merging call ``calculate_retrieval_scores`` from their modules, so both
    names are replaced (:func:`uninstall` puts MTEB's back).  Beware: these
    are MTEB's internal modules (``mteb._evaluators``); a new MTEB may move them.
    """
    _need_mteb()
    import mteb._evaluators.retrieval_evaluator as evaluator  # type: ignore[import-not-found]
    import mteb._evaluators.retrieval_metrics as metrics_module  # type: ignore[import-not-found]

    for module in (evaluator, metrics_module):
        if module.calculate_retrieval_scores is not calculate_retrieval_scores:
            _SAVED[module.__name__] = module.calculate_retrieval_scores
            module.calculate_retrieval_scores = calculate_retrieval_scores


def uninstall() -> None:
    """Give MTEB its own ``calculate_retrieval_scores`` back."""
    import importlib

    for name, original in list(_SAVED.items()):
        importlib.import_module(name).calculate_retrieval_scores = original
        del _SAVED[name]


def _naucs(results: Mapping[str, Mapping[str, float]], qids: list[str], per_query: dict[str, Any], ks: list[int]) -> dict[str, Any]:
    """MTEB's nAUC keys, from its own evaluate_abstention on the tie-aware per-query values (none without MTEB)."""
    try:
        from mteb._evaluators.retrieval_metrics import evaluate_abstention  # type: ignore[import-not-found]
    except ImportError:
        return {}
    names = {"NDCG": "nDCG", "MAP": "AP", "Recall": "R", "P": "P"}
    scores = {f"{label}@{k}": per_query[f"{name}@{k}"].tolist() for label, name in names.items() for k in ks}
    mrr = {f"MRR@{k}": per_query[f"RR@{k}"].tolist() for k in ks}
    kept = {q: results[q] for q in qids}
    naucs = {**evaluate_abstention(kept, scores), **evaluate_abstention(kept, mrr)}
    return {k.replace("@", "_at_").replace("_P", "_precision").lower(): v for k, v in naucs.items()}


def _in_mteb_order(out: dict[str, Any], ks: list[int]) -> dict[str, Any]:
    order = [f"ndcg_at_{k}" for k in ks] + [f"map_at_{k}" for k in ks] + [f"recall_at_{k}" for k in ks] + ["accuracy"]
    order += [f"precision_at_{k}" for k in ks] + [f"mrr_at_{k}" for k in ks]
    first = {key: out[key] for key in order if key in out}
    rest = {key: value for key, value in out.items() if key not in first and not key.startswith("hit_rate")}
    return {**first, **rest, **{key: value for key, value in out.items() if key.startswith("hit_rate")}}
