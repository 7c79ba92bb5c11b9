"""Hand-checked tie-aware values for the McSherry & Najork measures (ECIR 2008).

Each expected value was derived by hand: the comment above it enumerates
the distinct orderings consistent with the ties (each equally likely: a tie
group's n! orderings map evenly onto the distinct arrangements of its
labels), evaluates the ordinary measure on each, and averages.  Where the
paper gives a closed form, the comment also evaluates it, to show that the
formula (with the corrections of docs/golden.md) gives the same number.

Notation as in the paper: a tie group V_i starts after rank t_i, holds n_i
documents, r_i of them relevant, and R_i relevant documents precede it.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from test_golden_tutorial import exactly_equal
from tieaware import fast, reference

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]
F = Fraction
LOG2_3 = sympy.log(3, 2)  # log2(3), exact
LOG2_5 = sympy.log(5, 2)
LOG2_6 = sympy.log(6, 2)

# -- A tie group crossing the cutoff ------------------------------------------
# CROSS = 1, (0 1 0), 1: the group occupies ranks 2..4 (t=1, n=3, r=1, R=1).
# Its three distinct orderings:
#   o1 = 1 1 0 0 1    o2 = 1 0 1 0 1    o3 = 1 0 0 1 1
CROSS = [1, [0, 1, 0], 1]


@pytest.mark.parametrize("layer", LAYERS)
def test_cross_precision_recall_f1(layer):
    # hits@3: o1 2, o2 2, o3 1 -> mean 5/3.  Paper: R_c + (k - t_c)·r_c/n_c = 1 + 2·1/3 = 5/3.
    assert layer.precision(CROSS, 3) == F(5, 9)  # (5/3)/3
    assert layer.recall(CROSS, 3) == F(5, 9)  # (5/3)/3, num_rel = 3
    assert layer.recall(CROSS, 3, num_rel=4) == F(5, 12)  # (5/3)/4
    assert layer.f1(CROSS, 3) == F(5, 9)  # 2·(5/3)/(3 + 3)
    assert layer.f1(CROSS, 3, num_rel=4) == F(10, 21)  # 2·(5/3)/(3 + 4)
    # hits@2: o1 2, o2 1, o3 1 -> 4/3.  Paper: 1 + 1·1/3 = 4/3.
    assert layer.precision(CROSS, 2) == F(2, 3)  # (4/3)/2
    # k = 1 stops before the group: rank 1 is always relevant.
    assert layer.precision(CROSS, 1) == 1
    # k = 4 ends with the group, k = 5 covers everything: no uncertainty left.
    assert layer.precision(CROSS, 4) == F(2, 4)
    assert layer.precision(CROSS, 5) == F(3, 5)


@pytest.mark.parametrize("layer", LAYERS)
def test_cross_average_precision(layer):
    # Full AP, num_rel = 3:
    #   o1: relevant at 1, 2, 5 -> (1 + 2/2 + 3/5)/3 = 13/15
    #   o2: relevant at 1, 3, 5 -> (1 + 2/3 + 3/5)/3 = 34/45
    #   o3: relevant at 1, 4, 5 -> (1 + 2/4 + 3/5)/3 = 7/10
    #   mean = (78 + 68 + 63)/90 / 3 = 209/270
    # Paper, per rank j: r_i/n_i · (R_i + (j - t_i - 1)(r_i - 1)/(n_i - 1) + 1) / j
    #   j=1 (singleton, 0·(0/0) taken as 0): 1·(0 + 1)/1 = 1
    #   j=2,3,4 (t=1, r/n = 1/3, (r-1)/(n-1) = 0, R = 1): (1/3)(2)/j = 1/3, 2/9, 1/6
    #   j=5 (singleton, R = 2): 3/5
    #   sum = 1 + 1/3 + 2/9 + 1/6 + 3/5 = 209/90; / 3 = 209/270
    assert layer.average_precision(CROSS) == F(209, 270)
    # AP@3: o1 (1 + 1)/3, o2 (1 + 2/3)/3, o3 1/3 -> mean (6 + 5 + 3)/9/3 = 14/27
    # Paper: (1 + 1/3 + 2/9)/3 = 14/27.
    assert layer.average_precision(CROSS, 3) == F(14, 27)
    # With a judged relevant document that was not retrieved (num_rel = 4).
    assert layer.average_precision(CROSS, num_rel=4) == F(209, 360)


# -- Reciprocal rank, with the first relevant group crossing the cutoff -------
# RR_CROSS = 0, (0 1 0), 1: orderings 0 1 0 0 1 / 0 0 1 0 1 / 0 0 0 1 1, so
# the first relevant document is at rank 2, 3 or 4, each with chance 1/3.
RR_CROSS = [0, [0, 1, 0], 1]


@pytest.mark.parametrize("layer", LAYERS)
def test_cross_reciprocal_rank(layer):
    assert layer.reciprocal_rank(RR_CROSS) == F(13, 36)  # (1/2 + 1/3 + 1/4)/3
    # k = 3: the ordering with the relevant document at rank 4 scores 0,
    # even though rank 5 is relevant (it is beyond k too).
    assert layer.reciprocal_rank(RR_CROSS, 3) == F(5, 18)  # (1/2 + 1/3 + 0)/3
    assert layer.reciprocal_rank(RR_CROSS, 1) == 0
    assert layer.reciprocal_rank(RR_CROSS, 4) == F(13, 36)


@pytest.mark.parametrize("layer", LAYERS)
def test_reciprocal_rank_two_relevant_in_group(layer):
    # 0, (1 0 1 0): group at ranks 2..5, r = 2, n = 4; six orderings
    #   1100 1010 1001 -> first relevant at rank 2
    #   0110 0101      -> rank 3
    #   0011           -> rank 4
    # RR = (3·1/2 + 2·1/3 + 1/4)/6 = 29/72.
    # Paper, f(x) = chance the first x group slots are irrelevant:
    #   f(0) = 1, f(1) = 1 - 2/4 = 1/2, f(2) = 1/2·(1 - 2/3) = 1/6, f(3) = 0
    #   weights f(x-1) - f(x) = 1/2, 1/3, 1/6 -> 1/2·1/2 + 1/3·1/3 + 1/6·1/4 = 29/72.
    # (The paper's printed formula sums f(x)/j instead of the differences;
    # see docs/golden.md.)
    r = [0, [1, 0, 1, 0]]
    assert layer.reciprocal_rank(r) == F(29, 72)
    assert layer.reciprocal_rank(r, 2) == F(1, 4)  # 3/6 · 1/2
    assert layer.reciprocal_rank(r, 3) == F(13, 36)  # 1/4 + 1/3·1/3


# -- Singleton groups: the paper's AP term (r-1)/(n-1) is 0/0 -----------------


@pytest.mark.parametrize("layer", LAYERS)
def test_singleton_groups_average_precision(layer):
    # 1, 0, 1 (no ties): AP = (1/1 + 2/3)/2 = 5/6.  In the paper's formula
    # every group is a singleton, (r-1)/(n-1) = 0/0, but it is multiplied by
    # j - t_i - 1 = 0 slots, so the term is 0 and j=1 gives 1, j=3 gives 2/3.
    assert layer.average_precision([1, 0, 1]) == F(5, 6)
    # A single relevant document.
    assert layer.average_precision([1]) == 1
    assert layer.average_precision([0, 1]) == F(1, 2)
    # Mixed: (1 0), 1.  Orderings 1 0 1 -> (1 + 2/3)/2 = 5/6 and
    # 0 1 1 -> (1/2 + 2/3)/2 = 7/12; mean 17/24.
    # Paper: j=1: 1/2·(0 + 0 + 1)/1 = 1/2; j=2: 1/2·(0 + 1·0/1 + 1)/2 = 1/4;
    # j=3 (singleton, R = 1): (1 + 1)/3 = 2/3; (1/2 + 1/4 + 2/3)/2 = 17/24.
    assert layer.average_precision([[1, 0], 1]) == F(17, 24)


# -- Everything tied ---------------------------------------------------------------
# ALL = (1 0 1 0): one group, t = 0, n = 4, r = 2.  Six orderings:
#   1100 1010 1001 0110 0101 0011
ALL = [[1, 0, 1, 0]]


@pytest.mark.parametrize("layer", LAYERS)
def test_all_tied(layer):
    # hits@2: 2 1 1 1 1 0 -> mean 1.  Paper: 2·2/4 = 1.
    assert layer.precision(ALL, 2) == F(1, 2)
    assert layer.precision(ALL, 4) == F(1, 2)
    assert layer.precision(ALL, 6) == F(1, 3)  # ranks 5, 6 missing: non-relevant
    # hits@1: 1 in three of six orderings -> 1/2.
    assert layer.recall(ALL, 1) == F(1, 4)  # (1/2)/2
    assert layer.f1(ALL, 1) == F(1, 3)  # 2·(1/2)/(1 + 2)
    # AP, num_rel = 2:
    #   1100: (1 + 1)/2 = 1        1010: (1 + 2/3)/2 = 5/6    1001: (1 + 2/4)/2 = 3/4
    #   0110: (1/2 + 2/3)/2 = 7/12 0101: (1/2 + 2/4)/2 = 1/2  0011: (1/3 + 2/4)/2 = 5/12
    #   sum 49/12, mean 49/72.
    # Paper: 1/2·((j - 1)/3 + 1)/j = (j + 2)/(6j): 1/2, 1/3, 5/18, 1/4 -> 49/36; /2 = 49/72.
    assert layer.average_precision(ALL) == F(49, 72)
    # AP@2: 1, 1/2, 1/2, 1/4, 1/4, 0 -> 5/2 / 6 = 5/12 (paper: (1/2 + 1/3)/2).
    assert layer.average_precision(ALL, 2) == F(5, 12)
    # RR: first relevant at rank 1 in 3 orderings, 2 in 2, 3 in 1:
    # (3 + 2/2 + 1/3)/6 = 13/18.  Paper weights 1/2, 1/3, 1/6 -> 1/2 + 1/6 + 1/18.
    assert layer.reciprocal_rank(ALL) == F(13, 18)
    assert layer.reciprocal_rank(ALL, 1) == F(1, 2)


# -- No relevant document -------------------------------------------------------
NONE = [[0, 0], 0]


@pytest.mark.parametrize("layer", LAYERS)
def test_no_relevant(layer):
    # Every ordering is 0 0 0: each measure is 0 on each, so the mean is 0.
    assert layer.precision(NONE, 2) == 0
    assert layer.recall(NONE, 2) == 0  # num_rel = 0: defined as 0
    assert layer.f1(NONE, 2) == 0  # 0/(2 + 0)
    assert layer.average_precision(NONE) == 0  # num_rel = 0: defined as 0
    assert layer.reciprocal_rank(NONE) == 0
    assert layer.dcg(NONE, gain="exp2") == 0
    assert layer.ndcg(NONE, gain="exp2") == 0  # IDCG = 0: defined as 0
    # Judged relevant documents exist but none was retrieved.
    assert layer.recall(NONE, 2, num_rel=3) == 0
    assert layer.f1(NONE, 2, num_rel=3) == 0
    assert layer.average_precision(NONE, num_rel=3) == 0
    assert layer.ndcg(NONE, ideal=[2, 1, 0], gain="exp2") == 0
    for value in (layer.precision(NONE, 2), layer.average_precision(NONE), layer.dcg(NONE)):
        assert isinstance(value, Fraction)


# -- DCG and nDCG with the paper's gain 2^l - 1 ------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_dcg_exp2_tied(layer):
    # (2 0), 1 with G(l) = 2^l - 1: gains 3, 0, 1; D(j) = 1/log2(j + 1).
    #   2 0 1: 3·1 + 0·D(2) + 1·D(3) = 3 + 1/2
    #   0 2 1: 0·1 + 3·D(2) + 1·D(3) = 3/log2(3) + 1/2
    #   mean: 2 + (3/2)/log2(3)
    # Paper: mean gain of the group (3 + 0)/2 times D(1) + D(2), plus 1·D(3).
    r = [[2, 0], 1]
    expected = sympy.Integer(2) + sympy.Rational(3, 2) / LOG2_3
    assert exactly_equal(layer.dcg(r, gain="exp2"), expected)
    assert exactly_equal(layer.dcg(r, 2, gain="exp2"), sympy.Rational(3, 2) + sympy.Rational(3, 2) / LOG2_3)
    assert layer.dcg(r, 1, gain="exp2") == F(3, 2)  # (3 + 0)/2 at rank 1
    # nDCG: the ideal ordering 2 1 0 has DCG 3 + 1/log2(3).
    assert exactly_equal(layer.ndcg(r, gain="exp2"), expected / (3 + 1 / LOG2_3))
    assert layer.ndcg(r, 1, gain="exp2") == F(1, 2)  # (3/2)/3
    # Linear gain for contrast: mean gain 1 at ranks 1, 2; 1·D(3).
    assert exactly_equal(layer.dcg(r), 1 + 1 / LOG2_3 + sympy.Rational(1, 2))
    # The exact test is not vacuous: exp2 and linear differ here.
    assert not exactly_equal(layer.dcg(r, gain="exp2"), layer.dcg(r))


@pytest.mark.parametrize("layer", LAYERS)
def test_dcg_exp2_group_crossing_cutoff(layer):
    # 3, (2 0 0), 1 with exp2 gains 7, (3 0 0), 1.  The group holds ranks 2..4;
    # its orderings 2 0 0 / 0 2 0 / 0 0 2 put gain 3 at each of its ranks
    # once in three, so each of its ranks has expected gain 1.
    r = [3, [2, 0, 0], 1]
    assert exactly_equal(layer.dcg(r, 2, gain="exp2"), 7 + 1 / LOG2_3)
    assert exactly_equal(layer.dcg(r, 3, gain="exp2"), 7 + 1 / LOG2_3 + sympy.Rational(1, 2))
    assert exactly_equal(layer.dcg(r, gain="exp2"), 7 + 1 / LOG2_3 + sympy.Rational(1, 2) + 1 / LOG2_5 + 1 / LOG2_6)
    # With the rational discount D(j) = 1/j the same sums are Fractions:
    # k=3: 7 + 1/2 + 1/3 = 47/6.
    assert layer.dcg(r, 3, gain="exp2", discount=lambda j: F(1, j)) == F(47, 6)
    # nDCG@2: the ideal 3 2 1 0 0 has DCG@2 = 7 + 3/log2(3).
    assert exactly_equal(layer.ndcg(r, 2, gain="exp2"), (7 + 1 / LOG2_3) / (7 + 3 / LOG2_3))
    # An ideal with a judged document the run missed (label 3): IDCG@2 = 7 + 7/log2(3).
    assert exactly_equal(layer.ndcg(r, 2, ideal=[3, 3, 2, 1, 0, 0], gain="exp2"), (7 + 1 / LOG2_3) / (7 + 7 / LOG2_3))


@pytest.mark.parametrize("layer", LAYERS)
def test_dcg_exp2_all_tied(layer):
    # (2 1 0) with gains 3, 1, 0: each label sits at each rank in 2 of the 6
    # orderings, so every rank has expected gain 4/3.
    expected = sympy.Rational(4, 3) * (1 + 1 / LOG2_3 + sympy.Rational(1, 2))
    assert exactly_equal(layer.dcg([[2, 1, 0]], gain="exp2"), expected)
    # Ideal 2 1 0: 3 + 1/log2(3).
    assert exactly_equal(layer.ndcg([[2, 1, 0]], gain="exp2"), expected / (3 + 1 / LOG2_3))
