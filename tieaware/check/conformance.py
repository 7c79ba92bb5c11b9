"""Run the implementation checker against real IR and recommender libraries, each in its own environment.

Each :class:`Peer` names a library, the call checked (``retrieval_average_precision(top_k=5)``,
pytrec_eval's ``map``, ...), the tieaware measure it claims to compute, and
the *code* that calls it: Python source defining ``impl(scores, labels)``,
which may use the stdlib helpers of :data:`PRELUDE` (``docnos``,
``qrels_and_run``, ``trec_files``).  The code runs

- in this process, when the library is installed here, or
- in a worker process started with another Python (``pythons={"torchmetrics":
  "/envs/torch/bin/python"}``; ``tieaware conformance --python
  torchmetrics=/envs/torch/bin/python``): libraries that need another numpy,
  pandas or torch than tieaware's own environment are checked in theirs.  The
  worker is a stdlib-only script that reads inputs as JSON lines and writes
  the values back (floats round-trip exactly, float32 results included);
  tieaware is not installed there.

:func:`run_all` checks each peer with :func:`tieaware.check.implementation`
(or :func:`tieaware.check.spread` for a peer of a statistic) and returns one
:class:`Row` per peer: ``conforms``, ``conforms as`` another convention,
``differs`` (with the profile: the convention computed, the tie rule, the
precision, every bug with its smallest input), or ``not installed`` when the
library cannot be imported.  A library that is not there is never reported
as conforming.

>>> sorted({p.library for p in PEERS})[:4]
['RecBole', 'TRM', 'cornac', 'ir_measures']
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from tieaware.check import adapters
from tieaware.check.compare import shown
from tieaware.check.implementation import implementation
from tieaware.check.result import BUG, CONVENTION, ImplementationResult
from tieaware.model.errors import bad
from tieaware.model.exact import to_decimal, to_exact_string

__all__ = ["Peer", "Row", "PEERS", "LIBRARIES", "PRELUDE", "build", "check_peer", "run_all", "table", "markdown", "NOT_INSTALLED", "NOT_CHECKED", "Worker", "ENVIRONMENTS", "CONFORMS", "CONFORMS_AS", "DIFFERS", "tie_rule"]

NOT_INSTALLED = "not installed"
CONFORMS = "conforms"
CONFORMS_AS = "conforms as"
DIFFERS = "differs"
NOT_CHECKED = "not checked"

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
#: installed by .ci/run too), an environment of its own (numpy < 2, pandas < 3, torch: out of CI).
ENVIRONMENTS = ("test", "conformance", "numpy1", "pandas2", "torch")


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
        run.load_run_from_dataframe(pd.DataFrame({"query": QID, "q0": "Q0", "docid": docnos(len(scores)),
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
        for fn, extra, measure in (("map_at_k", "", "AP@5"), ("ndcg_at_k", "", "nDCG@5"), ("precision_at_k", "", "P@5"), ("map", "", "AP"))
    ),
    # torch-based: torchmetrics, RecBole, recpack (never in CI)
    *(
        Peer("torchmetrics", "torchmetrics", f"{fn}({extra.lstrip(', ')})", measure, _TORCHMETRICS.format(fn=fn, extra=extra), {"labels": labels}, _VARIES, "torch")
        for fn, extra, measure, labels in (
            ("retrieval_average_precision", ", top_k=5", "AP@5", (0, 0.5, 1)),  # targets in [0, 1]
            ("retrieval_reciprocal_rank", "", "RR", (0, 0.5, 1)),
            ("retrieval_precision", ", top_k=5", "P@5", "binary"),
            ("retrieval_precision", ", top_k=5, adaptive_k=True", "P@5", "binary"),
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
    Peer("rbo", "rbo", "RankingSimilarity(S, L).rbo_ext(p=0.9)", "RBO(p=0.9, variant=a, bound=ext)", _RBO, {}, False, "numpy1"),
)

#: The libraries, in table order.
LIBRARIES: tuple[str, ...] = tuple(dict.fromkeys(p.library for p in PEERS))


# -- running a peer: here, or in a worker of another environment -------------------------------------------

WORKER = r'''
import json, os, sys, traceback
protocol = os.fdopen(os.dup(1), "w")   # the library's own prints go to stderr, never into the protocol
os.dup2(2, 1)
sys.stdout = sys.stderr

def plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict):
        return {"pmf": [[plain(a), plain(b)] for a, b in v.items()]}
    if hasattr(v, "numerator") and hasattr(v, "denominator") and not isinstance(v, float):
        return {"fraction": [int(v.numerator), int(v.denominator)]}
    if hasattr(v, "item"):
        return plain(v.item())
    return float(v)

def reply(obj):
    protocol.write(json.dumps(obj) + "\n")
    protocol.flush()

request = json.loads(sys.stdin.readline())
namespace = {"__name__": "peer"}
try:
    exec(compile(request["code"], "<peer>", "exec"), namespace)
    impl = namespace["impl"]
    try:
        import inspect
        takes_num_rel = len(inspect.signature(impl).parameters) >= 3
    except (TypeError, ValueError):
        takes_num_rel = False
    try:
        from importlib.metadata import version
        ver = version(request["distribution"])
    except Exception:
        ver = None
    reply({"ready": True, "version": ver, "num_rel": takes_num_rel, "integer_labels": bool(getattr(impl, "integer_labels", False))})
except BaseException as exc:
    reply({"ready": False, "error": f"{type(exc).__name__}: {exc}", "import": isinstance(exc, ImportError)})
    sys.exit(0)
for line in sys.stdin:
    req = json.loads(line)
    args = [req["scores"], req["labels"]] + ([req["num_rel"]] if req.get("num_rel") is not None else [])
    try:
        reply({"value": plain(impl(*args))})
    except BaseException as exc:
        reply({"error": f"{type(exc).__name__}: {exc}"})
'''


class Worker:
    """A peer's code running in another Python (its own environment), called line by line over pipes."""

    def __init__(self, python: str, peer: Peer, timeout: float = 120.0) -> None:
        self.python, self.peer, self.timeout = python, peer, timeout
        self.process: Optional[subprocess.Popen] = None
        self.info = self._start()

    def _start(self) -> dict[str, Any]:
        self.stderr = tempfile.TemporaryFile(mode="w+")
        try:
            self.process = subprocess.Popen(
                [self.python, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1
            )
        except OSError as exc:
            raise bad("python", self.python, f"cannot be run ({exc.strerror or exc})") from None
        self._send({"code": PRELUDE + "\n" + self.peer.code, "distribution": self.peer.distribution})
        info = self._receive(self.timeout * 5)  # the first import of a library can take a while (numba, torch)
        if not info.get("ready"):
            self.close()
            if info.get("import"):
                raise ImportError(info.get("error"))
            raise RuntimeError(info.get("error", "the worker did not start"))
        return info

    def _send(self, obj: Any) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(obj) + "\n")
        self.process.stdin.flush()

    def _receive(self, timeout: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                self.close()
                raise TimeoutError(f"no answer within {timeout:g} s")
        line = self.process.stdout.readline()
        if not line:
            self.stderr.seek(0)
            detail = " ".join(self.stderr.read().split())[-300:]
            self.close()
            raise RuntimeError(f"the worker ended: {detail}")
        return json.loads(line)

    def __call__(self, scores: list, labels: list, num_rel: Any = None) -> Any:
        if self.process is None or self.process.poll() is not None:
            self.info = self._start()
        self._send({"scores": list(scores), "labels": [adapters._plain(x) for x in labels], "num_rel": num_rel})
        answer = self._receive(self.timeout)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return _value(answer["value"])

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


def _value(v: Any) -> Any:
    from fractions import Fraction

    if isinstance(v, dict) and "fraction" in v:
        return Fraction(*v["fraction"])
    if isinstance(v, dict) and "pmf" in v:
        return {_value(a): _value(b) for a, b in v["pmf"]}
    return v


def build(peer: Peer, python: Optional[str] = None) -> tuple[Callable[..., Any], Optional[str]]:
    """(impl, version) for *peer*: its code run here, or in a :class:`Worker` of *python*; ImportError when missing."""
    if python is not None:
        worker = Worker(python, peer)
        takes_num_rel = worker.info.get("num_rel", False)
        if takes_num_rel:

            def impl(scores: list, labels: list, num_rel: Any = None) -> Any:
                return worker(scores, labels, num_rel)

        else:

            def impl(scores: list, labels: list) -> Any:  # type: ignore[misc]
                return worker(scores, labels)

        impl.integer_labels = worker.info.get("integer_labels", False)  # type: ignore[attr-defined]
        impl.worker = worker  # type: ignore[attr-defined]
        return impl, worker.info.get("version")
    namespace: dict[str, Any] = {"__name__": "peer"}
    exec(compile(PRELUDE + "\n" + peer.code, f"<peer {peer.library}: {peer.call}>", "exec"), namespace)
    return namespace["impl"], _version(peer.distribution)


# -- running --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """The verdict on one peer."""

    peer: Peer
    #: "conforms", "conforms as", "differs" or "not installed".
    status: str
    #: The installed version, or None.
    version: Optional[str]
    #: The checker's result (None when not installed).
    result: Optional[ImplementationResult]
    #: Why it is not installed, when it is not.
    note: str = ""
    #: Seconds spent checking.
    seconds: float = 0.0
    #: The Python it ran in (None: this process).
    python: Optional[str] = None


def _version(distribution: str) -> Optional[str]:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_peer(peer: Peer, python: Optional[str] = None, **options: Any) -> Row:
    """Check one peer; a library that cannot be imported gives a "not installed" row."""
    try:
        impl, version = build(peer, python)
    except ImportError as exc:
        return Row(peer, NOT_INSTALLED, None if python else _version(peer.distribution), None, f"{type(exc).__name__}: {exc}", python=python)
    start = time.perf_counter()
    settings = {**options, **{k: v for k, v in peer.options.items() if v is not None}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if peer.statistic is not None:
                from tieaware.check.spread_check import spread

                settings.pop("ties", None)
                result = spread(impl, peer.measure, peer.statistic, **settings)
            else:
                result = implementation(impl, peer.measure, **settings)
    finally:
        worker = getattr(impl, "worker", None)
        if worker is not None:
            worker.close()
    status = CONFORMS if result.ok else CONFORMS_AS if result.conforms_as is not None else DIFFERS
    return Row(peer, status, version, result, seconds=time.perf_counter() - start, python=python)


def run_all(
    peers: Optional[Sequence[Peer]] = None,
    *,
    libraries: Optional[Sequence[str]] = None,
    pythons: Optional[dict[str, str]] = None,
    max_size: int = 4,
    max_examples: int = 50,
    progress: bool = False,
    jobs: int = 1,
) -> list[Row]:
    """Check every peer (or those of *libraries*); one Row each, in :data:`PEERS` order.

    *pythons* maps a library to the Python of its environment; the others run here.
    """
    from tieaware.check.progress import bar

    chosen = list(PEERS if peers is None else peers)
    for name in libraries or []:
        if name not in LIBRARIES:
            raise bad("library", name, f"is not one of {list(LIBRARIES)}")
    for name in pythons or {}:
        library, _, env = name.partition("/")
        if library not in LIBRARIES or (env and env not in ENVIRONMENTS):
            raise bad("pythons", name, f"must be a library of {list(LIBRARIES)}, or LIBRARY/ENV with ENV one of {list(ENVIRONMENTS)}")
    if libraries is not None:
        chosen = [p for p in chosen if p.library in libraries]
    pythons = pythons or {}
    tasks = [(p, pythons.get(f"{p.library}/{p.env}", pythons.get(p.library)), max_size, max_examples) for p in chosen]
    if jobs <= 1 or len(tasks) <= 1:
        return [_check_task(t) for t in bar(tasks, progress, "peers", len(tasks))]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:  # rows come back in PEERS order
        return list(bar(pool.imap(_check_task, tasks), progress, "peers", len(tasks)))


def _check_task(task: tuple[Peer, Optional[str], int, int]) -> Row:
    """check_peer on one task; a checker error becomes a "not checked" row instead of ending the run."""
    peer, python, max_size, max_examples = task
    try:
        return check_peer(peer, python, max_size=max_size, max_examples=max_examples)
    except Exception as exc:  # noqa: BLE001 - one peer's failure must not lose the other rows
        return Row(peer, NOT_CHECKED, None, None, f"the check stopped: {type(exc).__name__}: {str(exc)[:200]}", python=python)


# -- reporting ---------------------------------------------------------------------------------------------------

TIE_ASPECTS = ("ties", "large groups")


def tie_rule(row: Row) -> str:
    """The tie rule the check found: a cause, "averaged" (tie-aware), or "" when not known."""
    if row.result is None:
        return ""
    rules = [f.cause for f in row.result.profile if f.aspect in TIE_ASPECTS and f.severity == BUG]
    if row.peer.machine_dependent and rules and rules[0] != "one_threshold":
        return "arbitrary_order"
    if rules:
        return rules[0]
    tied_bug = any(f.severity == BUG and f.aspect in ("definition", "other") for f in row.result.profile)
    if tied_bug:
        return ""
    return f"exact {row.peer.statistic}" if row.peer.statistic else "averaged"


def _vector(cex: Any, machine_dependent: bool) -> str:
    """A counterexample in one line: the input, the exact expected value and what came back."""
    if cex is None:
        return ""
    if hasattr(cex, "S"):
        inputs = f"S {cex.S}, L {cex.L}"
    else:
        inputs = f"scores {list(cex.scores)}, labels {[adapters._plain(x) for x in cex.labels]}"
    if cex.exception is not None:
        got = f"raised {cex.exception[:80]}"
    elif machine_dependent:
        got = "got a tie-broken value (which one depends on the CPU and the sizes)"
    else:
        got = f"got {shown(cex.got)}"
    try:
        expected = to_exact_string(cex.expected)
        if "/" in expected and len(expected) > 14 or not expected.replace("/", "").isdigit():
            expected = f"{expected if len(expected) <= 30 else '...'} = {to_decimal(cex.expected, 6)}"
    except (ValueError, TypeError):
        expected = str(cex.expected)
    return f"{inputs}: expected {expected}, {got}"


def _findings(row: Row) -> list[str]:
    """The bugs and notes of a row other than its tie rule, as "cause: vector" (one per cause and message)."""
    if row.result is None:
        return []
    out: list[str] = []
    seen = set()
    for f in row.result.profile:
        if f.aspect in TIE_ASPECTS or f.cause in ("convention", "precision"):
            continue
        cex = f.counterexample
        key = (f.cause, None if cex is None else cex.exception)
        if key in seen:
            continue
        seen.add(key)
        vary = row.peer.machine_dependent and f.cause in ("arbitrary_order",)
        out.append(f"`{f.cause}`{' (note)' if f.severity != BUG else ''}: {_vector(cex, vary)}")
    return out


def _verdict(row: Row) -> str:
    if row.status == NOT_INSTALLED:
        return NOT_INSTALLED
    if row.status == CONFORMS_AS:
        return f"conforms as `{row.result.conforms_as}`"  # type: ignore[union-attr]
    return row.status


def table(rows: Sequence[Row], tablefmt: str = "simple") -> str:
    """The library × call table: verdict, the measure it computes, tie rule, precision, smallest counterexample."""
    from tabulate import tabulate

    body = []
    for r in rows:
        res = r.result
        tie_cex = None
        if res is not None:
            tie = [f for f in res.profile if f.aspect in TIE_ASPECTS and f.severity == BUG]
            tie_cex = tie[0].counterexample if tie else None
        body.append(
            [
                r.peer.library + (f" {r.version}" if r.version else ""),
                r.peer.call,
                f"`{r.peer.measure}`" + (f" ({r.peer.statistic})" if r.peer.statistic else ""),
                _verdict(r) if r.status != NOT_INSTALLED else f"{NOT_INSTALLED}",
                "" if res is None else (f"`{res.convention}`" if res.convention else "no known convention"),
                tie_rule(r),
                "" if res is None or res.precision is None else str(res.precision),
                r.note if res is None else "; ".join(_findings(r)),
                _vector(tie_cex, r.peer.machine_dependent) if tie_cex is not None else "",
            ]
        )
    head = ["library", "call", "checked as", "verdict", "computes (untied)", "tie rule", "precision", "other findings (smallest input)", "tie rule shown on"]
    return tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True)


def markdown(rows: Sequence[Row], *, max_size: int, max_examples: int, command: str = "tieaware conformance --markdown docs/conformance.md") -> str:
    """A Markdown page: what was checked, how, and the table."""
    counts = {s: sum(1 for r in rows if r.status == s) for s in (CONFORMS, CONFORMS_AS, DIFFERS, NOT_INSTALLED, NOT_CHECKED)}
    libraries = sorted({r.peer.library for r in rows if r.status != NOT_INSTALLED})
    lines = [
        "# Conformance of IR libraries to tie-aware measures",
        "",
        f"Generated by `{command}`; do not edit by hand.",
        "",
        "Each library call is checked with `tieaware.check.implementation` (a statistic over tie-breakings with",
        "`tieaware.check.spread`; see docs/check.md) at the checker's defaults except for",
        f"{max_examples} hypothesis inputs and the per-call options below: every tie structure of up to {max_size} documents",
        "over labels 0, 1, 2 and around the cutoff, near-ties, zero, negative, -0.0, huge and tiny scores, grades 3, 4",
        "and 1/2, tie groups of 10 to 64 documents, every input also in reverse order.  The profile of each call:",
        "",
        "- **verdict**: *conforms* (the tie-aware value of the measure named, at the measured precision),",
        "  *conforms as* another convention (ties averaged, but the measure is another library's convention of it),",
        "  *differs*, or *not installed* (never *conforms*).",
        "- **computes (untied)**: the tieaware measure its values match on untied inputs: its definition, ties aside",
        "  (docs/conventions.md, Conventions of other libraries).  *no known convention* is a definitional bug.",
        "- **tie rule**: `averaged` (tie-aware), a fixed rule confirmed on groups of up to 65 documents and inside",
        "  rankings of 40 and 200 (`input_order`; `docno`: reverse input order, trec_eval's docno-descending rule,",
        "  since the documents are named d000, d001, ... in input order; `one_threshold`: a tie group is one point",
        "  of the precision-recall curve), or `arbitrary_order`: ties broken by an unstable sort (numpy's, numba's,",
        "  torch's), whose order changes with the group size, the ranking length and the CPU.  For those the table",
        "  shows only the input, never which tie-broken value came back.",
        "- **precision**: of the results, measured (float32, rounded to d decimals); answers are judged at it.",
        "- **other findings**: every other class found, with its smallest input and the exact expected value.",
        "",
        "Libraries that need another numpy, pandas or torch than tieaware's environment ran in their own",
        "environment (`tieaware conformance --python LIBRARY=PYTHON`); see the last column of the list below.",
        "",
        f"{len(rows)} calls of {len(libraries)} libraries: {counts[CONFORMS]} conform, {counts[CONFORMS_AS]} conform as another",
        f"convention, {counts[DIFFERS]} differ, {counts[NOT_INSTALLED]} not installed"
        + (f", {counts[NOT_CHECKED]} not checked." if counts[NOT_CHECKED] else "."),
        "",
        table(rows, "github"),
        "",
        "## Where each library ran",
        "",
    ]
    seen = set()
    for r in rows:
        if r.peer.library in seen:
            continue
        seen.add(r.peer.library)
        where = {"test": "tieaware's test environment (CI)", "conformance": "the `conformance` extra (numpy 2; CI)",
                 "numpy1": "an environment with numpy < 2 (out of CI)", "pandas2": "an environment with pandas < 3 (out of CI)",
                 "torch": "an environment with torch (CPU; out of CI)"}[r.peer.env]
        lines.append(f"- {r.peer.library}" + (f" {r.version}" if r.version else "") + f": {where}" + (f"; {r.note}" if r.note else ""))
    lines.append("")
    lines += _summaries(rows)
    return "\n".join(lines)


def _family(measure: str) -> str:
    """The measure's name without options: "AP(norm=capped)@5" -> "AP"."""
    return measure.split("(")[0].split("@")[0]


def _summaries(rows: Sequence[Row]) -> list[str]:
    """Per library: its tie rules, the conventions it computes (as tieaware measures), and every bug with its vector."""
    lines = ["## Each library", "", "What the table says, library by library (from the same run).", ""]
    by_library: dict[str, list[Row]] = {}
    for r in rows:
        by_library.setdefault(r.peer.library, []).append(r)
    for library, group in by_library.items():
        checked = [r for r in group if r.result is not None]
        version = next((r.version for r in group if r.version), None)
        lines += [f"### {library}" + (f" {version}" if version else ""), ""]
        if not checked:
            lines += [f"{group[0].status.capitalize()}: {group[0].note}", ""]
            continue
        rules: dict[str, list[str]] = {}
        for r in checked:
            rules.setdefault(tie_rule(r) or "none named (a definitional bug comes first)", []).append(r.peer.call)
        lines.append("- tie rule: " + "; ".join(f"`{rule}` ({', '.join(calls)})" for rule, calls in rules.items()))
        conventions = []
        for r in checked:
            res = r.result
            assert res is not None
            computed = f"`{res.convention}`" if res.convention else "no known convention"
            notes = [f"`{f.measure}`" for f in res.profile if f.cause == "relevance_threshold" and f.measure]
            extra = f"; label 1/2 read as in {', '.join(notes)}" if notes else ""
            conventions.append(f"{r.peer.call}: {computed}{extra}")
        lines.append("- conventions (the measure each call computes on untied inputs): " + "; ".join(conventions))
        families: dict[str, set[str]] = {}
        for r in checked:
            if r.result is not None and r.result.convention:
                families.setdefault(_family(r.peer.measure), set()).add(r.result.convention)
        for family, found in sorted(families.items()):
            if len(found) > 1:
                lines.append(f"- inconsistent: its {family} calls compute {len(found)} conventions: " + ", ".join(f"`{c}`" for c in sorted(found)))
                for r in checked:
                    conv = [f for f in r.result.profile if f.severity == CONVENTION and f.aspect == "definition"]  # type: ignore[union-attr]
                    if _family(r.peer.measure) == family and conv and conv[0].counterexample is not None:
                        lines.append(f"  - {r.peer.call} (`{conv[0].measure}`): {_vector(conv[0].counterexample, False)}")
        bugs = [f"{r.peer.call}: {finding}" for r in checked for finding in _findings(r) if "(note)" not in finding]
        definitional = [r for r in checked if r.result is not None and r.result.convention is None]
        for r in definitional:
            d = [f for f in r.result.profile if f.aspect == "definition" and f.severity == BUG]  # type: ignore[union-attr]
            if d and not any(b.startswith(f"{r.peer.call}: `definition`") for b in bugs):
                bugs.append(f"{r.peer.call}: `definition`: {_vector(d[0].counterexample, False)}")
        lines.append("- bugs:" + (" none found" if not bugs else ""))
        lines += [f"  - {b}" for b in bugs]
        lines.append("")
    return lines
