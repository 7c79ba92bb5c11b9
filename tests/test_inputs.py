"""Ecosystem input shapes (tieaware/io/inputs.py): dicts, namedtuples and DataFrames give identical results.

The same tied collection is written as pytrec_eval dicts, ir_measures
``Qrel``/``ScoredDoc`` namedtuples, ir_measures and PyTerrier DataFrames,
plain tuples, tieaware's own mapping and a TREC file; every shape must give
exactly the same Evaluation.

pandas and ir_measures are imported plainly (both come with the test extra):
if one is missing, this module fails loudly instead of skipping.
"""

from __future__ import annotations

import random
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

import ir_measures
import numpy as np
import pandas as pd
import pytest

from tieaware import TieawareError
from tieaware.runs.evaluate import evaluate
from tieaware.io.inputs import number, to_qrels, to_run
from tieaware.io.trec import parse_qrels, parse_run

MEASURES = "P@5 R@10 AP RR nDCG@10 nDCG"


def _collection(seed: int, queries: int = 12):
    """pytrec_eval dicts with coarse float scores, so ties are common, and graded labels."""
    rng = random.Random(seed)
    steps = [0.1, 0.2, 0.3, 0.25, 1.5, 2.0, 7.0]  # 0.1 and 0.3 are not binary fractions
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(3, 14))]
        qrels[qid] = {d: rng.choice([0, 0, 1, 2]) for d in docs if rng.random() < 0.7}
        qrels[qid][f"unretrieved{q}"] = 1
        run[qid] = {d: rng.choice(steps) for d in docs}
    return qrels, run


QRELS, RUN = _collection(14)


def _shapes():
    """(name, qrels, run) for every supported shape of the same collection."""
    q_tuples = [(q, d, rel) for q, judged in QRELS.items() for d, rel in judged.items()]
    r_tuples = [(q, d, s) for q, scored in RUN.items() for d, s in scored.items()]
    yield "pytrec_eval dicts", QRELS, RUN
    yield "tieaware mapping", QRELS, {q: list(scored.items()) for q, scored in RUN.items()}
    yield "plain tuples", q_tuples, r_tuples
    yield (
        "ir_measures namedtuples",
        [ir_measures.Qrel(q, d, rel) for q, d, rel in q_tuples],
        (ir_measures.ScoredDoc(q, d, s) for q, d, s in r_tuples),  # a generator: read once
    )
    yield (
        "ir_measures DataFrames",
        pd.DataFrame(q_tuples, columns=["query_id", "doc_id", "relevance"]).assign(iteration="0"),
        pd.DataFrame(r_tuples, columns=["query_id", "doc_id", "score"]),
    )
    yield (
        "PyTerrier DataFrames",
        pd.DataFrame(q_tuples, columns=["qid", "docno", "label"]),
        pd.DataFrame(r_tuples, columns=["qid", "docno", "score"]).assign(rank=0, query="text"),
    )
    yield (
        "Decimal and Fraction scores",
        {q: {d: Fraction(rel) for d, rel in judged.items()} for q, judged in QRELS.items()},
        {q: {d: Decimal(repr(s)) for d, s in scored.items()} for q, scored in RUN.items()},
    )
    yield (
        "TREC files",
        parse_qrels(f"{q} 0 {d} {rel}" for q, d, rel in q_tuples),
        parse_run(f"{q} Q0 {d} 0 {s!r} r" for q, d, s in r_tuples),
    )


SHAPES = list(_shapes())


def test_the_collection_has_ties_and_non_binary_scores():
    assert any(len(set(s.values())) < len(s) for s in RUN.values())
    assert any(0.1 in s.values() for s in RUN.values())


@pytest.mark.parametrize("tie_break", [None, "trec_eval"])
def test_every_shape_gives_identical_results(tie_break):
    first = None
    for name, qrels, run in _shapes():  # fresh generators each time
        ev = evaluate(qrels, run, MEASURES, tie_break=tie_break)  # evaluate takes every shape itself
        if first is None:
            first = ev
            continue
        assert ev.queries == first.queries, name
        assert ev.per_query == first.per_query, name  # exact values, compared with ==
        assert ev.mean == first.mean, name


def test_scores_are_taken_exactly():
    assert number(0.1, "s") == Fraction(1, 10)  # shortest repr, not 0.1000000000000000055511151231257827
    assert number(0.1 + 0.2, "s") == Fraction("0.30000000000000004")
    assert number(Decimal("0.10000000000000000001"), "s") == Fraction("0.10000000000000000001")
    assert number(Fraction(1, 3), "s") == Fraction(1, 3)
    assert number(10**30 + 1, "s") == 10**30 + 1
    assert number(np.float64(0.1), "s") == Fraction(1, 10)
    assert number(np.float32(0.1), "s") == Fraction(1, 10)  # float32's own shortest repr
    assert number(np.int64(7), "s") == 7
    # Decimals and Fractions keep apart what floats would merge: no false tie.
    run = to_run({"q": {"a": Decimal("0.1"), "b": Decimal("0.10000000000000000001")}})
    assert run["q"][0][1] != run["q"][1][1]


def test_ids_become_strings():
    df = pd.DataFrame({"query_id": [301, 301], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert to_run(df) == {"301": [("a", Fraction(2)), ("b", Fraction(1))]}
    assert to_qrels({np.int64(5): {"a": 1}}) == {"5": {"a": Fraction(1)}}


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: to_run({"q": {"a": float("nan")}}), r"run\['q'\]\['a'\] must be a finite number, got nan"),
        (lambda: to_run({"q": {"a": float("inf")}}), "must be a finite number"),
        (lambda: to_run({"q": {"a": True}}), "must be a number, not a bool"),
        (lambda: to_run({"q": 3}), r"run\['q'\] must be a dict \{docid: score\}"),
        (lambda: to_run([("q", "a", 1), ("q", "a", 2)]), "scores doc 'a' of query 'q' twice"),
        (lambda: to_run({"q": [("a", 1), ("a", 2)]}), r"run\['q'\] scores doc 'a' twice"),
        (lambda: to_run([("q", "a")]), "neither a namedtuple with query_id, doc_id, score nor a 3-tuple"),
        (lambda: to_run("run.txt"), "read a TREC file with tieaware.io.trec.read_run"),
        (lambda: to_run(pd.DataFrame({"qid": ["q"], "docno": ["a"]})), "without a 'score' column"),
        (lambda: to_qrels({"q": {"a": "x"}}), "must be a finite decimal or p/q number"),
        (lambda: to_qrels({1.5: {"a": 1}}), r"qrels query id must be a str \(or an int\), got 1.5"),
        (lambda: to_qrels([("q", "a", 1), ("q", "a", 0)]), "judges doc 'a' of query 'q' twice"),
        (lambda: to_qrels(pd.DataFrame({"query_id": ["q"], "doc_id": ["a"]})), "without a 'relevance' column"),
        (lambda: to_qrels(None), "qrels must be a dict"),
    ],
)
def test_bad_input_names_the_value(call, message):
    with pytest.raises(TieawareError, match=message):
        call()


def test_pandas_is_never_imported():
    code = (
        "import sys, tieaware.io.inputs, tieaware.runs.compat, tieaware.runs.evaluate\n"
        "tieaware.runs.compat.calc_aggregate(['AP'], {'q': {'a': 1}}, {'q': {'a': 1.0}})\n"
        "assert 'pandas' not in sys.modules and 'ir_measures' not in sys.modules, sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
