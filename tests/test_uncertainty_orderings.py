"""worst_ordering, best_ordering in both layers; exact DCG/nDCG worst, best, variance up to 4 documents.

The two layers may return different orderings when several attain an
extreme (fast sorts each group, the reference takes the first in its
enumeration order), so the orderings are checked by what they are: a
tie-breaking of the ranking (each group's labels, in the group's place)
whose value, computed by the reference layer on the untied ordering, is
the reference's worst (best).  Exhaustive over every tie structure and
labelling of up to 5 documents (binary) and 4 (grades 0-3; 0-2 at 4 for
DCG/nDCG), every cutoff up to one past the end (up to the end for grades at
4 documents), with and without an ideal holding more relevant documents
than the ranking.  At the largest size only fast's orderings are checked:
the reference's is, by construction, the first of its own enumeration.

Exact DCG/nDCG values are sums of logs: two exact values are compared as
rational functions of the logs (see :func:`same`), never by floats.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from sympy.polys.fields import sfield

from tieaware import fast, reference
from tieaware.model.errors import TieawareError
from tieaware.runs.evaluate import compute
from tieaware.model.names import parse
from tieaware.model.ranking import groups
from tieaware.model.structures import all_tied_rankings

BINARY = ("P@{k}", "R@{k}", "F1@{k}", "AP", "AP@{k}", "RR", "RR@{k}", "RBP(p=0.5)", "RBP(p=0.5)@{k}")
GRADED = (
    "P(rel=2)@{k}", "R(rel=2)@{k}", "F1(rel=3)@{k}", "AP(rel=2)", "AP(rel=2)@{k}", "RR(rel=3)", "RR(rel=2)@{k}",
    "RBP(p=1/3,rel=2)@{k}", "ERR", "ERR@{k}", "DCG", "DCG@{k}", "nDCG", "nDCG@{k}", "nDCG(dcg=exp-log2)@{k}",
)

DCG_NAMES = ("DCG", "DCG@2", "nDCG", "nDCG@3", "nDCG(dcg=exp-log2)@2")


def same(a, b) -> bool:
    """Exact equality: Fractions with ==; sympy values when their difference is 0 as a rational function.

    sfield reads the difference as an element of Q(log 2, log 3, ...), the
    logs as independent generators: 0 there means equal for every value of
    the logs, so certainly for theirs.  (The discounts write log_2(j + 1)
    over minimal bases, so no log(4) sits beside a log(2).)  Much faster
    than sympy.cancel on the expression.
    """
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    if a == b:
        return True
    difference = sympy.sympify(a) - sympy.sympify(b)
    if difference.is_Rational:
        return difference == 0
    _, element = sfield(difference)
    return element == 0


def consistent(order, ranking) -> bool:
    """*order* is a tie-breaking of *ranking*: each group's labels, in the group's ranks, groups in order."""
    gs = groups(ranking)
    if len(order) != sum(len(g) for g in gs):
        return False
    start = 0
    for g in gs:
        if sorted(order[start : start + len(g)]) != sorted(g):  # the same multiset
            return False
        start += len(g)
    return True


def check_orderings(name, r, ideal=None, layers=(fast, reference)):
    """Each layer's orderings are tie-breakings of *r* attaining reference.worst and reference.best.

    The reference's extremes are read off one enumeration, reference.distribution
    (its smallest and largest value: what reference.worst and reference.best
    return, see test_extremes_are_the_distribution_ends), to keep the
    exhaustive loops affordable.
    """
    values = list(reference.distribution(name, r, ideal))
    targets = {"worst": min(values), "best": max(values)}
    for what, target in targets.items():
        for layer in layers:
            order = getattr(layer, f"{what}_ordering")(name, r, ideal)
            assert isinstance(order, list) and all(type(x) is Fraction for x in order), (layer, order)
            assert consistent(order, r), (layer.__name__, what, name, r, order)
            value = compute(name, order, ideal=ideal, layer="reference")
            assert same(value, target), (layer.__name__, what, name, r, ideal, order, value, target)


def _names(templates, n, past_the_end=True):
    """Every measure of *templates* at every cutoff 1..n (and n + 1), parsed once."""
    for template in templates:
        for k in range(1, n + 1 + past_the_end) if "{k}" in template else (None,):
            yield parse(template.format(k=k))


def _layers(n, largest):
    """Both layers' orderings; at the largest size fast's only (the reference's is its own minimum, by construction)."""
    return (fast,) if n == largest else (fast, reference)


@pytest.mark.parametrize("n", range(0, 6))
def test_orderings_binary(n):
    for r in all_tied_rankings(n, (0, 1)):
        for name in _names(BINARY, n):
            check_orderings(name, r, layers=_layers(n, 5))
        check_orderings("R@2", r, ideal=[1] * (n + 1))
        check_orderings("AP", r, ideal=[1] * (n + 1))


@pytest.mark.parametrize("n", range(1, 5))
def test_orderings_graded(n):
    rational = [t for t in GRADED if "DCG" not in t]
    for r in all_tied_rankings(n, (0, 1, 2, 3)):
        flat = [x for g in groups(r) for x in g]
        for name in _names(rational, n, past_the_end=n < 4):  # k = n + 1: up to 3 documents (and binary, 5)
            check_orderings(name, r, layers=_layers(n, 4))
        # An ideal with one more document, of the top grade: ERR's g_max and num_rel move.
        for name in ("ERR", "AP(rel=2)", "R(rel=3)@2"):
            check_orderings(name, r, ideal=flat + [3], layers=_layers(n, 4))


@pytest.mark.parametrize("n", range(1, 5))
def test_orderings_dcg(n):
    """DCG and nDCG (exact sums of logs, compared by sympy): every cutoff, grades 0-3, up to 3 documents;
    at 4, grades 0-2 and the measures of DCG_NAMES.

    Grades 0-3 at 4 documents are 1,031 rankings; with every cutoff of the
    three DCG measures that is over a minute of exact sympy comparisons (the
    reference orders sums of logs), past this file's budget.
    """
    names = list(_names([t for t in GRADED if "DCG" in t], n)) if n <= 3 else [parse(x) for x in DCG_NAMES]
    for r in all_tied_rankings(n, (0, 1, 2, 3) if n <= 3 else (0, 1, 2)):
        for name in names:
            check_orderings(name, r, layers=_layers(n, 4))
        flat = [x for g in groups(r) for x in g]
        check_orderings("nDCG@2", r, ideal=flat + [3], layers=_layers(n, 4))  # a better ideal than the ranking's own


@pytest.mark.parametrize("n", range(1, 4))
def test_extremes_are_the_distribution_ends(n):
    """reference.worst/best are the ends of reference.distribution, and both layers' orderings attain
    reference.worst/best themselves (not only through the distribution)."""
    for r in all_tied_rankings(n, (0, 1, 2, 3)):
        for name in [*_names(GRADED[:10], n), parse("nDCG@2")]:
            values = list(reference.distribution(name, r))
            lo, hi = reference.worst(name, r), reference.best(name, r)
            assert same(lo, min(values)) and same(hi, max(values)), (name, r)
            for layer in (fast, reference):
                assert same(compute(name, layer.worst_ordering(name, r), layer="reference"), lo)
                assert same(compute(name, layer.best_ordering(name, r), layer="reference"), hi)


def test_err_graded_orderings_are_the_sorted_groups():
    """ERR: the extremes are the groups sorted by grade, and no other ordering beats them."""
    for r in all_tied_rankings(4, (0, 1, 2, 3)):
        gs = groups(r)
        for name in ("ERR", "ERR@2"):
            assert fast.worst_ordering(name, r) == [x for g in gs for x in sorted(g)]
            assert fast.best_ordering(name, r) == [x for g in gs for x in sorted(g, reverse=True)]
            assert compute(name, fast.worst_ordering(name, r), layer="fast") == fast.worst(name, r)
            assert compute(name, fast.best_ordering(name, r), layer="fast") == fast.best(name, r)


def test_by_hand():
    # AP of (1 0) 1: 1 0 1 gives (1 + 2/3)/2 = 5/6, 0 1 1 gives (1/2 + 2/3)/2 = 7/12.
    for layer in (fast, reference):
        assert layer.worst_ordering("AP", [[1, 0], 1]) == [0, 1, 1]
        assert layer.best_ordering("AP", [[1, 0], 1]) == [1, 0, 1]
        assert layer.worst_ordering("P@1", [2, [0, 1]]) == [2, 0, 1]   # a singleton never moves
        assert layer.best_ordering("AP", []) == []
    # nDCG@2 of 3 (0 2 1): ranks 3 and 4 are past the cutoff, so 1 and 0 may come in either order.
    assert fast.best_ordering("nDCG@2", [3, [0, 2, 1]]) == [3, 2, 1, 0]
    assert reference.best_ordering("nDCG@2", [3, [0, 2, 1]]) == [3, 2, 0, 1]   # first in enumeration order


@pytest.mark.parametrize("layer", [fast, reference])
def test_rbo_points_to_the_pair_orderings(layer):
    for what in ("worst", "best"):
        with pytest.raises(TieawareError, match=f"rbo_{what}_orderings"):
            getattr(layer, f"{what}_ordering")("RBO(p=0.5)", (["a"], ["a"]))


@pytest.mark.parametrize("layer", [fast, reference])
def test_bad_input(layer):
    with pytest.raises(TieawareError, match="ranking"):
        layer.worst_ordering("AP", [[1, "x"]])
    with pytest.raises(TieawareError, match=r"ideal\[1\]"):
        layer.best_ordering("AP", [[1, 0]], ideal=[1, "x"])
    with pytest.raises(TieawareError, match="measure"):
        layer.best_ordering("nDGC", [[1, 0]])
    with pytest.raises(TieawareError, match="exp2"):
        layer.best_ordering("nDCG(dcg=exp-log2)", [[Fraction(1, 2), 0]])


@pytest.mark.parametrize(
    "name, r, ideal",
    [
        ("AP", [1, 1], [1]), ("R@2", [[1, 1]], [1]), ("F1@1", [[1, 1]], [0]), ("Rprec", [[1, 1]], [1]),
        ("nDCG", [[1, 2]], [1]), ("nDCG", [[3, 2]], [1, 1]), ("ERR", [[Fraction(1, 2), 0]], None), ("ERR", [[3, 0]], [1]),
        ("nDCG(dcg=exp-log2)", [[1, 0]], [Fraction(1, 2)]), ("DCG(dcg=exp-log2)", [[Fraction(1, 2), 0]], None),
        ("AP", [[1, 0]], ["x"]), ("AP", "abc", None), ("AP", [[]], None),
    ],
)
@pytest.mark.parametrize("layer", [fast, reference])
def test_orderings_refuse_what_worst_refuses(layer, name, r, ideal):
    with pytest.raises(TieawareError) as expected:
        layer.worst(name, r, ideal)
    for what in ("worst_ordering", "best_ordering"):
        with pytest.raises(TieawareError) as info:
            getattr(layer, what)(name, r, ideal)
        # The same complaint about the same argument (the value may be shown as given or as Fractions).
        assert str(info.value).split(", got ")[0] == str(expected.value).split(", got ")[0]


def test_bpref_orderings_in_both_layers():
    # (1 0): bpref 1 with 1 first, 0 with 0 first; an unjudged member goes anywhere
    for layer in (fast, reference):
        assert layer.worst_ordering("Bpref", [[1, 0]]) == [0, 1]
        assert layer.best_ordering("Bpref", [[1, 0]]) == [1, 0]
    assert fast.worst_ordering("Bpref", [[None, 1, 0]]) == [None, 0, 1]


# --- exact DCG/nDCG worst, best, variance: fast == reference up to 4 documents ---------------

@pytest.mark.parametrize("n", range(1, 5))
def test_dcg_exact_upto_4(n):
    """Grades 0-3 up to 3 documents; at 4, grades 0-2 and two of the five measures (sympy's exact
    variances of 24 orderings are slow: the full set at 4 takes minutes)."""
    grades = (0, 1, 2, 3) if n <= 3 else (0, 1, 2)
    for r in all_tied_rankings(n, grades):
        if all(len(g) == 1 for g in groups(r)):
            continue  # no ties: one ordering, nothing moves (test_orderings_dcg covers the value)
        for name in DCG_NAMES if n <= 3 else ("DCG", "nDCG@3"):
            for what in ("worst", "best", "variance"):
                f = getattr(fast, what)(name, r)
                ref = getattr(reference, what)(name, r)
                assert same(f, ref), (what, name, r, f, ref)
