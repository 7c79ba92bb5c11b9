"""Rprec, Success@k, Judged@k, Bpref over tie-breakings: fast (fast/trec_spread.py) == reference.

Exhaustive over every tie structure and labelling of up to 5 documents
(binary; unjudged/0/1 for Judged, up to 4, and unjudged/1 at 5) and 3
(grades 0-3, rel=2 and rel=3), every
cutoff up to one past the end, with and without an ideal holding more
relevant documents than the ranking: worst, best, variance, distribution,
and both layers' worst/best orderings attaining them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tieaware import fast, reference
from tieaware.model.errors import TieawareError
from tieaware.runs.evaluate import compute
from tieaware.fast.trec_spread import hypergeometric, trec_spread
from tieaware.model.ranking import judged_groups
from tieaware.model.structures import all_tied_rankings


def _same(name, r, ideal=None):
    for what in ("worst", "best", "variance", "distribution"):
        f = getattr(fast, what)(name, r, ideal)
        ref = getattr(reference, what)(name, r, ideal)
        assert f == ref, (what, name, r, ideal, f, ref)
    gs = judged_groups(r) if name.startswith(("Judged", "Bpref")) else None
    for what in ("worst", "best"):
        target = getattr(reference, what)(name, r, ideal)
        for layer in (fast, reference):
            order = getattr(layer, f"{what}_ordering")(name, r, ideal)
            if gs is not None:  # a tie-breaking, None kept
                start = 0
                for g in gs:
                    part = order[start : start + len(g)]
                    assert sorted(part, key=repr) == sorted(g, key=repr), (name, r, order)
                    start += len(g)
            assert compute(name, order, ideal=ideal, layer="reference") == target, (layer.__name__, what, name, r, order)


@pytest.mark.parametrize("n", range(0, 6))
def test_binary(n):
    for r in all_tied_rankings(n, (0, 1)):
        for k in range(1, n + 2):
            _same(f"Success@{k}", r)
        _same("Rprec", r)
        _same("Rprec", r, ideal=[1] * (sum(1 for g in judged_groups(r) for x in g if x == 1) + 2))


@pytest.mark.parametrize("n", range(1, 4))
def test_graded(n):
    for r in all_tied_rankings(n, (0, 1, 2, 3)):
        for k in range(1, n + 2):
            _same(f"Success(rel=2)@{k}", r)
        _same("Rprec(rel=2)", r)
        _same("Rprec(rel=3)", r, ideal=[x for g in judged_groups(r) for x in g] + [3])


@pytest.mark.parametrize("n", range(0, 6))
def test_judged(n):
    # Judged reads only judged (0 or 1) or not (None): 5 documents over None/1 covers every pattern.
    for r in all_tied_rankings(n, (None, 0, 1) if n <= 4 else (None, 1)):
        for k in range(1, n + 2):
            _same(f"Judged@{k}", r)
        _same("Judged", r)


@pytest.mark.parametrize("n", range(1, 5))
def test_bpref(n):
    # relevant, judged non-relevant, unjudged: every pattern up to 4 documents, with
    # and without an ideal judging more documents (num_rel and num_nonrel above the run's)
    for r in all_tied_rankings(n, (None, 0, 1)):
        _same("Bpref", r)
        labels = [x for g in judged_groups(r) for x in g if x is not None]
        _same("Bpref", r, ideal=labels + [1, 0, 0])
        _same("Bpref", r, ideal=labels + [1])


@pytest.mark.parametrize("n", range(1, 4))
def test_bpref_graded(n):
    for r in all_tied_rankings(n, (None, 0, 1, 2)):
        _same("Bpref(rel=2)", r)


def test_by_hand():
    # Rprec of (1 0 0) 1: R = 2, the top 2 holds 0 or 1 of the group's relevant document
    # (hypergeometric N=3, K=1, n=2: P(1) = 2/3), so Rprec is 0 or 1/2, mean 1/3, variance 1/18.
    assert hypergeometric(3, 1, 2) == {0: Fraction(1, 3), 1: Fraction(2, 3)}
    for layer in (fast, reference):
        assert layer.distribution("Rprec", [[1, 0, 0], 1]) == {Fraction(0): Fraction(1, 3), Fraction(1, 2): Fraction(2, 3)}
        assert layer.variance("Rprec", [[1, 0, 0], 1]) == Fraction(1, 18)
        # Success@2 of 0 (0 1 0): rank 2 holds the relevant document with chance 1/3.
        assert layer.variance("Success@2", [0, [0, 1, 0]]) == Fraction(2, 9)
        # Judged@2 of (unjudged 1 unjudged): the top 2 holds the judged document with chance 2/3.
        assert layer.distribution("Judged@2", [[None, 1, None]]) == {Fraction(0): Fraction(1, 3), Fraction(1, 2): Fraction(2, 3)}
        assert layer.worst_ordering("Judged@2", [[None, 1, None]]) == [None, None, 1]


def test_reference_keeps_unjudged_apart_for_bpref():
    # (unjudged 1 0): bpref is 1 when 1 precedes 0, else 0; the unjudged document never counts.
    assert reference.distribution("Bpref", [[None, 1, 0]]) == {Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}
    assert reference.worst_ordering("Bpref", [[None, 1, 0]]) == [None, 0, 1]


def test_float_mode():
    r = [1, [0, 1, 0], [1, None, 0, 0], 0]
    for what in ("worst", "best", "variance"):
        for measure in ("Rprec", "Success@3", "Judged@5"):
            f = getattr(fast, what)(measure, r, exact=False)
            e = getattr(reference, what)(measure, r, exact=False)
            assert isinstance(f, float) and f == pytest.approx(e, abs=1e-12)
    pmf = fast.distribution("Success@3", r, exact=False)
    assert all(isinstance(v, float) and isinstance(q, float) for v, q in pmf.items())


def test_bad_input():
    with pytest.raises(TieawareError, match="num_rel"):
        fast.worst("Rprec", [1, 1], ideal=[1])  # fewer relevant judged than retrieved
    with pytest.raises(TieawareError, match="measure"):
        trec_spread("AP", [1])
    for layer in (fast, reference):  # fewer judged non-relevant in the ideal than retrieved
        with pytest.raises(TieawareError, match="num_nonrel"):
            layer.worst("Bpref", [[1, 0, 0]], ideal=[1, 0])
    with pytest.raises(TieawareError, match="num_nonrel"):
        fast.worst_ordering("Bpref", [[1, 0, 0]], ideal=[1, 0])
