"""The checker's profile at its DEFAULT settings: for each class of behaviour an implementation
written here (plain Python, independent of tieaware's layers, the way libraries write measures)
and the cause / conforms_as the checker must report.

Conventions (docs/conventions.md, Conventions of other libraries) are named, not called bugs;
float32 and rounded results conform at their measured precision; declared domains are never left;
tie rules are named only when they hold on groups of up to 65 documents; every class is reported,
not only the first.
"""

from __future__ import annotations

import math
import struct

import pytest

from tieaware.check import implementation


# -- plain building blocks: one ordering, and tie groups averaged by McSherry & Najork's forms --------


def groups_by(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    out, last = [], None
    for i in order:
        if out and scores[i] == last:
            out[-1].append(labels[i])
        else:
            out.append([labels[i]])
        last = scores[i]
    return out


def relevant(x, threshold=1):
    return x >= threshold


def ap_sum(gs, k=None, threshold=1):
    """Σ over ranks j <= k of E[rel(j)·P@j] (tie-aware), and the expected hits within k."""
    total, seen, hits = 0.0, 0, 0
    for g in gs:
        n, r = len(g), sum(1 for x in g if relevant(x, threshold))
        for j in range(1, n + 1):
            if k is not None and seen + j > k:
                break
            before = hits + (r - 1) * (j - 1) / (n - 1) if n > 1 else hits
            total += r / n * (before + 1) / (seen + j)
        seen, hits = seen + n, hits + r
    return total


def tie_aware_ap(scores, labels, k=None, threshold=1):
    big_r = sum(1 for x in labels if relevant(x, threshold))
    return ap_sum(groups_by(scores, labels), k, threshold) / big_r if big_r else 0.0


def expected_hits(gs, k, threshold=1):
    total, seen = 0.0, 0
    for g in gs:
        inside = max(0, min(len(g), k - seen))
        total += inside * sum(1 for x in g if relevant(x, threshold)) / len(g)
        seen += len(g)
    return total


def tie_aware_p(scores, labels, k, threshold=1):
    return expected_hits(groups_by(scores, labels), k, threshold) / k


def dcg(gs, k, gain):
    total, seen = 0.0, 0
    for g in gs:
        mean = sum(gain(x) for x in g) / len(g)
        total += sum(mean / math.log2(seen + j + 1) for j in range(1, len(g) + 1) if seen + j <= k)
        seen += len(g)
    return total


def tie_aware_ndcg(scores, labels, k, gain=lambda x: x):
    ideal = dcg([[x] for x in sorted(labels, reverse=True)], k, gain)
    return dcg(groups_by(scores, labels), k, gain) / ideal if ideal else 0.0


def stable_order(scores, labels):
    return [labels[i] for i in sorted(range(len(scores)), key=lambda i: -scores[i])]


def ap_of_ordering(o, k=None, threshold=1, divisor=None):
    hits, total = 0, 0.0
    for rank, x in enumerate(o[:k] if k else o, start=1):
        if relevant(x, threshold):
            hits += 1
            total += hits / rank
    d = divisor(o, hits) if divisor else sum(1 for x in o if relevant(x, threshold))
    return total / d if d else 0.0


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def check(impl, measure, **options):
    return implementation(impl, measure, **options)  # default settings unless a domain is declared


# -- conventions are named -------------------------------------------------------------------------


def test_ap_divided_by_min_r_k_is_named_as_a_convention():
    def capped(s, l):
        r = sum(1 for x in l if x >= 1)
        return ap_sum(groups_by(s, l), 5) / min(r, 5) if r else 0.0

    result = check(capped, "AP@5")
    assert not result.ok and result.cause == "convention"
    assert result.conforms_as == "AP(norm=capped)@5" and result.convention == "AP(norm=capped)@5"
    assert "RecBole" in str(result)


def ap_by_hits(s, l, k):
    """Tie-aware AP@k divided by the hits in the top k: condition on h, the straddling group's hits above k."""
    from math import comb

    above, seen = [], 0
    for g in groups_by(s, l):
        if seen + len(g) <= k:
            above.append(g)
            seen += len(g)
            continue
        n, r, m = len(g), sum(1 for x in g if x >= 1), k - seen
        hits = sum(1 for a in above for x in a if x >= 1)
        total = 0.0
        for h in range(0, min(r, m) + 1):
            chance = comb(r, h) * comb(n - r, m - h) / comb(n, m)
            if chance and hits + h:  # given h, the m slots are a tie group of m with h relevant
                total += chance * ap_sum(above + [[1] * h + [0] * (m - h)]) / (hits + h)
        return total
    hits = sum(1 for a in above for x in a if x >= 1)
    return ap_sum(above) / hits if hits else 0.0


def test_ap_divided_by_the_hits_in_the_top_k_is_named():
    result = check(lambda s, l: ap_by_hits(s, l, 3), "AP@3")
    assert result.conforms_as == "AP(norm=hits)@3" and result.cause == "convention", str(result)


def test_p_over_the_documents_retrieved_is_named():
    def adaptive(s, l):
        n = len(s)
        return expected_hits(groups_by(s, l), 5) / min(5, n) if n else 0.0

    result = check(adaptive, "P@5")
    assert result.conforms_as == "P(norm=retrieved)@5" and result.cause == "convention"


def test_binary_gain_ndcg_is_named():
    result = check(lambda s, l: tie_aware_ndcg(s, l, 5, gain=lambda x: 1.0 if x >= 1 else 0.0), "nDCG@5")
    assert result.conforms_as == "nDCG(gain=binary)@5" and result.cause == "convention"


def test_err_with_a_fixed_g_max_is_named_with_the_tie_order_apart():
    def err_gmax4(s, l):  # gdeval's ERR: R(g) = (2^g - 1)/16, ties in input order
        total, go_on = 0.0, 1.0
        for rank, x in enumerate(stable_order(s, l)[:5], start=1):
            stop = (2**x - 1) / 16
            total += go_on * stop / rank
            go_on *= 1 - stop
        return total

    result = check(err_gmax4, "ERR@5", labels="integer")
    assert result.convention == "ERR(g_max=4)@5" and result.cause == "input_order", str(result)


@pytest.mark.parametrize("value, policy", [(float("nan"), "nan"), (None, "skip"), (1.0, "1")])
def test_the_value_of_a_query_without_relevant_documents_is_named(value, policy):
    def ap(s, l):
        return value if not any(x >= 1 for x in l) else tie_aware_ap(s, l)

    result = check(ap, "AP")
    assert result.conforms_as == f"AP(norel={policy})" and result.cause == "convention"


def test_two_causes_at_once_a_convention_and_a_tie_order():
    def recbole_like(s, l):  # AP@5 divided by min(R, 5), ties in input order
        o = stable_order(s, l)
        return ap_of_ordering(o, 5, divisor=lambda o, hits: min(5, sum(1 for x in o if x >= 1)))

    result = check(recbole_like, "AP@5")
    assert not result.ok and result.cause == "input_order"
    assert result.convention == "AP(norm=capped)@5" and result.conforms_as is None
    assert {f.cause for f in result.profile} >= {"convention", "input_order"}


# -- relevance threshold -------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", [1, 1e-9])  # label >= 1, and label > 0
def test_label_above_0_and_label_at_least_1_are_both_accepted_and_the_half_grade_named(threshold):
    result = check(lambda s, l: tie_aware_p(s, l, 5, threshold), "P@5")
    assert result.ok and result.conforms_as == "P@5", str(result)
    notes = [f for f in result.profile if f.cause == "relevance_threshold"]
    assert bool(notes) == (threshold < 1)
    if notes:
        assert notes[0].measure == "P(rel=0.5)@5" and notes[0].severity == "note"


def test_rr_and_ap_with_label_above_0_are_accepted_too():
    assert check(lambda s, l: tie_aware_ap(s, l, threshold=1e-9), "AP").ok


# -- precision ---------------------------------------------------------------------------------------


def test_float32_results_conform_at_float32_precision():
    result = check(lambda s, l: f32(tie_aware_ap(s, l)), "AP")
    assert result.ok and result.precision.kind == "float32", str(result)


def test_results_rounded_to_4_decimals_conform_and_say_so():
    result = check(lambda s, l: round(tie_aware_ndcg(s, l, 5), 4), "nDCG@5")
    assert result.ok and (result.precision.kind, result.precision.digits) == ("decimals", 4), str(result)


def test_a_float32_result_with_a_convention_is_named_not_untied():
    def capped32(s, l):
        r = sum(1 for x in l if x >= 1)
        return f32(ap_sum(groups_by(s, l), 3) / min(r, 3)) if r else 0.0

    result = check(capped32, "AP@3")
    assert result.precision.kind == "float32" and result.conforms_as == "AP(norm=capped)@3"


def test_a_real_error_is_still_caught_at_float32_precision():
    result = check(lambda s, l: f32(ap_of_ordering(stable_order(s, l))), "AP")
    assert not result.ok and result.cause == "input_order" and result.precision.kind == "float32"


# -- declared domains --------------------------------------------------------------------------------


def test_labels_0_1_never_probe_another_label():
    seen = set()

    def ap(s, l):
        seen.update(l)
        return tie_aware_ap(s, l)

    assert check(ap, "AP", labels=(0, 1), isolate=False).ok  # isolate=False: seen is filled in this process
    assert seen == {0, 1}
    seen.clear()
    assert check(ap, "nDCG@5", labels="binary", isolate=False).counterexample is not None  # wrong measure: still only 0 and 1
    assert seen == {0, 1}


def test_a_binary_only_implementation_can_be_checked():
    def binary_ndcg(s, l):
        if any(x not in (0, 1) for x in l):
            raise ValueError("binary labels only")
        return tie_aware_ndcg(s, l, 5)

    assert check(binary_ndcg, "nDCG@5", labels=(0, 1)).ok


def test_positive_scores_never_probe_zero_or_negative_scores():
    seen = []

    def ap(s, l):
        seen.extend(s)
        return tie_aware_ap(s, l)

    assert check(ap, "AP", scores="positive", isolate=False).ok  # isolate=False: seen is filled in this process
    assert min(seen) > 0


def test_integer_scores_and_max_docs_are_honoured():
    seen = []

    def ap(s, l):
        seen.append(s)
        return tie_aware_ap(s, l)

    assert check(ap, "AP", scores="integer", max_docs=20, isolate=False).ok
    assert all(x == int(x) for s in seen for x in s) and max(map(len, seen)) <= 20


# -- a profile, not a first failure --------------------------------------------------------------------


def test_every_class_is_reported():
    def many_faults(s, l):
        kept = [(x, y) for x, y in zip(s, l) if x > 0]  # a score <= 0 is "not retrieved"
        return tie_aware_p([x for x, _ in kept], [y for _, y in kept], 5, 1e-9)  # and label > 0

    result = check(many_faults, "P@5")
    causes = {f.cause for f in result.profile}
    assert not result.ok and "score_values" in causes and "relevance_threshold" in causes, str(result)


# -- tie rules are confirmed on large groups -----------------------------------------------------------


def test_a_rule_that_holds_only_for_small_groups_is_arbitrary_order():
    def unstable(s, l):  # input order up to 16 tied documents, reversed beyond (as an insertion sort gives way)
        order = sorted(range(len(s)), key=lambda i: -s[i])
        if max(s.count(x) for x in s) > 16:
            order = sorted(range(len(s)), key=lambda i: (-s[i], -i))
        return ap_of_ordering([l[i] for i in order])

    result = check(unstable, "AP")
    assert result.cause == "arbitrary_order" and result.diagnosis.machine_dependent
    assert "17" in result.diagnosis.explanation


def test_a_stable_sort_is_named_input_order_after_confirmation():
    result = check(lambda s, l: ap_of_ordering(stable_order(s, l)), "AP")
    assert result.cause == "input_order" and not result.diagnosis.machine_dependent


# -- machine-readable results ----------------------------------------------------------------------------


def test_as_dict_is_json_with_the_stable_fields():
    import json

    result = check(lambda s, l: ap_of_ordering(stable_order(s, l)), "AP", max_examples=10)
    data = json.loads(json.dumps(result.as_dict()))
    assert data["ok"] is False and data["cause"] == "input_order" and data["conforms_as"] is None
    assert data["convention"] == "AP" and data["precision"]["kind"] == "float64"
    assert data["counterexample"]["expected"] == "3/4" and data["counterexample"]["got"] == 0.5
    assert any(f["cause"] == "input_order" for f in data["profile"])
