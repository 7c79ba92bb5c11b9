"""worst, best, variance, distribution: fast == reference exactly (both layers' public API).

The reference enumerates every ordering consistent with the ties; fast uses
per-group dynamic programs and closed forms (fast/tie_spread.py) and, for
RBO, fast/rbo_uncertainty.py.  Exhaustive over every tie structure and
labelling of up to 5 documents (binary) and 4 (grades 0-2), for every
cutoff up to one past the end; DCG/nDCG (sums of logs) up to 3 documents,
their variances proved equal symbolically.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from tieaware import fast, reference
from tieaware.model.errors import TieawareError
from tieaware.model.structures import all_tied_rankings

BINARY = ("P@{k}", "R@{k}", "F1@{k}", "AP", "AP@{k}", "RR", "RR@{k}", "RBP(p=0.5)", "RBP(p=0.5)@{k}")
GRADED = ("P(rel=2)@{k}", "AP(rel=2)", "ERR@{k}", "ERR")


def _same(name, r, ideal=None):
    for what in ("worst", "best", "variance", "distribution"):
        f = getattr(fast, what)(name, r, ideal)
        ref = getattr(reference, what)(name, r, ideal)
        assert f == ref, (what, name, r, ideal, f, ref)


@pytest.mark.parametrize("n", range(1, 6))
def test_exhaustive_binary(n):
    for r in all_tied_rankings(n, (0, 1)):
        for template in BINARY:
            for k in range(1, n + 2) if "{k}" in template else (None,):
                _same(template.format(k=k), r)
        _same("R@2", r, ideal=[1] * (n + 1))  # num_rel from an ideal larger than the ranking's own


@pytest.mark.parametrize("n", range(1, 5))
def test_exhaustive_graded(n):
    for r in all_tied_rankings(n, (0, 1, 2)):
        for template in GRADED:
            for k in range(1, n + 2) if "{k}" in template else (None,):
                _same(template.format(k=k), r)


@pytest.mark.parametrize("n", range(1, 4))
@pytest.mark.parametrize("measure", ["DCG", "nDCG@2", "DCG@2"])
def test_dcg_exact(n, measure):
    for r in all_tied_rankings(n, (0, 1, 2)):
        assert fast.worst(measure, r) == reference.worst(measure, r) or sympy.simplify(
            fast.worst(measure, r) - reference.worst(measure, r)) == 0
        assert sympy.simplify(sympy.sympify(fast.best(measure, r)) - sympy.sympify(reference.best(measure, r))) == 0
        difference = sympy.sympify(fast.variance(measure, r)) - sympy.sympify(reference.variance(measure, r))
        assert sympy.simplify(sympy.expand(difference)) == 0, (measure, r)


def test_by_hand():
    # P@2 of one group of 4 with 2 relevant: hits in the top 2 are hypergeometric
    # (N=4, K=2, n=2): P(0)=1/6, P(1)=4/6, P(2)=1/6, so P@2 is 0, 1/2, 1 with those
    # odds, mean 1/2, variance (1/6)(1/4) + (1/6)(1/4) = 1/12.
    r = [[1, 1, 0, 0]]
    for layer in (fast, reference):
        assert layer.variance("P@2", r) == Fraction(1, 12)
        assert layer.distribution("P@2", r) == {Fraction(0): Fraction(1, 6), Fraction(1, 2): Fraction(2, 3), Fraction(1): Fraction(1, 6)}
        assert (layer.worst("P@2", r), layer.best("P@2", r)) == (Fraction(0), Fraction(1))


@pytest.mark.parametrize(
    "S, L", [([("a", "b")], [("b", "a")]), (["a", ("b", "c")], [("a", "c"), "b"]), ([("a", "b", "c")], ["c", ("a", "d")])]
)
def test_rbo(S, L):
    for what in ("worst", "best", "variance"):
        assert getattr(fast, what)("RBO(p=0.5)", (S, L)) == getattr(reference, what)("RBO(p=0.5)", (S, L))


def test_where_fast_has_no_distribution_it_says_so():
    with pytest.raises(TieawareError, match="has no distribution in fast"):
        fast.distribution("nDCG", [[2, 1, 0]])
    with pytest.raises(TieawareError, match="has no distribution here"):
        fast.distribution("RBO(p=0.5)", (["a"], ["a"]))


def test_float_mode():
    r = [1, [0, 1, 0], [1, 1, 0, 0], 0]
    for what in ("worst", "best", "variance"):
        for measure in ("AP", "P@5", "RR@3", "nDCG@4"):
            f = getattr(fast, what)(measure, r, exact=False)
            e = getattr(reference, what)(measure, r, exact=False)
            assert isinstance(f, float) and f == pytest.approx(e, abs=1e-12)
