"""fast == reference, exactly, on every measure, cutoff and option.

Exhaustive: every tied ranking of up to 6 documents with binary labels and up
to 5 documents over labels {0, 1, 2}; every cutoff from 1 to n + 2 and None;
num_rel at and above the retrieved relevant count; rel 1 and 2.

DCG and nDCG are compared for *every* discount function at once: DCG is
linear in the discount, so it is enough that the layers agree under each
unit discount D(j) = [j == m] (docs/conventions.md, Exactness: the discount as an unknown).
The log2 discount's symbolic values are compared directly on a sample too.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tieaware import fast, reference
from tieaware.strategies import rankings_with_cutoff
from tieaware.model.structures import all_tied_rankings

MEASURES_K = ("precision", "recall", "f1")
MEASURES_OPTIONAL_K = ("average_precision", "reciprocal_rank")


def _size(r) -> int:
    return sum(len(x) if isinstance(x, list) else 1 for x in r)


def _relevant(r, rel) -> int:
    flat = [y for x in r for y in (x if isinstance(x, list) else [x])]
    return sum(1 for y in flat if y >= rel)


def _unit(m: int):
    return lambda j: Fraction(int(j == m))


def _binary_calls(r, rel):
    n = _size(r)
    got_rel = _relevant(r, rel)
    for num_rel in (None, got_rel + 2):
        for k in range(1, n + 3):
            yield "precision", (r, k), {"rel": rel}
            yield "recall", (r, k, num_rel), {"rel": rel}
            yield "f1", (r, k, num_rel), {"rel": rel}
        for k in [None, *range(1, n + 3)]:
            yield "average_precision", (r, k, num_rel), {"rel": rel}
            if num_rel is None:
                yield "reciprocal_rank", (r, k), {"rel": rel}


def _dcg_calls(r, gains):
    n = _size(r)
    for k in [None, *range(1, n + 3)]:
        for gain in gains:
            for m in range(1, n + 3):
                yield "dcg", (r, k), {"gain": gain, "discount": _unit(m)}
            # nDCG mixes positions through its ratio, so check it under a generic rational discount
            # and against a larger ideal (judged documents the ranking missed).
            yield "ndcg", (r, k), {"gain": gain, "discount": lambda j: Fraction(1, j * j + 1)}
            larger = [y for x in r for y in (x if isinstance(x, list) else [x])] + [2, 1, 1, 0]
            yield "ndcg", (r, k, larger), {"gain": gain, "discount": lambda j: Fraction(1, j + 1)}


def _mismatches(calls):
    bad = []
    for name, args, kwargs in calls:
        want = getattr(reference, name)(*args, **kwargs)
        got = getattr(fast, name)(*args, **kwargs)
        if not (type(want) is Fraction and type(got) is Fraction and want == got):
            bad.append((name, args, {k: v for k, v in kwargs.items() if k != "discount"}, want, got))
    return bad


@pytest.mark.parametrize("n", range(0, 7))
def test_exhaustive_binary(n):
    checked = 0
    for r in all_tied_rankings(n, (0, 1)):
        bad = _mismatches(_binary_calls(r, 1)) + _mismatches(_dcg_calls(r, ("linear",)))
        assert not bad, bad[:3]
        checked += 1
    assert checked == sum(1 for _ in all_tied_rankings(n, (0, 1)))


@pytest.mark.parametrize("n", range(0, 6))
def test_exhaustive_graded(n):
    for r in all_tied_rankings(n, (0, 1, 2)):
        calls = [*_binary_calls(r, 1), *_binary_calls(r, 2), *_dcg_calls(r, ("linear", "exp2"))]
        bad = _mismatches(calls)
        assert not bad, bad[:3]


def test_exhaustive_counts():
    # 2**(n-1) tie structures; the number of rankings pins that no case is skipped.
    assert sum(1 for n in range(7) for _ in all_tied_rankings(n, (0, 1))) == 1352
    assert sum(1 for n in range(6) for _ in all_tied_rankings(n, (0, 1, 2))) == 2162


@pytest.mark.parametrize("r", [[3, [2, 3], 0, 1], [[1, 2, 0, 2]], [0, [1, 1, 0], 2, [0, 2]]])
def test_log2_symbolic_values_equal(r):
    for k in (None, 1, 2, 3, 4, 7):
        for gain in ("linear", "exp2"):
            assert fast.dcg(r, k, gain) == reference.dcg(r, k, gain)
            assert fast.ndcg(r, k, None, gain) == reference.ndcg(r, k, None, gain)


labels012 = st.integers(min_value=0, max_value=2)


@given(rankings_with_cutoff(max_size=12, label_strategy=labels012), st.integers(0, 3), st.sampled_from([1, 2]))
def test_hypothesis_binary(case, extra, rel):
    r, k = case
    num_rel = _relevant(r, rel) + extra
    with reference.ordering_limit(10**5):
        for name in MEASURES_K:
            args = (r, k) if name == "precision" else (r, k, num_rel)
            assert getattr(fast, name)(*args, rel=rel) == getattr(reference, name)(*args, rel=rel)
        for kk in (k, None):
            assert fast.average_precision(r, kk, num_rel, rel=rel) == reference.average_precision(r, kk, num_rel, rel=rel)
            assert fast.reciprocal_rank(r, kk, rel=rel) == reference.reciprocal_rank(r, kk, rel=rel)


@given(rankings_with_cutoff(max_size=12, label_strategy=labels012), st.sampled_from(["linear", "exp2"]))
def test_hypothesis_dcg(case, gain):
    r, k = case
    with reference.ordering_limit(10**5):
        for m in range(1, k + 1):
            assert fast.dcg(r, k, gain, _unit(m)) == reference.dcg(r, k, gain, _unit(m))
        d = lambda j: Fraction(1, j + 3)  # noqa: E731
        assert fast.ndcg(r, k, None, gain, d) == reference.ndcg(r, k, None, gain, d)


@given(rankings_with_cutoff(max_size=12, label_strategy=labels012))
def test_float_mode_close_to_exact(case):
    r, k = case
    for name, args in [("precision", (r, k)), ("average_precision", (r, k)), ("reciprocal_rank", (r, k)), ("ndcg", (r, k))]:
        exact = float(getattr(fast, name)(*args)) if name != "ndcg" else float(fast.ndcg(*args).evalf(30)) if not isinstance(fast.ndcg(*args), Fraction) else float(fast.ndcg(*args))
        approx = getattr(fast, name)(*args, exact=False)
        assert isinstance(approx, float)
        assert approx == pytest.approx(exact, rel=1e-12, abs=1e-15)
