"""tieaware.metrics: the numpy/array-API core equals evaluate_matrix, the brute force over orderings, and refuses bad input.

- expected values: equal :func:`tieaware.evaluate_matrix` (the engine over the same
  kernels; and its exact Fractions to 4e-15) to 1e-12 on random tied batches of every float dtype, with masks,
  judged grades and every measure and parameter the core takes;
- worst, best and expected: equal the minimum, maximum and mean of the ordinary
  measure (written out below, independently) over every ordering consistent
  with the ties, on small rows (fixed seeds and hypothesis-generated batches);
- array-api-strict arrays give the numpy values, computed in array-api-strict;
- ``import tieaware.metrics`` loads none of sympy, mpmath, tabulate, tqdm, hypothesis;
- bad input: one TieawareError naming the argument, the row and the value.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import tieaware
from tieaware import TieawareError, metrics

MEASURES = [
    "P@1", "P@3", "P(rel=2)@3", "P(norm=retrieved)@10", "P(norm=capped)@5", "AP(norm=k)@4", "R@3", "R@100", "F1@3", "AP", "AP@3", "AP(norm=capped)@3",
    "RR", "RR@2", "nDCG", "nDCG@3", "nDCG(dcg='exp-log2')@3", "nDCG(gain=binary)@5", "DCG@4", "Success@1", "Success@3",
]  # fmt: skip


def _batch(seed: int, rows: int = 40, width: int = 12, levels: int = 4, dtype=np.float32):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, (rows, width)).astype(dtype) / np.asarray(levels, dtype=dtype)
    labels = rng.integers(0, 4, (rows, width)) * (rng.random((rows, width)) < 0.4)
    return scores, labels


def _engine(scores, labels, measures, mask=None):
    ev = tieaware.evaluate_matrix(scores, labels, " ".join(measures), mask=mask)
    return {m: np.array([ev.per_query[str(i)][m] for i in range(len(scores))], dtype=np.float64) for m in measures}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("seed", range(4))
def test_expected_values_equal_evaluate_matrix(seed, dtype):
    scores, labels = _batch(seed, dtype=dtype)
    ours = metrics.evaluate(scores, labels, MEASURES)
    theirs = _engine(scores, labels, MEASURES)
    for m in MEASURES:
        assert ours[m].dtype == np.float64 and ours[m].shape == (len(scores),)
        np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-12, atol=1e-15, err_msg=m)


def test_expected_values_equal_the_exact_fractions_rounded():
    # against evaluate_matrix's exact mode: each value within float accuracy of the Fraction
    scores, labels = _batch(21, rows=15, dtype=np.float16)
    measures = ["P@3", "R@3", "AP", "AP(norm=capped)@3", "RR", "RR@2", "Success@3", "nDCG@3", "nDCG(dcg='exp-log2')", "DCG@4"]
    ours = metrics.evaluate(scores, labels, measures)
    ev = tieaware.evaluate_matrix(scores, labels, " ".join(measures), exact=True)
    for m in measures:
        exact = [ev.per_query[str(i)][m] for i in range(len(scores))]
        assert all(isinstance(v, Fraction) or not isinstance(v, float) for v in exact), m
        np.testing.assert_allclose(ours[m], [tieaware.to_float(v) for v in exact], rtol=4e-15, atol=1e-16, err_msg=m)


def test_cutoffs_inside_wide_ties_and_rows_of_distinct_scores():
    # one cutoff measure (the partition path, ties at the cut taken whole) and all-distinct rows
    rng = np.random.default_rng(7)
    scores = np.round(rng.random((30, 200)), 2).astype(np.float16)
    scores[:5] = 0.5  # whole rows tied
    labels = (rng.random((30, 200)) < 0.1).astype(np.int64)
    for measures in (["nDCG@10", "RR@10", "R@100"], ["P@5"], ["AP@50", "Success@20"]):
        ours = metrics.evaluate(scores, labels, measures)
        theirs = _engine(scores, labels, measures)
        for m in measures:
            np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-12, atol=1e-15, err_msg=m)


def test_mask_removes_cells_as_evaluate_matrix_does():
    scores, labels = _batch(11)
    mask = np.random.default_rng(3).random(scores.shape) < 0.7
    mask[:, 0] = True
    ours = metrics.evaluate(scores, labels, MEASURES, mask=mask)
    theirs = _engine(scores, labels, MEASURES, mask=mask)
    for m in MEASURES:
        np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-12, atol=1e-15, err_msg=m)


def test_mask_with_rows_shorter_than_the_cutoff():
    # the partition path: rows with fewer unmasked cells than k, and ties at the cut
    scores, labels = _batch(12, rows=30, width=40)
    mask = np.random.default_rng(4).random(scores.shape) < 0.5
    mask[:10] = False
    mask[:10, :2] = True  # ten rows of two cells
    measures = ["P@5", "nDCG@5", "RR@4", "AP@5", "R@5", "Success@3", "P(norm=retrieved)@5"]
    for order in ("expected", "worst", "best"):
        ours = metrics.evaluate(scores, labels, measures, mask=mask, order=order)
        if order == "expected":
            theirs = _engine(scores, labels, measures, mask=mask)
        else:  # the generic path (a full sort) gives the same values
            import array_api_strict as xp

            theirs = {m: np.asarray(v) for m, v in metrics.evaluate(xp.asarray(scores), xp.asarray(labels), measures, mask=xp.asarray(mask), order=order).items()}
        for m in measures:
            np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-12, atol=1e-15, err_msg=f"{order} {m}")


def test_relevant_ids_equal_dense_labels():
    scores, labels = _batch(5)
    ids = [set(np.flatnonzero(row).tolist()) for row in labels]
    binary = (labels > 0).astype(np.int64)
    width = max(map(len, ids))
    assert width < scores.shape[1]  # an array shaped like the scores would be read as grades
    padded = -np.ones((len(ids), width), dtype=np.int64)  # negative: padding
    for i, row in enumerate(ids):
        padded[i, : len(row)] = sorted(row)
    a = metrics.evaluate(scores, ids, "AP nDCG@5 RR P@2")
    b = metrics.evaluate(scores, binary, "AP nDCG@5 RR P@2")
    c = metrics.evaluate(scores, padded, "AP nDCG@5 RR P@2")
    for m in a:
        assert a[m].tolist() == b[m].tolist() == c[m].tolist()


def test_judged_grades_give_the_ideal_and_num_rel_of_the_whole_query():
    # a row holds some of its query's judged documents: the same as tieaware.evaluate on qrels with all of them
    scores = np.array([[0.9, 0.5, 0.5, 0.1], [0.3, 0.3, 0.3, 0.3]])
    labels = np.array([[0, 2, 1, 0], [1, 0, 0, 0]])
    judged = [[2, 1, 3, 1], [1, 1]]  # each row's labels plus grades of documents outside the row
    ours = metrics.evaluate(scores, labels, "nDCG@3 nDCG AP R@2", judged=judged)
    qrels = {
        "0": {"d1": 2, "d2": 1, "x1": 3, "x2": 1},
        "1": {"d0": 1, "x1": 1},
    }
    run = {str(i): {f"d{j}": float(scores[i, j]) for j in range(4)} for i in range(2)}
    ev = tieaware.evaluate(qrels, run, "nDCG@3 nDCG AP R@2")
    for m in ours:
        np.testing.assert_allclose(ours[m], [float(ev.per_query[q][m]) for q in ("0", "1")], rtol=1e-12, err_msg=m)


def test_functions_equal_evaluate():
    scores, labels = _batch(2)
    ev = metrics.evaluate(scores, labels, ["nDCG@3", "nDCG(dcg='exp-log2')@3", "AP", "AP(norm=capped)@3", "RR@2", "P@3", "R@3", "F1@3", "Success@3", "DCG@4"])
    assert metrics.ndcg(scores, labels, 3).tolist() == ev["nDCG@3"].tolist()
    assert metrics.ndcg(scores, labels, 3, gain="exp").tolist() == ev["nDCG(dcg='exp-log2')@3"].tolist()
    assert metrics.average_precision(scores, labels).tolist() == ev["AP"].tolist()
    assert metrics.average_precision(scores, labels, 3, norm="capped").tolist() == ev["AP(norm=capped)@3"].tolist()
    assert metrics.reciprocal_rank(scores, labels, 2).tolist() == ev["RR@2"].tolist()
    assert metrics.precision(scores, labels, 3).tolist() == ev["P@3"].tolist()
    assert metrics.recall(scores, labels, 3).tolist() == ev["R@3"].tolist()
    assert metrics.f1(scores, labels, 3).tolist() == ev["F1@3"].tolist()
    assert metrics.success(scores, labels, 3).tolist() == ev["Success@3"].tolist()
    assert metrics.dcg(scores, labels, 4).tolist() == ev["DCG@4"].tolist()


# -- the brute force: the ordinary measures on one ordering, over every ordering the ties allow ------------


def _ordinary(name: str, k, labels: list, all_labels: list, rel: float = 1) -> float:
    """The plain measure of one ordering (a list of labels, best first), from its definition."""
    top = labels if k is None else labels[:k]
    relevant = [x >= rel for x in top]
    num_rel = sum(x >= rel for x in all_labels)
    if name == "P":
        return sum(relevant) / k
    if name == "R":
        return sum(relevant) / num_rel if num_rel else 0.0
    if name == "AP":
        hits, total = 0, 0.0
        for i, is_rel in enumerate(relevant, 1):
            if is_rel:
                hits += 1
                total += hits / i
        return total / num_rel if num_rel else 0.0
    if name == "RR":
        return next((1 / i for i, is_rel in enumerate(relevant, 1) if is_rel), 0.0)
    if name == "Success":
        return 1.0 if any(relevant) else 0.0
    dcg = sum(x / math.log2(i + 1) for i, x in enumerate(top, 1))
    best = sorted(all_labels, reverse=True)
    ideal = sum(x / math.log2(i + 1) for i, x in enumerate(best if k is None else best[:k], 1))
    return dcg / ideal if ideal else 0.0


def _orderings(scores: list, labels: list):
    """Every ordering of the labels consistent with the tied scores."""
    values = sorted(set(scores), reverse=True)
    groups = [[labels[j] for j in range(len(scores)) if scores[j] == v] for v in values]
    for parts in itertools.product(*(set(itertools.permutations(g)) for g in groups)):
        yield [x for part in parts for x in part]


BRUTE = [("P", 2), ("R", 2), ("AP", None), ("AP", 3), ("RR", None), ("RR", 2), ("Success", 2), ("nDCG", None), ("nDCG", 2)]


@pytest.mark.parametrize("seed", range(6))
def test_worst_best_and_expected_equal_the_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    scores = rng.integers(0, 3, (12, 6)).astype(np.float64)
    labels = rng.integers(0, 3, (12, 6)) * (rng.random((12, 6)) < 0.5)
    names = [f"{n}@{k}" if k else n for n, k in BRUTE]
    got = {o: metrics.evaluate(scores, labels, names, order=o) for o in ("expected", "worst", "best")}
    for i in range(len(scores)):
        for (name, k), text in zip(BRUTE, names):
            values = [_ordinary(name, k, o, labels[i].tolist()) for o in _orderings(scores[i].tolist(), labels[i].tolist())]
            assert got["worst"][text][i] == pytest.approx(min(values), abs=1e-12), (i, text)
            assert got["best"][text][i] == pytest.approx(max(values), abs=1e-12), (i, text)
            assert got["expected"][text][i] == pytest.approx(sum(values) / len(values), abs=1e-12), (i, text)


def test_the_issue_example():
    # one query, a, b, c all scored 1.0, only a relevant: RR@10 = 0.6111, P@1 = 0.3333, RR = 0.6111
    out = metrics.evaluate(np.array([[1.0, 1.0, 1.0]]), [{0}], "RR@10 P@1 RR")
    assert [round(float(out[m][0]), 4) for m in ("RR@10", "P@1", "RR")] == [0.6111, 0.3333, 0.6111]


def test_a_tie_is_equality_in_the_given_dtype():
    # 0.1 and 0.1 + 5e-6 are different float32 values but the same float16 value
    x = np.array([[0.1, 0.1 + 5e-6, 0.0]])
    assert metrics.reciprocal_rank(x.astype(np.float32), [{0}]).tolist() == [0.5]
    assert metrics.reciprocal_rank(x.astype(np.float16), [{0}]).tolist() == [0.75]


def test_bfloat16_ties_are_bfloat16_equality():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([[1.0, 1.0039, 0.5]])  # one bfloat16 value, two float32 ones
    assert metrics.reciprocal_rank(x.astype(ml_dtypes.bfloat16), [{0}]).tolist() == [0.75]
    assert metrics.reciprocal_rank(x.astype(np.float32), [{0}]).tolist() == [0.5]
    _, labels = _batch(8)
    b16 = np.random.default_rng(8).random(labels.shape).astype(ml_dtypes.bfloat16)  # 8-bit significands: ties float32 lacks
    assert any(len(set(row.tolist())) < len(row) for row in b16)
    ours = metrics.evaluate(b16, labels, MEASURES)
    theirs = _engine(b16.astype(np.float32), labels, MEASURES)  # widening to float32 is exact
    for m in MEASURES:
        np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-12, atol=1e-15, err_msg=m)


# -- array-api-strict: the same values, computed in that library --------------------------------------


def test_array_api_strict_gives_the_numpy_values_in_its_own_arrays():
    xp = pytest.importorskip("array_api_strict")
    scores, labels = _batch(9)
    mask = np.random.default_rng(1).random(scores.shape) < 0.8
    for order in ("expected", "worst", "best"):
        ours = metrics.evaluate(xp.asarray(scores), xp.asarray(labels), MEASURES, mask=xp.asarray(mask), order=order)
        ref = metrics.evaluate(scores, labels, MEASURES, mask=mask, order=order)
        for m in MEASURES:
            assert type(ours[m]).__module__.startswith("array_api_strict"), m
            assert ours[m].dtype == xp.float64
            np.testing.assert_allclose(np.asarray(ours[m]), ref[m], rtol=1e-13, atol=1e-15, err_msg=f"{order} {m}")
    ids = xp.asarray(np.array([[0, -1], [2, 1]]))
    assert np.asarray(metrics.reciprocal_rank(xp.asarray(np.ones((2, 3))), ids)).tolist() == pytest.approx([(1 + 1 / 2 + 1 / 3) / 3, 2 / 3 + 1 / 3 / 2])


# -- the import stays light -------------------------------------------------------------------------------


def test_import_loads_no_heavy_module():
    code = (
        "import sys, json; import tieaware.metrics; "
        "print(json.dumps(sorted(m for m in ('sympy', 'mpmath', 'tabulate', 'tqdm', 'hypothesis', 'array_api_compat') if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


# -- bad input: one TieawareError naming the argument, the row and the value ------------------------------

GOOD = np.array([[0.5, 0.2, 0.1], [0.3, 0.3, 0.1]])
LAB = np.array([[1, 0, 0], [0, 1, 0]])


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: metrics.ndcg(np.array([0.5, 0.2]), [{0}]), ["scores", "2-D", "(2,)"]),
        (lambda: metrics.ndcg(np.array([[0.5, np.nan, 0.1], [0.3, 0.3, 0.1]]), LAB), ["scores", "finite", "row 0", "column 1", "nan"]),
        (lambda: metrics.ndcg(np.array([[0.5, 0.1, 0.1], [0.3, -np.inf, 0.1]]), LAB), ["scores", "finite", "row 1", "-inf"]),
        (lambda: metrics.ndcg(GOOD.astype(np.complex128), LAB), ["scores", "dtype", "complex128"]),
        (lambda: metrics.ndcg(np.array([[2**60, 1]]), [[1, 0]]), ["scores", "2**53", "row 0", str(2**60)]),
        (lambda: metrics.ndcg(GOOD, np.array([[1, 0, 0], [0, -1, 0]])), ["labels", ">= 0", "row 1", "-1"]),
        (lambda: metrics.ndcg(GOOD, np.array([[1, 0, 0], [0, np.inf, 0]])), ["labels", "finite", "row 1", "inf"]),
        (lambda: metrics.ndcg(GOOD, np.array([[1.5, 0, 0], [0, 1, 0]]), gain="exp"), ["labels", "whole", "row 0", "1.5"]),
        (lambda: metrics.ndcg(GOOD, [{0}, {3}]), ["labels", "columns 0 .. 2", "row 1", "3"]),
        (lambda: metrics.ndcg(GOOD, [{0}]), ["labels", "2 rows", "1"]),
        (lambda: metrics.ndcg(GOOD, np.array([[1, 0, 0, 1]])), ["labels", "shape", "(1, 4)"]),
        (lambda: metrics.ndcg(GOOD, np.array([[0, 5], [1, -1]])), ["labels", "columns 0 .. 2", "row 0", "5"]),
        (lambda: metrics.ndcg(GOOD, LAB, 0), ["k", ">= 1", "0"]),
        (lambda: metrics.precision(GOOD, LAB, None), ["k", ">= 1", "None"]),
        (lambda: metrics.ndcg(GOOD, LAB, mask=np.ones((2, 2), dtype=bool)), ["mask", "shape", "(2, 2)"]),
        (lambda: metrics.ndcg(GOOD, LAB, mask=np.ones((2, 3))), ["mask", "boolean", "float64"]),
        (lambda: metrics.ndcg(GOOD, LAB, judged=[[1, -2], [1]]), ["judged", ">= 0", "row 0", "-2"]),
        (lambda: metrics.ndcg(GOOD, LAB, judged=[[1]]), ["judged", "(2, M)", "(1, 1)"]),
        (lambda: metrics.evaluate(GOOD, LAB, "Bpref"), ["measures", "Bpref"]),
        (lambda: metrics.evaluate(GOOD, LAB, "P@5", order="random"), ["order", "random"]),
        (lambda: metrics.ndcg(GOOD, LAB, gain="log"), ["gain", "log"]),
    ],
)
def test_bad_input_names_the_argument_the_row_and_the_value(call, words):
    with pytest.raises(TieawareError) as err:
        call()
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_masked_cells_may_hold_anything():
    scores = np.array([[0.5, np.nan, 0.1]])
    labels = np.array([[1.0, -3.0, 0.0]])
    mask = np.array([[True, False, True]])
    assert metrics.reciprocal_rank(scores, labels, mask=mask).tolist() == [1.0]


# -- property: any small tied batch, every order, against the brute force ---------------------------------

from hypothesis import given, strategies as st  # noqa: E402

_cells = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.lists(st.lists(st.integers(0, 2), min_size=n, max_size=n), min_size=1, max_size=4),
        st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=1, max_size=4),
    )
)


@given(_cells, st.sampled_from(BRUTE))
def test_any_small_batch_equals_the_brute_force(cells, measure):
    raw_scores, raw_labels = cells
    rows = min(len(raw_scores), len(raw_labels))
    scores = np.array(raw_scores[:rows], dtype=np.float32)
    labels = np.array(raw_labels[:rows])
    name, k = measure
    text = f"{name}@{k}" if k else name
    got = {o: metrics.evaluate(scores, labels, text, order=o)[text] for o in ("expected", "worst", "best")}
    for i in range(rows):
        values = [_ordinary(name, k, o, labels[i].tolist()) for o in _orderings(scores[i].tolist(), labels[i].tolist())]
        assert got["worst"][i] == pytest.approx(min(values), abs=1e-12)
        assert got["best"][i] == pytest.approx(max(values), abs=1e-12)
        assert got["expected"][i] == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_the_benchmark_runs_and_reports_its_target(capsys):
    # tieaware bench --only metrics, quick: the report's lines (timings are recorded in docs/benchmarks.md, never asserted)
    from tieaware.cli import main

    assert main(["bench", "--quick", "--only", "metrics"]) == 0
    out = capsys.readouterr().out
    for text in ("numpy argsort + gather (tie-oblivious)", "tieaware.metrics.evaluate (tie-aware)", "target, at most 1.2x", "import tieaware.metrics in a fresh interpreter"):
        assert text in out, text
