"""Runs and qrels as columns from Parquet, Arrow/Feather files and DataFrames (pandas, polars, pyarrow).

Every form becomes the :class:`~tieaware.io.columns.Table` that the TREC text
reader makes, so :func:`tieaware.io.columns.prepare` and the engines see one
thing whatever the source:

- **columns**: ``qid, docno, score`` (run) and ``qid, docno, label`` (qrels),
  or ir_measures' ``query_id, doc_id, score`` and ``query_id, doc_id,
  relevance``; other columns are ignored, and a table with both names of one
  column is refused (which is meant would be a guess);
- **ids** are text; integer ids become their decimal text (as in
  :mod:`tieaware.io.inputs`);
- **scores** given as numbers (float16/32/64, integers up to 2**53) are kept
  as float64, which holds each of them exactly: **ties are equal given
  values** (a float32 tie stays a tie) and the order is the numbers' order;
  scores given as text or decimals are read as TREC text is, exactly;
- **labels** are read exactly (an integer as itself, a float as its shortest
  decimal, as :func:`tieaware.io.inputs.number` reads it).

Parquet and Arrow files need pyarrow (``pip install tieaware[arrow]``);
pandas DataFrames are read without it (more slowly, through numpy).
:func:`row_groups` reads a Parquet file a row group at a time, for the
streaming evaluation (:mod:`tieaware.runs.stream`).

>>> import pandas as pd
>>> t = table(pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.5, 0.5]}), "run")
>>> t.qid.tolist(), t.docno.tolist(), t.score.tolist()
([b'q1', b'q1'], [b'a', b'b'], [0.5, 0.5])
"""

from __future__ import annotations

import math
import os
from typing import Any, Iterator, Optional

import numpy as np

from tieaware.io.blocks import Table, gather
from tieaware.model.errors import TieawareError, bad

__all__ = ["COLUMNS", "SUFFIXES", "is_columnar_path", "is_frame", "table", "read", "row_groups"]

#: The columns of each kind, in tieaware's (PyTerrier's) names and ir_measures'.
COLUMNS = {
    "run": (("qid", "query_id"), ("docno", "doc_id"), ("score",)),
    "qrels": (("qid", "query_id"), ("docno", "doc_id"), ("label", "relevance")),
}
#: File name endings read as Parquet or Arrow IPC (Feather v2).
SUFFIXES = (".parquet", ".pq", ".arrow", ".feather", ".ipc")
#: Integers above this are not all exact as float64: such score columns are read as text.
_EXACT_INT = 2**53


def is_columnar_path(source: Any) -> bool:
    """True for a path whose name ends as a Parquet or Arrow file does.

    >>> is_columnar_path("run.parquet"), is_columnar_path("run.txt")
    (True, False)
    """
    if not isinstance(source, (str, os.PathLike)):
        return False
    return os.fspath(source).lower().endswith(SUFFIXES)


def is_frame(data: Any) -> bool:
    """True for a pandas or polars DataFrame or a pyarrow Table (recognised without importing them)."""
    kind = type(data).__module__.split(".")[0]
    return kind in ("pandas", "polars", "pyarrow") and hasattr(data, "columns") and hasattr(data, "shape")


def _pyarrow(why: str) -> Any:
    try:
        import pyarrow
    except ImportError:
        raise TieawareError(f"{why} needs pyarrow: pip install 'tieaware[arrow]'") from None
    return pyarrow


def _names(columns: list[str], kind: str, name: str) -> list[str]:
    """The column to read for qid, docno and score/label; one clear error when missing or ambiguous."""
    chosen = []
    for options in COLUMNS[kind]:
        present = [c for c in options if c in columns]
        if not present:
            wanted = [o[0] for o in COLUMNS[kind]]
            other = [o[-1] for o in COLUMNS[kind]]
            raise bad(name, list(columns), f"has no {' or '.join(map(repr, options))} column; a {kind} needs {wanted} (or {other})")
        if len(present) > 1:
            raise bad(name, list(columns), f"has both {present[0]!r} and {present[1]!r} columns; keep one of them")
        chosen.append(present[0])
    return chosen


def read(path: Any, kind: str, *, columns_only: bool = False) -> Table:
    """A Parquet or Arrow/Feather file (by its name's ending) as a :class:`Table` (pyarrow needed)."""
    name = os.fspath(path)
    pa = _pyarrow(f"reading {name}")
    try:
        if name.lower().endswith((".parquet", ".pq")):
            import pyarrow.parquet as pq

            schema = pq.read_schema(name)
            cols = _names(schema.names, kind, name)
            data = pq.read_table(name, columns=cols)
        else:
            import pyarrow.feather as feather

            data = feather.read_table(name)
            cols = _names(data.column_names, kind, name)
            data = data.select(cols)
    except (OSError, pa.ArrowException) as exc:
        raise TieawareError(f"{name}: cannot read it as {'Parquet' if name.endswith(('.parquet', '.pq')) else 'Arrow'}: {exc}") from None
    return _from_arrow(data, cols, kind, name, first_row=1)


def row_groups(path: Any, kind: str) -> Iterator[Table]:
    """A Parquet file one row group at a time, each as a :class:`Table` (line = row number, from 1)."""
    name = os.fspath(path)
    pa = _pyarrow(f"reading {name}")
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(name)
    except (OSError, pa.ArrowException) as exc:
        raise TieawareError(f"{name}: cannot read it as Parquet: {exc}") from None
    cols = _names(f.schema_arrow.names, kind, name)
    row = 1
    for i in range(f.num_row_groups):
        data = f.read_row_group(i, columns=cols)
        yield _from_arrow(data, cols, kind, name, first_row=row)
        row += data.num_rows


def table(data: Any, kind: str, name: Optional[str] = None) -> Table:
    """A DataFrame (pandas, polars) or pyarrow Table as a :class:`Table` of *kind* ("run" or "qrels")."""
    name = name or kind
    module = type(data).__module__.split(".")[0]
    if module == "pyarrow":
        cols = _names(list(data.column_names), kind, name)
        return _from_arrow(data.select(cols), cols, kind, name, first_row=1)
    if module == "polars":
        cols = _names(list(data.columns), kind, name)
        _pyarrow("a polars DataFrame")
        return _from_arrow(data.select(cols).to_arrow(), cols, kind, name, first_row=1)
    cols = _names([str(c) for c in data.columns], kind, name)
    try:
        import pyarrow as pa

        frame = pa.Table.from_pandas(data[cols], preserve_index=False)
    except ImportError:
        return _from_numpy([data[c].to_numpy() for c in cols], cols, kind, name)
    except Exception:  # mixed object columns pyarrow cannot type: numpy's way
        return _from_numpy([data[c].to_numpy() for c in cols], cols, kind, name)
    return _from_arrow(frame, cols, kind, name, first_row=1)


# -- Arrow ------------------------------------------------------------------------


def _from_arrow(data: Any, cols: list[str], kind: str, name: str, first_row: int) -> Table:
    n = data.num_rows
    qid = _arrow_ids(data.column(cols[0]), cols[0], name, first_row)
    docno = _arrow_ids(data.column(cols[1]), cols[1], name, first_row)
    line = np.arange(first_row, first_row + n, dtype=np.int64)
    column = data.column(cols[2])
    if kind == "qrels":
        return Table(kind, name, qid, docno, _labels_text(column, cols[2], name, first_row), line)
    numbers = _arrow_scores(column, cols[2], name, first_row)
    if numbers is None:  # text or decimal scores: read exactly, as TREC text
        text = _arrow_ids(column, cols[2], name, first_row)
        return Table(kind, name, qid, docno, text, line)
    return Table(kind, name, qid, docno, np.zeros(n, dtype="S1"), line, score=numbers)


def _null(column: Any, what: str, name: str, first_row: int) -> None:
    if column.null_count:
        import pyarrow.compute as pc

        at = int(pc.index(pc.is_null(column), True).as_py())
        raise TieawareError(f"{name}: row {first_row + at}: column {what!r} is empty (null)")


def _arrow_ids(column: Any, what: str, name: str, first_row: int) -> np.ndarray:
    """A column of text (or integers, written as decimal text) as a numpy bytes array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    _null(column, what, name, first_row)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_boolean(column.type) or pa.types.is_floating(column.type):
        raise TieawareError(f"{name}: column {what!r} must hold text or integers, got {column.type}")
    if pa.types.is_integer(column.type):
        return decimal_text(column.to_numpy())
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        try:
            column = pc.cast(column, pa.large_string())
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # lists, structs, binary that is not text
            raise TieawareError(f"{name}: column {what!r} must hold text or integers, got {column.type}") from None
    if not isinstance(column, pa.ChunkedArray):
        column = pa.chunked_array([column])
    parts = []
    for chunk in column.chunks:
        if not len(chunk):
            continue
        offsets_type = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        buffers = chunk.buffers()
        offsets = np.frombuffer(buffers[1], dtype=offsets_type)[chunk.offset : chunk.offset + len(chunk) + 1].astype(np.int64)
        data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(1, dtype=np.uint8)
        if not len(data):
            data = np.zeros(1, dtype=np.uint8)
        parts.append(gather(data, offsets[:-1], offsets[1:]))
    if not parts:
        return np.array([], dtype="S1")
    width = max(p.dtype.itemsize for p in parts)
    out = np.concatenate([p.astype(f"S{width}") for p in parts])
    if len(out) and (out == b"").any():
        at = int(np.argmax(out == b""))
        raise TieawareError(f"{name}: row {first_row + at}: column {what!r} is empty")
    return out


def decimal_text(values: np.ndarray) -> np.ndarray:
    """Integers as their decimal text (``str(int)``), a fixed-width bytes array, built digit by digit in numpy.

    Several times faster than pyarrow's cast to text and a gather, or numpy's
    ``astype("S")``, on the integer user and item ids of recommender data.

    >>> decimal_text(np.array([0, 7, -12, 305, -(2**63)])).tolist()
    [b'0', b'7', b'-12', b'305', b'-9223372036854775808']
    >>> decimal_text(np.array([2**64 - 1], dtype=np.uint64)).tolist()
    [b'18446744073709551615']
    """
    if not len(values):
        return np.array([], dtype="S1")
    top, bottom = int(values.max()), int(values.min())
    if top >= 2**63 or bottom <= -(2**63):  # beyond int64's negation: Python's str, rarely needed
        return np.array([str(x).encode() for x in values.tolist()])
    if top - bottom <= 4 * len(values) + 65536:  # ids in a short range (the usual case): a table of every text
        return _digits(np.arange(bottom, top + 1, dtype=np.int64), top, bottom)[values.astype(np.int64) - bottom]
    return _digits(values.astype(np.int64), top, bottom)


def _digits(v: np.ndarray, top: int, bottom: int) -> np.ndarray:
    """:func:`decimal_text` of int64 values between *bottom* and *top*, digit by digit."""
    negative = v < 0
    magnitude = np.abs(v)
    length = np.ones(len(v), dtype=np.int64) + negative
    power = 10
    while power <= max(top, -bottom):  # one more digit for each power of ten reached
        length += magnitude >= power
        power *= 10
    width = int(length.max())
    out = np.zeros((len(v), width), dtype=np.uint8)
    for size in np.flatnonzero(np.bincount(length)).tolist():  # the rows of each text length, right-aligned in their block
        rows = np.flatnonzero(length == size) if size != width or int(length.min()) != width else None
        rest = magnitude if rows is None else magnitude[rows]
        block = np.empty((len(rest), size), dtype=np.uint8)
        for place in range(size):
            quotient = rest // 10
            block[:, size - 1 - place] = rest - quotient * 10 + 48
            rest = quotient
        if rows is None:
            out[:, :] = block
        else:
            out[rows, :size] = block
    if negative.any():
        out[negative, 0] = ord("-")  # a negative text's first place held its (zero) leading digit
    return out.view(f"S{width}").ravel()


def _arrow_scores(column: Any, what: str, name: str, first_row: int) -> Optional[np.ndarray]:
    """Numeric scores as float64 (exact for every float and for integers up to 2**53), else None (read as text)."""
    import pyarrow as pa

    _null(column, what, name, first_row)
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = column.type
    if pa.types.is_floating(kind):
        values = column.to_numpy().astype(np.float64)
    elif pa.types.is_integer(kind):
        values = column.to_numpy()
        if len(values) and int(np.abs(values.astype(np.float64)).max()) >= _EXACT_INT:
            return None
        values = values.astype(np.float64)
    elif pa.types.is_boolean(kind):
        raise TieawareError(f"{name}: column {what!r} must hold numbers, got {kind}")
    else:
        return None
    return _finite(values, what, name, first_row)


def _finite(values: np.ndarray, what: str, name: str, first_row: int) -> np.ndarray:
    bad_rows = ~np.isfinite(values)
    if bad_rows.any():
        at = int(np.argmax(bad_rows))
        raise TieawareError(f"{name}: row {first_row + at}: {what} must be a finite number, got {float(values[at])!r}")
    return values


def _labels_text(column: Any, what: str, name: str, first_row: int) -> np.ndarray:
    """Labels as their exact text: each distinct value converted once."""
    import pyarrow as pa

    _null(column, what, name, first_row)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return _arrow_ids(column, what, name, first_row)
    values = column.to_numpy()
    return _label_texts(values, what, name, first_row)


def _label_texts(values: np.ndarray, what: str, name: str, first_row: int) -> np.ndarray:
    if values.dtype.kind == "b":
        raise TieawareError(f"{name}: column {what!r} must hold numbers, got bool")
    if values.dtype.kind not in "iuf":
        texts = np.array([_label_text(v, what, name, first_row + i) for i, v in enumerate(values.tolist())], dtype="S")
        return texts if len(texts) else np.array([], dtype="S1")
    if values.dtype.kind == "f":
        _finite(values.astype(np.float64), what, name, first_row)
    distinct, inverse = np.unique(values, return_inverse=True)
    scalars = distinct.tolist() if distinct.dtype.kind != "f" or distinct.dtype == np.float64 else list(distinct)
    texts = np.array([_label_text(v, what, name, first_row) for v in scalars] or [b"0"], dtype="S")
    return texts[inverse.reshape(-1)] if len(values) else np.array([], dtype="S1")


def _label_text(value: Any, what: str, name: str, row: int) -> bytes:
    """The exact text of one label (checked as :func:`tieaware.io.inputs.number` checks it)."""
    from tieaware.io.inputs import number

    exact = number(value, f"{name}: row {row}: {what}")
    if exact.denominator == 1:
        return str(exact.numerator).encode()
    if type(value) is float:
        return repr(value).encode()
    return str(value).encode()  # a NumPy float's shortest text at its own precision, a Decimal, a str


# -- numpy (pandas without pyarrow) -----------------------------------------------


def _from_numpy(arrays: list[np.ndarray], cols: list[str], kind: str, name: str) -> Table:
    qid, docno = (_numpy_ids(a, c, name) for a, c in zip(arrays[:2], cols[:2]))
    line = np.arange(1, len(qid) + 1, dtype=np.int64)
    values = arrays[2]
    if kind == "qrels":
        return Table(kind, name, qid, docno, _label_texts(values, cols[2], name, 1), line)
    if values.dtype.kind == "f" or (values.dtype.kind in "iu" and (not len(values) or np.abs(values).max() < _EXACT_INT)):
        numbers = _finite(values.astype(np.float64), cols[2], name, 1)
        return Table(kind, name, qid, docno, np.zeros(len(qid), dtype="S1"), line, score=numbers)
    return Table(kind, name, qid, docno, _numpy_ids(values, cols[2], name), line)


def _numpy_ids(values: np.ndarray, what: str, name: str) -> np.ndarray:
    from tieaware.io.inputs import id_text

    if values.dtype.kind in "iu":
        return decimal_text(values)
    out = [id_text(v, f"{name}: row {i + 1}: {what}").encode("utf-8") for i, v in enumerate(values.tolist())]
    return np.array(out, dtype="S") if out else np.array([], dtype="S1")
