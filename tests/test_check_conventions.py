"""The checker names conventions and never crashes on one it tries."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tieaware.check import implementation
from tieaware.check.cases import Case
from tieaware.check.convention import candidates
from tieaware.check.oracle import Oracle
from tieaware.check.verdict import Judge
from tieaware.model.names import MEASURES, parse
from tieaware.runs.evaluate import compute
from tieaware import from_scores

#: Every label a check may pass: the default domain, the larger grades and the grade 1/2.
PROBE_LABELS = (0, 1, 2, 3, 4, Fraction(1, 2))


def _forms():
    for name, (takes_k, _) in MEASURES.items():
        for form in (f"{name}@5", name) if takes_k else (name, f"{name}@5"):
            try:
                Oracle(form)
            except ValueError:
                continue
            yield form
            break


@pytest.mark.parametrize("form", list(_forms()))
def test_every_convention_candidate_is_tried_on_every_probe_label_without_a_crash(form):
    """A candidate the checker cannot evaluate on a probe (2^l - 1 on the label 1/2) is skipped for that probe."""
    m = parse(form)
    tried = 0
    for c in [m, *candidates(m, PROBE_LABELS)]:
        try:
            oracle = Oracle(c)
        except ValueError:
            continue
        judge = Judge(lambda s, l: 0.0, oracle, rel_tol=1e-9, abs_tol=0.0)
        for x in PROBE_LABELS:
            for case in (Case((2.0, 1.0), (x, 1)), Case((1.0, 1.0), (1, x)), Case((3.0, 2.0, 2.0), (0, x, 2))):
                judge.check(case, "larger grades")  # a value, a counterexample or None: never an exception
                tried += 1
    assert tried


def _exp2_ndcg(scores, labels):
    return float(compute("nDCG(dcg='exp-log2')@5", from_scores(scores, labels)))


def test_an_exp2_gain_implementation_is_named_not_a_crash():
    result = implementation(_exp2_ndcg, "nDCG@5", max_examples=20)
    assert result.convention == result.conforms_as == "nDCG(dcg='exp-log2')@5"
    assert result.cause == "convention"


def _implicit_like_precision(scores, labels):
    """A user with no relevant item is skipped (a convention: norel=skip), and K past the catalogue pads with
    item ids that count as hits (a bug no convention explains), as implicit's ranking_metrics_at_k did."""
    if not any(x >= 1 for x in labels):
        return None
    order = sorted(range(len(scores)), key=lambda i: -scores[i])[:5]
    hits = sum(1 for i in order if labels[i] >= 1) + max(0, 5 - len(scores))
    return hits / min(5, sum(1 for x in labels if x >= 1))


def test_the_counterexample_is_the_smallest_failure_no_convention_explains():
    """Not the skipped empty query (norel=skip explains it) but the padded catalogue."""
    result = implementation(_implicit_like_precision, "P@5", max_examples=0)
    cex = result.counterexample
    assert not result.ok and result.convention is None
    assert any(x >= 1 for x in cex.labels) and cex.got is not None and cex.got > 1
    assert (cex.scores, cex.labels, cex.got) == ((1.0,), (1,), 5.0)


# -- P(norm=capped)@k: implicit's precision, hits / min(K, R) ------------------------------------------


def test_precision_capped_reference_equals_fast_exactly():
    from itertools import product

    from tieaware import fast, reference

    seen = 0
    for n in range(0, 6):
        for labels in product((0, 1), repeat=n):
            for cut in range(n + 1):  # one tie group from position cut on
                ranking = list(labels[:cut]) + ([list(labels[cut:])] if labels[cut:] else [])
                for k in (1, 2, 3, 5, 8):
                    for extra in (0, 2):
                        num_rel = sum(labels) + extra
                        want = reference.precision(ranking, k, num_rel, norm="capped")
                        assert fast.precision(ranking, k, num_rel, norm="capped") == want
                        got = fast.precision(ranking, k, num_rel, norm="capped", exact=False)
                        assert got == pytest.approx(float(want), abs=1e-15)
                        seen += 1
    assert seen > 1000
    assert compute("P(norm=capped)@5", [1, 0, [1, 0]]) == Fraction(2, 2)
    assert compute("P(norm=capped)@2", [[1, 0, 1, 0]], num_rel=3) == Fraction(1, 2)
    assert compute("P(norm=capped)@3", [0, 0]) == 0


def test_the_engines_give_p_capped_too():
    import tieaware

    qrels = {"q1": {"a": 1, "b": 0, "c": 1, "z": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0, "c": 1.0}}
    exact = tieaware.evaluate(qrels, run, "P(norm=capped)@2").mean["P(norm=capped)@2"]
    assert exact == Fraction(3, 4)  # (1 + 1/2) / min(2, 3)
    assert tieaware.evaluate(qrels, run, "P(norm=capped)@2", exact=False).mean["P(norm=capped)@2"] == pytest.approx(0.75, abs=1e-15)
    assert tieaware.evaluate(qrels, run, "P(norm=capped)@2", jobs=2).mean["P(norm=capped)@2"] == exact


def _implicit_precision(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    relevant = sum(1 for x in labels if x >= 1)
    return sum(1 for i in order[:5] if labels[i] >= 1) / min(5, relevant) if relevant else 0.0


def test_implicit_precision_is_named_p_capped():
    result = implementation(_implicit_precision, "P@5", max_examples=20)
    assert result.convention == "P(norm=capped)@5"
    assert "implicit" in result.profile[0].explanation


# -- nDCG(gain=binary, ideal=k)@k: rectools' NDCG (divide_by_achievable=False) ----------------------------


def _rectools_ndcg(scores, labels):
    import math

    if not any(x >= 1 for x in labels):
        return None  # rectools leaves a user without interactions out
    order = sorted(range(len(scores)), key=lambda i: -scores[i])[:5]
    dcg = sum(1 / math.log2(r + 2) for r, i in enumerate(order) if labels[i] >= 1)
    return dcg / sum(1 / math.log2(r + 2) for r in range(5))


def test_rectools_ndcg_is_named_with_an_ideal_of_k_relevant_documents():
    result = implementation(_rectools_ndcg, "nDCG@5", labels="binary", max_examples=20)
    assert result.convention == "nDCG(gain=binary,ideal=k,norel=skip)@5", str(result)
    assert "rectools" in result.profile[0].explanation


def test_ndcg_ideal_k_reference_equals_fast_and_the_engines():
    import tieaware
    from tieaware import fast, reference

    m = "nDCG(gain=binary,ideal=k)@3"
    for ranking in ([1], [[1, 0], 1], [0, [1, 1, 0]], [[0, 0]], [2, [1, 0, 2], 1]):
        assert compute(m, ranking) == compute(m, ranking, layer="reference")
    assert float(compute(m, [1])) == pytest.approx(1 / (1 + 1 / 1.584962500721156 + 0.5))
    qrels = {"q1": {"a": 1, "b": 0, "c": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}}
    exact = tieaware.evaluate(qrels, run, m).mean[m]
    assert tieaware.evaluate(qrels, run, m, exact=False).mean[m] == pytest.approx(float(exact), abs=1e-12)
    assert tieaware.evaluate(qrels, run, m, jobs=2).mean[m] == exact
    assert fast is not None and reference is not None


@pytest.mark.parametrize("bad", ["nDCG(ideal=k)@5", "nDCG(gain=binary,ideal=k)", "nDCG(gain=binary,ideal=all)@5"])
def test_ndcg_ideal_needs_binary_gain_and_a_cutoff(bad):
    from tieaware.model.errors import TieawareError

    with pytest.raises(TieawareError, match="ideal"):
        parse(bad)


# -- Success(norel=nan, multirel=nan)@k: rankereval's single-positive HitRate ----------------------------


def _rankereval_hit_rate(scores, labels):
    positives = sum(1 for x in labels if x >= 1)
    if positives != 1:
        return float("nan")  # "not defined for no or multiple positives"
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return float(any(labels[i] >= 1 for i in order[:5]))


def test_rankereval_hit_rate_is_named_success_with_one_positive():
    result = implementation(_rankereval_hit_rate, "Success@5", labels="binary", max_examples=20)
    assert result.convention == "Success(multirel=nan,norel=nan)@5", str(result)
    assert "rankereval" in result.profile[0].explanation
    assert compute("Success(norel=nan,multirel=nan)@2", [[0, 1, 0]]) == Fraction(2, 3)
    assert str(compute("Success(norel=nan,multirel=nan)@2", [1, [1, 0]])) == "nan"
    assert compute("Success(norel=nan,multirel=nan)@2", [[0, 1, 0]], layer="reference") == Fraction(2, 3)
