"""The larger scale sections of ``tieaware bench --only scale``: 10^8 lines, rbo, recommender data, score matrices.

Helpers of :mod:`tieaware.benchmarks.scale` (no ``run``: not a benchmark of
its own, so ``tieaware bench`` does not list it).  Peers that cannot share tieaware's environment (a
library pinning another numpy, or torch) run in their own Python, named by
an environment variable; each peer's time is measured inside its own process
around the evaluation call only, as is tieaware's:

- ``TIEAWARE_RECOMMENDERS_PYTHON``: a Python with Microsoft recommenders
  (``recommenders.evaluation.python_evaluation``);
- ``TIEAWARE_TRM_PYTHON``: a Python with TRM (``tie-aware-retrieval-metrics``);
- ``TIEAWARE_TORCH_PYTHON``: a Python with torchmetrics.

Unset, the current Python is used when it has the library; otherwise the
row says "not installed".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Optional

import numpy as np

__all__ = ["RECOMMENDER_MEASURES", "write_heavy", "recommender", "matrix", "matrix_fixture", "peer_python"]

#: Seeds of the generated data (numpy's PCG64): the same files and arrays on every machine.
SEED_BIG = 108
SEED_RECOMMENDER = 5000
SEED_MATRIX = 10000


def write_heavy(qrels_path: str, run_path: str, queries: int, docs: int, seed: int, chunk: int = 1000) -> None:
    """Write a heavy-tie run (scores 0..20) and binary qrels, *chunk* queries at a time (bounded memory)."""
    score_text = [f"{s}" for s in range(21)]
    doc_text = [f"d{d}" for d in range(docs)]
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for first in range(0, queries, chunk):
            rng = np.random.Generator(np.random.PCG64([seed, first]))
            last = min(queries, first + chunk)
            scores = rng.integers(0, 21, size=(last - first, docs)).tolist()
            lines = []
            for q, row in zip(range(first, last), scores):
                prefix = f"q{q} Q0 "
                lines.append("".join(f"{prefix}{doc_text[d]} {d + 1} {score_text[s]} heavy\n" for d, s in enumerate(row)))
            run.write("".join(lines))
            judged = []
            for q in range(first, last):
                for d in sorted(rng.choice(docs, size=min(int(rng.integers(1, 21)), docs), replace=False).tolist()):
                    judged.append(f"q{q} 0 d{d} 1\n")
                judged.append(f"q{q} 0 unretrieved{q} 1\n")
            qrels.write("".join(judged))


def peer_python(variable: str, module: str) -> Optional[str]:
    """The Python that has *module*: $variable if set, else this one if it imports it, else None."""
    chosen = os.environ.get(variable)
    if chosen:
        return chosen if shutil.which(chosen) or os.path.exists(chosen) else None
    import importlib.util

    try:
        return sys.executable if importlib.util.find_spec(module) is not None else None
    except (ImportError, ValueError):
        return None


def _in_process(python: str, code: str, *args: str, timeout: float = 1800) -> dict:
    """Run *code* in *python*; it prints one JSON line with its own measured seconds (and values)."""
    env = dict(os.environ, TQDM_DISABLE="1")
    try:
        done = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s, stopped"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the recommender fixture -----------------------------------------------------

_RECOMMENDER_DATA = """
import numpy as np, pandas as pd
def fixture(users, items, seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    user = np.repeat(np.arange(users), items)
    item = np.tile(np.arange(items), users)
    pred = pd.DataFrame({"userID": user, "itemID": item, "prediction": rng.integers(1, 6, users * items)})
    keep = rng.random(users * items) < 0.1  # each user rated about a tenth of the items
    true = pd.DataFrame({"userID": user[keep], "itemID": item[keep], "rating": rng.integers(1, 6, int(keep.sum()))})
    return true, pred
"""

#: What recommenders 1.2.1's ``ndcg_at_k`` and ``map_at_k`` compute (docs/conventions.md, Conventions of
#: other libraries): binary gain (every rated row relevant), AP divided by min(R, k), users without a
#: rated item left out of the mean.
RECOMMENDER_MEASURES = "nDCG(gain=binary,norel=skip)@10 AP(norel=skip,norm=capped)@10"

_RECOMMENDER_TIEAWARE = _RECOMMENDER_DATA + """
import json, sys, time
import tieaware
MEASURES = sys.argv[4]
true, pred = fixture(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
if sys.argv[5] == "untied":
    # recommenders' tie rule made explicit: its stable sort on [userID, prediction] keeps the input
    # order (item id ascending) among equal predictions; the same order as distinct scores
    pred["prediction"] = pred["prediction"] - pred["itemID"] / (int(sys.argv[2]) + 1)
start, cpu = time.perf_counter(), time.process_time()
qrels = true.rename(columns={"userID": "query_id", "itemID": "doc_id", "rating": "relevance"})
run = pred.rename(columns={"userID": "query_id", "itemID": "doc_id", "prediction": "score"})
import pyarrow as pa
ev = tieaware.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run), MEASURES, exact=False)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
ndcg, ap = (ev.mean[str(m)] for m in ev.measures)
print(json.dumps({"seconds": seconds, "cpu": cpu, "ndcg": ndcg, "map": ap}))
"""

_RECOMMENDER_PEER = _RECOMMENDER_DATA + """
import json, sys, time
from recommenders.evaluation.python_evaluation import map_at_k, ndcg_at_k
true, pred = fixture(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
start, cpu = time.perf_counter(), time.process_time()
ndcg = ndcg_at_k(true, pred, k=10)
map_ = map_at_k(true, pred, k=10)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "ndcg": ndcg, "map": map_}))
"""


def recommender(quick: bool) -> list[list[str]]:
    """Rows: tieaware and recommenders on the recommender fixture, the same measures, seconds (wall and CPU) in-process.

    tieaware asks for :data:`RECOMMENDER_MEASURES`, what recommenders'
    ``ndcg_at_k`` and ``map_at_k`` compute; recommenders breaks ties by input
    order (item id ascending), tieaware averages over them, so the values
    agree only on untied input: the last row evaluates the fixture with the
    ties broken as recommenders breaks them (predictions made distinct in
    that order), and its values equal recommenders'.
    """
    users, items = (200, 100) if quick else (5000, 1000)
    args = (str(users), str(items), str(SEED_RECOMMENDER))
    rows = []
    ours = _in_process(sys.executable, _RECOMMENDER_TIEAWARE, *args, RECOMMENDER_MEASURES, "tied")
    rows.append(_row("tieaware.evaluate (pyarrow Tables, tie-aware)", ours))
    peer = peer_python("TIEAWARE_RECOMMENDERS_PYTHON", "recommenders")
    theirs = _in_process(peer, _RECOMMENDER_PEER, *args) if peer else {"error": "not installed"}
    rows.append(_row("recommenders python_evaluation (ties by item id)", theirs))
    if "seconds" in ours and "seconds" in theirs:
        rows.append(["tieaware ÷ recommenders", f"{ours['seconds'] / theirs['seconds']:.3f}",
                     f"{ours['cpu'] / theirs['cpu']:.3f}", "", "", "target <= 0.1"])
    untied = _in_process(sys.executable, _RECOMMENDER_TIEAWARE, *args, RECOMMENDER_MEASURES, "untied")
    rows.append(_row("tieaware, ties broken by item id (untied)", untied))
    return rows


def _row(name: str, got: dict) -> list[str]:
    if "seconds" not in got:
        return [name, "-", "-", "-", "-", got.get("error", "")]
    return [name, f"{got['seconds']:.2f}", f"{got['cpu']:.2f}", f"{got['ndcg']:.6f}", f"{got['map']:.6f}", ""]


# -- the score matrix ----------------------------------------------------------------

def matrix_fixture(rows: int, cols: int, seed: int = SEED_MATRIX) -> tuple[np.ndarray, np.ndarray]:
    """float32 scores rounded to 1/64 (many ties, as low-precision embeddings give) and ~1% relevant cells."""
    rng = np.random.Generator(np.random.PCG64(seed))
    scores = (np.round(rng.normal(0.5, 0.15, size=(rows, cols)) * 64) / 64).astype(np.float32)
    relevant = rng.random((rows, cols)) < 0.01
    relevant[np.arange(rows), rng.integers(0, cols, rows)] = True  # every query has a relevant candidate
    return scores, relevant


# The peers read the fixture from raw files (float32, uint8): TRM's environment has no numpy.
_MATRIX_TIEAWARE = """
import json, sys, time
import numpy as np
import tieaware
rows, cols = int(sys.argv[3]), int(sys.argv[4])
scores = np.fromfile(sys.argv[1], dtype=np.float32).reshape(rows, cols)
relevant = np.fromfile(sys.argv[2], dtype=np.uint8).reshape(rows, cols).astype(bool)
tieaware.evaluate_matrix(scores[:2], relevant[:2], "nDCG@10")  # imports, outside the timing
best = None
for _ in range(3):
    start = time.perf_counter()
    ev = tieaware.evaluate_matrix(scores, relevant, "nDCG@10 RR@10 R@100")
    seconds = time.perf_counter() - start
    best = seconds if best is None else min(best, seconds)
print(json.dumps({"seconds": best, "ndcg": ev.mean["nDCG@10"], "rr": ev.mean["RR@10"], "recall": ev.mean["R@100"]}))
"""

_MATRIX_TRM = """
import array, json, sys, time
import trm
rows, cols = int(sys.argv[3]), int(sys.argv[4])
flat = array.array("f")
with open(sys.argv[1], "rb") as f:
    flat.fromfile(f, rows * cols)
with open(sys.argv[2], "rb") as f:
    rel = f.read()
scores = [flat[i * cols : (i + 1) * cols].tolist() for i in range(rows)]
relevant = [[b == 1 for b in rel[i * cols : (i + 1) * cols]] for i in range(rows)]
start = time.perf_counter()
out = trm.evaluate(scores, relevant, metrics=["ndcg", "mrr", "recall"], k_list=[10, 100])
seconds = time.perf_counter() - start
m = out.metrics
print(json.dumps({"seconds": seconds, "ndcg": m["ndcg"][10].expected, "rr": m["mrr"][10].expected, "recall": m["recall"][100].expected}))
"""

_MATRIX_TORCH = """
import json, sys, time
import numpy as np
import torch
from torchmetrics.retrieval import RetrievalMRR, RetrievalNormalizedDCG, RetrievalRecall
rows, cols = int(sys.argv[3]), int(sys.argv[4])
scores = np.fromfile(sys.argv[1], dtype=np.float32).reshape(rows, cols)
relevant = np.fromfile(sys.argv[2], dtype=np.uint8).reshape(rows, cols).astype(bool)
torch.set_num_threads(1)
start = time.perf_counter()
preds = torch.from_numpy(scores).reshape(-1)
target = torch.from_numpy(relevant).reshape(-1)
indexes = torch.arange(rows).repeat_interleave(cols)
ndcg = RetrievalNormalizedDCG(top_k=10)(preds, target, indexes=indexes).item()
rr = RetrievalMRR(top_k=10)(preds, target, indexes=indexes).item()
recall = RetrievalRecall(top_k=100)(preds, target, indexes=indexes).item()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "ndcg": ndcg, "rr": rr, "recall": recall}))
"""


def matrix(quick: bool) -> list[list[str]]:
    """Rows: evaluate_matrix, TRM and torchmetrics on the float32 score matrix (nDCG@10, RR@10, R@100)."""
    import tempfile

    rows_, cols = (200, 100) if quick else (10000, 1000)
    scores, relevant = matrix_fixture(rows_, cols)
    tmp = tempfile.mkdtemp(prefix="tieaware-matrix-")
    paths = (os.path.join(tmp, "scores.f32"), os.path.join(tmp, "relevant.u8"))
    scores.tofile(paths[0])
    relevant.astype(np.uint8).tofile(paths[1])
    args = (*paths, str(rows_), str(cols))
    out = []
    for name, code, variable, module in (
        ("tieaware.evaluate_matrix (tie-aware; best of 3)", _MATRIX_TIEAWARE, None, None),
        ("TRM trm.evaluate (tie-aware; k 10 and 100 for each)", _MATRIX_TRM, "TIEAWARE_TRM_PYTHON", "trm"),
        ("torchmetrics Retrieval* (tie-oblivious, 1 thread)", _MATRIX_TORCH, "TIEAWARE_TORCH_PYTHON", "torchmetrics"),
    ):
        python = sys.executable if variable is None else peer_python(variable, module or "")
        got = _in_process(python, code, *args) if python else {"error": "not installed"}
        if "seconds" not in got:
            out.append([name, "-", "-", "-", "-", got.get("error", "")])
        else:
            out.append([name, f"{got['seconds']:.2f}", f"{got['ndcg']:.4f}", f"{got['rr']:.4f}", f"{got['recall']:.4f}", ""])
    shutil.rmtree(tmp, ignore_errors=True)
    return out
