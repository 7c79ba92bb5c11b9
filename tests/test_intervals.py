"""tieaware.runs.intervals against brute force over every joint tie-breaking, and against scipy.

The truth is independent of the per-query machinery, as in
tests/test_significance.py: every ordering of every query of the runs is
enumerated (tieaware.reference.orderings), the untied measure is computed
on each, and every joint tie-breaking gives one vector of per-query values
(a system's) or differences (a pair's).  On each vector the interval is
scipy's (``ttest_1samp(...).confidence_interval``, ``bootstrap(...,
method="percentile")``) and the effect sizes are their definitions; the
reported ends must be the least lower end and the greatest upper end over
the vectors (exact bounds) or contain them (certified bounds).
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

from test_significance import QRELS, RUN_A, RUN_B, RUN_C, per_query_outcomes
from tieaware.io.trec import parse_qrels, parse_run
from tieaware.model.errors import TieawareError
from tieaware.runs import intervals as iv
from tieaware.runs import significance as sig

scipy_stats = pytest.importorskip("scipy.stats")

MEASURES = ["P@2", "AP", "RR", "nDCG@3"]
TOL = 1e-12


@pytest.fixture(scope="module")
def runs():
    return (parse_qrels(QRELS.splitlines()),
            {name: parse_run(text.splitlines()) for name, text in (("A", RUN_A), ("B", RUN_B), ("C", RUN_C))})


def value_sets(runs, measure, systems):
    """Per system, per query: the list of values over every ordering of its ties (floats), and the exact ones."""
    qrels, all_runs = runs
    queries = sorted(set.intersection(*(set(all_runs[s]) for s in systems)) & set(qrels))
    return {s: per_query_outcomes(qrels, all_runs[s], measure, queries) for s in systems}


def pair_vectors(runs, measure):
    """Every joint tie-breaking's difference vector A − B (floats), and the per-query lists of differences."""
    v = value_sets(runs, measure, ["A", "B"])
    per_query = [sorted({float(x) - float(y) for x in xa for y in yb}) for xa, yb in zip(v["A"], v["B"])]
    expected = np.array([math.fsum(map(float, xa)) / len(xa) - math.fsum(map(float, yb)) / len(yb)
                         for xa, yb in zip(v["A"], v["B"])])
    return per_query, expected


def system_vectors(runs, measure, system):
    v = value_sets(runs, measure, [system])[system]
    per_query = [sorted({float(x) for x in xs}) for xs in v]
    expected = np.array([math.fsum(map(float, xs)) / len(xs) for xs in v])
    return per_query, expected


def cases(runs, measure):
    yield system_vectors(runs, measure, "A")
    yield system_vectors(runs, measure, "B")
    yield pair_vectors(runs, measure)


def box(per_query):
    return np.array([min(v) for v in per_query]), np.array([max(v) for v in per_query])


def scipy_t(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = scipy_stats.ttest_1samp(np.asarray(x, dtype=float), 0.0).confidence_interval(0.95)
    return float(ci.low), float(ci.high)


# --- t intervals --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_t_interval_is_scipys(seed):
    x = np.random.default_rng(seed).random(3 + 4 * seed)
    for got, want in zip(iv.t_interval(x, 95), scipy_t(x)):
        assert got == pytest.approx(want, rel=TOL, abs=TOL)
    lo, hi = iv.t_interval(x, 80)
    ci = scipy_stats.ttest_1samp(x, 0.0).confidence_interval(0.80)
    assert (lo, hi) == pytest.approx((ci.low, ci.high), rel=TOL)


@pytest.mark.parametrize("measure", MEASURES)
def test_t_bounds_equal_brute_force(runs, measure):
    for per_query, expected in cases(runs, measure):
        ends = [scipy_t(vector) for vector in itertools.product(*per_query)]
        lowest, highest = min(e[0] for e in ends), max(e[1] for e in ends)
        lo, hi = box(per_query)
        got = iv.t_interval_bounds(expected, lo, hi, 95)
        assert got.exact
        assert (got.low, got.high) == pytest.approx((lowest, highest), rel=TOL, abs=TOL)
        assert got.expected == pytest.approx(scipy_t(expected), rel=TOL, abs=TOL)
        # the chord bound (no enumeration): never too narrow, equal where it says exact
        chord = iv.t_interval_bounds(expected, lo, hi, 95, limit=1)
        assert chord.low <= lowest + TOL and chord.high >= highest - TOL
        if chord.exact:
            assert (chord.low, chord.high) == pytest.approx((lowest, highest), rel=TOL, abs=TOL)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(-4, 4), min_size=1, max_size=3, unique=True), min_size=2, max_size=6),
       st.sampled_from([50.0, 90.0, 95.0, 99.0]))
def test_t_bounds_contain_every_vector_of_a_grid(sets, level):
    per_query = [sorted(x / 4 for x in s) for s in sets]
    lo, hi = box(per_query)
    vectors = np.array(list(itertools.product(*per_query)))
    a = (1 - level / 100) / 2
    mean = vectors.mean(axis=1)
    half = scipy_stats.t.ppf(1 - a, len(lo) - 1) * vectors.std(axis=1, ddof=1) / math.sqrt(len(lo))
    lowest, highest = float((mean - half).min()), float((mean + half).max())
    exact = iv.t_interval_bounds(vectors[0], lo, hi, level)
    assert exact.exact and (exact.low, exact.high) == pytest.approx((lowest, highest), rel=1e-10, abs=1e-12)
    chord = iv.t_interval_bounds(vectors[0], lo, hi, level, limit=1)
    assert chord.low <= lowest + 1e-12 and chord.high >= highest - 1e-12
    if chord.exact:
        assert (chord.low, chord.high) == pytest.approx((lowest, highest), rel=1e-10, abs=1e-12)


def test_chord_bound_is_certified_inside_a_piece():
    # one query moves over a wide range, the others sit still: the lower end's minimum over the sum lies
    # between two vertices of the chord bound, so the bound is certified and below every vertex's end
    lo = np.array([0.0, 0.5, 0.5, 0.5, 0.5])
    hi = np.array([1.0, 0.5, 0.5, 0.5, 0.6])
    vectors = np.array(list(itertools.product(*zip(lo, hi))))
    lowest = min(scipy_t(v)[0] for v in vectors)
    got = iv.t_interval_bounds(lo, lo, hi, 95, limit=1)
    assert not got.exact and got.low <= lowest
    assert got.high >= max(scipy_t(v)[1] for v in vectors)


@pytest.mark.parametrize("seed", range(20))
def test_chord_bounds_contain_the_vertex_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = 9
    lo = rng.random(n)
    hi = lo + rng.random(n) * rng.integers(0, 2, n)
    exact = iv.t_interval_bounds(lo, lo, hi, 95)
    chord = iv.t_interval_bounds(lo, lo, hi, 95, limit=1)
    assert exact.exact and chord.low <= exact.low + 1e-12 and chord.high >= exact.high - 1e-12
    if chord.exact:
        assert (chord.low, chord.high) == pytest.approx((exact.low, exact.high), rel=1e-12, abs=1e-12)


# --- the bootstrap ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, resamples", [(7, 1500), (30, 999), (2, 10)])
def test_percentile_interval_is_scipys_bootstrap(n, resamples):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    x = np.round((a - b) * 2**20) / 2**20  # on the grid: the exact sums are the values' sums
    ours = iv.percentile(iv.Resamples(n, resamples, seed=5).means(x), 95)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = scipy_stats.bootstrap((x,), np.mean, n_resamples=resamples, batch=iv.BLOCK, method="percentile",
                                       rng=np.random.default_rng(5), vectorized=True).confidence_interval
        paired = scipy_stats.bootstrap((a, b), lambda u, v, axis: np.mean(u - v, axis=axis), paired=True,
                                       n_resamples=resamples, batch=iv.BLOCK, method="percentile",
                                       rng=np.random.default_rng(5), vectorized=True).confidence_interval
    assert ours == pytest.approx((theirs.low, theirs.high), rel=1e-12, abs=1e-12)
    mine = iv.percentile(iv.Resamples(n, resamples, seed=5).means(a - b), 95)
    assert mine == pytest.approx((paired.low, paired.high), rel=1e-9, abs=1e-9)  # a − b snapped to 2^-40


def test_resampled_means_are_exact_and_seeded():
    x = np.array([0.1, 0.2, 0.7, 1 / 3])
    r = iv.Resamples(4, 3000, seed=9)
    means = r.means(x)
    again = iv.Resamples(4, 3000, seed=9).means(x[:, None]).ravel()
    assert np.array_equal(means.ravel(), again)
    grid = np.round(x * 2.0**40)
    counts = np.concatenate(list(r.blocks()))
    want = [Fraction(int(sum(int(c) * int(g) for c, g in zip(row, grid))), 4 * 2**40) for row in counts]
    assert [Fraction(float(m)) for m in means.ravel()] == [Fraction(float(w)) for w in want]  # correctly rounded
    assert not np.array_equal(means.ravel(), iv.Resamples(4, 3000, seed=10).means(x).ravel())
    big = iv.Resamples(10_000, 2, seed=0)
    assert big.scale(np.full(10_000, 50.0)) < 40  # n·max·2^k stays below 2^52


@pytest.mark.parametrize("measure", MEASURES)
def test_bootstrap_bounds_equal_brute_force(runs, measure):
    for per_query, expected in cases(runs, measure):
        n = len(per_query)
        r = iv.Resamples(n, 700, seed=3)
        counts = np.concatenate(list(r.blocks()))
        lo, hi = box(per_query)
        ends = [np.quantile(counts @ np.array(v) / n, [0.025, 0.975]) for v in itertools.product(*per_query)]
        got = iv.bootstrap_bounds(r.means(expected), r.means(lo), r.means(hi), 95)
        assert got.exact
        assert got.low == pytest.approx(min(e[0] for e in ends), abs=1e-11)
        assert got.high == pytest.approx(max(e[1] for e in ends), abs=1e-11)
        assert got.expected == pytest.approx(tuple(np.quantile(counts @ expected / n, [0.025, 0.975])), abs=1e-11)


# --- effect sizes -------------------------------------------------------------------------------------------


def dz(v):
    v = np.asarray(v, dtype=float)
    sd = v.std(ddof=1)
    return 0.0 if sd == 0 and v.mean() == 0 else (math.copysign(math.inf, v.mean()) if sd == 0 else v.mean() / sd)


@pytest.mark.parametrize("measure", MEASURES)
def test_cohens_dz_equals_brute_force(runs, measure):
    per_query, expected = pair_vectors(runs, measure)
    values = [dz(v) for v in itertools.product(*per_query)]
    lo, hi = box(per_query)
    supports = [sig.Support(np.array(v), tuple(Fraction(1, len(v)) for v in [v] * len(v))) for v in per_query]
    got = iv.cohens_dz(expected, lo, hi, supports=supports)
    assert got.exact and (got.low, got.high) == pytest.approx((min(values), max(values)), rel=1e-12)
    assert got.value == pytest.approx(dz(expected), rel=1e-12)
    boxed = iv.cohens_dz(expected, lo, hi)
    assert boxed.low <= min(values) * (1 + 1e-12) + 1e-12 and boxed.high >= max(values) * (1 - 1e-12) - 1e-12
    if boxed.exact:
        assert (boxed.low, boxed.high) == pytest.approx((min(values), max(values)), rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(-4, 4), min_size=1, max_size=3, unique=True), min_size=2, max_size=6))
def test_cohens_dz_box_contains_every_vector_of_a_grid(sets):
    per_query = [sorted(x / 4 for x in s) for s in sets]
    lo, hi = box(per_query)
    values = [dz(v) for v in itertools.product(*per_query)]
    boxed = iv.cohens_dz(lo, lo, hi)
    assert boxed.low <= min(values) + 1e-9 * (1 + abs(min(values))) or boxed.low == min(values)
    assert boxed.high >= max(values) - 1e-9 * (1 + abs(max(values))) or boxed.high == max(values)
    supports = [sig.Support(np.array(v), tuple(Fraction(1, len(v)) for _ in v)) for v in per_query]
    enumerated = iv.cohens_dz(lo, lo, hi, supports=supports)
    assert (enumerated.low, enumerated.high) == pytest.approx((min(values), max(values)), rel=1e-12)


def exact_pair_sets(runs, measure):
    v = value_sets(runs, measure, ["A", "B"])
    if not all(isinstance(x, Fraction) for xs in v["A"] + v["B"] for x in xs):
        pytest.skip("irrational values: signs compared in floats elsewhere")
    per_query = [sorted({x - y for x in xa for y in yb}) for xa, yb in zip(v["A"], v["B"])]
    expected = [sum(xa, Fraction(0)) / len(xa) - sum(yb, Fraction(0)) / len(yb) for xa, yb in zip(v["A"], v["B"])]
    return per_query, expected


def sign(x):
    return (x > 0) - (x < 0)


@pytest.mark.parametrize("measure", ["P@2", "AP", "RR"])
def test_superiority_and_win_tie_loss_equal_brute_force(runs, measure):
    per_query, expected = exact_pair_sets(runs, measure)
    n = len(per_query)
    shares, counts = [], []
    for vector in itertools.product(*per_query):
        s = [sign(d) for d in vector]
        shares.append(Fraction(2 * s.count(1) + s.count(0), 2 * n))
        counts.append((s.count(1), s.count(0), s.count(-1)))
    lo = [sign(v[0]) for v in per_query]
    hi = [sign(v[-1]) for v in per_query]
    zero = [0 in v for v in per_query]
    e = [sign(x) for x in expected]
    ps = iv.superiority(e, lo, hi)
    assert (ps.low, ps.high) == (min(shares), max(shares))
    assert ps.value == Fraction(2 * e.count(1) + e.count(0), 2 * n)
    wtl = iv.win_tie_loss(e, lo, hi, zero)
    assert (wtl.wins, wtl.ties, wtl.losses) == (e.count(1), e.count(0), e.count(-1))
    for k, got in enumerate((wtl.wins_range, wtl.ties_range, wtl.losses_range)):
        assert got == (min(c[k] for c in counts), max(c[k] for c in counts))


# --- rank intervals -----------------------------------------------------------------------------------------


def brute_rank_intervals(per_system, resamples, level):
    """Per system: the topic interval of every joint tie-breaking (by the same order statistics), their union."""
    names = list(per_system)
    n = len(next(iter(per_system.values())))
    counts = np.concatenate(list(resamples.blocks()))
    R = len(counts)
    drop = int(math.floor(R * (1 - level / 100) / 2))
    lows, highs = {s: [] for s in names}, {s: [] for s in names}
    vectors = {s: [np.array(v) for v in itertools.product(*per_system[s])] for s in names}
    means = {s: [counts @ (np.round(v * 2.0**40)) for v in vectors[s]] for s in names}  # exact integer sums
    for combo in itertools.product(*(range(len(vectors[s])) for s in names)):
        M = np.column_stack([means[s][i] for s, i in zip(names, combo)])
        ranks = 1 + (M[:, None, :] > M[:, :, None]).sum(axis=2)
        ranks = np.sort(ranks, axis=0)
        for j, s in enumerate(names):
            lows[s].append(int(ranks[drop, j]))
            highs[s].append(int(ranks[R - 1 - drop, j]))
    return {s: (min(lows[s]), max(highs[s])) for s in names}, n


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=2, unique=True), min_size=4, max_size=4),
                min_size=2, max_size=3), st.sampled_from([50.0, 90.0]))
def test_rank_intervals_over_both_are_the_union_over_tie_breakings(systems, level):
    per_system = {f"s{i}": [sorted(x / 4 for x in q) for q in qs] for i, qs in enumerate(systems)}
    r = iv.Resamples(4, 60, seed=1)
    want, n = brute_rank_intervals(per_system, r, level)
    cols = {k: np.column_stack([r.means(np.array([f(v) for v in per_system[s]])).ravel() for s in per_system])
            for k, f in (("e", lambda v: sum(v) / len(v)), ("w", min), ("b", max))}
    got = iv.rank_intervals(cols["e"], cols["w"], cols["b"], level)
    assert dict(zip(per_system, got.both)) == want
    for (tlo, thi), (blo, bhi) in zip(got.topics, got.both):
        assert blo <= tlo <= thi <= bhi


def test_rank_intervals_over_topics_by_hand():
    # two systems, four resamples: s0 above in three, below in one; 50%: drop the one lowest and highest rank
    e = np.array([[0.5, 0.4], [0.5, 0.4], [0.5, 0.4], [0.3, 0.4]])
    got = iv.rank_intervals(e, e, e, 50)
    assert got.topics == ((1, 1), (2, 2)) and got.both == got.topics
    assert iv.rank_intervals(e, e, e, 99).topics == ((1, 2), (1, 2))


@pytest.mark.parametrize("bad_ci", [0, 100, -5, 150, "95", True, float("nan")])
def test_bad_ci(bad_ci):
    with pytest.raises(TieawareError, match="ci must be a confidence level"):
        iv.check_ci(bad_ci)


def test_bad_resamples():
    with pytest.raises(TieawareError, match="resamples must be an int >= 1"):
        iv.Resamples(5, 0)
