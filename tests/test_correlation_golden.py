"""Golden values for Kendall's τ and τ_AP with ties, from outside this project (docs/golden.md).

1. ircor's README (julian-urbano/ircor, README.md, "Usage"): Urbano &
   Marrero's R package, printed to 7 digits.
2. ircor's manual pages (man/tau.Rd, man/tauAP.Rd, "Examples"), with the
   outputs CRAN's build printed (rdrr.io/cran/ircor/man/tau.html and
   tauAP.html, "Example output"), 7 significant digits.
3. ircor's own tests (tests/testthat/test_tau.R, test_tauAP.R, data in
   helper_data.R), to 4 decimals (their tolerance 5e-5); and pyircor's
   README (eldrin/pyircor, README.rst, "Usage"), the same example as
   ircor's README printed to 16 digits.
4. scipy.stats.kendalltau (its default, τ_b) on untied input, where
   τ_a = τ_b = τ, and on tied input (τ_b).
5. Yilmaz et al.'s τ_AP (SIGIR 2008, Eq. 4) written out here from the
   paper, on untied input.

Inputs are score vectors: higher is better, equal values tie
(:func:`tieaware.model.corr_input.ranking_from_scores`), as ircor's default
``decreasing = TRUE``.  Where ircor rounds in R, the rounded vectors are
written out below.
"""

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given

from tieaware.model.corr_input import ranking_from_scores
from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float
from tieaware.fast import correlation as fast
from tieaware.reference import correlation as reference
from tieaware.strategies import untied_corr_pairs

LAYERS = pytest.mark.parametrize("layer", [fast, reference], ids=["fast", "reference"])


def r(values):
    return ranking_from_scores(values)


# --- 1. ircor's README ----------------------------------------------------------------

README_X = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
README_Y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]
# y <- round(y*5)/5 and x <- round(x*5)/5 in R (round half to even: 0.9*5 = 4.5 gives 4, so 0.8).
README_Y_TIED = [0.4, 0.0, 0.2, 0.2, 0.6, 0.6, 0.6, 1.0, 0.8, 1.0]
README_X_TIED = [0.0, 0.2, 0.2, 0.4, 0.6, 0.6, 0.6, 0.8, 1.0, 1.0]


def test_readme_rounding_is_rs():
    # Python's round() is R's here: both round the double half to even.
    assert [round(v * 5) / 5 for v in README_Y] == README_Y_TIED
    assert [round(v * 5) / 5 for v in README_X] == README_X_TIED


@LAYERS
def test_ircor_readme(layer):
    x, y = r(README_X), r(README_Y)
    assert to_float(layer.kendall_tau(x, y, "a")) == pytest.approx(0.7777778, abs=5e-8)  # tau(x, y)
    assert to_float(layer.tau_ap(x, y, "a")) == pytest.approx(0.7491182, abs=5e-8)  # tauAP(x, y)
    y = r(README_Y_TIED)
    assert to_float(layer.kendall_tau(x, y, "a")) == pytest.approx(0.7111111, abs=5e-8)  # tau_a(x, y)
    assert to_float(layer.tau_ap(x, y, "a")) == pytest.approx(0.6074515, abs=5e-8)  # tauAP_a(x, y)
    x = r(README_X_TIED)
    assert to_float(layer.kendall_tau(x, y, "b")) == pytest.approx(0.75, abs=5e-8)  # tau_b(x, y)
    assert to_float(layer.tau_ap(x, y, "b")) == pytest.approx(0.6269841, abs=5e-8)  # tauAP_b(x, y)


# pyircor's README: the same inputs (np.round is half to even too), its printed doubles.
PYIRCOR = {
    ("tau", "a", False, False): 0.7777777777777778,
    ("tauap", "a", False, False): 0.7491181657848325,
    ("tau", "a", False, True): 0.7111111111111111,
    ("tauap", "a", False, True): 0.6074514991181656,
    ("tau", "b", True, True): 0.75,
    ("tauap", "b", True, True): 0.626984126984127,
}


@pytest.mark.parametrize("key", list(PYIRCOR), ids=lambda k: "-".join(map(str, k)))
def test_pyircor_readme(key):
    coefficient, variant, x_tied, y_tied = key
    x = r(README_X_TIED if x_tied else README_X)
    y = r(README_Y_TIED if y_tied else README_Y)
    function = fast.kendall_tau if coefficient == "tau" else fast.tau_ap
    assert to_float(function(x, y, variant)) == pytest.approx(PYIRCOR[key], abs=1e-15)


def test_ircor_readme_exact_values():
    # The same numbers, exact: τ = 7/9 (35 of 45 pairs concordant); τ_b = 3/4 is rational here.
    x, y = r(README_X), r(README_Y)
    assert fast.kendall_tau(x, y, "a") == Fraction(7, 9)
    assert fast.kendall_tau(r(README_X_TIED), r(README_Y_TIED), "b") == Fraction(3, 4)


# --- 2. ircor's manual pages ----------------------------------------------------------

MAN_X = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
MAN_Y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
MAN_Y_TIED = [0.5, 0.7, 0.3, 0.1, 0.1, 0.6, 0.9, 0.2, 0.4, 0.8]  # round(y, 1): no value sits on a half
# round(x, 1) as the R that built the pages rounded it: 0.45 to 0.4 and 0.75 to 0.8 (0.45*10
# and 0.75*10 are 4.5 and 7.5, rounded half to even).  R >= 4.0 gives 0.5 for 0.45, and that
# x gives τ_b = 0.2299, not the printed 0.25: the pages were built from this x.
MAN_X_TIED = [0.7, 0.4, 0.3, 0.1, 0.6, 0.2, 0.9, 0.8, 0.1, 0.5]


@LAYERS
def test_ircor_man_tau(layer):
    x, y = r(MAN_X), r(MAN_Y)
    for variant in ("a", "b"):  # tau(x, y), tau_a(x,y), tau_b(x,y): 0.2
        assert to_float(layer.kendall_tau(x, y, variant)) == pytest.approx(0.2, abs=5e-8)
    y = r(MAN_Y_TIED)
    assert to_float(layer.kendall_tau(x, y, "a")) == pytest.approx(0.2222222, abs=5e-8)
    assert to_float(layer.kendall_tau(x, y, "b")) == pytest.approx(0.2247333, abs=5e-8)
    assert to_float(layer.kendall_tau(r(MAN_X_TIED), y, "b")) == pytest.approx(0.25, abs=5e-8)


@LAYERS
def test_ircor_man_tau_ap(layer):
    x, y = r(MAN_X), r(MAN_Y)
    assert to_float(layer.tau_ap(x, y, "a")) == pytest.approx(0.3928571, abs=5e-8)  # tauAP, tauAP_a
    y = r(MAN_Y_TIED)
    assert to_float(layer.tau_ap(x, y, "a")) == pytest.approx(0.39903, abs=5e-7)  # printed 0.39903
    assert to_float(layer.tau_ap(x, y, "b")) == pytest.approx(0.3317019, abs=5e-8)
    assert to_float(layer.tau_ap(r(MAN_X_TIED), y, "b")) == pytest.approx(0.339418, abs=5e-7)
    # "Set decreasing to FALSE when x and y already represent ranks": the same value.
    ranks = lambda v: ranking_from_scores([-s for s in v], decreasing=False)  # noqa: E731
    assert layer.tau_ap(ranks(MAN_X_TIED), ranks(MAN_Y_TIED), "b") == layer.tau_ap(r(MAN_X_TIED), y, "b")


# --- 3. ircor's tests ---------------------------------------------------------------------

SETS = {  # helper_data.R
    "set1": (
        [0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
        [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
        [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
        [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
    ),
    "set2": (
        [0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
        [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
        [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
        [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
    ),
    "set3": (
        [0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
        [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
        [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
        [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
    ),
}
# name: (tau, tau_a(x, y.ties), tau_b(x.ties, y.ties), tauAP, tauAP_a(x, y.ties), tauAP_b(x, y), tauAP_b(x.ties, y.ties))
EXPECTED = {
    "set1": (0.9111, 0.8889, 0.9398, 0.8519, 0.7454, 0.8333, 0.7321),
    "set2": (0.2889, 0.3333, 0.3765, 0.2504, 0.2692, 0.2880, 0.297),
    "set3": (-0.6889, -0.6222, -0.6510, -0.6971, -0.5558, -0.668, -0.7047),
}


@LAYERS
@pytest.mark.parametrize("name", sorted(SETS))
def test_ircor_tests(layer, name):
    x, y, x_ties, y_ties = (r(v) for v in SETS[name])
    tau, tau_a, tau_b, tau_ap, tau_ap_a, tau_ap_b, tau_ap_b_ties = EXPECTED[name]
    close = lambda value, want: to_float(value) == pytest.approx(want, abs=5e-5)  # noqa: E731
    for variant in ("a", "b"):
        assert close(layer.kendall_tau(x, y, variant), tau) and close(layer.kendall_tau(y, x, variant), tau)
    assert close(layer.kendall_tau(x, y_ties, "a"), tau_a)
    assert close(layer.kendall_tau(x_ties, y_ties, "b"), tau_b) and close(layer.kendall_tau(y_ties, x_ties, "b"), tau_b)
    assert close(layer.tau_ap(x, y, "a"), tau_ap)
    assert close(layer.tau_ap(x, y_ties, "a"), tau_ap_a)
    assert close(layer.tau_ap(x, y, "b"), tau_ap_b)
    assert close(layer.tau_ap(x_ties, y_ties, "b"), tau_ap_b_ties) and close(layer.tau_ap(y_ties, x_ties, "b"), tau_ap_b_ties)


# --- 4. scipy -------------------------------------------------------------------------------


def _scores(x, y):
    """Score vectors (higher is better) for scipy from two rankings: the negated group index."""
    index = {}
    for ranking, key in ((x, 0), (y, 1)):
        for i, group in enumerate(ranking):
            for e in group if isinstance(group, (list, tuple, set, frozenset)) else (group,):
                index.setdefault(e, [0, 0])[key] = -i
    items = sorted(index, key=str)
    return [index[e][0] for e in items], [index[e][1] for e in items]


@pytest.mark.peers
@given(untied_corr_pairs(max_items=30))
def test_scipy_on_untied_input(pair):
    stats = pytest.importorskip("scipy.stats")
    x, y = pair
    want = stats.kendalltau(*_scores(x, y)).statistic
    for variant in ("a", "b"):
        assert to_float(fast.kendall_tau(x, y, variant)) == pytest.approx(want, abs=1e-12)
    assert to_float(fast.kendall_tau_expected(x, y)) == pytest.approx(want, abs=1e-12)
    low, high, _, _ = fast.kendall_tau_range(x, y)
    assert low == high == fast.kendall_tau(x, y, "a")


@pytest.mark.peers
def test_scipy_tau_b_on_tied_input():
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(2017)
    for _ in range(200):
        n = rng.randint(2, 40)
        xs, ys = [rng.randint(0, 5) for _ in range(n)], [rng.randint(0, 5) for _ in range(n)]
        if len(set(xs)) == 1 or len(set(ys)) == 1:
            continue  # τ_b is 0/0: scipy gives nan, tieaware refuses
        want = stats.kendalltau(xs, ys).statistic
        assert to_float(fast.kendall_tau(r(xs), r(ys), "b")) == pytest.approx(want, abs=1e-12)
        assert fast.kendall_tau(r(xs), r(ys), "b", exact=False) == pytest.approx(want, abs=1e-12)


# --- 5. Yilmaz et al.'s τ_AP ------------------------------------------------------------------


def yilmaz_tau_ap(true_order, estimated_order):
    """τ_AP = 2/(N−1)·Σ_{i=2..N} C(i)/(i−1) − 1, C(i) the items above rank i in the estimated list
    ranked correctly with respect to the item at rank i (Yilmaz, Aslam & Robertson 2008, Eq. 4)."""
    position = {e: k for k, e in enumerate(true_order)}
    n = len(estimated_order)
    total = Fraction(0)
    for i in range(2, n + 1):
        current = estimated_order[i - 1]
        correct = sum(1 for above in estimated_order[: i - 1] if position[above] < position[current])
        total += Fraction(correct, i - 1)
    return 2 * total / (n - 1) - 1


@given(untied_corr_pairs(max_items=30))
def test_tau_ap_is_yilmaz_on_untied_input(pair):
    x, y = pair
    want = yilmaz_tau_ap(x, y)
    assert fast.tau_ap(x, y, "a") == fast.tau_ap_expected(x, y) == want
    assert fast.tau_ap(x, y, "b") == (want + yilmaz_tau_ap(y, x)) / 2
    assert fast.tau_ap_range(x, y)[:2] == (want, want)
    assert fast.tau_ap_variance(x, y) == fast.kendall_tau_variance(x, y) == 0


def test_tau_ap_examples_from_the_definition():
    # Reversed lists: τ_AP = −1; one swap at the top costs more than one at the bottom.
    assert fast.tau_ap(list("abcde"), list("edcba"), "a") == -1
    top, bottom = fast.tau_ap(list("abcde"), list("bacde"), "a"), fast.tau_ap(list("abcde"), list("abced"), "a")
    assert top < bottom and fast.kendall_tau(list("abcde"), list("bacde"), "a") == fast.kendall_tau(list("abcde"), list("abced"), "a")
    assert (top, bottom) == (yilmaz_tau_ap("abcde", "bacde"), yilmaz_tau_ap("abcde", "abced"))


# --- where the a-variant read literally is not the expectation ----------------------------------


def literal_tau_ap_a(true_ranking, estimated):
    """Urbano & Marrero's τ_AP,a formula applied to a *tied* true ranking, read literally:
    an item above counts when sign(x) == sign(y), so a pair x ties counts as discordant.

    Per group of the estimated ranking at ranks p..p+g−1: each item scores its concordant items
    in earlier groups times the mean of 1/(k−1) over the group's ranks, and the group adds
    Σ_{s=1..g−1} (s/2)/(p+s−1) for the pairs inside it.
    """
    groups = lambda ranking: [g if isinstance(g, tuple) else (g,) for g in ranking]  # noqa: E731
    x_group = {e: i for i, g in enumerate(groups(true_ranking)) for e in g}
    total, above, p = Fraction(0), [], 1
    for g in groups(estimated):
        mean_weight = sum((Fraction(1, p + s - 1) for s in range(len(g)) if p + s > 1), Fraction(0)) / len(g)
        for e in g:
            total += sum(1 for a in above if x_group[a] < x_group[e]) * mean_weight
        total += sum((Fraction(s, 2 * (p + s - 1)) for s in range(1, len(g))), Fraction(0))
        above += g
        p += len(g)
    return 2 * total / (len(x_group) - 1) - 1


def test_literal_a_formula_on_a_tied_x_is_not_the_expectation():
    # docs/correlation.md: x = (a b), y = a b.  Over x's tie-breakings τ_AP is 1 or −1, mean 0;
    # the formula read literally counts the pair x ties as discordant: −1.
    x, y = [("a", "b")], ["a", "b"]
    assert literal_tau_ap_a(x, y) == -1
    assert fast.tau_ap_expected(x, y) == reference.tau_ap_expected(x, y) == 0
    with pytest.raises(TieawareError, match="untied"):
        fast.tau_ap(x, y, "a")
    # With x untied the formula is the expectation (test_correlation_differential checks every pair).
    for y in (["a", ("b", "c")], [("a", "b", "c")], [("c", "a"), "b"]):
        assert literal_tau_ap_a(["a", "b", "c"], y) == fast.tau_ap(["a", "b", "c"], y, "a")


def test_tau_a_is_the_expectation_even_with_ties_in_both():
    for x, y in itertools.product([[("a", "b"), "c"], ["a", ("b", "c")], [("a", "b", "c")]], repeat=2):
        assert fast.kendall_tau(x, y, "a") == reference.kendall_tau_expected(x, y)
