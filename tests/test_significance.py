"""compare_systems and tieaware.runs.significance against brute force, scipy and ranx.

The truth here is independent of the per-query machinery: every ordering of
every query of both runs is enumerated (tieaware.reference.orderings), the
ordinary untied measure is computed on each, and every joint tie-breaking
of the two runs gives one vector of per-query differences, tested as it is.
The reported p_min and p_max must be the smallest and largest p-value over
those vectors (exact bounds) or contain them (certified bounds), and the
flip probability must be the probability of the tie-breakings whose verdict
differs from the verdict on expected values.

The tests themselves are checked against scipy (ttest_rel, wilcoxon,
binomtest, permutation_test) on the expected values, and on untied runs
against ranx's compare ("student": scipy's ttest_rel on ranx's own scores,
equal within float precision; "fisher": ranx's seeded 1,000-permutation
randomisation, compared statistically).
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tieaware.io.trec import parse_qrels, parse_run, run_ranking
from tieaware.model.names import parse
from tieaware.model.ranking import groups
from tieaware.reference.orderings import orderings
from tieaware.runs import significance as sig
from tieaware.runs.evaluate import compute
from tieaware.runs.leaderboard import compare_systems

scipy_stats = pytest.importorskip("scipy.stats")

TESTS = sig.TESTS

# Three queries, each with two or three tie groups in run A and run B; 12 x 6 x 4 x ... joint tie-breakings.
QRELS = """\
q1 0 a 1
q1 0 b 0
q1 0 c 2
q1 0 e 1
q2 0 x 1
q2 0 y 1
q2 0 w 0
q3 0 m 1
q3 0 n 0
q4 0 r 1
q4 0 s 0
"""
RUN_A = """\
q1 Q0 a 1 3 A
q1 Q0 b 2 3 A
q1 Q0 c 3 1 A
q1 Q0 d 4 1 A
q2 Q0 x 1 2 A
q2 Q0 w 2 2 A
q2 Q0 y 3 2 A
q3 Q0 n 1 5 A
q3 Q0 m 2 5 A
q3 Q0 o 3 1 A
q4 Q0 r 1 2 A
q4 Q0 s 2 1 A
"""
RUN_B = """\
q1 Q0 b 1 5 B
q1 Q0 c 2 4 B
q1 Q0 a 3 4 B
q1 Q0 e 4 4 B
q2 Q0 w 1 9 B
q2 Q0 x 2 1 B
q2 Q0 y 3 1 B
q3 Q0 m 1 2 B
q3 Q0 o 2 2 B
q3 Q0 n 3 1 B
q4 Q0 s 1 1 B
q4 Q0 r 2 1 B
"""


def per_query_outcomes(qrels, run, measure, queries):
    """For each query, the list of the untied measure's values over every ordering of its ties (repeats kept)."""
    m = parse(measure)
    out = []
    for q in queries:
        ideal = list(qrels[q].values())
        gs = groups(run_ranking(run[q], qrels[q]))
        out.append([compute(m, list(o), ideal=ideal, exact=True) for o in orderings(gs)])
    return out


def brute_force(qrels, a, b, measure, test, **kw):
    """(p of every joint tie-breaking, its probability, the expected differences), tie-breakings uniform."""
    queries = sorted(q for q in a if q in b and q in qrels)
    va = per_query_outcomes(qrels, a, measure, queries)
    vb = per_query_outcomes(qrels, b, measure, queries)
    per_query = [[float(x) - float(y) for x in xa for y in yb] for xa, yb in zip(va, vb)]
    weights = [Fraction(1, len(v)) for v in per_query]
    D = np.array(list(itertools.product(*per_query)))
    p, direction = sig.pvalues(test, D, **kw)
    probability = math.prod(weights)
    if all(isinstance(x, Fraction) for v in va + vb for x in v):
        expected = [sum(xa) / len(xa) - sum(yb) / len(yb) for xa, yb in zip(va, vb)]
    else:  # nDCG: sums of logs, compared in floats
        expected = [math.fsum(map(float, xa)) / len(xa) - math.fsum(map(float, yb)) / len(yb) for xa, yb in zip(va, vb)]
    return p, direction, probability, expected


@pytest.fixture(scope="module")
def runs():
    return parse_qrels(QRELS.splitlines()), parse_run(RUN_A.splitlines()), parse_run(RUN_B.splitlines())


def scipy_p(test, d):
    """scipy's own p-value on the difference vector d (1 where scipy gives NaN)."""
    d = np.asarray(d, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if test == "t":
            p = scipy_stats.ttest_rel(d, np.zeros_like(d)).pvalue
        elif test == "wilcoxon":
            p = scipy_stats.wilcoxon(d).pvalue if np.any(d != 0) else np.nan
        elif test == "sign":
            k, n = int((d > 0).sum()), int((d != 0).sum())
            p = scipy_stats.binomtest(k, n).pvalue if n else np.nan
        elif test == "randomization":
            p = scipy_stats.permutation_test(
                (d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples", vectorized=True, n_resamples=10_000
            ).pvalue
        else:
            raise AssertionError(test)
    return 1.0 if np.isnan(p) else float(p)


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("measure", ["P@2", "AP", "RR", "nDCG@3"])
def test_exact_bounds_and_flips_equal_brute_force(runs, test, measure):
    qrels, a, b = runs
    for alpha in (0.05, 0.3, 0.6):
        out = compare_systems(qrels, {"A": a, "B": b}, measure, test=test, alpha=alpha, resamples=200)
        (r,) = out.pairs[measure]
        p, direction, probability, expected = brute_force(qrels, a, b, measure, test, resamples=200)
        assert r.bounds == "exact" and r.outcomes is not None
        assert r.p_min == p.min() and r.p_max == p.max()  # attained: the same p of some tie-breaking
        expected_p, expected_dir = sig.pvalues(test, [[float(x) for x in expected]], resamples=200)
        assert r.p_value == expected_p[0]
        verdict = expected_dir[0] if expected_p[0] <= alpha else 0
        outcome = np.where(p <= alpha, direction, 0)
        flips = int((outcome != verdict).sum())
        if measure == "nDCG@3":
            assert r.flip_probability == pytest.approx(flips * float(probability), abs=1e-12)
        else:
            assert r.flip_probability == flips * probability  # exact Fractions
        assert r.flip_method in ("exact", "bounds")
        assert r.robust == (len(set(outcome.tolist())) == 1)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization"])
@pytest.mark.parametrize("measure", ["P@2", "AP", "RR"])
def test_expected_value_p_is_scipys(runs, test, measure):
    qrels, a, b = runs
    (r,) = compare_systems(qrels, {"A": a, "B": b}, measure, test=test).pairs[measure]
    *_, expected = brute_force(qrels, a, b, measure, "sign")
    assert r.p_value == pytest.approx(scipy_p(test, [float(x) for x in expected]), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("measure", ["P@2", "AP", "RR", "nDCG@3"])
def test_certified_bounds_contain_brute_force(runs, test, measure):
    """limit=1: no enumeration, so the bounds come from the per-query ranges alone."""
    qrels, a, b = runs
    (r,) = compare_systems(qrels, {"A": a, "B": b}, measure, test=test, limit=1, resamples=200).pairs[measure]
    p, *_ = brute_force(qrels, a, b, measure, test, resamples=200)
    assert r.outcomes is None
    assert r.p_min <= p.min() and r.p_max >= p.max()
    if r.bounds == "exact":
        assert r.p_min == pytest.approx(p.min(), rel=1e-12) and r.p_max == pytest.approx(p.max(), rel=1e-12)


@pytest.mark.parametrize("exact", [True, False])
def test_untied_runs_have_one_p_value_scipys(exact):
    """Untied runs: p_min == p_max == p_value, and p_value is scipy's test on the per-query values (computed here
    from the untied rankings with the plain measure), for t, wilcoxon, sign and exact randomization."""
    from tieaware.io.inputs import to_qrels, to_run

    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(8)} for i in range(12)}
    run_a = {q: {f"d{j}": float(s) for j, s in enumerate(rng.permutation(8))} for q in qrels}
    run_b = {q: {f"d{j}": float(s) for j, s in enumerate(rng.permutation(8))} for q in qrels}
    queries = sorted(qrels, key=lambda q: int(q[1:]))
    for test in TESTS:
        out = compare_systems(qrels, {"A": run_a, "B": run_b}, "AP nDCG@5 P@3", test=test, resamples=5000, exact=exact)
        for m in out.measures:
            (r,) = out.pairs[m]
            assert r.p_min == r.p_max == r.p_value
            assert r.bounds == "exact" and r.robust is True and r.flip_probability == 0
            assert r.order != "some"
            if test == "bootstrap":  # no scipy counterpart (its definition is checked resample by resample below)
                continue
            va, vb = (per_query_outcomes(to_qrels(qrels), to_run(run), m, queries) for run in (run_a, run_b))
            assert all(len(x) == len(y) == 1 for x, y in zip(va, vb))  # untied: one ordering per query
            d = np.array([float(x[0] - y[0]) for x, y in zip(va, vb)])  # exact differences: equal ones tie for scipy too
            assert r.p_value == pytest.approx(scipy_p(test, d), rel=1e-9, abs=1e-15), (test, m)


@pytest.mark.peers
def test_untied_runs_equal_ranx_student_and_fisher():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(11)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 2)) for j in range(20)} for i in range(40)}
    for q in qrels:  # every query has a relevant document (ranx drops the others)
        qrels[q]["d0"] = 1
    run_a = {q: {f"d{j}": float(s) for j, s in enumerate(rng.permutation(20) + 1)} for q in qrels}
    run_b = {q: {f"d{j}": float(s) + (1.5 if qrels[q][f"d{j}"] else 0) for j, s in enumerate(rng.permutation(20) + 1)} for q in qrels}
    rq = ranx.Qrels({q: {d: int(v) for d, v in docs.items() if v} for q, docs in qrels.items()})
    ra, rb = ranx.Run(run_a, name="a"), ranx.Run(run_b, name="b")
    for stat_test, ours in (("student", "t"), ("fisher", "randomization")):
        report = ranx.compare(rq, [ra, rb], ["map", "ndcg@10", "precision@5"], stat_test=stat_test, n_permutations=1000)
        out = compare_systems(qrels, {"a": run_a, "b": run_b}, "AP nDCG@10 P@5", test=ours)
        for theirs, m in (("map", "AP"), ("ndcg@10", "nDCG@10"), ("precision@5", "P@5")):
            (r,) = out.pairs[m]
            assert r.p_min == r.p_max == r.p_value
            expected = report.comparisons[frozenset(("a", "b"))][theirs]["p_value"]
            assert report.results["a"][theirs] == pytest.approx(float(r.mean_a), abs=1e-12)
            if stat_test == "student":
                assert r.p_value == pytest.approx(expected, rel=1e-9)
            else:  # two Monte Carlo estimates of one p: 1,000 (ranx) and 10,000 (ours) resamples
                sd = math.sqrt(max(expected * (1 - expected), 1e-3) * (1 / 1000 + 1 / 10_000))
                assert abs(r.p_value - expected) <= 5 * sd + 2e-3


# --- the statistics module on its own -------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=1, max_size=3, unique=True), min_size=1, max_size=5))
def test_certified_bounds_contain_every_vector_of_the_grid(sets):
    """Per query a small set of attainable differences: the bounds from their ranges contain every vector's p."""
    values = [np.array(sorted(s)) / 4 for s in sets]
    lo = np.array([v.min() for v in values])
    hi = np.array([v.max() for v in values])
    zero = [bool(np.any(v == 0)) for v in values]
    D = np.array(list(itertools.product(*values)))
    for test in TESTS:
        p, direction = sig.pvalues(test, D, resamples=64)
        b = sig.certified_bounds(test, lo, hi, zero=zero, resamples=64)
        assert b.p_min <= p.min() + 1e-15 and b.p_max >= p.max() - 1e-15, test
        assert b.direction_min <= direction.min() and b.direction_max >= direction.max(), test
        if b.exact:
            assert b.p_min == pytest.approx(p.min(), rel=1e-12) and b.p_max == pytest.approx(p.max(), rel=1e-12), test


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["+", "-", "0", "+0", "-0", "+-", "+-0"]), min_size=1, max_size=7))
def test_sign_bounds_are_attained(kinds):
    """The polygon of (wins, losses) is exactly what the per-query sign sets reach: the bounds are attained."""
    value = {"+": 1.0, "-": -1.0, "0": 0.0}
    values = [np.array([value[c] for c in k]) for k in kinds]
    D = np.array(list(itertools.product(*values)))
    p, _ = sig.pvalues("sign", D)
    b = sig.certified_bounds("sign", [v.min() for v in values], [v.max() for v in values], zero=["0" in k for k in kinds])
    assert b.exact and b.p_min == p.min() and b.p_max == p.max()


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign"])
def test_pvalues_equal_scipy_on_random_vectors(test):
    rng = np.random.default_rng(3)
    for trial in range(300):
        n = int(rng.integers(2, 70))
        kind = trial % 3
        if kind == 0:
            d = rng.normal(0.1, 1, n)
        elif kind == 1:
            d = rng.integers(-3, 4, n) / 10.0  # ties and zeros
        else:
            d = rng.choice([0.0, 0.25, -0.5, 1 / 3, -1 / 3, 0.1], n)
        d = sig.snap(d)
        p, _ = sig.pvalues(test, d[None, :])
        assert p[0] == pytest.approx(scipy_p(test, d), rel=1e-9, abs=1e-15)


def test_randomization_is_scipys_exact_permutation_test():
    rng = np.random.default_rng(4)
    for _ in range(60):
        # scipy on the floats as they are (its relative tolerance ties 0.1 * 7 with 0.7); ours snaps them first,
        # and its slack keeps such statistics tied (snapped, 7 * 0.1 and 0.7 differ by a grid step)
        d = rng.choice([0.0, 0.25, -0.5, 1 / 3, -1 / 3, 0.1, 0.7, 2 / 3, -0.2], int(rng.integers(2, 14)))
        p, _ = sig.pvalues("randomization", d[None, :])  # 2^n <= 10,000: every sign flip
        assert p[0] == pytest.approx(scipy_p("randomization", d), rel=1e-12)


def test_resampling_tests_are_seeded():
    d = np.array([[0.1, -0.05, 0.2, 0.3, 0.0, 0.15, -0.1, 0.05, 0.12, 0.3, 0.2, 0.1, 0.4, -0.2, 0.1]])
    for test in ("randomization", "bootstrap"):
        one = sig.pvalues(test, d, resamples=500, seed=1)[0][0]
        assert one == sig.pvalues(test, d, resamples=500, seed=1)[0][0]
        assert (one * 501) == pytest.approx(round(one * 501))  # (1 + count) / (resamples + 1)


def test_bootstrap_by_a_plain_loop():
    """The bootstrap p from its definition, one resample at a time, with the same seeded resamples."""
    rng = np.random.default_rng(8)
    d = sig.snap(rng.normal(0.05, 0.2, 25))
    R = 300
    blocks = list(sig._resample_blocks("bootstrap", len(d), R, 9))
    count = 0
    for W in blocks:
        for w in W:
            resample = np.repeat(d, (w + 1).astype(int))
            count += abs(resample.mean() - d.mean()) >= abs(d.mean()) * (1 - 1e-13)
    p, _ = sig.pvalues("bootstrap", d[None, :], resamples=R, seed=9)
    assert p[0] == (1 + count) / (R + 1)


def test_adjust():
    p = [0.01, 0.04, 0.03, 0.2]
    assert sig.adjust(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.8])
    assert sig.adjust(p, "holm").tolist() == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert sig.adjust(p, "none").tolist() == p


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"test": "z"}, "test"),
        ({"alpha": 1.5}, "alpha"),
        ({"correction": "fdr"}, "correction"),
        ({"baseline": "C"}, "baseline"),
        ({"resamples": 0}, "resamples"),
        ({"samples": -1}, "samples"),
    ],
)
def test_bad_arguments(runs, kwargs, message):
    qrels, a, b = runs
    from tieaware import TieawareError

    with pytest.raises(TieawareError, match=message):
        compare_systems(qrels, {"A": a, "B": b}, "AP", **kwargs)


# --- several systems: leaderboards, corrections, Monte Carlo -----------------------------------------------

RUN_C = """\
q1 Q0 c 1 2 C
q1 Q0 a 2 2 C
q1 Q0 b 3 1 C
q1 Q0 e 4 1 C
q2 Q0 y 1 3 C
q2 Q0 x 2 3 C
q2 Q0 w 3 3 C
q3 Q0 m 1 1 C
q3 Q0 n 2 1 C
q4 Q0 r 1 1 C
q4 Q0 s 2 1 C
"""


@pytest.fixture(scope="module")
def three(runs):
    qrels, a, b = runs
    return qrels, {"A": a, "B": b, "C": parse_run(RUN_C.splitlines())}


def joint_outcomes(qrels, systems, measure):
    """Per system, the list over its joint tie-breakings (all queries) of (per-query values, probability)."""
    queries = sorted(set.intersection(*(set(r) for r in systems.values())) & set(qrels))
    out = {}
    for name, run in systems.items():
        per_query = per_query_outcomes(qrels, run, measure, queries)
        weight = Fraction(1, math.prod(len(v) for v in per_query))
        out[name] = [(np.array([float(x) for x in combo]), weight, combo) for combo in itertools.product(*per_query)]
    return out


@pytest.mark.parametrize("measure", ["AP", "P@2"])
def test_rank_intervals_equal_brute_force(three, measure):
    qrels, systems = three
    out = compare_systems(qrels, systems, measure, test=None)
    joint = joint_outcomes(qrels, systems, measure)
    names = list(systems)
    seen = {s: set() for s in names}
    for combo in itertools.product(*(joint[s] for s in names)):
        means = {s: sum(c[2], Fraction(0)) / len(c[2]) for s, c in zip(names, combo)}
        for s in names:
            seen[s].add(1 + sum(means[t] > means[s] for t in names if t != s))
    for row in out.standings[measure]:
        assert (row.best_rank, row.worst_rank) == (min(seen[row.system]), max(seen[row.system]))
        assert row.min_mean == min(sum(c[2], Fraction(0)) / len(c[2]) for c in joint[row.system])
        assert row.max_mean == max(sum(c[2], Fraction(0)) / len(c[2]) for c in joint[row.system])
    assert [r.rank for r in out.standings[measure]] == sorted(r.rank for r in out.standings[measure])
    assert {(r.a, r.b) for r in out.pairs[measure]} == {("A", "B"), ("A", "C"), ("B", "C")}
    assert all(r.p_value is None and r.test is None for r in out.pairs[measure])


@pytest.mark.parametrize("correction", ["bonferroni", "holm"])
def test_corrections_against_joint_brute_force(three, correction):
    """Every joint tie-breaking of the three systems: raw p per pair, corrected across the family."""
    qrels, systems = three
    measure, alpha = "AP", 0.5
    out = compare_systems(qrels, systems, measure, test="t", alpha=alpha, correction=correction, samples=4000, seed=3)
    joint = joint_outcomes(qrels, systems, measure)
    names = list(systems)
    pairs = [(r.a, r.b) for r in out.pairs[measure]]
    rows, weights = [], []
    for combo in itertools.product(*(joint[s] for s in names)):
        x = {s: c[0] for s, c in zip(names, combo)}
        rows.append([x[a] - x[b] for a, b in pairs])
        weights.append(math.prod(c[1] for c in combo))
    P, S = [], []
    for k in range(len(pairs)):
        p, s = sig.pvalues("t", np.array([r[k] for r in rows]))
        P.append(p)
        S.append(s)
    adjusted = sig.adjust(np.column_stack(P), correction)
    for k, r in enumerate(out.pairs[measure]):
        truth = np.where(adjusted[:, k] <= alpha, S[k], 0)
        verdict = 0 if r.better is None else (1 if r.better == r.a else -1)
        flip = sum((w for w, v in zip(weights, truth) if v != verdict), Fraction(0))
        assert r.p_adjusted_min <= adjusted[:, k].min() + 1e-15 and r.p_adjusted_max >= adjusted[:, k].max() - 1e-15
        if correction == "bonferroni" or r.flip_method == "bounds":
            assert r.flip_probability == flip
        else:  # Holm: Monte Carlo over joint tie-breakings of all three systems
            assert r.flip_method == "monte carlo" and r.flip_samples == 4000
            lo, hi = r.flip_interval
            sd = math.sqrt(float(flip) * (1 - float(flip)) / 4000) + 1e-9
            assert abs(r.flip_probability - float(flip)) <= 5 * sd and lo <= r.flip_probability <= hi
        if r.robust is not None:
            assert r.robust == (len(set(truth.tolist())) == 1)


def test_monte_carlo_flip_agrees_with_enumeration(runs):
    qrels, a, b = runs
    for test in ("t", "wilcoxon"):
        exact = compare_systems(qrels, {"A": a, "B": b}, "AP", test=test, alpha=0.3).pairs["AP"][0]
        mc = compare_systems(qrels, {"A": a, "B": b}, "AP", test=test, alpha=0.3, limit=1, samples=5000, seed=7).pairs["AP"][0]
        assert exact.flip_method == "exact" and mc.flip_method == "monte carlo" and mc.flip_samples == 5000
        sd = math.sqrt(float(exact.flip_probability) * (1 - float(exact.flip_probability)) / 5000)
        assert abs(mc.flip_probability - float(exact.flip_probability)) <= 5 * sd
        assert mc.flip_interval[0] <= mc.flip_probability <= mc.flip_interval[1]
        again = compare_systems(qrels, {"A": a, "B": b}, "AP", test=test, alpha=0.3, limit=1, samples=5000, seed=7).pairs["AP"][0]
        assert again.flip_probability == mc.flip_probability  # seeded


def test_drawn_orderings_agree_with_distributions(runs):
    """Float mode has no per-query distributions: draws evaluate random orderings; same flip probability."""
    qrels, a, b = runs
    exact = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3).pairs["AP"][0]
    drawn = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3, exact=False, samples=3000, seed=2).pairs["AP"][0]
    assert drawn.bounds == "certified" and drawn.p_min <= exact.p_min and drawn.p_max >= exact.p_max
    sd = math.sqrt(float(exact.flip_probability) * (1 - float(exact.flip_probability)) / 3000)
    assert drawn.flip_method == "monte carlo" and abs(drawn.flip_probability - float(exact.flip_probability)) <= 5 * sd
    assert drawn.p_value == pytest.approx(exact.p_value, rel=1e-9)
    auto = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3, exact=False).pairs["AP"][0]
    assert (auto.flip_method, auto.flip_samples) == ("monte carlo", 1000)  # a small run: drawing is cheap
    none = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3, samples=0, limit=1).pairs["AP"][0]
    assert none.flip_method == "not estimated"


def test_baseline_pairs_and_outputs(three, tmp_path):
    qrels, systems = three
    out = compare_systems(qrels, systems, "AP P@2", test="sign", baseline="B")
    assert [(r.a, r.b) for r in out.pairs["AP"]] == [("A", "B"), ("C", "B")]
    import json

    data = json.loads(out.render("json"))
    assert set(data["measures"]) == {"AP", "P@2"} and data["test"] == "sign" and data["baseline"] == "B"
    first = data["measures"]["AP"]["pairs"][0]
    assert first["p_min"] == out.pairs["AP"][0].p_min and "exact" in first["expected_difference"]
    for fmt in ("table", "markdown", "latex"):
        text = out.render(fmt)
        assert "leaderboard" in text and "rank range" in text
    assert "\\begin{tabular}" in out.render("latex") and "### AP: pairs" in out.render("markdown")
    assert "|   | system" in out.render("markdown").replace("  ", " ") or "system" in out.render("markdown").splitlines()[2]
    pytest.importorskip("matplotlib")
    out.plot(str(tmp_path / "board.png"))
    assert (tmp_path / "board.png").stat().st_size > 1000


def test_runs_as_a_sequence_and_shared_queries(three):
    qrels, systems = three
    a = dict(systems["A"])
    a["q9"] = [("z", Fraction(1))]
    del a["q4"]
    out = compare_systems(qrels, [a, systems["B"]], "AP", test="t")
    assert out.systems == ("run_1", "run_2") and out.queries == 3 and out.skipped == ("q4",)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=6), min_size=1, max_size=4))
def test_exact_columns_are_fasts_worst_expected_and_best(docs):
    """The exact array path (groups sorted by label) gives fast.worst, compute and fast.best on every query."""
    from tieaware import fast
    from tieaware.io.columns import prepare_dicts
    from tieaware.runs.board_columns import system_columns

    qrels = {f"q{i}": {f"d{j}": Fraction(lab) for j, (_, lab) in enumerate(ds)} for i, ds in enumerate(docs)}
    run = {f"q{i}": [(f"d{j}", Fraction(score)) for j, (score, _) in enumerate(ds)] for i, ds in enumerate(docs)}
    queries = sorted(qrels)
    measures = [parse(m) for m in ("P@2", "R@3", "F1@2", "AP", "AP@3", "RR", "RR@2", "nDCG", "nDCG@3", "DCG@3", "RBP(p=0.5)")]
    from tieaware.model.exactcmp import compare
    from tieaware.model.logsum import LogSum

    def same(value, want):  # nDCG and DCG are held as LogSum vectors: equal exactly (exactcmp's structural 0)
        # (a quotient that reduces to a rational is a Fraction there, where sympy may keep it as a quotient)
        return compare(value.value() if isinstance(value, LogSum) else value, want) == 0

    cols = system_columns(prepare_dicts(qrels, run, queries), measures, queries, exact=True, layer="fast", progress=False, label="")
    for m in measures:
        col = cols[str(m)]
        for k, q in enumerate(queries):
            ranking, ideal = run_ranking(run[q], qrels[q]), list(qrels[q].values())
            assert same(col.worst[k], fast.worst(m, ranking, ideal))
            assert same(col.best[k], fast.best(m, ranking, ideal))
            assert same(col.expected[k], compute(m, ranking, ideal=ideal))


# --- drawing tie-breakings on large runs ------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=9), min_size=1, max_size=4),
    st.randoms(use_true_random=False),
)
def test_drawn_view_keeps_every_value(docs, rnd):
    """The draws evaluate only the varying queries and, for an @k measure, the tie groups starting in the top k:
    every measure of the array engine gives the same values there as on the whole run, tied (expected values)
    and untied (one ordering)."""
    from tieaware.io.columns import prepare_dicts
    from tieaware.runs import engine
    from tieaware.runs.board_columns import extreme_view, query_rankings
    from tieaware.runs.board_draws import drawn_view

    def values(view, m):  # the array engine, else per query (measures with a convention; the draws do the same)
        got = engine.values(view, m)
        if got is None:
            got = [compute(m, [x for g in r for x in g], ideal=i, exact=False) if all(len(g) == 1 for g in r)
                   else compute(m, r, ideal=i, exact=False) for _, r, i in query_rankings(view, False)]
        return np.asarray(got, dtype=np.float64)

    qrels = {f"q{i}": {f"d{j}": label for j, (_, label) in enumerate(ds)} for i, ds in enumerate(docs)}
    run = {f"q{i}": {f"d{j}": float(score) for j, (score, _) in enumerate(ds)} for i, ds in enumerate(docs)}
    qids = list(qrels)
    p = prepare_dicts(qrels, run, qids)
    chosen = rnd.sample(qids, rnd.randint(1, len(qids)))
    for name in ("P@3", "AP", "AP@2", "nDCG@3", "RR@2", "ERR@3", "R@3", "F1@3", "DCG@3", "RBP(p=0.5)@3",
                 "AP(norm=capped)@3", "P(norm=retrieved)@3", "nDCG(gain=binary)@3"):
        m = parse(name)
        for view in (p, extreme_view(p, True)):
            whole = values(view, m)
            cut = drawn_view(view, m, chosen)
            assert cut.qids == chosen
            assert np.allclose(values(cut, m), whole[[qids.index(q) for q in chosen]], rtol=1e-12, atol=1e-15), name
            if m.k is not None:
                assert all(int(s) - int(q) < m.k for s, q in zip(cut.group_start, cut.query_start[cut.query[cut.group_start]]))


def test_large_runs_get_a_monte_carlo_flip_by_default(runs, monkeypatch):
    """Past the draw budget the flip probability is still estimated: MIN_DRAWS draws, seeded, with the count and
    a 95% interval; the same seed gives the same estimate."""
    from tieaware.runs import board_draws, leaderboard

    qrels, a, b = runs
    exact = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3).pairs["AP"][0]
    monkeypatch.setattr(board_draws, "DRAW_BUDGET", 10)  # as if the runs were large
    out = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3, exact=False, seed=3)
    r = out.pairs["AP"][0]
    assert (r.flip_method, r.flip_samples) == ("monte carlo", leaderboard.MIN_DRAWS)
    lo, hi = r.flip_interval
    assert lo <= r.flip_probability <= hi and lo <= float(exact.flip_probability) <= hi
    assert any(f"{leaderboard.MIN_DRAWS:,} joint tie-breakings" in note and "seed 3" in note for note in out.notes)
    again = compare_systems(qrels, {"A": a, "B": b}, "AP", test="t", alpha=0.3, exact=False, seed=3).pairs["AP"][0]
    assert again.flip_probability == r.flip_probability


@settings(max_examples=40, deadline=None)
@given(
    st.integers(14, 60),
    st.lists(st.lists(st.integers(-6, 6), min_size=1, max_size=3, unique=True), min_size=1, max_size=6),
    st.randoms(use_true_random=False),
)
def test_wilcoxon_bounds_in_the_normal_and_exact_regimes(n, varying, rnd):
    """14 to 60 queries (scipy's exact null distribution or its normal approximation), most of them fixed at
    distinct values, a few with small value sets: the certified bounds contain every vector's p-value, and
    with no possible tie or zero they are those of the exact regime alone."""
    fixed = [rnd.choice([-1, 1]) * (10 + 3 * i + rnd.random()) for i in range(n - len(varying))]
    values = [np.array([float(x)]) for x in fixed] + [np.array(sorted(v), dtype=float) / 2 for v in varying]
    lo = np.array([v.min() for v in values])
    hi = np.array([v.max() for v in values])
    zero = [bool(np.any(v == 0)) for v in values]
    D = np.array(list(itertools.product(*values)))
    p, _ = sig.pvalues("wilcoxon", D)
    b = sig.certified_bounds("wilcoxon", lo, hi, zero=zero)
    assert b.p_min <= p.min() * (1 + 1e-12) and b.p_max >= p.max() * (1 - 1e-12)


def test_wilcoxon_bounds_without_possible_ties_are_near_attained():
    """Twenty queries with distinct |d| that cannot tie or be 0: only scipy's exact regime is reachable, and
    p_min is the exact tail at the largest T (attained by d = high), not the all-tied normal bound."""
    rng = np.random.default_rng(3)
    base = (np.arange(1, 21) * 1.0) * np.where(rng.random(20) < 0.8, 1, -1)
    lo, hi = base - 0.1, base + 0.1
    b = sig.certified_bounds("wilcoxon", lo, hi, zero=[False] * 20)
    p_hi = sig.pvalues("wilcoxon", hi[None, :])[0][0]
    assert b.p_min == pytest.approx(p_hi, rel=1e-6)
    assert b.p_max == pytest.approx(sig.pvalues("wilcoxon", lo[None, :])[0][0], rel=1e-6)
