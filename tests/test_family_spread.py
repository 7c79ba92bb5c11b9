"""The spread of trec_eval's other families (fast.family_spread) == the reference's enumeration, exactly.

The truth is :mod:`tieaware.reference.uncertainty`: every ordering consistent
with the ties, trec_eval's loop on each (reference.trec_eval_measures), then
the minimum, maximum, variance and distribution of those values.  Every tie
structure (composition into groups) of up to 6 documents is checked with
every labelling over ALPHABETS: ``None`` (not in the
qrels), -2 (in the qrels, not judged), 0, 1 and 2; the judged labels of the
query are the ranking's own plus judged documents it did not retrieve.

Up to 2 documents every measure is checked on every case; from 3 on, each
case checks every second or third measure in turn (every one in the
thorough profile, ``HYPOTHESIS_PROFILE=thorough``), so each still meets
every composition into groups.

The set measures and the counts are tie-invariant (theorem ``set
measures``); here that is checked, not assumed: the enumeration's worst,
best and variance are compared with the value and 0.

binG, G and Rndcg are also checked with a rational discount D(j) = 1/j
(every value a Fraction, compared with ==), and with trec_eval's log2 on a
sample (the extremes equal as exact expressions, the variance to 40 digits).
"""

from __future__ import annotations

import os
from collections import Counter
from fractions import Fraction

import pytest
import sympy

from tieaware import reference
from tieaware.fast.family_spread import INVARIANT, family_spread
from tieaware.fast.tie_spread import spread_stats
from tieaware.model.dispatch import UNJUDGED, measure_value
from tieaware.model.names import parse
from tieaware.model.ranking import groups, judged_groups
from tieaware.model.structures import all_tied_rankings
from tieaware.reference.orderings import orderings

D = lambda j: Fraction(1, j)  # noqa: E731  a rational discount: exact comparisons


def _flat(r):
    return [x for g in r for x in (g if isinstance(g, list) else [g])]


ALPHABETS = {1: (None, -2, 0, 1, 2), 2: (None, -2, 0, 1, 2), 3: (None, -2, 0, 1, 2), 4: (None, 0, 1), 5: (0, 1), 6: (0, 1)}


THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


def _cases(n, names):
    """Every tie structure of n documents, every labelling over ALPHABETS[n], with the query's judged labels
    (the ranking's own plus, in turn, none, a relevant and a non-relevant one, or a grade 2 and a -2 not
    retrieved), and the measures to check on it: every one up to 2 documents (and in the thorough profile),
    else every second (3, 4 documents) or third (5, 6) in turn, so that each measure still meets every
    composition into groups (each has several labellings) while the suite stays fast."""
    extras = ([], [1, 0], [2, -2])
    step = 1 if THOROUGH or n <= 2 else 2 if n <= 4 else 3
    for i, r in enumerate(all_tied_rankings(n, ALPHABETS[n])):
        yield r, [x for x in _flat(r) if x is not None] + extras[i % 3], names[i % step :: step]


def _truth(values):
    n = len(values)
    mean = sum(values, Fraction(0)) / n
    return min(values), max(values), sum(((v - mean) ** 2 for v in values), Fraction(0)) / n, {
        v: Fraction(c, n) for v, c in Counter(values).items()
    }


def _enumeration(m, r, ideal):
    """reference.uncertainty's enumeration, once for the four numbers: trec_eval's loop on every ordering."""
    gs = judged_groups(r) if m.name in UNJUDGED else groups(r)
    return _truth([measure_value(reference, m, list(o), ideal=ideal) for o in orderings(gs)])


def _check(name, r, ideal, floats=False):
    m = parse(name)
    lo, hi, var, pmf = _enumeration(m, r, ideal)
    got = spread_stats(m, r, ideal, distribution=True)
    assert (got.worst, got.best, got.variance) == (lo, hi, var), (name, r, ideal)
    if got.distribution is not None:
        assert got.distribution == pmf, (name, r, ideal)
    if floats:
        f = spread_stats(m, r, ideal, exact=False)
        assert abs(f.worst - float(lo)) < 1e-12 and abs(f.best - float(hi)) < 1e-12, (name, r, ideal)
        assert abs(f.variance - float(var)) < 1e-12, (name, r, ideal)


INVARIANTS = ["NumQ", "NumRet", "NumRet(rel=1)", "NumRelRet", "NumRel", "NumNonRelJudgedRet", "SetP", "SetRelP", "SetR",
              "SetF", "SetF(beta=0.25)", "SetAP", "Utility", "Utility(a=2,b=-1,c=1,d=1,docs=9)"]  # fmt: skip


@pytest.mark.parametrize("n", range(1, 7))
def test_set_measures_and_counts_are_tie_invariant(n):
    """worst = best = the value and variance 0, read off the enumeration (not assumed)."""
    for r, ideal, names in _cases(n, INVARIANTS):
        for name in names:
            m = parse(name)
            assert m.name in INVARIANT
            value, high, var, _ = _enumeration(m, r, ideal)
            assert high == value and var == 0, (name, r)
            assert spread_stats(m, r, ideal, distribution=True) == (value, value, 0, {value: 1}), (name, r, ideal)


RATIONAL = ["RelP@2", "Rprec(mult=0.5)", "Rprec(mult=2)", "IPrec@0", "IPrec@0.5", "IPrec@1", "IPrecAvg",
            "IPrecAvg(levels='0.6;0.3')", "infAP", "GMAP", "GMBpref", "infAP(rel=2)", "IPrec(rel=2)@0.5"]  # fmt: skip


@pytest.mark.parametrize("n", range(1, 7))
def test_rational_families_equal_the_enumeration(n):
    for r, ideal, names in _cases(n, RATIONAL):
        for name in names:
            _check(name, r, ideal, floats=n <= 3)


# -- binG, G and Rndcg with a rational discount: every value a Fraction -------------------------------


def _enumerated(fn, r):
    return _truth([fn(list(o)) for o in orderings(judged_groups(r))])


@pytest.mark.parametrize("n", range(1, 7))
def test_gain_families_with_a_rational_discount(n):
    for r, ideal, names in _cases(n, ["BinG", "G", "RnDCG", "RnDCG(rel=2)"]):
        num_rel = sum(1 for x in ideal if x >= 1)
        cases = {
            "BinG": lambda o: reference.binary_gain(o, num_rel, discount=D),
            "G": lambda o: reference.normalised_gain(o, ideal, discount=D),
            "RnDCG": lambda o: reference.r_ndcg(o, num_rel, ideal, discount=D),
            "RnDCG(rel=2)": lambda o: reference.r_ndcg(o, sum(1 for x in ideal if x >= 2), ideal, rel=2, discount=D),
        }
        for name in names:
            lo, hi, var, pmf = _enumerated(cases[name], r)
            got = family_spread(parse(name), r, ideal, discount=D, distribution=True)
            assert (got.worst, got.best, got.variance) == (lo, hi, var), (name, r, ideal)
            if got.distribution is not None:
                assert got.distribution == pmf, (name, r, ideal)
            if n <= 3:
                floats = family_spread(parse(name), r, ideal, discount=D, exact=False)
                assert abs(floats.variance - float(var)) < 1e-12 and abs(floats.best - float(hi)) < 1e-12, (name, r)


LOG2_SAMPLE = [[[1, 0]], [[1, 0, None], 2], [0, [2, 1, 0]], [[1, -2, 0], [2, 0]], [[2, 1], [1, 0, 0]], [1, [0, 0], [1, 2, None]]]


@pytest.mark.parametrize("r", LOG2_SAMPLE, ids=str)
def test_gain_families_log2(r):
    """trec_eval's 1/log2: the extremes are the enumeration's as exact expressions, the variance equal to 40 digits."""
    ideal = [x for x in _flat(r) if x is not None] + [1]
    for name in ("BinG", "G", "RnDCG"):
        m = parse(name)
        got = spread_stats(m, r, ideal)
        values = [sympy.sympify(v) for v in (reference.worst(m, r, ideal), reference.best(m, r, ideal))]
        assert sympy.N(sympy.sympify(got.worst) - values[0], 50) == 0 and sympy.N(sympy.sympify(got.best) - values[1], 50) == 0
        gap = sympy.N(sympy.sympify(got.variance) - sympy.sympify(reference.variance(m, r, ideal)), 60)
        assert abs(gap) < sympy.Float("1e-40"), (name, r, gap)
        floats = spread_stats(m, r, ideal, exact=False)
        assert abs(floats.variance - float(sympy.N(sympy.sympify(got.variance), 30))) < 1e-12, (name, r)
        assert abs(floats.worst - float(sympy.N(values[0], 30))) < 1e-12, (name, r)


def test_ndcg_rel_and_trec_gains_are_refused_by_name():
    from tieaware.model.errors import TieawareError

    with pytest.raises(TieawareError, match="ndcg_rel averages"):
        spread_stats("nDCGRel", [[1, 0]])
    with pytest.raises(TieawareError, match="gains="):
        spread_stats("G(gains='1=3')", [[1, 0]])


def test_rprec_mult_spread_reads_its_multiple():
    """Rprec(mult=m)'s spread is P at trec_eval's count (long)(m·R + 0.9), not Rprec's (it read R before)."""
    r = [[1, 0, 0], 1, [0, 1]]
    got = spread_stats("Rprec(mult=0.5)", r)
    assert (got.best, got.variance) == (reference.best("Rprec(mult=0.5)", r), reference.variance("Rprec(mult=0.5)", r))
    assert got.variance == Fraction(1, 18)
