"""A run read a few whole queries at a time, in bounded memory, whatever its size.

:func:`pieces` cuts a run (TREC text, ``.gz``/``.bz2``, stdin, Parquet or
Arrow) into :class:`~tieaware.io.columns.Table` pieces of about *rows* rows,
each holding **whole queries**: memory holds one piece and one block being
read, not the run, so a run of 10^8 lines evaluates within a fixed memory
whatever its number of queries.

- **Contiguous queries** (every query's lines together, as TREC tools write
  them) are cut where the query changes, in one pass.
- **Queries that are not contiguous** (a query's lines in several places)
  are found as soon as a query comes back, and the run is then partitioned
  by query into temporary files (:func:`partitioned`), each read back whole:
  a query always lands in one partition, with its lines in file order, so
  every query's rows are the same as in memory.
- **A stream** (stdin, a pipe) cannot be read twice: :func:`spooled` copies
  it to a temporary file a block at a time (bounded memory, its name kept
  for messages), which is then read as a file is.

Line numbers (row numbers for Parquet) are those of the whole file, so an
error names the same line as the in-memory reader.

>>> import io
>>> run = io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 1 r\\nq2 Q0 a 1 1 r\\n")
>>> [(p.qid.tolist(), p.line.tolist()) for p in pieces(run, rows=1)]
[([b'q1', b'q1'], [1, 2]), ([b'q2'], [3])]
"""

from __future__ import annotations

import os
import pickle
import tempfile
import zlib
from contextlib import contextmanager
from typing import IO, Any, Iterator, Optional

import numpy as np

from tieaware.io.blocks import parse_block, read_blocks
from tieaware.io.columns import Table, query_numbers
from tieaware.io.text import Source, not_utf8, open_binary
from tieaware.model.errors import TieawareError, bad

__all__ = ["NotContiguous", "PIECE_ROWS", "pieces", "splittable", "line_ranges", "lines_before", "range_blocks", "range_pieces", "blocks", "partitioned", "concat", "by_query", "Spool", "spooled", "rereadable", "estimated_lines"]

#: Rows per piece: about 50 MB of columns and ~0.2 GB of engine temporaries.
PIECE_ROWS = 1 << 20
#: Rows per temporary partition when the queries are not contiguous.
PARTITION_ROWS = 1 << 22


class NotContiguous(TieawareError):
    """A query's lines are not all together: the run must be partitioned by query first."""


def blocks(source: Source, kind: str = "run") -> Iterator[Table]:
    """The file as a sequence of Tables of consecutive rows (TREC text by blocks, Parquet by row groups)."""
    from tieaware.io import parquet

    if parquet.is_columnar_path(source):
        name = os.fspath(source)  # type: ignore[arg-type]
        if name.lower().endswith((".parquet", ".pq")):
            yield from parquet.row_groups(name, kind)
        else:
            yield parquet.read(name, kind)
        return
    stream, name, close = open_binary(source, f"<{kind}>")
    try:
        for block, before in read_blocks(stream, name):
            qid, docno, value, line = parse_block(block, before, kind, name)
            if len(line):
                yield Table(kind, name, qid, docno, value, line)
    finally:
        if close:
            stream.close()


def concat(tables: list[Table]) -> Table:
    """Tables of one file, one after another, as one Table."""
    if len(tables) == 1:
        return tables[0]
    first = tables[0]
    score = None if first.score is None else np.concatenate([t.score for t in tables])  # type: ignore[misc]
    columns = [np.concatenate([getattr(t, c) for t in tables]) for c in ("qid", "docno", "value", "line")]
    return Table(first.kind, first.name, *columns, score=score)


def _take(table: Table, rows: Any) -> Table:
    score = None if table.score is None else table.score[rows]
    return Table(table.kind, table.name, table.qid[rows], table.docno[rows], table.value[rows], table.line[rows], score=score)


def pieces(source: Source, kind: str = "run", *, rows: int = PIECE_ROWS, contiguous: bool = True) -> Iterator[Table]:
    """Pieces of whole queries, about *rows* rows each, in file order; :class:`NotContiguous` when a query comes back.

    With ``contiguous=False`` the check is skipped and the run is partitioned by query at once.
    """
    if not contiguous:
        yield from partitioned(source, kind)
        return
    yield from _cut(blocks(source, kind), rows, set())


def _cut(tables: Iterator[Table], rows: int, finished: set[bytes]) -> Iterator[Table]:
    """*tables* (consecutive rows) as pieces of whole queries; every query id met is added to *finished*."""
    pending: list[Table] = []
    held = 0
    for table in tables:
        pending.append(table)
        held += len(table)
        if held < rows:
            continue
        whole = concat(pending)
        # the last query may go on in the next block: keep it back
        other = np.flatnonzero(whole.qid != whole.qid[-1])
        cut = int(other[-1]) + 1 if len(other) else 0
        if cut == 0:  # one query longer than a piece: keep reading
            pending, held = [whole], len(whole)
            continue
        head = _take(whole, slice(0, cut))
        _check(head, finished)
        yield head
        rest = _take(whole, slice(cut, None))
        pending, held = [rest], len(rest)
    if held:
        whole = concat(pending)
        _check(whole, finished)
        yield whole


def _check(piece: Table, finished: set[bytes]) -> None:
    """Refuse (NotContiguous) a piece whose queries are split: inside it, or seen in an earlier piece."""
    change = np.flatnonzero(np.append(True, piece.qid[1:] != piece.qid[:-1]))
    heads = piece.qid[change].tolist()
    if len(set(heads)) != len(heads) or not finished.isdisjoint(heads):
        again = next(q for i, q in enumerate(heads) if q in finished or q in heads[:i])
        raise NotContiguous(f"{piece.name}: query {again.decode('utf-8', 'replace')!r} is not contiguous")
    finished.update(heads)


class Spool(os.PathLike):
    """A temporary file holding a copy of a stream; opened by its path, named as the stream (``shown``)."""

    def __init__(self, path: str, shown: str) -> None:
        self.path, self.shown = path, shown

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"Spool({self.shown!r})"


def rereadable(source: Any) -> bool:
    """Can *source* be read twice: a regular file's path (not ``-``, not a pipe), or a :class:`Spool`."""
    if isinstance(source, Spool):
        return True
    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
        return False
    return os.path.isfile(source)


@contextmanager
def spooled(source: Source, kind: str = "run", *, directory: Optional[str] = None) -> Iterator[Any]:
    """*source* itself when it can be read twice, else a :class:`Spool`: the stream copied to a temporary file.

    The copy goes a block of whole lines at a time, so memory stays bounded
    whatever the stream's size, and a line longer than the line reader takes
    stops it at once (``/dev/zero`` fills no disk); the file is deleted when
    the block ends.  Reading the copy gives the rows, line numbers and
    messages (the stream's name, ``<stdin>``) of reading the stream.

    >>> import io
    >>> with spooled(io.BytesIO(b"q1 Q0 a 1 2 r\\n")) as copy:
    ...     [t.qid.tolist() for t in blocks(copy)]
    [[b'q1']]
    """
    if rereadable(source):
        yield source
        return
    stream, name, close = open_binary(source, f"<{kind}>")
    try:
        with tempfile.TemporaryDirectory(prefix="tieaware-", dir=directory) as tmp:
            path = os.path.join(tmp, "stream")
            with open(path, "wb") as out:
                for block, before in read_blocks(stream, name):  # whole lines, each checked for its length
                    _utf8(block, before, name)  # binary noise (/dev/urandom) stops here, not at the disk's end
                    out.write(block)
            if close:
                stream.close()
                close = False
            yield Spool(path, name)
    finally:
        if close:
            stream.close()


def estimated_lines(source: Any, bytes_per_line: int = 40) -> int:
    """About how many lines a regular file holds, from its size and the lines in its first 64 KiB; 0 when it is
    not a regular file (a device or a pipe is not read for this) or its start holds no newline (one long line,
    which the readers refuse).  A compressed or columnar file counts *bytes_per_line* a line."""
    try:
        if not os.path.isfile(source):
            return 0
        size = os.path.getsize(source)
        if str(source).lower().endswith((".gz", ".bz2", ".parquet", ".pq", ".arrow", ".feather", ".ipc")):
            return size // bytes_per_line
        with open(source, "rb") as f:
            head = f.read(1 << 16)
    except (TypeError, OSError, ValueError):
        return 0
    lines = head.count(b"\n")
    return size * lines // len(head) if lines else 0


def _utf8(block: bytes, before: int, name: str) -> None:
    """Refuse a block of whole lines that is not UTF-8 text, naming the line, as the readers would."""
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = block.rfind(b"\n", 0, exc.start) + 1
        raise not_utf8(name, before + block.count(b"\n", 0, exc.start) + 1, exc, exc.start - start) from None


def partitioned(source: Source, kind: str = "run", *, rows: int = PARTITION_ROWS, directory: Optional[str] = None) -> Iterator[Table]:
    """The run partitioned by query into temporary files, then each partition as one Table.

    The number of partitions comes from the file size (about *rows* rows
    each, at ~40 bytes a line; a compressed file is counted four times its
    size); a query always falls in one partition (by a CRC-32 of its id),
    its lines kept in file order.  The files are deleted when done.
    """
    count = partition_count(source, rows)
    with tempfile.TemporaryDirectory(prefix="tieaware-", dir=directory) as tmp:
        for path in write_partitions(source, kind, count, tmp):
            table = read_partition(path)
            if table is not None:
                yield table


def write_partitions(source: Source, kind: str, count: int, directory: str, prefix: str = "") -> list[str]:
    """Write *source*'s rows into *count* files by query (CRC-32 of the qid); their paths, in partition order."""
    paths = [os.path.join(directory, f"{prefix}{i}.part") for i in range(count)]
    files: list[IO[bytes]] = [open(p, "wb") for p in paths]
    try:
        for table in blocks(source, kind):
            names, number = query_numbers(table.qid)
            bucket = np.array([zlib.crc32(n) % count for n in names], dtype=np.int64)[number]
            order = np.argsort(bucket, kind="stable")
            bounds = np.searchsorted(bucket[order], np.arange(count + 1))
            for b in range(count):
                lo, hi = int(bounds[b]), int(bounds[b + 1])
                if hi > lo:
                    pickle.dump(_take(table, order[lo:hi]), files[b], protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        for f in files:
            f.close()
    return paths


def read_partition(path: str, remove: bool = True) -> Optional[Table]:
    """One partition file written by :func:`write_partitions` as a Table (None when empty); the file is removed."""
    tables = []
    with open(path, "rb") as f:
        while True:
            try:
                tables.append(pickle.load(f))
            except EOFError:
                break
    if remove:
        os.remove(path)
    return concat(tables) if tables else None


def partition_count(source: Source, rows: int = PARTITION_ROWS) -> int:
    """How many partitions of about *rows* rows *source* needs, judged from its file size (16 for a stream)."""
    return _partitions(source, rows)


def _partitions(source: Source, rows: int) -> int:
    try:
        size = os.path.getsize(source)  # type: ignore[arg-type]
    except (TypeError, OSError):
        return 16
    name = os.fspath(source).lower()  # type: ignore[arg-type]
    if name.endswith((".gz", ".bz2", ".parquet", ".pq")):
        size *= 4
    return max(1, min(4096, -(-size // (rows * 40))))


def by_query(table: Table, rows: int = PIECE_ROWS) -> Iterator[Table]:
    """A Table held in memory, its rows grouped by query (file order within a query), in pieces of whole queries."""
    if not len(table):
        return
    _, number = query_numbers(table.qid)
    order = np.argsort(number, kind="stable")
    starts = np.searchsorted(number[order], np.arange(int(number.max()) + 2))
    lo = 0
    while lo < len(order):
        hi = int(starts[min(len(starts) - 1, np.searchsorted(starts, lo + rows, side="right") - 1)])
        if hi <= lo:  # one query longer than a piece
            hi = int(starts[np.searchsorted(starts, lo, side="right")])
        yield _take(table, order[lo:hi])
        lo = hi


# -- byte ranges: one text file read by several processes at once -------------------

#: Bytes read at a time while a range's start is moved to the next query.
_ALIGN_CHUNK = 1 << 16


def splittable(source: Any) -> bool:
    """Can *source* be read in byte ranges: a rereadable, uncompressed text file (not stdin, ``.gz``, ``.bz2``, Parquet, Arrow)."""
    if not rereadable(source):
        return False
    from tieaware.io import parquet

    return not (parquet.is_columnar_path(source) or os.fspath(source).lower().endswith((".gz", ".bz2")))


def line_ranges(source: Any, size: int, *, by_query: bool = True) -> list[tuple[int, int]]:
    """Byte ranges ``[start, stop)`` of about *size* bytes covering the text file *source*, each starting a line.

    With *by_query* (the default) each range after the first starts where
    the query id (a line's first column) changes from the line before, so a
    query whose lines are together falls in one range.  A range's start is
    moved forward to the next such line (reading from there a few lines at a
    time, a whole chunk at C speed when all its lines are of one query); a
    start that would pass the next one, or a line longer than a chunk, merges
    two ranges.  The ranges are only where reading is cut: a run whose queries
    are not contiguous still gets ranges, and whoever reads them must check
    that no query id is in two (:func:`range_pieces` collects them).

    Every range is read with :func:`range_blocks` or :func:`range_pieces`,
    by any process; :func:`lines_before` gives the line numbers of their
    starts when a message needs them.  *source* must be :func:`splittable`.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(path, "wb").write(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 1 r\\nq2 Q0 a 1 1 r\\nq3 Q0 a 1 1 r\\n")
    >>> line_ranges(path, 20)
    [(0, 42), (42, 56)]
    >>> line_ranges(path, 20, by_query=False)
    [(0, 28), (28, 42), (42, 56)]
    >>> line_ranges(path, 10**6)
    [(0, 56)]
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise bad("size", size, "must be an int >= 1")
    if not splittable(source):
        raise bad("source", source, "must be an uncompressed text file that can be read twice (not stdin, .gz, .bz2, Parquet)")
    total = os.path.getsize(source)
    starts = [0]
    with open(os.fspath(source), "rb") as f:
        for nominal in range(size, total, size):
            if nominal <= starts[-1]:
                continue
            found = _next_start(f, nominal, total, by_query)
            if found is None or found >= total:
                continue
            if found > starts[-1]:
                starts.append(found)
    return list(zip(starts, starts[1:] + [total]))


def _next_start(f: IO[bytes], position: int, total: int, by_query: bool) -> Optional[int]:
    """The first line start after byte *position* - 1; with *by_query*, the first after it where the query changes.

    None when there is none within reach (a line longer than a chunk, a query of over 4 MB).
    """
    f.seek(position - 1)
    data = f.read(_ALIGN_CHUNK)
    newline = data.find(b"\n")
    if newline < 0:
        return None
    start = position + newline  # the line after the one holding byte position - 1
    if not by_query:
        return start
    query: Optional[bytes] = None
    reach = start + 64 * _ALIGN_CHUNK  # a query longer than this: the ranges merge
    while start < total and start < reach:
        f.seek(start)
        data = f.read(_ALIGN_CHUNK)
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            return None  # a line longer than a chunk
        data = data[:cut]
        if query is not None and _all_of(data, query):
            start += cut
            continue
        lo = 0
        while lo < cut:
            hi = data.index(b"\n", lo) + 1
            columns = data[lo:hi].split(None, 1)
            if columns:
                if query is None:
                    query = columns[0]
                elif columns[0] != query:
                    return start + lo
            lo = hi
        start += cut
    return None


def _all_of(data: bytes, query: bytes) -> bool:
    """Does every line of *data* (whole lines) start with *query* and a space or tab: counted at C speed."""
    lines = data.count(b"\n")
    same = sum(data.count(b"\n" + query + sep, 0, len(data) - 1) for sep in (b" ", b"\t"))
    first = data.startswith((query + b" ", query + b"\t"))
    return same + first == lines


def lines_before(source: Any, offsets: list[int]) -> list[int]:
    """How many lines of *source* end before each byte offset (offsets ascending): one pass at C speed.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(path, "wb").write(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 1 r\\nq2 Q0 a 1 1 r\\n")
    >>> lines_before(path, [0, 14, 42])
    [0, 1, 3]
    """
    out = []
    count = done = 0
    with open(os.fspath(source), "rb") as f:
        for offset in offsets:
            while done < offset:
                data = f.read(min(1 << 24, offset - done))
                if not data:
                    break
                count += data.count(b"\n")
                done += len(data)
            out.append(count)
    return out


class _Window:
    """A file's bytes ``[start, stop)`` as a stream."""

    def __init__(self, f: IO[bytes], start: int, stop: int) -> None:
        f.seek(start)
        self.f, self.left = f, stop - start

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.f.read(n)
        self.left -= len(data)
        return data


def range_blocks(source: Any, start: int, stop: int, kind: str = "run", *, before: int = 0) -> Iterator[Table]:
    """The rows of bytes ``[start, stop)`` of the text file *source* as Tables of consecutive rows (see :func:`blocks`).

    *start* must start a line (:func:`line_ranges`).  Line numbers count from
    *before*, the lines before *start* (:func:`lines_before`; 0 reads them
    relative to the range, which is cheaper and changes nothing but
    messages).  The rows, in order, are those :func:`blocks` reads there.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(path, "wb").write(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 1 r\\nq2 Q0 a 1 1 r\\n")
    >>> [(t.qid.tolist(), t.line.tolist()) for t in range_blocks(path, 28, 42, before=2)]
    [([b'q2'], [3])]
    """
    stream, name, close = open_binary(source, f"<{kind}>")
    try:
        window = _Window(stream, start, stop)
        for block, lines in read_blocks(window, name, start=start == 0):  # type: ignore[arg-type]
            qid, docno, value, line = parse_block(block, before + lines, kind, name)
            if len(line):
                yield Table(kind, name, qid, docno, value, line)
    finally:
        if close:
            stream.close()


def range_pieces(
    source: Any, start: int, stop: int, kind: str = "run", *, rows: int = PIECE_ROWS, before: int = 0, queries: Optional[set[bytes]] = None
) -> Iterator[Table]:
    """Bytes ``[start, stop)`` of *source* in pieces of whole queries (within the range), as :func:`pieces` cuts a file.

    Every query id read is added to *queries* (give a set): a query in two
    ranges is not contiguous, which only the caller, holding every range's
    set, can see.  :class:`NotContiguous` when a query comes back inside the range.
    """
    yield from _cut(range_blocks(source, start, stop, kind, before=before), rows, set() if queries is None else queries)
