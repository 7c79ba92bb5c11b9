"""fast.variance_kernels: its closed forms == the variance over every placement, enumerated with Fractions.

A tie group of n with r relevant: every r-subset of its slots is equally
likely to hold the relevant documents (for the rank statistic: every
permutation of the documents over the ranks).  Each kernel is compared with
``==`` against the plain mean of squares minus the squared mean.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import pytest

from tieaware.fast import variance_kernels
from tieaware.fast.groups import Group
from tieaware.fast.tie_spread import spread_stats
from tieaware.fast.kernels import first_relevant_step, rr_group
from tieaware.fast.variance_kernels import (
    all_relevant,
    ap_group_variance,
    ap_weighted_variance,
    hits_variance,
    hits_variance_from,
    rank_statistic_variance,
    rr_moments,
    rr_variance,
)

N = 7
STARTS = (0, 1, 4)
BEFORE = (0, 1, 3)


def _variance(values: list[Fraction]) -> Fraction:
    mean = sum(values, Fraction(0)) / len(values)
    return sum(((v - mean) ** 2 for v in values), Fraction(0)) / len(values)


def _placements(n: int, r: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(1, n + 1), r))


def _cutoffs(t: int, n: int) -> list:
    # None; above the group; every rank inside it; at its end; past it.
    return [None, *range(max(1, t - 1), t + n + 3)]


def _within(t: int, s: int, k) -> bool:
    return k is None or t + s <= k


@pytest.mark.parametrize("n", range(1, N + 1))
def test_hits_variance(n):
    for r in range(n + 1):
        for m in range(n + 1):
            values = [Fraction(sum(1 for s in p if s <= m)) for p in _placements(n, r)]
            assert hits_variance(m, Fraction(r), Fraction(n)) == _variance(values), (m, r, n)


def test_hits_variance_from_adds_independent_groups():
    sizes, rel = (2, 3, 2), (1, 2, 1)
    summary, start = [], 0
    for s, r in zip(sizes, rel):
        summary.append(Group(start, s, Fraction(r), None))
        start += s
    for k in range(1, start + 3):
        values = []
        for p in itertools.product(*(_placements(s, r) for s, r in zip(sizes, rel))):
            starts = (0, 2, 5)
            values.append(Fraction(sum(1 for g, slots in enumerate(p) for x in slots if starts[g] + x <= k)))
        assert hits_variance_from(summary, k) == _variance(values), k


@pytest.mark.parametrize("n", range(1, N + 1))
def test_rank_statistic_variance(n):
    gains = [Fraction(3), Fraction(0), Fraction(1, 2), Fraction(7), Fraction(1), Fraction(0), Fraction(2)][:n]
    for t in STARTS:
        for k in _cutoffs(t, n):
            weights = [Fraction(1, t + j + 1) if _within(t, j, k) else Fraction(0) for j in range(1, n + 1)]
            values = [sum((g * weights[j] for g, j in zip(gains, perm)), Fraction(0)) for perm in itertools.permutations(range(n))]
            mean = sum(gains, Fraction(0)) / n
            spread = sum(((g - mean) ** 2 for g in gains), Fraction(0))
            w1, w2 = sum(weights, Fraction(0)), sum((w * w for w in weights), Fraction(0))
            assert rank_statistic_variance(spread, w1, w2, n) == _variance(values), (n, t, k)


def _rr_values(t: int, n: int, r: int, k) -> list[Fraction]:
    values = []
    for p in _placements(n, r):
        s = min(p)
        values.append(Fraction(1, t + s) if _within(t, s, k) else Fraction(0))
    return values


@pytest.mark.parametrize("n", range(1, N + 1))
def test_rr_moments_and_variance(n):
    for r in range(1, n + 1):
        for t in STARTS:
            for k in _cutoffs(t, n):
                values = _rr_values(t, n, r, k)
                mean = sum(values, Fraction(0)) / len(values)
                second = sum((v * v for v in values), Fraction(0)) / len(values)
                assert rr_moments(t, n, Fraction(r), k) == (mean, second), (t, n, r, k)
                assert rr_variance(t, n, Fraction(r), k) == _variance(values), (t, n, r, k)


def _first_relevant_weights(r: Fraction, n: Fraction, slots: int) -> list[Fraction]:
    """P(first relevant at slot x), x = 1..slots: the fold of first_relevant_step from f(0) = 1."""
    weights, none_yet = [], Fraction(1)
    for x in range(1, slots + 1):
        weight, none_yet = first_relevant_step(none_yet, x, r, n)
        weights.append(weight)
    return weights


def test_rr_weights_are_the_first_relevant_distribution():
    # The recursion rr_moments folds is the one rr_group folds (first_relevant_step).
    for n in range(1, N + 1):
        for r in range(1, n + 1):
            ws = _first_relevant_weights(Fraction(r), Fraction(n), n)
            assert ws == [Fraction(comb(n - s, r - 1), comb(n, r)) for s in range(1, n + 1)]
            mean = sum((w / (2 + s) for s, w in enumerate(ws, start=1)), Fraction(0))
            assert rr_moments(2, n, Fraction(r), None)[0] == mean == rr_group(2, Fraction(r), Fraction(n), n)


def _ap_values(t: int, n: int, r: int, b: int, k) -> list[Fraction]:
    values = []
    for p in _placements(n, r):
        total, hits = Fraction(0), b
        for s in p:
            hits += 1
            if _within(t, s, k):
                total += Fraction(hits, t + s)
        values.append(total)
    return values


@pytest.mark.parametrize("n", range(1, N + 1))
def test_ap_group_variance(n):
    for r in range(n + 1):
        for t in STARTS:
            for b in BEFORE:
                for k in _cutoffs(t, n):
                    assert ap_group_variance(t, n, Fraction(r), b, k) == _variance(_ap_values(t, n, r, b, k)), (t, n, r, b, k)


def test_ap_weighted_variance_any_weights():
    # The closed form holds for any slot weights c_s, not only 1/(t+s).
    c = [Fraction(5), Fraction(-1, 3), Fraction(2), Fraction(0), Fraction(7, 4), Fraction(1, 9)]
    for n in range(1, len(c) + 1):
        for r in range(n + 1):
            for b in BEFORE:
                values = []
                for p in _placements(n, r):
                    values.append(sum((c[s - 1] * (b + i) for i, s in enumerate(p, start=1)), Fraction(0)))
                assert ap_weighted_variance(c[:n], Fraction(r), b) == _variance(values), (n, r, b)


def test_all_relevant():
    for n in range(1, N + 1):
        for r in range(n + 1):
            for j in range(1, 5):
                count = sum(1 for p in _placements(n, r) if set(range(1, j + 1)) <= set(p)) if j <= n else 0
                assert all_relevant(Fraction(r), n, j) == Fraction(count, len(_placements(n, r)))


def test_singletons_and_floats():
    assert hits_variance(1, Fraction(1), 1) == 0
    assert rank_statistic_variance(Fraction(0), Fraction(1), Fraction(1), 1) == 0
    assert rr_variance(3, 1, Fraction(1), None) == 0
    assert ap_group_variance(3, 1, Fraction(1), 2, None) == 0
    exact = ap_group_variance(2, 5, Fraction(2), 1, 6)
    assert ap_group_variance(2, 5, 2.0, 1, 6) == pytest.approx(float(exact), rel=1e-12)
    assert isinstance(ap_group_variance(0, 3, Fraction(1), 0, None), Fraction)


def test_tie_spread_runs_these_kernels(monkeypatch):
    # The spread of P@k goes through hits_variance_from and so through the kernel "Var P@k" proves.
    ranking = [[1, 0, 0], [1, 0]]
    assert spread_stats("P@2", ranking).variance == Fraction(1, 4) * hits_variance(2, Fraction(1), Fraction(3))
    monkeypatch.setattr(variance_kernels, "hits_variance", lambda m, r, n: m * r * (n - r) / (n * n))
    assert spread_stats("P@2", ranking).variance != Fraction(1, 4) * hits_variance(2, Fraction(1), Fraction(3))
