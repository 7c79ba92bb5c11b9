"""Negative qrels labels are read as trec_eval reads them, in every input path.

TREC Web track qrels (2010-2014) label junk pages -2.  trec_eval stores any
negative label as RELVALUE_UNJUDGED, "in the pool, not judged"
(form_res_rels.c, usnistgov/trec_eval v9.0.8): non-relevant and gain 0 for
map and ndcg, skipped by bpref and left out of its N, counted by infAP as
pooled but unjudged, removed by -J.  pytrec_eval (the same C code) and
ir_measures read them the same way.

Golden values (from outside): qrels ``{'a': -2, 'b': 1, 'c': 0}`` and the
run a, b, c give map 0.5 and ndcg 1/log2(3) = 0.6309 in trec_eval,
pytrec_eval and ir_measures (checked below against pytrec_eval when it is
installed, and in tests/test_trec_output.py against the binary's recording).
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import pytest

from tieaware import calc_aggregate, fast, reference
from tieaware.io.columns import prepare, read_table
from tieaware.runs.evaluate import evaluate, evaluate_prepared
from tieaware.model.exact import to_float
from tieaware.io.inputs import to_qrels
from tieaware.io.trec import parse_qrels, parse_run

QRELS_TEXT = "q1 0 a -2\nq1 0 b 1\nq1 0 c 0\n"
RUN_TEXT = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n"
QRELS_DICT = {"q1": {"a": -2, "b": 1, "c": 0}}
RUN_DICT = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
GOLDEN = {"AP": 0.5, "nDCG": 1 / math.log2(3)}


def _paths():
    """Every input path: the line reader, the column reader, dicts, tuples, DataFrames."""
    yield "lines", evaluate(parse_qrels(QRELS_TEXT.splitlines()), parse_run(RUN_TEXT.splitlines()), "AP nDCG Bpref Judged")
    p = prepare(read_table(io.BytesIO(QRELS_TEXT.encode()), "qrels"), read_table(io.BytesIO(RUN_TEXT.encode()), "run"))
    yield "columns", evaluate_prepared(p, "AP nDCG Bpref Judged")
    yield "columns float", evaluate_prepared(p, "AP nDCG Bpref Judged", exact=False)
    yield "dicts", evaluate(QRELS_DICT, RUN_DICT, "AP nDCG Bpref Judged")
    tuples = [(q, d, x) for q, docs in QRELS_DICT.items() for d, x in docs.items()]
    scored = [(q, d, s) for q, docs in RUN_DICT.items() for d, s in docs.items()]
    yield "tuples", evaluate(tuples, scored, "AP nDCG Bpref Judged")


@pytest.mark.parametrize("path", [name for name, _ in _paths()])
def test_every_input_path_reads_them_as_trec_eval(path):
    ev = dict(_paths())[path]
    assert to_float(ev.mean["AP"]) == pytest.approx(GOLDEN["AP"], abs=1e-15)
    assert to_float(ev.mean["nDCG"]) == pytest.approx(GOLDEN["nDCG"], abs=1e-15)
    # bpref: a skipped like an unjudged document; N = 1 (c), R = 1: b has no judged
    # non-relevant document above it, so bpref = 1.
    assert to_float(ev.mean["Bpref"]) == 1.0
    # Judged: all three are in the qrels (ir_measures counts a in).
    assert to_float(ev.mean["Judged"]) == 1.0


def test_dataframes_read_them():
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [-2, 1, 0]})
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    got = calc_aggregate(["AP", "nDCG"], qrels, run)
    assert got["AP"] == 0.5 and got["nDCG"] == pytest.approx(GOLDEN["nDCG"], abs=1e-15)


def test_the_qrels_keep_the_label():
    assert to_qrels(QRELS_DICT)["q1"]["a"] == Fraction(-2)
    assert parse_qrels(["q1 0 a -2"])["q1"]["a"] == Fraction(-2)


@pytest.mark.parametrize("layer", [fast, reference])
def test_layers_read_a_negative_label_as_0_and_bpref_skips_it(layer):
    assert layer.average_precision([-2, 1, 0]) == layer.average_precision([0, 1, 0]) == Fraction(1, 2)
    assert layer.ndcg([[-2, 1], 0]) == layer.ndcg([[0, 1], 0])
    # bpref: [-2, 1] with N = 0 judged non-relevant; the -2 is skipped, so b scores 1
    assert layer.bpref([-2, 1]) == 1 and layer.bpref([0, 1]) == 0
    assert layer.bpref([[-2, 1], 0]) == layer.bpref([[None, 1], 0])
    # Judged: a negative label is in the qrels
    assert layer.judged([-2, None]) == Fraction(1, 2)


def _pytrec_eval():
    """pytrec_eval, or a skip of the one test that needs it (the by-hand tests above run without it)."""
    return pytest.importorskip("pytrec_eval")


@pytest.mark.peers
def test_pytrec_eval_agrees():
    pytrec_eval = _pytrec_eval()
    got = pytrec_eval.RelevanceEvaluator(QRELS_DICT, {"map", "ndcg", "bpref"}).evaluate(RUN_DICT)["q1"]
    assert got["map"] == GOLDEN["AP"] and got["ndcg"] == pytest.approx(GOLDEN["nDCG"], abs=1e-15)
    ours = evaluate(QRELS_DICT, RUN_DICT, "AP nDCG Bpref")
    assert {k: to_float(v) for k, v in ours.mean.items()} == pytest.approx({"AP": got["map"], "nDCG": got["ndcg"], "Bpref": got["bpref"]})
