"""The uncertainty API on random rankings: fast == reference exactly, and the properties of a spread.

Rankings come from the public strategy :func:`tieaware.strategies.rankings_with_ideal`
(at most 7 documents and 120 tie-breakings, so the reference's enumeration
stays cheap), measures from P@k, R@k, F1@k, AP, AP@k, RR, RR@k, RBP, RBP@k,
ERR, ERR@k, Rprec, Success@k (and Judged@k, with unjudged documents), with
random cutoffs (past the end too), thresholds and RBP persistences.
DCG/nDCG (sympy values) are left to the exhaustive tests.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tieaware import fast, reference
from tieaware.runs.evaluate import compute
from tieaware.model.names import Measure, parse
from tieaware.model.ranking import groups
from tieaware.strategies import labels, rankings_with_ideal

RANKINGS = rankings_with_ideal(max_size=7, max_orderings=120)
NAMES = ["P", "R", "F1", "AP", "RR", "RBP", "ERR", "Rprec", "Success"]
#: Each test runs once per measure name, so each run gets a third of the profile's examples.
PER_NAME = settings(max_examples=max(settings.default.max_examples // 3, 10))


@st.composite
def measures(draw, name: str) -> Measure:
    """*name* as a parsed Measure with a random cutoff (optional where it may be), rel and p."""
    k = draw(st.integers(min_value=1, max_value=9))
    if name == "Rprec" or (name not in ("P", "R", "F1", "Success") and draw(st.booleans())):
        k = None
    params = []
    if name == "RBP":
        params.append("p=" + draw(st.sampled_from(["1/2", "4/5", "1/3", "0.9"])))
    if name != "ERR" and draw(st.booleans()):
        params.append("rel=2")
    return parse(name + (f"({','.join(params)})" if params else "") + (f"@{k}" if k is not None else ""))


@pytest.mark.parametrize("name", NAMES)
@PER_NAME
@given(data=st.data())
def test_fast_equals_reference(name, data):
    (r, ideal), m = data.draw(RANKINGS), data.draw(measures(name))
    for what in ("worst", "best", "variance", "distribution"):
        f = getattr(fast, what)(m, r, ideal)
        ref = getattr(reference, what)(m, r, ideal)
        assert f == ref, (what, str(m), r, ideal, f, ref)


@pytest.mark.parametrize("name", NAMES)
@PER_NAME
@given(data=st.data())
def test_orderings_attain_the_extremes(name, data):
    (r, ideal), m = data.draw(RANKINGS), data.draw(measures(name))
    gs = groups(r)
    for what in ("worst", "best"):
        target = getattr(fast, what)(m, r, ideal)
        for layer in (fast, reference):
            order = getattr(layer, f"{what}_ordering")(m, r, ideal)
            start = 0
            for g in gs:  # a tie-breaking of r: each group's labels in the group's ranks
                assert sorted(order[start : start + len(g)]) == sorted(g)
                start += len(g)
            assert start == len(order)
            assert compute(m, order, ideal=ideal, layer="fast") == target, (layer.__name__, what, str(m), r, ideal, order)


@pytest.mark.parametrize("name", NAMES)
@PER_NAME
@given(data=st.data())
def test_spread_properties(name, data):
    (r, ideal), m = data.draw(RANKINGS), data.draw(measures(name))
    lo, hi, var = fast.worst(m, r, ideal), fast.best(m, r, ideal), fast.variance(m, r, ideal)
    expected = compute(m, r, ideal=ideal, layer="fast")
    assert lo <= expected <= hi
    assert var >= 0
    assert (var == 0) == (lo == hi)
    pmf = fast.distribution(m, r, ideal)
    assert all(type(v) is Fraction and type(q) is Fraction and q > 0 for v, q in pmf.items())
    assert sum(pmf.values()) == 1
    assert sum(v * q for v, q in pmf.items()) == expected
    assert min(pmf) == lo and max(pmf) == hi
    assert sum(q * (v - expected) ** 2 for v, q in pmf.items()) == var


@PER_NAME
@given(rankings_with_ideal(max_size=7, max_orderings=120, label_strategy=st.none() | labels()), st.integers(1, 9) | st.none())
def test_judged_fast_equals_reference(pair, k):
    r, _ = pair  # an ideal of judged labels cannot hold None: Judged reads none
    name = "Judged" if k is None else f"Judged@{k}"
    for what in ("worst", "best", "variance", "distribution"):
        assert getattr(fast, what)(name, r) == getattr(reference, what)(name, r), (what, name, r)
    for what in ("worst", "best"):
        for layer in (fast, reference):
            order = getattr(layer, f"{what}_ordering")(name, r)
            assert compute(name, order, layer="fast") == getattr(fast, what)(name, r)


@PER_NAME
@given(rankings_with_ideal(max_size=7, max_orderings=120, label_strategy=st.none() | labels()), st.integers(0, 3), st.integers(0, 3))
def test_bpref_fast_equals_reference(pair, more_relevant, more_nonrelevant):
    r, _ = pair
    # the ideal: every judged label retrieved, plus judged documents the run missed
    ideal = [x for g in (r if isinstance(r, list) else []) for x in (g if isinstance(g, list) else [g]) if x is not None]
    ideal += [Fraction(1)] * more_relevant + [Fraction(0)] * more_nonrelevant
    for what in ("worst", "best", "variance", "distribution"):
        assert getattr(fast, what)("Bpref", r, ideal) == getattr(reference, what)("Bpref", r, ideal), (what, r, ideal)
    for what in ("worst", "best"):
        for layer in (fast, reference):
            order = getattr(layer, f"{what}_ordering")("Bpref", r, ideal)
            assert compute("Bpref", order, ideal=ideal, layer="fast") == getattr(fast, what)("Bpref", r, ideal)
