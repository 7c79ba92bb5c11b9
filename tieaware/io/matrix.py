"""Score matrices as runs: a queries × candidates array, its labels, and an optional mask.

:func:`prepare_matrix` turns what embedding and recommender evaluations hold
(a 2-D score array, a same-shape array of grades or a list of sets of
positive column indices, and a mask for padded rows) into the
:class:`~tieaware.io.columns.Prepared` rows that :func:`tieaware.io.columns.prepare`
makes from TREC files, so the engines evaluate it unchanged.  It is the TREC
data one would write for it:

- query *i* is the row number as text (``"0"``, ``"1"``, …), document *j*
  the column number; a cell is retrieved when the mask allows it;
- **ties are exact equality of the given values**: scores convert to
  float64, which holds every float16/32/64 exactly, so a float32 tie stays a
  tie and distinct values keep their order (integers beyond 2**53 are refused);
- grades: every allowed cell is judged, with its grade (0 included); label
  sets: the listed columns are judged relevant (label 1), the others
  unjudged, as qrels that list the positives only.  A row with no judged
  cell is not evaluated (no qrels), as in a TREC file.

With *depth* (the largest cutoff, when every measure has one), only the
cells scoring at least each row's *depth*-th best score are kept: every tie
group that starts within the cutoff is kept whole, so cutoff measures are
unchanged while the sort shrinks to the top of each row.

>>> import numpy as np
>>> p = prepare_matrix(np.array([[0.5, 0.5, 0.1]], dtype=np.float32), [{1}])
>>> p.qids, p.group_start.tolist(), p.label.tolist()
(['0'], [0, 2], [0, 1, 0])
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.io.columns import Prepared
from tieaware.model.errors import bad

__all__ = ["as_array", "prepare_matrix"]

_EXACT_INT = 2**53


def as_array(value: Any, argument: str) -> np.ndarray:
    """A numpy view of *value*: an ndarray, anything with ``__array__`` or DLPack (a torch tensor, without importing torch)."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "__dlpack__") and not hasattr(value, "__array__"):
        try:
            return np.from_dlpack(value)
        except Exception as exc:  # a GPU tensor, an unsupported dtype
            raise bad(argument, type(value).__name__, f"cannot be read through DLPack ({exc}); move it to the CPU first") from None
    try:
        return np.asarray(value)
    except Exception as exc:
        if hasattr(value, "__dlpack__"):
            try:
                return np.from_dlpack(value)
            except Exception:
                pass
        raise bad(argument, type(value).__name__, f"is not an array numpy can read ({exc}); move it to the CPU first") from None


def _scores(scores: Any) -> np.ndarray:
    """The scores in their own dtype (float16/32/64 or int), checked: 2-D, numbers, finite, ints exact as float64."""
    s = as_array(scores, "scores")
    if s.ndim != 2:
        raise bad("scores", f"an array of shape {s.shape}", "must be 2-D (queries × candidates)")
    if s.dtype.kind in "iu":
        if s.size and max(abs(int(s.max())), abs(int(s.min()))) >= _EXACT_INT:
            raise bad("scores", "an integer array", "must hold integers below 2**53 in magnitude (float64 holds them exactly)")
        return s
    if s.dtype.kind != "f":
        raise bad("scores", f"an array of dtype {s.dtype}", "must hold numbers (float or int)")
    if s.size and not np.isfinite(s.max() - s.min()):  # one pass each: NaN or an infinity makes it non-finite
        finite = np.isfinite(s)
        row, col = (int(x[0]) for x in np.nonzero(~finite))
        raise bad("scores", float(s[row, col]), f"must be finite numbers; scores[{row}, {col}] is not")
    return s


def _mask(mask: Any, shape: tuple[int, int]) -> Optional[np.ndarray]:
    if mask is None:
        return None
    m = as_array(mask, "mask")
    if m.shape != shape:
        raise bad("mask", f"an array of shape {m.shape}", f"must have the scores' shape {shape}")
    if m.dtype.kind != "b":
        if m.dtype.kind not in "iu" or not np.isin(m, (0, 1)).all():
            raise bad("mask", f"an array of dtype {m.dtype}", "must be boolean (True: a real candidate, False: padding)")
        m = m.astype(bool)
    return m


def _is_sets(labels: Any) -> bool:
    if isinstance(labels, np.ndarray) or hasattr(labels, "__array__") or hasattr(labels, "__dlpack__"):
        return False
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise bad("labels", labels, "must be an array of grades with the scores' shape or a list of sets of column indices")
    return True


def _grades(labels: Any, shape: tuple[int, int]) -> np.ndarray:
    g = as_array(labels, "labels")
    if g.shape != shape:
        raise bad("labels", f"an array of shape {g.shape}", f"must have the scores' shape {shape} (or be a list of sets of column indices)")
    if g.dtype.kind == "b":
        return g.astype(np.int64)
    if g.dtype.kind not in "iuf":
        raise bad("labels", f"an array of dtype {g.dtype}", "must hold numbers (grades)")
    if g.dtype.kind == "f":
        finite = np.isfinite(g)
        if not finite.all():
            row, col = (int(x[0]) for x in np.nonzero(~finite))
            raise bad("labels", float(g[row, col]), f"must be finite numbers; labels[{row}, {col}] is not")
    if g.size and g.min() < 0:
        row, col = (int(x[0]) for x in np.nonzero(g < 0))
        raise bad("labels", g[row, col].item(), f"must be >= 0; labels[{row}, {col}] is not")
    return g


def _sets(labels: Any, shape: tuple[int, int]) -> list[np.ndarray]:
    rows = list(labels)
    if len(rows) != shape[0]:
        raise bad("labels", f"a list of {len(rows)} sets", f"must hold one set of column indices per row of scores ({shape[0]})")
    out = []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise bad(f"labels[{i}]", row, "must be a set of column indices")
        items = list(row)
        for x in items:
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
                raise bad(f"labels[{i}]", x, "must hold int column indices")
            if not 0 <= int(x) < shape[1]:
                raise bad(f"labels[{i}]", int(x), f"holds a column index out of range 0..{shape[1] - 1}")
        out.append(np.unique(np.array(items, dtype=np.int64)))
    return out


def _exact_labels(distinct: np.ndarray) -> list[Fraction]:
    from tieaware.io.inputs import number

    if distinct.dtype.kind in "iu":
        return [Fraction(int(x)) for x in distinct.tolist()]
    scalars = distinct.tolist() if distinct.dtype == np.float64 else list(distinct)
    return [number(x, "labels") for x in scalars]


def prepare_matrix(
    scores: Any,
    labels: Any,
    mask: Any = None,
    *,
    depth: Optional[int] = None,
    zeros: bool = True,
) -> Prepared:
    """The :class:`Prepared` rows of a score matrix (see the module docstring).

    *zeros*: keep the judged cells of grade 0 in the judged lists (num_rel and
    nDCG's ideal ignore them; Judged@k and Bpref need them).
    """
    s = _scores(scores)
    shape = (int(s.shape[0]), int(s.shape[1]))
    valid = _mask(mask, shape)
    sets = _is_sets(labels)
    grades = None if sets else _grades(labels, shape)
    positives = _sets(labels, shape) if sets else None
    if depth is not None and depth < 1:
        raise bad("depth", depth, "must be an int >= 1")

    if valid is not None:
        s = np.where(valid, s if s.dtype.kind == "f" else s.astype(np.float64), -np.inf)
    retrieved = valid.sum(axis=1) if valid is not None else np.full(shape[0], shape[1])
    # cells kept: every allowed cell, or with a depth those scoring >= the row's depth-th best.
    # Sorting and comparing in the given dtype is exact: widening to float64 keeps order and equality.
    if depth is not None and depth < shape[1]:
        threshold = np.partition(s, shape[1] - depth, axis=1)[:, shape[1] - depth]
        keep = s >= threshold[:, None]
        if valid is not None:
            keep &= valid
        rows, cols = np.nonzero(keep)
        del keep
        value = s[rows, cols].astype(np.float64)
        order = np.lexsort((-value, rows))
        rows, cols, value = rows[order], cols[order], value[order]
    else:
        order = np.argsort(-s.astype(np.float64), axis=1, kind="stable")
        value = np.take_along_axis(s, order, axis=1).astype(np.float64)
        if valid is not None:
            live = np.isfinite(value)
            rows = np.nonzero(live)[0]
            cols, value = order[live], value[live]
        else:
            rows = np.repeat(np.arange(shape[0]), shape[1])
            cols, value = order.reshape(-1), value.reshape(-1)
        del order

    # label of every kept cell, and the judged labels of every row
    if grades is not None:
        if zeros:  # every allowed cell is judged, grade 0 included
            judged_cells = valid if valid is not None else np.ones(shape, dtype=bool)
        else:  # only the cells of non-zero grade matter
            judged_cells = grades != 0 if valid is None else (grades != 0) & valid
        jr, jc = np.nonzero(judged_cells)
        del judged_cells
        given = grades[jr, jc]
        distinct = np.unique(np.append(given, np.zeros(1, dtype=given.dtype)))
        exact = _exact_labels(distinct)
        label_values = sorted(set(exact))
        number = np.array([label_values.index(x) for x in exact], dtype=np.int64)
        judged_row, judged_lab = jr, number[np.searchsorted(distinct, given)]
        label = number[np.searchsorted(distinct, grades[rows, cols])]
        has_qrels = retrieved > 0  # every allowed cell is judged
        seen = np.ones(len(rows), dtype=bool)
    else:
        label_values = [Fraction(0), Fraction(1)]
        assert positives is not None
        counts = np.array([len(p) for p in positives], dtype=np.int64)
        judged_row = np.repeat(np.arange(shape[0]), counts)
        flat = np.concatenate(positives) if len(positives) else np.array([], dtype=np.int64)
        judged_lab = np.ones(len(flat), dtype=np.int64)
        has_qrels = counts > 0
        hit = np.zeros(shape, dtype=bool)
        hit[judged_row, flat] = True
        label = hit[rows, cols].astype(np.int64)
        seen = label.astype(bool)

    in_run = retrieved > 0
    evaluated = in_run & has_qrels
    renumber = np.cumsum(evaluated) - 1
    keep_rows = evaluated[rows]
    if not keep_rows.all():
        rows, value, label, seen = rows[keep_rows], value[keep_rows], label[keep_rows], seen[keep_rows]
    query = renumber[rows]
    n = len(query)
    boundary = np.ones(n, dtype=bool)
    if n:
        boundary[1:] = (query[1:] != query[:-1]) | (value[1:] != value[:-1])
    jkeep = evaluated[judged_row]
    return Prepared(
        qids=[str(i) for i in np.flatnonzero(evaluated).tolist()],
        query=query.astype(np.int64),
        label=label.astype(np.int64),
        label_values=label_values,
        group_start=np.flatnonzero(boundary),
        query_start=np.flatnonzero(np.append(True, query[1:] != query[:-1])) if n else np.array([], dtype=np.int64),
        judged_query=renumber[judged_row[jkeep]].astype(np.int64),
        judged_label=judged_lab[jkeep].astype(np.int64),
        trec_order=None,
        skipped_run=[str(i) for i in np.flatnonzero(in_run & ~has_qrels).tolist()],
        skipped_qrels=[str(i) for i in np.flatnonzero(has_qrels & ~in_run).tolist()],
        judged=seen,
    )

