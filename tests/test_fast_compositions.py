"""Public functions of tieaware.fast that no theorem calls directly are compositions of ones that are proved.

docs/proofs.md ("Functions reached through another") names, for each, the
theorem that covers the kernel it calls; each test here checks, exactly and
on every tied ranking of a few documents (or many drawn ones), that the
public function equals that composition, so a change to either shows.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from tieaware import fast
from tieaware.fast.rbo_uncertainty import rbo_best_orderings, rbo_worst_orderings
from tieaware.model.names import parse
from tieaware.runs.evaluate import compute


def _tied_rankings(size: int, labels: tuple[int, ...] = (0, 1, 2)) -> list[list]:
    """Every ranking of *size* documents with these labels, in every tie structure (groups as lists)."""
    out = []
    for values in itertools.product(labels, repeat=size):
        for cuts in itertools.product((False, True), repeat=size - 1):
            ranking, group = [], [values[0]]
            for cut, v in zip(cuts, values[1:]):
                if cut:
                    ranking.append(group)
                    group = [v]
                else:
                    group.append(v)
            ranking.append(group)
            out.append([g[0] if len(g) == 1 else g for g in ranking])
    return out


RANKINGS = [r for n in (1, 2, 3, 4) for r in _tied_rankings(n)]


def _relevant(r: list) -> int:
    return sum(1 for g in r for x in (g if isinstance(g, list) else [g]) if x >= 1)


def _length(r: list) -> int:
    return sum(len(g) if isinstance(g, list) else 1 for g in r)


def test_r_precision_is_precision_at_R():
    # R-prec = P@R (theorem "P@k": expected_hits over the groups), 0 without a relevant document
    for r in RANKINGS:
        R = _relevant(r)
        assert fast.r_precision(r) == (fast.precision(r, R) if R else 0), r


def test_r_precision_multiple_is_precision_at_a_multiple_of_R():
    for r in RANKINGS:
        R = _relevant(r)
        for multiple in (1, 2, 3):
            assert fast.r_precision_multiple(r, multiple) == (fast.precision(r, multiple * R) if R else 0), (r, multiple)


def test_relative_precision_is_precision_rescaled():
    # relative_P@k = hits@k / min(k, R) = P@k · k / min(k, R)
    for r in RANKINGS:
        R = _relevant(r)
        for k in (1, 2, 3, 5):
            want = fast.precision(r, k) * k / min(k, R) if R else 0
            assert fast.relative_precision(r, k) == want, (r, k)


def test_eleven_point_average_is_the_mean_of_interpolated_precisions():
    # interpolated_precision is iprec_stats' mean (theorem "iprec"); 11pt_avg the mean over the levels
    levels = [Fraction(i, 10) for i in range(11)]
    for r in RANKINGS:
        want = sum((fast.interpolated_precision(r, x) for x in levels), Fraction(0)) / len(levels)
        assert fast.eleven_point_average(r) == want, r


def test_rbp_residual_is_p_to_the_depth_whatever_the_ties():
    # the weight RBP leaves past the depth evaluated: p^depth, the same for every tie structure (no expectation)
    for r in RANKINGS:
        for p, k in ((Fraction(1, 2), None), (Fraction(4, 5), 2)):
            depth = _length(r) if k is None else k
            assert fast.rbp_residual(r, p, k) == p**depth, (r, p, k)


@pytest.mark.parametrize("name", ["P@2", "R@2", "AP", "AP@2", "RR", "nDCG", "nDCG@2", "DCG@3", "RBP(p=0.5)", "F1@2"])
def test_best_and_worst_orderings_attain_best_and_worst(name):
    # theorem "extremes": every group sorted by label attains the max (descending) and the min (ascending)
    m = parse(name)
    for r in RANKINGS:
        groups = [g if isinstance(g, list) else [g] for g in r]
        ideal = [x for g in groups for x in g]
        assert compute(m, fast.best_ordering(m, groups, ideal), ideal=ideal) == fast.best(m, groups, ideal), (name, r)
        assert compute(m, fast.worst_ordering(m, groups, ideal), ideal=ideal) == fast.worst(m, groups, ideal), (name, r)


def _rbo_pairs(count: int = 60) -> list[tuple[list, list]]:
    rng = random.Random(37)
    pairs = []
    for _ in range(count):
        items = [f"d{i}" for i in range(rng.randint(1, 7))]
        S = rng.sample(items, rng.randint(1, len(items)))
        L = rng.sample(items, rng.randint(1, len(items)))

        def tie(xs):
            out, i = [], 0
            while i < len(xs):
                n = rng.randint(1, 3)
                chunk = xs[i : i + n]
                out.append(tuple(chunk) if len(chunk) > 1 else chunk[0])
                i += n
            return out

        pairs.append((tie(S), tie(L)))
    return pairs


def test_rbo_is_one_bound_of_rbo_bounds():
    # the kernels behind rbo_bounds are the RBO theorems'; rbo picks one bound of one variant
    for S, L in _rbo_pairs():
        for variant in ("w", "a", "b"):
            bounds = fast.rbo_bounds(S, L, Fraction(9, 10), variant=variant)
            for bound in ("min", "max", "ext", "res"):
                assert fast.rbo(S, L, Fraction(9, 10), variant=variant, bound=bound) == getattr(bounds, bound), (S, L, variant, bound)


def test_rbo_best_and_worst_are_the_expectation_on_their_orderings():
    # theorem "RBO expected" covers rbo_expected_bounds; best and worst evaluate it on untied orderings
    for S, L in _rbo_pairs():
        best = fast.rbo_expected_bounds(*rbo_best_orderings(S, L), Fraction(9, 10))
        worst = fast.rbo_expected_bounds(*rbo_worst_orderings(S, L), Fraction(9, 10))
        expected = fast.rbo_expected_bounds(S, L, Fraction(9, 10))
        for bound in ("min", "max", "ext", "res"):
            assert fast.rbo_best(S, L, Fraction(9, 10), bound=bound) == getattr(best, bound)
            assert fast.rbo_worst(S, L, Fraction(9, 10), bound=bound) == getattr(worst, bound)
        assert worst.ext <= expected.ext <= best.ext, (S, L)


def test_kendall_tau_expected_is_tau_a_and_tau_b_rescales_it():
    # theorem "τ_a = E[τ]" covers the counts kendall_tau reads; τ_b = τ_a·n0/√((n0 − n1)(n0 − n2))
    rng = random.Random(41)

    def tied(items):  # a random order of the items, cut into tie groups of 1 to 3
        items = rng.sample(items, len(items))
        groups, i = [], 0
        while i < len(items):
            size = rng.randint(1, 3)
            groups.append(tuple(items[i : i + size]))
            i += size
        return [g if len(g) > 1 else g[0] for g in groups], sum(len(g) * (len(g) - 1) // 2 for g in groups)

    for _ in range(200):
        n = rng.randint(2, 6)
        items = [f"i{k}" for k in range(n)]
        (x, n1), (y, n2) = tied(items), tied(items)
        a = fast.kendall_tau(x, y, "a")
        assert fast.kendall_tau_expected(x, y) == a
        n0 = n * (n - 1) // 2
        if n1 == n0 or n2 == n0:
            continue
        b = fast.kendall_tau(x, y, "b", exact=False)
        assert b == pytest.approx(float(a) * n0 / ((n0 - n1) * (n0 - n2)) ** 0.5, rel=1e-12, abs=1e-15), (x, y)


def test_trec_ndcg_is_ndcg_with_the_labels_as_gains():
    # trec_eval's ndcg with its default gains (the labels) is nDCG with linear gains (theorem "nDCG@k")
    for r in RANKINGS:
        groups = [g if isinstance(g, list) else [g] for g in r]
        ideal = [x for g in groups for x in g]
        if not any(ideal):
            continue
        for k in (None, 2):
            assert fast.trec_ndcg(groups, k, ideal) == fast.ndcg(groups, k, ideal), (r, k)
