"""Two runs read side by side: the same queries of run A and run B, paired, in bounded memory and on every core.

:func:`paired_files` hands *work* the two runs' {qid: tie groups of docnos,
best first} a partition at a time; ``tieaware rbo`` (through
:func:`tieaware.runs.rbo_engine.rbo_files`) and ``tieaware corr RUN_A RUN_B``
read their runs through it.  Runs that list the same queries in the same
order are read in pieces of whole queries without temporary files (byte
ranges of both files per process with several jobs, :func:`aligned` pieces
in one); others are partitioned by query into temporary files first
(:mod:`tieaware.io.stream`).  The rows are the same for every route and
every number of jobs.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

from tieaware.runs.stream import ROW_BYTES, check_jobs, gather_ranges, keep_freed_memory

__all__ = ["paired_files", "reuse_freed_memory", "aligned", "paired_pieces", "NotAligned", "truncate"]


def truncate(groups: list[list[str]], depth: int) -> list[list[str]]:
    """The tie groups that start at or above rank *depth*, each kept whole.

    >>> truncate([["a"], ["b", "c", "d"], ["e"]], 2)
    [['a'], ['b', 'c', 'd']]
    """
    kept, top = [], 1
    for group in groups:
        if top > depth:
            break
        kept.append(group)
        top += len(group)
    return kept


def paired_files(
    a: Any,
    b: Any,
    work: Callable[[dict, dict, tuple], list],
    depth: Optional[int],
    settings: tuple,
    jobs: Optional[int],
    array_work: Optional[Callable[[Any, Any, Optional[int], tuple], Optional[tuple[list, int, int]]]] = None,
) -> tuple[list, int, int]:
    """(``work``'s rows of the shared queries, queries only in A, queries only in B).

    Both runs are read as columns (tieaware.io.columns), not line by line.
    Runs that list the same queries in the same order are read side by side
    in pieces of whole queries, without temporary files: with --jobs N >= 2
    (the default: every core) each process reads and compares byte ranges
    of both files holding the same queries (:func:`_ranged`), with --jobs 1
    one process reads them in turn (:func:`aligned`).  Other runs large
    enough are first partitioned by query into temporary files
    (tieaware.io.stream), so memory holds one partition of each at a time,
    and the partitions are compared in --jobs processes.  *work* (a
    module-level function, sent to the workers by name) gets the two runs'
    {qid: tie groups of docnos, best first, cut at *depth*} of one partition
    and *settings*; ``tieaware rbo`` and ``tieaware corr RUN_A RUN_B`` share this.
    *array_work*, when given, gets the two Tables of a partition, *depth* and
    *settings*, and gives every shared query's rows at once (with the counts
    of queries only in A and only in B), or None to leave them to *work*.
    """
    from tieaware.io import stream

    # partitions of about a million rows: their arrays (tens of MB) are reused from the heap, not mapped afresh each time
    count = max(stream.partition_count(a, stream.PIECE_ROWS), stream.partition_count(b, stream.PIECE_ROWS)) if all(_is_path(x) for x in (a, b)) else 1
    options = (work, array_work, depth, settings)
    if count == 1:
        return _compare_tables(stream.concat(list(stream.blocks(a)) or [_empty(a)]), stream.concat(list(stream.blocks(b)) or [_empty(b)]), options)
    import tempfile

    side_by_side = jobs is None or jobs == 1
    jobs = check_jobs(jobs)
    if jobs > 1 and stream.splittable(a) and stream.splittable(b):  # each process reads ranges of both files
        ranged = _ranged(a, b, options, jobs)
        if ranged is not None:
            return ranged, 0, 0
        side_by_side = False  # not the same queries in the same order: partitions
    if side_by_side:  # runs listing the same queries in the same order are read side by side, in one process
        try:
            results = [_compare_tables(piece_a, piece_b, options) for piece_a, piece_b in aligned(a, b)]
            return [row for got in results for row in got[0]], 0, 0
        except (NotAligned, stream.NotContiguous):
            pass  # else partition both by query (what was compared so far is dropped)
    # Side by side in one process beat the partitions in two on the loaded 2-core machine (docs/benchmarks.md);
    # pieces sent to other processes through pipes cost more than the partition files.
    with tempfile.TemporaryDirectory(prefix="tieaware-rbo-") as tmp:
        if jobs == 1:
            pairs = list(zip(stream.write_partitions(a, "run", count, tmp, "a"), stream.write_partitions(b, "run", count, tmp, "b")))
            results = [_compare_partition(pair, options) for pair in pairs]
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method)) as pool:
                # both runs are read and partitioned at once; A's error, if any, is the one raised, as with --jobs 1
                written = [pool.submit(stream.write_partitions, source, "run", count, tmp, prefix) for source, prefix in ((a, "a"), (b, "b"))]
                pairs = list(zip(*(w.result() for w in written)))
                results = list(pool.map(_compare_partition, pairs, [options] * len(pairs)))
    rows = [row for got in results for row in got[0]]
    return rows, sum(got[1] for got in results), sum(got[2] for got in results)


def reuse_freed_memory(*sources: Any) -> None:
    """For runs of more than a piece, ask glibc's malloc to keep freed memory for the next piece.

    Each piece allocates the same arrays of megabytes again; by default glibc
    maps every one afresh and returns it when freed, so the kernel faults in
    and zeroes every page again and again (two runs of 10^7 lines, --float
    --jobs 1: half the minor page faults, about a quarter of the CPU time).
    The setting is eval's workers' (tieaware.runs.stream); forked workers
    inherit it.  Peak memory stays that of one piece.  Nothing changes for
    runs of less than about a million lines, or off glibc.
    """
    if any(_is_path(x) and os.path.isfile(x) and os.path.getsize(x) > ROW_BYTES << 20 for x in sources):
        keep_freed_memory()


class NotAligned(Exception):
    """The two runs do not hold the same queries in the same order."""


def aligned(a: Any, b: Any) -> Any:
    """Pairs of Tables (A's rows, B's rows) of the same whole queries, about a million rows each, in file order.

    Raises :class:`NotAligned` (or NotContiguous) as soon as the runs' queries differ, come in another order, or
    come back; the caller then partitions both runs instead.
    """
    from tieaware.io import stream

    rows = stream.PIECE_ROWS
    return paired_pieces(stream.pieces(a, "run", rows=rows), stream.pieces(b, "run", rows=rows))


def paired_pieces(pieces_a: Any, pieces_b: Any) -> Any:
    """:func:`aligned`'s pairs from A's and B's pieces of whole queries."""
    import numpy as np

    from tieaware.io import stream

    def heads(table: Any) -> tuple[list[bytes], np.ndarray]:
        starts = np.flatnonzero(np.append(True, table.qid[1:] != table.qid[:-1]))
        return table.qid[starts].tolist(), starts

    rest_b = iter(pieces_b)
    held: Optional[Any] = None  # B's rows read but not yet paired
    for piece_a in pieces_a:
        queries, _ = heads(piece_a)
        while held is None or len(heads(held)[0]) < len(queries):
            more = next(rest_b, None)
            if more is None:
                raise NotAligned
            held = more if held is None else stream.concat([held, more])
        names, starts = heads(held)
        if names[: len(queries)] != queries:
            raise NotAligned
        cut = int(starts[len(queries)]) if len(names) > len(queries) else len(held)
        yield piece_a, stream._take(held, slice(0, cut))
        held = stream._take(held, slice(cut, None)) if cut < len(held) else None
    if held is not None or next(rest_b, None) is not None:
        raise NotAligned


#: How far before its place in proportion to A a query is looked for in B first.
_SLACK = 1 << 20


def _ranged(a: Any, b: Any, options: tuple, jobs: int) -> Optional[list]:
    """The rows of two runs listing the same queries in the same order, each of *jobs* processes reading ranges of both files.

    A is cut into byte ranges of whole queries (tieaware.io.stream.line_ranges,
    about a piece each and at least two per process); B's range for each
    starts where B's lines of the range's first query start.  Each worker
    reads its two ranges in pieces, pairs them as :func:`aligned` does and
    compares them, handing back its rows and A's query ids.  None when the
    runs do not list the same queries in the same order (a range's queries
    differ, or a query is in two ranges): the caller partitions them.  A bad
    line is named as the whole file names it: the first failing range is
    read again here, its line numbers counted from the file's start.
    """
    from tieaware.io import stream

    total_a, total_b = os.path.getsize(a), os.path.getsize(b)
    rows = stream.PIECE_ROWS // jobs  # each process holds a range of both runs at a time: together about one piece
    if not total_b:
        return None
    ranges_a = stream.line_ranges(a, max(1, min(rows * ROW_BYTES, -(-total_a // (2 * jobs)))))
    if len(ranges_a) < 2:
        return None
    starts_b = _starts_in(b, a, [start for start, _ in ranges_a[1:]], total_a, total_b)
    if starts_b is None:
        return None
    ranges_b = list(zip([0] + starts_b, starts_b + [total_b]))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    def again(k: int) -> None:  # the message's line numbers were the ranges' own: read them again, counted from the files' starts
        before = (stream.lines_before(a, [ranges_a[k][0]])[0], stream.lines_before(b, [ranges_b[k][0]])[0])
        _range_pair(a, b, ranges_a[k], ranges_b[k], options, before)

    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method)) as pool:
        futures = [pool.submit(_range_pair, a, b, span_a, span_b, options) for span_a, span_b in zip(ranges_a, ranges_b)]
        return gather_ranges(futures, (NotAligned, stream.NotContiguous), again)


def _starts_in(b: Any, a: Any, starts_a: list[int], total_a: int, total_b: int) -> Optional[list[int]]:
    """Where B's lines of the query starting A's line at each of *starts_a* start (None when one is not found).

    Each is looked for from a little before its place in proportion to A; if
    the line found there continues a query, from the last start found on.
    Only where B is cut: the workers check that each range of B holds the
    queries of A's range.
    """
    import mmap

    with open(os.fspath(a), "rb") as f:
        qids = []
        for start in starts_a:
            f.seek(start)
            first = f.readline().split(None, 1)
            if not first:
                return None
            qids.append(first[0])
    with open(os.fspath(b), "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        found = [0]
        for qid, start in zip(qids, starts_a):
            guess = max(found[-1], start * total_b // total_a - _SLACK)
            at = _line_of(data, qid, guess)
            if at is None or _continues(data, at, qid):
                at = _line_of(data, qid, found[-1])
            if at is None or at <= found[-1]:
                return None
            found.append(at)
    return found[1:]


def _line_of(data: Any, qid: bytes, start: int) -> Optional[int]:
    """The first line at or after byte *start* (past its first byte) whose first column is *qid*."""
    start = max(start - 1, 0)
    space = data.find(b"\n" + qid + b" ", start)
    tab = data.find(b"\n" + qid + b"\t", start, space if space >= 0 else len(data))  # only up to the space's line
    hits = [h for h in (space, tab) if h >= 0]
    return min(hits) + 1 if hits else None


def _continues(data: Any, at: int, qid: bytes) -> bool:
    """Is the line before the one at *at* one of *qid* (or blank): then *at* may not start the query's lines."""
    previous = data[data.rfind(b"\n", 0, at - 1) + 1 : at].split(None, 1)
    return not previous or previous[0] == qid


def _range_pair(a: Any, b: Any, span_a: tuple[int, int], span_b: tuple[int, int], options: tuple, before: tuple[int, int] = (0, 0)) -> tuple[list, set[bytes]]:
    """(rows, A's query ids) of A's bytes *span_a* and B's *span_b*, read in pieces and paired (:func:`paired_pieces`)."""
    from tieaware.io import stream

    queries: set[bytes] = set()
    pieces_a = stream.range_pieces(a, *span_a, "run", before=before[0], queries=queries)
    pieces_b = stream.range_pieces(b, *span_b, "run", before=before[1])
    rows = [row for piece_a, piece_b in paired_pieces(pieces_a, pieces_b) for row in _compare_tables(piece_a, piece_b, options)[0]]
    return rows, queries


def _compare_partition(pair: tuple[str, str], options: tuple) -> tuple[list, int, int]:
    from tieaware.io import stream

    tables = [stream.read_partition(path) for path in pair]
    if tables[0] is None or tables[1] is None:
        return [], len(_qids(tables[0])), len(_qids(tables[1]))
    return _compare_tables(tables[0], tables[1], options)


def _qids(table: Any) -> set:
    return set() if table is None else set(table.qid.tolist())


def _compare_tables(a: Any, b: Any, options: tuple) -> tuple[list, int, int]:
    from tieaware.io.columns import rank_rows

    work, array_work, depth, settings = options
    if array_work is not None:
        got = array_work(a, b, depth, settings)
        if got is not None:
            return got  # else (e.g. two docnos of one run share a 64-bit key): query by query
    ranked_a, ranked_b = _rankings(a, rank_rows(a), depth), _rankings(b, rank_rows(b), depth)
    rows = work(ranked_a, ranked_b, settings)
    return rows, len(ranked_a.keys() - ranked_b.keys()), len(ranked_b.keys() - ranked_a.keys())


def _rankings(table: Any, ranked: tuple, depth: Optional[int]) -> dict[str, list[tuple[str, ...]]]:
    """{qid: tie groups of docnos, best first}, each cut at --depth (whole groups)."""
    import numpy as np

    qids, order, query_start, group_start = ranked
    docnos = [d.decode("utf-8") for d in table.docno[order].tolist()]
    ends = np.append(group_start[1:], len(order)).tolist()
    starts = group_start.tolist()
    query_end = np.append(query_start[1:], len(order)).tolist()
    out: dict[str, list[tuple[str, ...]]] = {}
    g = 0
    for qid, lo, hi in zip(qids, query_start.tolist(), query_end):
        groups: list[tuple[str, ...]] = []
        while g < len(starts) and starts[g] < hi:
            groups.append(tuple(docnos[starts[g] : ends[g]]))
            g += 1
        out[qid] = truncate(groups, depth) if depth is not None else groups  # type: ignore[arg-type]
    return out


def _is_path(source: Any) -> bool:
    import os

    return isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-"


def _empty(name: Any) -> Any:
    import numpy as np

    from tieaware.io.columns import Table

    empty = np.array([], dtype="S1")
    return Table("run", str(name), empty, empty, empty, np.array([], dtype=np.int64))
