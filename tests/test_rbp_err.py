"""RBP and ERR: fast == reference exactly, golden values, float mode and bad input.

Exhaustive like tests/test_differential.py: every tied ranking of up to 6
binary documents and up to 5 documents over {0, 1, 2}, every cutoff 1..n+2
and None; then hypothesis up to 10 documents; then tieaware.check.formula,
which compares the closed forms with its own enumeration.
"""

from __future__ import annotations

import importlib
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware import TieawareError
from tieaware.check.formula import formula
from tieaware.fast.err import err as fast_err
from tieaware.fast.rbp import rbp as fast_rbp
from tieaware.fast.rbp import rbp_residual as fast_residual
from tieaware.reference.err import err as ref_err
from tieaware.reference.err import err_of
from tieaware.reference.orderings import ordering_limit
from tieaware.reference.rbp import rbp as ref_rbp
from tieaware.reference.rbp import rbp_of
from tieaware.reference.rbp import rbp_residual as ref_residual
from tieaware.strategies import rankings_with_cutoff
from tieaware.model.structures import all_tied_rankings

# By module path: once tieaware.fast exports the function err, the attribute fast.err is the function.
fast_err_module = importlib.import_module("tieaware.fast.err")

PS = ("0.5", "0.85", Fraction(19, 20))


def _size(r) -> int:
    return sum(len(x) if isinstance(x, list) else 1 for x in r)


def _mismatches(r, ps, rels):
    n = _size(r)
    bad = []
    for k in [None, *range(1, n + 2)]:  # n + 1: a cutoff past the end
        for p in ps:
            for rel in rels:
                want, got = ref_rbp(r, p, k, rel=rel), fast_rbp(r, p, k, rel=rel)
                if not (type(want) is type(got) is Fraction and want == got):
                    bad.append(("rbp", r, p, k, rel, want, got))
        # g_max from the ranking at every cutoff; a larger g_max on the whole ranking.
        for max_label in (None,) if k is not None else (None, 3):
            want, got = ref_err(r, k, max_label=max_label), fast_err(r, k, max_label=max_label)
            if not (type(want) is type(got) is Fraction and want == got):
                bad.append(("err", r, k, max_label, want, got))
    return bad


@pytest.mark.parametrize("n", range(0, 7))
def test_exhaustive_binary(n):
    cases = list(all_tied_rankings(n, (0, 1)))
    # Binary multisets per group: a group of size s has s + 1; pin that no case is skipped.
    assert n > 0 or cases == [[]]
    for r in cases:
        bad = _mismatches(r, ("0.5", Fraction(19, 20)), (1,))
        assert not bad, bad[:3]


@pytest.mark.parametrize("n", range(0, 6))
def test_exhaustive_graded(n):
    for r in all_tied_rankings(n, (0, 1, 2)):
        bad = _mismatches(r, ("0.85",), (1, 2))
        assert not bad, bad[:3]


labels012 = st.integers(min_value=0, max_value=2)


@given(rankings_with_cutoff(max_size=10, label_strategy=labels012), st.sampled_from(PS), st.sampled_from([1, 2]))
def test_hypothesis(case, p, rel):
    r, k = case
    with ordering_limit(10**5):
        for kk in (k, None):
            assert fast_rbp(r, p, kk, rel=rel) == ref_rbp(r, p, kk, rel=rel)
            assert fast_err(r, kk) == ref_err(r, kk)
            assert fast_err(r, kk, max_label=4) == ref_err(r, kk, max_label=4)


def test_check_formula_confirms_both_closed_forms():
    # tieaware.check.formula enumerates on its own, independently of reference/.
    half = Fraction(1, 2)
    rbp_result = formula(lambda o: rbp_of(o, half, len(o), Fraction(1)), lambda gs: fast_rbp([list(g) for g in gs], half), max_size=5, max_examples=30)
    assert rbp_result.ok, str(rbp_result)
    # g_max: 2, or the largest grade when the checker tries larger ones (same rule on both sides).
    def g_max(labels):
        return int(max([2, *labels]))

    err_result = formula(
        lambda o: err_of(o, len(o), g_max(o)),
        lambda gs: fast_err([list(g) for g in gs], max_label=g_max([x for g in gs for x in g])),
        max_size=5,
        max_examples=30,
    )
    assert err_result.ok, str(err_result)


def test_check_formula_catches_a_wrong_err():
    # The naive "ERR of the mean stop probability" is not the expectation: the checker must say so.
    def naive(gs):
        mean = [[Fraction(sum(2 ** int(x) - 1 for x in g), len(g))] * len(g) for g in gs]
        total, survive, i = Fraction(0), Fraction(1), 0
        for g in mean:
            for s in g:
                i += 1
                total += survive * s / 4 / i
                survive *= 1 - s / 4
        return total

    result = formula(lambda o: err_of(o, len(o), 2), naive, max_size=4, max_examples=10)
    assert not result.ok


# -- golden values, computed by hand from the definitions ------------------------


def test_rbp_golden_untied():
    # Moffat & Zobel: RBP = (1-p)·Σ rel_i p^(i-1).  1 0 1 at p = 1/2: (1/2)(1 + 1/4) = 5/8.
    assert fast_rbp([1, 0, 1], "0.5") == Fraction(5, 8)
    # All ten relevant at p = 0.5: 1 - 2^-10 (the residual is the rest).
    assert fast_rbp([1] * 10, "0.5") == 1 - Fraction(1, 1024)
    assert fast_rbp([1] * 10, "0.5") + fast_residual([1] * 10, "0.5") == 1


def test_rbp_tied_is_mean_of_orderings():
    # [1, 0] tied at p = 0.8: orderings 1 0 (0.2) and 0 1 (0.2·0.8 = 0.16): mean 0.18.
    assert fast_rbp([[1, 0]], "0.8") == Fraction(9, 50)
    assert fast_rbp([[1, 0]], "0.8", exact=False) == pytest.approx(0.18)


def test_rbp_residual():
    assert fast_residual([1, 0], "0.5") == ref_residual([1, 0], "0.5") == Fraction(1, 4)
    assert fast_residual([1, 0], "0.5", k=3) == Fraction(1, 8)
    assert fast_residual([[1, 0], 0], "0.5", exact=False) == 0.125
    # Exact by default, like rbp: Moffat & Zobel's residual p**d at p = 0.85, d = 2 is 289/400, a Fraction
    # (0.85**2 in doubles is 0.7224999999999999); a default of exact=False survived a mutation run.
    for f in (fast_residual, ref_residual):
        got = f([1, 0], "0.85")
        assert type(got) is Fraction and got == Fraction(289, 400)


def test_err_golden_chapelle():
    # Chapelle et al. (2009): R(g) = (2^g - 1)/2^gmax.  Grades 2, 1 with gmax = 2:
    # R = 3/4, 1/4; ERR = 3/4 + (1/4)(1/4)/2 = 25/32.
    assert fast_err([2, 1], max_label=2) == Fraction(25, 32)
    # Binary with gmax = 1: 1 1 gives 1/2 + (1/2)(1/2)/2 = 5/8, not RR's 1.
    assert fast_err([1, 1]) == Fraction(5, 8)


def test_err_tied_is_mean_of_orderings():
    # [2, 1] tied, gmax 2: mean of 25/32 (2 1) and 1/4 + (3/4)(3/4)/2 = 17/32 (1 2) = 21/32.
    assert fast_err([[2, 1]], max_label=2) == Fraction(21, 32)
    assert fast_err([[2, 1]], max_label=2, exact=False) == pytest.approx(21 / 32)


def test_subset_means_are_the_means_over_subsets():
    # {1/2, 1/3}: the 1-subsets' mean (1/2 + 1/3)/2 = 5/12, the one 2-subset's 1/6 (e_m/C(2, m) of 1 + (5/6)z + (1/6)z²).
    assert fast_err_module.subset_means([Fraction(1, 2), Fraction(1, 3)], 2) == [1, Fraction(5, 12), Fraction(1, 6)]
    # against the definition, every subset listed: keeps with repeats, plain members (keep 1), past the set's size (0)
    import itertools
    import math

    keeps = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 2), Fraction(3, 4)]
    for plain in range(3):
        members = [Fraction(1)] * plain + keeps
        means = fast_err_module.subset_means(keeps, len(members) + 1, plain)
        for m, got in enumerate(means):
            subsets = list(itertools.combinations(members, m))
            assert got == (sum(math.prod(c, start=Fraction(1)) for c in subsets) / len(subsets) if subsets else 0), (plain, m)


@given(rankings_with_cutoff(max_size=10, label_strategy=labels012))
def test_float_mode_close(case):
    r, k = case
    assert fast_err(r, k, exact=False) == pytest.approx(float(fast_err(r, k)), rel=1e-12, abs=1e-15)
    assert fast_rbp(r, "0.85", k, exact=False) == pytest.approx(float(fast_rbp(r, "0.85", k)), rel=1e-12, abs=1e-15)


# -- bad input -----------------------------------------------------------------------

RBPS = [pytest.param(ref_rbp, id="reference"), pytest.param(fast_rbp, id="fast")]
ERRS = [pytest.param(ref_err, id="reference"), pytest.param(fast_err, id="fast")]
RESIDUALS = [pytest.param(ref_residual, id="reference"), pytest.param(fast_residual, id="fast")]


def _raises(argument, value, call):
    with pytest.raises(TieawareError) as info:
        call()
    assert argument in str(info.value) and repr(value) in str(info.value), str(info.value)


@pytest.mark.parametrize("f", RBPS)
@pytest.mark.parametrize("p", [0, 1, "1.5", -0.1])
def test_rbp_bad_p(f, p):
    _raises("p", p, lambda: f([1, 0], p))


@pytest.mark.parametrize("f", RBPS + RESIDUALS)
def test_rbp_bad_k_and_ranking(f):
    _raises("k", 0, lambda: f([1, 0], "0.5", 0))
    _raises("ranking[0]", [], lambda: f([[]], "0.5"))
    _raises("ranking[1]", "x", lambda: f([1, "x"], "0.5"))
    _raises("exact", "no", lambda: f([1], "0.5", exact="no"))


@pytest.mark.parametrize("f", RBPS)
def test_rbp_bad_rel(f):
    _raises("rel", 0, lambda: f([1, 0], "0.5", rel=0))


@pytest.mark.parametrize("f", ERRS)
def test_err_bad_input(f):
    _raises("max_label", 1, lambda: f([2, 0], max_label=1))
    _raises("max_label", 0, lambda: f([0], max_label=0))
    _raises("max_label", True, lambda: f([0], max_label=True))
    _raises("ranking", ["1/2", "0"], lambda: f(["0.5", 0]))
    _raises("k", 0, lambda: f([1], 0))
    _raises("exact", 1, lambda: f([1], exact=1))


# -- the sympy proofs (proofs/rbp.py, proofs/err.py) ------------------------------------------


def test_proofs_hold_with_the_real_kernels():
    from tieaware.proofs.err import ERR_GROUP
    from tieaware.proofs.rbp import RBP_GROUP

    for theorem in (RBP_GROUP, ERR_GROUP):
        result = theorem()
        assert result.proved, result.detail
        assert result.detail and "=" in result.latex


def test_proofs_reject_wrong_kernels():
    from tieaware.proofs.err import ERR_GROUP
    from tieaware.proofs.rbp import RBP_GROUP

    wrong_rbp = [
        lambda p, t, e, r, n: r / n * (p**t - p ** (e + 1)),  # one rank too many
        lambda p, t, e, r, n: r / n * (1 - p) * (p**t - p**e),  # (1 - p) counted twice
    ]
    for group in wrong_rbp:
        assert not RBP_GROUP(group=group).proved
    wrong_err = [
        # ERR of the group's mean stop probability: the tempting shortcut, not the expectation.
        lambda t, stops, slots, number: fast_err_module.err_group(t, [sum(stops) / len(stops)] * len(stops), slots, number),
        # The group's first slot at rank t instead of t + 1.
        lambda t, stops, slots, number: fast_err_module.err_group(t - 1, stops, slots, number),
    ]
    for group in wrong_err:
        assert not ERR_GROUP(group=group).proved


@pytest.mark.parametrize("p", ["0.9999", "0.999999999"])
@pytest.mark.parametrize("r", [[1, 0], [[1, 0], 1, [0, 1, 1]], [[1, 0, 1], [0, 1]], [0, [1, 1, 0], 1]])
def test_float_rbp_near_p_one(r, p):
    # Float RBP near p = 1 equals the exact value (fast's exact mode, which the reference checks
    # above) to 1e-15 relative: the group weight p**t - p**end is one power gap, 1 - p taken
    # from the exact p before rounding, so nothing cancels (docs/proofs.md, "Float mode near p = 1").
    exact = float(fast_rbp(r, p))
    assert fast_rbp(r, p, exact=False) == pytest.approx(exact, rel=1e-15, abs=0)
    assert fast_rbp(r, p, 2, exact=False) == pytest.approx(float(fast_rbp(r, p, 2)), rel=1e-15, abs=0)
