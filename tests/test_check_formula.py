"""tieaware.check.formula: right closed forms are confirmed, wrong ones refuted with a smallest counterexample."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tieaware import TieawareError, fast
from tieaware.check import formula
from tieaware.reference.measures import average_precision_of

P = Fraction(9, 10)


def rbp(o):
    """Rank-biased precision of one ordering (Moffat & Zobel): (1 - p) Σ rel_i p^(i-1), rel = label >= 1."""
    return (1 - P) * sum((P ** (i - 1) for i, x in enumerate(o, start=1) if x >= 1), Fraction(0))


def rbp_tie_aware(gs):
    """Each rank of a group holds a relevant document with probability r/n: mean gain times Σ p^(j-1)."""
    total, top = Fraction(0), 0
    for g in gs:
        share = Fraction(sum(1 for x in g if x >= 1), len(g))
        total += share * sum((P ** (j - 1) for j in range(top + 1, top + len(g) + 1)), Fraction(0))
        top += len(g)
    return (1 - P) * total


def rbp_group_top(gs):
    """Wrong: every member of a group gets the discount of the group's top rank."""
    total, top = Fraction(0), 0
    for g in gs:
        total += sum(1 for x in g if x >= 1) * P**top
        top += len(g)
    return (1 - P) * total


def ap(o):
    return average_precision_of(o, len(o), Fraction(1), sum(1 for x in o if x >= 1))


def ap_closed_form(pair):
    """McSherry & Najork's AP, with the pair term (probability another slot is relevant) as given."""

    def closed(gs):
        relevant = sum(1 for g in gs for x in g if x >= 1)
        if relevant == 0:
            return Fraction(0)
        total, top, before = Fraction(0), 0, 0
        for g in gs:
            n, r = len(g), sum(1 for x in g if x >= 1)
            for j in range(top + 1, top + n + 1):
                total += Fraction(r, n) * (before + 1 + (j - top - 1) * pair(r, n)) / j
            top, before = top + n, before + r
        return total / relevant

    return closed


def right_pair(r, n):
    return Fraction(r - 1, n - 1) if n > 1 else 0


def wrong_pair(r, n):
    return Fraction(r - 1, n)


def test_tie_aware_rbp_is_confirmed():
    result = formula(rbp, rbp_tie_aware, max_size=4, max_examples=40)
    assert result.ok and result.counterexample is None
    assert result.exhaustive_size == 4
    assert result.cases > 446  # every structure of up to 4 documents over 3 labels, plus hypothesis cases


def test_group_top_rbp_is_refuted_on_a_smallest_case():
    result = formula(rbp, rbp_group_top, max_size=4, max_examples=40)
    assert not result.ok
    cex = result.counterexample
    # Two tied documents, one relevant: RBP is (1-p)·1 or (1-p)·p, mean (1-p)(1+p)/2 = 19/200,
    # while the wrong form gives (1-p)·1 = 1/10.  No case of fewer than two documents can fail.
    assert cex.ranking == [[0, 1]]
    assert cex.expected == Fraction(19, 200)
    assert cex.got == Fraction(1, 10)
    assert cex.phase == "exhaustive"


def test_paper_ap_is_confirmed():
    assert formula(ap, ap_closed_form(right_pair), max_size=4, max_examples=40).ok


def test_fast_layer_ap_is_confirmed():
    assert formula(ap, fast.average_precision, max_size=4, max_examples=40).ok


def test_ap_with_r_minus_1_over_n_is_refuted():
    result = formula(ap, ap_closed_form(wrong_pair), max_size=4, max_examples=40)
    assert not result.ok
    cex = result.counterexample
    # Two tied relevant documents: every ordering has AP 1.  The wrong pair term
    # (r-1)/n = 1/2 makes rank 2 worth (1 + 1/2)/2 = 3/4, so AP = (1 + 3/4)/2 = 7/8.
    # Structures are tried smallest first: (0,1) and (0,2) have r = 1, where the
    # pair term is 0 either way, so [[1, 1]] is the first that can fail.
    assert cex.ranking == [[1, 1]]
    assert cex.expected == 1
    assert cex.got == Fraction(7, 8)
    assert "refuted" in str(result) and "[[1, 1]]" in str(result)


def test_failures_beyond_the_exhaustive_size_are_found_and_shrunk():
    def breaks_on_long(gs):
        return rbp_tie_aware(gs) + (1 if 6 <= sum(map(len, gs)) <= 9 else 0)  # the large groups have 10 and more

    result = formula(rbp, breaks_on_long, max_size=3, max_examples=100)
    assert not result.ok
    cex = result.counterexample
    assert cex.phase == "hypothesis"
    assert sum(map(len, cex.groups)) == 6  # shrunk to the shortest failing length


def test_verdicts_are_deterministic():
    def wrong_beyond(gs):
        return fast.average_precision(gs) + (Fraction(1, 100) if len(gs) >= 5 and len(gs[-1]) > 1 else 0)

    a = formula(ap, wrong_beyond, max_size=3, max_examples=60)
    b = formula(ap, wrong_beyond, max_size=3, max_examples=60)
    assert a == b


def test_a_raising_closed_form_is_a_counterexample():
    result = formula(ap, lambda gs: Fraction(1, len(gs)), max_size=2, max_examples=0)
    assert not result.ok
    assert result.counterexample.ranking == []
    assert "ZeroDivisionError" in result.counterexample.error


def test_a_symbolic_metric_is_compared_exactly():
    sympy = pytest.importorskip("sympy")

    def discount(j):
        return 1 / sympy.log(j + 1, 2)

    def dcg(o):
        return sympy.Add(*(sympy.Integer(int(x)) * discount(j) for j, x in enumerate(o, start=1)))

    def tie_aware_dcg(gs):
        terms, top = [], 0
        for g in gs:
            mean = sympy.Rational(int(sum(g)), len(g))
            terms += [mean * discount(j) for j in range(top + 1, top + len(g) + 1)]
            top += len(g)
        return sympy.Add(*terms)

    def first_rank_only(gs):  # wrong: the group's mean gain at every rank, discounted as rank 1
        return sympy.Add(*(sympy.Rational(int(sum(g))) for g in gs[:1]))

    assert formula(dcg, tie_aware_dcg, max_size=3, max_examples=10).ok
    refuted = formula(dcg, first_rank_only, max_size=3, max_examples=10)
    # [0, 1]: DCG = 1/log2(3), irrational, so no rational form can equal it.
    assert refuted.counterexample.ranking == [0, 1]
    assert refuted.counterexample.expected == 1 / sympy.log(3, 2)


def test_a_float_closed_form_is_refused():
    with pytest.raises(TieawareError, match=r"closed_form value on .* must be exact .*got 0\.0"):
        formula(ap, lambda gs: 0.0, max_size=1, max_examples=0)


def test_a_float_metric_is_refused():
    with pytest.raises(TieawareError, match=r"metric value on .* must be exact"):
        formula(lambda o: 0.5, rbp_tie_aware, max_size=1, max_examples=0)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_size": -1}, r"max_size must be an int >= 0, got -1"),
        ({"max_size": 2.5}, r"max_size must be an int >= 0, got 2\.5"),
        ({"max_examples": -3}, r"max_examples must be an int >= 0, got -3"),
        ({"labels": []}, r"labels must be a non-empty list of labels.*got \[\]"),
        ({"labels": "012"}, r"labels must be a non-empty list of labels.*got '012'"),
        ({"labels": (0, -1)}, r"labels must be >= 0, got -1"),
        ({"max_size": 4, "hypothesis_max_size": 3}, r"hypothesis_max_size must be an int >= max_size \(4\), got 3"),
    ],
)
def test_bad_options_name_the_argument(options, message):
    with pytest.raises(TieawareError, match=message):
        formula(rbp, rbp_tie_aware, **options)


def test_progress_bar_option_changes_nothing_but_stderr(capsys):
    assert formula(rbp, rbp_tie_aware, max_size=3, max_examples=5, progress=True) == formula(
        rbp, rbp_tie_aware, max_size=3, max_examples=5
    )
    assert capsys.readouterr().out == ""
