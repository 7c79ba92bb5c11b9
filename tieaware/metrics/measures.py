"""Tie-aware measures of a batch of score rows, evaluated by fast's proved kernels on the rows' tie groups.

The kernels of :mod:`tieaware.fast.kernels` (the functions ``tieaware
prove`` proves, and the engines behind :func:`tieaware.evaluate` and
:func:`tieaware.evaluate_matrix` run) take one element per tie group; here
they take the dense ``[B, W]`` arrays of :mod:`tieaware.metrics.block`,
evaluated at every position and kept at each group's first one, then summed
per row.  The arithmetic is the arrays' own (:func:`tieaware.fast.arith.of`):
numpy for numpy arrays, the array API for the others.  No formula is written
here:

- P, R, F1: ``expected_hits(within(t, n, k), r, n)`` per group, then
  ``precision_value`` / ``recall_value`` / ``f1_value``
  (``precision_retrieved_value`` for ``P(norm=retrieved)``);
- AP: ``ap_group(t, t + within(t, n, k), before, r, n)``, then ``ap_value``
  (``ap_capped_value`` for ``AP(norm=capped)@k``);
- RR: ``rr_group`` of each row's first group holding a relevant document;
- Success: 1 - the chance that the slots of that group within k hold none of
  its relevant documents, the fold of ``first_relevant_step`` that
  ``rr_group`` folds too;
- DCG, nDCG: ``dcg_group(G, n, t, t + within(t, n, k))``; the ideal is the
  same kernel on the row's (or the judged) gains sorted best first, one group
  per run of equal gains; then ``ndcg_value``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Optional, Sequence, Union

import numpy as np

from tieaware.fast import kernels
from tieaware.metrics.block import ORDERS, Block, block, sorted_block
from tieaware.metrics.inputs import Batch, batch
from tieaware.model.errors import TieawareError, bad
from tieaware.model.names import Measure, parse, parse_list
from tieaware.model.params import choice, cutoff, threshold

__all__ = [
    "SUPPORTED",
    "evaluate",
    "ndcg",
    "dcg",
    "average_precision",
    "reciprocal_rank",
    "precision",
    "recall",
    "f1",
    "success",
]

#: The measures :func:`evaluate` computes (ir_measures names), with these parameters.
SUPPORTED = {
    "P": {"rel", "norm"},
    "R": {"rel"},
    "F1": {"rel"},
    "AP": {"rel", "norm"},
    "RR": {"rel"},
    "Success": {"rel"},
    "nDCG": {"dcg", "gain", "rel"},
    "DCG": {"dcg", "gain", "rel"},
}

MeasureSpec = Union[str, Measure, Sequence[Union[str, Measure]]]


def _measures(spec: MeasureSpec) -> list[Measure]:
    if isinstance(spec, Measure):
        ms = [spec]
    elif isinstance(spec, str):
        ms = parse_list(spec)
    else:
        ms = [m if isinstance(m, Measure) else parse(m) for m in spec]
    for m in ms:
        allowed = SUPPORTED.get(m.name)
        if allowed is None:
            raise bad("measures", str(m), f"is not computed by tieaware.metrics; it computes {', '.join(SUPPORTED)} (tieaware.evaluate_matrix computes every measure)")
        extra = sorted(key for key, _ in m.params if key not in allowed)
        if extra or (m.name == "AP" and m.norm == "hits"):
            raise bad("measures", str(m), f"has a parameter tieaware.metrics does not take ({', '.join(extra) or 'norm=hits'}); {m.name} takes {sorted(allowed)}")
    return ms


class _Rows:
    """One batch and one block, with the group summaries the measures share."""

    def __init__(self, b: Batch, blk: Block, numpy: bool):
        self.b, self.blk, self.xp, self.numpy = b, blk, b.xp, numpy
        self._cache: dict = {}

    def f64(self, x: Any) -> Any:
        return self.xp.astype(x, self.xp.float64)

    def relevant(self, rel: Fraction) -> tuple[Any, Any]:
        """(cells >= rel in ranked order as 0/1, relevant count r of each position's group)."""
        key = ("rel", rel)
        if key not in self._cache:
            cells = self.f64((self.blk.labels >= float(rel)) & self.blk.valid)
            self._cache[key] = (cells, self.blk.group_sum(cells))
        return self._cache[key]

    def num_rel(self, rel: Fraction) -> Any:
        key = ("num_rel", rel)
        if key not in self._cache:
            grades = self.b.judged if self.b.judged is not None else self.b.labels  # masked cells hold 0
            relevant = grades >= _bound(self.xp, grades, rel)
            if self.numpy:
                self._cache[key] = np.count_nonzero(relevant, axis=1).astype(np.float64)
            else:
                self._cache[key] = self.f64(self.xp.sum(self.xp.astype(relevant, self.xp.int64), axis=1))
        return self._cache[key]

    def length(self) -> Any:
        if self.b.valid is None:
            return self.xp.full(self.b.shape[0], float(self.b.shape[1]), dtype=self.xp.float64, device=_device(self.b.scores))
        return self.xp.sum(self.f64(self.b.valid), axis=1)

    def first_relevant(self, rel: Fraction, k: Optional[int]) -> tuple[Any, Any, Any, Any]:
        """(has one, t, r, n) of each row's first group holding a relevant document and starting within k."""
        xp, blk = self.xp, self.blk
        _, r = self.relevant(rel)
        found = blk.start & (r > 0)
        if k is not None:
            found = found & (blk.t < k)
        has = xp.any(found, axis=1)
        at = xp.reshape(xp.argmax(xp.astype(found, xp.int8), axis=1), (-1, 1))
        pick = lambda x: xp.take_along_axis(x, at, axis=1)[:, 0]  # noqa: E731
        one = xp.ones_like(pick(blk.t))
        return has, xp.where(has, pick(blk.t), 0 * one), xp.where(has, pick(r), one), xp.where(has, pick(blk.n), one)


def _bound(xp: Any, grades: Any, rel: Fraction) -> Any:
    """rel as a number to compare *grades* with: for integer grades the integer ceil(rel) (the same cells, no float copy)."""
    if xp.isdtype(grades.dtype, "integral"):
        return math.ceil(rel)
    return float(rel)


def _device(x: Any) -> Any:
    import array_api_compat

    return array_api_compat.device(x)


def _gains(rows: _Rows, labels: Any, m: Measure, argument: str) -> Any:
    """Each cell's gain (float64): its label (linear), 2**label - 1 (exp2, whole labels) or label >= rel (binary)."""
    xp = rows.xp
    if m.gain == "binary":
        return rows.f64(labels >= float(m.rel))
    labels = rows.f64(labels)
    if m.gain == "exp2":
        fractional = labels != xp.floor(labels)  # masked cells hold 0
        if bool(xp.any(fractional)):
            flat = int(xp.argmax(xp.reshape(xp.astype(fractional, xp.int8), (-1,))))
            row, column = divmod(flat, labels.shape[1])
            value = labels[row, column]
            raise TieawareError(f"{argument} must be whole grades for {m} (gain 2**label - 1) (row {row}, column {column}), got {float(value)!r}")
        return 2.0**labels - 1.0
    return labels


def _dcg(blk: Block, gains: Any, k: Optional[int]) -> Any:
    """Σ_groups dcg_group(G, n, t, t + within(t, n, k)) per row."""
    total = blk.group_sum(gains)
    return blk.row_sum(kernels.dcg_group(total, blk.n, blk.t, blk.t + kernels.within(blk.t, blk.n, k)))


def _ideal(rows: _Rows, m: Measure) -> Any:
    """The ideal DCG per row: the row's (or the judged) gains sorted best first, through the same kernel."""
    key = ("ideal", m.gain, m.rel, m.k)
    if key in rows._cache:
        return rows._cache[key]
    xp, b = rows.xp, rows.b
    grades = b.judged if b.judged is not None else b.labels
    argument = "judged" if b.judged is not None else "labels"
    if m.gain == "exp2":
        _gains(rows, grades, m, argument)  # every grade whole, not only the best k
    # the best grades first (in their own dtype: a sort of small integers is cheap); every gain is non-decreasing in the grade
    if rows.numpy:
        ranked = np.sort(grades, axis=1, kind="stable")[:, ::-1]  # stable: a radix sort for small integer grades
    else:
        ranked = xp.sort(grades, axis=1, descending=True)
    if m.k is not None and m.k < ranked.shape[1]:
        ranked = ranked[:, : m.k]
    ranked = _gains(rows, ranked, m, argument)
    ideal_block = sorted_block(xp, rows.numpy, ranked, ranked, xp.ones_like(ranked, dtype=xp.bool))
    value = rows._cache[key] = _dcg(ideal_block, ideal_block.labels, m.k)
    return value


def _none_left(r: Any, n: Any, slots: Any) -> Any:
    """The chance that the first *slots* slots of a group (r relevant of n) hold none: first_relevant_step folded."""
    from tieaware.fast.arith import of

    A = of(r, n, slots)
    none_yet = 0 * r + 1
    x = 1
    while A.any(x <= slots):
        _, step = kernels.first_relevant_step(none_yet, x, r, n)
        none_yet = A.where(x <= slots, step, none_yet)
        if not A.any(none_yet):
            break
        x += 1
    return none_yet


def _value(rows: _Rows, m: Measure) -> Any:
    xp, blk = rows.xp, rows.blk
    k = m.k
    if m.name in ("P", "R", "F1"):
        _, r = rows.relevant(m.rel)
        hits = blk.row_sum(kernels.expected_hits(kernels.within(blk.t, blk.n, k), r, blk.n))
        if m.name == "P":
            if m.norm == "retrieved":
                return kernels.precision_retrieved_value(hits, k, rows.length())
            if m.norm == "capped":
                return kernels.precision_capped_value(hits, k, rows.num_rel(m.rel))
            return kernels.precision_value(hits, k)
        if m.name == "R":
            return kernels.recall_value(hits, rows.num_rel(m.rel))
        return kernels.f1_value(hits, k, rows.num_rel(m.rel))
    if m.name == "AP":
        cells, r = rows.relevant(m.rel)
        last = blk.t + kernels.within(blk.t, blk.n, k)
        total = blk.row_sum(kernels.ap_group(blk.t, last, blk.before(cells), r, blk.n))
        if m.norm == "capped":
            return kernels.ap_capped_value(total, rows.num_rel(m.rel), k)
        return kernels.ap_value(total, k if m.norm == "k" else rows.num_rel(m.rel))
    if m.name in ("RR", "Success"):
        has, t, r, n = rows.first_relevant(m.rel, k)
        slots = kernels.within(t, n, k)
        if m.name == "RR":
            found = kernels.rr_group(t, r, n, slots)
        else:
            found = 1 - _none_left(r, n, slots)
        return xp.where(has, rows.f64(found), xp.zeros_like(t))
    gains = _gains(rows, blk.labels, m, "labels")
    value = _dcg(blk, gains, k)
    if m.name == "DCG":
        return value
    return kernels.ndcg_value(value, _ideal(rows, m))


def _depth(ms: list[Measure]) -> Optional[int]:
    if any(m.k is None for m in ms):
        return None
    return max(int(m.k) for m in ms)  # type: ignore[arg-type]


def evaluate(
    scores: Any,
    labels: Any,
    measures: MeasureSpec,
    *,
    mask: Any = None,
    judged: Any = None,
    order: str = "expected",
) -> dict[str, Any]:
    """{measure name: per-row float64 array} for a batch of score rows, tie-aware, in the scores' array library.

    *measures*: ir_measures names (``"nDCG@10 RR@10 R@100"``, ``AP(norm=capped)@10``,
    ``nDCG(dcg='exp-log2')@10``, ``P(rel=2)@5``).  The rows are sorted once for
    all of them.  *order*: ``"expected"`` (the mean over every ordering
    consistent with the ties), ``"worst"`` or ``"best"`` (the tie-breaking
    that gives the lowest or highest value).  See :func:`tieaware.metrics.inputs.batch`
    for *scores*, *labels*, *mask* and *judged*.

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.9, 0.9, 0.1]], dtype=np.float16)   # a, b, c tie, only a relevant
    >>> out = evaluate(scores, [{0}], "RR@10 P@1 R@2")
    >>> [round(float(out[m][0]), 4) for m in ("RR@10", "P@1", "R@2")]
    [0.6111, 0.3333, 0.6667]
    >>> [float(evaluate(scores, [{0}], "RR", order=o)["RR"][0]) for o in ("worst", "best")]
    [0.3333333333333333, 1.0]
    """
    ms = _measures(measures)
    order = choice(order, "order", ORDERS)
    b = batch(scores, labels, mask=mask, judged=judged)
    blk = block(b, _depth(ms), order)
    rows = _Rows(b, blk, b.numpy)
    quiet = np.errstate(divide="ignore", invalid="ignore")  # array-api-strict computes with numpy too
    out = {}
    with quiet:  # rr_group's steps past a group's own slots divide by zero; they are discarded
        for m in ms:
            out[str(m)] = rows.f64(_value(rows, m))
    return out


def _one(name: str, k: Optional[int], params: str, scores: Any, labels: Any, optional: bool, order: str, mask: Any, judged: Any = None) -> Any:
    k = cutoff(k, optional=optional)
    text = name + (f"({params})" if params else "") + ("" if k is None else f"@{k}")
    m = parse(text)
    return evaluate(scores, labels, [m], mask=mask, judged=judged, order=order)[str(m)]


def _rel(rel: object) -> str:
    return "" if threshold(rel) == 1 else f"rel={threshold(rel)}"


def _gain(gain: str) -> str:
    g = choice(gain, "gain", ("linear", "exp", "binary"))
    return {"linear": "", "exp": "dcg='exp-log2'", "binary": "gain=binary"}[g]


def ndcg(scores: Any, labels: Any, k: Optional[int] = None, *, gain: str = "linear", judged: Any = None, mask: Any = None, order: str = "expected") -> Any:
    """Expected nDCG@k per row (k None: whole rows); *gain* ``"linear"`` (label), ``"exp"`` (2**label - 1) or ``"binary"``.

    The ideal DCG is that of the row's labels, or of *judged* (every judged
    grade of the row's query) when given.

    >>> import numpy as np
    >>> ndcg(np.array([[1.0, 1.0]]), np.array([[1, 0]]), 1).tolist()    # the relevant cell first half the time
    [0.5]
    """
    return _one("nDCG", k, _gain(gain), scores, labels, True, order, mask, judged)


def dcg(scores: Any, labels: Any, k: Optional[int] = None, *, gain: str = "linear", mask: Any = None, order: str = "expected") -> Any:
    """Expected DCG@k per row (log2 discount), *gain* as for :func:`ndcg`.

    >>> import numpy as np
    >>> dcg(np.array([[1.0, 1.0]]), np.array([[2, 0]]), 2).round(12).tolist()    # (2/2)·(1 + 1/log2(3))
    [1.630929753571]
    """
    return _one("DCG", k, _gain(gain), scores, labels, True, order, mask)


def average_precision(
    scores: Any, labels: Any, k: Optional[int] = None, *, norm: str = "R", rel: object = 1, judged: Any = None, mask: Any = None, order: str = "expected"
) -> Any:
    """Expected AP@k per row: *norm* ``"R"`` divides by the relevant documents (trec_eval's), ``"capped"`` by min(R, k).

    >>> import numpy as np
    >>> average_precision(np.array([[2.0, 2.0, 1.0]]), np.array([[1, 0, 1]])).round(12).tolist()    # mean of 5/6 and 7/12
    [0.708333333333]
    """
    norm = choice(norm, "norm", ("R", "capped"))
    params = ",".join(p for p in (_rel(rel), "norm=capped" if norm == "capped" else "") if p)
    return _one("AP", k, params, scores, labels, True, order, mask, judged)


def reciprocal_rank(scores: Any, labels: Any, k: Optional[int] = None, *, rel: object = 1, mask: Any = None, order: str = "expected") -> Any:
    """Expected RR@k per row.

    >>> import numpy as np
    >>> reciprocal_rank(np.array([[3.0, 3.0, 3.0]]), [{0}]).round(4).tolist()    # (1 + 1/2 + 1/3)/3
    [0.6111]
    """
    return _one("RR", k, _rel(rel), scores, labels, True, order, mask)


def precision(scores: Any, labels: Any, k: int, *, rel: object = 1, mask: Any = None, order: str = "expected") -> Any:
    """Expected P@k per row (ranks past a row's end count as non-relevant).

    >>> import numpy as np
    >>> precision(np.array([[3.0, 2.0, 2.0, 1.0]]), np.array([[1, 0, 1, 1]]), 2).tolist()
    [0.75]
    """
    return _one("P", k, _rel(rel), scores, labels, False, order, mask)


def recall(scores: Any, labels: Any, k: int, *, rel: object = 1, judged: Any = None, mask: Any = None, order: str = "expected") -> Any:
    """Expected R@k per row (0 for a row without a relevant document).

    >>> import numpy as np
    >>> recall(np.array([[3.0, 2.0, 2.0, 1.0]]), np.array([[1, 0, 1, 1]]), 2).tolist()
    [0.5]
    """
    return _one("R", k, _rel(rel), scores, labels, False, order, mask, judged)


def f1(scores: Any, labels: Any, k: int, *, rel: object = 1, judged: Any = None, mask: Any = None, order: str = "expected") -> Any:
    """Expected F1@k per row: 2·hits/(k + R).

    >>> import numpy as np
    >>> f1(np.array([[3.0, 2.0, 2.0, 1.0]]), np.array([[1, 0, 1, 1]]), 2).tolist()    # 2·(3/2)/(2 + 3)
    [0.6]
    """
    return _one("F1", k, _rel(rel), scores, labels, False, order, mask, judged)


def success(scores: Any, labels: Any, k: int, *, rel: object = 1, mask: Any = None, order: str = "expected") -> Any:
    """Expected Success@k per row: the chance of a relevant document in the top k.

    >>> import numpy as np
    >>> success(np.array([[1.0, 0.5, 0.5, 0.5]]), [{2}], 2).round(4).tolist()    # one relevant of three tied for ranks 2-4
    [0.3333]
    """
    return _one("Success", k, _rel(rel), scores, labels, False, order, mask)
