"""tieaware.check.adapters: other calling conventions, checked through the same checker."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from tieaware import TieawareError, fast, from_scores
from tieaware.check import adapters, implementation

BUDGET = dict(max_size=3, max_examples=10)


def test_qrels_and_run_keep_input_order_but_name_documents_out_of_it():
    qrels, run = adapters.qrels_and_run([1.5, 2.0, 1.5], [2, 0, Fraction(1)])
    assert qrels == {"q1": {"d001": 2, "d002": 0, "d000": 1}}
    assert list(run["q1"].items()) == [("d001", 1.5), ("d002", 2.0), ("d000", 1.5)]  # dict order: input order
    assert all(isinstance(x, int) for x in qrels["q1"].values())  # pytrec_eval wants ints


def test_docnos_are_a_shuffle_fixed_by_the_labels_and_vary_between_probes():
    names = adapters.docnos([0, 1] * 600)
    assert sorted(names) == [f"d{i:04d}" for i in range(1200)]  # zero-padded: string order is number order
    assert names != sorted(names) and names != sorted(names, reverse=True)
    assert adapters.docnos([0, 1] * 600) == names  # the same input, the same names
    # the smallest tie, handed over both ways: docno order is input order on one, reverse input order on the other
    assert adapters.docnos([0, 1]) == ["d000", "d001"] and adapters.docnos([1, 0]) == ["d001", "d000"]
    # labels as a worker of another Python gets them (JSON: 1/2 -> 0.5, 1 -> 1) name the documents alike
    assert adapters.docnos([Fraction(1, 2), 1, 0]) == adapters.docnos([0.5, 1.0, 0])


def _sorting(key):
    """An ir_measures-style P@1 whose tie order is *key* over (position in the run dict, docno)."""

    def p_at_1(qrels, run):
        docs = list(run["q1"].items())
        ranked = sorted(range(len(docs)), key=lambda i: (-docs[i][1], key(i, docs[i][0])))
        return {"q1": float(qrels["q1"][docs[ranked[0]][0]] >= 1)} if docs else {"q1": 0.0}

    return adapters.from_qrels_run(p_at_1)


class _Desc(str):
    def __lt__(self, other):  # a string that sorts descending
        return str.__gt__(self, other)


@pytest.mark.parametrize(
    "key, cause",
    [
        (lambda i, d: i, "input_order"),  # a stable sort on score
        (lambda i, d: -i, "reverse_input"),
        (lambda i, d: d, "docno_asc"),  # sorted by (-score, docno): ir_measures' msmarco provider
        (lambda i, d: _Desc(d), "docno"),  # trec_eval: docno descending
    ],
)
def test_the_four_order_rules_are_told_apart(key, cause):
    result = implementation(_sorting(key), "P@1", **BUDGET)
    assert not result.ok and result.cause == cause, str(result)
    [finding] = [f for f in result.profile if f.cause == cause][:1]
    assert finding.held_rule == cause and finding.held_up_to == 65  # confirmed on every large-group probe


@pytest.mark.parametrize(
    "shape",
    [
        lambda v: v,
        lambda v: {"q1": v},
        lambda v: {"q1": {"P_1": v}},
    ],
)
def test_from_qrels_run_accepts_the_usual_result_shapes(shape):
    def fn(qrels, run):
        ranking = from_scores(list(run["q1"].values()), list(qrels["q1"].values()))
        return shape(fast.precision(ranking, 1, exact=False))

    assert implementation(adapters.from_qrels_run(fn), "P@1", **BUDGET).ok


def test_from_qrels_run_refuses_an_ambiguous_result():
    impl = adapters.from_qrels_run(lambda q, r: {"q1x": 1.0, "q2": 0.5})
    with pytest.raises(TieawareError, match=r"result must be a number, .*got \{'q1x': 1\.0, 'q2': 0\.5\}"):
        impl([1.0], [1])


def test_from_arrays_passes_one_row_2d_arrays():
    seen = []

    def fn(y_true, y_score, k):
        seen.append((y_true.shape, y_score.shape, k))
        return fast.precision(from_scores(list(y_score[0]), [int(x) for x in y_true[0]]), 2, exact=False)

    assert implementation(adapters.from_arrays(fn, k=2), "P@2", isolate=False, **BUDGET).ok  # isolate=False: seen is filled here
    assert ((1, 1), (1, 1), 2) in seen and all(t[0] == 1 and t == s and k == 2 for t, s, k in seen)  # one row each


SCRIPT = """
import sys
from collections import defaultdict
from fractions import Fraction
labels = {line.split()[2]: int(line.split()[3]) for line in open(sys.argv[1]) if line.strip()}
by_score = defaultdict(list)
for line in open(sys.argv[2]):
    if line.strip():
        _, _, doc, _, score, _ = line.split()
        by_score[Fraction(score)].append(labels[doc] >= 1)
hits, top, k = 0.0, 0, 2  # tie-aware P@2: a group contributes r/n per rank it holds above k
for score in sorted(by_score, reverse=True):
    group = by_score[score]
    hits += sum(group) / len(group) * max(0, min(k, top + len(group)) - top)
    top += len(group)
print("P_2\\tq1\\t%.17g" % (hits / k))
print("P_2\\tall\\t%.17g" % (hits / k))
"""


def test_from_command_reads_trec_eval_style_output(tmp_path):
    script = tmp_path / "p2.py"
    script.write_text(SCRIPT)
    impl = adapters.from_command([sys.executable, str(script), "{qrels}", "{run}"], pick="P_2")
    result = implementation(impl, "P@2", max_size=1, near_tie_size=2, max_examples=3)  # one process per input: keep it small
    assert result.ok, str(result)


def test_from_command_refuses_a_command_failing_on_the_simplest_input():
    with pytest.raises(TieawareError, match=r"fails on two untied documents, so on every input \(.* exited with status 3"):
        adapters.from_command([sys.executable, "-c", "import sys; sys.exit(3)", "{run}"])


def test_from_command_reports_a_command_failing_on_one_input(tmp_path):
    script = tmp_path / "one_doc_fails.py"  # exits 3 on a run of one document
    script.write_text("import sys\nn = len(open(sys.argv[1]).readlines())\nsys.exit(3) if n == 1 else print(0.5)\n")
    impl = adapters.from_command([sys.executable, str(script), "{run}"])
    result = implementation(impl, "P@1", max_size=1, max_examples=0)
    assert "RuntimeError" in result.counterexample.exception and "status 3" in result.counterexample.exception


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], r"argv_template must be a non-empty command line, got \[\]"),
        (["trec_eval", "{qrels}"], r"argv_template must mention \{run\}.*got \['trec_eval', '\{qrels\}'\]"),
    ],
)
def test_from_command_refuses_bad_templates(argv, message):
    with pytest.raises(TieawareError, match=message):
        adapters.from_command(argv)


def test_adapters_refuse_non_functions():
    with pytest.raises(TieawareError, match=r"fn must be a function fn\(qrels, run\), got 3"):
        adapters.from_qrels_run(3)
    with pytest.raises(TieawareError, match=r"fn must be a function fn\(y_true, y_score\), got 'f'"):
        adapters.from_arrays("f")


# -- the adapters for 1-D arrays, tensors, DataFrames, csr matrices and ranked id lists -----------------


def _p_at_2(scores, labels):
    return fast.precision(from_scores([float(x) for x in scores], [int(x) for x in labels]), 2, exact=False)


def test_from_vectors_passes_1d_arrays_in_either_order():
    import numpy as np

    seen = []

    def fn(a, b):
        seen.append((a.ndim, b.ndim, a.dtype.kind))
        return _p_at_2(a, b)

    assert implementation(adapters.from_vectors(fn), "P@2", isolate=False, **BUDGET).ok
    assert set(seen) == {(1, 1, "f")}
    assert implementation(adapters.from_vectors(lambda y, s: _p_at_2(s, y), truth_first=True), "P@2", **BUDGET).ok
    assert isinstance(adapters.from_vectors(lambda s, l: np.float32(0.5))([1.0], [1]), np.floating)


class FakeTensor:
    """A tensor of another library, seen only through __array__ and __dlpack__ (tieaware imports no torch)."""

    def __init__(self, values):
        import numpy as np

        self.data = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    def __dlpack__(self, stream=None):
        return self.data.__dlpack__()

    def __dlpack_device__(self):
        return self.data.__dlpack_device__()


class DLPackOnly:
    def __init__(self, values):
        import numpy as np

        self.data = np.asarray(values)

    def __dlpack__(self, stream=None):
        return self.data.__dlpack__()

    def __dlpack_device__(self):
        return self.data.__dlpack_device__()


@pytest.mark.parametrize("result", [FakeTensor, DLPackOnly])
def test_from_tensors_builds_with_the_given_constructor_and_reads_a_tensor_result(result):
    import numpy as np

    def fn(preds, target):
        assert isinstance(preds, FakeTensor) and isinstance(target, FakeTensor)
        return result(np.float64(_p_at_2(np.asarray(preds), np.asarray(target))))

    assert implementation(adapters.from_tensors(fn, FakeTensor), "P@2", **BUDGET).ok


def test_from_dataframes_gives_recommendations_and_interactions():
    pd = pytest.importorskip("pandas")
    seen = []

    def p_at_2(reco, inter):
        seen.append((list(reco.columns), list(inter.columns)))
        relevant = set(inter["item_id"])
        return _p_at_2(list(reco["score"]), [int(i in relevant) for i in reco["item_id"]])

    assert implementation(adapters.from_dataframes(p_at_2, rank="rank"), "P@2", labels="binary", isolate=False, **BUDGET).ok
    assert seen[0] == (["user_id", "item_id", "score", "rank"], ["user_id", "item_id"])
    ranks = adapters.from_dataframes(lambda reco, inter: pd.Series([list(reco["rank"])]).iloc[0], rank="rank")
    assert ranks([2.0, 2.0, 1.0], [0, 1, 0]) == [1, 1, 3]  # tied items share a rank


def test_from_csr_keeps_zero_scores_stored():
    pytest.importorskip("scipy")

    def p_at_2(y_true, y_pred):
        labels = y_true.toarray()[0]
        assert y_pred.nnz == y_pred.shape[1]  # every score stored, zeros too
        return _p_at_2(list(y_pred.toarray()[0]), list(labels))

    assert implementation(adapters.from_csr(p_at_2), "P@2", labels="binary", **BUDGET).ok


def test_from_ranked_ids_is_checked_as_a_tie_oblivious_function():
    def p_at_2(ranked, relevant):
        return sum(1 for d in ranked[:2] if d in relevant) / 2

    result = implementation(adapters.from_ranked_ids(p_at_2), "P@2", labels="binary", **BUDGET)
    assert result.cause == "input_order"  # a ranked list cannot say which documents tie


def test_a_tensor_result_of_many_numbers_is_refused():
    impl = adapters.from_tensors(lambda s, l: FakeTensor([0.5, 0.5]), FakeTensor)
    result = implementation(impl, "P@2", **BUDGET)
    assert not result.ok and "one number" in result.counterexample.exception
