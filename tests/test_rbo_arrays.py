"""The array engine of ``tieaware rbo --float`` (tieaware.runs.rbo_engine) equals fast's float mode, query by query.

The engine evaluates fast's RBO kernels on arrays of every depth of many
queries at once and sums the series as fast's float mode does, so its values
are compared with ``==``, not a tolerance: for every variant (w, a, b, and
the expectation over tie-breakings) and every bound (MIN, MAX, EXT, RES), on
hypothesis' tied ranking pairs and on random tied TREC runs (--depth, queries
in one run only, either run the shorter), whatever the partitions and jobs.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tieaware.fast import rbo_bounds, rbo_expected_bounds
from tieaware.fast import rbo_kernels as K
from tieaware.model.rbo_input import BOUNDS
from tieaware.runs.rbo_engine import rbo_many
from tieaware.strategies import rbo_pairs

VARIANTS = ("w", "a", "b", "expected")
P = ("0.9", "0.5", "0.99", "1/3")


def _fast(S, L, p, variant):
    if variant == "expected":
        return rbo_expected_bounds(S, L, p, exact=False)
    return rbo_bounds(S, L, p, variant=variant, exact=False)


def _engine(pairs, p, variant, bounds=BOUNDS):
    if variant == "expected":
        return rbo_many(pairs, p, bounds=bounds, expected=True)
    return rbo_many(pairs, p, variant=variant, bounds=bounds)


@settings(max_examples=25)
@given(st.lists(rbo_pairs(max_items=10, max_orderings=10**9), min_size=1, max_size=6), st.sampled_from(P))
def test_the_array_engine_equals_fast_float_on_every_pair(pairs, p):
    for variant in VARIANTS:
        got = _engine(pairs, p, variant)
        for i, (S, L) in enumerate(pairs):
            want = _fast(S, L, p, variant)
            assert [float(got[b][i]) for b in BOUNDS] == list(want), (variant, S, L)


def test_long_rankings_and_batches_change_nothing(monkeypatch):
    # Long rankings: p^d underflowing (p = 0.1), long direct tails (p = 0.999), spans past l, batches of a few queries.
    from tieaware.runs import rbo_engine

    rng = random.Random(7)
    pool = [f"d{i}" for i in range(400)]
    pairs = [(_ranking(rng, rng.sample(pool, rng.randint(1, 300))), _ranking(rng, rng.sample(pool, rng.randint(1, 300)))) for _ in range(12)]
    for p in ("0.1", "0.999"):
        for variant in VARIANTS:
            whole = _engine(pairs, p, variant)
            monkeypatch.setattr(rbo_engine, "BATCH_DEPTHS", 500)
            batched = _engine(pairs, p, variant)
            monkeypatch.undo()
            for i, (S, L) in enumerate(pairs):
                want = list(_fast(S, L, p, variant))
                assert [float(whole[b][i]) for b in BOUNDS] == want == [float(batched[b][i]) for b in BOUNDS], (p, variant, i)


def _ranking(rng, items):
    out, i = [], 0
    while i < len(items):
        k = rng.choice((1, 1, 2, 3, 7))
        out.append(tuple(items[i : i + k]))
        i += k
    return out


def _scaled(name, factor):
    real = getattr(K, name)

    def wrong(*args):
        got = real(*args)
        if isinstance(got, K.DepthTerms):
            return got._replace(max=tuple((c * factor, r) for c, r in got.max))
        return (got[0] * factor, got[1]) if isinstance(got, tuple) else got * factor

    return wrong


def _shifted_tails(bound, l, s, x_l, a_s):
    return tuple(piece._replace(start=piece.start - 1) if isinstance(piece, K.Tail) else piece for piece in REAL_THIRD(bound, l, s, x_l, a_s))


REAL_THIRD = K.third_section
SLIPS = [
    ("seen_agreement", _scaled("seen_agreement", 0.9)),
    ("unseen_terms", _scaled("unseen_terms", 0.99)),
    ("unseen_max", _scaled("unseen_max", 0.5)),
    ("measurable_squares", _scaled("measurable_squares", 1.5)),
    ("third_section", _shifted_tails),
]


@pytest.mark.parametrize("kernel, wrong", SLIPS, ids=[s[0] for s in SLIPS])
def test_the_engine_calls_fasts_kernels(monkeypatch, kernel, wrong):
    # A slip in one of fast's kernels changes the engine's values: it evaluates them, it has no formulas of its own.
    S, L = ["a", ("b", "c"), "d"], ["c", "a", ("y", "b", "z", "w"), "e", ("x", "d")]
    pairs = [(S, L), (L, S)]
    right = {v: _engine(pairs, "0.8", v) for v in VARIANTS}
    monkeypatch.setattr(K, kernel, wrong)
    assert any((_engine(pairs, "0.8", v)[b] != right[v][b]).any() for v in VARIANTS for b in BOUNDS)


# -- whole runs: tieaware rbo --float against the query-by-query path ------------------------


def _run_text(rng, queries, docs):
    lines = []
    for q in queries:
        n = rng.randint(1, docs)
        levels = rng.choice((2, 4, 30))
        for rank, d in enumerate(rng.sample(range(docs + 5), n), start=1):
            lines.append(f"q{q} Q0 doc{d} {rank} {rng.randrange(levels) / 2} r\n")
    rng.shuffle(lines)  # queries not contiguous: they are partitioned through temporary files
    return "".join(lines)


@pytest.fixture
def runs(tmp_path):
    rng = random.Random(11)
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.write_text(_run_text(rng, range(0, 14), 25))
    b.write_text(_run_text(rng, range(2, 16), 25))
    return str(a), str(b)


@pytest.mark.parametrize("variant", ["w", "a", "b"])
def test_rbo_float_arrays_equal_the_query_by_query_path(runs, variant, monkeypatch):
    from tieaware.runs import paired_runs
    from tieaware.runs.rbo_engine import rbo_array_rows, rbo_rows
    from tieaware.io import stream

    settings_ = ("0.9", variant, False, BOUNDS)
    for depth, ways in ((None, ((1, 1), (3, 2))), (1, ((1, 1),)), (6, ((3, 1),))):
        want = paired_runs.paired_files(*runs, rbo_rows, depth, settings_, 1)
        want[0].sort(key=lambda row: row[0])
        assert want[1] == 2 and want[2] == 2 and len(want[0]) == 12
        for count, jobs in ways:
            monkeypatch.setattr(stream, "partition_count", lambda source, rows=0, count=count: count)
            got = paired_runs.paired_files(*runs, rbo_rows, depth, settings_, jobs, array_work=rbo_array_rows)
            got[0].sort(key=lambda row: row[0])
            assert got == want, (depth, count, jobs)


def test_a_hash_collision_falls_back_to_the_query_by_query_path(runs, monkeypatch):
    import numpy as np

    from tieaware.runs import paired_runs
    from tieaware.runs.rbo_engine import rbo_array_rows, rbo_rows
    from tieaware.io import columns

    settings_ = ("0.5", "a", False, ("ext",))
    want = paired_runs.paired_files(*runs, rbo_rows, None, settings_, 1)
    monkeypatch.setattr(columns, "hash_texts", lambda strings, width: np.zeros(len(strings), dtype=np.uint64))
    got = paired_runs.paired_files(*runs, rbo_rows, None, settings_, 1, array_work=rbo_array_rows)
    assert sorted(got[0]) == sorted(want[0]) and got[1:] == want[1:]


def test_the_table_is_tabulates_simple_table():
    # rbo prints its table without tabulate when every cell is ASCII: the same text, faster
    from tabulate import tabulate

    from tieaware.commands.rbo import _simple_table

    rng = random.Random(5)
    for _ in range(300):
        ncol = rng.randint(1, 7)
        headers = ["".join(rng.choice("ab|^ xyz") for _ in range(rng.randint(1, 12))).strip() or "h" for _ in range(ncol)]
        body = [["".join(rng.choice("0123456789.q-") for _ in range(rng.randint(0, 15))) for _ in range(ncol)] for _ in range(rng.randint(0, 5))]
        want = tabulate(body, headers=headers, disable_numparse=True, colalign=("left",) + ("right",) * (ncol - 1))
        assert _simple_table(headers, body) == want, (headers, body)


def _contiguous(text):
    lines = text.splitlines(keepends=True)
    return "".join(sorted(lines, key=lambda line: int(line.split()[0][1:])))  # each query's lines together, in query order


@pytest.mark.parametrize("b_queries", [range(0, 14), range(0, 15), range(2, 16)], ids=["aligned", "one-more", "shifted"])
def test_runs_read_side_by_side_equal_the_query_by_query_path(tmp_path, monkeypatch, b_queries):
    # Both runs contiguous with the same queries in the same order: read side by side in pieces with --jobs 1;
    # otherwise (and with --jobs 2) partitioned.
    from tieaware.runs import paired_runs
    from tieaware.runs.rbo_engine import rbo_array_rows, rbo_rows
    from tieaware.io import blocks, stream

    rng = random.Random(13)
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(_contiguous(_run_text(rng, range(0, 14), 25)))
    b.write_text(_contiguous(_run_text(rng, b_queries, 25)))
    settings_ = ("0.9", "b", False, BOUNDS)
    want = paired_runs.paired_files(str(a), str(b), rbo_rows, None, settings_, 1)
    monkeypatch.setattr(blocks, "_BLOCK", 400)  # blocks of a few lines ...
    monkeypatch.setattr(stream, "PIECE_ROWS", 10)  # ... and pieces of a few queries
    monkeypatch.setattr(stream, "partition_count", lambda source, rows=0: 3)
    if b_queries == range(0, 14):
        assert len(list(paired_runs.aligned(str(a), str(b)))) > 3
    else:
        with pytest.raises(paired_runs.NotAligned):
            list(paired_runs.aligned(str(a), str(b)))
    for jobs in (1, 2):
        got = paired_runs.paired_files(str(a), str(b), rbo_rows, None, settings_, jobs, array_work=rbo_array_rows)
        assert sorted(got[0]) == sorted(want[0]) and got[1:] == want[1:], jobs


def _pairs_equal(x, y):
    import numpy as np

    assert x[0] == y[0] and x[4:] == y[4:]
    assert all(np.array_equal(u, v) for u, v in zip(x[1:3], y[1:3]))
    assert all(np.array_equal(u, v) for u, v in zip(x[3], y[3]))


@pytest.mark.parametrize("share", [1.0, 0.5], ids=["same-documents", "some-shared"])
def test_one_sort_per_run_joins_as_the_general_join(monkeypatch, share):
    # Runs listing the same queries in the same order are joined through one sort of each run's (query, docno)
    # keys (rbo_engine._same_queries); the general join gives the same pairs, also when keys collide across
    # the runs but not inside either (docnos hashed by their last byte here, in the bits the key keeps)
    import io

    import numpy as np

    from tieaware.io import columns
    from tieaware.runs import rbo_engine

    rng = random.Random(23)
    texts = ["", ""]
    for q in range(12):
        docs = rng.sample("abcdefghijklmnop", rng.randint(1, 12))
        other = [d if rng.random() < share else "Y" + d for d in docs]  # Y: another docno with the same last byte
        rng.shuffle(other)
        for i, run_docs in enumerate((docs, other[: rng.randint(1, len(other))] if share < 1 else other)):
            texts[i] += "".join(f"q{q} Q0 x{d} 1 {rng.randrange(3)} r\n" for d in run_docs)
    a, b = (columns.read_table(io.BytesIO(t.encode()), "run") for t in texts)
    real = rbo_engine._same_queries
    for hashed in (None, lambda strings, width: np.array([s[-1] << 32 for s in strings.tolist()], dtype=np.uint64)):
        if hashed is not None:
            monkeypatch.setattr(columns, "hash_texts", hashed)
        used = []
        monkeypatch.setattr(rbo_engine, "_same_queries", lambda *args: used.append(1) or real(*args))
        got = rbo_engine.pairs_from_tables(a, b)
        monkeypatch.setattr(rbo_engine, "_same_queries", lambda *args: None)
        want = rbo_engine.pairs_from_tables(a, b)
        assert used and got is not None
        _pairs_equal(got, want)


@pytest.mark.parametrize("mode", [[], ["--float"]])
def test_a_duplicate_docno_is_refused_naming_both_lines(tmp_path, capsys, mode):
    from tieaware.cli import main

    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n")
    b.write_text("q1 Q0 d2 1 2 r\nq1 Q0 d1 2 1 r\nq1 Q0 d2 3 1 r\n")
    code = main(["rbo", str(a), str(b), *mode])
    captured = capsys.readouterr()
    assert code != 0 and captured.out == ""
    assert f"{b}:3: duplicate docno 'd2' for query 'q1' (first on line 1)" in captured.err


def test_every_process_reads_ranges_of_both_runs(tmp_path, monkeypatch):
    # --jobs 2 on runs listing the same queries in the same order: each process reads byte ranges of both files
    # (A's cut where a query starts, B's where B's lines of the same query start); the same rows as the
    # query-by-query path. B scattered (a query's lines in two places) or with a query more: partitioned instead.
    from tieaware.runs import paired_runs
    from tieaware.runs.rbo_engine import rbo_array_rows, rbo_rows
    from tieaware.io import stream

    rng = random.Random(29)
    a, b, scattered, extra = (tmp_path / name for name in ("a", "b", "scattered", "extra"))
    a.write_text(_contiguous(_run_text(rng, range(0, 40), 25)))
    b_text = _contiguous(_run_text(rng, range(0, 40), 25))
    b.write_text(b_text.replace(" r\n", "\tr\n", 30))  # a few lines of B tab-separated
    lines = b_text.splitlines(keepends=True)
    scattered.write_text("".join(lines[1:] + lines[:1]))
    extra.write_text(b_text + "q99 Q0 doc1 1 1 r\n")
    settings_ = ("0.9", "a", False, BOUNDS)
    monkeypatch.setattr(stream, "PIECE_ROWS", 40)  # ranges of about 1,600 bytes: several per process
    real, used = paired_runs._ranged, []
    monkeypatch.setattr(paired_runs, "_ranged", lambda *args: used.append(real(*args)) or used[-1])
    for other in (b, scattered, extra):
        want = paired_runs.paired_files(str(a), str(other), rbo_rows, None, settings_, 1)
        got = paired_runs.paired_files(str(a), str(other), rbo_rows, None, settings_, 2, array_work=rbo_array_rows)
        assert sorted(got[0]) == sorted(want[0]) and got[1:] == want[1:], other
        assert (used[-1] is not None) == (other == b), other
    assert len(stream.line_ranges(str(a), 1600)) > 4


@pytest.mark.parametrize("which", ["a", "b"])
def test_a_bad_line_in_a_later_range_is_named_by_its_line_in_the_file(tmp_path, monkeypatch, capsys, which):
    from tieaware.cli import main
    from tieaware.io import stream

    rng = random.Random(31)
    paths = {name: tmp_path / name for name in "ab"}
    for path in paths.values():
        path.write_text(_contiguous(_run_text(rng, range(0, 40), 25)))
    lines = paths[which].read_text().splitlines(keepends=True)
    at = len(lines) * 3 // 4
    lines[at] = lines[at].split()[0] + " Q0 docX 1 high r\n"  # a score that is not a number
    paths[which].write_text("".join(lines))
    monkeypatch.setattr(stream, "PIECE_ROWS", 40)
    real, counted = stream.lines_before, []
    monkeypatch.setattr(stream, "lines_before", lambda *args: counted.append(1) or real(*args))
    messages = []
    for jobs in ("1", "2"):
        assert main(["rbo", str(paths["a"]), str(paths["b"]), "--float", "--jobs", jobs]) == 2
        messages.append(capsys.readouterr().err)
    assert messages[0] == messages[1] and counted  # the failing range read again, its lines counted from the start
    assert f"{paths[which]}:{at + 1}:" in messages[0]


def test_freed_memory_is_kept_for_the_next_piece_only_for_large_runs(tmp_path, monkeypatch):
    # rbo and corr on runs of more than a piece ask glibc to keep freed arrays in the heap (fewer page faults),
    # as eval's workers do; small runs (and this test process) keep the allocator's defaults
    from tieaware.runs import paired_runs

    calls = []
    monkeypatch.setattr(paired_runs, "keep_freed_memory", lambda: calls.append(1))
    small, large = tmp_path / "small", tmp_path / "large"
    small.write_text("q1 Q0 d1 1 1 r\n")
    with open(large, "wb") as f:
        f.truncate(64 << 20)  # sparse: no disk written
    paired_runs.reuse_freed_memory(str(small), "-")
    assert calls == []
    paired_runs.reuse_freed_memory(str(small), str(large))
    assert calls == [1]
