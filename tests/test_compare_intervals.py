"""compare_systems(ci=...) and `tieaware compare --ci` against brute force over every joint tie-breaking.

As in tests/test_significance.py, the truth enumerates every ordering of
every query's ties with the reference (tieaware.reference.orderings) and
computes the untied measure on each: every tie-breaking of a system (of a
pair: of both systems) gives one vector of per-query values.  On each
vector the t interval is scipy's and the bootstrap interval is the
percentile of the same seeded resamples' means; the reported ends over
ties must be the least lower and greatest upper end over the vectors.
The rank interval over topics and ties together must be the union of the
topic intervals of every joint tie-breaking of all systems.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import subprocess
import sys
import warnings
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from test_significance import QRELS, RUN_A, RUN_B, RUN_C, per_query_outcomes
from tieaware.io.board_table import PER_QUERY_COLUMNS, PYTERRIER_COLUMNS
from tieaware.io.trec import parse_qrels, parse_run
from tieaware.model.errors import TieawareError
from tieaware.runs import intervals as iv
from tieaware.runs.leaderboard import compare_systems

scipy_stats = pytest.importorskip("scipy.stats")

RESAMPLES = 300


@pytest.fixture(scope="module")
def three():
    qrels = parse_qrels(QRELS.splitlines())
    return qrels, {n: parse_run(t.splitlines()) for n, t in (("A", RUN_A), ("B", RUN_B), ("C", RUN_C))}


def distinct(qrels, run, measure, queries):
    """Per query, the distinct values over every ordering of its ties (Fractions or sympy), as floats, sorted."""
    return [sorted({float(x) for x in values}) for values in per_query_outcomes(qrels, run, measure, queries)]


def scipy_t(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = scipy_stats.ttest_1samp(np.asarray(x, dtype=float), 0.0).confidence_interval(0.95)
    return float(ci.low), float(ci.high)


def snap(x):
    return np.round(np.asarray(x, dtype=float) * 2.0**40) / 2.0**40


@pytest.mark.parametrize("measure", ["P@2", "AP", "nDCG@3"])
def test_system_and_pair_intervals_equal_brute_force(three, measure):
    qrels, runs = three
    out = compare_systems(qrels, runs, measure, test="t", ci=95, resamples=RESAMPLES, baseline="A")
    got = out.intervals[measure]
    queries = sorted(set(qrels) & set(runs["A"]))
    n = len(queries)
    counts = np.concatenate(list(iv.Resamples(n, RESAMPLES, out.seed).blocks()))
    sets = {s: distinct(qrels, runs[s], measure, queries) for s in runs}

    def boot(vector):
        return np.quantile(counts @ snap(vector) / n, [0.025, 0.975])

    for s, per_query in sets.items():
        vectors = list(itertools.product(*per_query))
        x = got.systems[s]
        assert x.t.exact and x.bootstrap.exact
        assert (x.t.low, x.t.high) == pytest.approx((min(scipy_t(v)[0] for v in vectors), max(scipy_t(v)[1] for v in vectors)), abs=1e-11)
        ends = [boot(v) for v in vectors]
        assert (x.bootstrap.low, x.bootstrap.high) == pytest.approx((min(e[0] for e in ends), max(e[1] for e in ends)), abs=1e-11)
    for a, b in (("B", "A"), ("C", "A")):
        diffs = [sorted({u - v for u in xa for v in xb}) for xa, xb in zip(sets[a], sets[b])]
        vectors = [np.array(v) for v in itertools.product(*diffs)]
        x = got.pairs[(a, b)]
        assert (x.t.low, x.t.high) == pytest.approx((min(scipy_t(v)[0] for v in vectors), max(scipy_t(v)[1] for v in vectors)), abs=1e-11)
        # the pair's bootstrap resamples A and B's queries together: per joint tie-breaking, mean_r(A) − mean_r(B)
        ends = [np.quantile((counts @ snap(u) - counts @ snap(w)) / n, [0.025, 0.975])
                for u in itertools.product(*sets[a]) for w in itertools.product(*sets[b])]
        assert (x.bootstrap.low, x.bootstrap.high) == pytest.approx((min(e[0] for e in ends), max(e[1] for e in ends)), abs=1e-11)
        dz = [v.mean() / v.std(ddof=1) if v.std(ddof=1) > 0 else math.copysign(math.inf, v.mean()) if v.mean() else 0.0 for v in vectors]
        assert x.dz.low <= min(dz) + 1e-9 and x.dz.high >= max(dz) - 1e-9
        if x.dz.exact:
            assert (x.dz.low, x.dz.high) == pytest.approx((min(dz), max(dz)), rel=1e-9)
        signs = [np.sign(snap(v)) for v in vectors]
        shares = [Fraction(int(2 * (s > 0).sum() + (s == 0).sum()), 2 * n) for s in signs]
        assert (x.superiority.low, x.superiority.high) == (min(shares), max(shares))
        assert x.counts.wins_range == (min(int((s > 0).sum()) for s in signs), max(int((s > 0).sum()) for s in signs))
        assert x.counts.losses_range == (min(int((s < 0).sum()) for s in signs), max(int((s < 0).sum()) for s in signs))
        assert x.counts.ties_range == (min(int((s == 0).sum()) for s in signs), max(int((s == 0).sum()) for s in signs))


@pytest.mark.parametrize("measure", ["P@2", "AP", "RR"])
def test_expected_counts_and_superiority_equal_brute_force(three, measure):
    qrels, runs = three
    out = compare_systems(qrels, runs, measure, test=None, ci=95, resamples=50, baseline="A")
    queries = sorted(set(qrels) & set(runs["A"]))
    n = len(queries)
    for b in ("B", "C"):
        va, vb = (per_query_outcomes(qrels, runs[s], measure, queries) for s in (b, "A"))
        wins = ties = losses = Fraction(0)
        for xs, ys in zip(va, vb):  # every ordering of each run equally likely, runs independent
            total = len(xs) * len(ys)
            wins += Fraction(sum(x > y for x in xs for y in ys), total)
            ties += Fraction(sum(x == y for x in xs for y in ys), total)
            losses += Fraction(sum(x < y for x in xs for y in ys), total)
        x = out.intervals[measure].pairs[(b, "A")]
        assert x.counts.expected == (wins, ties, losses)
        assert x.superiority.mean == (wins + ties / 2) / n


def test_rank_intervals_over_both_are_the_union_over_every_joint_tie_breaking(three):
    qrels, runs = three
    measure = "P@2"
    out = compare_systems(qrels, runs, measure, test=None, ci=90, resamples=RESAMPLES)
    queries = sorted(set(qrels) & set(runs["A"]))
    n = len(queries)
    counts = np.concatenate(list(iv.Resamples(n, RESAMPLES, out.seed).blocks()))
    names = list(runs)
    sums = {s: [counts @ np.round(np.array(v) * 2.0**40) for v in itertools.product(*distinct(qrels, runs[s], measure, queries))]
            for s in names}
    drop = int(math.floor(RESAMPLES * 0.1 / 2))
    lows = {s: [] for s in names}
    highs = {s: [] for s in names}
    for combo in itertools.product(*(sums[s] for s in names)):
        M = np.column_stack(combo)
        ranks = np.sort(1 + (M[:, None, :] > M[:, :, None]).sum(axis=2), axis=0)
        for j, s in enumerate(names):
            lows[s].append(int(ranks[drop, j]))
            highs[s].append(int(ranks[RESAMPLES - 1 - drop, j]))
    got = out.intervals[measure].systems
    for s in names:
        assert got[s].rank_both == (min(lows[s]), max(highs[s]))
        standing = next(x for x in out.standings[measure] if x.system == s)
        assert got[s].rank_both[0] <= min(standing.best_rank, got[s].rank_topics[0])
        assert got[s].rank_both[1] >= max(standing.worst_rank, got[s].rank_topics[1])


def test_rank_intervals_over_topics_are_the_order_statistics_of_the_expected_ranks(three):
    qrels, runs = three
    out = compare_systems(qrels, runs, "AP", test=None, ci=80, resamples=RESAMPLES)
    queries = sorted(set(qrels) & set(runs["A"]))
    counts = np.concatenate(list(iv.Resamples(len(queries), RESAMPLES, out.seed).blocks()))
    expected = {s: [math.fsum(map(float, v)) / len(v) for v in per_query_outcomes(qrels, runs[s], "AP", queries)] for s in runs}
    M = np.column_stack([counts @ np.round(np.array(expected[s]) * 2.0**40) for s in runs])
    ranks = np.sort(1 + (M[:, None, :] > M[:, :, None]).sum(axis=2), axis=0)
    drop = int(math.floor(RESAMPLES * 0.2 / 2))
    for j, s in enumerate(runs):
        assert out.intervals["AP"].systems[s].rank_topics == (int(ranks[drop, j]), int(ranks[RESAMPLES - 1 - drop, j]))


def test_the_streamed_leaderboard_gives_the_same_intervals(three, files):
    from tieaware.runs.board_stream import compare_systems_files

    qrels, runs = three
    whole = compare_systems(qrels, runs, "AP P@2", test="t", ci=95, resamples=RESAMPLES, baseline="A")
    names = {"A": "a.run", "B": "b.run", "C": "c.run"}
    streamed = compare_systems_files(files / "qrels", {s: files / f for s, f in names.items()}, "AP P@2", test="t", ci=95,
                                     resamples=RESAMPLES, baseline="A", jobs=2, partitions=3)
    assert streamed.intervals == whole.intervals


def test_float_mode_gives_the_same_intervals(three):
    qrels, runs = three
    exact = compare_systems(qrels, runs, "AP P@2", test=None, ci=95, resamples=RESAMPLES)
    rough = compare_systems(qrels, runs, "AP P@2", test=None, ci=95, resamples=RESAMPLES, exact=False)
    for m in exact.measures:
        for s in runs:
            e, f = exact.intervals[m].systems[s], rough.intervals[m].systems[s]
            assert (e.rank_topics, e.rank_both) == (f.rank_topics, f.rank_both)
            assert (e.t.low, e.t.high, e.bootstrap.low, e.bootstrap.high) == pytest.approx(
                (f.t.low, f.t.high, f.bootstrap.low, f.bootstrap.high), abs=1e-12)
        for key, e in exact.intervals[m].pairs.items():
            f = rough.intervals[m].pairs[key]
            # float mode has no per-query distributions: no expectations (None), the same values and ranges
            assert (e.superiority.value, e.superiority.low, e.superiority.high) == (f.superiority.value, f.superiority.low, f.superiority.high)
            assert replace(e.counts, expected=None) == f.counts and f.superiority.mean is None


def test_several_baselines_and_the_correction_across_them(three):
    qrels, runs = three
    out = compare_systems(qrels, runs, "AP", test="t", correction="bonferroni", baseline=["A", "B"], ci=95, resamples=RESAMPLES)
    pairs = out.pairs["AP"]
    assert [(r.a, r.b) for r in pairs] == [("B", "A"), ("C", "A"), ("C", "B")]
    assert out.baselines == ("A", "B") and out.baseline == "A"
    for r in pairs:  # Bonferroni over every pair the table shows (3), not per baseline
        assert r.p_adjusted == pytest.approx(min(1.0, 3 * r.p_value))
    frame = out.dataframe()
    assert list(frame.columns[:7]) == list(PYTERRIER_COLUMNS) and "baseline" in frame.columns
    assert len(frame) == 2 * 3  # per baseline, per system (one measure)
    row = frame[(frame.name == "C") & (frame.baseline == "B")].iloc[0]
    k = out.intervals["AP"].pairs[("C", "B")].counts
    assert (row["+"], row["-"], row["p-value"]) == (k.wins, k.losses, pairs[2].p_value)
    swapped = frame[(frame.name == "A") & (frame.baseline == "B")].iloc[0]
    k = out.intervals["AP"].pairs[("B", "A")].counts
    assert (swapped["+"], swapped["-"]) == (k.losses, k.wins)
    assert frame[(frame.name == "A") & (frame.baseline == "A")]["p-value"].isna().all()


def test_per_query_long_form_is_evaluates(three):
    from tieaware import evaluate

    qrels, runs = three
    out = compare_systems(qrels, runs, "AP nDCG@3", test=None)
    long = out.per_query_dataframe()
    assert list(long.columns) == list(PER_QUERY_COLUMNS)
    assert len(long) == 3 * out.queries * 2
    for s, run in runs.items():
        per = evaluate(qrels, run, "AP nDCG@3", exact=False).per_query
        for row in long[long.name == s].itertuples():
            assert row.value == pytest.approx(float(per[row.qid][row.measure]), rel=1e-12)
            assert row.min - 1e-12 <= row.value <= row.max + 1e-12  # floats of the exact values: an ulp apart


def test_bad_arguments(three):
    qrels, runs = three
    for kwargs, message in (({"ci": 100}, "ci must be a confidence level"), ({"ci": 0}, "ci must be a confidence level"),
                            ({"ci": 95, "resamples": 0}, "resamples must be an int >= 1"),
                            ({"baseline": ["A", "Z"]}, "baseline must be one of the runs' names"),
                            ({"baseline": ["A", "A"]}, "baseline must name each baseline once")):
        with pytest.raises(TieawareError, match=message):
            compare_systems(qrels, runs, "AP", **kwargs)


# --- the command ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ci")
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B), ("c.run", RUN_C)):
        (d / name).write_text(text)
    return d


def tieaware(d, *args):
    return subprocess.run([sys.executable, "-m", "tieaware", "compare", *args], cwd=d, capture_output=True, text=True, timeout=600)


def test_command_csv_and_json_are_the_same_for_every_jobs(files):
    args = ["qrels", "a.run", "b.run", "c.run", "-m", "AP", "--ci", "95", "--resamples", "500", "--test", "t"]
    one = tieaware(files, *args, "--format", "csv", "--jobs", "1")
    two = tieaware(files, *args, "--format", "csv", "--jobs", "2")
    assert one.returncode == 0, one.stderr
    assert one.stdout == two.stdout
    rows = list(csv.DictReader(io.StringIO(one.stdout)))
    assert [r["kind"] for r in rows] == ["system"] * 3 + ["pair"] * 3
    assert {"t low (ties)", "bootstrap high (ties)", "rank worst (both)", "d_z", "superiority exact", "wins range"} <= set(rows[0])
    data = json.loads(tieaware(files, *args, "--format", "json", "--jobs", "2").stdout)
    got = data["measures"]["AP"]["intervals"]
    assert data["ci"] == 95.0 and len(got["systems"]) == 3 and len(got["pairs"]) == 3
    by_name = {r["name"]: r for r in rows if r["kind"] == "system"}
    for x in got["systems"]:
        assert float(by_name[x["system"]]["t low (ties)"]) == x["t"]["low"]
        assert int(by_name[x["system"]]["rank best (both)"]) == x["rank_both"][0]


def test_command_table_states_the_rank_intervals(files):
    out = tieaware(files, "qrels", "a.run", "b.run", "c.run", "-m", "P@2", "--ci", "95", "--resamples", "400")
    assert out.returncode == 0, out.stderr
    assert "P@2: 95% intervals" in out.stdout and "over ties," in out.stdout and "over topics," in out.stdout
    assert "over both" in out.stdout and "W/T/L" in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ci", "100"], "--ci must be a confidence level in percent"),
        (["--ci", "0"], "--ci must be a confidence level in percent"),
        (["--ci", "-3"], "--ci must be a confidence level in percent"),
        (["--ci", "95", "--resamples", "0"], "--resamples must be an int >= 1"),
        (["--baseline", "a.run", "--baseline", "z.run"], "--baseline must be one of the run files"),
        (["--format", "html", "-o", "missing/board.html"], "--output cannot be written: its folder does not exist"),
        (["--format", "html", "-o", "."], "--output must be a file path"),
    ],
)
def test_command_bad_input_one_line_before_any_work(files, args, message):
    out = tieaware(files, "qrels", "a.run", "b.run", *args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and message in out.stderr


def test_command_unwritable_output(files, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        import os

        if os.access(locked, os.W_OK):
            pytest.skip("running as a user that can write anywhere (root): permissions are not enforced")
        out = tieaware(files, "qrels", "a.run", "b.run", "--format", "html", "-o", str(locked / "b.html"))
        assert out.returncode == 2 and "--output cannot be written: permission denied" in out.stderr
    finally:
        locked.chmod(0o700)


def test_command_output_file_is_written_whole(files, tmp_path):
    target = tmp_path / "board.csv"
    out = tieaware(files, "qrels", "a.run", "b.run", "-m", "AP", "--ci", "95", "--resamples", "200", "--format", "csv", "-o", str(target))
    assert out.returncode == 0 and out.stdout == ""
    assert target.read_text().startswith("kind,measure,name,other,value") and not list(tmp_path.glob(".tieaware-*"))


def test_plot_draws_the_intervals(three, tmp_path):
    pytest.importorskip("matplotlib")
    qrels, runs = three
    out = compare_systems(qrels, runs, "AP", test=None, ci=95, resamples=100)
    fig = out.plot(str(tmp_path / "board.png"))
    ax = fig.axes[0]
    x = out.intervals["AP"].systems
    notes = {t.get_text() for t in ax.texts}
    for s in out.standings["AP"]:
        topics, both = x[s.system].rank_topics, x[s.system].rank_both
        assert any(f"topics {topics[0]}–{topics[1]}; both {both[0]}–{both[1]}" in n for n in notes)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "95% t interval over tie-breakings" in labels and "95% t interval at the expected values" in labels
    assert (tmp_path / "board.png").stat().st_size > 1000
