"""The distributed engine: tie-aware evaluation of runs held by Dask (or Spark), partition by partition.

Public as :mod:`tieaware.dask` (``tieaware.dask.evaluate``); dask is imported
only when it is called.  The work of one partition is
:func:`evaluate_partition`, a plain function from pandas DataFrames to a
pandas DataFrame, so the same function serves Dask's ``map_partitions`` and
Spark's ``groupBy("query_id").applyInPandas`` (docs/scale.md):

1. the run is shuffled so that every query lies in one partition (Dask's
   ``shuffle(on=query_id)``);
2. each partition's rows are sorted by (query, document), read as columns
   (:mod:`tieaware.io.parquet`), joined to their queries' qrels, grouped by
   tied score and evaluated through the engines
   (:func:`tieaware.runs.parts.evaluate_part`): one row per query and
   measure comes back;
3. the driver gathers the rows, orders the queries naturally and takes the
   means exactly (Fractions) or correctly rounded (``math.fsum``).

A query's value depends on its own rows only, in a canonical order, so the
results are identical, float bits and Fractions, for any number of
partitions and any order of the input rows (tests/test_scale_dask.py
checks 1, 2 and 7 partitions and shuffled rows on a local cluster).
"""

from __future__ import annotations

import glob
import os
from typing import Any, Optional

import numpy as np

from tieaware.io import parquet
from tieaware.io.columns import Table, query_numbers, prepare
from tieaware.model.errors import TieawareError, bad
from tieaware.model.params import flag
from tieaware.runs.evaluate import Evaluation, MeasureSpec, finish, measure_list, natural_key
from tieaware.runs.parts import evaluate_part
from tieaware.runs.stream import QrelsIndex

__all__ = ["evaluate", "evaluate_partition", "qrels_index", "COLUMNS"]

#: The columns of what :func:`evaluate_partition` returns, one row per (query, measure).
COLUMNS = ["query_id", "measure", "value", "worst", "best", "variance"]
_TREC_RUN = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
_TREC_QRELS = ["query_id", "iteration", "doc_id", "relevance"]


def qrels_index(qrels: Any) -> QrelsIndex:
    """The qrels (a pandas/polars DataFrame, a pyarrow Table, a file) read and checked once, for :func:`evaluate_partition`."""
    if isinstance(qrels, QrelsIndex):
        return qrels
    if isinstance(qrels, Table):
        return QrelsIndex(qrels)
    if parquet.is_frame(qrels):
        return QrelsIndex(parquet.table(qrels, "qrels", "qrels"))
    from tieaware.runs.stream import read_qrels

    return QrelsIndex(read_qrels(qrels))


def evaluate_partition(run: Any, qrels: Any, measures: MeasureSpec, *, exact: bool = False, spread: bool = False) -> Any:
    """One partition's queries (every row of each), evaluated: a pandas DataFrame with :data:`COLUMNS`.

    *run* is a pandas DataFrame with ir_measures' columns (``query_id, doc_id,
    score``) or tieaware's (``qid, docno, score``); every query's rows must all
    be in it.  *qrels* is the whole qrels (a DataFrame, or :func:`qrels_index`
    of it, built once).  A run query without qrels gets one row whose measure
    is ``""``.  Values are floats, or Fractions (object column) with *exact*.

    >>> import pandas as pd
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 2.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> evaluate_partition(run, qrels, "P@1", exact=True)[["query_id", "measure", "value"]]
      query_id measure value
    0       q1     P@1   1/2
    """
    import pandas as pd

    ms = measure_list(measures)
    index = qrels_index(qrels)
    table = parquet.table(_canonical(run), "run", "run partition")
    rows: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    if len(table):
        names, _ = query_numbers(table.qid)
        prepared = prepare(index.subset(names), table, trec_order=False)
        part = evaluate_part(prepared, ms, exact=exact, spread=spread)
        for q in part.qids:
            for m in ms:
                name = str(m)
                stats = part.spread[q][name] if part.spread is not None else None
                _row(rows, q, name, part.tied[q][name], stats)
        for q in part.skipped_run:
            _row(rows, q, "", None, None)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.astype(_dtypes(exact)) if not exact else frame.astype(object)


def _row(rows: dict[str, list[Any]], q: str, name: str, value: Any, stats: Any) -> None:
    rows["query_id"].append(q)
    rows["measure"].append(name)
    rows["value"].append(value if value is not None else np.nan)
    for column in ("worst", "best", "variance"):
        rows[column].append(getattr(stats, column) if stats is not None else np.nan)


def _dtypes(exact: bool) -> dict[str, Any]:
    number = object if exact else np.float64
    return {"query_id": object, "measure": object, "value": number, "worst": number, "best": number, "variance": number}


def _canonical(run: Any) -> Any:
    """The partition's rows sorted by (query, document): the input's row order cannot reach the values."""
    cols = parquet._names([str(c) for c in run.columns], "run", "run partition")
    key = [run[c].astype(str) for c in cols[:2]]
    order = np.lexsort((key[1].to_numpy(), key[0].to_numpy()))
    return run[cols].iloc[order]


# -- the driver ---------------------------------------------------------------------


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasureSpec,
    *,
    exact: bool = False,
    spread: bool = False,
    client: Any = None,
    npartitions: Optional[int] = None,
) -> Evaluation:
    """Evaluate *run* against *qrels* on a Dask cluster; the :class:`Evaluation` of :func:`tieaware.evaluate`.

    *qrels* and *run* are dask DataFrames (ir_measures' columns ``query_id,
    doc_id, relevance`` and ``query_id, doc_id, score``, or tieaware's ``qid,
    docno, label/score``), pandas DataFrames, or paths and globs that dask
    reads (``.parquet`` files or folders, else TREC text).  The qrels are
    gathered to the driver (they are small) and sent once to every worker.

    *client*: a ``distributed.Client`` to run on; by default the current
    client, else a local cluster of one single-threaded worker per core,
    closed afterwards.  *npartitions*: the partitions of the shuffled run
    (default: the run's own).

    Beware: the run is shuffled by query (every query in one partition), which
    moves the whole run over the network once.
    """
    ms = measure_list(measures)
    exact = flag(exact, "exact")
    spread = flag(spread, "spread")
    try:
        import dask.dataframe as dd
        from distributed import Client, LocalCluster, default_client
    except ImportError:
        raise TieawareError("tieaware.dask.evaluate needs dask and distributed: pip install 'tieaware[dask]'") from None
    index = qrels_index(_qrels_frame(qrels, dd))
    frame = _run_frame(run, dd)
    cols = parquet._names([str(c) for c in frame.columns], "run", "run")
    frame = frame[cols]
    own = None
    if client is None:
        try:
            client = default_client()
        except ValueError:
            from tieaware.runs.stream import default_jobs

            cluster = LocalCluster(n_workers=default_jobs(), threads_per_worker=1, processes=True, dashboard_address=None)
            client = own = Client(cluster)
    try:
        shuffled = frame.shuffle(on=cols[0], npartitions=npartitions)
        shared = client.scatter(index, broadcast=True)
        meta = _meta(exact)
        result = shuffled.map_partitions(_partition_task, shared, ms, exact, spread, meta=meta, align_dataframes=False)
        rows = client.compute(result).result()
    finally:
        if own is not None:
            cluster = own.cluster
            own.close()
            cluster.close()
    return _gather(rows, ms, index, exact, spread)


def _partition_task(run: Any, index: QrelsIndex, ms: tuple, exact: bool, spread: bool) -> Any:
    return evaluate_partition(run, index, ms, exact=exact, spread=spread)


def _meta(exact: bool) -> Any:
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _dtypes(exact).items()})


def _gather(rows: Any, ms: tuple, index: QrelsIndex, exact: bool, spread: bool) -> Evaluation:
    from tieaware.runs.comparison import QueryStats, spread as spread_of

    per_query: dict[str, dict[str, Any]] = {}
    stats: dict[str, dict[str, Any]] = {}
    run_only: set[str] = set()
    for q, name, value, worst, best, variance in zip(*(rows[c].tolist() for c in COLUMNS)):
        if name == "":
            run_only.add(q)
            continue
        per_query.setdefault(q, {})[name] = value
        if spread:
            stats.setdefault(q, {})[name] = QueryStats(None, worst, best, variance)
    if not per_query:
        n = len(index.names)
        raise bad("run", sorted(run_only, key=natural_key)[:5], f"has no query that appears in the qrels ({n} judged quer{'y' if n == 1 else 'ies'})")
    queries = tuple(sorted(per_query, key=natural_key))
    names = [str(m) for m in ms]
    ordered = {q: {n: per_query[q][n] for n in names} for q in queries}
    judged = [q.decode("utf-8") for q in index.names]
    skipped_qrels = tuple(sorted((q for q in judged if q not in per_query), key=natural_key))
    skipped_run = tuple(sorted(run_only, key=natural_key))
    ev = finish(ms, queries, ordered, skipped_run, skipped_qrels, exact=exact, complete=False)
    if not spread:
        return ev
    per_query_spread = {q: {n: stats[q][n] for n in names} for q in queries}
    return Evaluation(**{**ev.__dict__, "spread": spread_of(per_query_spread, names, exact=exact), "per_query_spread": per_query_spread})


def _paths(source: Any, argument: str) -> Optional[list[str]]:
    if not isinstance(source, (str, os.PathLike)):
        return None
    pattern = os.fspath(source)
    found = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
    if not found or not all(os.path.exists(p) for p in found):
        raise bad(argument, pattern, "matches no file")
    return found


def _qrels_frame(qrels: Any, dd: Any) -> Any:
    """The qrels on the driver: a pandas DataFrame (or a Table/QrelsIndex already read)."""
    if isinstance(qrels, (QrelsIndex, Table)) or parquet.is_frame(qrels):
        return qrels
    if isinstance(qrels, dd.DataFrame):
        return qrels.compute()
    paths = _paths(qrels, "qrels")
    if paths is None:
        raise bad("qrels", type(qrels).__name__, "must be a dask or pandas DataFrame, or a path or glob")
    if all(p.lower().endswith(parquet.SUFFIXES) or os.path.isdir(p) for p in paths):
        return dd.read_parquet(paths).compute()
    return dd.read_csv(paths, sep=r"\s+", header=None, names=_TREC_QRELS, dtype=str).compute()


def _run_frame(run: Any, dd: Any) -> Any:
    if isinstance(run, dd.DataFrame):
        return run
    if parquet.is_frame(run):
        import pandas as pd

        pandas_frame = run if isinstance(run, pd.DataFrame) else run.to_pandas()
        return dd.from_pandas(pandas_frame, npartitions=1)
    paths = _paths(run, "run")
    if paths is None:
        raise bad("run", type(run).__name__, "must be a dask or pandas DataFrame, or a path or glob")
    if all(p.lower().endswith(parquet.SUFFIXES) or os.path.isdir(p) for p in paths):
        return dd.read_parquet(paths)
    # TREC text: the score is kept as its text, read exactly (as `tieaware eval` reads it)
    return dd.read_csv(paths, sep=r"\s+", header=None, names=_TREC_RUN, dtype=str)

