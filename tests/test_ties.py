"""tieaware.ties: the tie census, the float formats of tied scores and the cost of the ties, against brute force."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

import tieaware
from tieaware.runs.tie_census import FORMATS, narrowest, representable, round_fraction, round_to
from tieaware.runs.ties import rounded_scores, verdict_precision

# ------------------------------------------------------------------ every value of the narrow formats, enumerated

ALL_F16 = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float64)
ALL_F16 = ALL_F16[np.isfinite(ALL_F16)]
with np.errstate(invalid="ignore"):
    ALL_BF16 = (np.arange(2**16, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
ALL_BF16 = ALL_BF16[np.isfinite(ALL_BF16)]
SETS = {"float16": set(ALL_F16.tolist()), "bfloat16": set(ALL_BF16.tolist())}


def _samples(seed: int, n: int = 4000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picks = [
        rng.standard_normal(n),
        rng.choice(ALL_F16, n) + rng.choice([0.0, 2.0**-30, -(2.0**-25)], n),
        rng.choice(ALL_BF16, n),
        np.ldexp(rng.integers(-300, 300, n).astype(np.float64), rng.integers(-160, 20, n)),  # subnormal ranges
        (rng.choice(ALL_F16, n) + np.nextafter(rng.choice(ALL_F16, n), np.inf)) / 2,  # midpoints: ties to even
        rng.choice([65504.0, 65520.0, 65519.99, 3.4e38, 3.3895313892515355e38, 3.3961775292304e38], n),
    ]
    return np.concatenate(picks)


@pytest.mark.parametrize("seed", range(3))
def test_representable_is_membership_in_the_enumerated_formats(seed):
    v = _samples(seed)
    for fmt, values in SETS.items():
        held = round_to(v, fmt) == v
        assert held.tolist() == [x in values for x in v.tolist()]
    assert ((round_to(v, "float32") == v) == (v.astype(np.float32).astype(np.float64) == v)).all()


@pytest.mark.parametrize("seed", range(3))
def test_rounding_is_to_the_nearest_value_ties_to_even(seed):
    v = _samples(seed, 1500)
    for fmt, values in SETS.items():
        grid = np.array(sorted(values))
        got = round_to(v, fmt)
        for x, r in zip(v.tolist(), got.tolist()):
            i = int(np.searchsorted(grid, x))
            below, above = grid[max(i - 1, 0)], grid[min(i, len(grid) - 1)]
            if x in values:
                assert r == x
                continue
            if x > grid[-1] or x < grid[0]:
                continue  # beyond the largest finite value: checked by the overflow test
            d_lo, d_hi = Fraction(x) - Fraction(below), Fraction(above) - Fraction(x)
            if d_lo != d_hi:
                assert r == (below if d_lo < d_hi else above)
            else:  # a tie: the one with an even last bit
                assert r in (below, above)
        # the Fraction path agrees with the array path, value by value
        for x, r in zip(v.tolist()[:300], got.tolist()[:300]):
            assert round_fraction(Fraction(x), fmt) == (Fraction(r) if np.isfinite(r) else r)
    # numpy's own float16 and float32 casts round correctly: the same values
    with np.errstate(over="ignore"):
        assert (round_to(v, "float16") == v.astype(np.float16).astype(np.float64)).all()
        assert (round_to(v, "float32") == v.astype(np.float32).astype(np.float64)).all()


def test_overflow_and_formats_of_exact_values():
    assert round_to(np.array([65519.99, 65520.0, -70000.0]), "float16").tolist() == [65504.0, np.inf, -np.inf]
    assert narrowest(Fraction(1, 10)) == "decimal:1" and narrowest(Fraction("0.125")) == "bfloat16"
    assert narrowest(Fraction("1.001")) == "decimal:4" and narrowest(Fraction(1, 3)) == "exact"
    assert narrowest(2049.0) == "float32"  # 12 significant bits: no bfloat16 (8), no float16 (11)
    assert narrowest(Fraction(2047, 2)) == "float16" and representable(Fraction(2047, 2), "float32")
    assert representable(Fraction("12.5"), "decimal:3") and not representable(Fraction("12.5"), "decimal:2")


# ------------------------------------------------------------------ the census, against counting by hand


def _census_by_hand(m: np.ndarray, ks):
    out = []
    for row in m.tolist():
        counts: dict = {}
        for x in row:
            counts[x] = counts.get(x, 0) + 1
        groups = [c for c in counts.values() if c > 1]
        ranked = sorted(row, reverse=True)
        shares = {k: Fraction(sum(1 for x in ranked[:k] if counts[x] > 1), min(k, len(row))) for k in ks}
        out.append((len(groups), sum(groups), max(groups, default=1), shares))
    return out


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
@pytest.mark.parametrize("seed", range(4))
def test_census_counts_every_group(dtype, seed):
    rng = random.Random(seed)
    pool = [0.1, 0.25, 0.3, 0.5, 1.0, 1 + 2**-9, 1 + 2**-20, 3.0] if dtype != np.int32 else [0, 1, 2, 3, 7]
    m = np.array([[rng.choice(pool) for _ in range(7)] for _ in range(6)], dtype=dtype)
    r = tieaware.ties(m, k=[1, 3, 20])
    hand = _census_by_hand(m.astype(np.float64), [1, 3, 20])
    c = r.census
    for i, (g, t, largest, shares) in enumerate(hand):
        q = str(i)
        assert (c.tie_groups[q], c.tied_documents[q], c.largest_group[q]) == (g, t, largest)
        assert {k: c.tied_at_k[k][q] for k in (1, 3, 20)} == shares
    for k in (1, 3, 20):
        assert c.overall_tied_at_k[k] == Fraction(sum(s[3][k] * min(k, 7) for s in hand), len(hand) * min(k, 7))
    # every group's format is the narrowest that holds its score; per format, the tied documents it holds
    values = m.astype(np.float64)
    by_hand = []
    for i, row in enumerate(values.tolist()):
        for x in sorted(set(row), reverse=True):
            if row.count(x) > 1:
                by_hand.append((str(i), row.count(x), x))
    assert list(c.groups) == [(q, n, narrowest(x)) for q, n, x in by_hand]
    for fmt in FORMATS:
        assert c.representable[fmt] == sum(n for _, n, x in by_hand if x in SETS.get(fmt, ()) or (fmt not in SETS and representable(x, fmt)))
    # the ties left per format: rounding the given scores by numpy's casts and counting
    for fmt, (groups, tied) in c.rounded.items():
        rows = round_to(values, fmt)
        want = _census_by_hand(rows, [1])
        assert (groups, tied) == (sum(w[0] for w in want), sum(w[1] for w in want))


def test_representable_counts_are_per_format_not_nested():
    m = np.array([[0.5, 0.5, 2049.0, 2049.0, 1 + 2**-9, 1 + 2**-9, 0.1, 0.1]])  # bf16&f16, f32, f16 only, f64
    c = tieaware.ties(m).census
    assert [g[2] for g in c.groups] == ["float32", "float16", "bfloat16", "float64"]
    assert c.representable == {"bfloat16": 2, "float16": 4, "float32": 6, "float64": 8}
    assert c.rounded["bfloat16"] == (4, 8) and c.rounded["float64"] == (4, 8)  # 1 + 2**-9 rounds to 1.0 in bf16 - no merge


def test_text_runs_are_exact_decimals():
    run = {"q1": {"a": "0.1", "b": "0.10", "c": "0.5", "d": "0.5", "e": "0.30000000000000004"}, "q2": {"x": "1"}}
    r = tieaware.ties(run, k=2)
    assert sorted(g[2] for g in r.census.groups) == ["bfloat16", "decimal:1"]
    assert r.census.tied_at_k[2] == {"q1": Fraction(1), "q2": Fraction(0)}
    # rounded to float64, 0.30000000000000004 stays apart from 0.1; in bfloat16 nothing new merges here
    assert r.census.rounded["float64"] == (2, 4)


# ------------------------------------------------------------------ the cost, against enumerating tie-breakings


def _orderings(row):
    groups: dict = {}
    for j, x in enumerate(row):
        groups.setdefault(x, []).append(j)
    blocks = [groups[x] for x in sorted(groups, reverse=True)]
    for perms in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [j for p in perms for j in p]


def _rr(order, rel, k):
    for i, j in enumerate(order[:k]):
        if j in rel:
            return Fraction(1, i + 1)
    return Fraction(0)


def _ap(order, rel):
    hits, total = 0, Fraction(0)
    for i, j in enumerate(order):
        if j in rel:
            hits += 1
            total += Fraction(hits, i + 1)
    return total / len(rel)


def _p(order, rel, k):
    return Fraction(sum(1 for j in order[:k] if j in rel), k)


@pytest.mark.parametrize("seed", range(6))
def test_cost_is_the_mean_min_and_max_over_every_tie_breaking(seed):
    rng = random.Random(seed)
    m = np.array([[rng.choice([0.25, 0.5, 0.75]) for _ in range(5)] for _ in range(4)], dtype=np.float16)
    rel = [set(rng.sample(range(5), rng.randint(1, 3))) for _ in range(4)]
    r = tieaware.ties(m, rel, measures="RR@3 AP P@2", tie_break="input")
    fns = {"RR@3": lambda o, s: _rr(o, s, 3), "AP": _ap, "P@2": lambda o, s: _p(o, s, 2)}
    for name, f in fns.items():
        mc = r.cost[name]
        exp, worst, best, input_order = [], [], [], []
        for i, row in enumerate(m.astype(np.float64).tolist()):
            values = [f(o, rel[i]) for o in _orderings(row)]
            exp.append(sum(values, Fraction(0)) / len(values))
            worst.append(min(values))
            best.append(max(values))
            stable = sorted(range(5), key=lambda j: -row[j])
            input_order.append(f(stable, rel[i]))
            assert mc.per_query[str(i)] == (exp[-1], worst[-1], best[-1], input_order[-1])
        assert (mc.expected, mc.worst, mc.best, mc.oblivious) == (sum(exp) / 4, sum(worst) / 4, sum(best) / 4, sum(input_order) / 4)
        moved = sorted(((str(i), best[i] - worst[i]) for i in range(4) if best[i] != worst[i]), key=lambda e: (-e[1], e[0]))
        assert list(mc.most_moved) == moved


def test_cost_of_a_run_and_its_reference():
    run = {"q1": {"a": 0.5, "b": 0.5, "c": 0.25}, "q2": {"a": 1, "b": 1}}
    ref = {"q1": {"a": 0.5, "b": 0.50390625, "c": 0.25}, "q2": {"a": 1, "b": 1}}
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    r = tieaware.ties(run, qrels, measures="RR@10", reference_scores=ref)
    assert r.separated == Fraction(1, 2) and r.fully_separated == Fraction(1, 2)
    mc = r.cost["RR@10"]
    assert (mc.expected, mc.worst, mc.best) == (Fraction(3, 4), Fraction(1, 2), Fraction(1))
    assert mc.reference == Fraction(1, 2) * (Fraction(1, 2) + Fraction(3, 4))  # q1: a second; q2 still tied
    assert mc.reference_per_query == {"q1": Fraction(1, 2), "q2": Fraction(3, 4)}


def test_matrix_reference_separation_by_hand():
    low = np.array([[0.5, 0.5, 0.5, 0.25, 0.25], [1.0, 1.0, 0.0, 0.0, 0.0]], dtype=np.float16)
    high = np.array([[0.5, 0.51, 0.52, 0.25, 0.25], [1.0, 1.0, 0.0, 0.1, 0.0]])
    r = tieaware.ties(low, reference_scores=high)
    # groups: {0,1,2} all apart, {3,4} equal, {0,1} equal, {2,3,4} partly apart
    assert r.separated == Fraction(2, 4) and r.fully_separated == Fraction(1, 4)


def test_verdict_precision_brute_force():
    a = np.array([[0.5, 0.5 + 2**-10, 0.1], [0.3, 0.2, 0.1]])
    b = np.array([[0.9, 0.2, 0.1], [0.3, 0.2, 0.1]])
    assert verdict_precision(a, b, [{1}, {0}], "RR@10") == {"RR@10": "float16"}
    same = verdict_precision(b, b, [{1}, {0}], "RR@10")
    assert same == {"RR@10": "bfloat16"}  # no ties at any format: equal, settled


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: tieaware.ties(np.array([[0.1, np.nan]])), "scores"),
        (lambda: tieaware.ties(np.array([0.1, 0.2])), "scores"),
        (lambda: tieaware.ties(np.ones((2, 3)), np.ones((3, 2)), measures="P@1"), "labels"),
        (lambda: tieaware.ties(np.ones((2, 3)), reference_scores=np.ones((2, 4))), "reference_scores"),
        (lambda: tieaware.ties({"q": {"a": 1, "b": 1}}, reference_scores={"q": {"a": 1, "c": 1}}), "reference_scores"),
        (lambda: tieaware.ties(np.ones((2, 3)), k=0), "k"),
        (lambda: tieaware.ties(np.ones((2, 3)), measures="P@1"), "labels"),
        (lambda: tieaware.ties(np.ones((2, 3)), [{0}, {1}], tie_break="galago"), "tie_break"),
    ],
)
def test_bad_input_names_the_argument(call, argument):
    with pytest.raises(tieaware.TieawareError, match=argument):
        call()


# ------------------------------------------------------------------ the command


def _files(tmp_path):
    (tmp_path / "low.run").write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\nq2 Q0 d1 1 0.75 r\nq2 Q0 d9 2 0.75 r\nq2 Q0 d3 3 0.75 r\n")
    (tmp_path / "high.run").write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.5078125 r\nq1 Q0 d3 3 0.1 r\nq2 Q0 d1 1 0.75 r\nq2 Q0 d9 2 0.76 r\nq2 Q0 d3 3 0.74 r\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d3 1\n")
    return tmp_path


def test_command_table_json_and_plot(tmp_path, capsys):
    import json

    from tieaware.cli import main

    d = _files(tmp_path)
    args = [str(d / "low.run"), str(d / "qrels"), "-m", "RR@10 P@1", "-k", "1,2", "--tie-break", "trec_eval", "--reference", str(d / "high.run")]
    assert main(["ties", *args]) == 0
    table = capsys.readouterr().out
    assert "100.0% of tied documents carry bfloat16-representable scores" in table
    assert "the reference scores separate 100.0% of the tie groups" in table
    # RR@10: q1 a 1/2-1 tie (3/4), q2 the relevant d3 in a group of 3 (11/18): mean 49/72
    assert "RR@10    0.6806     0.4167  1.0000  0.5000     0.4167" in table
    assert main(["ties", *args, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["tie_groups"] == 2 and got["tied_documents"] == 5 and got["tied_at_k"] == {"1": 1.0, "2": 1.0}
    assert got["measures"]["RR@10"]["expected"] == 49 / 72 and got["measures"]["RR@10"]["oblivious"] == 0.5
    assert got["reference"] == {"separated": 1.0, "fully_separated": 1.0}
    pytest.importorskip("matplotlib")
    assert main(["ties", *args, "--plot", str(d / "p.png")]) == 0
    assert (d / "p.png").stat().st_size > 1000


def test_command_on_a_matrix(tmp_path, capsys):
    from tieaware.cli import main

    np.save(tmp_path / "m.npy", np.array([[0.5, 0.5, 0.1], [0.2, 0.2, 0.2]], dtype=np.float16))
    np.save(tmp_path / "g.npy", np.array([[1, 0, 0], [0, 0, 1]]))
    assert main(["ties", str(tmp_path / "m.npy"), str(tmp_path / "g.npy"), "-m", "P@1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 queries, 6 documents: 2 tie groups, 5 tied documents")
    assert "P@1      0.4167     0.0000  1.0000" in out


@pytest.mark.parametrize(
    "extra, names",
    [
        (["{d}/nan.run"], "score is NaN"),
        (["{d}/bad.npy"], "RUN every score must be a finite number"),
        (["{d}/m.npy", "{d}/g2.npy"], "QRELS must have the scores' shape"),
        (["{d}/low.run", "--reference", "{d}/other.run"], "--reference must score exactly the run's documents"),
        (["{d}/low.run", "--reference", "{d}/missing.run"], "--reference does not exist"),
        (["{d}/low.run", "-m", "P@1"], "QRELS is needed"),
        (["{d}/low.run", "-k", "0"], "-k must be cutoffs"),
        (["{d}/low.run", "{d}/qrels", "--tie-break", "galago"], "--tie-break must be"),
    ],
)
def test_command_bad_input_is_one_line(tmp_path, capsys, extra, names):
    from tieaware.cli import main

    d = _files(tmp_path)
    (d / "nan.run").write_text("q1 Q0 d1 1 nan r\n")
    (d / "other.run").write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 dX 2 0.5 r\nq1 Q0 d3 3 0.1 r\nq2 Q0 d1 1 0.75 r\nq2 Q0 d9 2 0.75 r\nq2 Q0 d3 3 0.75 r\n")
    np.save(d / "bad.npy", np.array([[0.5, np.nan, 0.1]]))
    np.save(d / "m.npy", np.ones((2, 3)))
    np.save(d / "g2.npy", np.ones((3, 3)))
    assert main(["ties", *(x.format(d=d) for x in extra)]) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert names in captured.err and len(captured.err.strip().splitlines()) == 1


def test_versus_gives_the_verdict_precision(tmp_path, capsys):
    from tieaware.cli import main

    a = np.array([[0.5, 0.5 + 2**-10, 0.1], [0.3, 0.2, 0.1]])
    b = np.array([[0.9, 0.2, 0.1], [0.3, 0.2, 0.1]])
    r = tieaware.ties(a, [{1}, {0}], measures="RR@10", versus=b)
    assert r.verdict == verdict_precision(a, b, [{1}, {0}], "RR@10") == {"RR@10": "float16"}
    # the same two systems as runs: float16 scores of a tie in bfloat16 only
    run_a = {"q1": {"x": 0.5, "y": 0.5 + 2**-10, "z": 0.1}}
    run_b = {"q1": {"x": 0.9, "y": 0.2, "z": 0.1}}
    assert verdict_precision(run_a, run_b, {"q1": {"y": 1}}, "RR@10") == {"RR@10": "float16"}
    # by hand: at bfloat16, a's y ties x for first (RR 3/4, worst 1/2), b's y is second (1/2): not settled
    low = rounded_scores(run_a, "bfloat16")
    assert low["q1"][0][1] == low["q1"][1][1]
    d = _files(tmp_path)
    (d / "b.run").write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.2 r\nq1 Q0 d3 3 0.1 r\nq2 Q0 d1 1 0.75 r\nq2 Q0 d9 2 0.75 r\nq2 Q0 d3 3 0.75 r\n")
    assert main(["ties", str(d / "high.run"), str(d / "qrels"), "-m", "RR@10", "--versus", str(d / "b.run")]) == 0
    assert "no longer depends on ties from: RR@10 bfloat16" in capsys.readouterr().out
    with pytest.raises(tieaware.TieawareError, match="versus"):
        tieaware.ties(a, [{1}, {0}], versus=np.ones((3, 3)))


def test_text_scores_printed_from_low_precision_values_count_as_them():
    rng = np.random.default_rng(5)
    f32 = rng.random(300, dtype=np.float32).astype(np.float64)
    half = rng.random(300).astype(np.float16).astype(np.float64)
    for values, fmt in ((f32, "float32"), (half, "float16")):
        for y in values.tolist():
            got = narrowest(Fraction(repr(y)))  # the text a Python float prints
            assert got == narrowest(y) and FORMATS.index(got) <= FORMATS.index(fmt)
    run = {"q": {"a": repr(float(np.float32(0.1))), "b": repr(float(np.float32(0.1))), "c": "0.1", "d": "0.1"}}
    assert sorted(g[2] for g in tieaware.ties(run).census.groups) == ["decimal:1", "float32"]
