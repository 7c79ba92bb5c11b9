"""A torchmetrics-style stateful metric: ``update(scores, labels)`` batch by batch, ``compute()`` the mean over rows.

:class:`TieAwareMetric` keeps each batch's per-row values (computed at
``update`` by :func:`tieaware.metrics.evaluate`, in the batch's own array
library and device) and averages them at ``compute``.  It needs neither
torch nor torchmetrics: numpy batches give numpy values, torch tensors give
torch tensors (0-d means), CuPy and JAX arrays theirs.

>>> import numpy as np
>>> m = TieAwareMetric("RR@10 P@1")
>>> m.update(np.array([[1.0, 1.0, 1.0]]), [{0}])           # a, b, c tie; a relevant
>>> m.update(np.array([[0.9, 0.5, 0.1]]), [{1}])
>>> {k: round(float(v), 4) for k, v in m.compute().items()}
{'RR@10': 0.5556, 'P@1': 0.1667}
>>> m.compute(per_row=True)["RR@10"].round(4).tolist()
[0.6111, 0.5]
>>> m.reset(); m.rows
0
"""

from __future__ import annotations

from typing import Any, Optional

from tieaware.metrics import evaluate
from tieaware.metrics.measures import MeasureSpec
from tieaware.model.errors import TieawareError
from tieaware.model.params import flag

__all__ = ["TieAwareMetric"]

_ORDERS = ("expected", "worst", "best")


class TieAwareMetric:
    """Tie-aware retrieval measures accumulated over batches of ``[B, N]`` scores.

    *measures*: ir_measures names (``"nDCG@10 RR@10 R@100"``).  With
    ``bounds=True`` each measure also has ``NAME worst`` and ``NAME best``:
    the mean of each row's lowest and highest value over tie-breakings.
    ``update(scores, labels, mask=None, judged=None)`` takes what
    :func:`tieaware.metrics.evaluate` takes; ``compute()`` returns
    ``{name: mean over every row so far}`` (``per_row=True``: the rows'
    values); ``reset()`` forgets them.  Calling the metric (``m(scores,
    labels)``) updates it and returns that batch's means, as torchmetrics'
    ``forward`` does.

    Beware: a row without a relevant document scores 0 and counts in the mean
    (torchmetrics' ``empty_target_action="neg"``); pass ``skip_empty=True`` to
    leave such rows out.
    """

    def __init__(self, measures: MeasureSpec = "nDCG@10", *, bounds: bool = False, skip_empty: bool = False) -> None:
        self.measures = measures
        self.bounds = flag(bounds, "bounds")
        self.skip_empty = flag(skip_empty, "skip_empty")
        evaluate([[0.0]], [[1]], measures)  # the names checked now, not at the first batch
        self.reset()

    def reset(self) -> None:
        """Forget every row."""
        self._values: dict[str, list[Any]] = {}
        self._xp: Optional[Any] = None
        self.rows = 0

    def _batch(self, scores: Any, labels: Any, mask: Any, judged: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for order in _ORDERS if self.bounds else _ORDERS[:1]:
            values = evaluate(scores, labels, self.measures, mask=mask, judged=judged, order=order)
            suffix = "" if order == "expected" else f" {order}"
            out.update({name + suffix: v for name, v in values.items()})
        if self.skip_empty:
            has = self._has_relevant(scores, labels, mask, judged)
            out = {name: v[has] for name, v in out.items()}
        return out

    @staticmethod
    def _has_relevant(scores: Any, labels: Any, mask: Any, judged: Any) -> Any:
        from tieaware.metrics.inputs import batch

        b = batch(scores, labels, mask=mask, judged=judged)
        grades = b.judged if b.judged is not None else b.labels
        return b.xp.any(grades > 0, axis=1)

    def update(self, scores: Any, labels: Any, mask: Any = None, judged: Any = None) -> None:
        """Add a batch of rows (its per-row values are computed now, in the batch's library)."""
        values = self._batch(scores, labels, mask, judged)
        import array_api_compat

        xp = array_api_compat.array_namespace(next(iter(values.values())))
        if self._xp is not None and xp is not self._xp:
            raise TieawareError(f"scores must come from one array library for one metric, got {xp.__name__} after {self._xp.__name__}")
        self._xp = xp
        for name, v in values.items():
            self._values.setdefault(name, []).append(v)
        self.rows += int(next(iter(values.values())).shape[0])

    def __call__(self, scores: Any, labels: Any, mask: Any = None, judged: Any = None) -> dict[str, Any]:
        """Update with a batch and return that batch's means."""
        self.update(scores, labels, mask, judged)
        return {name: self._mean(parts[-1]) for name, parts in self._values.items()}

    def _mean(self, v: Any) -> Any:
        import array_api_compat

        xp = array_api_compat.array_namespace(v)
        return xp.mean(v) if v.shape[0] else xp.asarray(float("nan"), dtype=xp.float64)

    def compute(self, per_row: bool = False) -> dict[str, Any]:
        """{name: mean over every row so far} (``per_row=True``: every row's value, in update order)."""
        if not self.rows and not self._values:
            raise TieawareError("compute() needs at least one update() since the last reset(), got none")
        xp = self._xp
        out = {name: xp.concat(parts, axis=0) if len(parts) > 1 else parts[0] for name, parts in self._values.items()}
        return out if flag(per_row, "per_row") else {name: self._mean(v) for name, v in out.items()}
