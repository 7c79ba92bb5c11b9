"""Columnar TREC reading: runs and qrels as numpy arrays, not one Python object per line.

:mod:`tieaware.io.trec` reads a file into dicts of exact Fractions, which is
right for small files and for the Python API.  At MS MARCO scale (6,980
queries × 1,000 documents, 7 million lines) one Python object per line costs
gigabytes and seconds, so ``tieaware eval`` reads through this module:

- :func:`read_table` (:mod:`tieaware.io.blocks`, the block parser) cuts the
  file into columns, byte-string arrays (qid, docno, score or label text)
  with the line number of every row: a :class:`Table`;
- scores and labels are validated as trec_eval's format allows: a decimal
  number with an optional exponent (:data:`NUMBER`), see :func:`number_text`.

:func:`prepare` then joins a run to its qrels and finds the tie groups, per
query, with numpy: rows sorted by query and score, a group boundary wherever
the query or the **exact** score changes (see :func:`prepare` for why float
equality is not used blindly).

>>> import io
>>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\nq1 0 c 2\\n"), "qrels")
>>> run = read_table(io.BytesIO(b"q1 Q0 a 1 3 r\\nq1 Q0 b 2 2.0 r\\nq1 Q0 c 3 2 r\\n"), "run")
>>> p = prepare(qrels, run)
>>> p.qids, p.label_values, p.label.tolist(), p.group_start.tolist()
(['q1'], [Fraction(0, 1), Fraction(1, 1), Fraction(2, 1)], [1, 0, 2], [0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Optional, Union

import numpy as np

from tieaware.io.blocks import Table, read_table
from tieaware.io.text import MAX_NUMBER_CHARS, check_number, number_text
from tieaware.io.tie_break import broken_docnos, broken_rows
from tieaware.model.errors import TieawareError

__all__ = ["Table", "Prepared", "read_table", "prepare", "prepare_dicts", "rank_rows", "query_numbers", "check_duplicates", "label_numbers", "hash_texts", "row_keys"]

#: Bytes a number may hold; anything else (letters, '_', '/', ',') sends the row to check_number.
_NUMBER_BYTES = np.zeros(256, dtype=bool)
_NUMBER_BYTES[[ord(c) for c in "0123456789.+-"]] = True
_NUMBER_BYTES[0] = True  # the padding of numpy byte strings


# -- joining and grouping -------------------------------------------------------


@dataclass
class Prepared:
    """A run joined to its qrels, rows sorted by query then score (best first), ties grouped.

    Only queries in both the run and the qrels are kept (trec_eval's default).
    Arrays indexed by row are in the sorted order; arrays indexed by group
    or query are in group or query order.
    """

    #: The evaluated query ids; index = query number (file order of first appearance).
    qids: list[str]
    #: Query number of every row.
    query: np.ndarray
    #: Label number of every row (into :attr:`label_values`); unjudged rows and negative labels get 0.
    label: np.ndarray
    #: The distinct labels >= 0, exact, sorted; label_values[0] is 0.  A negative qrels label
    #: (in the qrels, not judged) reads as 0, as in trec_eval; :attr:`negative` remembers it.
    label_values: list[Fraction]
    #: First row of every tie group (groups never span queries).
    group_start: np.ndarray
    #: First row of every query.
    query_start: np.ndarray
    #: Label numbers of every judged document, sorted by query (the nDCG ideal and num_rel).
    judged_query: np.ndarray
    judged_label: np.ndarray
    #: Row order that breaks ties as trec_eval 9.0.8 does (score as a C float, descending, then docno descending),
    #: or as the preset :attr:`broken_by` names (:mod:`tieaware.model.tie_presets`).
    trec_order: Optional[np.ndarray]
    #: Run queries without qrels, and judged queries absent from the run.
    skipped_run: list[str]
    skipped_qrels: list[str]
    #: Whether every row's document is judged (in the qrels); None when unknown.  Judged@k and
    #: Bpref read it (an unjudged row has the label 0 like a judged non-relevant one).
    judged: Optional[np.ndarray] = None
    #: Whether every row's qrels label is negative (in the qrels, not judged: TREC's -2); such a
    #: row has the label 0 in :attr:`label`.  None when no label is negative.
    negative: Optional[np.ndarray] = None
    #: The same for every judged document (beside :attr:`judged_label`); None when none is negative.
    judged_negative: Optional[np.ndarray] = None
    #: The tie-breaking preset :attr:`trec_order` follows ("trec_eval" unless another was asked for).
    broken_by: Optional[str] = None

    @property
    def rows(self) -> int:
        return len(self.query)

    def group_sizes(self) -> np.ndarray:
        return np.diff(np.append(self.group_start, self.rows))

    def reordered(self, order: np.ndarray, group_start: np.ndarray) -> "Prepared":
        """The same rows in another order inside their queries (row i of the result is row order[i]), grouped at *group_start*.

        Every per-row array follows *order*; per-query and per-judged-document
        arrays are kept; trec_eval's order no longer applies and is dropped.
        """
        return replace(
            self,
            query=self.query[order],
            label=self.label[order],
            group_start=group_start,
            trec_order=None,
            judged=None if self.judged is None else self.judged[order],
            negative=None if self.negative is None else self.negative[order],
        )


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first index of every run of equal consecutive values, run number of every element)."""
    change = np.ones(len(values), dtype=bool)
    change[1:] = values[1:] != values[:-1]
    heads = np.flatnonzero(change)
    return heads, np.cumsum(change) - 1


def query_numbers(qid: np.ndarray) -> tuple[list[bytes], np.ndarray]:
    """(distinct qids in order of first appearance, query number of every row)."""
    heads, run_of = _distinct(qid)
    index: dict[bytes, int] = {}
    head_numbers = np.fromiter((index.setdefault(q, len(index)) for q in qid[heads].tolist()), dtype=np.int64, count=len(heads))
    return list(index), head_numbers[run_of]


def _padded(strings: np.ndarray, width: int) -> np.ndarray:
    """Every byte string's bytes, NUL-padded to *width* rounded up to whole 8-byte words (rows × bytes, uint8)."""
    words = -(-max(width, strings.dtype.itemsize, 1) // 8)
    out = np.zeros((len(strings), words * 8), dtype=np.uint8)
    out[:, : strings.dtype.itemsize] = strings.view(np.uint8).reshape(len(strings), strings.dtype.itemsize)
    return out


def hash_texts(strings: np.ndarray, width: int) -> np.ndarray:
    """A 64-bit hash of every byte string (FNV-style); equal strings hash alike when read at the same *width*."""
    # 8 bytes at a time: the zero-padded codes read as little-endian 64-bit words
    packed = _padded(strings, width).view("<u8")
    words = packed.shape[1]
    h = np.full(len(strings), 14695981039346656037, dtype=np.uint64)
    prime = np.uint64(1099511628211)
    shifted = np.empty_like(h)
    with np.errstate(over="ignore"):
        for c in range(words):  # in place: no new array per step (each costs its page faults)
            h ^= packed[:, c]
            h *= prime
            np.right_shift(h, np.uint64(29), out=shifted)
            h ^= shifted  # mix the high bits down, so later words spread over all of h
    return h


def _codes(texts: np.ndarray) -> np.ndarray:
    """Byte strings of at most 8 bytes as distinct uint64 codes (their NUL-padded bytes)."""
    return _padded(texts, 8).view("<u8").reshape(-1)


#: :func:`_first_and_inverse` looks for the distinct values in a sample of this many first.
_SAMPLE = 1 << 16


def _first_and_inverse(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_index=True, return_inverse=True)[1:]``, fast when few values are distinct.

    The distinct values of a leading sample are looked up for every code with
    one binary search in a short, cached array; only if some code is missing
    from the sample does the full sort run.
    """
    sample = np.unique(codes[:_SAMPLE])
    if len(sample) * 16 <= min(len(codes), _SAMPLE):
        where = np.minimum(np.searchsorted(sample, codes), len(sample) - 1)
        if (sample[where] == codes).all():
            first = np.full(len(sample), len(codes), dtype=np.int64)
            lo, step = 0, _SAMPLE
            while lo < len(codes) and (first == len(codes)).any():  # first appearances, block by block
                seen, at = np.unique(where[lo : lo + step], return_index=True)
                first[seen] = np.minimum(first[seen], at + lo)
                lo, step = lo + step, step * 4
            return first, where  # every sample value occurs in the sample, so every first is found
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def row_keys(query: np.ndarray, docno_hash: np.ndarray) -> np.ndarray:
    """A 64-bit key of (query, docno); equal pairs give equal keys, a collision is checked on the text.

    The query number fills the high bits (up to 2**24 queries), so the keys of
    one query are close together: the join's binary searches then stay in one
    small, cached stretch of the qrels' keys (about 4x faster than spread keys).
    """
    if len(query) and int(query.max()) >= 1 << 24:
        with np.errstate(over="ignore"):
            return docno_hash * np.uint64(0x9E3779B97F4A7C15) + query.astype(np.uint64)
    return (query.astype(np.uint64) << np.uint64(40)) | (docno_hash >> np.uint64(24))


def label_numbers(qrels: Table) -> tuple[list[Fraction], np.ndarray, Optional[np.ndarray]]:
    """The distinct exact labels >= 0 (0 first, then ascending), every qrels row's label number,
    and which rows have a negative label (None when none has).

    A negative label (TREC Web track qrels: -2 for junk) is read as trec_eval
    reads it: the document is in the qrels but not judged; its label number
    is 0's (non-relevant, gain 0).
    """
    texts, inverse = np.unique(qrels.value, return_inverse=True)
    exact = []
    for i, raw in enumerate(texts.tolist()):
        where = f"{qrels.name}:{int(qrels.line[np.argmax(inverse == i)])}"
        exact.append(number_text(raw.decode("utf-8"), "label", where))
    negative = np.array([v < 0 for v in exact], dtype=bool)
    distinct = sorted({v for v in exact if v >= 0} | {Fraction(0)})
    number = {v: i for i, v in enumerate(distinct)}
    remap = np.array([number.get(v, 0) for v in exact], dtype=np.int64)
    return distinct, remap[inverse], (negative[inverse] if negative.any() else None)


def check_duplicates(table: Table, query: np.ndarray, what: str, docno_hash: Optional[np.ndarray] = None) -> None:
    """Refuse a docno given twice for one query, naming both lines."""
    if not len(table):
        return
    if docno_hash is None:
        docno_hash = hash_texts(table.docno, table.docno.dtype.itemsize)
    key = row_keys(query, docno_hash)
    # A plain sort is cheaper than an argsort: pay for the argsort only when two keys are equal.
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(key)  # equal keys end up adjacent
    ordered = key[order]
    same = ordered[1:] == ordered[:-1]
    del ordered
    # Every row whose key another row shares, in file order: a duplicate is an equal text among
    # them (a collision is not a duplicate).  Not only adjacent pairs: a run of three equal keys
    # may hold a duplicate pair apart, with a colliding docno between them.
    rows = np.sort(order[np.flatnonzero(np.concatenate((same, [False])) | np.concatenate(([False], same)))])
    seen: dict[tuple[int, bytes], int] = {}
    for i in rows.tolist():
        first = seen.setdefault((int(query[i]), table.docno[i]), i)
        if first != i:
            docno, qid = table.docno[i].decode(), table.qid[i].decode()
            raise TieawareError(f"{table.name}:{int(table.line[i])}: {what.format(docno=docno, qid=qid)} (first on line {int(table.line[first])})")


def _scores(run: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every run row's score as a double, validated as :func:`check_number` does, mostly in numpy.

    Returns (score of every row, text number of every row, score of every
    text number).  Rows with equal text numbers have equal score texts (rows
    with different numbers may still have equal texts).
    """
    if run.score is not None:
        return _numeric_scores(run.score)
    heads, run_of = _short_texts(run.value) if run.value.dtype.itemsize <= 8 and len(run) > 1000 else (None, None)
    if heads is None:
        heads, run_of = _distinct(run.value)
    # Few distinct scores (heavy ties): parse each distinct text once, found by hashing.
    if len(heads) > 1000:
        texts = run.value[heads]
        exact_codes = texts.dtype.itemsize <= 8  # a NUL-padded text of <= 8 bytes is its own 64-bit code
        h = _codes(texts) if exact_codes else hash_texts(texts, texts.dtype.itemsize)
        first, inverse = _first_and_inverse(h)
        if len(first) * 2 < len(heads) and (exact_codes or (texts == texts[first][inverse]).all()):
            order = np.argsort(first)  # keep file order, so the first bad text is the first reported
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            heads, run_of = heads[first[order]], rank[inverse.reshape(-1)][run_of]
    texts = run.value[heads]
    codes = texts.view(np.uint8).reshape(len(texts), texts.dtype.itemsize)
    # rows with a byte other than digits, sign and point: exponents (checked for their
    # digit count) and every bad text; check_number names the first bad one.
    odd_rows = ~_NUMBER_BYTES[codes].all(axis=1)
    if texts.dtype.itemsize > MAX_NUMBER_CHARS:
        odd_rows |= (codes != 0).sum(axis=1) > MAX_NUMBER_CHARS
    odd = np.flatnonzero(odd_rows)
    values = np.empty(len(heads), dtype=np.float64)
    for i in odd.tolist():
        values[i] = check_number(texts[i].decode("utf-8"), "score", f"{run.name}:{int(run.line[heads[i]])}")
    plain = np.ones(len(heads), dtype=bool)
    plain[odd] = False
    simple = _simple_decimals(codes, plain, values)
    plain &= ~simple
    try:
        values[plain] = texts[plain].astype(np.float64)
    except ValueError:  # "1.2.3", "+-1", "-": find and name it
        for i in np.flatnonzero(plain).tolist():
            check_number(texts[i].decode("utf-8"), "score", f"{run.name}:{int(run.line[heads[i]])}")
        raise
    return values[run_of], run_of, values


def _short_texts(values: np.ndarray) -> tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """(first row of every distinct text, in file order; its number for every row), texts of at most 8 bytes.

    The NUL-padded bytes of a short text are its own code, so the distinct
    texts are found on the codes at once, with no pass over runs of equal
    neighbours; (None, None) when many are distinct (in a leading sample,
    or over half the rows).
    """
    size = values.dtype.itemsize
    values = np.ascontiguousarray(values)
    codes = values.view(f"u{size}") if size in (1, 2, 4, 8) else _codes(values)
    if len(np.unique(codes[:_SAMPLE])) * 16 > min(len(codes), _SAMPLE):
        return None, None  # many distinct texts: the runs of equal neighbours first
    first, inverse = _first_and_inverse(codes)
    if len(first) * 2 >= len(values):
        return None, None
    order = np.argsort(first)  # number the texts in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def _numeric_scores(score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_scores` for scores given as numbers: equal doubles are equal values (-0.0 is 0.0)."""
    score = np.asarray(score, dtype=np.float64) + 0.0  # + 0.0: -0.0 becomes 0.0, whose bits differ
    if not len(score):
        return score, np.zeros(0, dtype=np.int64), score
    first, inverse = _first_and_inverse(score.view(np.uint64))
    return score, inverse.astype(np.int64), score[first]


def _simple_decimals(codes: np.ndarray, candidates: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Parse, in numpy, the texts ``[-+]digits[.digits]`` with at most 15 digits; return which were.

    With at most 15 digits the digits form an integer M < 2**53 and the text's
    value is M / 10**f (f digits after the point, f <= 15): one division of
    two exact doubles, correctly rounded, so it is the double ``float(text)``
    gives.
    """
    digit = (codes >= 48) & (codes <= 57)
    dot = codes == 46
    sign = (codes == 45) | (codes == 43)
    ndigits = digit.sum(axis=1)
    ok = candidates & (ndigits >= 1) & (ndigits <= 15) & (dot.sum(axis=1) <= 1) & ~sign[:, 1:].any(axis=1)
    if not ok.any():
        return ok
    rows = np.flatnonzero(ok)
    c, d = codes[rows], digit[rows]
    m = np.zeros(len(rows), dtype=np.int64)
    for col in range(c.shape[1]):
        m = np.where(d[:, col], m * 10 + (c[:, col].astype(np.int64) - 48), m)
    after = np.cumsum(dot[rows], axis=1) > 0
    frac = (d & after).sum(axis=1)
    value = m / np.power(10.0, frac)
    out[rows] = np.where(c[:, 0] == 45, -value, value)
    return ok


def prepare(qrels: Table, run: Table, *, trec_order: Union[bool, str] = True) -> Prepared:
    """Join *run* to *qrels* and group ties, per query; see the module docstring.

    *trec_order*: True keeps trec_eval's order of the rows beside the groups
    (:attr:`Prepared.trec_order`), a preset's name (:mod:`tieaware.model.tie_presets`) that preset's.

    **Ties are equal exact values of the score text**, in float mode too.
    Rows are sorted by the double nearest each score (rounding is monotone,
    so this is the exact order except among scores that round to the same
    double).  Neighbours with the same text tie.  Where neighbours round to
    the same double but their texts differ (``2`` and ``2.0``, or ``0.1``
    and ``0.10000000000000001``), that stretch is re-sorted and grouped by
    exact Fraction value.  So the groups are exactly those of
    :func:`tieaware.io.trec.tie_groups`, whatever the digits.
    """
    qrels_names, qrels_query = query_numbers(qrels.qid)
    run_names, run_query_all = query_numbers(run.qid)
    # The run's docnos are hashed once, for the duplicate check and for the join, so at the
    # width of the wider docno column (the hash of a string depends on the width it is read at).
    width = max(run.docno.dtype.itemsize, qrels.docno.dtype.itemsize)
    run_hash_all = hash_texts(run.docno, width)
    check_duplicates(qrels, qrels_query, "duplicate judgement of docno {docno!r} for query {qid!r}")
    check_duplicates(run, run_query_all, "duplicate docno {docno!r} for query {qid!r}", run_hash_all)
    label_values, qrels_label, qrels_negative = label_numbers(qrels)
    score_all, text_all, text_values = _scores(run)

    judged_names = set(qrels_names)
    run_name_set = set(run_names)
    kept = [q for q in run_names if q in judged_names]
    number = {q: i for i, q in enumerate(kept)}
    # run rows of evaluated queries, renumbered
    to_kept = np.array([number.get(q, -1) for q in run_names], dtype=np.int64)
    row_query = to_kept[run_query_all] if len(run) else np.array([], dtype=np.int64)
    keep = row_query >= 0
    if keep.all():  # the usual case: no copies (source None: every row, in file order)
        source = None
        query, score, text_id, run_hash = row_query, score_all, text_all, run_hash_all
    else:
        source = np.flatnonzero(keep)
        query, score, text_id, run_hash = row_query[source], score_all[source], text_all[source], run_hash_all[source]
    del keep, score_all, text_all, row_query, run_query_all, run_hash_all
    # qrels rows of evaluated queries, in the same numbering
    q_to_kept = np.array([number.get(q, -1) for q in qrels_names], dtype=np.int64)
    jq = q_to_kept[qrels_query] if len(qrels) else np.array([], dtype=np.int64)
    jkeep = jq >= 0

    # Sort by query, then score descending (stable: file order among equal doubles).  The
    # byte-string columns (docno, score text) are not permuted: `source` maps every sorted
    # row to its line of the run, and they are read through it where needed.
    order = _query_score_order(query, score, text_id, text_values)
    query, score, run_hash = query[order], score[order], run_hash[order]
    source = order if source is None else source[order]
    # scores given as numbers: equal doubles are equal values, so there is no text to compare
    text_id = None if run.score is not None else text_id[order]
    n = len(query)
    boundary = _tie_boundaries(run, query, score, text_id, [query, score, run_hash, source])
    del text_id
    group_start = np.flatnonzero(boundary)
    query_start = np.flatnonzero(np.append(True, query[1:] != query[:-1])) if n else np.array([], dtype=np.int64)

    # labels of run rows: join on (query, docno) through 64-bit hashes, checked on the text
    label = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=bool)
    negative = None if qrels_negative is None else np.zeros(n, dtype=bool)
    jrows = np.flatnonzero(jkeep)
    if n and len(jrows):
        jkey = row_keys(jq[jrows], hash_texts(qrels.docno[jrows], width))
        jorder = np.argsort(jkey)
        sorted_keys = jkey[jorder]
        if (sorted_keys[1:] == sorted_keys[:-1]).any():  # a hash collision inside the qrels: join by dict
            judged = {(int(q), d): int(x) for q, d, x in zip(jq[jrows], qrels.docno[jrows].tolist(), qrels_label[jrows])}
            docnos = run.docno[source].tolist()
            label = np.fromiter((judged.get((int(q), d), 0) for q, d in zip(query, docnos)), dtype=np.int64, count=n)
            seen = np.fromiter(((int(q), d) in judged for q, d in zip(query, docnos)), dtype=bool, count=n)
            if qrels_negative is not None:
                neg = {(int(q), d) for q, d, x in zip(jq[jrows], qrels.docno[jrows].tolist(), qrels_negative[jrows]) if x}
                negative = np.fromiter(((int(q), d) in neg for q, d in zip(query, docnos)), dtype=bool, count=n)
        else:
            hit_rows, pos = _lookup(sorted_keys, row_keys(query, run_hash))
            match = jrows[jorder[pos]]
            truly = qrels.docno[match] == run.docno[source[hit_rows]]
            idx = hit_rows[truly]
            label[idx] = qrels_label[match[truly]]
            seen[idx] = True
            if negative is not None:
                negative[idx] = qrels_negative[match[truly]]

    jorder2 = np.argsort(jq[jrows], kind="stable")
    judged_query = jq[jrows][jorder2]
    judged_label = qrels_label[jrows][jorder2]
    judged_negative = None if qrels_negative is None else qrels_negative[jrows][jorder2]

    trec = None
    broken_by = None if not trec_order else "trec_eval" if trec_order is True else str(trec_order)
    if broken_by not in (None, "trec_eval") and n:
        trec = broken_rows(broken_by, query, score, group_start, run.docno[source], source, label)
    elif trec_order and n:
        # trec_eval 9.0.8 keeps scores in a C float (trec_format.h): its tie groups are the
        # stretches of equal float32s, contiguous here because rounding to float32 is monotone.
        with np.errstate(over="ignore"):  # beyond float32's range: infinity, as in C
            single = score.astype(np.float32)
        same = np.zeros(n, dtype=bool)
        same[1:] = (query[1:] == query[:-1]) & (single[1:] == single[:-1])
        trec = _trec_eval_order(np.cumsum(~same), run.docno[source])
    return Prepared(
        qids=[q.decode("utf-8") for q in kept],
        query=query,
        label=label,
        label_values=label_values,
        group_start=group_start,
        query_start=query_start,
        judged_query=judged_query,
        judged_label=judged_label,
        trec_order=trec,
        broken_by=broken_by,
        skipped_run=[q.decode("utf-8") for q in run_names if q not in judged_names],
        skipped_qrels=[q.decode("utf-8") for q in qrels_names if q not in run_name_set],
        judged=seen,
        negative=negative if negative is not None and negative.any() else None,
        judged_negative=judged_negative if judged_negative is not None and judged_negative.any() else None,
    )


#: A join with at least this many qrels keys first rules out most run rows with a bitmap of those keys.
BITMAP_KEYS = 1 << 16


def _lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the positions in *keys* of the keys found in *sorted_keys*, where they are found there).

    With many qrels keys (recommender data: hundreds of thousands) and many
    more run rows, a bitmap of about 8 bits per qrels key (one bit from a mix
    of each key) rules out most run rows with one look-up each, and only the
    rest are found by binary search; a row ruled out cannot be in the qrels,
    so the result is the same.
    """
    candidates = None
    if len(sorted_keys) >= BITMAP_KEYS and len(keys) >= 4 * len(sorted_keys):
        bits = (8 * len(sorted_keys) - 1).bit_length()
        mix, shift = np.uint64(0x9E3779B97F4A7C15), np.uint64(64 - bits)
        member = np.zeros(1 << bits, dtype=bool)
        member[((sorted_keys * mix) >> shift).astype(np.intp)] = True
        slot = keys * mix
        slot >>= shift
        candidates = np.flatnonzero(member[slot.astype(np.intp)])
        keys = keys[candidates]
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    hit = np.flatnonzero(sorted_keys[pos] == keys)
    return (hit if candidates is None else candidates[hit]), pos[hit]


def rank_rows(
    run: Table, docno_hash: Optional[np.ndarray] = None, *, numbers: Optional[tuple[list[bytes], np.ndarray]] = None, duplicates: bool = True
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """A run's rows ranked per query without qrels (for RBO): (qids, row order, query starts, group starts).

    The order sorts rows by query (first appearance), then score descending;
    groups are runs of equal **exact** scores, as :func:`prepare` finds them.
    A docno given twice for one query is refused, naming both lines.
    *docno_hash*: the rows' docnos hashed by :func:`hash_texts` (at any one width), when the caller has them;
    *numbers*: the run's ``query_numbers(run.qid)``, when the caller has them; ``duplicates=False``:
    the caller has found every (query, docno) once already.

    >>> import io
    >>> t = read_table(io.BytesIO(b"q1 Q0 a 1 1 r\\nq1 Q0 b 2 2.0 r\\nq1 Q0 c 3 2 r\\n"), "run")
    >>> qids, order, qs, gs = rank_rows(t)
    >>> t.docno[order].tolist(), gs.tolist()
    ([b'b', b'c', b'a'], [0, 2])
    """
    names, query = query_numbers(run.qid) if numbers is None else numbers
    if duplicates:
        check_duplicates(run, query, "duplicate docno {docno!r} for query {qid!r}", docno_hash)
    score, text_id, text_values = _scores(run)
    order = _query_score_order(query, score, text_id, text_values)
    query, score, text_id, source = query[order], score[order], text_id[order], order.copy()
    n = len(query)
    boundary = _tie_boundaries(run, query, score, text_id, [query, score, source]) if run.score is None else _double_boundaries(query, score)
    query_start = np.flatnonzero(np.append(True, query[1:] != query[:-1])) if n else np.array([], dtype=np.int64)
    qids = [names[i].decode("utf-8") for i in query[query_start].tolist()]
    return qids, source, query_start, np.flatnonzero(boundary)


def _query_score_order(query: np.ndarray, score: np.ndarray, text_id: np.ndarray, text_values: np.ndarray) -> np.ndarray:
    """The stable order of the rows by query, then score descending: ``np.lexsort((-score, query))``.

    With few distinct scores (heavy ties), each row gets one int64 key,
    query·D + (rank of its score among the D distinct doubles, descending),
    and one stable argsort of it replaces the lexsort (~2.5x faster); in the
    narrowest unsigned type that holds it (numpy's stable sort of 16-bit keys
    is a radix sort, ~3x faster than of 64-bit ones).
    """
    if len(text_values) * 4 > len(query) or not len(query):
        return np.lexsort((-score, query))
    distinct, inverse = np.unique(text_values, return_inverse=True)
    rank = (len(distinct) - 1 - inverse.reshape(-1)).astype(np.int64)
    top = (int(query.max()) + 1) * len(distinct)
    kind = np.uint16 if top <= 1 << 16 else np.uint32 if top <= 1 << 32 else np.int64
    key = query.astype(kind) * kind(len(distinct)) + rank.astype(kind)[text_id]
    return np.argsort(key, kind="stable")


def _double_boundaries(query: np.ndarray, score: np.ndarray) -> np.ndarray:
    """True where a row, sorted by query and score, starts a new group of equal doubles."""
    boundary = np.ones(len(query), dtype=bool)
    boundary[1:] = (query[1:] != query[:-1]) | (score[1:] != score[:-1])
    return boundary


def _tie_boundaries(run: Table, query: np.ndarray, score: np.ndarray, text_id: Optional[np.ndarray], columns: list[np.ndarray]) -> np.ndarray:
    """True where a sorted row starts a new tie group: a new query, another double, or another exact value.

    Rows of one double whose score texts differ are ordered and grouped by
    exact value (:func:`_exact_regroup`, *columns* permuted alike, the last
    the run line of every row).  Equal text numbers mean equal texts; other
    numbers are compared on the text itself.  *text_id* None: scores given as
    numbers, whose equal doubles are equal values (no text to compare).
    """
    boundary = _double_boundaries(query, score)
    if text_id is None:
        return boundary
    source = columns[-1]
    maybe = np.flatnonzero(~boundary[1:] & (text_id[1:] != text_id[:-1]))
    if len(maybe):
        differ = np.zeros(len(query) - 1, dtype=bool)
        differ[maybe] = run.value[source[maybe]] != run.value[source[maybe + 1]]
        if differ.any():
            _exact_regroup(differ, boundary, columns, lambda rows: run.value[rows])
    return boundary


def _exact_regroup(differ: np.ndarray, boundary: np.ndarray, columns: list[np.ndarray], text_of: Any) -> None:
    """Within stretches of equal doubles whose texts differ, order and group by exact value (in place).

    *columns* are permuted alike; the last is the run line of every row, and
    ``text_of(lines)`` gives those lines' score texts.
    """
    spans = np.flatnonzero(differ)
    done = -1
    for i in spans:
        if i <= done:
            continue
        lo = int(i)
        while lo > 0 and not boundary[lo]:
            lo -= 1
        hi = int(i) + 1
        while hi + 1 < len(boundary) and not boundary[hi + 1]:
            hi += 1
        # rows lo..hi share a query and a double; sort them by exact value, descending (stable)
        exact = [Fraction(t.decode()) for t in text_of(columns[-1][lo : hi + 1]).tolist()]
        perm = sorted(range(len(exact)), key=lambda j: exact[j], reverse=True)
        for col in columns:
            col[lo : hi + 1] = col[lo : hi + 1][perm]
        for j in range(1, len(perm)):
            boundary[lo + j] = exact[perm[j]] != exact[perm[j - 1]]
        done = hi


def _trec_eval_order(sim_group: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """Rows (already sorted by query and score) in trec_eval's order: among equal sims, docno descending.

    *sim_group* numbers the stretches of rows with one query and one score
    as trec_eval stores it (a float32), in order (non-decreasing).  A
    NUL-padded byte string compares like big-endian unsigned words (strcmp's
    order), and the bitwise complement reverses it.  One 64-bit key per row, the group number in the
    high bits and the docno's leading bits below, sorts most rows at once
    (a lexsort over every word costs ~4x more); rows whose keys tie (the same
    group and the same leading bits) are then ordered on every word.
    """
    words = ~_padded(docno, docno.dtype.itemsize).view(">u8").astype(np.uint64)
    group_bits = int(sim_group[-1]).bit_length() if len(sim_group) else 0
    if group_bits > 40:  # too many groups to leave room for the docno: sort on every word
        return np.lexsort([words[:, c] for c in range(words.shape[1] - 1, -1, -1)] + [sim_group])
    key = (sim_group.astype(np.uint64) << np.uint64(64 - group_bits)) | (words[:, 0] >> np.uint64(group_bits))
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    tie = ordered[1:] == ordered[:-1]
    del key, ordered
    if tie.any():
        member = np.zeros(len(order), dtype=bool)
        member[:-1] |= tie
        member[1:] |= tie
        at = np.flatnonzero(member)  # positions (in sorted order) of rows in a tied stretch
        stretch = np.cumsum(np.append(True, ~tie[at[:-1]]))  # tied stretches are contiguous
        rows = order[at]
        finer = np.lexsort([words[rows, c] for c in range(words.shape[1] - 1, -1, -1)] + [stretch])
        order[at] = rows[finer]
    return order


def prepare_dicts(qrels: Any, run: Any, queries: Any, *, trec_order: Union[bool, str] = False) -> Prepared:
    """A :class:`Prepared` from tieaware's dict forms (:data:`tieaware.io.trec.Qrels`, :data:`tieaware.io.trec.Run`).

    *queries* are the query ids to keep, in order.  Groups are those of
    :func:`tieaware.io.trec.tie_groups` (exact score equality); with
    *trec_order*, every document is its own group, in trec_eval's order
    (or the order of the preset it names, :mod:`tieaware.model.tie_presets`).
    """
    from tieaware.io.trec import tie_groups

    rule = "trec_eval" if trec_order is True else trec_order

    distinct: dict[Fraction, int] = {Fraction(0): 0}
    for q in queries:
        for x in qrels[q].values():
            if x >= 0:
                distinct.setdefault(x, 0)
    # Fractions, whatever number type the dicts hold: the exact path divides by them (int / int would be a float).
    label_values = sorted({Fraction(x) for x in distinct})
    number = {v: i for i, v in enumerate(label_values)}
    number_of = lambda x: number[x] if x >= 0 else 0  # noqa: E731  (a negative label reads as 0)
    query, label, group_start, query_start, jq, jl, seen, negative, jn = [], [], [], [], [], [], [], [], []
    row = 0
    for i, q in enumerate(queries):
        judged = qrels[q]
        query_start.append(row)
        groups = [[d] for d in broken_docnos(run[q], judged, rule)] if rule else tie_groups(run[q])
        for g in groups:
            group_start.append(row)
            for d in g:
                x = judged.get(d)
                label.append(0 if x is None else number_of(x))
                seen.append(x is not None)
                negative.append(x is not None and x < 0)
            row += len(g)
        query.extend([i] * (row - query_start[-1]))
        jq.extend([i] * len(judged))
        jl.extend(number_of(x) for x in judged.values())
        jn.extend(x < 0 for x in judged.values())
    as_int = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    return Prepared(
        qids=list(queries),
        query=as_int(query),
        label=as_int(label),
        label_values=label_values,
        group_start=as_int(group_start),
        query_start=as_int(query_start),
        judged_query=as_int(jq),
        judged_label=as_int(jl),
        trec_order=None,
        skipped_run=[],
        skipped_qrels=[],
        judged=np.array(seen, dtype=bool),
        negative=np.array(negative, dtype=bool) if any(negative) else None,
        judged_negative=np.array(jn, dtype=bool) if any(jn) else None,
    )
