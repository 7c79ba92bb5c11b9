"""Other libraries' conventions as tieaware measures (docs/conventions.md, Conventions of other libraries).

``P(norm=retrieved)@k``, ``AP(norm=capped)@k``, ``AP(norm=hits)@k``, ``nDCG(gain=binary)@k``,
``ERR(g_max=4)@k`` and ``norel=0|1|nan|skip``: fast == reference, exactly, on every tie structure
of up to 6 binary / 5 graded documents and on hypothesis rankings of up to 12, plus hand-worked
values on untied rankings from each library's own definition.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware import TieawareError, compute, evaluate, fast, reference
from tieaware.model.gains import BinaryGain
from tieaware.model.names import parse
from tieaware.model.structures import all_tied_rankings
from tieaware.strategies import rankings_with_cutoff


def _size(r):
    return sum(len(x) if isinstance(x, list) else 1 for x in r)


def _unit(m):
    return lambda j: Fraction(int(j == m))


def _binary(r):
    n = _size(r)
    for k in range(1, n + 3):
        yield "precision", (r, k), {"norm": "retrieved"}
        for norm in ("capped", "hits", "k"):
            yield "average_precision", (r, k), {"norm": norm}
            yield "average_precision", (r, k, sum(1 for g in r for x in (g if isinstance(g, list) else [g]) if x >= 1) + 2), {"norm": norm}
    yield "average_precision", (r, None), {"norm": "hits"}


def _mismatches(calls):
    bad = []
    for name, args, kwargs in calls:
        want = getattr(reference, name)(*args, **kwargs)
        got = getattr(fast, name)(*args, **kwargs)
        if not (type(want) is Fraction and type(got) is Fraction and want == got):
            bad.append((name, args, kwargs, want, got))
    return bad


@pytest.mark.parametrize("n", range(0, 7))
def test_exhaustive_binary_norms(n):
    for r in all_tied_rankings(n, (0, 1)):
        bad = _mismatches(_binary(r))
        assert not bad, bad[:3]


@pytest.mark.parametrize("n", range(0, 6))
def test_exhaustive_graded_binary_gain_and_g_max(n):
    for r in all_tied_rankings(n, (0, 1, 2)):
        bad = _mismatches(_binary(r))
        for k in [None, *range(1, n + 2)]:
            for rel in (1, 2):
                gain = BinaryGain(Fraction(rel))
                for m in range(1, n + 2):  # DCG is linear in the discount: every unit discount
                    if reference.dcg(r, k, gain, _unit(m)) != fast.dcg(r, k, gain, _unit(m)):
                        bad.append(("dcg", r, k, rel, m))
                d = lambda j: Fraction(1, j * j + 1)  # noqa: E731
                if reference.ndcg(r, k, None, gain, d) != fast.ndcg(r, k, None, gain, d):
                    bad.append(("ndcg", r, k, rel))
            for g_max in (2, 4):
                m = parse(f"ERR(g_max={g_max})" + (f"@{k}" if k else ""))
                if compute(m, r) != compute(m, r, layer="reference"):
                    bad.append((str(m), r))
        assert not bad, bad[:3]


@pytest.mark.parametrize("n", range(0, 5))
def test_exhaustive_no_relevant_policies_in_both_layers(n):
    names = ["P@2", "R@2", "F1@2", "AP", "RR", "nDCG@2", "Rprec", "Success@2", "ERR", "RBP(p=0.5)", "Bpref", "AP(norm=hits)@2"]
    for r in all_tied_rankings(n, (0, 1, 2)):
        for name in names:
            for policy in ("1", "nan", "skip"):
                m = parse(name).replace(norel=policy)
                got, want = compute(m, r), compute(m, r, layer="reference")
                empty = not any(x >= 1 for g in r for x in (g if isinstance(g, list) else [g]))
                if empty:
                    expected = {"1": Fraction(1), "nan": sympy.nan, "skip": None}[policy]
                    assert got is expected or got == expected, (str(m), r, got)
                    assert want is expected or want == expected, (str(m), r, want)
                else:  # a query with a relevant document: the usual value
                    assert got == compute(name, r), (str(m), r)
                    assert want == got or (isinstance(got, sympy.Basic) and sympy.simplify(want - got) == 0)


labels012 = st.integers(min_value=0, max_value=2)


@given(rankings_with_cutoff(max_size=12, label_strategy=labels012), st.integers(0, 3))
def test_hypothesis_norms(case, extra):
    r, k = case
    num_rel = sum(1 for g in r for x in (g if isinstance(g, list) else [g]) if x >= 1) + extra
    with reference.ordering_limit(10**5):
        assert fast.precision(r, k, norm="retrieved") == reference.precision(r, k, norm="retrieved")
        for norm in ("capped", "hits", "k"):
            assert fast.average_precision(r, k, num_rel, norm=norm) == reference.average_precision(r, k, num_rel, norm=norm)
        assert fast.average_precision(r, None, norm="hits") == reference.average_precision(r, None, norm="hits")
        gain = BinaryGain(Fraction(1))
        d = lambda j: Fraction(1, j + 3)  # noqa: E731
        assert fast.ndcg(r, k, None, gain, d) == reference.ndcg(r, k, None, gain, d)


@given(rankings_with_cutoff(max_size=12, label_strategy=labels012))
def test_float_mode_of_the_norms_is_close_to_exact(case):
    r, k = case
    for norm in ("capped", "hits"):
        assert fast.average_precision(r, k, norm=norm, exact=False) == pytest.approx(float(fast.average_precision(r, k, norm=norm)), rel=1e-12, abs=1e-15)
    assert fast.precision(r, k, norm="retrieved", exact=False) == pytest.approx(float(fast.precision(r, k, norm="retrieved")), rel=1e-12)


# -- hand-worked values on untied rankings, from each library's own definition ---------------------


def test_ap_capped_is_the_sum_of_precisions_over_min_r_k():
    # RecBole's MAP@k and rankereval's AP@k: Σ_{relevant j <= k} P@j / min(R, k).
    # 1 0 1 1 with k = 2: P@1 = 1 only, R = 3, min(R, 2) = 2: 1/2 (AP@2 is 1/3).
    assert compute("AP(norm=capped)@2", [1, 0, 1, 1]) == Fraction(1, 2)
    assert compute("AP@2", [1, 0, 1, 1]) == Fraction(1, 3)
    # 0 1 with k = 5 and two relevant judged: (1/2) / min(2, 5)
    assert compute("AP(norm=capped)@5", [0, 1], num_rel=2) == Fraction(1, 4)


def test_ap_by_k_divides_by_the_cutoff():
    # rectools' MAP(k, divide_by_k=True): Σ_{relevant j <= k} P@j / k.  1 0 1 with k = 4: (1 + 2/3)/4.
    assert compute("AP(norm=k)@4", [1, 0, 1]) == Fraction(5, 12)


def test_ap_by_hits_divides_by_the_relevant_documents_in_the_top_k():
    # torchmetrics' retrieval_average_precision(top_k=k): the precisions at the hits in the top k over their number.
    # 0 1 0 1 with k = 3: one hit at rank 2, P@2 = 1/2, one hit: 1/2; an unretrieved relevant document changes nothing.
    assert compute("AP(norm=hits)@3", [0, 1, 0, 1]) == Fraction(1, 2)
    assert compute("AP(norm=hits)@3", [0, 1, 0, 1], num_rel=5) == Fraction(1, 2)
    assert compute("AP(norm=hits)@1", [0, 1]) == 0  # no hit in the top k: 0


def test_ap_by_hits_under_ties_is_not_the_ratio_of_expectations():
    # [[1, 0]] cut at 1: half the orderings put the relevant document first (AP 1), half none (AP 0).
    assert compute("AP(norm=hits)@1", [[1, 0]]) == Fraction(1, 2)
    # [1, [1, 0]] cut at 2: 1 1 gives (1 + 1)/2 = 1; 1 0 gives 1/1 = 1: always 1.
    assert compute("AP(norm=hits)@2", [1, [1, 0]]) == 1
    # while E[numerator]/E[hits] would be (1 + 1/2)/(3/2) = 1 too here, [0, [1, 0]]@2 tells them apart:
    # 0 1: (1/2)/1; 0 0: 0; the mean is 1/4, the ratio of means (1/4)/(1/2) = 1/2.
    assert compute("AP(norm=hits)@2", [0, [1, 0]]) == Fraction(1, 4)


def test_precision_over_the_documents_retrieved():
    # torchmetrics' retrieval_precision(top_k=5, adaptive_k=True): hits / min(k, n).
    assert compute("P(norm=retrieved)@5", [1, 0, 1]) == Fraction(2, 3)
    assert compute("P@5", [1, 0, 1]) == Fraction(2, 5)
    assert compute("P(norm=retrieved)@2", [1, 0, 1]) == Fraction(1, 2)
    assert compute("P(norm=retrieved)@3", []) == 0


def test_binary_gain_ndcg_counts_every_relevant_grade_as_one():
    # 2 0 1 with gain 1 for every label >= 1: DCG = 1 + 1/2, ideal 1 + 1/log2(3).
    got = compute("nDCG(gain=binary)@3", [2, 0, 1])
    want = (1 + Fraction(1, 2)) / (1 + sympy.log(2) / sympy.log(3))
    assert sympy.simplify(got - want) == 0
    # rel=2: only the 2 counts, at rank 2: 1/log2(3) over the ideal 1
    assert compute("nDCG(gain=binary,rel=2)@3", [0, 2, 1]) == sympy.log(2) / sympy.log(3)


def test_err_with_a_fixed_g_max_divides_by_two_to_the_g_max():
    # gdeval's ERR: R(g) = (2^g - 1)/2^4 whatever the judgements; one document of grade 1: 1/16.
    assert compute("ERR(g_max=4)", [1]) == Fraction(1, 16)
    assert compute("ERR", [1]) == Fraction(1, 2)  # g_max = the best judged grade, 1
    with pytest.raises(TieawareError, match="max_label"):
        compute("ERR(g_max=1)", [2])  # a grade above g_max would stop more than always


def test_no_relevant_policies():
    assert compute("AP", [0, 0]) == 0
    assert compute("AP(norel=1)", [0, 0]) == 1
    assert compute("AP(norel=nan)", [0, 0]) is sympy.nan
    assert math.isnan(compute("AP(norel=nan)", [0, 0], exact=False))
    assert compute("AP(norel=skip)", [0, 0]) is None
    # a judged relevant document the run missed is a relevant document: the usual 0
    assert compute("AP(norel=nan)", [0, 0], num_rel=1) == 0
    assert compute("nDCG(norel=nan)@2", [0], ideal=[0, 1]) == 0


def test_names_are_canonical_and_refused_where_they_mean_nothing():
    assert str(parse("AP(norm=R)@5")) == "AP@5" and str(parse("P(norm=k,norel=0)@5")) == "P@5"
    assert parse("ap(norm=capped)@5") == parse("AP(norm=capped)@5")
    for text in ("AP(norm=capped)", "P(norm=hits)@5", "nDCG(rel=2)@5", "nDCG(gain=binary,dcg='exp-log2')", "ERR(g_max=0)", "RR(norel=maybe)", "AP(norm=hits,norm=R)"):
        with pytest.raises(TieawareError):
            parse(text)


def test_evaluate_skips_and_propagates_nan_in_the_mean():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 0, "c": 0}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 5.0, "c": 4.0}}
    for exact in (True, False):
        ev = evaluate(qrels, run, "AP(norel=skip) AP(norel=nan) AP(norel=1) AP", exact=exact)
        assert ev.per_query["q2"]["AP(norel=skip)"] is None
        assert ev.mean["AP(norel=skip)"] == 1 and ev.mean["AP(norel=1)"] == 1 and ev.mean["AP"] == Fraction(1, 2)
        nan = ev.mean["AP(norel=nan)"]
        assert nan is sympy.nan if exact else math.isnan(nan)


def test_conventions_have_no_closed_form_spread_and_say_so():
    with pytest.raises(TieawareError, match="reference"):
        fast.worst("AP(norm=capped)@2", [[1, 0], 1])
    assert reference.worst("AP(norm=capped)@2", [[1, 0], 1]) == Fraction(1, 2) * Fraction(1, 2)


def test_recommenders_ndcg_and_map_at_k_on_untied_input():
    # Microsoft recommenders 1.2.1, python_evaluation.ndcg_at_k / map_at_k (defaults: binary relevance,
    # AP divided by min(R, k), users without a rated item dropped), run on this fixture:
    #   k=5: 0.41044043825416265 0.3013888888888889;  k=3: 0.3333333333333333 0.2407407407407407.
    # recommenders breaks ties by input order; the predictions here are distinct, so its values are
    # the tie-aware ones (user 4 has no rating: not evaluated on either side).
    import pandas as pd

    qrels = pd.DataFrame({"query_id": ["1", "1", "1", "2", "3", "3", "3", "3"],
                          "doc_id": ["2", "5", "7", "1", "3", "4", "8", "9"],
                          "relevance": [5, 1, 3, 2, 4, 4, 1, 5]})
    scores = {"1": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2], "2": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
              "3": [0.35, 0.15, 0.95, 0.55, 0.25, 0.75, 0.45, 0.65], "4": [0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01, 0.0]}
    run = pd.DataFrame([(u, str(i + 1), s) for u, ss in scores.items() for i, s in enumerate(ss)],
                       columns=["query_id", "doc_id", "score"])
    for k, ndcg, map_ in ((5, 0.41044043825416265, 0.3013888888888889), (3, 0.3333333333333333, 0.2407407407407407)):
        measures = f"nDCG(gain=binary,norel=skip)@{k} AP(norel=skip,norm=capped)@{k}"
        for exact in (True, False):
            got = evaluate(qrels, run, measures, exact=exact)
            assert got.queries == ("1", "2", "3")
            values = [float(sympy.N(v, 30)) if exact else v for v in got.mean.values()]
            assert values == pytest.approx([ndcg, map_], abs=1e-15), (k, exact)
    # k=3 by hand: AP = (1/2 / 3 + 0 + (1 + 2/3) / 3) / 3 = 13/54
    assert evaluate(qrels, run, "AP(norel=skip,norm=capped)@3").mean["AP(norel=skip,norm=capped)@3"] == Fraction(13, 54)
