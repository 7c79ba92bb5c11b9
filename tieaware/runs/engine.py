"""The vectorised tie-aware float engine: every query at once, in numpy.

The rows of a run, joined to the qrels and grouped by tied score
(:class:`tieaware.io.columns.Prepared`), are summarised per tie group (size n,
relevant count r, gain sum G, start rank t inside its query).  Each
measure's closed form (the same ones :mod:`tieaware.fast` proves, see
docs/eval.md) is then evaluated in array form across all groups of all
queries, and summed per query with ``np.bincount``:

- expected hits in the top k: Σ_g clip(k - t, 0, n)·r/n (P, R, F1);
- AP: a group's ranks t+1..e add (r/n)·((b + 1 - (t + 1)·π)·(H_e - H_t) + π·(e - t)),
  with b the relevant documents before it, π = (r-1)/(n-1) and H the
  harmonic numbers (the harmonic-sum form of ``fast.average_precision``);
- RR: the first group holding a relevant document, Σ_x P(first at x)/(t + x),
  stepped for every query at once;
- DCG and nDCG: Σ_g (G/n)·(C_e - C_t), C the cumulative discounts; the ideal
  from the sorted judged gains;
- RBP: Σ_g (r/n)·(p^t - p^e).

Prefix sums (H, C) are accumulated in extended precision so that their
differences keep ~1e-16 relative accuracy; tests/test_engine.py checks every
query against the exact layer to 1e-12.  Measures the engine does not know
(ERR when a group with relevant members of several grades has over 64 slots
within the cutoff, and any measure added to :func:`tieaware.runs.evaluate.compute` later)
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
from typing import Optional

import numpy as np

from tieaware.io.columns import Prepared
from tieaware.model.names import Measure

__all__ = ["SUPPORTED", "EXACT_SUPPORTED", "values", "chunks", "trec_eval_view", "ExactQueries"]

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
    order = p.trec_order
    return Prepared(
        qids=p.qids,
        query=p.query[order],
        label=p.label[order],
        label_values=p.label_values,
        group_start=np.arange(p.rows, dtype=np.int64),
        query_start=p.query_start,
        judged_query=p.judged_query,
        judged_label=p.judged_label,
        trec_order=None,
        skipped_run=p.skipped_run,
        skipped_qrels=p.skipped_qrels,
        judged=None if p.judged is None else p.judged[order],
    )


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
            )
        )
        first = last
    return pieces


class _Groups:
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
        """Relevant documents in earlier groups of the same query."""
        total = np.cumsum(r) - r
        first_group = np.searchsorted(self.start_row, self.p.query_start)
        return total - total[first_group][self.query]

    def first_relevant(self, r: np.ndarray, k: Optional[int]) -> np.ndarray:
        """Every query's first group holding a relevant document and starting above k (queries with one only)."""
        idx = np.flatnonzero((r > 0) if k is None else (r > 0) & (self.t < k))
        return idx[np.flatnonzero(np.append(True, self.query[idx][1:] != self.query[idx][:-1]))] if len(idx) else idx

    def sum_per_query(self, per_group: np.ndarray) -> np.ndarray:
        return np.bincount(self.query, weights=per_group, minlength=self.nq)


def _prefix(terms: np.ndarray) -> np.ndarray:
    """[0, t1, t1+t2, ...] accumulated in extended precision (differences stay accurate)."""
    out = np.zeros(len(terms) + 1, dtype=np.longdouble)
    np.cumsum(terms.astype(np.longdouble), out=out[1:])
    return out


def _span(prefix: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """prefix[hi] - prefix[lo], rounded once to double."""
    return (prefix[hi.astype(np.int64)] - prefix[lo.astype(np.int64)]).astype(np.float64)


def _cut(g: _Groups, k: Optional[int]) -> np.ndarray:
    """The last rank of every group that counts: min(t + n, k)."""
    end = g.t + g.size
    return end if k is None else np.minimum(end, k)


def _hits(g: _Groups, k: int, r: np.ndarray) -> np.ndarray:
    m = np.clip(k - g.t, 0, g.size)
    return g.sum_per_query(m * r / g.size)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _ap(g: _Groups, k: Optional[int], rel: Fraction) -> np.ndarray:
    r, num_rel = g.relevant(rel)
    n, t = g.size, g.t
    depth = g.length[g.query] if k is None else np.minimum(np.float64(k), np.inf)
    last = np.minimum(t + n, depth)
    live = (r > 0) & (t < last)
    pi = np.zeros_like(r)
    np.divide(r - 1, n - 1, out=pi, where=n > 1)
    top = int(max(g.length.max(initial=0), k or 0))
    harmonic = _prefix(1.0 / np.arange(1, top + 1, dtype=np.float64))
    b = g.before(r)
    lastc = np.where(live, last, t)
    contrib = r / n * ((b + 1 - (t + 1) * pi) * _span(harmonic, t, lastc) + pi * (lastc - t))
    return _ratio(g.sum_per_query(np.where(live, contrib, 0.0)), num_rel)


def _rr(g: _Groups, k: Optional[int], rel: Fraction) -> np.ndarray:
    r, _ = g.relevant(rel)
    out = np.zeros(g.nq, dtype=np.float64)
    firsts = g.first_relevant(r, k)
    if not len(firsts):
        return out
    q, t, n, rr = g.query[firsts], g.t[firsts], g.size[firsts], r[firsts]
    slots = n if k is None else np.minimum(n, k - t)
    total = np.zeros(len(firsts))
    none_yet = np.ones(len(firsts))  # f(x-1): the first x-1 slots all irrelevant
    active = np.arange(len(firsts))
    x = 1
    while len(active):
        still = none_yet[active] * (1 - rr[active] / (n[active] - x + 1))
        total[active] += (none_yet[active] - still) / (t[active] + x)
        none_yet[active] = still
        active = active[(slots[active] > x) & (still > 0)]
        x += 1
    out[q] = total
    return out


def _gain_sums(g: _Groups, gain: str) -> Optional[np.ndarray]:
    """Gain per label number, or None when the gain cannot take every label (exp2 on a fraction)."""
    if gain == "linear":
        return np.array([float(x) for x in g.p.label_values])
    if any(x.denominator != 1 for x in g.p.label_values):
        return None  # the per-query path raises the proper error
    return np.array([float(2 ** int(x) - 1) for x in g.p.label_values])


def _discounts(g: _Groups, k: Optional[int]) -> np.ndarray:
    top = int(max(g.length.max(initial=0), np.bincount(g.p.judged_query, minlength=g.nq).max(initial=0), k or 0))
    key = ("discount", top)
    if key not in g._cache:
        g._cache[key] = _prefix(1.0 / np.log2(np.arange(2, top + 2, dtype=np.float64)))
    return g._cache[key]


def _dcg(g: _Groups, k: Optional[int], gains: np.ndarray) -> np.ndarray:
    total_gain = g.per_group(gains[g.p.label])
    last = _cut(g, k)
    live = g.t < last
    d = _discounts(g, k)
    lastc = np.where(live, last, g.t)
    return g.sum_per_query(np.where(live, total_gain / g.size * _span(d, g.t, lastc), 0.0))


def _ideal(g: _Groups, k: Optional[int], gains: np.ndarray) -> np.ndarray:
    jq, jg = g.p.judged_query, gains[g.p.judged_label]
    order = np.lexsort((-jg, jq))
    jq, jg = jq[order], jg[order]
    first = np.searchsorted(jq, jq, side="left")
    rank = np.arange(len(jq)) - first  # 0-based rank inside the query's ideal ranking
    d = np.diff(_discounts(g, k)).astype(np.float64) if len(jq) else np.array([])
    keep = np.ones(len(jq), dtype=bool) if k is None else rank < k
    return np.bincount(jq[keep], weights=jg[keep] * d[rank[keep]], minlength=g.nq)


def _rbp(g: _Groups, k: Optional[int], p: Fraction, rel: Fraction) -> np.ndarray:
    r, _ = g.relevant(rel)
    pf = float(p)
    last = _cut(g, k)
    live = (g.t < last) & (r > 0)
    return g.sum_per_query(np.where(live, r / g.size * (pf**g.t - pf ** np.where(live, last, g.t)), 0.0))


#: A tie group holding relevant documents of two or more grades is evaluated in array form
#: (elementary symmetric polynomials) only with at most this many slots within the cutoff.
ERR_MAX_SLOTS = 64
#: The single-grade ERR path works on batches of groups of about this many (slot, count) terms,
#: so its temporaries stay near 0.2 GB.
ERR_BATCH_TERMS = 1_000_000


def _err(g: _Groups, k: Optional[int]) -> Optional[np.ndarray]:
    """Expected ERR@k, all groups at once (fast.err's factorised form), or None to fall back.

    A group (start t, n members, slots s = min(n, k - t)) adds
    S · Σ_{x<=s} E[R(doc at x)·Π_{y<x} (1 - R(doc at y))] / (t + x), where S is
    the survival product of the earlier groups.  By exchangeability the
    expectation is Σ_i (c_i/n)·R_i·E_{x-1}(others of i), E_m the mean of
    Π(1 - R) over a random m-subset of the other n - 1 members.

    - A group whose relevant members all have one grade (every group, with
      binary qrels): the others are c - 1 of keep q = 1 - R and n - c of keep
      1, so E_m = E[q**J] with J hypergeometric; summed over J in log space,
      with log-factorials in extended precision (:func:`_err_single`).
    - A group with relevant members of several grades: e_m, the elementary
      symmetric polynomial of the others' keeps, from binomial series per
      grade (:func:`_err_mixed`), only with few slots (ERR_MAX_SLOTS);
      otherwise the whole measure falls back per query (None).
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
    stop = (2.0 ** grades[None, :] - 1) / 2.0 ** g_max[g.query][:, None]  # R per group × grade
    keep = 1 - stop
    # survival before each group: Π over earlier groups of the same query of Π keep**count
    with np.errstate(invalid="ignore", divide="ignore"):  # grades above a query's g_max never occur in it
        log_keep = np.where(counts > 0, counts * np.log(np.where(counts > 0, keep, 1.0)), 0.0).sum(axis=1)
    before = g.before(log_keep)
    c, kp, st = counts[live], keep[live], stop[live]
    n, t = g.size[live], g.t[live]
    positive = (c > 0) & (st > 0)  # relevant members, per grade
    kinds = positive.sum(axis=1)
    mixed = np.flatnonzero(kinds >= 2)
    if len(mixed) and int(slots[mixed].max()) > ERR_MAX_SLOTS:
        return None
    total = np.zeros(len(live))
    single = np.flatnonzero(kinds == 1)
    if len(single):
        grade = np.argmax(positive[single], axis=1)
        total[single] = _err_single(n[single], t[single], slots[single], c[single, grade], st[single, grade])
    if len(mixed):
        total[mixed] = _err_mixed(c[mixed], kp[mixed], st[mixed], n[mixed], t[mixed], slots[mixed])
    return np.bincount(g.query[live], weights=np.exp(before[live]) * total, minlength=g.nq)


def _expand(count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, 0-based index) of count[i] consecutive entries per i."""
    count = count.astype(np.int64)
    owner = np.repeat(np.arange(len(count)), count)
    return owner, np.arange(int(count.sum())) - (np.cumsum(count) - count)[owner]


def _err_single(n: np.ndarray, t: np.ndarray, slots: np.ndarray, c: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Σ_{x<=slots} (c/n)·R·E[q**J_x]/(t + x) per group, J_x ~ Hypergeometric(n - 1, c - 1, x - 1)."""
    terms = np.cumsum(slots * c)
    out = np.zeros(len(n))
    lo = 0
    while lo < len(n):  # batches of whole groups, about ERR_BATCH_TERMS terms each (at least one group)
        hi = max(lo + 1, int(np.searchsorted(terms, (terms[lo - 1] if lo else 0) + ERR_BATCH_TERMS, side="right")))
        out[lo:hi] = _err_single_batch(n[lo:hi], t[lo:hi], slots[lo:hi], c[lo:hi], stop[lo:hi])
        lo = hi
    return out


def _err_single_batch(n: np.ndarray, t: np.ndarray, slots: np.ndarray, c: np.ndarray, stop: np.ndarray) -> np.ndarray:
    top = int(n.max())
    log_fact = np.zeros(top + 1, dtype=np.longdouble)
    np.cumsum(np.log(np.arange(1, top + 1, dtype=np.longdouble)), out=log_fact[1:])

    def log_choose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return log_fact[a] - log_fact[b] - log_fact[a - b]

    # (group, slot x): x - 1 = m others above; then (group, x, j): j of them relevant
    group_of_x, m = _expand(slots)
    rel_others = (c - 1).astype(np.int64)[group_of_x]
    plain = (n - c).astype(np.int64)[group_of_x]  # members that never stop the user
    at, j = _expand(rel_others + 1)
    mm, kk, pp = m[at], rel_others[at], plain[at]
    ok = (j <= mm) & (mm - j <= pp)
    jj, rest = np.where(ok, j, 0), np.where(ok, mm - j, 0)
    nn = kk + pp  # = n - 1
    log_q = np.log((1 - stop).astype(np.longdouble))[group_of_x][at]
    log_term = log_choose(kk, jj) + log_choose(pp, rest) - log_choose(nn, mm) + jj * log_q
    term = np.where(ok, np.exp(log_term), 0)
    mean_keep = np.bincount(at, weights=term.astype(np.float64), minlength=len(m))  # E[q**J] per (group, x)
    per_x = mean_keep / (t[group_of_x] + m + 1)
    return (c / n) * stop * np.bincount(group_of_x, weights=per_x, minlength=len(n))


def _err_mixed(c: np.ndarray, kp: np.ndarray, st: np.ndarray, n: np.ndarray, t: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """The groups with relevant members of several grades: e_m of the others from binomial series."""
    nl = c.shape[1]
    top = int(slots.max(initial=0))
    total = np.zeros(len(n))
    for i in range(nl):
        has = c[:, i] > 0
        if not has.any() or not st[:, i].any():
            continue
        others = c - (np.arange(nl) == i)
        poly = np.zeros((len(n), top))
        poly[:, 0] = 1.0
        for j in range(nl):
            # Σ_m C(others_j, m)·keep_j**m z**m, truncated at degree top - 1
            series = np.zeros((len(n), top))
            series[:, 0] = 1.0
            for m_ in range(1, top):
                series[:, m_] = series[:, m_ - 1] * np.maximum(others[:, j] - m_ + 1, 0) / m_ * kp[:, j]
            new = np.zeros_like(poly)
            for m_ in range(top):
                new[:, m_] = (poly[:, : m_ + 1] * series[:, m_::-1]).sum(axis=1)
            poly = new
        inner = np.zeros(len(n))
        ways = np.ones(len(n))  # C(n-1, x-1)
        for x in range(1, top + 1):
            if x > 1:
                ways = ways * (n - x + 1) / (x - 1)
            with np.errstate(invalid="ignore", divide="ignore"):  # x > n only where x > slots
                inner += np.where(x <= slots, poly[:, x - 1] / (n * ways * (t + x)), 0.0)
        total += np.where(has, c[:, i] * st[:, i] * inner, 0.0)
    return total


def values(p: Prepared, m: Measure, cache: Optional[dict] = None) -> Optional[np.ndarray]:
    """Every query's float value of measure *m* (in ``p.qids`` order), or None if the engine cannot.

    *cache* (a dict) shares group summaries between measures on the same *p*.
    """
    if m.name not in SUPPORTED:
        return None
    if cache is None:
        cache = {}
    g = cache.get(id(p))
    if g is None:
        g = cache[id(p)] = _Groups(p)
    if m.name in ("P", "R", "F1"):
        r, num_rel = g.relevant(m.rel)
        hits = _hits(g, m.k, r)
        if m.name == "P":
            return hits / m.k
        if m.name == "R":
            return _ratio(hits, num_rel)
        return 2 * hits / (m.k + num_rel)
    if m.name == "AP":
        return _ap(g, m.k, m.rel)
    if m.name == "RR":
        return _rr(g, m.k, m.rel)
    if m.name == "RBP":
        return _rbp(g, m.k, m.param("p", Fraction(4, 5)), m.rel)
    if m.name == "ERR":
        return _err(g, m.k)
    gains = _gain_sums(g, m.gain)
    if gains is None:
        return None
    dcg = _dcg(g, m.k, gains)
    if m.name == "DCG":
        return dcg
    return _ratio(dcg, _ideal(g, m.k, gains))


# -- exact mode: the fast layer's closed forms on group summaries read from the arrays ---------

#: Measures whose exact values :class:`ExactQueries` computes from group summaries.
EXACT_SUPPORTED = frozenset({"P", "R", "F1", "AP", "RR", "nDCG", "DCG", "RBP"})


_SMALL_FRACTIONS = [Fraction(r) for r in range(1024)]


class ExactQueries:
    """Exact per-query values from the group arrays, one query at a time (streaming).

    The closed forms are :mod:`tieaware.fast`'s own ``*_from`` functions and
    kernels, fed with group summaries (start, size, relevant count, gain
    sum) counted in numpy, so no label is converted or compared per document.
    The values are the fast layer's, exactly (tests/test_engine.py checks
    ``==`` against :func:`tieaware.runs.evaluate.compute`).
    """

    def __init__(self, p: Prepared):
        self.p = p
        self.g = _Groups(p)
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
        self._summary_query = -1
        self._summaries: dict = {}

    def _relevant_counts(self, rel: Fraction) -> tuple[np.ndarray, np.ndarray]:
        if rel not in self._rel:
            is_rel = np.array([x >= rel for x in self.values], dtype=np.int64)
            judged = np.bincount(self.p.judged_query, weights=is_rel[self.p.judged_label], minlength=len(self.p.qids))
            self._rel[rel] = (self.counts @ is_rel, judged.astype(np.int64))
        return self._rel[rel]

    def value(self, i: int, m: Measure):
        """The exact value of measure *m* on query number *i*, or None if not supported here."""
        from tieaware.fast import measures as fm

        if m.name not in EXACT_SUPPORTED:
            return None
        lo, hi = self.group_bounds[i], self.group_bounds[i + 1]
        if m.k is not None:  # only the groups that start above the cutoff matter
            hi = lo + int(np.searchsorted(self.starts[lo:hi], m.k))
        starts, sizes = self.starts[lo:hi].tolist(), self.sizes[lo:hi].tolist()
        if m.name in ("nDCG", "DCG"):
            return self._dcg(i, m, lo, hi, starts, sizes)
        r_all, num_rel_all = self._relevant_counts(m.rel)
        num_rel = int(num_rel_all[i])
        if m.name in ("P", "R", "F1"):
            hits = self._hits(m.k, self.starts[lo:hi], self.sizes[lo:hi], r_all[lo:hi])
            if m.name == "P":
                return hits / m.k
            if m.name == "R":
                return Fraction(0) if num_rel == 0 else hits / num_rel
            return 2 * hits / (m.k + num_rel)
        if m.name == "AP":
            return self._ap(m.k, num_rel, self.starts[lo:hi], self.sizes[lo:hi], r_all[lo:hi])
        if self._summary_query != i:
            self._summary_query, self._summaries = i, {}
        summary = self._summaries.get((m.rel, hi))
        if summary is None:  # shared by the measures of one query with the same rel and depth
            small = _SMALL_FRACTIONS
            summary = [
                fm.Group(t, n, small[r] if r < len(small) else Fraction(r), None)
                for t, n, r in zip(starts, sizes, r_all[lo:hi].tolist())
            ]
            self._summaries[(m.rel, hi)] = summary
        if m.name == "P":
            return fm.precision_from(summary, m.k)
        if m.name == "R":
            return fm.recall_from(summary, m.k, num_rel)
        if m.name == "F1":
            return fm.f1_from(summary, m.k, num_rel)
        if m.name == "AP":
            return fm.average_precision_from(summary, m.k, num_rel)
        if m.name == "RR":
            return fm.reciprocal_rank_from(summary, m.k)
        if m.name != "RBP":
            return None
        from tieaware.fast.rbp import _exact_sum
        from tieaware.model.params import probability

        p = probability(m.param("p", Fraction(4, 5)))
        spans = []
        for g in summary:
            t, n = g.start, g.size
            spans.append((t, t + n if m.k is None else min(t + n, m.k), int(g.relevant), n))
        return _exact_sum(spans, p)

    @staticmethod
    def _hits(k: int, t: np.ndarray, n: np.ndarray, r: np.ndarray) -> Fraction:
        """Σ_g min(n, k - t)·r/n exactly, as fast.measures.hits_from, with one Fraction per distinct size."""
        product = np.clip(k - t, 0, n) * r
        live = product > 0
        if not live.any():
            return Fraction(0)
        sizes, which = np.unique(n[live], return_inverse=True)
        totals = np.zeros(len(sizes), dtype=np.int64)
        np.add.at(totals, which, product[live])
        return sum((Fraction(int(a), int(b)) for a, b in zip(totals.tolist(), sizes.tolist())), Fraction(0))

    @staticmethod
    def _ap(k: Optional[int], num_rel: int, t: np.ndarray, n: np.ndarray, r: np.ndarray) -> Fraction:
        """fast.measures.average_precision_from, visiting only the groups that hold a relevant document."""
        from tieaware.fast.measures import _ap_slots_exact

        if num_rel == 0 or not len(t):
            return Fraction(0)
        depth = int(t[-1] + n[-1]) if k is None else k
        before = np.cumsum(r) - r
        total = Fraction(0)
        small = _SMALL_FRACTIONS
        for i in np.flatnonzero((r > 0) & (t < depth)).tolist():
            ti, ni, ri = int(t[i]), int(n[i]), int(r[i])
            total += _ap_slots_exact(ti + 1, min(ti + ni, depth), ti, int(before[i]), small[ri] if ri < len(small) else Fraction(ri), ni)
        return total / num_rel

    def _dcg(self, i: int, m: Measure, lo: int, hi: int, starts: list, sizes: list):
        from tieaware.model.exact import divide
        from tieaware.fast.kernels import mean_gain
        from tieaware.model.gains import discounted_sum, gain_function

        gain = gain_function(m.gain)
        present = [j for j, x in enumerate(self.values)]
        try:
            gains = [gain(x) for x in self.values]
        except Exception:
            return None  # exp2 on a fractional label: the per-query path raises the proper error
        k = m.k
        terms: dict[int, Fraction] = {}
        counts = self.counts[lo:hi].tolist()
        for t, n, row in zip(starts, sizes, counts):
            if k is not None and t >= k:
                break
            total = sum((c * gains[j] for j, c in zip(present, row) if c), Fraction(0))
            mean = mean_gain(total, n)
            for j in range(t + 1, t + n + 1 if k is None else min(t + n, k) + 1):
                terms[j] = mean
        dcg = discounted_sum(terms, "log2")
        if m.name == "DCG":
            return dcg
        jl = self.p.judged_label[self.judged_bounds[i] : self.judged_bounds[i + 1]]
        tally = np.bincount(jl, minlength=len(self.values)).tolist()
        best = [gains[j] for j in sorted(range(len(self.values)), key=lambda j: self.values[j], reverse=True) for _ in range(tally[j])]
        ideal = {j: g for j, g in enumerate(best[:k] if k is not None else best, start=1)}
        return divide(dcg, discounted_sum(ideal, "log2"))
