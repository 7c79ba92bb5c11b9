"""A text run read by the workers, a byte range each: the rows, line numbers and results of reading it whole.

tieaware.io.stream.line_ranges cuts a file into ranges starting where the
query changes; range_blocks reads one range (line numbers relative, or from
lines_before).  eval with --jobs >= 2 evaluates a file so; the reference is
the in-memory path, as in tests/test_scale_stream.py.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from tieaware import TieawareError
from tieaware.io import stream
from tieaware.io.columns import read_table
from tieaware.runs import stream as run_stream
from tieaware.runs.stream import evaluate_files

from test_scale_stream import MEASURES, _files, _memory, _same, _scatter


def _rows(tables):
    tables = list(tables)
    return [(q, d, v, n) for t in tables for q, d, v, n in zip(t.qid.tolist(), t.docno.tolist(), t.value.tolist(), t.line.tolist())]


TEXTS = {
    "plain": _files(1, queries=9, docs=7)[1],
    "odd": "\ufeffq1 Q0 a 1 2 r\nq1\tQ0\tb 2 1 r\n\n  q2 Q0 a 1 1 r extra\r\nq2 Q0 b 1 1 r\nq3 Q0 c 1 3 r",  # BOM, tabs, blank, CRLF, no final newline
    "one query": "".join(f"q1 Q0 d{i} 0 {i % 3} r\n" for i in range(50)),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
@pytest.mark.parametrize("by_query", [True, False])
def test_ranges_read_the_rows_and_lines_of_the_whole_file(tmp_path, name, by_query):
    path = tmp_path / "run"
    path.write_bytes(TEXTS[name].encode())
    data = path.read_bytes()
    whole = _rows([read_table(path, "run")])
    for size in (1, 5, 16, 40, 100, 10**6):
        ranges = stream.line_ranges(path, size, by_query=by_query)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(ranges, ranges[1:]))
        assert all(data[start - 1 : start] == b"\n" for start, _ in ranges[1:])  # every range starts a line
        if by_query:  # ... where the query changes
            for start, _ in ranges[1:]:
                before = [line.split() for line in data[:start].split(b"\n") if line.split()][-1][0]
                assert data[start:].split()[0] != before
        before = stream.lines_before(path, [start for start, _ in ranges])
        assert _rows(t for (start, stop), n in zip(ranges, before) for t in stream.range_blocks(path, start, stop, before=n)) == whole
        relative = [_rows(stream.range_blocks(path, start, stop)) for start, stop in ranges]
        assert [r[:3] for rows in relative for r in rows] == [r[:3] for r in whole]  # line numbers aside


def test_range_pieces_collect_each_ranges_queries(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 a 1 1 r\nq2 Q0 b 1 1 r\n")
    ranges = stream.line_ranges(path, 10, by_query=False)  # a line each: cuts q1 and q2 in two
    sets = []
    for start, stop in ranges:
        sets.append(set())
        list(stream.range_pieces(path, start, stop, rows=1, queries=sets[-1]))
    assert sets == [{b"q1"}, {b"q1"}, {b"q2"}, {b"q2"}]
    assert stream.line_ranges(path, 10) == [(0, 28), (28, 56)]
    path.write_bytes(b"q1 Q0 a 1 2 r\nq2 Q0 a 1 1 r\nq1 Q0 b 2 1 r\n")
    with pytest.raises(stream.NotContiguous, match="'q1' is not contiguous"):
        list(stream.range_pieces(path, 0, 42, rows=1))


def test_line_ranges_refuse_what_cannot_be_cut(tmp_path):
    (tmp_path / "r.gz").write_bytes(b"")
    for source, size, match in ((tmp_path / "r.gz", 10, "^source must be an uncompressed"), ("-", 10, "^source must be"), (tmp_path / "r.gz", 0, "^size must be an int >= 1")):
        with pytest.raises(TieawareError, match=match):
            stream.line_ranges(source, size)
    assert not stream.splittable(io.BytesIO(b"q1 Q0 a 1 1 r\n"))


def _no_pieces(*args, **kwargs):
    raise AssertionError("the main process read the run")


@pytest.mark.parametrize("exact", [False, True])
def test_workers_reading_ranges_change_nothing(tmp_path, monkeypatch, exact):
    qrels, run = _files(11, queries=30, docs=20)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    want = _memory(qrels, run, MEASURES, exact)
    with monkeypatch.context() as m:
        m.setattr(stream, "pieces", _no_pieces)  # the workers read the file, not this process
        for rows in (1, 7, 100):
            _same(evaluate_files(tmp_path / "q", tmp_path / "r", MEASURES, exact=exact, trec=True, level=1, jobs=2, rows=rows), want)


def test_ranges_cutting_inside_a_query_fall_back_to_partitions(tmp_path, monkeypatch):
    # ranges cut anywhere (not at query changes): a query read in two ranges is seen, and the run is
    # partitioned by query instead, with the results of the in-memory path
    qrels, run = _files(12, queries=20, docs=15)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    want = _memory(qrels, run, MEASURES, False)
    cut = stream.line_ranges
    used = []

    def anywhere(source, size, by_query=True):
        used.append(size)
        return cut(source, size, by_query=False)

    monkeypatch.setattr(stream, "line_ranges", anywhere)
    for rows in (3, 40):
        _same(evaluate_files(tmp_path / "q", tmp_path / "r", MEASURES, exact=False, trec=True, level=1, jobs=2, rows=rows), want)
    assert len(used) == 2
    # queries scattered over the file (each range's own queries contiguous, or not)
    scattered = _scatter(run, 3)
    (tmp_path / "s").write_text(scattered)
    monkeypatch.setattr(stream, "line_ranges", cut)
    _same(evaluate_files(tmp_path / "q", tmp_path / "s", MEASURES, exact=False, trec=True, level=1, jobs=2, rows=5), _memory(qrels, scattered, MEASURES, False))
    # each query's lines together but one query's in two places far apart: in two ranges, each contiguous
    lines = run.splitlines(keepends=True)
    moved = "".join(lines[:7] + lines[15:] + lines[7:15])
    (tmp_path / "m").write_text(moved)
    _same(evaluate_files(tmp_path / "q", tmp_path / "m", MEASURES, exact=False, trec=True, level=1, jobs=2, rows=10), _memory(qrels, moved, MEASURES, False))


@pytest.mark.parametrize("where", [40, 290])
def test_a_bad_line_in_a_later_range_is_named_by_its_line_in_the_file(tmp_path, where):
    qrels, run = _files(13, queries=20, docs=15)
    lines = run.splitlines(keepends=True)
    lines[where] = lines[where].replace(" r\n", "\n")  # five columns
    lines[where + 3] = lines[where + 3].rsplit(" ", 2)[0] + " zz r\n"  # and a bad score after it
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text("".join(lines))
    with pytest.raises(TieawareError) as memory:
        _memory(qrels, "".join(lines), "AP", False)
    assert f":{where + 1}: expected 6 columns" in str(memory.value)
    for rows in (5, 100):
        with pytest.raises(TieawareError) as ranged:
            evaluate_files(tmp_path / "q", tmp_path / "r", "AP", exact=False, jobs=2, rows=rows)
        assert str(ranged.value) == str(memory.value).replace("<run>", str(tmp_path / "r"))
    lines[where] = lines[where].replace("\n", " r\n")  # only the bad score now: found when the piece is joined
    (tmp_path / "r").write_text("".join(lines))
    with pytest.raises(TieawareError, match=f":{where + 4}: score must be"):
        evaluate_files(tmp_path / "q", tmp_path / "r", "AP", exact=False, jobs=2, rows=5)
