"""Golden values from the tutorial (Amit Chaudhary, "Evaluation
Metrics For Information Retrieval", 2020, revised 2024).

Every expected value below is worked out from the tutorial's own examples,
exactly: Fractions for P, R, F1, AP, RR and CG, and for DCG and nDCG a sympy
value built here from the tutorial's formula rel_i / log2(i + 1), never from
tieaware's code.  The tutorial prints rounded (and sometimes truncated)
decimals; :data:`PRINTED` lists every one of them, says whether it is a
correct rounding of the exact value, and the test checks that verdict.
docs/golden.md explains each wrong decimal.

Beware: the tutorial's examples have no ties, so these tests pin the
ordinary (tie-free) definitions; tests/test_golden_paper.py covers ties.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
import sympy

from tieaware import fast, reference, to_decimal, to_float

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]
F = Fraction

# -- Problem setup 1: binary relevance --------------------------------------
# "The first, third, and fifth results were relevant."  Three relevant
# documents in all, so num_rel = 3 (the default: all are retrieved).
BINARY = [1, 0, 1, 0, 1]

# Tutorial tables "Precision@k", "Recall@k" and "F1@k", k = 1..5.
# hits@k = 1, 1, 2, 2, 3.
PRECISION = {1: F(1, 1), 2: F(1, 2), 3: F(2, 3), 4: F(2, 4), 5: F(3, 5)}
RECALL = {1: F(1, 3), 2: F(1, 3), 3: F(2, 3), 4: F(2, 3), 5: F(3, 3)}
# F1 = 2PR/(P+R), as the tutorial computes it; equal to 2·hits/(k + 3).
F1 = {k: 2 * PRECISION[k] * RECALL[k] / (PRECISION[k] + RECALL[k]) for k in range(1, 6)}
# "AP = (1 + 2/3 + 3/5) / 3": precision at the relevant ranks 1, 3, 5.
AP = (F(1) + F(2, 3) + F(3, 5)) / 3  # = 34/45

# -- Problem setup 2: graded relevance ----------------------------------------
# "relevance scores 3, 2, 3, 0, 1"; ideal order "3, 3, 2, 1, 0".
GRADED = [3, 2, 3, 0, 1]
IDEAL = [3, 3, 2, 1, 0]


def log2(x: int) -> Any:
    """log2(x) as sympy writes it, independent of tieaware.model.gains."""
    return sympy.log(x, 2)


def tutorial_dcg(labels: list[int], k: int) -> Any:
    """The tutorial's DCG@k = Σ_{i<=k} rel_i / log2(i + 1), exact."""
    return sum((sympy.Integer(labels[i - 1]) / log2(i + 1) for i in range(1, k + 1)), sympy.Integer(0))


def exactly_equal(a: Any, b: Any) -> bool:
    """Decide a == b exactly for sums and quotients of rationals and logs of integers.

    Each log(n) is split into Σ e·log(p) over the prime factors of n, each
    log(p) is replaced by a symbol, and the difference is reduced as a
    rational function of those symbols.  A zero rational function is zero
    for every value of the logs, so True is a proof of equality; no float
    is involved.
    """
    diff = sympy.sympify(a) - sympy.sympify(b)
    logs = {}

    def split(expr: Any) -> Any:
        n = int(expr.args[0])
        return sum(
            (m * logs.setdefault(p, sympy.Symbol(f"log{p}", positive=True)) for p, m in sympy.factorint(n).items()),
            sympy.Integer(0),
        )

    diff = diff.replace(lambda e: isinstance(e, sympy.log) and e.args[0].is_Integer, split)
    assert not diff.atoms(sympy.log), f"unexpected log in {diff}"
    return sympy.cancel(sympy.together(diff)) == 0


# -- the tests -------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("k", range(1, 6))
def test_precision_recall_f1_at_k(layer, k):
    assert layer.precision(BINARY, k) == PRECISION[k]
    assert layer.recall(BINARY, k) == RECALL[k]
    assert layer.recall(BINARY, k, num_rel=3) == RECALL[k]
    assert layer.f1(BINARY, k) == F1[k]
    # The paper's rewriting 2·hits/(k + num_rel) agrees with the harmonic mean.
    assert F1[k] == F(2 * [1, 1, 2, 2, 3][k - 1], k + 3)


def test_f1_table_is_what_the_formula_gives():
    # The F1 column, exact: 1/2, 2/5, 2/3, 4/7, 3/4.
    assert [F1[k] for k in range(1, 6)] == [F(1, 2), F(2, 5), F(2, 3), F(4, 7), F(3, 4)]


@pytest.mark.parametrize("layer", LAYERS)
def test_average_precision(layer):
    assert AP == F(34, 45)
    assert layer.average_precision(BINARY) == AP
    assert layer.average_precision(BINARY, 5) == AP
    assert layer.average_precision(BINARY, num_rel=3) == AP
    # "place the 3 relevant results at the beginning ... AP = (1 + 1 + 1)/3 = 1"
    assert layer.average_precision([1, 1, 1, 0, 0]) == 1


@pytest.mark.parametrize("layer", LAYERS)
def test_reciprocal_rank(layer):
    # "the reciprocal rank is 1/1 = 1 as the first correct item is at position 1"
    assert layer.reciprocal_rank(BINARY) == 1
    # "only one relevant result ... at position 5. It gets ... 0.2"
    assert layer.reciprocal_rank([0, 0, 0, 0, 1]) == F(1, 5)
    # "none of the returned results are relevant ... the reciprocal rank will be 0"
    assert layer.reciprocal_rank([0, 0, 0, 0, 0]) == 0


@pytest.mark.parametrize("layer", LAYERS)
def test_cumulative_gain(layer):
    # Table "Cumulative Gain@k": 3, 5, 8, 8, 9.  CG is DCG with discount 1.
    cg = [layer.dcg(GRADED, k, discount=lambda j: 1) for k in range(1, 6)]
    assert cg == [3, 5, 8, 8, 9]
    assert all(isinstance(v, Fraction) for v in cg)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("k", range(1, 6))
def test_dcg_idcg_ndcg_at_k(layer, k):
    expected_dcg = tutorial_dcg(GRADED, k)
    expected_idcg = tutorial_dcg(IDEAL, k)
    got_dcg = layer.dcg(GRADED, k)
    assert exactly_equal(got_dcg, expected_dcg)
    assert exactly_equal(layer.dcg(IDEAL, k), expected_idcg)
    # nDCG with the ranking's own labels as ideal, and with the ideal given.
    assert exactly_equal(layer.ndcg(GRADED, k), expected_dcg / expected_idcg)
    assert exactly_equal(layer.ndcg(GRADED, k, ideal=IDEAL), expected_dcg / expected_idcg)
    # The exact-equality decision must not be vacuous: DCG@k != IDCG@k for k >= 2.
    if k >= 2:
        assert not exactly_equal(got_dcg, expected_idcg)


def test_dcg_at_1_and_ndcg_at_1_are_rational():
    # log2(2) = 1, so the first rank has no irrational discount.
    assert fast.dcg(GRADED, 1) == reference.dcg(GRADED, 1) == F(3)
    assert fast.ndcg(GRADED, 1) == reference.ndcg(GRADED, 1) == F(1)


# -- the tutorial's printed decimals ------------------------------------------------
# (what, printed text, exact value, is the printed text a correct rounding?)
# A printed value with d decimals is a correct rounding when it is within
# half a unit of the d-th decimal of the exact value.  docs/golden.md lists
# every False with its correct rounding.

D = {i: 1 / log2(i + 1) for i in range(1, 6)}  # the discount at rank i

PRINTED: list[tuple[str, str, Any, bool]] = [
    ("P@1", "1", PRECISION[1], True),
    ("P@2", "0.5", PRECISION[2], True),
    ("P@3", "0.67", PRECISION[3], True),
    ("P@4", "0.5", PRECISION[4], True),
    ("P@5", "0.6", PRECISION[5], True),
    ("R@1", "0.33", RECALL[1], True),
    ("R@2", "0.33", RECALL[2], True),
    ("R@3", "0.67", RECALL[3], True),
    ("R@4", "0.67", RECALL[4], True),
    ("R@5", "1", RECALL[5], True),
    ("F1@1", "0.5", F1[1], True),
    ("F1@2", "0.4", F1[2], True),
    ("F1@3", "0.666", F1[3], False),  # 2/3 = 0.6666... rounds to 0.667
    ("F1@4", "0.571", F1[4], True),
    ("F1@5", "0.749", F1[5], False),  # 3/4 = 0.75 exactly
    ("AP", "0.7555", AP, False),  # 34/45 = 0.75555... rounds to 0.7556
    ("RR (relevant at 5)", "0.2", F(1, 5), True),
    # The discount table, long form.
    ("log2(3)", "1.5849625007211563", log2(3), False),  # float repr; exact ...5618 -> ...562
    ("log2(5)", "2.321928094887362", log2(5), True),
    ("log2(6)", "2.584962500721156", log2(6), True),
    # The short forms used inside the DCG and IDCG tables.
    ("log2(3), short", "1.5849", log2(3), False),  # truncated; 1.58496... rounds to 1.5850
    ("log2(5), short", "2.3219", log2(5), True),
    ("log2(6), short", "2.5849", log2(6), False),  # truncated; 2.58496... rounds to 2.5850
    # DCG table: rel_i / log2(i + 1).
    ("rel_2 / log2(3)", "1.2618", 2 * D[2], False),  # 1.26185... rounds to 1.2619
    ("rel_3 / log2(4)", "1.5", 3 * D[3], True),
    ("rel_4 / log2(5)", "0", 0 * D[4], True),
    ("rel_5 / log2(6)", "0.3868", 1 * D[5], False),  # 0.386852... rounds to 0.3869
    ("DCG@1", "3", tutorial_dcg(GRADED, 1), True),
    ("DCG@2", "4.2618", tutorial_dcg(GRADED, 2), False),
    ("DCG@3", "5.7618", tutorial_dcg(GRADED, 3), False),
    ("DCG@4", "5.7618", tutorial_dcg(GRADED, 4), False),
    ("DCG@5", "6.1486", tutorial_dcg(GRADED, 5), False),
    # IDCG table.
    ("ideal rel_2 / log2(3)", "1.8927", 3 * D[2], False),  # 1.892789... rounds to 1.8928
    ("ideal rel_3 / log2(4)", "1", 2 * D[3], True),
    ("ideal rel_4 / log2(5)", "0.4306", 1 * D[4], False),  # 0.430676... rounds to 0.4307
    ("IDCG@1", "3", tutorial_dcg(IDEAL, 1), True),
    ("IDCG@2", "4.8927", tutorial_dcg(IDEAL, 2), False),
    ("IDCG@3", "5.8927", tutorial_dcg(IDEAL, 3), False),
    ("IDCG@4", "6.3233", tutorial_dcg(IDEAL, 4), False),  # 6.323465..., off by 2 in the last digit
    ("IDCG@5", "6.3233", tutorial_dcg(IDEAL, 5), False),
    # NDCG table.
    ("NDCG@1", "1", tutorial_dcg(GRADED, 1) / tutorial_dcg(IDEAL, 1), True),
    ("NDCG@2", "0.8710", tutorial_dcg(GRADED, 2) / tutorial_dcg(IDEAL, 2), True),
    ("NDCG@3", "0.9777", tutorial_dcg(GRADED, 3) / tutorial_dcg(IDEAL, 3), False),  # 0.977781...
    ("NDCG@4", "0.9112", tutorial_dcg(GRADED, 4) / tutorial_dcg(IDEAL, 4), True),
    ("NDCG@5", "0.9723", tutorial_dcg(GRADED, 5) / tutorial_dcg(IDEAL, 5), False),  # 0.972364...
]

# The correct roundings of the wrong entries, as docs/golden.md states them.
CORRECTED = {
    "F1@3": "0.667",
    "F1@5": "0.750",
    "AP": "0.7556",
    "log2(3)": "1.5849625007211562",
    "log2(3), short": "1.5850",
    "log2(6), short": "2.5850",
    "rel_2 / log2(3)": "1.2619",
    "rel_5 / log2(6)": "0.3869",
    "DCG@2": "4.2619",
    "DCG@3": "5.7619",
    "DCG@4": "5.7619",
    "DCG@5": "6.1487",
    "ideal rel_2 / log2(3)": "1.8928",
    "ideal rel_4 / log2(5)": "0.4307",
    "IDCG@2": "4.8928",
    "IDCG@3": "5.8928",
    "IDCG@4": "6.3235",
    "IDCG@5": "6.3235",
    "NDCG@3": "0.9778",
    "NDCG@5": "0.9724",
}


def _decimals(text: str) -> int:
    return len(text.partition(".")[2])


def _as_fraction(value: Any, digits: int = 60) -> Fraction:
    """The exact value itself if rational, else a 60-digit enclosure from sympy."""
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    value = sympy.sympify(value)
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    return Fraction(str(sympy.N(value, digits)))


@pytest.mark.parametrize("what, printed, exact, correct", PRINTED, ids=[p[0] for p in PRINTED])
def test_printed_decimal_verdict(what, printed, exact, correct):
    d = _decimals(printed)
    half_unit = Fraction(1, 2 * 10**d)
    # 60 significant digits leave an error far below any half unit tested here.
    within = abs(_as_fraction(exact) - Fraction(printed)) <= half_unit
    assert within == correct, f"{what}: printed {printed}, exact {sympy.N(sympy.sympify(exact), 20)}"
    if correct:
        assert what not in CORRECTED
    else:
        fixed = CORRECTED[what]
        assert _decimals(fixed) == d
        assert abs(_as_fraction(exact) - Fraction(fixed)) <= half_unit
        # tieaware's own rounding gives the corrected text.
        assert to_decimal(exact if isinstance(exact, Fraction) else sympy.sympify(exact), d) == fixed


def test_every_correction_is_used():
    wrong = {what for what, _, _, correct in PRINTED if not correct}
    assert wrong == set(CORRECTED)


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_values_print_as_corrected(layer):
    # The same corrected decimals straight from each layer's results.
    assert to_decimal(layer.f1(BINARY, 3), 3) == "0.667"
    assert to_decimal(layer.f1(BINARY, 5), 3) == "0.750"
    assert to_decimal(layer.average_precision(BINARY), 4) == "0.7556"
    dcg = [to_decimal(layer.dcg(GRADED, k), 4) for k in range(1, 6)]
    ndcg = [to_decimal(layer.ndcg(GRADED, k), 4) for k in range(1, 6)]
    assert dcg == ["3.0000", "4.2619", "5.7619", "5.7619", "6.1487"]
    assert ndcg == ["1.0000", "0.8710", "0.9778", "0.9112", "0.9724"]
    assert abs(to_float(layer.ndcg(GRADED, 5)) - 0.97236) < 1e-5
