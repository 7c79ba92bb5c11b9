"""A batch of score rows, checked and converted once: scores, labels, mask and judged grades in one array library.

:func:`batch` reads what :mod:`tieaware.metrics`' functions take:

- *scores* ``[B, N]``: a float16, bfloat16, float32 or float64 array (integers
  are read exactly up to 2**53) of numpy or of any library the array API
  standard reaches (torch, CuPy, JAX, array-api-strict).  A tie is exact
  equality in the given dtype: float16 and bfloat16 widen to float32, which
  holds each of their values exactly, so equal values stay equal and
  different ones keep their order.
- *labels*: a ``[B, N]`` array of grades (bool, int or float, >= 0), or the
  relevant column indices per row: a list of B sets or sequences (a list of
  lists shaped like *scores* is read as grades, as
  :func:`tieaware.evaluate_matrix` reads it), or a ``[B, M]`` integer array
  padded with negative numbers.
- *mask* ``[B, N]`` (optional): False where a row is padded; those cells are
  not in the ranking.
- *judged* ``[B, M]`` (optional): every judged grade of each row's query,
  padded with 0, for the ideal DCG and the number of relevant documents when
  the row holds only some of the query's judged documents.

Everything stays in the scores' library and on their device; a numpy batch
is computed with numpy.  Bad input raises one :class:`TieawareError` naming
the argument, the row and the value.
"""

from __future__ import annotations

import numbers
from collections.abc import Set
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from tieaware.model.errors import TieawareError, shown

__all__ = ["Batch", "batch", "namespace"]

_EXACT_INT = 2**53


@dataclass
class Batch:
    """Checked rows: *scores* widened (-inf where masked), *labels* (0 where masked), *valid* the mask (None: no mask)."""

    xp: Any  # the array namespace (array_api_compat's numpy for numpy arrays)
    numpy: bool  # numpy arrays: the selection may use numpy's partition
    scores: Any
    labels: Any
    valid: Optional[Any]
    judged: Optional[Any]  # [B, M] float64 grades, or None: the row's own labels are the judged ones

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.scores.shape)  # type: ignore[return-value]


def namespace(x: Any) -> tuple[Any, bool]:
    """(array namespace, whether it is numpy) of an array; plain Python data is read by numpy."""
    import array_api_compat

    if isinstance(x, np.ndarray) or not _is_array(x):
        import array_api_compat.numpy as npx

        return npx, True
    return array_api_compat.array_namespace(x), False


def _is_array(x: Any) -> bool:
    from tieaware.fast.arith import of, ArrayAPI

    return isinstance(x, np.ndarray) or isinstance(of(x), ArrayAPI)


def _error(argument: str, problem: str, value: Any = None, row: Optional[int] = None, column: Optional[int] = None) -> TieawareError:
    where = "" if row is None else f" (row {row}" + ("" if column is None else f", column {column}") + ")"
    got = "" if value is None else f", got {shown(value)}"
    return TieawareError(f"{argument} {problem}{where}{got}")


def _first_bad(xp: Any, bad_cells: Any) -> Optional[tuple[int, int]]:
    """(row, column) of the first True cell of a 2-D boolean array, or None."""
    if not bool(xp.any(bad_cells)):
        return None
    flat = xp.reshape(xp.astype(bad_cells, xp.int8), (-1,))
    i = int(xp.argmax(flat))
    width = bad_cells.shape[1]
    return i // width, i % width


def _item(x: Any, row: int, column: int) -> Any:
    value = x[row, column]
    try:
        return value.item()
    except AttributeError:
        return float(value)


def _kind(xp: Any, dtype: Any) -> str:
    """'bool', 'int', 'float', 'bfloat16' or 'other' for a dtype of namespace *xp*."""
    if dtype == xp.bool:
        return "bool"
    if "bfloat16" in str(dtype):
        return "bfloat16"
    if xp.isdtype(dtype, "real floating"):
        return "float"
    if xp.isdtype(dtype, "integral"):
        return "int"
    return "other"


def _scores(x: Any, xp: Any, is_numpy: bool) -> Any:
    if is_numpy:
        try:
            x = np.asarray(x)
        except Exception:
            raise _error("scores", "must be a 2-D array of numbers (queries × candidates)", type(x).__name__) from None
    shape = tuple(x.shape)
    if len(shape) != 2:
        raise TieawareError(f"scores must be a 2-D array (queries × candidates), got shape {shape}")
    if shape[0] == 0 or shape[1] == 0:
        raise TieawareError(f"scores must have at least one row and one column, got shape {shape}")
    kind = _kind(xp, x.dtype)
    if kind == "bfloat16" or (kind == "float" and x.dtype == getattr(xp, "float16", None)):
        return xp.astype(x, xp.float32)  # exact: every float16 and bfloat16 value is a float32
    if kind == "float":
        if x.dtype not in (xp.float32, xp.float64):
            x = xp.astype(x, xp.float64)  # longdouble: read as float64 (ties beyond float64 are not kept)
        return x
    if kind == "int":
        big = xp.abs(xp.astype(x, xp.float64)) >= _EXACT_INT
        cell = _first_bad(xp, big)
        if cell is not None:
            raise _error("scores", "must be integers below 2**53 in magnitude (read exactly as float64)", _item(x, *cell), *cell)
        return xp.astype(x, xp.float64)
    raise _error("scores", "must have a real floating or integer dtype (float16, bfloat16, float32, float64, int)", str(x.dtype))


def _mask(mask: Any, shape: tuple[int, int], xp: Any, is_numpy: bool) -> Optional[Any]:
    if mask is None:
        return None
    m = np.asarray(mask) if is_numpy else mask
    if not hasattr(m, "shape") or tuple(m.shape) != shape:
        got = tuple(m.shape) if hasattr(m, "shape") else type(mask).__name__
        raise TieawareError(f"mask must have the scores' shape {shape}, got {got}")
    if m.dtype != xp.bool:
        raise _error("mask", "must be a boolean array (False where a row is padded)", str(m.dtype))
    return m


def _grades(x: Any, argument: str, xp: Any, is_numpy: bool, valid: Optional[Any]) -> Any:
    """Grades, checked: finite and >= 0 where *valid*; 0 elsewhere.  numpy keeps their dtype, other libraries get float64."""
    kind = _kind(xp, x.dtype)
    if kind == "other":
        raise _error(argument, "must hold grades (bool, int or float)", str(x.dtype))
    if kind == "bfloat16" or not is_numpy:
        x = xp.astype(x, xp.float64)
        kind = "float"
    if valid is not None:
        x = xp.where(valid, x, xp.zeros_like(x))
    if kind == "bool":
        return x
    if kind == "float" and not bool(xp.all(xp.isfinite(x))):
        cell = _first_bad(xp, ~xp.isfinite(x))
        raise _error(argument, "must be finite grades", _item(x, *cell), *cell)  # type: ignore[misc]
    if bool(xp.min(x) < 0):
        cell = _first_bad(xp, x < 0)
        raise _error(argument, "must be grades >= 0", _item(x, *cell), *cell)  # type: ignore[misc]
    return x


def _is_id_rows(labels: Any, shape: tuple[int, int]) -> bool:
    """Whether a Python sequence of rows holds column indices (sets, or rows not shaped like the scores)."""
    rows = list(labels)
    if any(isinstance(r, (Set, dict)) for r in rows):
        return True
    try:
        return len(rows) != shape[0] or any(len(r) != shape[1] for r in rows)
    except TypeError:
        return True


def _from_ids(rows: list, shape: tuple[int, int]) -> np.ndarray:
    """Dense 0/1 labels from per-row column indices (Python data: built in numpy)."""
    b, n = shape
    if len(rows) != b:
        raise TieawareError(f"labels must give the relevant columns of each of the {b} rows, got {len(rows)} rows")
    dense = np.zeros(shape, dtype=np.float64)
    for i, row in enumerate(rows):
        try:
            ids = list(row)
        except TypeError:
            raise _error("labels", "must be a collection of column indices per row", row, i) from None
        for j in ids:
            if isinstance(j, bool) or not isinstance(j, numbers.Integral) or not 0 <= j < n:
                raise _error("labels", f"must name columns 0 .. {n - 1}", j, i)
            dense[i, int(j)] = 1.0
    return dense


def _from_id_array(ids: Any, shape: tuple[int, int], xp: Any, device: Any) -> Any:
    """Dense 0/1 labels from a ``[B, M]`` integer array of column indices (negative: padding), in its own library."""
    b, n = shape
    if tuple(ids.shape)[0] != b or len(ids.shape) != 2:
        raise TieawareError(f"labels must have the scores' shape {shape} (grades) or ({b}, M) (column indices), got {tuple(ids.shape)}")
    cell = _first_bad(xp, ids >= n)
    if cell is not None:
        raise _error("labels", f"must name columns 0 .. {n - 1} (negative: padding)", _item(ids, *cell), *cell)
    columns = xp.reshape(xp.arange(n, dtype=ids.dtype, device=device), (1, n))
    dense = xp.zeros(shape, dtype=xp.bool, device=device)
    for j in range(ids.shape[1]):
        dense = dense | (ids[:, j : j + 1] == columns)
    return xp.astype(dense, xp.float64)


def _labels(labels: Any, shape: tuple[int, int], xp: Any, is_numpy: bool, device: Any, valid: Any) -> Any:
    if labels is None:
        raise TieawareError("labels must be given: grades shaped like scores, or the relevant column indices per row")
    if hasattr(labels, "shape") and (is_numpy or not isinstance(labels, np.ndarray)):
        arr = labels if not is_numpy else np.asarray(labels)
        if tuple(arr.shape) == shape:
            return _grades(arr, "labels", xp, is_numpy, valid)
        if len(arr.shape) == 2 and _kind(xp, arr.dtype) == "int":
            return _grades(_from_id_array(arr, shape, xp, device), "labels", xp, is_numpy, valid)
        raise TieawareError(f"labels must have the scores' shape {shape} (grades) or ({shape[0]}, M) integers (column indices), got shape {tuple(arr.shape)}")
    try:
        rows = list(labels)
    except TypeError:
        raise _error("labels", "must be an array of grades or the relevant column indices per row", type(labels).__name__) from None
    if _is_id_rows(rows, shape):
        dense = _from_ids(rows, shape)
    else:
        try:
            dense = np.asarray(rows)
        except Exception:
            raise _error("labels", "must be grades shaped like scores", type(labels).__name__) from None
        if dense.dtype == object:
            raise _error("labels", "must be grades shaped like scores", type(labels).__name__)
    arr = dense if is_numpy else xp.asarray(dense, device=device)
    return _grades(arr, "labels", xp, is_numpy, valid)


def _judged(judged: Any, rows: int, xp: Any, is_numpy: bool, device: Any) -> Optional[Any]:
    if judged is None:
        return None
    if hasattr(judged, "shape"):
        arr = np.asarray(judged) if is_numpy else judged
        if is_numpy and not isinstance(judged, np.ndarray) and not hasattr(judged, "__array__"):
            arr = judged
    else:
        try:
            seqs = [list(r) for r in judged]
        except TypeError:
            raise _error("judged", "must be a [B, M] array or a sequence of grade sequences, one per row", type(judged).__name__) from None
        width = max((len(r) for r in seqs), default=0)
        padded = np.zeros((len(seqs), max(width, 1)), dtype=np.float64)
        for i, r in enumerate(seqs):
            try:
                padded[i, : len(r)] = np.asarray(r, dtype=np.float64)
            except (TypeError, ValueError):
                raise _error("judged", "must hold numeric grades", r, i) from None
        arr = padded if is_numpy else xp.asarray(padded, device=device)
    if len(arr.shape) != 2 or arr.shape[0] != rows:
        raise TieawareError(f"judged must have one row per score row ({rows}, M), got shape {tuple(arr.shape)}")
    return _grades(arr, "judged", xp, is_numpy, None)


def batch(scores: Any, labels: Any, *, mask: Any = None, judged: Any = None) -> Batch:
    """Check and convert the inputs of :mod:`tieaware.metrics`' functions.

    >>> b = batch(np.array([[0.5, 0.5]], dtype=np.float16), [{1}])
    >>> b.scores.dtype, b.labels.tolist()
    (dtype('float32'), [[0.0, 1.0]])
    >>> batch([[0.5, 0.5]], [[0, 3]]).labels.dtype    # numpy grades keep their dtype
    dtype('int64')
    """
    xp, is_numpy = namespace(scores)
    s = _scores(scores, xp, is_numpy)
    import array_api_compat

    device = array_api_compat.device(s)
    shape = tuple(s.shape)
    valid = _mask(mask, shape, xp, is_numpy)
    finite = xp.isfinite(s) if valid is None else xp.isfinite(s) | ~valid
    if not bool(xp.all(finite)):
        cell = _first_bad(xp, ~finite)
        raise _error("scores", "must be finite (NaN and infinities rank nowhere)", _item(s, *cell), *cell)  # type: ignore[misc]
    lab = _labels(labels, shape, xp, is_numpy, device, valid)
    if valid is not None:
        s = xp.where(valid, s, xp.asarray(-xp.inf, dtype=s.dtype, device=device))
    return Batch(xp, is_numpy, s, lab, valid, _judged(judged, shape[0], xp, is_numpy, device))
