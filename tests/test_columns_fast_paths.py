"""The columnar reader's fast paths give exactly what their plain numpy equivalents give.

tieaware.io.columns sorts, deduplicates and joins 7 million rows with shortcuts
(one int64 key instead of a lexsort, a sampled dictionary of distinct
scores, a 64-bit key per (group, docno) with tied keys re-sorted on every
word).  Each shortcut has a slow, obvious equivalent; these tests compare
them on inputs built to hit the corner cases (docnos sharing their first 8
bytes, more distinct values than the sample, many groups).
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware import TieawareError
from tieaware.io import blocks, columns
from tieaware.io.columns import _first_and_inverse, _query_score_order, _trec_eval_order, prepare, read_table

docnos = st.lists(st.text(alphabet="ab0", min_size=1, max_size=11).map(lambda s: "doc00000" + s if len(s) > 6 else s), min_size=1, max_size=40)


def _trec_order_plainly(groups: list[int], names: list[str]) -> list[int]:
    """Rows by group, then docno descending (strcmp order on the bytes), as trec_eval sorts ties."""
    return sorted(range(len(names)), key=lambda i: (groups[i], [-b for b in names[i].encode()] + [1]))


@given(docnos, st.data())
def test_trec_eval_order_matches_a_plain_sort(names, data):
    sizes = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=len(names)))
    groups = [g for g, n in enumerate(sizes, 1) for _ in range(n)][: len(names)]
    groups += [groups[-1]] * (len(names) - len(groups))
    got = _trec_eval_order(np.array(groups, dtype=np.int64), np.array([n.encode() for n in names]))
    expected = _trec_order_plainly(groups, names)
    # docnos may repeat here (the reader refuses that in a query); compare the docnos, not the rows
    assert [names[i] for i in got.tolist()] == [names[i] for i in expected]


def test_trec_eval_order_with_shared_prefixes_and_many_groups():
    rng = np.random.default_rng(7)
    names = [f"MSMARCO_{rng.integers(0, 50):02d}{chr(97 + rng.integers(0, 3))}" for _ in range(5000)]
    groups = np.sort(rng.integers(1, 70_000, size=5000))
    got = _trec_eval_order(groups, np.array([n.encode() for n in names]))
    expected = _trec_order_plainly(groups.tolist(), names)
    assert [names[i] for i in got.tolist()] == [names[i] for i in expected]


@given(st.lists(st.integers(0, 40), min_size=1, max_size=300), st.integers(1, 64))
def test_first_and_inverse_is_numpys_unique(values, sample):
    codes = np.array(values, dtype=np.uint64)
    old = columns._SAMPLE
    columns._SAMPLE = sample  # small samples: values missing from the sample take the slow path
    try:
        first, inverse = _first_and_inverse(codes)
    finally:
        columns._SAMPLE = old
    _, first_np, inverse_np = np.unique(codes, return_index=True, return_inverse=True)
    assert first.tolist() == first_np.tolist()
    assert inverse.tolist() == inverse_np.reshape(-1).tolist()


@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, -0.0, 1.5, 2.0, -3.0, 7.25])), min_size=1, max_size=200))
def test_query_score_order_is_the_lexsort(rows):
    query = np.array([q for q, _ in rows], dtype=np.int64)
    score = np.array([s for _, s in rows])
    text_values, text_id = np.unique(score, return_inverse=True)
    expected = np.lexsort((-score, query))
    assert _query_score_order(query, score, text_id.reshape(-1), text_values).tolist() == expected.tolist()


def test_join_finds_every_judgement_over_many_queries():
    rng = np.random.default_rng(3)
    run_lines, qrels_lines, truth = [], [], {}
    for q in range(300):
        for d in rng.choice(500, size=20, replace=False).tolist():
            run_lines.append(f"q{q} Q0 doc{d} 0 {rng.integers(0, 4)} r\n")
            if rng.random() < 0.3:
                label = int(rng.integers(1, 3))
                qrels_lines.append(f"q{q} 0 doc{d} {label}\n")
                truth[(f"q{q}", f"doc{d}")] = label
    p = prepare(read_table(io.BytesIO("".join(qrels_lines).encode()), "qrels"), read_table(io.BytesIO("".join(run_lines).encode()), "run"))
    # per query, the labels of the judged rows, as the reader joined them and as the dict says
    expected: dict[str, list[int]] = {}
    for (q, _), label in truth.items():
        expected.setdefault(q, []).append(label)
    got: dict[str, list[int]] = {}
    for q, x in zip(p.query[p.judged].tolist(), p.label[p.judged].tolist()):
        got.setdefault(p.qids[q], []).append(int(p.label_values[x]))
    assert {q: sorted(v) for q, v in got.items()} == {q: sorted(v) for q, v in expected.items()}
    assert int((p.label > 0).sum()) == len(truth)  # every judged document here is relevant


def test_join_through_the_bitmap_finds_what_the_binary_search_finds(monkeypatch):
    # with many qrels keys, io.columns._lookup first rules run rows out with a bitmap of the qrels' keys;
    # its threshold at 1 sends this join through it: the same rows judged, with the same labels
    rng = np.random.default_rng(5)
    run_lines, qrels_lines = [], []
    for q in range(60):
        for d in range(40):
            run_lines.append(f"q{q} Q0 doc{d} 0 {rng.integers(0, 4)} r\n")
        for d in rng.choice(60, size=8, replace=False).tolist():  # some judged documents are not retrieved
            qrels_lines.append(f"q{q} 0 doc{d} {int(rng.integers(0, 3))}\n")
    qrels = read_table(io.BytesIO("".join(qrels_lines).encode()), "qrels")
    run = read_table(io.BytesIO("".join(run_lines).encode()), "run")
    want = prepare(qrels, run)
    monkeypatch.setattr(columns, "BITMAP_KEYS", 1)
    got = prepare(qrels, run)
    assert got.judged.tolist() == want.judged.tolist() and int(want.judged.sum()) > 100
    assert got.label.tolist() == want.label.tolist() and got.group_start.tolist() == want.group_start.tolist()


@given(st.lists(st.binary(min_size=0, max_size=12), min_size=1, max_size=30), st.integers(0, 3))
def test_gather_is_plain_slicing(strings, tail):
    # strings of at most 8 bytes are read as masked 64-bit words, longer ones as windows: both are slices
    data = b"".join(strings) + b"x" * tail
    ends = np.cumsum([len(s) for s in strings])
    starts = ends - np.array([len(s) for s in strings])
    got = blocks.gather(np.frombuffer(data, dtype=np.uint8), starts, ends)
    assert got.tolist() == [s.rstrip(b"\0") for s in strings]
    assert got.dtype.itemsize == max(1, max(len(s) for s in strings))


_LINES = ["q1 Q0 d1 1 2 r", "q1\tQ0\td2\t2\t1.5\tr", "q2 Q0 d\x0b3 1 1 r", "q2 Q0 d4 2 1 r\r", "", "q3  Q0 d5 1 1 r",
          " q3 Q0 d6 2 1 r", "q3 Q0 d7 3 1 r ", "q4 Q0 d8 1 1 r extra", "q4 Q0 d9\x00 2 1 r", "q5 Q0 d10 1 1"]


@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=8))
def test_the_numpy_reader_reads_as_the_line_reader(lines):
    # a block with a control byte, a carriage return, a blank line, doubled or edge separators, or another
    # column count goes to the line reader; any block the numpy reader takes, it reads as the line reader does
    block = ("\n".join(lines) + "\n").encode()
    if b"\0" in block:  # refused before either reader sees it, naming the first line that holds one
        first = 10 + block.count(b"\n", 0, block.index(b"\0")) + 1
        with pytest.raises(TieawareError, match=re.escape(f"r:{first}: holds a NUL byte")):
            blocks.parse_block(block, 10, "run", "r")
        return
    try:
        want = blocks._slow_block(block, 10, "run", "r")
    except Exception as exc:  # the line reader refuses it: the numpy reader must not read it either
        assert blocks._fast_block(block, 10, "run") is None
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            blocks.parse_block(block, 10, "run", "r")
        return
    got = blocks.parse_block(block, 10, "run", "r")
    assert [c.tolist() for c in got] == [c.tolist() for c in want]


def test_short_score_texts_are_numbered_as_runs_of_neighbours_number_them(monkeypatch):
    # scores of at most 8 bytes are told apart by their bytes at once (_short_texts); the general path
    # (runs of equal neighbours, then distinct texts) gives the same scores, text numbers and first bad line
    rng = np.random.default_rng(5)
    texts = ["2", "2.0", "-0", "1e3", "0.5", "10", "3.25", "7"]
    for bad in (None, "1.2.3", "x"):
        words = [texts[i] for i in rng.integers(0, len(texts), 3000)]
        if bad is not None:
            words[2100] = words[2500] = bad
        text = "".join(f"q{i // 100} Q0 d{i} 1 {w} r\n" for i, w in enumerate(words))
        run = read_table(io.BytesIO(text.encode()), "run")
        results = []
        for short in (columns._short_texts, lambda values: (None, None)):
            monkeypatch.setattr(columns, "_short_texts", short)
            try:
                results.append([np.asarray(x).tolist() for x in columns._scores(run)])
            except ValueError as exc:
                results.append(str(exc))
        assert results[0] == results[1]
        assert (bad is None) == isinstance(results[0], list)
        if bad is not None:
            assert ":2101:" in results[0]
