"""The peers of ``tieaware conformance``: each library call checked, with the code that calls it.

A :class:`Peer` names a library, the call checked, the tieaware measure it
claims to compute and the *code* that calls it: Python source defining
``impl(scores, labels)``, with the stdlib helpers of :data:`PRELUDE`
(``docnos``, ``qrels_and_run``, ``trec_files``) defined.  Each peer's code is
the shortest the library's documentation allows; the measure string carries
the call's own parameters (its cutoff: ``map(k=5)`` is ``AP@5``).

>>> sorted({p.library for p in PEERS})[:4]
['MTEB', 'RecBole', 'TRM', 'catboost']
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Optional

from tieaware.check import adapters

__all__ = ["Peer", "PEERS", "LIBRARIES", "PRELUDE", "ENVIRONMENTS"]

#: The helpers every peer's code may use, from :mod:`tieaware.check.adapters` (stdlib only, so a worker
#: in another environment runs them without tieaware).
PRELUDE = "\n".join(
    [
        "from __future__ import annotations",
        "import os",
        "from collections.abc import Sequence",
        "from typing import Any",
        f"QID = {adapters.QID!r}",
        inspect.getsource(adapters.docnos),
        inspect.getsource(adapters._plain),
        inspect.getsource(adapters.qrels_and_run),
        inspect.getsource(adapters.trec_files),
        "import warnings",
        "warnings.simplefilter('ignore')",
    ]
)

#: Where a library can be installed: the CI test environment (``test``), the ``conformance`` extra (numpy 2,
#: installed by .ci/run too), an environment of its own (numpy < 2, pandas < 3, torch, or the library alone: out of CI).
ENVIRONMENTS = ("test", "conformance", "numpy1", "pandas2", "torch", "own")


@dataclass(frozen=True)
class Peer:
    """One library call that claims to compute a measure (or a statistic of one)."""

    #: Library name as users know it, e.g. "scikit-learn".
    library: str
    #: Distribution name for the version, e.g. "scikit-learn", "pytrec-eval-terrier".
    distribution: str
    #: The call checked, e.g. "ndcg_score(k=5, ignore_ties=False)".
    call: str
    #: The tieaware measure it is compared with.
    measure: str
    #: Python source defining impl(scores, labels) (the helpers of PRELUDE are defined).
    code: str
    #: Extra options for the check (labels, min_size, max_docs, ...).
    options: dict[str, Any] = field(default_factory=dict)
    #: True when its tie order depends on the CPU or the sizes (numpy's unstable argsort, numba and torch sorts):
    #: reports then name only what holds on every machine.
    machine_dependent: bool = False
    #: Where it can run (:data:`ENVIRONMENTS`).
    env: str = "test"
    #: For a peer of a spread: "min", "max", "variance" or "distribution" (checked with check.spread).
    statistic: Optional[str] = None


# -- the peers ------------------------------------------------------------------------------------------

_SK_2D = """
import sklearn.metrics as metrics
import numpy as np
def impl(scores, labels):
    return metrics.{fn}(np.asarray([[float(x) for x in labels]]), np.asarray([scores], dtype=float), k=5{extra})
"""

_SK_AP = """
import sklearn.metrics as metrics
def impl(scores, labels):
    return metrics.average_precision_score([int(x >= 1) for x in labels], scores)
"""

_PYTREC = """
import pytrec_eval
def impl(scores, labels, num_rel=None):
    missing = 0 if num_rel is None else num_rel - sum(1 for x in labels if x >= 1)
    qrels, run = qrels_and_run(scores, labels, unretrieved=[1] * missing)
    return pytrec_eval.RelevanceEvaluator(qrels, {{{family!r}}}).evaluate(run)[QID][{name!r}]
impl.integer_labels = True
"""

_IRM = """
import ir_measures
from ir_measures.providers import registry
MEASURE = ir_measures.parse_measure({name!r})
PROVIDER = registry[{provider!r}]
def impl(scores, labels):
    qrels, run = qrels_and_run(scores, labels, qid="1")
    rows = [r.value for r in PROVIDER.evaluator([MEASURE], qrels).iter_calc(run) if r.query_id == "1"]
    if not rows:
        raise RuntimeError("no value for the query")
    return rows[0]
impl.integer_labels = True
"""

_RANX = """
import ranx
def impl(scores, labels):
    qrels, run = qrels_and_run(scores, labels)
    return ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), {metric!r})
impl.integer_labels = True
"""

_RANK_EVAL = """
import rank_eval
def impl(scores, labels):
    qrels, run = qrels_and_run(scores, labels)
    return rank_eval.evaluate(rank_eval.Qrels.from_dict(qrels), rank_eval.Run.from_dict(run), {metric!r})
impl.integer_labels = True
"""

_TRECTOOLS = """
import tempfile
from trectools import TrecEval, TrecQrel, TrecRun
def impl(scores, labels):
    with tempfile.TemporaryDirectory() as d:
        qrels_path, run_path = trec_files(scores, labels, d)
        return TrecEval(TrecRun(run_path), TrecQrel(qrels_path)).{method}(depth={depth}, per_query=False)
impl.integer_labels = True
"""

_TRECTOOLS_DF = """
import tempfile
import pandas as pd
from trectools import TrecEval, TrecQrel, TrecRun
def impl(scores, labels):
    with tempfile.TemporaryDirectory() as d:
        qrels_path, _ = trec_files(scores, labels, d)
        run = TrecRun()
        run.load_run_from_dataframe(pd.DataFrame({"query": QID, "q0": "Q0", "docid": docnos(labels),
                                                  "rank": range(1, len(scores) + 1), "score": scores, "system": "r"}))
        return TrecEval(run, TrecQrel(qrels_path)).get_ndcg(depth=5, per_query=False)
impl.integer_labels = True
"""

_TRM = """
import trm
def impl(scores, labels):
    out = trm.evaluate([list(scores)], [[bool(x >= 1) for x in labels]], metrics=[{metric!r}], k_list=[{k}])
    return getattr(out.per_query[{metric!r}][{k}][0], {field!r})
"""

_CORNAC = """
import types
import numpy as np
from cornac.models import Recommender
from cornac.metrics import {cls}
def impl(scores, labels):
    s = np.asarray(scores, dtype=float)
    gt = np.asarray([i for i, x in enumerate(labels) if x >= 1.0], dtype=int)   # rating_threshold = 1.0
    if len(gt) == 0:
        return None   # ranking_eval skips a user without a test positive
    model = types.SimpleNamespace(num_items=len(s), total_items=len(s), score=lambda u, i=None, **kw: s if i is None else s[i],
                                  is_unknown_user=lambda u: False, is_unknown_item=lambda i: False, default_score=lambda: 0.0)
    items = np.arange(len(s))
    rank, ranked_scores = Recommender.rank(model, 0, items, k=({k}) or len(s))
    return {cls}({args}).compute(gt_pos=gt, pd_rank=rank, pd_scores=ranked_scores, item_indices=items)
"""

_RANKEREVAL = """
from rankereval import BinaryLabels, NumericLabels, Rankings, {cls}
def impl(scores, labels):
    y_true = {labels}.from_matrix([[float(x) for x in labels]])
    return float({cls}({k}).score(y_true, Rankings.from_scores([list(scores)]))[0])
"""

_RECTOOLS = """
import numpy as np, pandas as pd
from rectools import Columns
from rectools.metrics import {cls}
from rectools.models.utils import recommend_from_scores
def impl(scores, labels):
    ids, _ = recommend_from_scores(np.asarray(scores, dtype=np.float32), min({k}, len(scores)))   # models score in float32
    reco = pd.DataFrame({{Columns.User: 0, Columns.Item: [int(i) for i in ids], Columns.Rank: range(1, len(ids) + 1)}})
    relevant = [i for i, x in enumerate(labels) if x > 0]
    inter = pd.DataFrame({{Columns.User: pd.Series([0] * len(relevant), dtype=int), Columns.Item: pd.Series(relevant, dtype=int)}})
    per_user = {cls}(k={k}).calc_per_user(reco, inter)
    return float(per_user.iloc[0]) if len(per_user) else None   # a user without interactions is left out
"""

_RECOMMENDERS = """
import pandas as pd
from recommenders.evaluation import python_evaluation as pe
def impl(scores, labels):
    true = pd.DataFrame([(0, i, float(x)) for i, x in enumerate(labels) if x != 0], columns=["userID", "itemID", "rating"])
    true = true.astype({{"userID": int, "itemID": int, "rating": float}})
    pred = pd.DataFrame([(0, i, float(s)) for i, s in enumerate(scores)], columns=["userID", "itemID", "prediction"])
    if true.empty:
        return None   # a user without relevant rows is not evaluated
    return float(pe.{fn}(true, pred, k={k}{extra}))
"""

_TORCHMETRICS = """
import torch
from torchmetrics.functional import retrieval as F
def impl(scores, labels):
    target = torch.tensor([float(x) for x in labels]) if any(x != int(x) for x in labels) else torch.tensor([int(x) for x in labels])
    return F.{fn}(torch.tensor(scores, dtype=torch.float64), target{extra}).item()
"""

_RECBOLE = """
import numpy as np, torch
from recbole.evaluator.metrics import {cls}
def impl(scores, labels):
    k = min({k}, len(scores))
    metric = {cls}({{"topk": [k], "metric_decimal_place": 4}})
    positives = torch.tensor([[1 if x > 0 else 0 for x in labels]])
    _, index = torch.topk(torch.tensor([scores], dtype=torch.float32), k, dim=-1)   # the collector, float32 model scores
    pos_index = torch.gather(positives, 1, index).to(torch.bool).numpy()
    pos_len = positives.sum(dim=1).numpy()
    try:
        info = metric.metric_info(pos_index, pos_len)
    except TypeError:
        info = metric.metric_info(pos_index)
    return float(list(metric.topk_result({name!r}, info).values())[0])   # as reported: rounded
"""

_RECPACK = """
import numpy as np
from scipy.sparse import csr_matrix
from recpack.metrics import {cls}
def impl(scores, labels):
    metric = {cls}({k})
    metric.calculate(csr_matrix(np.asarray([labels], dtype=float)), csr_matrix(np.asarray([scores], dtype=float)))
    return float(metric.value) if metric.scores_.shape[0] else None   # a user without interactions is eliminated
"""

_RBO = """
import rbo
def impl(S, L):
    flat = lambda r: [x for g in r for x in (g if isinstance(g, (list, tuple)) else [g])]
    return rbo.RankingSimilarity(flat(S), flat(L)).rbo_ext(p=0.9)
"""

_IMPLICIT = """
import numpy as np, scipy.sparse as sp
from implicit.cpu.als import AlternatingLeastSquares
from implicit.evaluation import ranking_metrics_at_k
def impl(scores, labels):
    model = AlternatingLeastSquares(factors=1)   # a "fitted" model whose item scores are the scores (float32, as implicit's)
    model.user_factors = np.ones((1, 1), dtype=np.float32)
    model.item_factors = np.asarray([[s] for s in scores], dtype=np.float32)
    test = sp.csr_matrix(np.asarray([[1.0 if x >= 1 else 0.0 for x in labels]]))
    if not test.nnz:
        return None   # a user without test items is skipped
    return ranking_metrics_at_k(model, sp.csr_matrix((1, len(scores))), test, K={k}, show_progress=False)[{key!r}]
"""

_CATBOOST = """
from catboost.utils import eval_metric
def impl(scores, labels):
    return eval_metric([float(x) for x in labels], list(scores), {metric!r}, group_id=[0] * len(scores))[0]
"""

_TORCHEVAL = """
import torch
from torcheval.metrics.functional import retrieval_precision
def impl(scores, labels):
    return retrieval_precision(torch.tensor(scores, dtype=torch.float64), torch.tensor([int(x >= 1) for x in labels]){extra}).item()
"""

_KERAS_RS = """
import os
os.environ.setdefault("KERAS_BACKEND", "jax")
import keras_rs
def impl(scores, labels):
    metric = keras_rs.metrics.{cls}(k={k})   # shuffle_ties=True by default: ties are shuffled at random
    metric.update_state([[float(x) for x in labels]], [list(scores)])
    return float(metric.result())
"""

_IGNITE = """
import torch
from ignite.exceptions import NotComputableError
from ignite.metrics.rec_sys import {cls}
def impl(scores, labels):
    metric = {cls}(top_k=[{k}])
    metric.update((torch.tensor([scores], dtype=torch.float64), torch.tensor([[float(x) for x in labels]])))
    try:
        return metric.compute()[0]
    except NotComputableError:
        return None   # ignore_zero_hits=True: a user without a relevant item is left out
"""

_SENTENCE_TRANSFORMERS = """
from sentence_transformers.evaluation import InformationRetrievalEvaluator
def impl(scores, labels):
    names = docnos(labels)
    relevant = {{d for d, x in zip(names, labels) if x >= 1}}
    if not relevant:
        return None   # the evaluator drops a query without relevant documents
    evaluator = InformationRetrievalEvaluator({{"q1": "q"}}, {{d: d for d in names}}, {{"q1": relevant}}, write_csv=False,
                                              mrr_at_k=[{k}], ndcg_at_k=[{k}], accuracy_at_k=[{k}], precision_recall_at_k=[{k}], map_at_k=[{k}])
    hits = [{{"corpus_id": d, "score": float(s)}} for d, s in zip(names, scores)]   # what the search hands over, per query
    return float(evaluator.compute_metrics([hits])[{key!r}][{k}])
"""

_MTEB = """
from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores   # what RetrievalEvaluator.evaluate calls
def impl(scores, labels):
    qrels, run = qrels_and_run(scores, labels)
    return float(getattr(calculate_retrieval_scores(run, qrels, [{k}]), {field!r})[{key!r}])
impl.integer_labels = True
"""

_IRM_ONE_CALL = """
import ir_measures
MEASURES = [ir_measures.parse_measure(m) for m in ("RR@10", "RR", "P@1")]   # one call: ir_measures picks a provider per measure
def impl(scores, labels):
    qrels, run = qrels_and_run(scores, labels, qid="1")
    values = {{str(m): v for m, v in ir_measures.calc_aggregate(MEASURES, qrels, run).items()}}
    return values[{name!r}]
impl.integer_labels = True
"""

_RS_METRICS = """
import rs_metrics
def impl(scores, labels):
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])   # rs_metrics takes ranked lists (a stable sort: ties in input order)
    return float(rs_metrics.{fn}({{0: [i for i, x in enumerate(labels) if x >= 1]}}, {{0: ranked}}, k={k}))
"""

_REXMEX_AP = """
from rexmex.metrics.ranking import average_precision_at_k
def impl(scores, labels):
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])   # a ranked list (a stable sort: ties in input order)
    return average_precision_at_k([i for i, x in enumerate(labels) if x >= 1], ranked, k=5)
"""

_REXMEX_NDCG = """
import numpy as np
from rexmex.metrics.ranking import normalized_discounted_cumulative_gain
def impl(scores, labels):
    return normalized_discounted_cumulative_gain(np.asarray([[float(x) for x in labels]]), np.asarray([scores], dtype=float))
"""

_NDCG2 = {"min_size": 2}  # scikit-learn refuses a single document
_VARIES = True  # numpy's default argsort (x86-simd-sort), numba's and torch's sorts: the tie order varies

PEERS: tuple[Peer, ...] = (
    # scikit-learn 1.9: the test environment
    Peer("scikit-learn", "scikit-learn", "ndcg_score(k=5, ignore_ties=False)", "nDCG@5", _SK_2D.format(fn="ndcg_score", extra=""), _NDCG2),
    Peer("scikit-learn", "scikit-learn", "ndcg_score(k=5, ignore_ties=True)", "nDCG@5", _SK_2D.format(fn="ndcg_score", extra=", ignore_ties=True"), _NDCG2, _VARIES),
    Peer("scikit-learn", "scikit-learn", "dcg_score(k=5, ignore_ties=False)", "DCG@5", _SK_2D.format(fn="dcg_score", extra=""), _NDCG2),
    Peer("scikit-learn", "scikit-learn", "average_precision_score", "AP", _SK_AP, {"labels": "integer"}),
    # pytrec_eval (trec_eval 9.0.8's code)
    *(
        Peer("pytrec_eval", "pytrec-eval-terrier", name, measure, _PYTREC.format(family=family, name=name))
        for name, family, measure in (("P_5", "P", "P@5"), ("map", "map", "AP"), ("recip_rank", "recip_rank", "RR"), ("ndcg_cut_5", "ndcg_cut", "nDCG@5"))
    ),
    # ir_measures: one call per provider
    *(
        Peer("ir_measures", "ir_measures", f"{provider}: {name}", measure, _IRM.format(name=name, provider=provider), options, env=env)
        for provider, name, measure, options, env in (
            ("pytrec_eval", "AP", "AP", {}, "test"),
            ("pytrec_eval", "nDCG@5", "nDCG@5", {}, "test"),
            ("trectools", "AP", "AP", {}, "conformance"),
            ("trectools", "nDCG@5", "nDCG@5", {}, "conformance"),
            ("msmarco", "RR@10", "RR@10", {}, "test"),
            ("cwl_eval", "AP", "AP", {}, "conformance"),
            ("gdeval", "nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@5", {"labels": (0, 1, 2, 3, 4), "max_examples": 10, "max_size": 3}, "test"),
            ("gdeval", "ERR@5", "ERR@5", {"labels": (0, 1, 2, 3, 4), "max_examples": 10, "max_size": 3}, "test"),
            ("judged", "Judged@5", "Judged@5", {}, "test"),
            ("ranx", "AP", "AP", {}, "pandas2"),  # ranx's Run.from_df asserts an object dtype: pandas < 3
            ("ranx", "nDCG@5", "nDCG@5", {}, "pandas2"),
        )
    ),
    # the ranx provider where ir_measures' own requirements put it (pandas 3): Run.from_df fails
    *(
        Peer("ir_measures", "ir_measures", f"ranx: {name}, pandas 3", name, _IRM.format(name=name, provider="ranx"), {}, env="test")
        for name in ("AP",)
    ),
    # one call, three measures: RR@10 goes to the msmarco provider, RR and P@1 to pytrec_eval (another tie rule)
    *(
        Peer("ir_measures", "ir_measures", f"calc_aggregate([RR@10, RR, P@1]): {name}", name, _IRM_ONE_CALL.format(name=name))
        for name in ("RR@10", "RR", "P@1")
    ),
    # ranx 0.3 (numba sorts) and rank_eval, its predecessor
    *(Peer("ranx", "ranx", metric, measure, _RANX.format(metric=metric), {}, _VARIES) for metric, measure in (("map", "AP"), ("mrr", "RR"), ("ndcg@5", "nDCG@5"), ("precision@5", "P@5"))),
    *(Peer("rank_eval", "rank-eval", metric, measure, _RANK_EVAL.format(metric=metric), {}, _VARIES, "conformance") for metric, measure in (("map", "AP"), ("ndcg@5", "nDCG@5"))),
    # trectools
    *(
        Peer("trectools", "trectools", f"{method}(depth={depth})", measure, _TRECTOOLS.format(method=method, depth=depth), {}, False, "conformance")
        for method, depth, measure in (("get_map", 1000, "AP"), ("get_reciprocal_rank", 1000, "RR"), ("get_precision", 5, "P@5"), ("get_ndcg", 5, "nDCG@5"))
    ),
    Peer("trectools", "trectools", "get_ndcg(depth=5), run from a DataFrame", "nDCG@5", _TRECTOOLS_DF, {}, False, "conformance"),
    # TRM: tie-aware-retrieval-metrics (expected values and extremes over tie-breakings)
    *(
        Peer("TRM", "tie-aware-retrieval-metrics", f"evaluate {metric}@5 .{fld}", measure, _TRM.format(metric=metric, k=5, field=fld), {"labels": "binary"}, False, "conformance", stat)
        for metric, measure, fld, stat in (
            ("map", "AP@5", "expected", None),
            ("ndcg", "nDCG@5", "expected", None),
            ("precision", "P@5", "expected", None),
            ("precision", "P@5", "minimum", "min"),
            ("precision", "P@5", "maximum", "max"),
            ("f1", "F1@5", "minimum", "min"),
            ("ndcg", "nDCG@5", "minimum", "min"),
        )
    ),
    # cornac 3 (numpy >= 2)
    *(
        Peer("cornac", "cornac", call, measure, _CORNAC.format(cls=cls, k=k, args=args), {}, _VARIES, "conformance")
        for cls, k, args, call, measure in (
            ("NDCG", 5, "k=5", "NDCG(k=5)", "nDCG@5"),
            ("MAP", None, "", "MAP()", "AP"),
            ("MRR", None, "", "MRR()", "RR"),
        )
    ),
    # rankereval (numpy < 2)
    *(
        Peer("rankereval", "rankerEval", f"{cls}(5)", measure, _RANKEREVAL.format(cls=cls, k=5, labels=lab), {"labels": "binary" if lab == "BinaryLabels" else None}, False, "numpy1")
        for cls, measure, lab in (("AP", "AP@5", "BinaryLabels"), ("NDCG", "nDCG@5", "NumericLabels"), ("ReciprocalRank", "RR@5", "BinaryLabels"))
    ),
    # rectools (numpy < 2, pandas < 3)
    *(
        Peer("rectools", "RecTools", f"{cls}(k=5)", measure, _RECTOOLS.format(cls=cls, k=5), {}, _VARIES, "numpy1")
        for cls, measure in (("MAP", "AP@5"), ("NDCG", "nDCG@5"), ("Precision", "P@5"))
    ),
    # Microsoft recommenders (pandas < 3)
    *(
        Peer("recommenders", "recommenders", f"{fn}(k=5{extra})", measure, _RECOMMENDERS.format(fn=fn, k=5, extra=extra), {}, False, "pandas2")
        for fn, extra, measure in (("map_at_k", "", "AP@5"), ("ndcg_at_k", "", "nDCG@5"), ("precision_at_k", "", "P@5"), ("map", "", "AP@5"), ("r_precision_at_k", "", "Rprec"))
    ),
    # torch-based: torchmetrics, RecBole, recpack (never in CI)
    *(
        Peer("torchmetrics", "torchmetrics", f"{fn}({extra.lstrip(', ')})", measure, _TORCHMETRICS.format(fn=fn, extra=extra), {"labels": labels}, _VARIES, "torch")
        for fn, extra, measure, labels in (
            ("retrieval_average_precision", ", top_k=5", "AP@5", (0, 0.5, 1)),  # targets in [0, 1]
            ("retrieval_reciprocal_rank", "", "RR", (0, 0.5, 1)),
            ("retrieval_precision", ", top_k=5", "P@5", "binary"),
            ("retrieval_precision", ", top_k=5, adaptive_k=True", "P@5", "binary"),
            ("retrieval_recall", ", top_k=5", "R@5", "binary"),  # its own top k: on ties, not P@5's
            ("retrieval_normalized_dcg", ", top_k=5", "nDCG@5", None),
        )
    ),
    *(
        Peer("RecBole", "recbole", f"{cls}@5 (topk_result)", measure, _RECBOLE.format(cls=cls, k=5, name=cls.lower()), {}, _VARIES, "torch")
        for cls, measure in (("MAP", "AP@5"), ("NDCG", "nDCG@5"), ("MRR", "RR@5"), ("Precision", "P@5"))
    ),
    *(
        Peer("recpack", "recpack", f"{cls}(5)" + note, measure, _RECPACK.format(cls=cls, k=5), {"labels": labels}, _VARIES, "torch")
        for cls, measure, labels, note in (
            ("NDCGK", "nDCG@5", "binary", ""),
            ("PrecisionK", "P@5", "binary", ""),
            ("ReciprocalRankK", "RR@5", "binary", ""),
            ("NDCGK", "nDCG@5", None, ", graded labels"),
        )
    ),
    # torcheval, pytorch-ignite, sentence-transformers, MTEB: the torch environment (never in CI)
    *(
        Peer("torcheval", "torcheval", f"retrieval_precision({extra.lstrip(', ')})", "P@5", _TORCHEVAL.format(extra=extra), {"labels": "binary"}, _VARIES, "torch")
        for extra in (", k=5", ", k=5, limit_k_to_size=True")
    ),
    *(
        Peer("pytorch-ignite", "pytorch-ignite", f"rec_sys.{cls}(top_k=[5])", measure, _IGNITE.format(cls=cls, k=5), {}, False, "torch")
        for cls, measure in (("NDCG", "nDCG(dcg='exp-log2')@5"), ("HitRate", "Success@5"))
    ),
    *(
        Peer("sentence-transformers", "sentence-transformers", f"InformationRetrievalEvaluator.compute_metrics: {key}[5]", measure,
             _SENTENCE_TRANSFORMERS.format(key=key, k=5), {"labels": "binary"}, False, "torch")
        for key, measure in (("ndcg@k", "nDCG@5"), ("map@k", "AP@5"), ("mrr@k", "RR@5"), ("precision@k", "P@5"))
    ),
    *(
        Peer("MTEB", "mteb", f"calculate_retrieval_scores: {fld}[{key}]", measure, _MTEB.format(field=fld, key=key, k=5), {}, False, "torch")
        for fld, key, measure in (("ndcg", "NDCG@5", "nDCG@5"), ("map", "MAP@5", "AP@5"), ("mrr", "MRR@5", "RR@5"))
    ),
    # implicit, catboost, keras-rs: an environment of their own each (never in CI)
    *(
        Peer("implicit", "implicit", f"ranking_metrics_at_k(K=5)[{key!r}]", measure, _IMPLICIT.format(k=5, key=key), {"labels": "binary"}, False, "own")
        for key, measure in (("precision", "P@5"), ("map", "AP@5"), ("ndcg", "nDCG@5"))
    ),
    *(
        Peer("catboost", "catboost", f"eval_metric({metric!r}, group_id)", measure, _CATBOOST.format(metric=metric), {}, False, "own")
        for metric, measure in (("NDCG:top=5", "nDCG@5"), ("PrecisionAt:top=5", "P@5"), ("MAP:top=5", "AP@5"), ("MRR:top=5", "RR@5"))
    ),
    *(
        Peer("keras-rs", "keras-rs", f"metrics.{cls}(k=5)", measure, _KERAS_RS.format(cls=cls, k=5), {}, _VARIES, "own")
        for cls, measure in (("NDCG", "nDCG@5"), ("MeanAveragePrecision", "AP@5"), ("MeanReciprocalRank", "RR@5"), ("PrecisionAtK", "P@5"))
    ),
    # rs-metrics and rexmex: ranked lists; rs-metrics lives with numpy 2 and pandas 3 (the conformance extra, CI)
    *(
        Peer("rs-metrics", "rs-metrics", f"{fn}(k=5)", measure, _RS_METRICS.format(fn=fn, k=5), {}, False, "conformance")
        for fn, measure in (("ndcg", "nDCG@5"), ("precision", "P@5"), ("mrr", "RR@5"), ("mapr", "AP@5"))
    ),
    # rexmex 0.1.3 imports six without declaring it: its own environment, with six (out of CI)
    Peer("rexmex", "rexmex", "average_precision_at_k(k=5)", "AP@5", _REXMEX_AP, {}, False, "own"),
    Peer("rexmex", "rexmex", "normalized_discounted_cumulative_gain", "nDCG", _REXMEX_NDCG, _NDCG2, False, "own"),
    Peer("rbo", "rbo", "RankingSimilarity(S, L).rbo_ext(p=0.9)", "RBO(p=0.9, variant=a, bound=ext)", _RBO, {}, False, "numpy1"),
)

#: The libraries, in table order.
LIBRARIES: tuple[str, ...] = tuple(dict.fromkeys(p.library for p in PEERS))
