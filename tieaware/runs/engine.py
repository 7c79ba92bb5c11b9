"""The vectorised tie-aware float engine: every query at once, in numpy.

The rows of a run, joined to the qrels and grouped by tied score
(:class:`tieaware.io.columns.Prepared`), are summarised per tie group (size n,
relevant count r, gain sum G, start rank t inside its query, relevant
documents before it).  The engine holds no closed form of its own: it hands
those arrays, one element per group of every query, to the kernels of
:mod:`tieaware.fast.kernels` (the very functions ``tieaware prove`` proves and
fast's exact mode runs on Fractions), whose arithmetic
(:data:`tieaware.fast.arith.ARRAY`) is numpy's, and sums per query with
``np.bincount``:

- P, R, F1: ``expected_hits(within(t, n, k), r, n)`` per group, then
  ``precision_value``/``recall_value``/``f1_value`` per query;
- AP: ``ap_group(t, t + within(t, n, k), before, r, n)`` (the harmonic-sum
  form), then ``ap_value``;
- RR: ``rr_group`` of every query's first group holding a relevant document,
  folded for all of them at once;
- DCG and nDCG: ``dcg_group(G, n, t, last)``; the ideal is ``dcg_group`` over
  the query's judged gains sorted best first, a group per run of equal gains;
  then ``ndcg_value``;
- RBP: ``rbp_group(p, t, last, r, n)``, p defaulting to
  :data:`tieaware.model.names.RBP_P` as everywhere;
- other libraries' conventions (docs/conventions.md): ``AP(norm=capped|k)``
  through ``ap_capped_value`` / ``ap_value`` with k, ``P(norm=retrieved)``
  through ``precision_retrieved_value``, ``gain=binary`` as a gain per label
  number, and ``norel=1|nan|skip`` for the queries without a relevant
  document (None for skip, as the per-query path gives);
- ERR: ``err_stop`` per grade and ``err_slot(R, mean keep, n, t, x)`` per
  member and slot, as fast.err's ``err_group``; the mean over the (x-1)-subsets
  of the other members of Π(1 - R) is folded member by member with
  ``subset_mean_step``, as fast.err's ``subset_means`` folds it (a convex
  combination per step: stable on groups of any size).

Harmonic and discount spans come from prefix tables kept in extended
precision, so differences keep ~1e-16 relative accuracy; tests/test_engine.py
checks every query against the exact layer to 1e-12, and
tests/test_one_formula.py that a slip in a kernel changes what this engine
prints.  Measures the engine does not know
(``AP(norm=hits)``, ``ERR(g_max=...)``, trec_eval's ``gains``, ERR with fractional labels,
and any measure added to :func:`tieaware.runs.evaluate.compute` later)
return None from :func:`values`, and the caller evaluates them per query.

>>> import io
>>> from tieaware.io.columns import prepare, read_table
>>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\nq1 0 x 1\\n"), "qrels")
>>> run = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 2 r\\n"), "run")
>>> from tieaware.model.names import parse
>>> float(values(prepare(qrels, run), parse("AP"))[0])    # (1/2·1 + 1/2·1/2)/2 = 3/8
0.375
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.fast import kernels
from tieaware.fast.arith import EXACT
from tieaware.fast.groups import Group
from tieaware.io.columns import Prepared
from tieaware.model.errors import TieawareError
from tieaware.model.params import probability
from tieaware.model.names import Measure

__all__ = ["SUPPORTED", "CONVENTIONS", "EXACT_SUPPORTED", "values", "chunks", "trec_eval_view", "ExactQueries", "Groups", "expand", "gain_sums", "ideal_dcg"]

#: Measures evaluated in array form; any other falls back to the per-query path.
SUPPORTED = frozenset({"P", "R", "F1", "AP", "RR", "nDCG", "DCG", "RBP", "ERR"})


def trec_eval_view(p: Prepared) -> Prepared:
    """The same rows in trec_eval's order, every document its own group (tie-oblivious).

    >>> import io
    >>> from tieaware.io.columns import prepare, read_table
    >>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\n"), "qrels")
    >>> run = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 2 r\\n"), "run")
    >>> trec_eval_view(prepare(qrels, run)).label.tolist()    # b before a: docno descending
    [0, 1]
    """
    if p.trec_order is None:
        raise ValueError("the Prepared rows were built without trec_eval's order")
    return p.reordered(p.trec_order, np.arange(p.rows, dtype=np.int64))


#: The engine works on slices of about this many rows, so its temporaries stay small (~0.2 GB).
CHUNK_ROWS = 1 << 20


def chunks(p: Prepared, rows: Optional[int] = None) -> list[Prepared]:
    """*p* cut into runs of whole consecutive queries of about *rows* rows each (one piece if small).

    >>> import io
    >>> from tieaware.io.columns import prepare, read_table
    >>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\nq2 0 a 1\\n"), "qrels")
    >>> run = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\\nq2 Q0 a 1 2 r\\nq2 Q0 b 1 1 r\\n"), "run")
    >>> [c.qids for c in chunks(prepare(qrels, run), rows=1)]
    [['q1'], ['q2']]
    """
    rows = CHUNK_ROWS if rows is None else rows
    if p.rows <= rows or len(p.qids) < 2:
        return [p]
    starts = p.query_start
    ends = np.append(starts[1:], p.rows)
    pieces, first = [], 0
    while first < len(p.qids):
        last = int(np.searchsorted(ends, starts[first] + rows, side="right"))
        last = max(last, first + 1)  # at least one query
        lo, hi = int(starts[first]), int(ends[last - 1])
        g_lo, g_hi = np.searchsorted(p.group_start, [lo, hi])
        j_lo, j_hi = np.searchsorted(p.judged_query, [first, last])
        pieces.append(
            Prepared(
                qids=p.qids[first:last],
                query=p.query[lo:hi] - first,
                label=p.label[lo:hi],
                label_values=p.label_values,
                group_start=p.group_start[g_lo:g_hi] - lo,
                query_start=starts[first:last] - lo,
                judged_query=p.judged_query[j_lo:j_hi] - first,
                judged_label=p.judged_label[j_lo:j_hi],
                trec_order=None,
                skipped_run=[],
                skipped_qrels=[],
                judged=None if p.judged is None else p.judged[lo:hi],
                negative=None if p.negative is None else p.negative[lo:hi],
                judged_negative=None if p.judged_negative is None else p.judged_negative[j_lo:j_hi],
            )
        )
        first = last
    return pieces


class Groups:
    """Per-group arrays shared by every measure of one evaluation."""

    def __init__(self, p: Prepared):
        self.p = p
        self.nq = len(p.qids)
        self.rows = p.rows
        starts = p.group_start
        self.start_row = starts
        self.size = np.diff(np.append(starts, self.rows)).astype(np.float64)
        self.query = p.query[starts] if self.rows else np.array([], dtype=np.int64)
        self.t = (starts - p.query_start[self.query]).astype(np.float64) if self.rows else np.array([])
        self.length = np.bincount(p.query, minlength=self.nq).astype(np.float64)
        self._cache: dict = {}

    def per_group(self, per_row: np.ndarray) -> np.ndarray:
        if not self.rows:
            return np.array([], dtype=np.float64)
        return np.add.reduceat(per_row, self.start_row).astype(np.float64)

    def relevant(self, rel: Fraction) -> tuple[np.ndarray, np.ndarray]:
        """(relevant count per group, num_rel per query) at threshold *rel*, decided exactly."""
        key = ("rel", rel)
        if key not in self._cache:
            is_rel = np.array([x >= rel for x in self.p.label_values], dtype=np.float64)
            r = self.per_group(is_rel[self.p.label])
            num_rel = np.bincount(self.p.judged_query, weights=is_rel[self.p.judged_label], minlength=self.nq)
            self._cache[key] = (r, num_rel)
        return self._cache[key]

    def before(self, r: np.ndarray) -> np.ndarray:
        """The sum of *r* over the earlier groups of the same query (relevant documents above a group, ERR's log-survival).

        A query's sums start from 0 at its first group, so they never depend on
        the queries evaluated beside it (a run cut into parts gives the same bits):
        counts (whole numbers) through one running sum over every group, which is
        exact; other values through a running sum per query.
        """
        first_group = np.searchsorted(self.start_row, self.p.query_start)
        if not len(r) or (np.all(r == np.floor(r)) and float(np.abs(r).sum()) < 2.0**53):
            total = np.cumsum(r) - r
            return total - total[first_group][self.query]
        return _running_per_query(r, first_group)

    def first_relevant(self, r: np.ndarray, k: Optional[int]) -> np.ndarray:
        """Every query's first group holding a relevant document and starting above k (queries with one only)."""
        idx = np.flatnonzero((r > 0) if k is None else (r > 0) & (self.t < k))
        return idx[np.flatnonzero(np.append(True, self.query[idx][1:] != self.query[idx][:-1]))] if len(idx) else idx

    def sum_per_query(self, per_group: np.ndarray) -> np.ndarray:
        return np.bincount(self.query, weights=per_group, minlength=self.nq)


def _running_per_query(r: np.ndarray, first_group: np.ndarray) -> np.ndarray:
    """Σ of *r* over the earlier groups of each query, summed from 0 in every query (left to right)."""
    counts = np.diff(np.append(first_group, len(r)))
    width = int(counts.max())
    out = np.empty(len(r), dtype=np.float64)
    if width * len(counts) <= 4 * len(r) + 1024:  # queries side by side in a padded table, one cumsum per row
        table = np.zeros((len(counts), width + 1), dtype=np.float64)
        owner = np.repeat(np.arange(len(counts)), counts)
        slot = np.arange(len(r)) - first_group[owner]
        table[owner, slot + 1] = r
        np.cumsum(table, axis=1, out=table)
        out[:] = table[owner, slot]
        return out
    for lo, n in zip(first_group.tolist(), counts.tolist()):  # a few very long queries: one at a time
        part = np.cumsum(r[lo : lo + n])
        out[lo] = 0.0
        out[lo + 1 : lo + n] = part[:-1]
    return out


def _cut(g: Groups, k: Optional[int]) -> np.ndarray:
    """The last rank of every group that counts: t + within(t, n, k)."""
    return g.t + kernels.within(g.t, g.size, k)


def _hits(g: Groups, k: int, r: np.ndarray) -> np.ndarray:
    """Expected hits@k per query: Σ_groups expected_hits(within(t, n, k), r, n)."""
    return g.sum_per_query(kernels.expected_hits(kernels.within(g.t, g.size, k), r, g.size))


def _ap_total(g: Groups, k: Optional[int], rel: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """AP's numerator Σ_groups ap_group(t, last, before, r, n) per query, and num_rel (the divisor ap_value takes)."""
    r, num_rel = g.relevant(rel)
    live = np.flatnonzero(r > 0)
    last = _cut(g, k)
    part = kernels.ap_group(g.t[live], last[live], g.before(r)[live], r[live], g.size[live])
    total = np.bincount(g.query[live], weights=np.asarray(part, dtype=np.float64), minlength=g.nq)
    return total, num_rel


def _rr(g: Groups, k: Optional[int], rel: Fraction) -> np.ndarray:
    """RR: rr_group of every query's first group holding a relevant document, all folded at once."""
    r, _ = g.relevant(rel)
    out = np.zeros(g.nq, dtype=np.float64)
    firsts = g.first_relevant(r, k)
    if not len(firsts):
        return out
    t, n = g.t[firsts], g.size[firsts]
    with np.errstate(divide="ignore", invalid="ignore"):  # steps past a group's own slots are discarded
        out[g.query[firsts]] = kernels.rr_group(t, r[firsts], n, kernels.within(t, n, k))
    return out


def gain_sums(g: Groups, gain: str, rel: Fraction = Fraction(1)) -> Optional[np.ndarray]:
    """Gain per label number, or None when the gain cannot take every label (exp2 on a fraction).

    ``binary`` (``gain=binary``): 1 for a label >= *rel*, else 0, decided exactly.
    """
    if gain == "binary":
        return np.array([1.0 if x >= rel else 0.0 for x in g.p.label_values])
    if gain == "linear":
        return np.array([float(x) for x in g.p.label_values])
    if any(x.denominator != 1 for x in g.p.label_values):
        return None  # the per-query path raises the proper error
    return np.array([float(2 ** int(x) - 1) for x in g.p.label_values])


def _dcg(g: Groups, k: Optional[int], gains: np.ndarray) -> np.ndarray:
    """DCG: Σ_groups dcg_group(total gain, n, t, last) per query."""
    total_gain = g.per_group(gains[g.p.label])
    return g.sum_per_query(np.asarray(kernels.dcg_group(total_gain, g.size, g.t, _cut(g, k)), dtype=np.float64))


def ideal_dcg(g: Groups, k: Optional[int], gains: np.ndarray) -> np.ndarray:
    """The ideal DCG per query: dcg_group over the query's judged gains sorted best first, one group per run of equal gains."""
    jq, jg = g.p.judged_query, gains[g.p.judged_label]
    if not len(jq):
        return np.zeros(g.nq)
    order = np.lexsort((-jg, jq))
    jq, jg = jq[order], jg[order]
    new_run = np.append(True, (jq[1:] != jq[:-1]) | (jg[1:] != jg[:-1]))
    run_start = np.flatnonzero(new_run)
    count = np.diff(np.append(run_start, len(jq))).astype(np.float64)
    q = jq[run_start]
    t = (run_start - np.searchsorted(jq, q, side="left")).astype(np.float64)  # ranks above the run in its query
    part = kernels.dcg_group(count * jg[run_start], count, t, t + kernels.within(t, count, k))
    return np.bincount(q, weights=np.asarray(part, dtype=np.float64), minlength=g.nq)


def _rbp(g: Groups, k: Optional[int], p: Fraction, rel: Fraction) -> np.ndarray:
    """RBP: Σ_groups rbp_group(p, t, last, r, n) per query."""
    r, _ = g.relevant(rel)
    return g.sum_per_query(kernels.rbp_group(p, g.t, _cut(g, k), r, g.size))  # p a Fraction: 1 - p before rounding


def _err(g: Groups, k: Optional[int]) -> Optional[np.ndarray]:
    """Expected ERR@k, all groups at once (fast.err's factorised form), or None to fall back.

    A group (start t, n members, slots s = min(n, k - t)) adds
    S · Σ_{x<=s} E[R(doc at x)·Π_{y<x} (1 - R(doc at y))] / (t + x), where S is
    the survival product of the earlier groups.  By exchangeability the
    expectation is Σ_i c_i·Σ_x err_slot(R_i, M_{x-1}(others of i), n, t, x)
    (:func:`tieaware.fast.kernels.err_slot`, R_i from ``err_stop``), M_m the
    mean of Π(1 - R) over the m-subsets of the other n - 1 members: one
    unit per group and relevant grade, its means folded member by member
    with :func:`tieaware.fast.kernels.subset_mean_step`, as fast.err's
    :func:`tieaware.fast.err.subset_means` does (:func:`_subset_means`).
    """
    values = g.p.label_values
    if any(x.denominator != 1 for x in values) or not g.rows:
        return None
    depth = np.inf if k is None else k
    live = np.flatnonzero(g.t < depth)
    slots = np.minimum(g.size[live], depth - g.t[live]).astype(np.int64)
    grades = np.array([int(x) for x in values], dtype=np.int64)
    nl = len(values)
    # g_max per query: its best judged grade, at least 1 (as evaluate.compute passes it)
    best = np.zeros(g.nq, dtype=np.int64)
    np.maximum.at(best, g.p.judged_query, grades[g.p.judged_label])
    g_max = np.maximum(best, 1)
    one_hot = np.zeros((g.rows, nl), dtype=np.int64)
    one_hot[np.arange(g.rows), g.p.label] = 1
    counts = np.add.reduceat(one_hot, g.start_row, axis=0)  # groups × grades
    del one_hot
    stop = kernels.err_stop(grades[None, :].astype(np.float64), g_max[g.query][:, None].astype(np.float64))  # R per group × grade
    keep = 1 - stop
    # survival before each group: Π over earlier groups of the same query of Π keep**count
    with np.errstate(invalid="ignore", divide="ignore"):  # grades above a query's g_max never occur in it
        log_keep = np.where(counts > 0, counts * np.log(np.where(counts > 0, keep, 1.0)), 0.0).sum(axis=1)
    before = g.before(log_keep)
    c, kp, st = counts[live], keep[live], stop[live]
    n, t = g.size[live], g.t[live]
    relevant = np.where(st > 0, c, 0)  # members that can stop the user, per grade; the rest keep 1
    unit_group, unit_grade = np.nonzero(relevant)  # a unit: a group and the grade of the member it follows
    others = relevant[unit_group] - (np.arange(nl)[None, :] == unit_grade[:, None])  # its fellow relevant members
    plain = n[unit_group] - 1 - others.sum(axis=1)
    means, unit, m = _subset_means(others, kp[unit_group], plain, slots[unit_group])
    ug = unit_group[unit]
    per_slot = kernels.err_slot(st[ug, unit_grade[unit]], means, n[ug], t[ug], m + 1)
    per_unit = relevant[unit_group, unit_grade] * np.bincount(unit, weights=per_slot, minlength=len(unit_group))
    total = np.bincount(unit_group, weights=per_unit, minlength=len(live))
    return np.bincount(g.query[live], weights=np.exp(before[live]) * total, minlength=g.nq)


def expand(count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, 0-based index) of count[i] consecutive entries per i."""
    count = count.astype(np.int64)
    owner = np.repeat(np.arange(len(count)), count)
    return owner, np.arange(int(count.sum())) - (np.cumsum(count) - count)[owner]


def _subset_means(others: np.ndarray, keeps: np.ndarray, plain: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, unit, m) flat over every unit's m = 0 .. slots - 1: M the mean of Π keep over its others' m-subsets.

    A unit's others are *plain* members of keep 1 and others[u, j] of keep
    keeps[u, j].  Its means start as the plain members' (1 up to *plain*,
    then 0) and take one member at a time through
    :func:`tieaware.fast.kernels.subset_mean_step`, every unit with a
    member left of that grade at once: the fold of
    :func:`tieaware.fast.err.subset_means`, with the positions of the units
    taking a member sorted first, so each step touches only those.
    """
    unit, m = expand(slots)
    size = plain.astype(np.float64)[unit]  # members folded in so far, per position
    means = np.where(m <= size, 1.0, 0.0)
    mf = m.astype(np.float64)
    for j in range(others.shape[1]):
        count = others[unit, j]
        if not len(count) or count.max() <= 0:
            continue
        order = np.argsort(-count, kind="stable")
        taking = -count[order]  # ascending
        q = keeps[unit, j]
        for step in range(int(count.max())):
            at = order[: int(np.searchsorted(taking, -step, side="left"))]  # positions of units with a member left
            below = means[at - 1]  # m = 0 weighs it by 0
            means[at] = kernels.subset_mean_step(means[at], below, q[at], size[at], mf[at])
            size[at] += 1
    return means, unit, m


#: Other libraries' conventions (docs/conventions.md) the engine evaluates; ``g_max``, trec_eval's
#: ``gains`` and ``AP(norm=hits)`` (a random divisor) go per query.
CONVENTIONS = frozenset({"norm", "gain", "norel"})


def values(p: Prepared, m: Measure, cache: Optional[dict] = None) -> Optional[np.ndarray]:
    """Every query's float value of measure *m* (in ``p.qids`` order), or None if the engine cannot.

    *cache* (a dict) shares group summaries between measures on the same *p*.
    With ``norel=skip`` and a query without a relevant document, the array
    has dtype object and holds None for that query (the per-query path's value).
    """
    if m.name not in SUPPORTED or any(c not in CONVENTIONS for c in m.conventions):
        return None
    if m.name == "AP" and m.norm == "hits":
        return None
    if cache is None:
        cache = {}
    g = cache.get(id(p))
    if g is None:
        g = cache[id(p)] = Groups(p)
    out = _values(g, m)
    if out is None or m.norel == "0":
        return out
    return _no_relevant(g, m, np.asarray(out, dtype=np.float64))


def _values(g: Groups, m: Measure) -> Optional[np.ndarray]:
    if m.name in ("P", "R", "F1"):
        r, num_rel = g.relevant(m.rel)
        hits = _hits(g, m.k, r)
        if m.name == "P":
            if m.norm == "retrieved":
                return kernels.precision_retrieved_value(hits, m.k, g.length)
            if m.norm == "capped":
                return kernels.precision_capped_value(hits, m.k, num_rel)
            return kernels.precision_value(hits, m.k)
        if m.name == "R":
            return kernels.recall_value(hits, num_rel)
        return kernels.f1_value(hits, m.k, num_rel)
    if m.name == "AP":
        total, num_rel = _ap_total(g, m.k, m.rel)
        if m.norm == "capped":
            return kernels.ap_capped_value(total, num_rel, m.k)
        return kernels.ap_value(total, m.k if m.norm == "k" else num_rel)
    if m.name == "RR":
        return _rr(g, m.k, m.rel)
    if m.name == "RBP":
        return _rbp(g, m.k, m.rbp_p, m.rel)
    if m.name == "ERR":
        return _err(g, m.k)
    gains = gain_sums(g, m.gain, m.rel)
    if gains is None:
        return None
    dcg = _dcg(g, m.k, gains)
    if m.name == "DCG":
        return dcg
    return kernels.ndcg_value(dcg, ideal_dcg(g, m.k, gains))


def _no_relevant(g: Groups, m: Measure, out: np.ndarray) -> np.ndarray:
    """*out* with ``norel=``'s value (1, NaN or None for skip) for the queries without a relevant document.

    Relevant as :func:`tieaware.model.dispatch.no_relevant` decides it on the
    query's judged labels: a label >= rel; for nDCG and DCG a positive gain
    (>= rel with ``gain=binary``); for ERR a positive grade.
    """
    values_ = g.p.label_values
    if m.name in ("nDCG", "DCG") and not m.binary_gain or m.name == "ERR":
        is_rel = np.array([x > 0 for x in values_], dtype=bool)
    else:
        is_rel = np.array([x >= m.rel for x in values_], dtype=bool)
    judged = g.p.judged_label
    has = np.zeros(g.nq, dtype=bool)
    has[g.p.judged_query[is_rel[judged]]] = True
    none = ~has
    if not none.any():
        return out
    if m.norel == "skip":
        held = out.astype(object)
        held[none] = None
        return held
    out = out.copy()
    out[none] = 1.0 if m.norel == "1" else np.nan
    return out


# -- exact mode: the fast layer's closed forms on group summaries read from the arrays ---------

#: Measures whose exact values :class:`ExactQueries` computes from group summaries.
EXACT_SUPPORTED = frozenset({"P", "R", "F1", "AP", "RR", "nDCG", "DCG", "RBP"})


_SMALL_FRACTIONS = [Fraction(r) for r in range(1024)]

#: Orders :meth:`ExactQueries.value` evaluates: the tie groups as they are (None), or each sorted by label.
ORDERS = (None, "worst", "best")


class ExactQueries:
    """Exact per-query values from the group arrays, one query at a time (streaming).

    The closed forms are :mod:`tieaware.fast`'s own ``*_from`` functions
    (``precision_from`` … ``reciprocal_rank_from``, ``dcg_from`` with
    ``ideal_groups``, ``rbp_from``), hence fast's kernels on Fractions, fed
    with group summaries (start, size, relevant count, gain sum) counted in
    numpy for every query at once, so no label is converted or compared per
    document.  The values are the fast layer's, exactly (tests/test_engine.py
    checks ``==`` against :func:`tieaware.runs.evaluate.compute`).

    ``order="worst"`` / ``"best"`` evaluates each tie group sorted by label,
    ascending or descending: the orderings that attain a measure's extremes
    (:func:`tieaware.fast.worst_ordering`).  A sorted group is a run of
    sub-groups of equal labels, each interchangeable within itself, so the
    same group summaries serve the three orders without building the sorted
    rows.

    *memo* (a dict) holds kernel results by argument (AP's group kernel, a
    query's DCG by its groups, nDCG by its DCG and ideal); evaluations of one
    call may share it (the leaderboard's systems and orders do), so it must
    not outlive the kernels it was filled with.
    """

    def __init__(self, p: Prepared, memo: Optional[dict] = None):
        self.p = p
        self.g = Groups(p)
        self.values = p.label_values
        nl = len(self.values)
        # label counts per group: (groups × distinct labels), small ints
        one_hot = np.zeros((p.rows, nl), dtype=np.int32)
        one_hot[np.arange(p.rows), p.label] = 1
        self.counts = np.add.reduceat(one_hot, p.group_start, axis=0) if p.rows else one_hot
        del one_hot
        self.group_bounds = np.searchsorted(p.group_start, np.append(p.query_start, p.rows)).tolist()
        self.judged_bounds = np.searchsorted(p.judged_query, np.arange(len(p.qids) + 1)).tolist()
        self.sizes = self.g.size.astype(np.int64)
        self.starts = self.g.t.astype(np.int64)
        self._rel: dict = {}
        self._tables: dict = {}  # (what, rel or measure, k, order) -> per-query group summaries
        self._gains: dict = {}  # measure -> gain of each label value (None: not rational here)
        memo = {} if memo is None else memo
        self._ap_groups: dict = memo.setdefault("ap_group", {})  # ap_group's results by argument (see _ap_group)
        self._ideals: dict = memo.setdefault("ideal", {})  # (measure, (gain, count) of the judged labels, forms) -> ideal DCG
        self._dcgs: dict = memo.setdefault("dcg", {})  # (measure, the query's (start, size, gain) groups, forms) -> DCG
        self._ndcgs: dict = memo.setdefault("ndcg", {})  # (measure, DCG key, ideal key, forms) -> nDCG

    def _relevant_counts(self, rel: Fraction) -> tuple[np.ndarray, np.ndarray]:
        if rel not in self._rel:
            is_rel = np.array([x >= rel for x in self.values], dtype=np.int64)
            judged = np.bincount(self.p.judged_query, weights=is_rel[self.p.judged_label], minlength=len(self.p.qids))
            self._rel[rel] = (self.counts @ is_rel, judged.astype(np.int64).tolist())
        return self._rel[rel]

    def _relevant_groups(self, rel: Fraction, k: Optional[int], order: Optional[str]) -> tuple[list, list]:
        """(per-query bounds into a list of Group summaries, that list): the groups holding a relevant document.

        fast's *_from functions for P, R, F1, AP, RR and RBP skip the other groups (they add no hits,
        nothing to AP, RR or RBP, nor to the relevant count before a group).  Sorted by label, a group's
        relevant documents (labels >= rel) come last (worst) or first (best): one sub-group of r members,
        all relevant.
        """
        key = ("rel", rel, k, order)
        got = self._tables.get(key)
        if got is None:
            r_all, _ = self._relevant_counts(rel)
            live = np.flatnonzero(r_all)
            if k is not None:  # only the groups that start above the cutoff matter
                live = live[self.starts[live] < k]
            t, n, r = self.starts[live], self.sizes[live], r_all[live]
            if order == "worst":
                t, n = t + n - r, r
            elif order == "best":
                n = r
            small = _SMALL_FRACTIONS
            summary = [
                Group(a, b, small[c] if c < len(small) else Fraction(c), None) for a, b, c in zip(t.tolist(), n.tolist(), r.tolist())
            ]
            bounds = np.searchsorted(self.g.query[live], np.arange(len(self.p.qids) + 1)).tolist()
            got = self._tables[key] = (bounds, summary)
        return got

    def value(self, i: int, m: Measure, forms: bool = False, order: Optional[str] = None):
        """The exact value of measure *m* on query number *i*, or None if not supported here.

        With *forms*, DCG and nDCG are :class:`tieaware.model.logsum.LogSum` values (summed and
        subtracted without sympy; ``.value()`` is the sympy value the default returns, up to form).
        *order* is None (the expected value over the tie-breakings), ``"worst"`` or ``"best"``
        (each tie group sorted by label: the measure's minimum and maximum).
        """
        from tieaware.fast import measures as fm
        from tieaware.fast.rbp import rbp_from

        if m.name not in EXACT_SUPPORTED or m.conventions:  # another library's convention: per query
            return None
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
        if m.name in ("nDCG", "DCG"):
            return self._dcg(i, m, forms, order)
        bounds, groups = self._relevant_groups(m.rel, m.k, order)
        summary = groups[bounds[i] : bounds[i + 1]]
        if m.name == "P":
            return fm.precision_from(summary, m.k)
        if m.name == "R":
            return fm.recall_from(summary, m.k, self._relevant_counts(m.rel)[1][i])
        if m.name == "F1":
            return fm.f1_from(summary, m.k, self._relevant_counts(m.rel)[1][i])
        if m.name == "AP":
            return fm.average_precision_from(summary, m.k, self._relevant_counts(m.rel)[1][i], group=self._ap_group)
        if m.name == "RR":
            return fm.reciprocal_rank_from(summary, m.k)
        return rbp_from(summary, probability(m.rbp_p), m.k)

    def _ap_group(self, t: int, last: int, before: Fraction, r: Fraction, n: int) -> Fraction:
        """fast's AP kernel (:func:`tieaware.fast.kernels.ap_group`), remembered for this evaluation.

        Its arguments (start, last rank, relevant above, relevant, size) are small integers that repeat
        across queries (every untied group is (t, t + 1, before, 1, 1)); the key holds the numerators and
        denominators, as a Fraction's hash costs more than the lookup saves.  The memory lives with the
        evaluation (or the call sharing it), not the process, so a kernel replaced in between (a test's
        slip) is called again.
        """
        key = (t, last, before.numerator, before.denominator, r.numerator, r.denominator, n)
        got = self._ap_groups.get(key)
        if got is None:
            if len(self._ap_groups) >= 1 << 18:  # bounded memory on runs with many distinct groups
                self._ap_groups.clear()
            got = self._ap_groups[key] = kernels.ap_group(t, last, before, r, n)
        return got

    def _gain_table(self, m: Measure) -> Optional[list]:
        name = str(m)
        gains = self._gains.get(name, False)
        if gains is False:
            from tieaware.model.gains import gain_function  # sympy: exact mode only

            gain = gain_function(m.gain)
            try:
                gains = [gain(x) for x in self.values]
            except Exception:
                gains = None  # exp2 on a fractional label: the per-query path raises the proper error
            self._gains[name] = gains
        return gains

    def _gain_groups(self, m: Measure, order: Optional[str]) -> Optional[tuple[list, list]]:
        """(per-query bounds, a list of (start, size, total gain's numerator and denominator) per group of non-zero gain), or None.

        Only the groups holding a document of non-zero gain: dcg_group is 0 for the others (mean gain 0).
        Sorted by label (worst: ascending, best: descending), a group is a run of sub-groups, one per
        label it holds, each of equal gains.
        """
        key = ("gain", str(m), order)
        got = self._tables.get(key, False)
        if got is not False:
            return got
        gains = self._gain_table(m)
        if gains is None:
            self._tables[key] = None
            return None
        present = [j for j, x in enumerate(gains) if x]
        counts = self.counts
        k = m.k
        if order is None:
            live = np.flatnonzero(counts[:, present].any(axis=1)) if present else np.array([], dtype=np.int64)
            if k is not None:
                live = live[self.starts[live] < k]
            rows = counts[live][:, present].tolist()
            total = [sum((c * gains[present[j]] for j, c in enumerate(row) if c), Fraction(0)) for row in rows]
            table = [(a, b, g.numerator, g.denominator) for a, b, g in zip(self.starts[live].tolist(), self.sizes[live].tolist(), total)]
            owner = self.g.query[live]
        else:
            columns = range(len(gains)) if order == "worst" else range(len(gains) - 1, -1, -1)
            ordered = counts[:, list(columns)]
            offset = np.cumsum(ordered, axis=1) - ordered  # members of the labels sorted before each label
            start = self.starts[:, None] + offset
            keep = (ordered > 0) & np.array([bool(gains[j]) for j in columns])[None, :]
            if k is not None:
                keep &= start < k
            g_idx, l_idx = np.nonzero(keep)  # row-major: group by group, labels in sorted order
            label = np.array(list(columns), dtype=np.int64)[l_idx]
            sizes = ordered[g_idx, l_idx].tolist()
            total = [Fraction(c * gains[j]) for c, j in zip(sizes, label.tolist())]
            table = [(a, c, g.numerator, g.denominator) for a, c, g in zip(start[g_idx, l_idx].tolist(), sizes, total)]
            owner = self.g.query[g_idx]
        bounds = np.searchsorted(owner, np.arange(len(self.p.qids) + 1)).tolist()
        got = self._tables[key] = (bounds, table)
        return got

    def _ideal_keys(self) -> list:
        """Per query, its judged labels as (label number, count) pairs, labels best first."""
        got = self._tables.get("ideal")
        if got is None:
            nq, nl = len(self.p.qids), len(self.values)
            tally = np.zeros((nq, nl), dtype=np.int64)
            np.add.at(tally, (self.p.judged_query, self.p.judged_label), 1)
            best_first = sorted(range(nl), key=lambda j: self.values[j], reverse=True)
            got = self._tables["ideal"] = [tuple((j, c) for j, c in zip(best_first, row) if c) for row in tally[:, best_first].tolist()]
        return got

    def _judged_gains(self, m: Measure) -> list:
        """Per query, its judged gains best first as (numerator, denominator, count): the key of its ideal DCG."""
        key = ("judged", str(m))
        got = self._tables.get(key)
        if got is None:
            pairs = [(Fraction(x).numerator, Fraction(x).denominator) for x in self._gain_table(m)]
            got = self._tables[key] = [tuple(pairs[j] + (c,) for j, c in row) for row in self._ideal_keys()]
        return got

    def _dcg(self, i: int, m: Measure, forms: bool = False, order: Optional[str] = None):
        """fast's dcg_from on the query's groups (total gain per group) and on its ideal ranking."""
        from tieaware.fast import measures as fm

        got = self._gain_groups(m, order)
        if got is None:
            return None
        bounds, table = got
        name = str(m)
        parts = tuple(table[bounds[i] : bounds[i + 1]])
        key = (name, parts, forms)
        dcg = self._dcgs.get(key, False)  # queries (and systems) with the same groups share their DCG
        if dcg is False:
            dcg = fm.dcg_from([Group(t, n, None, Fraction(num, den)) for t, n, num, den in parts], m.k)
            if forms:
                dcg = _log_sum(dcg)
            self._dcgs[key] = dcg
        if dcg is None:
            return None
        if m.name == "DCG":
            return dcg if forms else EXACT.value(dcg)
        judged = self._judged_gains(m)[i]
        ideal_key = (name, judged, forms)
        ideal = self._ideals.get(ideal_key, False)  # queries with the same judged gains share their ideal DCG
        if ideal is False:
            gains = self._gain_table(m)
            ideal = fm.dcg_from(fm.ideal_groups([(gains[j], c) for j, c in self._ideal_keys()[i]]), m.k)
            ideal = _log_sum(ideal) if forms else ideal
            self._ideals[ideal_key] = ideal
        if ideal is None:
            return None
        both = (name, parts, judged, forms)
        out = self._ndcgs.get(both, False)
        if out is False:
            out = self._ndcgs[both] = kernels.ndcg_value(dcg, ideal)
        return out


def _log_sum(x: Any) -> Any:
    """An exact-mode DCG sum as a LogSum, or None when it is not one (a gain that is not rational)."""
    from tieaware.model.logsum import LogSum

    try:
        return LogSum.of(x)
    except TieawareError:
        return None
