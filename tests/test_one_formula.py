"""One formula in one place: a slip in a kernel breaks a theorem AND changes what ``tieaware eval`` prints.

The numbers users read come from the float engine (``eval --float``), the
exact whole-run path (``eval``) and fast's functions; all three call the
kernels of :mod:`tieaware.fast.kernels`, looked up there when they run, and
``tieaware prove`` proves those very kernels.  Each case below replaces one
kernel in that module by a plausible slip (monkeypatching the module global)
and checks that

(a) the theorem about it now fails, and
(b) ``tieaware eval`` prints other numbers, in float mode and in exact mode:
    the engines call that kernel object, not a copy of its formula.

A differential test alone would only see (b) on the inputs it tries.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tieaware.cli import main
from tieaware.fast import arith, kernels, variance_kernels
from tieaware.fast import measures as fm
from tieaware.model import names
from tieaware.proofs import THEOREMS

MEASURES = "P@5 P@10 R@10 F1@10 AP AP@10 RR RR@5 nDCG@10 nDCG DCG@5 RBP RBP(p=0.5)@10 ERR ERR@5"


def _eval(capsys, *flags: str) -> dict:
    assert main(["eval", "--format", "json", "-q", "--digits", "15", "-m", MEASURES, *flags]) == 0
    out = json.loads(capsys.readouterr().out)
    return {"mean": out["mean"], "per_query": out.get("per_query")}


real = {name: getattr(kernels, name) for name in kernels.__all__}


def _wrong_harmonic_ap_group(t, last, before, r, n):
    return real["ap_group"](t + 1, last, before, r, n)  # the group's first rank left out


def _ap_group_singleton_pair(t, last, before, r, n):
    A = arith.of(t, last, before, r, n)
    p = A.ratio(r - 1, n)  # (r-1)/n
    return r / n * ((before + 1 - (t + 1) * p) * A.harmonic(t, last) + p * (last - t))


CASES = [
    # (kernel, wrong version, theorems that must fail, measures whose printed values must change)
    ("expected_hits", lambda m, r, n: m * r / (n + 1), ["P@k", "R@k", "F1@k"], ["P@10", "R@10", "F1@10"]),
    ("within", lambda t, n, k: n if k is None else arith.of(t, n, k).clip(k - t + 1, 0, n), ["P@k", "AP@k"], ["P@5", "AP@10"]),
    ("pair_fraction", lambda r, n: arith.of(r, n).ratio(r - 1, n), ["AP slot", "AP harmonic sum", "AP@k"], ["AP"]),
    ("ap_group", _wrong_harmonic_ap_group, ["AP harmonic sum", "AP@k"], ["AP"]),
    ("ap_group", _ap_group_singleton_pair, ["AP harmonic sum", "AP@k"], ["AP"]),
    ("survival_step", lambda x, r, n: 1 - r / (n - x + 2), ["first relevant (recursion)", "first relevant weights", "RR group"], ["RR"]),
    ("rr_step", lambda total, none_yet, x, t, r, n: (total + (none_yet - none_yet * real["survival_step"](x, r, n)) / (t + x + 1), none_yet * real["survival_step"](x, r, n)), ["RR group"], ["RR"]),
    ("mean_gain", lambda total, n: total / (n + 1), ["DCG slot", "DCG@k"], ["nDCG@10", "DCG@5"]),
    ("dcg_group", lambda G, n, t, last, discount="log2": real["dcg_group"](G, n, t, arith.of(G, n, t, last).maximum(last, t + n), discount), ["DCG@k"], ["DCG@5"]),
    ("rbp_group", lambda p, t, end, r, n: r / n * (arith.of(p, t, end, r, n).power(p, t) - arith.of(p, t, end, r, n).power(p, end + 1)), ["RBP group"], ["RBP", "RBP(p=0.5)@10"]),
    ("precision_value", lambda hits, k: hits / (k + 1), ["P@k"], ["P@5"]),
    ("recall_value", lambda hits, num_rel: arith.of(hits, num_rel).ratio(hits, num_rel + 1), ["R@k"], ["R@10"]),
    ("f1_value", lambda hits, k, num_rel: hits / (k + num_rel), ["F1@k"], ["F1@10"]),
    ("ap_value", lambda total, num_rel: arith.of(total, num_rel).ratio(total, num_rel + 1), ["AP@k"], ["AP"]),
    ("ndcg_value", lambda dcg, ideal: arith.of(dcg, ideal).ratio(dcg, ideal + ideal / 8), ["nDCG@k"], ["nDCG@10"]),
    ("err_slot", lambda stop, keep, n, t, x: stop * keep / n / (t + x + 1), ["ERR group"], ["ERR", "ERR@5"]),
    # the weights of "leave the new member out" and "take it" swapped
    ("subset_mean_step", lambda here, below, keep, size, m: (m * here + (size + 1 - m) * keep * below) / (size + 1), ["ERR subset mean", "ERR group"], ["ERR", "ERR@5"]),
    ("err_term", lambda stop, keep, rank: stop * keep / (rank + 1), ["ERR group"], ["ERR", "ERR@5"]),
    ("err_stop", lambda g, g_max: arith.of(g, g_max).ratio(2**g - 1, 2 ** (g_max + 1)), ["ERR group"], ["ERR", "ERR@5"]),
]


@pytest.mark.parametrize("kernel, wrong, theorems, measures", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_slip_in_a_kernel_breaks_a_theorem_and_the_printed_numbers(monkeypatch, capsys, kernel, wrong, theorems, measures):
    right_float, right_exact = _eval(capsys, "--float"), _eval(capsys)
    monkeypatch.setattr(kernels, kernel, wrong)
    for name in theorems:
        result = THEOREMS[name]()
        assert not result.proved, f"{name} still proved with a wrong {kernel}"
    wrong_float, wrong_exact = _eval(capsys, "--float"), _eval(capsys)
    for m in measures:
        assert wrong_float["mean"][m] != right_float["mean"][m], f"eval --float {m} did not use kernels.{kernel}"
        assert wrong_exact["mean"][m] != right_exact["mean"][m], f"exact eval {m} did not use kernels.{kernel}"


def test_the_kernels_are_proved_as_they_are():
    # Control: with the real kernels, every theorem named above holds.
    for name in {t for _, _, ts, _ in CASES for t in ts}:
        assert THEOREMS[name]().proved, name


def test_fast_functions_call_the_same_kernels(monkeypatch):
    # fast's public functions (and so check/, vectors/ and the reference comparisons) go through them too.
    ranking = [1, [0, 1, 0], 1]
    right = (fm.precision(ranking, 3), fm.average_precision(ranking), fm.reciprocal_rank([0, [0, 1, 0]]))
    monkeypatch.setattr(kernels, "expected_hits", lambda m, r, n: m * r / (n + 1))
    monkeypatch.setattr(kernels, "ap_group", _wrong_harmonic_ap_group)
    monkeypatch.setattr(kernels, "survival_step", lambda x, r, n: 1 - r / (n - x + 2))
    wrong = (fm.precision(ranking, 3), fm.average_precision(ranking), fm.reciprocal_rank([0, [0, 1, 0]]))
    assert all(a != b for a, b in zip(right, wrong))


def test_the_exact_harmonic_span_is_checked(monkeypatch):
    # The exact-mode primitive behind AP (binary splitting) is checked by a theorem too: a slip in its
    # split (here: spans of over 16 ranks lose their last term) fails "exact arithmetic".
    real_split = arith._harmonic
    monkeypatch.setattr(arith, "_harmonic", lambda first, last: real_split(first, last - 1 if last - first >= 16 else last))
    assert not THEOREMS["exact arithmetic"]().proved


def test_rbp_default_p_comes_from_one_place(capsys, monkeypatch):
    # The default persistence is names.RBP_P, read by every path when it runs: float and exact agree,
    # and both equal RBP(p=0.8) spelled out.
    assert names.RBP_P == Fraction(4, 5)
    for flags in ((), ("--float",)):
        assert main(["eval", "--format", "json", "--digits", "15", "-m", "RBP RBP(p=0.8)", *flags]) == 0
        mean = json.loads(capsys.readouterr().out)["mean"]
        assert mean["RBP"] == mean["RBP(p=0.8)"]
    monkeypatch.setattr(names, "RBP_P", Fraction(9, 10))
    values = []
    for flags in ((), ("--float",)):
        assert main(["eval", "--format", "json", "--digits", "12", "-m", "RBP RBP(p=0.9)", *flags]) == 0
        mean = json.loads(capsys.readouterr().out)["mean"]
        assert mean["RBP"]["tie_aware"]["decimal"] == mean["RBP(p=0.9)"]["tie_aware"]["decimal"]
        values.append(mean["RBP"]["tie_aware"]["decimal"])
    assert values[0] == values[1]


# -- the spread over tie-breakings (``eval --spread``): the variance kernels and the extremes ---------------

SPREAD_MEASURES = "P@10 R@10 AP AP@10 RR RR@5 RBP nDCG@10"


def _spread(capsys, *flags: str) -> dict:
    assert main(["eval", "--format", "json", "--spread", "--digits", "15", "-m", SPREAD_MEASURES, *flags]) == 0
    return json.loads(capsys.readouterr().out)["spread"]


real_variance = {name: getattr(variance_kernels, name) for name in variance_kernels.__all__ if name != "Slots"}


def _ap_weighted_variance_p2_for_p3(c, r, b, n=None, slots=None):
    real_all = real_variance["all_relevant"]
    patched = lambda r_, n_, j: real_all(r_, n_, 2 if j == 3 else j)  # noqa: E731
    variance_kernels.all_relevant, saved = patched, variance_kernels.all_relevant
    try:
        return real_variance["ap_weighted_variance"](c, r, b, n, slots)
    finally:
        variance_kernels.all_relevant = saved


SPREAD_CASES = [
    # (module, kernel, wrong version, theorems that must fail, measures whose printed spread must change)
    (variance_kernels, "hits_variance", lambda m, r, n: arith.of(m, r, n).ratio(m * r * (n - r), n * n), ["Var P@k"], ["P@10", "R@10"]),
    (variance_kernels, "rank_statistic_variance", lambda x, w1, w2, n: arith.of(x, w1, w2, n).ratio(x * (w2 - w1 * w1 / n), n), ["Var DCG@k"], ["nDCG@10", "RBP"]),
    (variance_kernels, "rbp_group_variance", lambda p, t, e, r, n: 2 * real_variance["rbp_group_variance"](p, t, e, r, n), ["Var RBP"], ["RBP"]),
    (kernels, "rbp_weight_squares", lambda p, t, e: real["rbp_weight_squares"](p, t, e + 1), ["Var RBP"], ["RBP"]),
    (variance_kernels, "ap_weighted_variance", _ap_weighted_variance_p2_for_p3, ["Var AP"], ["AP", "AP@10"]),
    (variance_kernels, "all_relevant", lambda r, n, j: real_variance["all_relevant"](r, n, min(j, 2)), ["Var AP"], ["AP"]),
    (
        variance_kernels,
        "rr_moment_step",
        lambda mean, second, none_yet, x, t, r, n: real_variance["rr_moment_step"](mean, second, none_yet, x, t + 1, r, n),
        ["Var RR"],
        ["RR", "RR@5"],
    ),
]


@pytest.mark.parametrize("module, kernel, wrong, theorems, measures", SPREAD_CASES, ids=[c[1] for c in SPREAD_CASES])
def test_a_slip_in_a_variance_kernel_breaks_a_theorem_and_the_printed_spread(monkeypatch, capsys, module, kernel, wrong, theorems, measures):
    right_float, right_exact = _spread(capsys, "--float"), _spread(capsys)
    monkeypatch.setattr(module, kernel, wrong)
    for name in theorems:
        assert not THEOREMS[name]().proved, f"{name} still proved with a wrong {kernel}"
    wrong_float, wrong_exact = _spread(capsys, "--float"), _spread(capsys)
    for m in measures:
        assert wrong_float[m]["sd_mean"] != right_float[m]["sd_mean"], f"eval --spread --float {m} did not use {kernel}"
        assert wrong_exact[m]["sd_mean"] != right_exact[m]["sd_mean"], f"eval --spread {m} did not use {kernel}"


def test_the_extremes_come_from_the_kernels_on_the_sorted_ordering(monkeypatch, capsys):
    # eval --spread's min and max are the measures' closed forms on each group sorted by label (theorem
    # "extremes"), so a slip in AP's group kernel moves them too, in both engines.
    right_float, right_exact = _spread(capsys, "--float"), _spread(capsys)
    monkeypatch.setattr(kernels, "ap_group", _wrong_harmonic_ap_group)
    wrong_float, wrong_exact = _spread(capsys, "--float"), _spread(capsys)
    for right, wrong in ((right_float, wrong_float), (right_exact, wrong_exact)):
        assert wrong["AP"]["max_mean"] != right["AP"]["max_mean"] and wrong["AP"]["min_mean"] != right["AP"]["min_mean"]


def test_exact_formal_sums_stay_linear():
    # exact discount spans stay formal until resolved, so only linear uses are allowed: a product of two
    # spans, or a span of squared discounts, is refused rather than resolved to a wrong number
    span = arith.EXACT.discount_span(0, 3)
    with pytest.raises(TypeError, match="not linear"):
        span * arith.EXACT.discount_span(0, 2)
    with pytest.raises(ValueError, match="power must be 1"):
        arith.EXACT.discount_span(0, 3, power=2)
    # and a linear use resolves to the sum itself: 1/log2(2) + 1/log2(3) + 1/log2(4) = 3/2 + 1/log2(3)
    import sympy

    assert sympy.simplify((span * 2 - 3).resolve() - 2 / sympy.log(3, 2)) == 0


def test_array_spans_past_the_first_table():
    # the array arithmetic's spans come from cached prefix sums (first 2,048 entries); spans ending past
    # them grow the table. Checked against mpmath at 40 digits.
    import mpmath
    import numpy as np

    mpmath.mp.dps = 40
    try:
        lo, hi = np.array([0, 100, 4000]), np.array([5000, 6000, 9000])
        harmonic = [mpmath.harmonic(b) - mpmath.harmonic(a) for a, b in zip(lo.tolist(), hi.tolist())]
        discount = [mpmath.fsum(1 / mpmath.log(j + 1, 2) for j in range(a + 1, b + 1)) for a, b in zip(lo.tolist(), hi.tolist())]
    finally:
        mpmath.mp.dps = 15
    got_h, got_d = arith.Array().harmonic(lo, hi), arith.Array().discount_span(lo, hi)
    assert all(abs(float(g) - float(w)) <= 1e-12 * float(w) for g, w in zip(got_h, harmonic))
    assert all(abs(float(g) - float(w)) <= 1e-12 * float(w) for g, w in zip(got_d, discount))


def test_the_namespace_is_chosen_by_every_argument():
    # an array anywhere makes the kernel array-valued, a sympy value anywhere symbolic, whatever comes first
    import numpy as np
    import sympy

    n = sympy.Symbol("n")
    assert arith.of(0.5, np.zeros(2)) is arith.ARRAY and arith.of(Fraction(1, 2), 0.5, np.zeros(2)) is arith.ARRAY
    assert arith.of(0.5, n) is arith.SYMBOLIC and arith.of(1, n, 0.5) is arith.SYMBOLIC
    assert arith.of(1, Fraction(1, 3)) is arith.EXACT and arith.of(Fraction(1, 3), 0.5, 2) is arith.FLOAT


def test_hits_pmf_is_0_outside_its_support():
    # more hits than slots, more hits than relevant documents, or too few hits to fill the slots: no placement
    assert kernels.hits_pmf(2, 1, 2, 4) == 0  # 2 hits in 1 slot
    assert kernels.hits_pmf(3, 3, 2, 4) == 0  # 3 hits with 2 relevant documents
    assert kernels.hits_pmf(0, 3, 2, 4) == 0  # 3 of 4 slots, only 2 non-relevant documents
    assert sum(kernels.hits_pmf(h, 3, 2, 4) for h in range(4)) == 1
    # inside it, no hits too: 2 of 4 slots with 2 relevant documents, scipy.stats.hypergeom(4, 2, 2).pmf([0, 1, 2])
    # = [1/6, 2/3, 1/6]; a support starting at 1 hit survived a mutation run
    assert [kernels.hits_pmf(h, 2, 2, 4) for h in range(3)] == [Fraction(1, 6), Fraction(2, 3), Fraction(1, 6)]


def test_the_spread_programme_calls_the_kernels(monkeypatch):
    # fast.tie_spread's dynamic programme (ERR's spread, every distribution) adds each ordering's terms
    # through the kernels: err_term for ERR, ap_value/precision_value for AP, rbp_group for RBP, the
    # combination kernels for P; a slip in one moves the spread it feeds.
    from tieaware.fast.tie_spread import spread_stats

    ranking, ideal = [[2, 0, 1], 1, [0, 1]], [2, 1, 1, 1]
    cases = [
        ("ERR", False, "err_term", lambda stop, keep, rank: stop * keep / (rank + 1)),
        ("AP", True, "ap_value", lambda total, num_rel: arith.of(total, num_rel).ratio(total, num_rel + 1)),
        ("RBP", True, "rbp_group", lambda p, t, end, r, n: r / n * (arith.of(p, t, end, r, n).power(p, t) - arith.of(p, t, end, r, n).power(p, end + 1))),
        ("P@3", True, "precision_value", lambda hits, k: hits / (k + 1)),
    ]
    for measure, distribution, kernel, wrong in cases:
        for exact in (True, False):
            right = spread_stats(measure, ranking, ideal, exact=exact, distribution=distribution)
            with monkeypatch.context() as patch:
                patch.setattr(kernels, kernel, wrong)
                slipped = spread_stats(measure, ranking, ideal, exact=exact, distribution=distribution)
            assert (slipped.best, slipped.variance) != (right.best, right.variance), (measure, exact)
            if distribution:
                assert slipped.distribution != right.distribution, (measure, exact)


# -- tieaware.metrics (numpy and the array API) evaluates the same kernel objects ------------------------

METRICS_CASES = [c for c in CASES if all(names.parse(m).name in ("P", "R", "F1", "AP", "RR", "nDCG", "DCG") for m in c[3])]
METRICS_CASES += [
    ("first_relevant_step", lambda none_yet, x, r, n: (none_yet * r / n, none_yet * (1 - r / (n + 1))), ["first relevant weights"], ["Success@5"]),
    ("ap_capped_value", lambda total, num_rel, k: arith.of(total, num_rel).ratio(total, num_rel), [], ["AP(norm=capped)@5"]),
]


def _metrics_batch():
    import numpy as np

    rng = np.random.default_rng(33)
    scores = rng.integers(0, 4, (30, 16)).astype(np.float16)  # wide ties
    labels = rng.integers(0, 3, (30, 16)) * (rng.random((30, 16)) < 0.3)
    return scores, labels


@pytest.mark.parametrize("kernel, wrong, theorems, measures", METRICS_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(METRICS_CASES)])
def test_a_slip_in_a_kernel_changes_what_tieaware_metrics_returns(monkeypatch, kernel, wrong, theorems, measures):
    import numpy as np

    from tieaware import metrics

    scores, labels = _metrics_batch()
    libraries = [lambda x: x]
    try:
        import array_api_strict

        libraries.append(lambda x: array_api_strict.asarray(x.astype(np.float32) if x.dtype == np.float16 else x))  # no float16 there
    except ImportError:  # the test extra installs it
        pass
    right = [metrics.evaluate(lib(scores), lib(labels), measures) for lib in libraries]
    monkeypatch.setattr(kernels, kernel, wrong)
    for name in theorems:
        assert not THEOREMS[name]().proved, f"{name} still proved with a wrong {kernel}"
    for lib, before in zip(libraries, right):
        after = metrics.evaluate(lib(scores), lib(labels), measures)
        for m in measures:
            assert not np.allclose(np.asarray(after[m]), np.asarray(before[m]), rtol=1e-12, atol=0), f"tieaware.metrics {m} did not use kernels.{kernel}"
