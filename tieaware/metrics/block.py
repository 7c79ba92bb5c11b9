"""The top of every row, sorted, cut into tie groups: what the kernels read, as dense ``[B, W]`` arrays.

A measure at cutoff k reads only the tie groups that start within the top k
(and, for R and AP, each row's number of relevant documents).  So each row
is cut at its k-th best score *v*, keeping every cell scoring >= v: the tie
group at the cut stays whole.  numpy selects those cells with
``argpartition`` (O(N) a row), torch with its ``topk``; other libraries sort
their rows (the array API standard has no partition), on their device.  The block is as wide as
the widest row's cells >= v; narrower rows are padded (``valid`` False).

Within the block, a group starts where the score changes (for the worst and
best orderings, where the score or the label changes, after sorting each
group by label: a group sorted by label is a run of sub-groups of equal
labels, on which the expected value is the ordering's value).  Every
position knows its group's start rank t and size n; :meth:`Block.group_sum`
and :meth:`Block.before` sum a per-cell quantity over the group and over
the groups above it, by cumulative sums.  The kernels are then evaluated at
the groups' first positions (:attr:`Block.start`) and summed per row.

>>> import numpy as np
>>> from tieaware.metrics.inputs import batch
>>> b = block(batch(np.array([[0.2, 0.9, 0.9, 0.1]]), [[0, 1, 0, 1]]), 2)
>>> b.start.tolist(), b.n.tolist(), b.t.tolist()
([[True, False]], [[2.0, 1.0]], [[0.0, 0.0]])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from tieaware.metrics.inputs import Batch

__all__ = ["Block", "block", "sorted_block", "ORDERS"]

#: The orderings a block can stand for: every ordering averaged, or the worst or best tie-breaking.
ORDERS = ("expected", "worst", "best")


@dataclass
class Block:
    """Dense ``[B, W]`` arrays of the sorted top of each row (see the module docstring)."""

    xp: Any
    labels: Any  # float64 grades in ranked order, 0 where not valid
    valid: Any  # bool
    start: Any  # bool: the first position of a tie group
    t: Any  # float64: ranks above the position's group (its start, 0-based), at every position of it
    n: Any  # float64: the group's size at its start; 1 elsewhere
    end: Any  # int64: one past the group's last position

    def group_sum(self, x: Any) -> Any:
        """Σ of *x* ([B, W], 0 where not valid) over each position's group (meaningful at the starts)."""
        xp = self.xp
        cs = xp.cumulative_sum(x, axis=1, include_initial=True)
        return xp.take_along_axis(cs, self.end, axis=1) - xp.take_along_axis(cs, xp.astype(self.t, xp.int64), axis=1)

    def before(self, x: Any) -> Any:
        """Σ of *x* over the positions above each position's group (the relevant documents above a group)."""
        xp = self.xp
        cs = xp.cumulative_sum(x, axis=1, include_initial=True)
        return xp.take_along_axis(cs, xp.astype(self.t, xp.int64), axis=1)

    def at_starts(self, x: Any) -> Any:
        """*x* at the groups' first positions, 0 elsewhere."""
        return self.xp.where(self.start, x, self.xp.zeros_like(x))

    def row_sum(self, per_group: Any) -> Any:
        """Σ over each row's groups of a value computed at every position (kept at the starts only)."""
        return self.xp.sum(self.at_starts(per_group), axis=1)


def _stable_desc(xp: Any, numpy: bool, x: Any) -> Any:
    """A stable descending argsort along the rows (numpy: of -x, which keeps -0.0 == 0.0 tied)."""
    if numpy:
        return np.argsort(-x, axis=1, kind="stable")
    return xp.argsort(x, axis=1, descending=True, stable=True)


def _stable(xp: Any, numpy: bool, x: Any, descending: bool) -> Any:
    if numpy:
        return np.argsort(-x if descending else x, axis=1, kind="stable")
    return xp.argsort(x, axis=1, descending=descending, stable=True)


def _select(b: Batch, depth: Optional[int]) -> tuple[Any, Any, Any]:
    """(columns, their scores sorted best first, valid) of each row's cells that can rank within *depth*: scores >= its depth-th best."""
    xp, s = b.xp, b.scores
    rows, width = s.shape
    if b.numpy and depth is not None and depth < width:
        return _select_numpy(s, depth)
    if depth is not None and depth < width and _is_torch(xp):
        return _select_torch(s, depth)
    order = _stable_desc(xp, b.numpy, s)
    values = xp.take_along_axis(s, order, axis=1)
    if depth is None or depth >= width:
        return order, values, values > -xp.inf
    cut = values[:, depth - 1 : depth]
    valid = (values >= cut) & (values > -xp.inf)
    wide = int(xp.max(xp.sum(xp.astype(valid, xp.int64), axis=1)))
    return order[:, :wide], values[:, :wide], valid[:, :wide]


def _is_torch(xp: Any) -> bool:
    import array_api_compat

    return bool(array_api_compat.is_torch_namespace(xp))


def _select_torch(s: Any, depth: int) -> tuple[Any, Any, Any]:
    """_select by torch's own ``topk`` (no full sort, on the tensors' device): once to find the cut, again if ties there reach past it."""
    import torch

    values, order = torch.topk(s, depth, dim=1, largest=True, sorted=True)
    cut = values[:, -1:]
    size = torch.count_nonzero((s >= cut) & (s > -torch.inf), dim=1)
    wide = int(size.max())
    if wide > depth:
        values, order = torch.topk(s, wide, dim=1, largest=True, sorted=True)
    valid = (values >= cut) & (values > -torch.inf)
    return order, values, valid


def _select_numpy(s: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_select by one ``argpartition`` a row; the cells tied with the depth-th best that it left out are added after it."""
    rows, width = s.shape
    part = np.argpartition(s, width - depth, axis=1)[:, width - depth :]
    values = np.take_along_axis(s, part, axis=1)
    order = np.argsort(-values, axis=1)  # any order within a tie group will do
    part = np.take_along_axis(part, order, axis=1)
    values = np.take_along_axis(values, order, axis=1)
    cut = values[:, -1]  # each row's depth-th best score (-inf: the row has fewer unmasked cells)
    above = np.count_nonzero(values > cut[:, None], axis=1)
    size = np.count_nonzero(s >= cut[:, None], axis=1)
    size[cut == -np.inf] = above[cut == -np.inf]  # masked cells are no group
    grow = np.flatnonzero(size > depth)  # rows whose group at the cut has cells the partition left out
    if len(grow):  # that group, whole: its cells in column order after the cells above it
        wide = int(size[grow].max())
        grown = np.zeros((rows, wide), dtype=part.dtype)
        grown[:, :depth] = part
        sub, column = np.nonzero(s[grow] == cut[grow, None])
        row = grow[sub]
        tied = size[grow] - above[grow]
        first = np.repeat(np.cumsum(tied) - tied, tied)
        grown[row, above[row] + np.arange(len(row)) - first] = column
        part = grown
        values = np.take_along_axis(s, part, axis=1)
    valid = np.arange(part.shape[1])[None, :] < size[:, None]
    return part, values, valid


def block(b: Batch, depth: Optional[int], order: str = "expected") -> Block:
    """The block of a batch's rows for measures cut at *depth* (None: whole rows), for the ordering *order*."""
    xp = b.xp
    columns, values, valid = _select(b, depth)
    labels = xp.astype(xp.take_along_axis(b.labels, columns, axis=1), xp.float64)
    return sorted_block(xp, b.numpy, values, labels, valid, order)


def sorted_block(xp: Any, numpy: bool, values: Any, labels: Any, valid: Any, order: str = "expected") -> Block:
    """The groups of rows already sorted by *values*, descending (invalid positions last).

    For *order* "worst" or "best", each group is first sorted by label,
    ascending or descending, and the groups split where the label changes.
    """
    labels = xp.where(valid, labels, xp.zeros_like(labels))
    if order != "expected":
        values = xp.where(valid, values, xp.asarray(-xp.inf, dtype=values.dtype, device=_device(values)))  # padding stays last
        by_label = _stable(xp, numpy, labels, descending=order == "best")
        values = xp.take_along_axis(values, by_label, axis=1)
        by_score = _stable_desc(xp, numpy, values)
        perm = xp.take_along_axis(by_label, by_score, axis=1)
        values = xp.take_along_axis(values, by_score, axis=1)
        labels = xp.take_along_axis(labels, perm, axis=1)
        valid = xp.take_along_axis(valid, perm, axis=1)
    rows, width = values.shape
    device = _device(values)
    change = values[:, 1:] != values[:, :-1]
    if order != "expected":
        change = change | (labels[:, 1:] != labels[:, :-1])
    first = xp.ones((rows, 1), dtype=xp.bool, device=device)
    start = xp.concat([first, change], axis=1) & valid
    position = xp.broadcast_to(xp.reshape(xp.arange(width, dtype=xp.int64, device=device), (1, width)), (rows, width))
    group = xp.cumulative_sum(xp.astype(start, xp.int64), axis=1) - 1  # each position's group number in its row
    groups = xp.sum(xp.astype(start, xp.int64), axis=1)
    length = xp.sum(xp.astype(valid, xp.int64), axis=1)
    starts = _stable(xp, numpy, xp.astype(~start, xp.int8), descending=False)  # start positions first, ascending
    following = xp.clip(group + 1, 0, width - 1)
    nxt = xp.take_along_axis(starts, following, axis=1)
    end = xp.where(group + 1 < groups[:, None], nxt, xp.broadcast_to(length[:, None], (rows, width)))
    end = xp.where(valid, end, position + 1)
    t = xp.astype(xp.where(start, position, xp.take_along_axis(starts, xp.clip(group, 0, width - 1), axis=1)), xp.float64)
    t = xp.where(valid, t, xp.astype(position, xp.float64))
    n = xp.where(start, xp.astype(end, xp.float64) - t, xp.ones_like(t))
    return Block(xp, labels, valid, start, t, n, end)


def _device(x: Any) -> Any:
    import array_api_compat

    return array_api_compat.device(x)
