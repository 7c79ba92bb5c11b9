"""The checker's search space, class by class: for each class of bug a wrong
implementation that the checker rejects at its DEFAULT settings, with the expected diagnosis,
and correct implementations it accepts.

Each wrong implementation is right everywhere except in its class, so only the phase that
covers the class can catch it.  They are written here, independently of tieaware's layers:
plain Python on sorted lists, with tie groups averaged by the textbook closed forms.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from tieaware.check import adapters, implementation


# -- independent tie-aware building blocks ----------------------------------------


def groups_by(scores, labels, same=lambda a, b: a == b, presorted=False):
    """Tie groups of labels, best first; *same* decides when two adjacent scores tie."""
    order = range(len(scores)) if presorted else sorted(range(len(scores)), key=lambda i: -scores[i])
    out, last = [], None
    for i in order:
        if out and same(scores[i], last):
            out[-1].append(labels[i])
        else:
            out.append([labels[i]])
        last = scores[i]
    return out


def tie_aware_ap(gs, num_rel=None, k=None):
    """McSherry & Najork's AP over tie groups; with k, the relevant documents within rank k only."""
    relevant = sum(1 for g in gs for x in g if x >= 1) if num_rel is None else num_rel
    total, seen, hits = 0.0, 0, 0
    for g in gs:
        n, r = len(g), sum(1 for x in g if x >= 1)
        for j in range(1, n + 1):  # the group's j-th rank: relevant with probability r/n
            if k is not None and seen + j > k:
                break
            before = hits + (r - 1) * (j - 1) / (n - 1) if n > 1 else hits
            total += r / n * (before + 1) / (seen + j)
        seen, hits = seen + n, hits + r
    return total / relevant if relevant else 0.0


def tie_aware_ndcg(gs, k, gain=lambda x: x):
    """nDCG@k with tied gains averaged over the ranks the group holds."""

    def dcg(groups):
        total, seen = 0.0, 0
        for g in groups:
            mean = sum(gain(x) for x in g) / len(g)
            total += sum(mean / math.log2(seen + j + 1) for j in range(1, len(g) + 1) if seen + j <= k)
            seen += len(g)
        return total

    ideal = dcg([[x] for x in sorted((x for g in gs for x in g), reverse=True)])
    return dcg(gs) / ideal if ideal else 0.0


def ap(scores, labels):
    return tie_aware_ap(groups_by(scores, labels))


def ap_num_rel(scores, labels, num_rel=None):
    return tie_aware_ap(groups_by(scores, labels), num_rel)


def run(impl, measure="AP"):
    return implementation(impl, measure)  # default settings, always


# -- correct implementations are accepted -------------------------------------------


def test_a_correct_ap_conforms_at_default_settings():
    assert run(ap).ok


def test_a_correct_three_argument_ap_conforms_with_unretrieved_relevant_documents_searched():
    result = run(ap_num_rel)
    assert result.ok


def test_a_correct_ndcg_conforms_at_default_settings_with_larger_and_fractional_grades():
    assert run(lambda s, l: tie_aware_ndcg(groups_by(s, l), 5), "nDCG@5").ok


def test_a_correct_ap_at_12_conforms_past_its_cutoff():
    assert run(lambda s, l: tie_aware_ap(groups_by(s, l), k=12), "AP@12").ok


# -- scores ------------------------------------------------------------------------


def test_ties_by_a_1e_12_tolerance_are_caught_on_ulp_apart_doubles_and_the_tolerance_estimated():
    result = run(lambda s, l: tie_aware_ap(groups_by(s, l, lambda a, b: abs(a - b) <= 1e-12)))
    assert not result.ok and result.counterexample.phase == "ulp-apart"
    assert result.diagnosis.cause == "tolerance"
    assert "9.1e-13 apart tie" in result.diagnosis.explanation  # 2**-40 ties, 2**-39 does not: about 1e-12


def test_ties_by_a_1e_7_tolerance_are_not_mistaken_for_float32():
    result = run(lambda s, l: tie_aware_ap(groups_by(s, l, lambda a, b: abs(a - b) <= 1e-7)))
    assert not result.ok
    assert result.diagnosis.cause == "tolerance"


def test_float32_rounding_is_still_named_float32():
    import struct

    f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # noqa: E731
    result = run(lambda s, l: tie_aware_ap(groups_by([f32(x) for x in s], l)))
    assert not result.ok and result.diagnosis.cause == "float32_scores"


def test_zero_scores_treated_as_not_retrieved_are_caught_on_two_documents():
    def drops_zero(s, l):
        kept = [(x, y) for x, y in zip(s, l) if x > 0]
        relevant = sum(1 for y in l if y >= 1)
        gs = groups_by([x for x, _ in kept], [y for _, y in kept])
        return tie_aware_ap(gs, relevant)

    result = run(drops_zero)
    cex = result.counterexample
    assert not result.ok and cex.phase == "scores" and len(cex.scores) == 2 and 0.0 in cex.scores
    assert result.cause == "score_values"  # right on the same ranking scored 2, 1: it is the zero


def test_negative_scores_mishandled_are_caught():
    result = run(lambda s, l: ap([abs(x) for x in s], l))  # a magnitude where a score was meant
    assert not result.ok and result.counterexample.phase == "scores"
    assert min(result.counterexample.scores) < 0


def test_negative_zero_not_tied_with_zero_is_caught():
    result = run(lambda s, l: tie_aware_ap(groups_by(s, l, lambda a, b: repr(a) == repr(b))))
    assert not result.ok and result.counterexample.phase == "scores"
    assert "-0.0" in repr(result.counterexample.scores)


def test_huge_scores_that_overflow_are_caught():
    result = run(lambda s, l: ap([x * 10.0 for x in s], l))  # 1e308 * 10 == inf: distinct scores tie
    assert not result.ok and result.counterexample.phase == "scores"
    assert max(result.counterexample.scores) > 1e307


# -- input order --------------------------------------------------------------------


def test_assuming_sorted_input_is_found_on_two_documents_and_named():
    result = run(lambda s, l: tie_aware_ap(groups_by(s, l, presorted=True)))
    cex = result.counterexample
    assert not result.ok and cex.phase == "exhaustive" and len(cex.scores) == 2
    assert list(cex.scores) != sorted(cex.scores, reverse=True)
    assert result.diagnosis.cause == "assumes_sorted"


def test_a_tie_oblivious_sorted_input_assumption_is_not_called_untied():
    def first_as_given(s, l):
        return tie_aware_ap([[x] for x in l])

    result = run(first_as_given)
    assert not result.ok and len(result.counterexample.scores) == 2
    assert result.diagnosis.cause == "assumes_sorted"


def test_a_sorted_input_assumption_beyond_the_exhaustive_size_is_shrunk_to_the_fewest_documents():
    result = run(lambda s, l: tie_aware_ap(groups_by(s, l, presorted=len(s) >= 5)))
    cex = result.counterexample
    assert not result.ok and cex.phase == "hypothesis"
    assert len(cex.scores) == 5  # the fewest that fail, although hypothesis drew more
    assert result.diagnosis.cause == "assumes_sorted"


# -- labels -------------------------------------------------------------------------


def test_a_gain_clipped_at_grade_2_is_caught_by_default():
    result = run(lambda s, l: tie_aware_ndcg(groups_by(s, l), 5, gain=lambda x: min(x, 2)), "nDCG@5")
    assert not result.ok and result.counterexample.phase == "larger grades"
    assert 3 in result.counterexample.labels
    assert result.diagnosis.cause == "definition"


def test_a_non_integer_grade_truncated_is_caught_by_default():
    result = run(lambda s, l: tie_aware_ndcg(groups_by(s, [int(x) for x in l]), 5), "nDCG@5")
    assert not result.ok and result.counterexample.phase == "larger grades"
    assert 0.5 in result.counterexample.labels


# -- sizes --------------------------------------------------------------------------


def test_ap_at_12_normalised_by_min_of_r_and_k_is_caught_past_the_cutoff():
    def capped(s, l):
        gs = groups_by(s, l)
        relevant = sum(1 for x in l if x >= 1)
        return tie_aware_ap(gs, k=12) * relevant / min(relevant, 12) if relevant else 0.0

    result = run(capped, "AP@12")
    cex = result.counterexample
    assert not result.ok and cex.phase == "past cutoff"
    assert sum(1 for x in cex.labels if x >= 1) > 12
    # not a bug: RecBole's and rankereval's AP@k (docs/conventions.md, Conventions of other libraries)
    assert result.cause == "convention" and result.conforms_as == "AP(norm=capped)@12"


def test_an_approximation_for_tie_groups_over_9_is_caught():
    def approximates_large(s, l):
        gs = groups_by(s, l)
        if max(len(g) for g in gs) > 9:  # "too many orderings": fall back to input order
            return tie_aware_ap([[y] for _, y in sorted(zip(s, l), key=lambda p: -p[0])])
        return tie_aware_ap(gs)

    result = run(approximates_large)
    assert not result.ok and result.counterexample.phase == "large tie groups"
    assert len(result.counterexample.scores) >= 10


# -- diagnosis ------------------------------------------------------------------------


def test_a_group_straddling_the_cutoff_counted_whole_is_a_straddle_not_an_off_by_one():
    def whole_group(s, l, k=5):
        hits, seen = 0.0, 0
        for g in groups_by(s, l):
            if seen < k:
                hits += sum(1 for x in g if x >= 1)  # all of it, even the part below rank k
            seen += len(g)
        return hits / k

    result = run(whole_group, "P@5")
    assert not result.ok
    assert result.diagnosis.cause == "cutoff_straddle"


def test_a_real_off_by_one_cutoff_is_named_only_after_independent_probes():
    def p_at_k_plus_1(s, l, k=5):  # the loop runs one rank too far: tie-aware P@6
        hits, seen = 0.0, 0
        for g in groups_by(s, l):
            inside = max(0, min(len(g), k + 1 - seen))
            hits += sum(1 for x in g if x >= 1) * inside / len(g)
            seen += len(g)
        return hits / (k + 1)

    result = run(p_at_k_plus_1, "P@5")
    assert not result.ok
    assert result.diagnosis.cause == "cutoff_off_by_one" and "k=6" in result.diagnosis.explanation


# -- signatures ------------------------------------------------------------------------


def test_ap_normalised_by_retrieved_relevant_is_caught_through_the_three_argument_form():
    def retrieved_only(s, l, num_rel=None):
        return tie_aware_ap(groups_by(s, l))  # ignores num_rel

    result = run(retrieved_only)
    cex = result.counterexample
    assert not result.ok and cex.phase == "unretrieved relevant" and cex.num_rel is not None
    assert result.diagnosis.cause == "ignores_num_rel"
    assert "num_rel" in str(result)


def test_the_qrels_run_adapter_passes_unretrieved_relevant_documents_and_a_numeric_qid():
    seen = []

    def fn(qrels, run):
        seen.append((dict(qrels), dict(run)))
        (qid,) = run
        docs = sorted(run[qid], key=lambda d: -run[qid][d])
        return {qid: tie_aware_ap(groups_by([run[qid][d] for d in docs], [qrels[qid][d] for d in docs]),
                                  sum(1 for x in qrels[qid].values() if x >= 1))}

    impl = adapters.from_qrels_run(fn, qid="7")
    assert impl([1.0, 0.5], [0, 1], 3) == pytest.approx(0.5 / 3)
    assert seen[-1][0] == {"7": {"d000": 0, "d001": 1, "u000": 1, "u001": 1}}
    result = implementation(impl, "AP", max_size=3, max_examples=10)
    assert result.ok, str(result)


@pytest.mark.peers
@pytest.mark.parametrize("name, measure", [("nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@5"), ("ERR@5", "ERR@5")])
def test_ir_measures_backends_that_need_a_numeric_qid_run_through_the_adapter(name, measure):
    ir_measures = pytest.importorskip("ir_measures")
    m = ir_measures.parse_measure(name)

    def fn(qrels, run):
        return {r.query_id: r.value for r in m.iter_calc(_qrels(ir_measures, qrels), _run(ir_measures, run))}

    # gdeval prints 5 decimals: compare within 1e-4.
    result = implementation(adapters.from_qrels_run(fn, qid="1"), measure, max_size=2, max_examples=5, ties=False, rel_tol=1e-4, abs_tol=1e-5)
    assert result.counterexample is None or result.counterexample.exception is None, str(result)  # it runs
    if name.startswith("nDCG"):
        assert result.ok, str(result)  # on untied rankings it is the ordinary nDCG with gain 2^label - 1
    else:  # gdeval's ERR takes g_max = 4 whatever the judgements (tieaware's default: the best judged grade)
        assert result.cause == "convention" and result.conforms_as == "ERR(g_max=4)@5", str(result)
        assert (result.precision.kind, result.precision.digits) == ("decimals", 5)  # gdeval prints 5 decimals


def _qrels(ir_measures, qrels):
    return [ir_measures.Qrel(q, d, int(x)) for q, docs in qrels.items() for d, x in docs.items()]


def _run(ir_measures, run):
    return [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]


# -- the shipped AP vectors cover the same classes -----------------------------------------


def _drops_zero(s, l):
    kept = [(x, y) for x, y in zip(s, l) if x > 0]
    return tie_aware_ap(groups_by([x for x, _ in kept], [y for _, y in kept]), sum(1 for y in l if y >= 1))


def _large_by_input_order(s, l):
    gs = groups_by(s, l)
    if max(len(g) for g in gs) > 9:
        return tie_aware_ap([[y] for _, y in sorted(zip(s, l), key=lambda p: -p[0])])
    return tie_aware_ap(gs)


def _f32(x):
    import struct

    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


WRONG_FOR_VECTORS = {
    "tolerance 1e-12": lambda s, l: tie_aware_ap(groups_by(s, l, lambda a, b: abs(a - b) <= 1e-12)),
    "zero score not retrieved": _drops_zero,
    "abs of scores": lambda s, l: ap([abs(x) for x in s], l),
    "-0.0 not tied": lambda s, l: tie_aware_ap(groups_by(s, l, lambda a, b: repr(a) == repr(b))),
    "assumes sorted input": lambda s, l: tie_aware_ap(groups_by(s, l, presorted=True)),
    "large groups approximated": _large_by_input_order,
    "float32": lambda s, l: ap([_f32(x) for x in s], l),
}


def _class_vectors():
    from tieaware import vectors

    return [c for c in vectors.iter_cases("average_precision", measure="AP") if c.tc_id > 278]


def test_the_ap_vectors_hold_every_class_and_a_correct_ap_passes_them():
    from tieaware import vectors

    cases = _class_vectors()
    flags = set().union(*(c.flags for c in cases))
    for flag in ("NearTie", "ZeroScore", "NegativeScore", "NegativeZero", "ExtremeScore", "ShuffledInput",
                 "HighGrade", "FractionalGrade", "LargeTieGroup", "NumRelBeyondRetrieved"):
        assert flag in flags, flag
    many = list(vectors.iter_cases("average_precision", measure="AP@12", flags=("ManyRelevant",)))
    assert many
    for c in cases:
        assert c.close(ap_num_rel(c.scores, c.labels, c.num_rel)), c.comment
    for c in many:
        assert c.close(tie_aware_ap(groups_by(c.scores, c.labels), c.num_rel, k=12)), c.comment


@pytest.mark.parametrize("name", sorted(WRONG_FOR_VECTORS))
def test_each_wrong_class_fails_some_shipped_ap_vector(name):
    impl = WRONG_FOR_VECTORS[name]
    failing = [c for c in _class_vectors() if c.num_rel is None and not c.close(impl(c.scores, c.labels))]
    assert failing, name


def test_ap_at_12_normalised_by_k_fails_a_shipped_vector():
    from tieaware import vectors

    def capped(s, l):
        relevant = sum(1 for x in l if x >= 1)
        return tie_aware_ap(groups_by(s, l), k=12) * relevant / min(relevant, 12) if relevant else 0.0

    assert any(not c.close(capped(c.scores, c.labels)) for c in vectors.iter_cases("average_precision", measure="AP@12"))


# -- the formula checker's defaults reach large groups and grades >= 3 ---------------------------


def _harmonic_gain(o):
    """Σ label / rank over one ordering."""
    return sum((Fraction(x) / r for r, x in enumerate(o, start=1)), Fraction(0))


def _harmonic_tie_aware(gs, approximate_from=None, clip=None):
    total, top = Fraction(0), 0
    for g in gs:
        gains = [min(x, clip) if clip is not None else x for x in g]
        mean = sum(gains, Fraction(0)) / len(g)
        if approximate_from is not None and len(g) >= approximate_from:  # "close enough" for big groups
            total += mean * len(g) / (top + (len(g) + 1) / Fraction(2))
        else:
            total += mean * sum(Fraction(1, j) for j in range(top + 1, top + len(g) + 1))
        top += len(g)
    return total


def test_formula_defaults_confirm_a_right_closed_form():
    from tieaware.check import formula

    assert formula(_harmonic_gain, _harmonic_tie_aware).ok


def test_formula_defaults_refute_a_bug_only_in_tie_groups_of_10_or_more():
    from tieaware.check import formula

    result = formula(_harmonic_gain, lambda gs: _harmonic_tie_aware(gs, approximate_from=10))
    assert not result.ok and result.counterexample.phase == "large tie groups"
    assert max(map(len, result.counterexample.groups)) >= 10


def test_formula_defaults_refute_a_bug_only_for_grades_of_3_or_more():
    from tieaware.check import formula

    result = formula(_harmonic_gain, lambda gs: _harmonic_tie_aware(gs, clip=2))
    assert not result.ok and result.counterexample.phase == "larger grades"
    assert max(x for g in result.counterexample.groups for x in g) >= 3


def test_a_required_num_rel_argument_is_always_passed():
    def strict(scores, labels, num_rel):  # no default: called with num_rel every time
        return tie_aware_ap(groups_by(scores, labels), num_rel)

    assert implementation(strict, "AP", max_size=3, max_examples=20).ok
