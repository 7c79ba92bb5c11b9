"""The vectorised float spread (tieaware.runs.spread_engine) equals tie_spread's exact values on every query.

tie_spread computes each query's min, max and variance exactly (Fractions;
sympy for DCG and nDCG), and is itself checked against the enumeration of
every ordering (tests/test_tie_spread.py, tests/test_uncertainty_api.py).
Here every query of seeded random runs (heavy ties, groups of 1 to ~90,
cutoffs inside, at and past the groups, no relevant document, unjudged
documents) is compared with it to 1e-9 relative.  The AP variance is the
closed form of docs/uncertainty.md ("AP's variance"), so this is also its
check against the exact dynamic program.
"""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from tieaware.runs import spread_engine
from tieaware.io.columns import Prepared, prepare, read_table
from tieaware.model.exact import to_float
from tieaware.fast.tie_spread import spread_stats
from tieaware.model.names import parse

MEASURES = [
    parse(x)
    for x in (
        "P@1 P@5 P@30 R@10 F1@3 P(rel=2)@4 AP AP@7 AP@40 AP(rel=2) RR RR@4 RR(rel=2)@10 "
        "RBP RBP(p=0.5)@6 RBP(p=0.95) DCG DCG@5 nDCG nDCG@3 nDCG(dcg='exp-log2')@10"
    ).split()
]


def _random_run(seed: int, largest: int) -> Prepared:
    rnd = random.Random(seed)
    run, qrels = [], []
    for q in range(rnd.randint(1, 5)):
        buckets = rnd.choice([1, 2, 4, 30])
        for d in range(rnd.randint(1, largest)):
            run.append(f"q{q} Q0 d{d} 0 {rnd.randrange(buckets)} r\n")
            if rnd.random() < 0.8:
                qrels.append(f"q{q} 0 d{d} {rnd.choice([0, 0, 0, 1, 2, 3])}\n")
        for extra in range(rnd.randint(0, 2)):  # relevant, never retrieved
            qrels.append(f"q{q} 0 x{extra} 1\n")
        qrels.append(f"q{q} 0 nothing 0\n")  # every query judged, perhaps with nothing relevant
    return prepare(read_table(io.BytesIO("".join(qrels).encode()), "qrels"), read_table(io.BytesIO("".join(run).encode()), "run"))


def _query_rankings(p: Prepared):
    """(query number, ranking as groups of exact labels, ideal labels) for every query of *p*."""
    starts = np.append(p.query_start, p.rows).tolist()
    bounds = np.append(p.group_start, p.rows).tolist()
    for i in range(len(p.qids)):
        lo, hi = starts[i], starts[i + 1]
        edges = [b for b in bounds if lo <= b <= hi]
        labels = [p.label_values[x] for x in p.label[lo:hi].tolist()]
        ranking = [labels[a - lo : b - lo] for a, b in zip(edges, edges[1:])]
        ideal = [p.label_values[x] for x in p.judged_label[p.judged_query == i].tolist()]
        yield i, ranking, ideal


@pytest.mark.parametrize("seed, largest", [(s, 14) for s in range(12)] + [(100 + s, 90) for s in range(4)])
def test_every_query_equals_tie_spread(seed, largest):
    p = _random_run(seed, largest)
    cache: dict = {}
    arrays = {m: spread_engine.stats(p, m, cache) for m in MEASURES}
    for i, ranking, ideal in _query_rankings(p):
        for m in MEASURES:
            exact = m.name not in ("DCG", "nDCG")  # exact DCG is irrational: compare its float forms
            s = spread_stats(m, ranking, ideal, exact=exact)
            for what, got, want in zip(("worst", "best", "variance"), (a[i] for a in arrays[m]), s[:3]):
                assert float(got) == pytest.approx(to_float(want), rel=1e-9, abs=1e-14), (str(m), what, ranking, ideal)


def test_no_spread_without_ties():
    p = prepare(
        read_table(io.BytesIO(b"q1 0 a 1\nq1 0 c 2\n"), "qrels"),
        read_table(io.BytesIO(b"q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n"), "run"),
    )
    for m in MEASURES:
        worst, best, var = spread_engine.stats(p, m)
        assert worst[0] == pytest.approx(best[0], abs=1e-15) and var[0] == pytest.approx(0.0, abs=1e-15), str(m)


def test_hand_checked_ap_group():
    """One tie group [1, 0, 0] at the top, num_rel 1: AP is 1, 1/2 or 1/3 with equal odds."""
    p = prepare(
        read_table(io.BytesIO(b"q1 0 a 1\n"), "qrels"),
        read_table(io.BytesIO(b"q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\nq1 Q0 c 3 1 r\n"), "run"),
    )
    worst, best, var = spread_engine.stats(p, parse("AP"))
    mean = (1 + 1 / 2 + 1 / 3) / 3
    assert (worst[0], best[0]) == (pytest.approx(1 / 3), pytest.approx(1.0))
    assert var[0] == pytest.approx((1 + 1 / 4 + 1 / 9) / 3 - mean * mean, rel=1e-12)
    # the exact value derived by hand in docs/uncertainty.md ("AP's variance")
    from fractions import Fraction

    from tieaware import fast, reference

    assert fast.variance("AP", [[1, 0, 0]]) == reference.variance("AP", [[1, 0, 0]]) == Fraction(13, 162)


def test_err_is_left_to_the_per_query_path():
    p = _random_run(0, 5)
    assert spread_engine.stats(p, parse("ERR@5")) is None


def test_a_gain_the_labels_cannot_take_is_left_to_the_per_query_path():
    # exp2 gain (2**l - 1) of the label 1/2 is not exact: the engine declines (None) and the per-query
    # path raises the error naming it, instead of the engine failing on a missing gain table
    from fractions import Fraction

    import tieaware
    from tieaware import TieawareError
    from tieaware.io.columns import prepare_dicts

    qrels = {"q": {"a": Fraction(1, 2), "b": Fraction(1)}}
    run = {"q": [("a", Fraction(1)), ("b", Fraction(1)), ("c", Fraction(0))]}
    p = prepare_dicts(qrels, run, ["q"])
    assert spread_engine.stats(p, parse("nDCG(dcg='exp-log2')@10")) is None
    assert spread_engine.stats(p, parse("DCG(dcg='exp-log2')")) is None
    assert spread_engine.stats(p, parse("nDCG@10")) is not None
    with pytest.raises(TieawareError, match="needs integer labels"):
        tieaware.evaluate_spread(qrels, run, "nDCG(dcg='exp-log2')@10")


@pytest.mark.parametrize("p", ["0.9999", "0.999999999"])
def test_rbp_extremes_near_p_one_equal_the_exact_ones(p):
    # Float RBP's worst and best near p = 1, in the engine and in tie_spread's float mode, equal the
    # exact values to 1e-15 relative: both hand the kernel the exact p, so 1 - p is taken before
    # rounding (docs/proofs.md, "Float mode near p = 1"); tie_spread rounded p first and was
    # 2.8e-8 off at p = 0.999999999.
    for m in (parse(f"RBP(p={p})"), parse(f"RBP(p={p})@5")):
        for seed in range(3):
            prepared = _random_run(seed, 14)
            worst, best, _ = spread_engine.stats(prepared, m)
            for i, ranking, ideal in _query_rankings(prepared):
                want = spread_stats(m, ranking, ideal)
                got = spread_stats(m, ranking, ideal, exact=False)
                for a, b, exact in ((worst[i], got.worst, want.worst), (best[i], got.best, want.best)):
                    assert float(a) == pytest.approx(to_float(exact), rel=1e-15, abs=0), (str(m), ranking)
                    assert b == pytest.approx(to_float(exact), rel=1e-15, abs=0), (str(m), ranking)
