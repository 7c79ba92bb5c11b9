"""trec_eval's other families: fast == reference exactly on every tie structure of up to 6 documents.

The reference transcribes trec_eval 9.0.8's loop for each measure (the
m_*.c files) and averages it over every ordering; fast computes the same
number in closed form (set measures, relative_P, Rprec_mult, binG, infAP,
G, ndcg_rel, Rndcg, ndcg with trec_eval's gain pairs) or by the dynamic programme of
:mod:`tieaware.fast.interpolated` (iprec_at_recall, 11pt_avg).  Every tie
structure (composition into groups) of up to 6 documents is checked with
every labelling over the alphabet named per test, every recall level and
cutoff, num_rel from the retrieved relevant documents to two more, and
trec_eval's -M (:func:`at_depth`) at every depth.  The gain measures use
a rational discount D(j) = 1/j (so values are Fractions and compare with
==; they are linear or ratios in D, and log2 is checked on a sample to 40
digits); their gains are the labels, and trec_eval's ``rel=gain`` pairs on
a smaller alphabet.

Golden values from outside (trec_eval on untied input) are in
tests/test_trec_output.py and tests/test_trec_equivalence.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware import fast, reference
from tieaware.model.exact import to_decimal
from tieaware.model.errors import TieawareError
from tieaware.model.structures import all_tied_rankings
from tieaware.strategies import tied_rankings

D = lambda j: Fraction(1, j)  # noqa: E731  a rational discount: exact comparisons
LEVELS = [Fraction(i, 10) for i in range(11)]


def _relevant(r, rel=1) -> int:
    return sum(1 for g in r for x in (g if isinstance(g, list) else [g]) if x is not None and x >= rel)


def _size(r) -> int:
    return sum(len(g) if isinstance(g, list) else 1 for g in r)


def _num_rels(r, rel=1):
    base = _relevant(r, rel)
    return (None, base + 2) if _size(r) >= 6 else (None, base + 1, base + 2)


# -- tie-invariant counts and set measures ---------------------------------------------------


SETS = ["retrieved", "relevant_retrieved", "judged_nonrelevant", "set_precision"]
SETS_R = ["set_recall", "set_average_precision", "set_relative_precision"]


@pytest.mark.parametrize("n", range(1, 7))
def test_set_measures(n):
    for r in all_tied_rankings(n, (None, -2, 0, 1) if n <= 4 else (None, 0, 1) if n == 5 else (0, 1)):
        for name in SETS:
            assert getattr(fast, name)(r) == getattr(reference, name)(r), (name, r)
        for num_rel in _num_rels(r)[:2]:
            for name in SETS_R:
                assert getattr(fast, name)(r, num_rel) == getattr(reference, name)(r, num_rel), (name, r, num_rel)
            for beta in (0, Fraction(1, 2), 3):
                assert fast.set_f(r, num_rel, beta) == reference.set_f(r, num_rel, beta), (r, num_rel, beta)
            coefficients = (3, Fraction(-1, 2), -1, Fraction(1, 10))
            got = fast.utility(r, num_rel, coefficients, num_docs=20)
            assert got == reference.utility(r, num_rel, coefficients, num_docs=20), (r, num_rel)


# -- hits at cutoffs --------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 7))
def test_relative_precision_and_rprec_mult(n):
    for r in all_tied_rankings(n, (0, 1)):
        for num_rel in _num_rels(r):
            for k in range(1, n + 2):
                assert fast.relative_precision(r, k, num_rel) == reference.relative_precision(r, k, num_rel), (r, k)
            for m in ("0.2", "0.4", "0.6", "0.8", "1", "1.4", "2"):
                assert fast.r_precision_multiple(r, m, num_rel) == reference.r_precision_multiple(r, m, num_rel), (r, m)


# -- interpolated precision -------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 7))
def test_interpolated_precision(n):
    for r in all_tied_rankings(n, (0, 1)):
        for num_rel in _num_rels(r):
            for p in LEVELS:
                assert fast.interpolated_precision(r, p, num_rel) == reference.interpolated_precision(r, p, num_rel), (r, p)
            assert fast.eleven_point_average(r, num_rel) == reference.eleven_point_average(r, num_rel), (r, num_rel)
            # trec_eval's 11pt_avg keeps its levels as given; out of order they are read oddly, as in trec_eval
            odd = ["0.8", "0.2", "0.5"]
            assert fast.eleven_point_average(r, num_rel, odd) == reference.eleven_point_average(r, num_rel, odd), (r,)


def test_interpolated_precision_graded_and_level():
    for n in range(1, 6):
        for r in all_tied_rankings(n, (0, 1, 2)):
            for p in LEVELS[::2]:
                assert fast.interpolated_precision(r, p, rel=2) == reference.interpolated_precision(r, p, rel=2), (r, p)


@pytest.mark.parametrize("n", range(1, 7))
def test_iprec_spread_of_the_eleven_point_average(n):
    # E and Var of 11pt_avg from one walk (the interpolated precisions are dependent)
    from tieaware.fast.interpolated import eleven_point_spread

    for r in all_tied_rankings(n, (0, 1)):
        values = reference_values(r)
        mean = sum(values, Fraction(0)) / len(values)
        var = sum((v - mean) ** 2 for v in values) / len(values)
        assert eleven_point_spread(r) == (mean, var), r


def reference_values(r):
    """11pt_avg on every ordering of r (each an untied ranking), R the relevant documents of r."""
    from tieaware.model.ranking import groups
    from tieaware.reference.orderings import orderings

    return [reference.eleven_point_average(list(o), _relevant(r)) for o in orderings(groups(r))]


@given(tied_rankings(max_size=10), st.sampled_from(LEVELS))
def test_interpolated_precision_hypothesis(r, p):
    assert fast.interpolated_precision(r, p) == reference.interpolated_precision(r, p)
    assert fast.interpolated_precision(r, p, exact=False) == pytest.approx(float(reference.interpolated_precision(r, p)), abs=1e-12)


def test_interpolated_precision_by_hand():
    # [[1, 0], 1], R = 2, recall 0.5 -> count (long)(0.5·2 + 0.9) = 1:
    # 1 0 1: precisions 1 and 2/3, M(1) = 1; 0 1 1: 1/2 and 2/3, M(1) = 2/3.  Mean 5/6.
    assert fast.interpolated_precision([[1, 0], 1], "0.5") == Fraction(5, 6)
    # recall 1 -> count 2: M(2) = 2/3 both ways
    assert fast.interpolated_precision([[1, 0], 1], 1) == Fraction(2, 3)
    # the mean of a max is not the max of means: E[M(1)] = 5/6 > max(E[1/pos_1], E[2/pos_2]) = 3/4
    assert fast.interpolated_precision([[1, 0], 1], 0) == Fraction(5, 6)


# -- infAP and binG ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 7))
def test_infap(n):
    for r in all_tied_rankings(n, (None, -2, 0, 1) if n <= 5 else (None, 0, 1)):
        for num_rel in _num_rels(r):
            got = fast.inferred_average_precision(r, num_rel)
            assert got == reference.inferred_average_precision(r, num_rel), (r, num_rel)


def test_infap_level():
    for n in range(1, 5):
        for r in all_tied_rankings(n, (None, -2, 0, 1, 2)):
            assert fast.inferred_average_precision(r, rel=2) == reference.inferred_average_precision(r, rel=2), r


@pytest.mark.parametrize("n", range(1, 7))
def test_binary_gain(n):
    for r in all_tied_rankings(n, (None, 0, 1)):
        for num_rel in _num_rels(r):
            assert fast.binary_gain(r, num_rel, discount=D) == reference.binary_gain(r, num_rel, discount=D), (r, num_rel)
        assert fast.binary_gain(r) == reference.binary_gain(r), r  # log2, canonical: equal expressions


# -- G, ndcg_rel, Rndcg ------------------------------------------------------------------------


def _ideals(r):
    flat = [x for g in r for x in (g if isinstance(g, list) else [g]) if x is not None]
    yield None
    yield flat + [2, 1]  # judged documents the run did not retrieve
    yield flat + [0, 0, 3]


@pytest.mark.parametrize("n", range(1, 7))
def test_gain_measures(n):
    for r in all_tied_rankings(n, (0, 1) if n == 6 else (0, 1, 2) if n == 5 else (None, 0, 1, 2)):
        for ideal in _ideals(r):
            for name in ("normalised_gain", "ndcg_relevant"):
                got = getattr(fast, name)(r, ideal, discount=D)
                assert got == getattr(reference, name)(r, ideal, discount=D), (name, r, ideal)
            for rel in (1, 2):
                got = fast.r_ndcg(r, ideal=ideal, rel=rel, discount=D)
                assert got == reference.r_ndcg(r, ideal=ideal, rel=rel, discount=D), (r, ideal, rel)


@pytest.mark.parametrize("gains", ["1=3.5,2=9.0", "0=1,1=0.5", "2=0.5,1=1.2", "-1=2,1=4", "1=0,2=0"])
def test_gain_measures_with_trec_eval_gains(gains):
    for n in range(1, 4):
        for r in all_tied_rankings(n, (None, 0, 1, 2)):
            for ideal in _ideals(r):
                for name in ("normalised_gain", "ndcg_relevant", "r_ndcg"):
                    args = dict(ideal=ideal, gains=gains, discount=D)
                    assert _outcome(getattr(fast, name), r, args) == _outcome(getattr(reference, name), r, args), (name, r)
                for k in (None, 1, 2):  # ndcg.l=g,... and ndcg_cut with pairs: trec_eval's gains, its ideal
                    args = dict(k=k, ideal=ideal, gains=gains, discount=D)
                    assert _outcome(fast.trec_ndcg, r, args) == _outcome(reference.trec_ndcg, r, args), (r, k)


def _outcome(fn, r, args):
    """The value, or "refused" when the gains make trec_eval divide by 0 (a positive gain and an
    ideal of none; a gain that makes G's log2 argument 1)."""
    from tieaware.model.errors import TieawareError

    try:
        return fn(r, **args)
    except TieawareError as exc:
        assert "ideal of positive gain" in str(exc) or "log2 argument" in str(exc), exc
        return "refused"


def test_gain_measures_log2():
    for r in [[[1, 0], 2], [2, [0, 1, 1], None, [2, 0]], [[1, 1, 0, 2]]]:
        ideal = [x for g in r for x in (g if isinstance(g, list) else [g]) if x is not None] + [2]
        for name in ("normalised_gain", "ndcg_relevant", "r_ndcg", "binary_gain", "trec_ndcg"):
            args = {} if name == "binary_gain" else dict(ideal=ideal, gains="1=3,2=9") if name == "trec_ndcg" else dict(ideal=ideal)
            a, b = getattr(fast, name)(r, **args), getattr(reference, name)(r, **args)
            assert to_decimal(a, 40) == to_decimal(b, 40), (name, r)
            assert abs(getattr(fast, name)(r, **args, exact=False) - float(to_decimal(b, 20))) < 1e-12


# -- trec_eval's -M: the first M documents of a random tie-breaking -----------------------------


def _measures(layer, r):
    num_rel = _relevant(r) + 1
    nonrel = sum(1 for g in r for x in (g if isinstance(g, list) else [g]) if x is not None and 0 <= x < 1) + 1
    return {
        "AP": lambda o: layer.average_precision(o, num_rel=num_rel),
        "P@2": lambda o: layer.precision(o, 2),
        "set_P": lambda o: layer.set_precision(o),
        "num_rel_ret": lambda o: layer.relevant_retrieved(o),
        "iprec@0.5": lambda o: layer.interpolated_precision(o, "0.5", num_rel),
        "bpref": lambda o: layer.bpref(o, num_rel, nonrel),
        "infAP": lambda o: layer.inferred_average_precision(o, num_rel),
    }


@pytest.mark.parametrize("n", range(1, 7))
def test_at_depth(n):
    for r in all_tied_rankings(n, (None, 0, 1) if n <= 4 else (0, 1)):
        ours, theirs = _measures(fast, r), _measures(reference, r)
        for depth in range(0, n + 2):
            for name in ours:
                got = fast.at_depth(ours[name], r, depth)
                assert got == reference.at_depth(theirs[name], r, depth), (name, r, depth)


def test_at_depth_in_float_and_bad_depths():
    # float measures mix the same way (each choice's probability times its float value), and a depth that is
    # not an int >= 0 is refused, naming it
    for r in all_tied_rankings(4, (0, 1)):
        for depth in range(0, 6):
            exact = fast.at_depth(lambda o: fast.precision(o, 2), r, depth)
            rough = fast.at_depth(lambda o: fast.precision(o, 2, exact=False), r, depth)
            assert isinstance(rough, float) and rough == pytest.approx(float(exact), rel=1e-12, abs=1e-15), (r, depth)
    for bad_depth in (-1, 1.5, True, "2"):
        with pytest.raises(TieawareError, match="depth"):
            fast.at_depth(lambda o: fast.precision(o, 2), [1, [0, 1]], bad_depth)
