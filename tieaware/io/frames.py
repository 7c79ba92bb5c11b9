"""Results as long tables: one row per system, query and measure, PyTerrier's ``name, qid, measure, value``.

The shape ``pt.Experiment(..., perquery=True)`` returns, so a tie-aware
table concatenates with PyTerrier's, pivots into a wide one, and loads into
pandas, polars, a CSV or a Parquet file alike.  ``value`` is a float, each
the exact value rounded once (:func:`tieaware.model.exact.to_float`); with
*exact* the pandas column keeps the exact values (Fractions, sympy values),
and polars and the file writers add an ``exact`` column of their exact text
(:func:`tieaware.model.exact.to_exact_string`; empty for values computed in
float arithmetic).

>>> from fractions import Fraction
>>> rows = long_rows("bm25", ["q1", "q2"], {"q1": {"P@1": Fraction(1, 2)}, "q2": {"P@1": Fraction(1)}}, ["P@1"])
>>> rows
[('bm25', 'q1', 'P@1', Fraction(1, 2)), ('bm25', 'q2', 'P@1', Fraction(1, 1))]
>>> print(to_csv(rows), end="")
name,qid,measure,value,exact
bm25,q1,P@1,0.5,1/2
bm25,q2,P@1,1.0,1/1
"""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable, Mapping, Sequence

from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_exact_string, to_float

__all__ = ["COLUMNS", "Row", "long_rows", "to_pandas", "to_polars", "polars_of", "to_csv", "to_parquet"]

#: PyTerrier's per-query columns (``pt.Experiment(..., perquery=True)``).
COLUMNS = ("name", "qid", "measure", "value")

#: (name, qid, measure, exact value)
Row = tuple[str, str, str, Any]


def long_rows(name: str, queries: Iterable[str], per_query: Mapping[str, Mapping[str, Any]], measures: Sequence[str]) -> list[Row]:
    """One row per query (in the order given) and measure (in the order given)."""
    return [(name, q, m, per_query[q][m]) for q in queries for m in measures]


def _float(value: Any) -> float:
    return value if isinstance(value, float) else to_float(value)


def _text(value: Any) -> Any:
    # a float (float mode) has no exact text: the column stays empty rather than claim one
    return None if isinstance(value, float) else to_exact_string(value)


Columns = Sequence[tuple[str, Sequence[Any]]]


def to_pandas(rows: Sequence[Row], *, exact: bool = False, extra: Columns = ()) -> Any:
    """A pandas DataFrame with :data:`COLUMNS` and *extra* (header, values) columns (``min``, ``max``).

    Values are float64, or with *exact* the exact values (object columns).
    """
    import pandas as pd

    frame = pd.DataFrame({c: [r[i] for r in rows] for i, c in enumerate(COLUMNS[:3])})
    for header, values in (("value", [r[3] for r in rows]), *extra):
        frame[header] = pd.Series(list(values) if exact else [_float(v) for v in values], dtype=object if exact else "float64")
    return frame


def _polars() -> Any:
    try:
        import polars as pl
    except ImportError:
        raise TieawareError("polars output needs polars: pip install polars") from None
    return pl


def polars_of(frame: Any) -> Any:
    """A pandas long table (text and float columns) as a polars DataFrame, column by column (no pyarrow needed)."""
    pl = _polars()
    return pl.DataFrame({c: frame[c].tolist() for c in frame.columns})


def to_polars(rows: Sequence[Row], extra: Columns = ()) -> Any:
    """A polars DataFrame with :data:`COLUMNS` (``value`` Float64), *extra* Float64 columns, and ``exact``, the exact text."""
    pl = _polars()
    data: dict[str, list] = {c: [r[i] for r in rows] for i, c in enumerate(COLUMNS[:3])}
    schema: dict[str, Any] = {c: pl.Utf8 for c in COLUMNS[:3]}
    for header, values in (("value", [r[3] for r in rows]), *extra):
        data[header], schema[header] = [_float(v) for v in values], pl.Float64
    data["exact"], schema["exact"] = [_text(r[3]) for r in rows], pl.Utf8
    return pl.DataFrame(data, schema=schema)


def to_csv(rows: Sequence[Row], extra: Columns = ()) -> str:
    """CSV text: :data:`COLUMNS`, ``exact`` and any *extra* (header, values) columns; floats in full (``repr``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*COLUMNS, "exact", *(h for h, _ in extra)])
    for i, (name, qid, measure, value) in enumerate(rows):
        writer.writerow([name, qid, measure, repr(_float(value)), _text(value) or "", *(_cell(col[i]) for _, col in extra)])
    return out.getvalue()


def _cell(value: Any) -> str:
    return "" if value is None else repr(_float(value))


def to_parquet(rows: Sequence[Row], extra: Columns = ()) -> bytes:
    """A Parquet file's bytes with the columns of :func:`to_csv` (``value`` and *extra* float64); needs pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise TieawareError("Parquet output needs pyarrow: pip install 'tieaware[arrow]'") from None
    columns = {c: pa.array([r[i] for r in rows], pa.string()) for i, c in enumerate(COLUMNS[:3])}
    columns["value"] = pa.array([_float(r[3]) for r in rows], pa.float64())
    columns["exact"] = pa.array([_text(r[3]) for r in rows], pa.string())
    for header, values in extra:
        columns[header] = pa.array([None if v is None else _float(v) for v in values], pa.float64())
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()
