"""``tieaware.evaluate`` (tieaware.runs.stream) passes trec_eval's -M (*depth*) and -J (*judged_only*) through.

The streamed entry point must give what the in-memory path
(:func:`tieaware.runs.evaluate.evaluate`) gives, on one process and on
several (query shards), for every depth and with or without -J: the same
per-query values and means, exactly.  The run has ties across the cut,
unjudged documents and a negative label (in the qrels, not judged).
"""

from __future__ import annotations

import random

import pytest

import tieaware
from tieaware.runs import evaluate as in_memory

MEASURES = "AP P@3 nDCG@5 infAP NumRet Bpref"


def _inputs():
    rng = random.Random(25)
    qrels, run = {}, {}
    for q in ("q1", "q2", "q10"):
        qrels[q] = {f"d{i}": rng.choice([-2, 0, 0, 1, 2]) for i in range(0, 12, 2)}
        run[q] = {f"d{i}": float(rng.choice([1, 2, 2, 3])) for i in range(10)}  # odd docnos are unjudged
    return qrels, run


@pytest.mark.parametrize("depth, judged_only", [(None, True), (0, False), (2, False), (4, True), (7, False), (50, True)])
def test_streamed_evaluate_passes_depth_and_judged_only(depth, judged_only):
    qrels, run = _inputs()
    truth = in_memory.evaluate(qrels, run, MEASURES, depth=depth, judged_only=judged_only)
    plain = in_memory.evaluate(qrels, run, MEASURES)
    if depth not in (None, 50) or judged_only:
        assert truth.per_query != plain.per_query  # the options change something here
    for jobs in (1, 2):
        got = tieaware.evaluate(qrels, run, MEASURES, depth=depth, judged_only=judged_only, jobs=jobs)
        assert got.per_query == truth.per_query and got.mean == truth.mean, jobs


def test_streamed_evaluate_checks_the_options():
    qrels, run = _inputs()
    for jobs in (1, 2):
        with pytest.raises(tieaware.TieawareError, match="depth"):
            tieaware.evaluate(qrels, run, "AP", depth=-1, jobs=jobs)
        with pytest.raises(tieaware.TieawareError, match="judged_only"):
            tieaware.evaluate(qrels, run, "AP", judged_only="yes", jobs=jobs)
