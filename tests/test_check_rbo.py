"""RBO implementations: impl(S, L) on tied rankings, checked against the reference RBO."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tieaware import TieawareError
from tieaware.check import adapters, implementation
from tieaware.check.rbo import rbo_cases
from tieaware.reference.rank_biased_overlap import rbo

BUDGET = dict(max_examples=20)


def flat(r):
    return [x for g in r for x in (g if isinstance(g, list) else [g])]


def bare_rbo_ext(S, L, p=Fraction(9, 10)):
    """Webber et al.'s extrapolated RBO of two untied lists (eq. 32), written from the paper, in floats."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    p = float(p)
    seen_s, seen_l, x, total, x_s = set(), set(), 0, 0.0, 0
    for d in range(1, l + 1):
        if d <= s:
            item_s = S[d - 1]
            x += (item_s in seen_l) + (L[d - 1] in seen_s) + (item_s == L[d - 1])
            seen_s.add(item_s)
        else:
            x += L[d - 1] in seen_s
        seen_l.add(L[d - 1])
        if d == s:
            x_s = x
        total += x / d * p**d
        if d > s:
            total += x_s * (d - s) / (s * d) * p**d
    return (1 - p) / p * total + ((x - x_s) / l + x_s / s) * p**l


def test_exhaustive_pairs_are_smallest_first():
    cases = rbo_cases(2)
    sizes = [len(flat(c.listed()[0])) + len(flat(c.listed()[1])) for c in cases]
    assert sizes == sorted(sizes) and sizes[0] == 2


def test_a_tie_oblivious_rbo_is_caught_as_input_order():
    result = implementation(adapters.rbo_untied(bare_rbo_ext), "RBO(p=0.9, variant=a, bound=ext)", **BUDGET)
    assert not result.ok
    cex = result.counterexample
    # S = [a], L = [(a b)]: the tie-breakings of L are [a, b] (RBO 1, Webber's eq. 32 with s=1, l=2)
    # and [b, a]; the reference averages them, the bare RBO sees only the listed order.
    assert (cex.S, cex.L) == (["a"], [["a", "b"]])
    # By hand, eq. 32 with s = 1, l = 2, p = 9/10: [a] vs [a, b] gives 1; [a] vs [b, a] gives
    # (1-p)/p · (1/2)p² + (1/2)p² = 0.045 + 0.405 = 0.45.  The mean is 29/40.
    assert cex.expected == Fraction(29, 40)
    assert cex.got == pytest.approx(1.0)
    assert result.diagnosis.cause == "input_order"


def test_the_bare_rbo_conforms_on_untied_rankings():
    """Without ties, Webber's formula is the reference: every untied pair agrees."""
    for case in rbo_cases(3):
        if case.has_ties():
            continue
        S, L = case.listed()
        assert bare_rbo_ext(S, L) == pytest.approx(float(rbo(S, L, "0.9", variant="a", bound="ext")), rel=1e-12)


def test_a_right_rbo_passes():
    def exact_reference(S, L):
        return rbo(S, L, "0.9", variant="w", bound="ext")

    assert implementation(exact_reference, "RBO(p=0.9, variant=w, bound=ext)", **BUDGET).ok


def test_another_bound_is_diagnosed():
    def min_instead_of_ext(S, L):
        return float(rbo(S, L, "0.9", variant="b", bound="min"))

    result = implementation(min_instead_of_ext, "RBO(p=0.9, variant=b, bound=ext)", **BUDGET)
    assert not result.ok
    assert result.diagnosis.cause == "another_variant"
    assert "variant b, bound min" in result.diagnosis.explanation


def test_rbo_needs_p():
    with pytest.raises(TieawareError, match=r"measure needs p, e\.g\. RBO\(p=0\.9\), got 'RBO'"):
        implementation(lambda S, L: 1.0, "RBO")


def test_bad_variant_is_named():
    # Checked when the measure name is parsed: the message names the measure and the value.
    with pytest.raises(TieawareError, match=r"measure has variant='z'; use one of \['w', 'a', 'b'\], got 'RBO\(p=0.9, variant=z\)'"):
        implementation(lambda S, L: 1.0, "RBO(p=0.9, variant=z)")
