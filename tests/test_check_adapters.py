"""tieaware.check.adapters: other calling conventions, checked through the same checker."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from tieaware import TieawareError, fast, from_scores
from tieaware.check import adapters, implementation

BUDGET = dict(max_size=3, max_examples=10)


def test_qrels_and_run_name_documents_in_input_order():
    qrels, run = adapters.qrels_and_run([1.5, 2.0, 1.5], [2, 0, Fraction(1)])
    assert qrels == {"q1": {"d000": 2, "d001": 0, "d002": 1}}
    assert run == {"q1": {"d000": 1.5, "d001": 2.0, "d002": 1.5}}
    assert all(isinstance(x, int) for x in qrels["q1"].values())  # pytrec_eval wants ints


def test_docnos_sort_in_input_order_beyond_a_thousand():
    names = adapters.docnos(1200)
    assert names == sorted(names) and names[0] == "d0000"


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

    assert implementation(adapters.from_arrays(fn, k=2), "P@2", **BUDGET).ok
    assert seen[0] == ((1, 1), (1, 1), 2)


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
