"""Whole-run evaluation in bounded memory and on every core: the path of ``tieaware eval``.

The qrels are read whole (they are small); the run is read a few whole
queries at a time (:func:`tieaware.io.stream.pieces`), each piece joined to
its queries' qrels, grouped (:func:`tieaware.io.columns.prepare`) and
evaluated (:func:`tieaware.runs.parts.evaluate_part`), then dropped.  With
*jobs* > 1 an uncompressed text file is cut into byte ranges of whole
queries (:func:`tieaware.io.stream.line_ranges`) and each worker process
reads, parses and evaluates its ranges; otherwise (``.gz``, Parquet, a run
held in memory) the pieces are evaluated by that many worker processes while
the main process reads the next ones, at most ``2 × jobs`` in flight, so
memory stays bounded.  :func:`tieaware.runs.parts.combine` then joins the
queries in natural order: results are identical (float bits, equal
Fractions) for any piece size and any number of jobs.

>>> import io
>>> qrels = io.BytesIO(b"q1 0 a 1\\nq2 0 b 1\\nq3 0 c 1\\n")
>>> run = io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 2 r\\nq2 Q0 b 1 1 r\\n")
>>> out = evaluate_files(qrels, run, "P@1", exact=True, jobs=1, rows=1)
>>> out.tied.mean["P@1"], out.tied.skipped_qrels
(Fraction(3, 4), ('q3',))
"""

from __future__ import annotations

import os
from collections import deque
from contextlib import ExitStack
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import numpy as np

from tieaware.io import stream
from tieaware.io.columns import Table, check_duplicates, label_numbers, query_numbers, prepare
from tieaware.model.errors import TieawareError, bad
from tieaware.model.params import flag
from tieaware.runs import evaluate as _whole
from tieaware.runs.evaluate import Evaluation, MeasureSpec, check_arguments, measure_list, natural_key, no_query
from tieaware.runs.parts import Combined, Part, combine, evaluate_part

__all__ = ["evaluate", "compare_runs_files", "default_jobs", "check_jobs", "read_qrels", "QrelsIndex", "evaluate_files", "evaluate_pieces", "gather_ranges", "keep_freed_memory", "ROW_BYTES"]


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    tie_break: Optional[str] = None,
    progress: bool = False,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    jobs: Optional[int] = 1,
) -> Evaluation:
    """``tieaware.evaluate``: :func:`tieaware.runs.evaluate.evaluate`, on *jobs* processes.

    Every argument but *jobs* is :func:`tieaware.runs.evaluate.evaluate`'s
    (dicts, namedtuples, DataFrames, Parquet/Arrow files; *depth* and
    *judged_only* are trec_eval's ``-M`` and ``-J``).  With *jobs* > 1
    (None: every available core) the inputs are read as columns and query
    shards evaluated in that many processes; a Parquet/Arrow run is streamed.
    The results are identical for every *jobs* (docs/scale.md).

    >>> ev = evaluate({"q1": {"a": 1}}, {"q1": {"a": 2.0, "b": 2.0}}, "P@1", jobs=1)
    >>> ev.mean["P@1"]
    Fraction(1, 2)
    """
    jobs = check_jobs(jobs)
    common = dict(layer=layer, exact=exact, tie_break=tie_break, complete=complete)
    if jobs == 1:
        return _whole.evaluate(qrels, run, measures, progress=progress, depth=depth, judged_only=judged_only, **common)  # type: ignore[arg-type]
    depth, judged_only = _whole._options(depth, judged_only)
    ms, exact, complete = check_arguments(measures, layer, exact, tie_break, complete)
    from tieaware.io.parquet import is_columnar_path

    source = run if is_columnar_path(run) else _whole.table_of(run, "run")
    got = evaluate_files(
        _whole.table_of(qrels, "qrels"), source, ms, exact=exact, layer=layer, complete=complete, jobs=jobs, tie_break=tie_break,
        depth=depth, judged_only=judged_only,
    )
    return got.tied


def default_jobs() -> int:
    """The cores this process may use (``os.sched_getaffinity``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs: Optional[int], argument: str = "jobs") -> int:
    """*jobs* as a number of processes: None means :func:`default_jobs`."""
    if jobs is None:
        return default_jobs()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise bad(argument, jobs, "must be an int >= 1 (or None: every available core)")
    return jobs


def read_qrels(source: Any) -> Table:
    """The qrels as a Table: TREC text, Parquet, Arrow, or a DataFrame."""
    from tieaware.io import parquet
    from tieaware.io.columns import read_table

    if parquet.is_columnar_path(source):
        return parquet.read(source, "qrels")
    if parquet.is_frame(source):
        return parquet.table(source, "qrels", "qrels")
    return read_table(source, "qrels")


class QrelsIndex:
    """The qrels, checked once, with each query's rows found by its id."""

    def __init__(self, qrels: Table):
        self.table = qrels
        names, numbers = query_numbers(qrels.qid)
        # checked once here as the in-memory path checks them: a duplicate judgement, a bad label
        check_duplicates(qrels, numbers, "duplicate judgement of docno {docno!r} for query {qid!r}")
        label_numbers(qrels)
        self.names = names
        self.order = np.argsort(numbers, kind="stable")
        self.bounds = np.searchsorted(numbers[self.order], np.arange(len(names) + 1)).tolist()
        self.number = {q: i for i, q in enumerate(names)}

    def subset(self, qids: list[bytes]) -> Table:
        """The qrels rows of *qids* (in file order within a query)."""
        parts = [self.order[self.bounds[i] : self.bounds[i + 1]] for i in (self.number.get(q) for q in qids) if i is not None]
        rows = np.concatenate(parts) if parts else np.array([], dtype=np.int64)
        t = self.table
        return Table(t.kind, t.name, t.qid[rows], t.docno[rows], t.value[rows], t.line[rows])


# -- the work of one piece (in this process or a worker) ---------------------------

_STATE: dict[str, Any] = {}


def _work(piece: Table, index: QrelsIndex, options: dict[str, Any]) -> Part:
    names, _ = query_numbers(piece.qid)
    # one broken order per evaluation: the main values' preset, else the column's (trec=True: trec_eval); trec_eval's
    # order is also where -M and -J find the queries they leave empty, and where its doubles are computed
    broken = options["tie_break"] or ("trec_eval" if options["trec"] is True else options["trec"])
    if not broken and (options.get("doubles") or options.get("depth") is not None or options.get("judged_only", False)):
        broken = "trec_eval"
    prepared = prepare(index.subset(names), piece, trec_order=broken or False)
    return evaluate_part(
        prepared,
        options["measures"],
        exact=options["exact"],
        layer=options["layer"],
        trec=options["trec"],
        spread=options["spread"],
        level=options["level"],
        depth=options.get("depth"),
        judged_only=options.get("judged_only", False),
        tie_break=options["tie_break"],
        doubles=options.get("doubles", ()),
    )


def _worker_work(piece: Table) -> Part:
    return _work(piece, _STATE["index"], _STATE["options"])


def evaluate_pieces(
    index: QrelsIndex,
    pieces: Iterator[Table],
    options: dict[str, Any],
    jobs: int,
) -> list[Part]:
    """Every piece's Part, in this process (jobs=1) or in *jobs* worker processes."""
    first = next(pieces, None)
    if first is None:
        return []
    second = next(pieces, None)
    if second is None or jobs == 1:  # one piece, or one process: no pool
        return [_work(p, index, options) for p in ([first] if second is None else _chain(first, second, pieces))]
    from concurrent.futures import ProcessPoolExecutor

    _STATE["index"], _STATE["options"] = index, options  # inherited by forked workers
    context, method = _context()
    _before_fork()
    parts: list[Part] = []
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init, initargs=(None if method == "fork" else index, options)) as pool:
            flight: deque = deque()
            for piece in _chain(first, second, pieces):
                flight.append(pool.submit(_worker_work, piece))
                while len(flight) >= 2 * jobs:
                    parts.append(flight.popleft().result())
            while flight:
                parts.append(flight.popleft().result())
    finally:
        _STATE.clear()
    return parts


def _init(index: Optional[QrelsIndex], options: dict[str, Any]) -> None:
    if index is not None:
        _STATE["index"] = index
    _STATE["options"] = options
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    keep_freed_memory()


def keep_freed_memory() -> None:
    """In a worker: glibc's malloc keeps freed blocks of up to 32 MB for the next piece instead of unmapping them.

    Every piece allocates the same few dozen arrays of a few MB; mapped
    afresh each time, their pages fault in again (system time: ~1.5 s of a
    10^7-line run, half of it saved).  Nothing happens off glibc.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: blocks below it come from the heap
    mallopt(-1, 256 << 20)  # M_TRIM_THRESHOLD: free heap kept before it is given back
    mallopt(-2, 64 << 20)  # M_TOP_PAD: the heap grows by this much at a time


def _before_fork() -> None:
    """Import what every worker would import for itself (the engines, numpy.ma for np.unique): once, shared by fork."""
    import numpy.ma  # noqa: F401

    from tieaware.runs import engine  # noqa: F401


def _chain(first: Table, second: Table, rest: Iterator[Table]) -> Iterator[Table]:
    yield first
    yield second
    yield from rest


def evaluate_files(
    qrels: Any,
    run: Any,
    measures: MeasureSpec,
    *,
    exact: bool = True,
    layer: str = "fast",
    trec: Union[bool, str] = False,
    spread: bool = False,
    level: Optional[object] = None,
    complete: bool = False,
    jobs: Optional[int] = None,
    rows: int = stream.PIECE_ROWS,
    tie_break: Optional[str] = None,
    depth: Optional[int] = None,
    judged_only: bool = False,
    doubles: Sequence[Any] = (),
) -> Combined:
    """Evaluate the run file *run* against *qrels*, streaming by query (see the module docstring).

    *trec* adds the values in trec_eval's order (or, a preset's name, in that
    preset's: :mod:`tieaware.model.tie_presets`), *spread* each query's worst,
    best and variance, *level* trec_eval's counts at that relevance level;
    ``tie_break="trec_eval"`` makes the main values those in trec_eval's order.
    *qrels* may be a :class:`~tieaware.io.columns.Table` already read, *run* a
    Table held in memory (evaluated by query, in pieces).  *doubles* names measures whose
    per-query doubles as trec_eval computes them are wanted (:attr:`Combined.doubles`).
    """
    ms = measure_list(measures) if measures else ()
    jobs = check_jobs(jobs)
    index = QrelsIndex(qrels if isinstance(qrels, Table) else read_qrels(qrels))
    options = dict(measures=ms, exact=exact, layer=layer, trec=trec, spread=spread, level=level, tie_break=tie_break)
    if depth is not None or judged_only:  # trec_eval's -M and -J, per query: a query's rows stay in one piece
        options.update(depth=depth, judged_only=flag(judged_only, "judged_only"))
    if doubles:
        options.update(doubles=measure_list(list(doubles)))
    if isinstance(run, Table):
        source: Iterator[Table] = stream.by_query(run, rows)
        parts = evaluate_pieces(index, source, options, jobs)
    else:
        # a stream read once (stdin, a pipe) is copied to a temporary file first, a block at a time
        with stream.spooled(run, "run") as path:
            ranged = _evaluate_ranges(index, path, options, jobs, rows) if jobs > 1 and stream.splittable(path) else None
            if isinstance(ranged, list):
                parts = ranged
            elif ranged is _SCATTERED:  # a query in two ranges: partitioned by query, as a scattered run read in pieces is
                parts = evaluate_pieces(index, _partitioned(path, rows), options, jobs)
            else:
                try:
                    parts = evaluate_pieces(index, stream.pieces(path, "run", rows=rows), options, jobs)
                except stream.NotContiguous:
                    parts = evaluate_pieces(index, _partitioned(path, rows), options, jobs)
    seen: set[str] = set()
    run_only: set[str] = set()
    for part in parts:
        seen.update(part.qids)
        run_only.update(part.skipped_run)
    judged = [q.decode("utf-8") for q in index.names]
    skipped_qrels = [q for q in judged if q not in seen]
    if not seen:
        raise no_query(run_only, len(judged))
    return combine(parts, ms, exact=exact, complete=complete, skipped_run=run_only, skipped_qrels=skipped_qrels)


# -- a text file read by the workers, a range of bytes each ---------------------------

#: Bytes a row takes in a text run, about (for the size of a range).
ROW_BYTES = 40
_SCATTERED = object()


def _evaluate_ranges(index: QrelsIndex, run: Any, options: dict[str, Any], jobs: int, rows: int) -> Any:
    """Every query's Part, each worker reading and evaluating ranges of the run file (:func:`tieaware.io.stream.line_ranges`).

    The file is cut into ranges of whole queries (about a piece each, and at
    least two ranges per process); each worker reads, parses and evaluates
    its ranges in pieces of *rows* rows, with line numbers counted from the
    range's start, and hands back the range's Parts and query ids.  A query
    in two ranges (or twice in one) gives ``_SCATTERED``: the caller then
    partitions the run by query.  A bad line is named as the whole file
    names it: the first failing range is read again here, its line numbers
    counted from the file's start.  None when the run is too small to cut.
    """
    total = os.path.getsize(run)
    if total <= rows * ROW_BYTES:
        return None
    ranges = stream.line_ranges(run, max(1, min(rows * ROW_BYTES, -(-total // (2 * jobs)))))
    if len(ranges) < 2:
        return None
    from concurrent.futures import ProcessPoolExecutor

    context, method = _context()
    _STATE["index"], _STATE["options"] = index, options  # inherited by forked workers
    _before_fork()

    def again(k: int) -> None:  # the message's line numbers were the range's own: read it again, counted from the file's start
        start, stop = ranges[k]
        _range_work(run, start, stop, rows, index, options, before=stream.lines_before(run, [start])[0])

    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init, initargs=(None if method == "fork" else index, options)) as pool:
            futures = [pool.submit(_worker_range, run, start, stop, rows) for start, stop in ranges]
            parts = gather_ranges(futures, (stream.NotContiguous,), again)
    finally:
        _STATE.clear()
    return _SCATTERED if parts is None else parts


def gather_ranges(futures: Sequence[Any], scattered: tuple[type[BaseException], ...], again: Callable[[int], Any]) -> Optional[list]:
    """The items of every range's future, in order: each gives (items, the query ids it read); None if scattered.

    None (the futures left are cancelled) when a range raised one of
    *scattered* or two ranges hold the same query: the caller then
    partitions by query.  On a :class:`TieawareError` the futures left are
    cancelled and ``again(k)`` reads range *k* again in this process, so
    that the error it raises names the line as the whole file numbers it.
    ``tieaware eval``'s ranges and two runs read side by side
    (:mod:`tieaware.runs.paired_runs`) gather their workers' results here.
    """
    out: list = []
    seen: set[bytes] = set()
    for k, future in enumerate(futures):
        try:
            got, queries = future.result()
        except scattered:
            got, queries = None, None
        except TieawareError:
            for f in futures[k:]:
                f.cancel()
            again(k)
            raise
        if queries is None or not seen.isdisjoint(queries):
            for f in futures[k:]:
                f.cancel()
            return None
        seen |= queries
        out.extend(got)
    return out


def _range_work(run: Any, start: int, stop: int, rows: int, index: QrelsIndex, options: dict[str, Any], before: int = 0) -> tuple[list[Part], set[bytes]]:
    queries: set[bytes] = set()
    parts = [_work(p, index, options) for p in stream.range_pieces(run, start, stop, "run", rows=rows, before=before, queries=queries)]
    return parts, queries


def _worker_range(run: Any, start: int, stop: int, rows: int) -> tuple[list[Part], set[bytes]]:
    return _range_work(run, start, stop, rows, _STATE["index"], _STATE["options"])


def _context() -> tuple[Any, str]:
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method), method


def _partitioned(run: Any, rows: int) -> Iterator[Table]:
    """The partitions of a run whose queries are not contiguous, each cut into pieces of whole queries."""
    for table in stream.partitioned(run, "run"):
        yield from stream.by_query(table, rows)


# -- compare A B, streamed ----------------------------------------------------------


def compare_runs_files(
    qrels: Any,
    run_a: Any,
    run_b: Any,
    measures: MeasureSpec,
    *,
    layer: str = "fast",
    exact: bool = True,
    max_support: Optional[int] = None,
    jobs: Optional[int] = None,
    rows: Optional[int] = None,
) -> tuple[list[Any], Evaluation, Evaluation]:
    """:func:`~tieaware.runs.comparison.compare_runs_prepared` on two run files streamed by query, in *jobs* processes.

    Each run is evaluated as ``tieaware eval --spread`` evaluates it
    (:func:`tieaware.runs.stream.evaluate_files`: a few whole queries in
    memory at a time, the pieces in *jobs* processes), which gives every
    query's expected value, extremes and variance.  The per-query
    distributions that P(A > B)'s convolution asks for, in natural query
    order and only until it stops, are read back from the files a window
    of queries at a time (64, then twice as many each time).  The results
    are those of ``compare_runs_prepared`` on the whole files; returned
    with each run's :class:`~tieaware.runs.evaluate.Evaluation`.
    """
    from tieaware.runs.comparison import MAX_SUPPORT, UNJUDGED, compare_arguments, compare_measures

    ms, exact, _, max_support = compare_arguments(measures, layer, exact, False, MAX_SUPPORT if max_support is None else max_support)
    index = QrelsIndex(qrels if isinstance(qrels, Table) else read_qrels(qrels))
    with ExitStack() as spools:  # a stream (stdin) is copied to a temporary file: it is read more than once
        runs = [spools.enter_context(stream.spooled(r, "run")) for r in (run_a, run_b)]
        piece_rows = stream.PIECE_ROWS if rows is None else rows
        evaluations = []
        for run in runs:
            try:
                evaluations.append(evaluate_files(index.table, run, ms, exact=exact, layer=layer, spread=True, jobs=jobs, rows=piece_rows).tied)
            except TieawareError as exc:
                if "has no query that appears in the qrels" not in str(exc):
                    raise
                raise bad("runs", [str(run_a), str(run_b)], f"share no query that has qrels ({exc})") from None
        in_b = set(evaluations[1].queries)
        queries = tuple(q for q in evaluations[0].queries if q in in_b)  # both in natural order
        if not queries:
            names = sorted(set(evaluations[0].queries) | set(evaluations[1].queries), key=natural_key)
            raise bad("runs", names[:5], "share no query that has qrels")
        marks = any(m.name in UNJUDGED for m in ms)
        windows = [_Windows(index, run, queries, marks) for run in runs]
        out = compare_measures(
            ms, queries, exact, max_support,
            [lambda q, key, e=e: _stats(e, q, key) for e in evaluations],
            [lambda position, q, w=w: w(position) for w in windows],
        )
        return out, evaluations[0], evaluations[1]


def _stats(evaluation: Any, qid: str, key: str) -> Any:
    from tieaware.runs.comparison import QueryStats

    s = evaluation.per_query_spread[qid][key]
    return QueryStats(evaluation.per_query[qid][key], s.worst, s.best, s.variance)


class _Windows:
    """One query's (ranking, ideal) by its position among *queries*, read from the run file a window at a time."""

    FIRST = 64
    LARGEST = 1 << 14

    def __init__(self, index: Any, run: Any, queries: Sequence[str], marks: bool) -> None:
        from tieaware.runs.comparison import Inputs

        self.make = Inputs
        self.index, self.run, self.queries, self.marks = index, run, queries, marks
        self.start = self.stop = 0
        self.size = self.FIRST
        self.inputs: Any = None
        self.number: dict[str, int] = {}

    def __call__(self, position: int) -> tuple[list, list]:
        if not self.start <= position < self.stop:
            self._load(position)
        return self.inputs(self.number[self.queries[position]])

    def _load(self, position: int) -> None:
        self.inputs = None  # the previous window is dropped before the next is read
        self.start, self.stop = position, min(len(self.queries), position + self.size)
        self.size = min(2 * self.size, self.LARGEST)
        wanted = np.array([q.encode("utf-8") for q in self.queries[self.start : self.stop]])
        kept = [stream._take(t, np.isin(t.qid, wanted)) for t in stream.blocks(self.run, "run")]
        table = stream.concat([t for t in kept if len(t)] or kept[:1])
        prepared = prepare(self.index.subset(wanted.tolist()), table, trec_order=False)
        self.number = {q: i for i, q in enumerate(prepared.qids)}
        self.inputs = self.make(prepared, self.marks)
