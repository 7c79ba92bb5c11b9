"""A drop-in for sentence-transformers' ``InformationRetrievalEvaluator`` that reports tie-aware values.

Same constructor arguments, the same call (``evaluator(model, output_path,
epoch, steps)``), the same output keys (``{name}_{score function}_ndcg@10``,
``..._accuracy@1``, ``..._precision@k``, ``..._recall@k``, ``..._mrr@k``,
``..._map@k``), the same ``primary_metric`` and CSV file; every value is the
expected value over the orderings the tied scores allow, and each key has
its range beside it: ``{key}_worst`` and ``{key}_best``.  sentence-transformers
breaks ties by corpus id (ascending in 6.x): renaming documents moves its
numbers, not these.

The measures keep sentence-transformers' definitions: accuracy@k is
Success@k, precision@k hits/k, recall@k hits/|relevant|, MRR@k RR@k, NDCG@k
binary gains with the ideal of |relevant| ones, MAP@k AP@k divided by
min(k, |relevant|) (``AP(norm=capped)@k``); |relevant| counts every listed
relevant id, in the corpus or not.  Each corpus chunk's scores are merged
into each query's candidates keeping every candidate tied with the
max(k)-th best, so a tie at the cut is kept whole.

It works on whatever ``model.encode`` returns (torch tensors on their device,
numpy arrays) and imports neither torch nor sentence-transformers itself; the
score functions default to the model's ``similarity`` (or cosine).

>>> import numpy as np
>>> class Fixed:                                   # a tiny hand-made model: fixed embeddings
...     table = {"q": [1.0, 0.0], "a": [1.0, 0.0], "b": [1.0, 0.0], "c": [0.0, 1.0]}
...     def encode(self, texts, **kwargs):
...         return np.array([self.table[t] for t in texts])
>>> ev = InformationRetrievalEvaluator({"q1": "q"}, {"d1": "a", "d2": "b", "d3": "c"}, {"q1": {"d2"}},
...                                    mrr_at_k=[10], ndcg_at_k=[10], accuracy_at_k=[1], precision_recall_at_k=[1], map_at_k=[10])
>>> out = ev(Fixed())
>>> out["cosine_mrr@10"], out["cosine_mrr@10_worst"], out["cosine_mrr@10_best"]    # d1 and d2 tie for first
(0.75, 0.5, 1.0)
>>> ev.primary_metric
'cosine_ndcg@10'
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, Optional

from tieaware.metrics import evaluate
from tieaware.model.errors import TieawareError

__all__ = ["InformationRetrievalEvaluator", "cosine"]

logger = logging.getLogger(__name__)

#: sentence-transformers' metric names -> the measure (ir_measures name, before @k) that keeps its definition.
MEASURES = {"accuracy": "Success", "precision": "P", "recall": "R", "mrr": "RR", "ndcg": "nDCG", "map": "AP(norm=capped)"}


def _namespace(x: Any) -> Any:
    import array_api_compat

    return array_api_compat.array_namespace(x)


def cosine(a: Any, b: Any) -> Any:
    """Cosine similarities ``[len(a), len(b)]`` of two embedding arrays, in their own library."""
    xp = _namespace(a)
    a = xp.astype(a, xp.float32) if not xp.isdtype(a.dtype, "real floating") else a
    b = xp.astype(b, a.dtype)
    na = xp.sqrt(xp.sum(a * a, axis=1, keepdims=True))
    nb = xp.sqrt(xp.sum(b * b, axis=1, keepdims=True))
    a = a / xp.where(na == 0, xp.ones_like(na), na)
    b = b / xp.where(nb == 0, xp.ones_like(nb), nb)
    return a @ xp.matrix_transpose(b)


class InformationRetrievalEvaluator:
    """sentence-transformers' ``InformationRetrievalEvaluator``, tie-aware (see the module docstring)."""

    def __init__(
        self,
        queries: dict[str, Any],
        corpus: dict[str, Any],
        relevant_docs: dict[str, set[str]],
        corpus_chunk_size: int = 50000,
        mrr_at_k: list[int] = [10],  # noqa: B006  (sentence-transformers' signature)
        ndcg_at_k: list[int] = [10],  # noqa: B006
        accuracy_at_k: list[int] = [1, 3, 5, 10],  # noqa: B006
        precision_recall_at_k: list[int] = [1, 3, 5, 10],  # noqa: B006
        map_at_k: list[int] = [100],  # noqa: B006
        show_progress_bar: bool = False,
        batch_size: int = 32,
        name: str = "",
        write_csv: bool = True,
        truncate_dim: Optional[int] = None,
        score_functions: Optional[dict[str, Callable[[Any, Any], Any]]] = None,
        main_score_function: Optional[str] = None,
        query_prompt: Optional[str] = None,
        query_prompt_name: Optional[str] = None,
        corpus_prompt: Optional[str] = None,
        corpus_prompt_name: Optional[str] = None,
        write_predictions: bool = False,
    ) -> None:
        self.greater_is_better = True
        self.primary_metric: Optional[str] = None
        self.queries_ids = [qid for qid in queries if qid in relevant_docs and len(relevant_docs[qid]) > 0]
        self.queries = [queries[qid] for qid in self.queries_ids]
        self.corpus_ids = list(corpus.keys())
        self.corpus = [corpus[cid] for cid in self.corpus_ids]
        self.relevant_docs = relevant_docs
        for argument, ks in (("mrr_at_k", mrr_at_k), ("ndcg_at_k", ndcg_at_k), ("accuracy_at_k", accuracy_at_k), ("precision_recall_at_k", precision_recall_at_k), ("map_at_k", map_at_k)):
            if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
                raise TieawareError(f"{argument} must be a non-empty list of ints >= 1, got {ks!r}")
        if isinstance(corpus_chunk_size, bool) or not isinstance(corpus_chunk_size, int) or corpus_chunk_size < 1:
            raise TieawareError(f"corpus_chunk_size must be an int >= 1, got {corpus_chunk_size!r}")
        self.corpus_chunk_size = corpus_chunk_size
        self.mrr_at_k, self.ndcg_at_k, self.accuracy_at_k = mrr_at_k, ndcg_at_k, accuracy_at_k
        self.precision_recall_at_k, self.map_at_k = precision_recall_at_k, map_at_k
        self.show_progress_bar, self.batch_size, self.name, self.write_csv = show_progress_bar, batch_size, name, write_csv
        self.truncate_dim = truncate_dim
        self.score_functions = score_functions
        self.score_function_names = sorted(score_functions) if score_functions else []
        self._score_functions_from_model = score_functions is None
        self.main_score_function = None if main_score_function is None else str(getattr(main_score_function, "value", main_score_function))
        self.query_prompt, self.query_prompt_name = query_prompt, query_prompt_name
        self.corpus_prompt, self.corpus_prompt_name = corpus_prompt, corpus_prompt_name
        self.write_predictions = write_predictions
        suffix = "_" + name if name else ""
        self.csv_file = "Information-Retrieval_evaluation" + suffix + "_results.csv"
        self.predictions_file = "Information-Retrieval_evaluation" + suffix + "_predictions.jsonl"
        self.csv_headers = ["epoch", "steps"]
        self._csv_columns(self.score_function_names)

    @property
    def description(self) -> str:
        """The evaluator's name in a model card, as sentence-transformers derives it."""
        return "Information Retrieval"

    def get_config_dict(self) -> dict[str, Any]:
        """The arguments a model card lists (sentence-transformers' choice), and that the values are tie-aware."""
        keys = ("truncate_dim", "query_prompt", "query_prompt_name", "corpus_prompt", "corpus_prompt_name")
        config = {key: getattr(self, key) for key in keys if getattr(self, key) is not None}
        config["ties"] = "expected over tie-breakings (tieaware)"
        return config

    # -- the metric names, in sentence-transformers' order -------------------------------------------

    def _metric_ks(self) -> list[tuple[str, list[int]]]:
        return [("accuracy", self.accuracy_at_k), ("precision", self.precision_recall_at_k), ("recall", self.precision_recall_at_k), ("ndcg", self.ndcg_at_k), ("mrr", self.mrr_at_k), ("map", self.map_at_k)]

    def _csv_columns(self, names: list[str]) -> None:
        titles = {"accuracy": "Accuracy", "precision": "Precision", "recall": "Recall", "mrr": "MRR", "ndcg": "NDCG", "map": "MAP"}
        for score_name in names:
            for k in self.accuracy_at_k:
                self.csv_headers.append(f"{score_name}-Accuracy@{k}")
            for k in self.precision_recall_at_k:
                self.csv_headers += [f"{score_name}-Precision@{k}", f"{score_name}-Recall@{k}"]
            for metric in ("mrr", "ndcg", "map"):
                for k in dict(self._metric_ks())[metric]:
                    self.csv_headers.append(f"{score_name}-{titles[metric]}@{k}")

    # -- embedding and scoring ---------------------------------------------------------------------

    def _embed(self, model: Any, texts: list[Any], which: str, prompt_name: Optional[str], prompt: Optional[str]) -> Any:
        encode = getattr(model, f"encode_{which}", None) or model.encode
        kwargs: dict[str, Any] = {"batch_size": self.batch_size, "show_progress_bar": self.show_progress_bar, "convert_to_tensor": True}
        if prompt_name is not None:
            kwargs["prompt_name"] = prompt_name
        if prompt is not None:
            kwargs["prompt"] = prompt
        if self.truncate_dim is not None:
            kwargs["truncate_dim"] = self.truncate_dim
        return encode(texts, **kwargs)

    def _functions(self, model: Any) -> dict[str, Callable[[Any, Any], Any]]:
        if not self._score_functions_from_model:
            return dict(self.score_functions or {})
        if hasattr(model, "similarity") and hasattr(model, "similarity_fn_name"):
            return {str(model.similarity_fn_name): model.similarity}
        return {"cosine": cosine}

    def _candidates(self, model: Any, corpus_embeddings: Any = None) -> dict[str, tuple[Any, Any]]:
        """{score function: (scores [Q, W], corpus indices [Q, W])}: each query's candidates down to its max(k)-th best score, ties kept whole."""
        depth = max(max(ks) for _, ks in self._metric_ks())
        queries = self._embed(model, self.queries, "query", self.query_prompt_name, self.query_prompt)
        kept: dict[str, tuple[Any, Any]] = {}
        for start in range(0, len(self.corpus), self.corpus_chunk_size):
            end = min(start + self.corpus_chunk_size, len(self.corpus))
            if corpus_embeddings is None:
                chunk = self._embed(model, self.corpus[start:end], "document", self.corpus_prompt_name, self.corpus_prompt)
            else:
                chunk = corpus_embeddings[start:end]
            for name, function in self.score_functions.items():  # type: ignore[union-attr]
                scores = function(queries, chunk)
                kept[name] = _merge(kept.get(name), scores, start, depth)
        return kept

    def compute_metrics(self, scores: Any, columns: Any) -> dict[str, dict[str, dict[int, float]]]:
        """{order: {metric@k: {k: mean}}} for the candidates' scores and corpus indices (padding: -inf)."""
        xp = _namespace(scores)
        ids = [sorted(self.relevant_docs[qid]) for qid in self.queries_ids]
        index = {cid: i for i, cid in enumerate(self.corpus_ids)}
        width = max(1, max(len(r) for r in ids))
        relevant = [[index.get(cid, -1) for cid in r] + [-1] * (width - len(r)) for r in ids]
        rel = xp.asarray(relevant, dtype=xp.int64, device=_device(scores))
        columns = xp.astype(columns, xp.int64)
        labels = xp.zeros(columns.shape, dtype=xp.bool, device=_device(scores))
        for j in range(width):  # a candidate is relevant when its corpus index is one of its query's relevant ones
            labels = labels | ((columns == rel[:, j : j + 1]) & (rel[:, j : j + 1] >= 0))
        judged = [[1] * len(r) for r in ids]  # |relevant|: every listed id, in the corpus or not
        mask = scores > -xp.inf
        measures = [f"{MEASURES[metric]}@{k}" for metric, ks in self._metric_ks() for k in ks]
        out: dict[str, dict[str, dict[int, float]]] = {}
        for order in ("expected", "worst", "best"):
            values = evaluate(scores, xp.astype(labels, xp.int64), measures, mask=mask, judged=judged, order=order)
            out[order] = {f"{metric}@k": {k: float(xp.mean(values[f"{MEASURES[metric]}@{k}"])) for k in ks} for metric, ks in self._metric_ks()}
        return out

    # -- the call ----------------------------------------------------------------------------------

    def __call__(self, model: Any, output_path: Optional[str] = None, epoch: int = -1, steps: int = -1, *args: Any, **kwargs: Any) -> dict[str, float]:
        if self._score_functions_from_model:
            self.score_functions = self._functions(model)
            if self.score_function_names != sorted(self.score_functions):
                self.score_function_names = sorted(self.score_functions)
                self.csv_headers = ["epoch", "steps"]
                self._csv_columns(self.score_function_names)
                self.primary_metric = None
        candidates = self._candidates(model, kwargs.get("corpus_embeddings"))
        scores = {name: self.compute_metrics(*candidates[name]) for name in self.score_functions}  # type: ignore[union-attr]
        for name in self.score_function_names:
            self._log(name, scores[name])
        if output_path is not None and self.write_csv:
            self._write_csv(output_path, scores, epoch, steps)
        if output_path is not None and self.write_predictions:
            self._write_predictions(output_path, candidates)
        if not self.primary_metric:
            top = max(self.ndcg_at_k)
            if self.main_score_function is None:
                best = max(self.score_function_names, key=lambda n: scores[n]["expected"]["ndcg@k"][top])
                self.primary_metric = f"{best}_ndcg@{top}"
            else:
                self.primary_metric = f"{self.main_score_function}_ndcg@{top}"
        metrics: dict[str, float] = {}
        for function, orders in scores.items():
            for metric, values in orders["expected"].items():
                for k, value in values.items():
                    key = f"{function}_{metric.replace('@k', '@' + str(k))}"
                    metrics[key] = value
                    metrics[key + "_worst"] = orders["worst"][metric][k]
                    metrics[key + "_best"] = orders["best"][metric][k]
        if self.name:
            metrics = {f"{self.name}_{key}": value for key, value in metrics.items()}
            if not self.primary_metric.startswith(self.name + "_"):
                self.primary_metric = f"{self.name}_{self.primary_metric}"
        store = getattr(model, "model_card_data", None)
        if store is not None and hasattr(store, "set_evaluation_metrics"):
            store.set_evaluation_metrics(self, metrics, epoch, steps)
        return metrics

    def _log(self, name: str, orders: dict[str, dict[str, dict[int, float]]]) -> None:
        logger.info(f"Queries: {len(self.queries)}; corpus: {len(self.corpus)}; score function: {name} (tie-aware: expected [worst, best])")
        for metric, values in orders["expected"].items():
            for k, value in values.items():
                logger.info(f"{metric.replace('@k', '@' + str(k))}: {value:.4f} [{orders['worst'][metric][k]:.4f}, {orders['best'][metric][k]:.4f}]")

    def _write_csv(self, output_path: str, scores: dict, epoch: int, steps: int) -> None:
        os.makedirs(output_path, exist_ok=True)
        path = os.path.join(output_path, self.csv_file)
        row: list[Any] = [epoch, steps]
        for name in self.score_function_names:
            values = scores[name]["expected"]
            row += [values["accuracy@k"][k] for k in self.accuracy_at_k]
            for k in self.precision_recall_at_k:
                row += [values["precision@k"][k], values["recall@k"][k]]
            for metric in ("mrr", "ndcg", "map"):
                row += [values[f"{metric}@k"][k] for k in dict(self._metric_ks())[metric]]
        new = not os.path.isfile(path)
        with open(path, "a", encoding="utf-8") as out:
            if new:
                out.write(",".join(self.csv_headers) + "\n")
            out.write(",".join(map(str, row)) + "\n")

    def _write_predictions(self, output_path: str, candidates: dict[str, tuple[Any, Any]]) -> None:
        import json

        os.makedirs(output_path, exist_ok=True)
        for name, (scores, columns) in candidates.items():
            xp = _namespace(scores)
            path = os.path.join(output_path, self.predictions_file.replace(".jsonl", f"_{name}.jsonl"))
            with open(path, "w", encoding="utf-8") as out:
                for i, qid in enumerate(self.queries_ids):
                    row = [(float(s), self.corpus_ids[int(c)]) for s, c in zip(xp.reshape(scores[i, :], (-1,)), xp.reshape(columns[i, :], (-1,))) if float(s) > float("-inf")]
                    row.sort(key=lambda x: (-x[0], x[1]))  # a display order only: tied results keep sentence-transformers' order
                    results = [{"corpus_id": c, "score": s} for s, c in row]
                    out.write(json.dumps({"query_id": qid, "query": self.queries[i], "results": results}) + "\n")


def _device(x: Any) -> Any:
    import array_api_compat

    return array_api_compat.device(x)


def _merge(kept: Optional[tuple[Any, Any]], scores: Any, start: int, depth: int) -> tuple[Any, Any]:
    """Each row's candidates so far and a new chunk's, cut at the depth-th best score with its ties (padding -inf)."""
    xp = _namespace(scores)
    rows, width = scores.shape
    device = _device(scores)
    columns = xp.broadcast_to(xp.reshape(xp.arange(start, start + width, dtype=xp.int64, device=device), (1, width)), (rows, width))
    if kept is not None:
        scores = xp.concat([kept[0], xp.astype(scores, kept[0].dtype)], axis=1)
        columns = xp.concat([kept[1], columns], axis=1)
    order = xp.argsort(scores, axis=1, descending=True, stable=True)
    scores = xp.take_along_axis(scores, order, axis=1)
    columns = xp.take_along_axis(columns, order, axis=1)
    if scores.shape[1] <= depth:
        return scores, columns
    cut = scores[:, depth - 1 : depth]
    keep = scores >= cut
    wide = int(xp.max(xp.sum(xp.astype(keep, xp.int64), axis=1)))
    padding = xp.asarray(-xp.inf, dtype=scores.dtype, device=device)
    return xp.where(keep, scores, padding)[:, :wide], columns[:, :wide]
