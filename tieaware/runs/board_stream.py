"""The leaderboard of several run files in bounded memory and on every core: the path of ``tieaware compare``.

:func:`compare_systems_files` is :func:`tieaware.runs.leaderboard.compare_prepared`
on run files that are never held whole:

1. every run is partitioned by **one** query hash (a CRC-32 of the query id,
   :func:`tieaware.io.stream.write_partitions`) into the same number of
   temporary files, so partition *k* of every run holds the same queries,
   each query's lines in file order;
2. partition *k* of every run is read, joined to its queries' qrels and
   evaluated together, in *jobs* processes: per system, measure and query
   the expected value and the smallest and largest value over tie-breakings
   (the leaderboard's own per-query columns);
3. those columns (queries × systems × measures values: small) are gathered
   in natural query order, and the leaderboard, the tests, their bounds and
   the flip probabilities are computed from them as for runs held whole.

What the tests ask of a query's rows afterwards is read back from the
partitions when asked: an exact per-query distribution (an enumeration of
a pair's joint outcomes, a handful of queries) and the rows of the queries
whose value varies when tie-breakings are drawn by shuffling (for a
measure with a cutoff only the tie groups that start above it).  The
results are identical (equal Fractions, the same float bits) to the
in-memory path for every partition count and every number of jobs; the
temporary files are removed when done, on an error and on Ctrl-C.

>>> import io
>>> qrels = io.BytesIO(b"q1 0 a 1\\nq2 0 x 1\\nq3 0 m 1\\n")
>>> tied = io.BytesIO(b"q1 Q0 a 1 1 A\\nq1 Q0 b 2 1 A\\nq2 Q0 x 1 1 A\\nq2 Q0 y 2 1 A\\nq3 Q0 m 1 1 A\\nq3 Q0 n 2 1 A\\n")
>>> last = io.BytesIO(b"q1 Q0 b 1 2 B\\nq1 Q0 a 2 1 B\\nq2 Q0 y 1 2 B\\nq2 Q0 x 2 1 B\\nq3 Q0 n 1 2 B\\nq3 Q0 m 2 1 B\\n")
>>> out = compare_systems_files(qrels, {"tied": tied, "last": last}, "P@1", test=None, jobs=1, partitions=2)
>>> [(s.system, s.mean, s.min_mean, s.max_mean) for s in out.standings["P@1"]]
[('tied', Fraction(1, 2), Fraction(0, 1), Fraction(1, 1)), ('last', Fraction(0, 1), Fraction(0, 1), Fraction(0, 1))]
"""

from __future__ import annotations

import os
import pickle
import tempfile
import zlib
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, Optional

import numpy as np

from tieaware.io import stream
from tieaware.io.columns import Prepared, Table, query_numbers, prepare
from tieaware.model.errors import bad
from tieaware.model.names import Measure
from tieaware.model.params import flag
from tieaware.runs import board_columns as bc
from tieaware.runs import board_draws
from tieaware.runs import leaderboard as lb
from tieaware.runs import significance as sig
from tieaware.runs.evaluate import UNJUDGED, MeasureSpec, layer_module, natural_key
from tieaware.runs.stream import QrelsIndex, check_jobs, read_qrels

__all__ = ["compare_systems_files", "PARTITION_ROWS"]

#: Rows of all runs together per partition (the partition count comes from the files' sizes at ~40 bytes a line).
PARTITION_ROWS = stream.PIECE_ROWS


def compare_systems_files(
    qrels: Any,
    runs: Any,
    measures: MeasureSpec,
    *,
    test: Optional[str] = "t",
    alpha: float = lb.ALPHA,
    correction: str = "none",
    baseline: Any = None,
    layer: str = "fast",
    exact: bool = True,
    resamples: int = sig.RESAMPLES,
    seed: int = sig.SEED,
    samples: Optional[int] = None,
    limit: int = sig.ENUMERATION_LIMIT,
    jobs: Optional[int] = None,
    partitions: Optional[int] = None,
    directory: Optional[str] = None,
    progress: bool = False,
    ci: Optional[float] = None,
) -> lb.SystemsComparison:
    """:func:`tieaware.compare_systems` on run files, partitioned by query and evaluated in *jobs* processes.

    *runs*: a sequence of run files (TREC text, ``.gz``/``.bz2``, Parquet,
    Arrow; ``-`` or a stream is copied to a temporary file first), each
    named by its path, or a mapping {name: file}.  *qrels*: a file or a
    :class:`~tieaware.io.columns.Table` already read.  *partitions*: how
    many temporary files per run (None: from the files' sizes, about
    :data:`PARTITION_ROWS` rows of all runs together in each); *directory*:
    where they go (None: the system's temporary directory).  Every other
    argument is :func:`tieaware.compare_systems`'s, and so is the result,
    identical for every *partitions* and *jobs*.

    Beware: a measure without a cutoff whose flip probability is drawn by
    shuffling holds the rows of its varying queries (as compact columns)
    while drawing.
    """
    ms = lb.board_measures(measures)
    exact = flag(exact, "exact")
    layer_module(layer)
    lb.check_options(alpha, correction, test, resamples, seed, samples, limit, ci)
    jobs = check_jobs(jobs)
    if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1):
        raise bad("partitions", partitions, "must be None (from the files' sizes) or an int >= 1")
    named = _named(runs)
    names = tuple(named)
    lb.baseline_names(baseline, names)
    if test is not None or ci is not None:
        sig._scipy()  # fail early, before any work, when scipy is missing
    index = QrelsIndex(qrels if isinstance(qrels, Table) else read_qrels(qrels))
    marks = any(m.name in UNJUDGED for m in ms)
    with ExitStack() as stack:
        sources = [stack.enter_context(stream.spooled(source, "run", directory=directory)) for source in named.values()]
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tieaware-", dir=directory))
        count = partitions if partitions is not None else _count(sources)
        paths = [stream.write_partitions(source, "run", count, tmp, prefix=f"{i}-") for i, source in enumerate(sources)]
        options = dict(measures=ms, exact=exact, layer=layer, marks=marks, keep=test is not None or ci is not None)
        parts = _evaluate(index, paths, options, jobs, progress)
        some: set[str] = set()
        every: set[str] = set()
        for part in parts:
            every.update(part["shared"])
            some.update(part["some"])
        if not every:
            raise bad("runs", sorted(some, key=natural_key)[:5], "share no query that has qrels")
        queries = tuple(sorted(every, key=natural_key))
        skipped = tuple(sorted(some - every, key=natural_key))
        columns = _gather(parts, names, ms, queries, exact)
        rows = {name: _Partitions(index, paths[i], count, marks) for i, name in enumerate(names)}
        if exact:
            for name in names:
                source = _Source(rows[name], queries)
                for column in columns[name].values():
                    column.source = source
        return lb.board(
            columns, rows, ms, queries, skipped, test=test, alpha=alpha, correction=correction, baseline=baseline, exact=exact,
            resamples=resamples, seed=seed, samples=samples, limit=limit, ci=ci,
        )


def _named(runs: Any) -> dict[str, Any]:
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        named = {os.fspath(r) if isinstance(r, (str, os.PathLike)) else f"run_{i + 1}": r for i, r in enumerate(runs)}
        if len(named) < len(runs):
            raise bad("runs", list(map(str, runs)), "must name each run file once")
    else:
        raise bad("runs", runs, "must be a sequence of run files or a mapping {name: run file}")
    if len(named) < 2:
        raise bad("runs", list(named), "must hold at least two runs")
    return named


def _count(sources: Sequence[Any]) -> int:
    """Partitions for about PARTITION_ROWS rows of all runs together in each, from the files' sizes at ~40 bytes
    a line (a compressed or columnar file counted four times its size): small runs make one, read in this process."""
    total = 0
    for source in sources:
        try:
            size = os.path.getsize(source)
        except (TypeError, OSError):  # not a file: as many lines as io.stream's partitions assume of a stream
            size = 16 * PARTITION_ROWS * 40
        if os.fspath(source).lower().endswith((".gz", ".bz2", ".parquet", ".pq")):
            size *= 4
        total += size
    return max(1, min(4096, -(-total // (PARTITION_ROWS * 40))))


# -- one partition of every run, evaluated together (in this process or a worker) ----------------------------

_STATE: dict[str, Any] = {}


def _read(index: QrelsIndex, path: str) -> Optional[Prepared]:
    """A partition file, joined to its queries' qrels (None when the partition is empty)."""
    table = stream.read_partition(path, remove=False)
    if table is None:
        return None
    names, _ = query_numbers(table.qid)
    return prepare(index.subset(names), table, trec_order=False)


def _work(k: int, index: QrelsIndex, paths: Sequence[Sequence[str]], options: dict[str, Any]) -> dict[str, Any]:
    """Partition *k* of every run: the queries every run holds, and each system's columns over them."""
    prepared = [_read(index, files[k]) for files in paths]
    sets = [set(p.qids) if p is not None else set() for p in prepared]
    some = set.union(*sets)
    shared = sorted(set.intersection(*sets), key=natural_key)
    out: dict[str, Any] = dict(shared=shared, some=some, columns=[], floats=[])
    if not shared:
        return out
    ms, exact, layer = options["measures"], options["exact"], options["layer"]
    for i, p in enumerate(prepared):
        columns = bc.system_columns(p, ms, shared, exact=exact, layer=layer, progress=False, label="")
        floats = {}
        varies = np.zeros(len(shared), dtype=bool)
        for key, column in columns.items():
            column.source = None  # a closure over this partition: the gathered column reads its rows back itself
            if exact and layer == "fast" and column.measure is not None and column.measure.name in ("DCG", "nDCG"):
                floats[key] = _engine_floats(p, column.measure, shared)
            if options["keep"]:
                probe = bc.Column(column.expected, column.worst, column.best)
                probe._cache = dict(column._cache)  # the column's own cache stays as _columns left it
                varies |= probe.varies()
        if options["keep"]:
            # the rows of the queries whose value varies, as compact columns: what the tests may read back
            # (a distribution, shuffled tie-breakings), without parsing and joining the partition again
            kept = board_draws.drawn_view(p, _WHOLE, [q for q, v in zip(shared, varies.tolist()) if v])  # type: ignore[arg-type]
            with open(_varying(paths[i][k]), "wb") as f:
                pickle.dump(kept, f, protocol=pickle.HIGHEST_PROTOCOL)
        out["columns"].append(columns)
        out["floats"].append(floats)
    return out


#: What board_draws.drawn_view reads of a measure: no cutoff, so every row of the queries asked is kept.
_WHOLE = SimpleNamespace(k=None, name="")


def _varying(path: str) -> str:
    """The file beside partition *path* holding its varying queries' rows (a pickled Prepared)."""
    return path + ".varying"


def _engine_floats(p: Prepared, m: Measure, shared: Sequence[str]) -> Optional[list[np.ndarray]]:
    """The float engine's values on *p*, its worst and its best orderings, over *shared* (as _columns takes them
    for a column with irrational values: a partition of rational values needs them when another has irrational ones)."""
    from tieaware.runs import engine

    position = {q: i for i, q in enumerate(p.qids)}
    take = [position[q] for q in shared]
    out = []
    for view in (p, bc.extreme_view(p, True), bc.extreme_view(p, False)):
        values = engine.values(view, m)
        if values is None:
            return None
        out.append(np.asarray(values, dtype=np.float64)[take])
    return out


def _worker(k: int) -> dict[str, Any]:
    return _work(k, _STATE["index"], _STATE["paths"], _STATE["options"])


def _init(state: Optional[dict[str, Any]]) -> None:
    if state is not None:
        _STATE.update(state)
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _evaluate(index: QrelsIndex, paths: Sequence[Sequence[str]], options: dict[str, Any], jobs: int, progress: bool) -> list[dict]:
    """Every partition's result, in partition order: in this process (one job or one partition) or in *jobs* workers."""
    count = len(paths[0])
    bar = _bar(count, progress)
    try:
        if jobs == 1 or count == 1:
            out = []
            for k in range(count):
                out.append(_work(k, index, paths, options))
                bar.update()
            return out
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        state = dict(index=index, paths=paths, options=options)
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        _STATE.update(state)  # inherited by forked workers
        try:
            context = multiprocessing.get_context(method)
            with ProcessPoolExecutor(max_workers=min(jobs, count), mp_context=context, initializer=_init,
                                     initargs=(None if method == "fork" else state,)) as pool:
                futures = [pool.submit(_worker, k) for k in range(count)]
                out = []
                for future in futures:
                    out.append(future.result())
                    bar.update()
                return out
        finally:
            _STATE.clear()
    finally:
        bar.close()


def _bar(count: int, show: bool) -> Any:
    import sys

    from tqdm import tqdm

    return tqdm(total=count, desc="partitions", unit="part", file=sys.stderr, disable=None if show else True, leave=False)


# -- gathering -------------------------------------------------------------------------------------------------


def _gather(parts: Sequence[dict], names: Sequence[str], ms: Sequence[Measure], queries: Sequence[str], exact: bool) -> dict[str, dict]:
    """Every system's columns over *queries* (natural order), from the partitions' columns."""
    order_of = {q: i for i, q in enumerate(queries)}
    live = [p for p in parts if p["shared"]]
    where = np.array([order_of[q] for p in live for q in p["shared"]], dtype=np.int64)
    order = np.empty(len(where), dtype=np.int64)
    order[where] = np.arange(len(where), dtype=np.int64)  # gathered position of every query, in *queries*' order
    out: dict[str, dict] = {}
    for s, name in enumerate(names):
        out[name] = {}
        for m in ms:
            key = str(m)
            pieces = [p["columns"][s][key] for p in live]
            lists = [[x for piece in pieces for x in getattr(piece, which)] for which in ("expected", "worst", "best")]
            e, w, b = ([values[i] for i in order.tolist()] for values in lists)
            column = bc.Column(e, w, b, None, pieces[0].measure)
            # floats of irrational values come from the float engine (as _columns gives them) when a partition's do
            if any("floats expected" in piece._cache for piece in pieces):
                chunks = []
                for piece, part in zip(pieces, live):
                    if "floats expected" in piece._cache:
                        chunks.append([piece._cache["floats " + which] for which in ("expected", "worst", "best")])
                    else:
                        chunks.append(part["floats"][s].get(key))
                if all(c is not None for c in chunks):
                    for j, which in enumerate(("expected", "worst", "best")):
                        column._cache["floats " + which] = np.concatenate([c[j] for c in chunks])[order]
            out[name][key] = column
    return out


class _Partitions:
    """One system's partition files, read back when the tests ask for rows (the last one read kept)."""

    def __init__(self, index: QrelsIndex, paths: Sequence[str], count: int, marks: bool) -> None:
        self.index, self.paths, self.count, self.marks = index, list(paths), count, marks
        self.last: tuple[int, Optional[Prepared]] = (-1, None)

    def partition_of(self, qid: str) -> int:
        return zlib.crc32(qid.encode("utf-8")) % self.count

    def read(self, k: int) -> Optional[Prepared]:
        """Partition *k*'s varying queries (every query of the partition when they were not kept apart)."""
        if self.last[0] != k:
            self.last = (-1, None)  # the previous partition is dropped before the next is read
            self.last = (k, self._load(k))
        return self.last[1]

    def _load(self, k: int) -> Optional[Prepared]:
        path = _varying(self.paths[k])
        if not os.path.exists(path):
            return _read(self.index, self.paths[k])
        with open(path, "rb") as f:
            return pickle.load(f)

    def ranking(self, qid: str) -> tuple[list, list]:
        k = self.partition_of(qid)
        p = self.read(k)
        if p is None or qid not in p.qids:  # not among the varying queries kept apart: the partition itself
            p = _read(self.index, self.paths[k])
        assert p is not None
        return bc.query_ranking(p, p.qids.index(qid), self.marks)

    def drawn_view(self, m: Measure, queries: Sequence[str]) -> Prepared:
        """:func:`tieaware.runs.board_draws.drawn_view` of the whole run, built a partition at a time."""
        views = []
        by_partition: dict[int, list[str]] = {}
        for q in queries:
            by_partition.setdefault(self.partition_of(q), []).append(q)
        for k in sorted(by_partition):
            here = by_partition[k]
            p = self._load(k)  # not kept: every partition is read once here
            if p is None or not set(here) <= set(p.qids):  # not among the varying queries kept apart
                p = _read(self.index, self.paths[k])
            assert p is not None
            views.append(board_draws.drawn_view(p, m, here))
        if not views:
            return board_draws.drawn_view(_empty(), m, [])
        return board_draws.drawn_view(_concat(views), m, queries)


class _Source:
    """A gathered column's ``source``: query number (among the compared queries) -> (ranking, ideal), read back."""

    def __init__(self, rows: _Partitions, queries: Sequence[str]) -> None:
        self.rows, self.queries = rows, queries

    def __call__(self, q: int) -> tuple[list, list]:
        return self.rows.ranking(self.queries[q])


def _empty() -> Prepared:
    none = np.zeros(0, dtype=np.int64)
    return Prepared(qids=[], query=none, label=none, label_values=[Fraction(0)], group_start=none, query_start=none,
                    judged_query=none, judged_label=none, trec_order=None, skipped_run=[], skipped_qrels=[])


def _concat(views: Sequence[Prepared]) -> Prepared:
    """Prepared views of disjoint queries one after another, their label numbers mapped onto one sorted table."""
    values = sorted(set().union(*(v.label_values for v in views)))
    number = {x: i for i, x in enumerate(values)}
    maps = [np.array([number[x] for x in v.label_values], dtype=np.int64) for v in views]
    rows = np.cumsum([0] + [v.rows for v in views])
    nqs = np.cumsum([0] + [len(v.qids) for v in views])

    def joined(attr: str, size: Any) -> Optional[np.ndarray]:
        arrays = [getattr(v, attr) for v in views]
        if all(a is None for a in arrays):
            return None
        return np.concatenate([np.zeros(size(v), dtype=bool) if a is None else a for v, a in zip(views, arrays)])

    return Prepared(
        qids=[q for v in views for q in v.qids],
        query=np.concatenate([v.query + nqs[i] for i, v in enumerate(views)]),
        label=np.concatenate([mp[v.label] for mp, v in zip(maps, views)]),
        label_values=values,
        group_start=np.concatenate([v.group_start + rows[i] for i, v in enumerate(views)]),
        query_start=np.concatenate([v.query_start + rows[i] for i, v in enumerate(views)]),
        judged_query=np.concatenate([v.judged_query + nqs[i] for i, v in enumerate(views)]),
        judged_label=np.concatenate([mp[v.judged_label] for mp, v in zip(maps, views)]),
        trec_order=None,
        skipped_run=[],
        skipped_qrels=[],
        judged=joined("judged", lambda v: v.rows),
        negative=joined("negative", lambda v: v.rows),
        judged_negative=joined("judged_negative", lambda v: len(v.judged_label)),
    )
