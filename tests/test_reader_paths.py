"""The columnar reader's rare paths: files it opens are closed, and 64-bit hash collisions fall back to an exact join.

tieaware.io.columns joins runs to qrels and finds duplicate docnos through
64-bit hashes of the docnos.  A collision is astronomically rare on real
data, so these tests force one (every docno hashing alike) and require the
same result as the ordinary path: the fallbacks are the obvious, slow
equivalents (a dict join, a sort of the texts themselves).
"""

from __future__ import annotations

import gc
import io
import warnings
from fractions import Fraction

import numpy as np
import pytest

from tieaware import TieawareError
from tieaware.io import columns
from tieaware.io.columns import prepare, read_table
from tieaware.runs.evaluate import evaluate_prepared

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 0\nq2 0 d 1\nq3 0 x 1\n"
RUN = "q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.9 r\nq1 Q0 c 3 0.5 r\nq1 Q0 z 4 0.4 r\nq2 Q0 a 1 3 r\nq2 Q0 d 2 1 r\nq2 Q0 e 3 1 r\n"


def _evaluate() -> dict:
    p = prepare(read_table(io.BytesIO(QRELS.encode()), "qrels"), read_table(io.BytesIO(RUN.encode()), "run"))
    return evaluate_prepared(p, "AP nDCG P@2 Judged@3", exact=True).per_query


def _colliding(strings: np.ndarray, width: int) -> np.ndarray:
    return np.zeros(len(strings), dtype=np.uint64)


def test_a_hash_collision_joins_and_checks_by_the_texts(monkeypatch):
    plain = _evaluate()
    monkeypatch.setattr(columns, "hash_texts", _colliding)
    assert _evaluate() == plain
    # the judged documents of q1 are a, b, c (z, ranked 4th, is unjudged); q2's e is unjudged
    assert plain["q1"]["Judged@3"] == 1 and plain["q2"]["Judged@3"] == Fraction(2, 3)


@pytest.mark.parametrize("kind, text, message", [
    # a, b, a: with every hash equal the two a's need not be neighbours in key order
    ("run", "q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.8 r\nq1 Q0 a 3 0.7 r\n", r"<\w+>:3: duplicate docno 'a' for query 'q1' \(first on line 1\)"),
    ("qrels", "q1 0 a 1\nq1 0 b 0\nq1 0 a 0\n", r"<\w+>:3: duplicate judgement of docno 'a' for query 'q1' \(first on line 1\)"),
])
def test_duplicates_are_found_when_every_hash_collides(monkeypatch, kind, text, message):
    monkeypatch.setattr(columns, "hash_texts", _colliding)
    tables = {"run": read_table(io.BytesIO(RUN.encode()), "run"), "qrels": read_table(io.BytesIO(QRELS.encode()), "qrels")}
    tables[kind] = read_table(io.BytesIO(text.encode()), kind)
    with pytest.raises(TieawareError, match=message):
        prepare(tables["qrels"], tables["run"])
    # and no false duplicate: distinct docnos with equal hashes are fine
    assert prepare(read_table(io.BytesIO(QRELS.encode()), "qrels"), read_table(io.BytesIO(RUN.encode()), "run")).qids == ["q1", "q2"]


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
def test_read_table_closes_the_files_it_opens(tmp_path, suffix):
    import bz2
    import gzip

    path = tmp_path / f"run{suffix}"
    data = RUN.encode()
    path.write_bytes({"": data, ".gz": gzip.compress(data), ".bz2": bz2.compress(data)}[suffix])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = read_table(path, "run")
        gc.collect()
    assert len(table) == 7
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


def test_read_table_leaves_a_stream_it_was_given_open():
    stream = io.BytesIO(RUN.encode())
    assert len(read_table(stream, "run")) == 7
    assert not stream.closed


@pytest.mark.parametrize("sample", [16, 64, 1000])
@pytest.mark.parametrize("case", ["first unique", "late value beyond the sample", "late value inside", "repeats"])
def test_first_and_inverse_on_its_fast_path(monkeypatch, sample, case):
    # the fast path needs >= 16 codes per distinct value in the sample: the hypothesis test rarely gets there
    rng = np.random.default_rng(len(case) * sample)
    codes = rng.choice(np.array([3, 5, 8, 13], dtype=np.uint64), size=4000)
    if case == "first unique":
        codes[0] = 1  # a value seen only at index 0
    elif case == "late value beyond the sample":
        codes[3000] = 99  # above every sampled value: the binary search runs off the end
    elif case == "late value inside":
        codes[3000] = 4
    monkeypatch.setattr(columns, "_SAMPLE", sample)
    first, inverse = columns._first_and_inverse(codes)
    _, first_np, inverse_np = np.unique(codes, return_index=True, return_inverse=True)
    assert first.tolist() == first_np.tolist()
    assert inverse.tolist() == inverse_np.reshape(-1).tolist()


def test_equal_scores_in_neighbouring_queries_are_not_one_group():
    # sorted by query, then score: q1's last row and q2's first share the score 1; each query keeps its own groups
    qrels = read_table(io.BytesIO(b"q1 0 a 1\nq1 0 b 0\nq2 0 c 0\nq2 0 d 1\n"), "qrels")
    run = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 c 1 1 r\nq2 Q0 d 2 0 r\n"), "run")
    p = prepare(qrels, run)
    assert p.group_start.tolist() == [0, 1, 2, 3]
    result = evaluate_prepared(p, "P@1 RR", exact=True).per_query
    assert result == {"q1": {"P@1": 1, "RR": 1}, "q2": {"P@1": 0, "RR": Fraction(1, 2)}}


def test_trec_eval_order_with_more_groups_than_the_key_holds():
    # group numbers of more than 40 bits leave no room for the docno in one 64-bit key: every word is sorted on
    names = ["b", "a", "ab", "doc00000z", "doc00000y", "c"]
    groups = np.array([2**41, 2**41, 2**41, 2**41 + 1, 2**41 + 1, 2**42], dtype=np.int64)
    got = columns._trec_eval_order(groups, np.array([n.encode() for n in names]))
    # within a group, docno descending (trec_eval's tie order)
    assert [names[i] for i in got.tolist()] == ["b", "ab", "a", "doc00000z", "doc00000y", "c"]
