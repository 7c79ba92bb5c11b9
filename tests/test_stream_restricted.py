"""trec_eval's -M and -J streamed: every piece size and process count gives the in-memory path's values.

The run is evaluated a few whole queries at a time (tieaware.runs.stream), in
pieces of 1, 7 and many queries, on 1 and 2 processes, contiguous and
scattered; with -M (the first M documents of each query, a cut inside a tie
group being the exact mixture) and -J (judged documents only) every value
must equal :func:`tieaware.runs.evaluate.evaluate_prepared` on the whole run,
tie-aware and in trec_eval's order.  ``eval --format trec`` streams a run with
-M and -J too, from a file on 2 processes as from stdin on the default
number: the same lines.
"""

from __future__ import annotations

import io

import pytest

from tieaware.io.columns import prepare, read_table
from tieaware.runs.evaluate import evaluate_prepared
from tieaware.runs.stream import evaluate_files

from test_scale_stream import _cli, _files, _scatter

MEASURES = "P@5 AP nDCG@10 RR Bpref infAP NumRet NumRelRet IPrec@0.5"


@pytest.mark.parametrize("depth, judged_only", [(3, False), (None, True), (12, True)])
@pytest.mark.parametrize("exact", [False, True])
def test_pieces_and_jobs_change_nothing_with_depth_and_judged_only(tmp_path, depth, judged_only, exact):
    qrels, run = _files(3, queries=12, docs=20)
    run = _scatter(run, 4)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    p = prepare(read_table(io.BytesIO(qrels.encode()), "qrels"), read_table(io.BytesIO(run.encode()), "run"), trec_order=True)
    for tie_break in (None, "trec_eval"):
        want = evaluate_prepared(p, MEASURES, exact=exact, tie_break=tie_break, depth=depth, judged_only=judged_only)
        for rows, jobs in ((1, 1), (7, 2), (10**6, 1)):
            got = evaluate_files(
                tmp_path / "q", tmp_path / "r", MEASURES, exact=exact, jobs=jobs, rows=rows, tie_break=tie_break,
                depth=depth, judged_only=judged_only,
            ).tied
            assert got.per_query == want.per_query and got.mean == want.mean, (rows, jobs, tie_break)


def test_cli_streams_depth_and_judged_only(tmp_path):
    qrels, run = _files(5, queries=10, docs=20)
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(_scatter(run, 2))
    base = ["eval", str(tmp_path / "q")]
    for options in (["-M", "4"], ["-J"], ["-M", "9", "-J", "--tie-break", "trec_eval"]):
        args = ["--format", "trec", "-q", "-c", "-m", "map", "-m", "P.5", "-m", "num_ret", *options]
        streamed = _cli(*base, str(tmp_path / "r"), *args, "--jobs", "2")
        assert streamed == _cli(*base, "-", *args, stdin=_scatter(run, 2)), options
