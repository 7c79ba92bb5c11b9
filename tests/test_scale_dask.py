"""tieaware.dask.evaluate on a local cluster (2 workers): partitions and row order change nothing.

Results for 1, 2 and 7 partitions and for shuffled rows are compared with
``tieaware.evaluate`` on the same data in memory: equal float bits and equal
Fractions, means included.  The cluster is started once for the module
(about 5 s); the whole file stays well under a minute.
"""

from __future__ import annotations

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import tieaware  # noqa: E402
import tieaware.dask  # noqa: E402
from tieaware import TieawareError  # noqa: E402

MEASURES = "AP nDCG@10 P@5 RR ERR@10 R@20"


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(26)
    n, d = 60, 40
    run = pd.DataFrame(
        {
            "query_id": np.repeat([f"q{i}" for i in range(n)], d),
            "doc_id": np.tile([f"d{j}" for j in range(d)], n),
            "score": rng.integers(0, 6, n * d) / 4,  # heavy ties
        }
    )
    judged = run.sample(frac=0.15, random_state=1)[["query_id", "doc_id"]]
    qrels = judged.assign(relevance=rng.integers(0, 3, len(judged)))
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["qx"], "doc_id": ["d1"], "relevance": [1]})])  # not in the run
    run = pd.concat([run, pd.DataFrame({"query_id": ["qy"], "doc_id": ["d1"], "score": [1.0]})])  # no qrels
    return qrels, run


def _same(got, want):
    assert got.queries == want.queries and got.per_query == want.per_query and got.mean == want.mean
    assert got.skipped_run == want.skipped_run and got.skipped_qrels == want.skipped_qrels


@pytest.mark.parametrize("exact", [False, True])
def test_partitions_and_shuffled_rows_change_nothing(client, data, exact):
    qrels, run = data
    want = tieaware.evaluate(qrels, run, MEASURES, exact=exact)
    for parts in (1, 2, 7):
        _same(tieaware.dask.evaluate(qrels, dd.from_pandas(run, npartitions=parts), MEASURES, exact=exact, client=client), want)
    shuffled = dd.from_pandas(run.sample(frac=1.0, random_state=5), npartitions=3)
    _same(tieaware.dask.evaluate(dd.from_pandas(qrels, npartitions=2), shuffled, MEASURES, exact=exact, client=client), want)


def test_spread_and_to_pandas(client, data):
    qrels, run = data
    ms = "AP P@5"
    ev = tieaware.dask.evaluate(qrels, dd.from_pandas(run, npartitions=3), ms, exact=True, spread=True, client=client)
    spread = tieaware.evaluate_spread(qrels, run, ms)
    assert ev.spread == spread
    frame = ev.to_pandas()
    assert list(frame.index) == list(ev.queries) and "AP worst" in frame.columns


def test_paths_and_globs(client, data, tmp_path):
    pytest.importorskip("pyarrow")
    qrels, run = data
    for i, lo in enumerate(range(0, len(run), 1000)):
        run.iloc[lo : lo + 1000].to_parquet(tmp_path / f"run-{i}.parquet")
    lines = [f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)]
    (tmp_path / "qrels.txt").write_text("".join(lines))
    got = tieaware.dask.evaluate(tmp_path / "qrels.txt", str(tmp_path / "run-*.parquet"), MEASURES, client=client)
    _same(got, tieaware.evaluate(qrels, run, MEASURES, exact=False))


def test_partition_function_alone(data):
    # what Spark's applyInPandas calls: whole queries in, one row per (query, measure) out
    qrels, run = data
    index = tieaware.dask.qrels_index(qrels)
    rows = tieaware.dask.evaluate_partition(run[run.query_id.isin(["q3", "q7", "qy"])], index, "AP P@5")
    want = tieaware.evaluate(qrels, run, "AP P@5", exact=False)
    got = {(q, m): v for q, m, v in rows[["query_id", "measure", "value"]].itertuples(index=False)}
    assert got[("q3", "AP")] == want.per_query["q3"]["AP"] and got[("q7", "P@5")] == want.per_query["q7"]["P@5"]
    assert ("qy", "") in got  # a run query without qrels


def test_bad_input(client, data):
    qrels, run = data
    with pytest.raises(TieawareError, match="has no 'score' column"):
        tieaware.dask.evaluate(qrels, dd.from_pandas(run.drop(columns=["score"]), npartitions=2), "AP", client=client)
    with pytest.raises(TieawareError, match="^run matches no file"):
        tieaware.dask.evaluate(qrels, "/nonexistent/*.parquet", "AP", client=client)
