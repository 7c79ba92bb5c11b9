"""The block parser: TREC run and qrels text cut into columns with numpy, a block of bytes at a time.

The file is read in blocks of whole lines (``.gz`` and ``.bz2`` decompressed
on the fly, ``-`` is stdin; :func:`read_blocks`); a block whose lines are all
well formed (one space or tab between columns, no blank lines) is cut into
columns with numpy, any other goes through a line-by-line reader that gives
the same result or names the bad line (:func:`parse_block`).  The columns are
byte-string arrays (qid, docno, score or label text) with every row's line
number: a :class:`Table`, which :mod:`tieaware.io.columns` joins and groups.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import IO, Optional

import numpy as np

from tieaware.io.text import (
    BOM,
    MAX_LINE_BYTES,
    MAX_NUMBER_CHARS,
    READ_ERRORS,
    Source,
    cannot_read,
    line_too_long,
    not_utf8,
    open_binary,
    shorten,
)
from tieaware.model.errors import TieawareError

__all__ = ["Table", "read_table", "read_blocks", "parse_block", "gather"]

_COLUMNS = {"run": 6, "qrels": 4}
_LAYOUT = {"run": "qid Q0 docno rank score run_id", "qrels": "qid iter docno label"}
_BLOCK = 1 << 24  # bytes per block: bounds the temporary index arrays to ~100 MB


def read_blocks(stream: IO[bytes], name: str, *, start: bool = True):
    """Blocks of whole lines (each ends with a newline), with the number of lines before each.

    A leading byte order mark is dropped (when *stream* is at the file's
    *start*, not in the middle of a file), and a line longer than
    :data:`~tieaware.io.text.MAX_LINE_BYTES` is refused, as the line reader
    of :mod:`tieaware.io.trec` refuses it: memory holds at most one block
    and one unfinished line, whatever the input.
    """
    rest = b""
    lines_before = 0
    first = start
    while True:
        try:
            data = stream.read(_BLOCK)
        except READ_ERRORS as exc:  # a truncated or corrupt .gz, a bad .bz2
            raise cannot_read(name, exc) from None
        if not data:
            break
        if first:
            first = False
            data = data.removeprefix(BOM)
        data = rest + data
        cut = data.rfind(b"\n") + 1
        block, rest = data[:cut], data[cut:]
        lines = block.count(b"\n")
        _check_line_lengths(block, lines_before, name)
        if len(rest) > MAX_LINE_BYTES:  # never hold more of an unfinished line than that
            raise line_too_long(name, lines_before + lines + 1)
        if block:
            yield block, lines_before
        lines_before += lines
    if rest:
        yield rest + b"\n", lines_before


def _check_line_lengths(block: bytes, before: int, name: str) -> None:
    """Refuse the first line of *block* (whole lines) longer than MAX_LINE_BYTES."""
    if len(block) <= MAX_LINE_BYTES:
        return
    # A line longer than MAX_LINE_BYTES (newline-free bytes > 2·half - 2) covers a whole aligned
    # window of *half* bytes: when every such window holds a newline (a few dozen C searches),
    # no line is too long, and the newlines need not be found one by one.
    half = (MAX_LINE_BYTES + 2) // 2
    if all(block.find(b"\n", lo, lo + half) >= 0 for lo in range(0, len(block) - half + 1, half)):
        return
    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
    lengths = np.diff(ends, prepend=-1) - 1
    long = np.flatnonzero(lengths > MAX_LINE_BYTES)
    if len(long):
        raise line_too_long(name, before + int(long[0]) + 1)


@dataclass
class Table:
    """A TREC file as columns: one entry per non-blank line ("row"), in file order."""

    #: "run" or "qrels"
    kind: str
    #: The file name, for messages.
    name: str
    #: qid text of every row (numpy bytes array).
    qid: np.ndarray
    #: docno of every row (numpy bytes array).
    docno: np.ndarray
    #: score (run) or label (qrels) text of every row (numpy bytes array).
    value: np.ndarray
    #: 1-based line number of every row.
    line: np.ndarray
    #: The run's scores as numbers (float64), when they came as numbers (Parquet, Arrow,
    #: DataFrames, matrices) rather than text; *value* is then unused.  Every float16/32/64
    #: converts to float64 exactly, so equal given values tie and the order is kept.
    score: Optional[np.ndarray] = None
    #: A run's id: the sixth column of its last line, as trec_eval reads it for ``runid``
    #: (get_trec_results.c keeps the last line's); None for qrels and for runs not read from text.
    run_id: Optional[str] = None

    def __len__(self) -> int:
        return len(self.line)


def read_table(source: Source, kind: str, *, progress: bool = False) -> Table:
    """Read a run (``kind="run"``) or qrels (``kind="qrels"``) file into a :class:`Table`.

    Only the column layout is checked here; numbers are checked by
    :func:`prepare` (each distinct text once).

    >>> import io
    >>> t = read_table(io.BytesIO(b"q1 0 d1 1\\n\\nq2\\t0\\td2\\t0\\n"), "qrels")
    >>> t.qid.tolist(), t.docno.tolist(), t.value.tolist(), t.line.tolist()
    ([b'q1', b'q2'], [b'd1', b'd2'], [b'1', b'0'], [1, 3])
    """
    stream, name, close = open_binary(source, f"<{kind}>")
    try:
        blocks = read_blocks(stream, name)
        bar = None
        if progress and getattr(sys.stderr, "isatty", lambda: False)():  # tqdm's disable=None shows none off a terminal: not imported
            from tqdm import tqdm

            size = os.path.getsize(name) if close and not name.endswith((".gz", ".bz2")) else None
            # delay=2: a bar only when reading lasts over ~2 s; disable=None: only on a terminal
            bar = tqdm(total=size, desc=f"reading {os.path.basename(name)}", unit="B", unit_scale=True,
                       file=sys.stderr, disable=None, leave=False, delay=2)
        parts = []
        last = b""
        for block, before in blocks:
            parts.append(parse_block(block, before, kind, name))
            if len(parts[-1][3]):
                last = block
            if bar is not None:
                bar.update(len(block))
        if bar is not None:
            bar.close()
    finally:
        if close:
            stream.close()
    parts = [p for p in parts if len(p[3])]
    if not parts:
        empty = np.array([], dtype="S1")
        return Table(kind, name, empty, empty, empty, np.array([], dtype=np.int64))
    cols = [np.concatenate([p[i] for p in parts]) for i in range(4)]
    return Table(kind, name, cols[0], cols[1], cols[2], cols[3], run_id=_run_id(last) if kind == "run" else None)


def _run_id(block: bytes) -> Optional[str]:
    """The sixth column of the block's last non-blank line (trec_eval's runid: the last line's).

    >>> _run_id(b"q1 Q0 a 1 2 runA\\nq1 Q0 b 2 1 runB\\n\\n")
    'runB'
    """
    for line in reversed(block.split(b"\n")):
        columns = line.split()
        if columns:
            return columns[5].decode("utf-8") if len(columns) >= 6 else None
    return None


def parse_block(block: bytes, before: int, kind: str, name: str) -> tuple[np.ndarray, ...]:
    """(qid, docno, value, line) arrays of a block of whole lines: by numpy when it is well formed, else line by line."""
    nul = block.find(b"\0")
    if nul >= 0:  # trec_eval stops reading a field at a NUL (and crashes on some): which text was meant is a guess
        line = before + block.count(b"\n", 0, nul) + 1
        raise TieawareError(f"{name}:{line}: holds a NUL byte (\\0); TREC text has none")
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError as exc:
            start = block.rfind(b"\n", 0, exc.start) + 1
            raise not_utf8(name, before + block.count(b"\n", 0, exc.start) + 1, exc, exc.start - start) from None
    fast = _fast_block(block, before, kind)
    return fast if fast is not None else _slow_block(block, before, kind, name)


def _fast_block(block: bytes, before: int, kind: str) -> Optional[tuple[np.ndarray, ...]]:
    """Columns by numpy when every line is `col SEP col SEP ...` with single separators; else None.

    The bytes at or below the space (separators, newlines, and any other control
    byte, which sends the block to the line reader) are found in one pass:
    none side by side or first (no empty column, no blank line, no
    separator at either end of a line), and ncol of them to a line, the
    last its newline and the others spaces or tabs.
    """
    ncol = _COLUMNS[kind]
    a = np.frombuffer(block, dtype=np.uint8)
    mark = a <= 32
    if not len(a) or mark[0] or (mark[1:] & mark[:-1]).any():
        return None
    marks = np.flatnonzero(mark)
    del mark
    if not len(marks) or len(marks) % ncol:
        return None
    marks = marks.reshape(-1, ncol)
    kinds = a[marks]
    if not (kinds[:, -1] == 10).all() or not ((kinds[:, :-1] == 32) | (kinds[:, :-1] == 9)).all():
        return None  # \r, another control byte, or a line with more or fewer columns
    del kinds
    sep, nl = marks[:, :-1], marks[:, -1]
    lines = len(nl)
    starts = np.empty(lines, dtype=np.int64)
    starts[0] = 0
    starts[1:] = nl[:-1] + 1
    value_col = 4 if kind == "run" else 3
    value_end = sep[:, value_col] if value_col < ncol - 1 else nl
    value_start = sep[:, value_col - 1] + 1
    if int((value_end - value_start).max()) > MAX_NUMBER_CHARS:
        return None  # the line reader names the line
    qid = gather(a, starts, sep[:, 0])
    docno = gather(a, sep[:, 1] + 1, sep[:, 2])
    value = gather(a, value_start, value_end)
    line = np.arange(before + 1, before + lines + 1, dtype=np.int64)
    return qid, docno, value, line


#: _WORD_MASKS[k]: the low k bytes of a little-endian 64-bit word.
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


def gather(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The byte strings a[start[i]:end[i]] as one fixed-width numpy bytes array.

    Strings of at most 8 bytes are read as one little-endian 64-bit word
    each (an unaligned view of *a* at every byte), masked to their length;
    longer ones are one gather of whole rows from a strided view of *a* as
    overlapping windows of *width* bytes (no copy, no rows × width index
    array), then the bytes past each end set to NUL.

    >>> a = np.frombuffer(b"q1 abc\\nq22 d\\n", dtype=np.uint8)
    >>> gather(a, np.array([0, 7]), np.array([2, 10])).tolist()
    [b'q1', b'q22']
    >>> gather(a, np.array([3, 11]), np.array([6, 12])).tolist()  # near the end of the bytes
    [b'abc', b'd']
    """
    length = end - start
    width = max(1, int(length.max())) if len(length) else 1
    if not len(start):
        return np.zeros(0, dtype=f"S{width}")
    reach = 8 if width <= 8 else width
    if int(start.max()) + reach > len(a):  # the last window would run past the end
        a = np.concatenate([a, np.zeros(reach, dtype=np.uint8)])
    if width <= 8:
        a = np.ascontiguousarray(a)
        words = np.ndarray(shape=(len(a) - 7,), dtype="<u8", buffer=a, strides=(1,))[start]
        words &= _WORD_MASKS[length]
        if width == 8:
            return words.view("S8")
        return np.ascontiguousarray(words.view(np.uint8).reshape(-1, 8)[:, :width]).view(f"S{width}").ravel()
    windows = np.lib.stride_tricks.as_strided(a, shape=(len(a) - width + 1, width), strides=(a.strides[0], a.strides[0]), writeable=False)
    out = windows[start]
    if int(length.min()) != width:
        out[np.arange(width)[None, :] >= length[:, None]] = 0
    return out.view(f"S{width}").ravel()


def _slow_block(block: bytes, before: int, kind: str, name: str) -> tuple[np.ndarray, ...]:
    """The line-by-line reader: any whitespace, blank lines; names the first bad line."""
    ncol = _COLUMNS[kind]
    value_col = 4 if kind == "run" else 3
    qids, docnos, values, lines = [], [], [], []
    for i, raw in enumerate(block.split(b"\n")[:-1], start=before + 1):
        columns = raw.split()
        if not columns:
            continue
        if len(columns) != ncol and not (kind == "run" and len(columns) > ncol):  # a run line's text after the run id: skipped
            text = raw.decode("utf-8").strip()
            raise TieawareError(
                f"{name}:{i}: expected {ncol} columns ({_LAYOUT[kind]}), got {len(columns)}: {shorten(text)!r}"
            )
        qids.append(columns[0])
        docnos.append(columns[2])
        values.append(columns[value_col])
        lines.append(i)
    if not lines:
        empty = np.array([], dtype="S1")
        return empty, empty, empty, np.array([], dtype=np.int64)
    return np.array(qids), np.array(docnos), np.array(values), np.array(lines, dtype=np.int64)
