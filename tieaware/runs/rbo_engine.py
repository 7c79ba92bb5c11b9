"""Float RBO of many ranking pairs at once: fast's RBO kernels evaluated on arrays.

:func:`tieaware.fast.rbo_bounds` with ``exact=False`` walks one pair of
rankings depth by depth in Python.  This engine computes the same numbers
for every query of two runs together, with numpy: every depth of every
query is one element of a few arrays (queries one after another, found by
their offsets), and the per-depth counts the scan keeps (shared items
active or crossing in each ranking, L's items missing from S) come from
differences at the depths where an item changes state, summed with one
cumulative sum per batch of queries.

The closed forms are not written here: the arrays go through the very
kernels of :mod:`tieaware.fast.rbo_kernels` (``seen_agreement`` up to s,
``unseen_terms`` up to l, ``third_section`` past l), which run on numpy
arrays as they do on floats (their ``min`` is the ARRAY namespace's
``minimum`` of :mod:`tieaware.fast.arith` then).  The series is then summed
as fast's float mode sums it: the same terms (p^d by repeated
multiplication, the tails by fast's own functions) and ``math.fsum`` per
query and bound, so every value equals fast's float value; no value
depends on which other queries share a batch, a piece or a process.

>>> from tieaware.fast import rbo_bounds
>>> pairs = [(["a", ("b", "c")], ["c", "b", "a"]), (["a"], ["b", "a"])]
>>> got = rbo_many(pairs, 0.9, variant="a")
>>> [float(v) for v in got["ext"]] == [rbo_bounds(S, L, "0.9", variant="a", exact=False).ext for S, L in pairs]
True

Beware: float only; exact values stay with :func:`tieaware.fast.rbo_bounds`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple, Optional

import numpy as np

from tieaware.fast import rbo_kernels as K  # looked up when called: the kernels tieaware prove proves
from tieaware.fast.rank_biased_overlap import direct_tail
from tieaware.fast.rbo_kernels import Span, Tail
from tieaware.model.params import probability
from tieaware.model.rbo_input import BOUNDS, bound_name, rbo_pair, variant_name

__all__ = ["Pairs", "rbo_many", "rbo_pairs", "pairs_from_rankings", "pairs_from_tables", "rbo_files", "rbo_rows", "rbo_array_rows"]

#: Depths (elements of the per-depth arrays) per batch of queries: bounds the temporaries (~40 arrays of this many).
BATCH_DEPTHS = 1 << 19


class Pairs(NamedTuple):
    """Ranking pairs as arrays, S (the shorter ranking) and L of every query one after another.

    Rows are items in rank order; a tie group of ranks t..b gives each of its
    rows top t and bottom b (1-based, within the query).
    """

    #: length of S and of L, per query (s <= l)
    s: np.ndarray
    l: np.ndarray
    #: per S row: its group's top and bottom rank, and the index of the same item among L's rows (-1: not in L)
    s_top: np.ndarray
    s_bottom: np.ndarray
    s_partner: np.ndarray
    #: per L row: its group's top and bottom rank, and whether the item is in S
    l_top: np.ndarray
    l_bottom: np.ndarray
    l_shared: np.ndarray


def _offsets(lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


def pairs_from_rankings(pairs: Sequence[tuple[Any, Any]]) -> Pairs:
    """:class:`Pairs` of (S, L) rankings as :func:`tieaware.fast.rbo_bounds` takes them (validated alike).

    >>> pairs_from_rankings([(["a", ("b", "c")], ["c", "x"])]).s_partner.tolist()
    [2, -1]
    """
    s_len, l_len = [], []
    columns: list[list[int]] = [[], [], [], [], [], []]
    base = 0
    for S, L in pairs:
        short, long = rbo_pair(S, L)
        where: dict[Any, int] = {}
        top = 1
        for group in long:
            for item in group:
                where[item] = base + len(columns[3])
                columns[3].append(top)
                columns[4].append(top + len(group) - 1)
            top += len(group)
        short_items = set()
        top = 1
        for group in short:
            for item in group:
                short_items.add(item)
                columns[0].append(top)
                columns[1].append(top + len(group) - 1)
                columns[2].append(where.get(item, -1))
            top += len(group)
        columns[5].extend(item in short_items for group in long for item in group)
        s_len.append(sum(map(len, short)))
        l_len.append(sum(map(len, long)))
    ints = [np.array(c, dtype=np.int64) for c in columns[:5]]
    return Pairs(np.array(s_len, dtype=np.int64), np.array(l_len, dtype=np.int64), *ints, np.array(columns[5], dtype=bool))


def rbo_many(pairs: Sequence[tuple[Any, Any]], p: Any, *, variant: str = "a", bounds: Sequence[str] = BOUNDS, expected: bool = False) -> dict[str, np.ndarray]:
    """{bound: float RBO of every pair}, equal to ``fast.rbo_bounds(S, L, p, variant=variant, exact=False)``.

    With *expected*, ``fast.rbo_expected_bounds`` (variant a) instead.

    >>> rbo_many([(["a", "b"], ["b", "a"])], "0.5", bounds=("max",))["max"].tolist()
    [0.5]
    """
    return rbo_pairs(pairs_from_rankings(pairs), p, variant=variant, bounds=bounds, expected=expected)


def rbo_pairs(pairs: Pairs, p: Any, *, variant: str = "a", bounds: Sequence[str] = BOUNDS, expected: bool = False) -> dict[str, np.ndarray]:
    """{bound: float RBO of every query of *pairs*}, query by query as fast's float mode gives it."""
    p_float = float(probability(p))
    variant = "a" if expected else variant_name(variant)
    bounds = tuple(bound_name(b) for b in bounds)
    n = len(pairs.s)
    out = {bound: np.empty(n, dtype=np.float64) for bound in bounds}
    if not n:
        return out
    s_off, l_off = _offsets(pairs.s), _offsets(pairs.l)
    powers = np.multiply.accumulate(np.full(int(pairs.l.max()), p_float))  # p^d, d = 1.., by repeated products as fast's loop
    first = 0
    while first < n:  # batches of whole queries, about BATCH_DEPTHS depths each
        last = int(np.searchsorted(l_off, l_off[first] + BATCH_DEPTHS, side="right")) - 1
        last = max(last, first + 1)
        values = _batch(pairs, first, min(last, n), s_off, l_off, p_float, powers, variant, expected, bounds)
        for bound in bounds:
            out[bound][first : min(last, n)] = values[bound]
        first = min(last, n)
    return out


def _root(coefficient: np.ndarray, radicands: tuple[np.ndarray, ...]) -> np.ndarray:
    """coefficient / √(Π radicands), multiplied left to right as fast's math.prod does."""
    if not radicands:
        return coefficient
    product = radicands[0]
    for r in radicands[1:]:
        product = product * r
    return coefficient / np.sqrt(product)


def _batch(pairs: Pairs, q0: int, q1: int, s_off_all: np.ndarray, l_off_all: np.ndarray, p: float, powers: np.ndarray, variant: str, expected: bool, bounds: tuple[str, ...]) -> dict[str, np.ndarray]:
    s = pairs.s[q0:q1]
    l = pairs.l[q0:q1]
    nq = q1 - q0
    s_lo, s_hi, l_lo, l_hi = int(s_off_all[q0]), int(s_off_all[q1]), int(l_off_all[q0]), int(l_off_all[q1])
    s_off, l_off = _offsets(s), _offsets(l)
    n = l_hi - l_lo  # depths of the batch: L's rows, one per depth 1..l
    q_of_depth = np.repeat(np.arange(nq), l)
    d = np.arange(n, dtype=np.int64) - l_off[:-1][q_of_depth] + 1
    t_L, b_L = pairs.l_top[l_lo:l_hi], pairs.l_bottom[l_lo:l_hi]
    t_S, b_S, partner = pairs.s_top[s_lo:s_hi], pairs.s_bottom[s_lo:s_hi], pairs.s_partner[s_lo:s_hi]
    q_of_s = np.repeat(np.arange(nq), s)

    # -- the counts at every depth, from the depths where they change ---------------------
    shared = np.flatnonzero(partner >= 0)
    q_sh = q_of_s[shared]
    base = l_off[:-1][q_sh] - 1  # + depth = index of that depth in the batch
    tS, bS = t_S[shared], b_S[shared]
    tL, bL = t_L[partner[shared] - l_lo], b_L[partner[shared] - l_lo]

    end = l_off[1:][q_sh]  # the index past the query's last depth

    def running(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """How many intervals [start, end) of depth indices hold each depth (they never span two queries)."""
        keep = starts < ends
        change = np.bincount(starts[keep], minlength=n + 1) - np.bincount(ends[keep], minlength=n + 1)
        return np.cumsum(change[:n])

    both_active = running(base + np.maximum(bS, bL), end)
    s_crossing = running(base + np.maximum(tS, bL), base + bS)
    l_crossing = running(base + np.maximum(tL, bS), base + bL)
    both_crossing = running(base + np.maximum(tS, tL), base + np.minimum(bS, bL))
    unique = ~pairs.l_shared[l_lo:l_hi]
    group = np.cumsum(d == t_L) - 1  # a group starts at its top rank
    unique_in_group = np.bincount(group, weights=unique, minlength=int(group[-1]) + 1).astype(np.int64)[group]
    unique_rows = np.flatnonzero(unique)
    q_unique = q_of_depth[unique_rows]
    unique_active = running(l_off[:-1][q_unique] - 1 + b_L[unique_rows], l_off[1:][q_unique])
    unique_crossing = np.where(d < b_L, unique_in_group, 0)

    # -- the kernels: d <= s, then s < d <= l ------------------------------------------------
    f = np.float64
    seen = d <= s[q_of_depth]
    a = K.seen_agreement(
        variant, both_active[seen], s_crossing[seen], l_crossing[seen], both_crossing[seen],
        t_S.astype(f), b_S.astype(f), t_L[seen].astype(f), b_L[seen].astype(f), d[seen].astype(f),
    )  # fmt: skip
    at_s = s_off[1:] - 1  # the agreement at depth s, per query: what EXT extrapolates
    a_s = (a[0][at_s], tuple(r[at_s] for r in a[1]))
    unseen = ~seen
    q_un = q_of_depth[unseen]
    terms = K.unseen_terms(
        variant, both_active[unseen], l_crossing[unseen], t_L[unseen].astype(f), b_L[unseen].astype(f),
        d[unseen].astype(f), s[q_un].astype(f), unique_active[unseen], unique_crossing[unseen],
        (a_s[0][q_un], tuple(r[q_un] for r in a_s[1])), expected,
    )  # fmt: skip
    seen_part = _root(a[0], a[1]) * powers[d[seen] - 1]
    p_unseen = powers[d[unseen] - 1]
    un_off = _offsets(l - s)

    # -- past l, then one correctly rounded sum per query and bound -------------------------
    x_l = np.bincount(q_sh, minlength=nq).astype(np.int64)
    l_list, s_list, x_list = l.tolist(), s.tolist(), x_l.tolist()
    weight = (1 - p) / p
    out = {}
    for bound in bounds:
        # each source: (values as a list, offsets of every query's values)
        sources = []
        if bound != "res":
            sources.append((seen_part.tolist(), s_off.tolist()))
        for coefficient, radicands in getattr(terms, bound):
            sources.append(((_root(coefficient, radicands) * p_unseen).tolist(), un_off.tolist()))
        for piece in K.third_section(bound, l, s, x_l, a_s):
            if isinstance(piece, Span):
                sources.append(_span(bound, piece, l, s, x_l, a_s, p, l_list))
            else:
                sources.append((_tail(piece, p, nq), list(range(nq + 1))))
        out[bound] = np.array(
            [math.fsum(itertools.chain.from_iterable(values[o[q] : o[q + 1]] for values, o in sources)) * weight for q in range(nq)],
            dtype=np.float64,
        )
    del l_list, s_list, x_list
    return out


def _span(bound: str, piece: Span, l: np.ndarray, s: np.ndarray, x_l: np.ndarray, a_s: Any, p: float, l_list: list[int]) -> tuple[list[float], list[int]]:
    """A Span past l (MAX and RES: depths l+1..f) as fast's float mode sums it: p^d from p^l by repeated products."""
    size = np.maximum(np.asarray(piece.hi) - np.asarray(piece.lo) + 1, 0).astype(np.int64)
    off = _offsets(size)
    total = int(off[-1])
    if not total:
        return [], off.tolist()
    q = np.repeat(np.arange(len(size)), size)
    j = np.arange(total, dtype=np.int64) - off[:-1][q]
    # The term of every element, from the kernel called on per-element copies of the query's numbers.
    element = K.third_section(bound, l[q], s[q], x_l[q], (a_s[0][q], tuple(r[q] for r in a_s[1])))
    span = next(x for x in element if isinstance(x, Span))
    terms = span.term((l[q] + 1 + j).astype(np.float64))
    p_d = np.array([p ** (l_list[i] + 1 - 1) for i in range(len(size))], dtype=np.float64)  # fast: p ** (lo - 1)
    powers = np.empty(total, dtype=np.float64)
    current = p_d.copy()
    for step in range(int(size.max())):  # one product per depth, as fast's loop, for all queries at once
        current = current * p
        live = np.flatnonzero(size > step)
        powers[off[:-1][live] + step] = current[live]
    return (terms * powers).tolist(), off.tolist()


def _tail(piece: Tail, p: float, nq: int) -> list[float]:
    """One value per query of an infinite Tail, as fast's float mode computes it."""
    a = np.broadcast_to(np.asarray(piece.a, dtype=np.float64), (nq,))
    b = np.broadcast_to(np.asarray(piece.b), (nq,))
    start = np.broadcast_to(np.asarray(piece.start), (nq,)).tolist()
    geometric, _, _ = K.series_tail(a, 0, np.asarray(start), p)
    power = np.array([p**e for e in start], dtype=np.float64)  # Python's pow, as fast's p**start
    values = _root(geometric * power, tuple(np.broadcast_to(r, (nq,)) for r in piece.radicands))
    out = values.tolist()
    for i in np.flatnonzero(b != 0).tolist():  # a logarithmic tail: fast's direct sum, query by query
        out[i] = direct_tail(start[i], p, float(a[i]), float(b[i]))
    return out


def pairs_from_tables(a: Any, b: Any, depth: Optional[int] = None) -> Optional[tuple[list[str], np.ndarray, np.ndarray, Pairs, int, int]]:
    """The shared queries of two runs read as columns (:class:`tieaware.io.columns.Table`) as :class:`Pairs`.

    Returns (qids, |A| and |B| per query, pairs, queries only in A, queries
    only in B), the rankings cut at *depth* as ``tieaware rbo --depth`` cuts
    them (whole tie groups starting at rank <= depth); items are matched
    by docno.  None when two docnos of one run share a 64-bit key (a hash
    collision): the caller then compares query by query.
    """
    from tieaware.io.columns import hash_texts, row_keys, query_numbers, rank_rows

    width = max(a.docno.dtype.itemsize, b.docno.dtype.itemsize)  # one width: equal docnos hash alike in both runs
    hashes = [hash_texts(t.docno, width) for t in (a, b)]
    numbers = [query_numbers(t.qid) for t in (a, b)]
    if depth is None and len(a) and len(b) and numbers[0][0] == numbers[1][0]:
        joined = _same_queries(a, b, hashes, numbers)
        if joined is not None:
            return joined
    sides = [_ranked(t, rank_rows(t, h, numbers=nm), depth, h) for t, h, nm in zip((a, b), hashes, numbers)]
    del hashes, numbers
    names = [side[0] for side in sides]
    common = set(names[0]) & set(names[1])
    qids = [q for q in names[0] if q in common]
    number = {q: i for i, q in enumerate(qids)}
    only_a, only_b = len(names[0]) - len(qids), len(names[1]) - len(qids)
    picked = []
    for qnames, query, top, bottom, docno, docno_hash in sides:
        to_common = np.array([number.get(q, -1) for q in qnames], dtype=np.int64)
        cq = to_common[query] if len(query) else np.zeros(0, dtype=np.int64)
        columns = (cq, top, bottom, docno, docno_hash)
        if len(qnames) != len(qids) or (len(cq) > 1 and (cq[1:] < cq[:-1]).any()):
            rows = np.flatnonzero(cq >= 0)
            rows = rows[np.argsort(cq[rows], kind="stable")]  # common query order, rank order inside
            columns = tuple(c[rows] for c in columns)
        picked.append(columns)
    (qa, ta, ba, da, ha), (qb, tb, bb, db, hb) = picked
    ka, kb = row_keys(qa, ha), row_keys(qb, hb)
    del ha, hb
    order_b = np.argsort(kb, kind="stable")
    sorted_b = kb[order_b]
    if len(sorted_b) and (sorted_b[1:] == sorted_b[:-1]).any():
        return None
    match_a = np.full(len(qa), -1, dtype=np.int64)  # the B row of each A row's docno
    if len(sorted_b) and len(ka):
        pos = np.minimum(np.searchsorted(sorted_b, ka), len(sorted_b) - 1)
        hit = np.flatnonzero(sorted_b[pos] == ka)
        candidate = order_b[pos[hit]]
        truly = da[hit] == db[candidate]
        match_a[hit[truly]] = candidate[truly]
    match_b = np.full(len(qb), -1, dtype=np.int64)
    found = np.flatnonzero(match_a >= 0)
    match_b[match_a[found]] = found
    return _assemble(qids, (qa, ta, ba, match_a), (qb, tb, bb, match_b), only_a, only_b)


def _same_queries(a: Any, b: Any, hashes: list[np.ndarray], numbers: list[tuple[list[bytes], np.ndarray]]) -> Optional[tuple[list[str], np.ndarray, np.ndarray, Pairs, int, int]]:
    """:func:`pairs_from_tables` for two runs holding the same queries in the same order, uncut (the usual piece).

    One sort of each run's (query, docno) keys both shows that no key comes
    twice and joins the runs: equal keys side by side in the two sorted
    arrays (checked on the text) are the same document.  None when a key
    comes twice in a run (a duplicate docno, refused by the general path
    with its lines, or a hash collision): the general path then takes over.
    """
    from tieaware.io.columns import row_keys, rank_rows

    keys = [row_keys(q, h) for (_, q), h in zip(numbers, hashes)]
    orders = [np.argsort(k) for k in keys]
    (sa, sb) = sorted_keys = [k[o] for k, o in zip(keys, orders)]
    del keys
    if any((s[1:] == s[:-1]).any() for s in sorted_keys):
        return None
    oa, ob = orders
    if len(sa) == len(sb) and (sa == sb).all():  # every document in both runs
        rows_a, rows_b = oa, ob
    else:
        pos = np.minimum(np.searchsorted(sb, sa), len(sb) - 1)
        hit = np.flatnonzero(sb[pos] == sa)
        rows_a, rows_b = oa[hit], ob[pos[hit]]
    del sorted_keys, sa, sb, orders
    truly = a.docno[rows_a] == b.docno[rows_b]  # a key of two docnos (a collision across the runs) is no match
    if not truly.all():
        rows_a, rows_b = rows_a[truly], rows_b[truly]
    sides = []
    for table, h, nm in zip((a, b), hashes, numbers):
        qids, order, query_start, group_start = rank_rows(table, h, numbers=nm, duplicates=False)
        position = np.empty(len(order), dtype=np.int64)  # the ranked row of every file row
        position[order] = np.arange(len(order), dtype=np.int64)
        sides.append((qids, position) + _tops(len(order), query_start, group_start))
    (qids, position_a, qa, ta, ba), (_, position_b, qb, tb, bb) = sides
    match_a = np.full(len(a), -1, dtype=np.int64)
    match_b = np.full(len(b), -1, dtype=np.int64)
    ranked_a, ranked_b = position_a[rows_a], position_b[rows_b]
    match_a[ranked_a] = ranked_b
    match_b[ranked_b] = ranked_a
    return _assemble(qids, (qa, ta, ba, match_a), (qb, tb, bb, match_b), 0, 0)


def _assemble(qids: list[str], side_a: tuple, side_b: tuple, only_a: int, only_b: int) -> tuple[list[str], np.ndarray, np.ndarray, Pairs, int, int]:
    """(qids, |A| and |B| per query, pairs, only_a, only_b) from each run's (query, top, bottom, match) in rank order."""
    qa, ta, ba, match_a = side_a
    qb, tb, bb, match_b = side_b
    nq = len(qids)
    len_a, len_b = np.bincount(qa, minlength=nq).astype(np.int64), np.bincount(qb, minlength=nq).astype(np.int64)
    swap = len_a > len_b  # the shorter ranking is S; with equal lengths A is, as rbo_pair keeps the order
    if not swap.any():  # A is S in every query (B is L): the rows are in place already
        return qids, len_a, len_b, Pairs(len_a, len_b, ta, ba, match_a, tb, bb, match_b >= 0), only_a, only_b
    if swap.all():
        return qids, len_a, len_b, Pairs(len_b, len_a, tb, bb, match_b, ta, ba, match_a >= 0), only_a, only_b
    s_len, l_len = np.where(swap, len_b, len_a), np.where(swap, len_a, len_b)
    s_off, l_off = _offsets(s_len), _offsets(l_len)
    off = {"a": _offsets(len_a), "b": _offsets(len_b)}
    s_cols = [np.empty(int(s_off[-1]), dtype=np.int64) for _ in range(3)]
    l_cols = [np.empty(int(l_off[-1]), dtype=np.int64) for _ in range(2)] + [np.empty(int(l_off[-1]), dtype=bool)]
    for side, q, top, bottom, match, other in (("a", qa, ta, ba, match_a, "b"), ("b", qb, tb, bb, match_b, "a")):
        rank = np.arange(len(q), dtype=np.int64) - off[side][:-1][q]
        is_s = swap[q] if side == "b" else ~swap[q]
        at_s = np.flatnonzero(is_s)
        at_l = np.flatnonzero(~is_s)
        where = s_off[:-1][q[at_s]] + rank[at_s]
        s_cols[0][where], s_cols[1][where] = top[at_s], bottom[at_s]
        m = match[at_s]
        s_cols[2][where] = np.where(m >= 0, l_off[:-1][q[at_s]] + (m - off[other][:-1][q[at_s]]), -1)
        where = l_off[:-1][q[at_l]] + rank[at_l]
        l_cols[0][where], l_cols[1][where], l_cols[2][where] = top[at_l], bottom[at_l], match[at_l] >= 0
    pairs = Pairs(s_len, l_len, *s_cols, *l_cols)
    return qids, len_a, len_b, pairs, only_a, only_b


def _ranked(table: Any, ranked: tuple, depth: Optional[int], docno_hash: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(qids, query number, group top, group bottom, docno, docno hash) of every row in rank order, cut at *depth*."""
    qids, order, query_start, group_start = ranked
    query, top, bottom = _tops(len(order), query_start, group_start)
    docno, docno_hash = table.docno[order], docno_hash[order]
    if depth is not None:
        keep = np.flatnonzero(top <= depth)
        query, top, bottom, docno, docno_hash = query[keep], top[keep], bottom[keep], docno[keep], docno_hash[keep]
    return qids, query, top, bottom, docno, docno_hash


def _tops(n: int, query_start: np.ndarray, group_start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query number, group top rank, group bottom rank) of every ranked row, ranks 1-based within the query."""
    query = np.zeros(n, dtype=np.int64)
    query[query_start[1:]] = 1
    query = np.cumsum(query)
    group = np.zeros(n, dtype=np.int64)
    group[group_start] = 1
    group = np.cumsum(group) - 1
    group_end = np.append(group_start[1:], n)
    first = query_start[query] if n else np.zeros(0, dtype=np.int64)
    top = group_start[group] - first + 1
    bottom = group_end[group] - first
    return query, top, bottom


def rbo_files(
    a: Any, b: Any, p: Any, *, variant: str, bounds: tuple[str, ...], depth: Optional[int], exact: bool, jobs: Optional[int]
) -> tuple[list, int, int]:
    """(rows, queries only in A, queries only in B) of two run files: each shared query's (qid, |A|, |B|, [*bounds*' values]).

    Read side by side (:func:`tieaware.runs.paired_runs.paired_files`); in
    float (*exact* false) every query at once through :func:`rbo_pairs`,
    query by query on a hash collision.  Rows come in no set order.
    """
    from tieaware.runs.paired_runs import paired_files

    settings = (p, variant, exact, bounds)
    return paired_files(a, b, rbo_rows, depth, settings, jobs, array_work=None if exact else rbo_array_rows)


def rbo_rows(ranked_a: dict, ranked_b: dict, settings: tuple) -> list:
    """Each shared query's (qid, |A|, |B|, [RBO bounds]) from two {qid: tie groups}; *settings* = (p, variant, exact, bounds)."""
    from tieaware.fast.rank_biased_overlap import rbo_bounds

    p, variant, exact, bounds = settings
    rows = []
    for qid in ranked_a.keys() & ranked_b.keys():
        S, L = ranked_a[qid], ranked_b[qid]
        values = rbo_bounds(S, L, p, variant=variant, exact=exact)
        rows.append((qid, sum(map(len, S)), sum(map(len, L)), [getattr(values, bd) for bd in bounds]))
    return rows


def rbo_array_rows(a: Any, b: Any, depth: Optional[int], settings: tuple) -> Optional[tuple[list, int, int]]:
    """:func:`rbo_rows` in float for every shared query at once (tieaware.runs.rbo_engine); None on a hash collision."""
    p, variant, _, bounds = settings
    paired = pairs_from_tables(a, b, depth)
    if paired is None:
        return None
    qids, len_a, len_b, pairs, only_a, only_b = paired
    values = rbo_pairs(pairs, p, variant=variant, bounds=bounds)
    columns = [values[bd].tolist() for bd in bounds]
    rows = [(qid, a_, b_, [column[i] for column in columns]) for i, (qid, a_, b_) in enumerate(zip(qids, len_a.tolist(), len_b.tolist()))]
    return rows, only_a, only_b
