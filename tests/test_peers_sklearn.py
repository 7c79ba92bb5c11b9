"""scikit-learn's tie-averaged DCG and nDCG agree with tieaware.

``sklearn.metrics.dcg_score`` and ``ndcg_score`` with ``ignore_ties=False``
(linear gain, log2 discount) replace each gain by the mean gain of its tie
group (``_tie_averaged_dcg``, which cites McSherry & Najork).  Their ``k``
zeroes the discount of every rank past k, so a tie group that crosses the
cutoff contributes its mean gain times the discounts of its ranks within k
only: the same expectation tieaware computes.  The ideal DCG of
``ndcg_score`` sorts the same row's labels, as tieaware's default ``ideal``
does, and an all-zero row scores 0 in both.

A missing peer skips this module (pytest.importorskip), so a partial
install still runs the rest; .ci/run imports every peer before testing, so
CI fails loudly instead of skipping.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from tieaware import fast, from_scores, reference, to_float

metrics = pytest.importorskip("sklearn.metrics")
dcg_score, ndcg_score = metrics.dcg_score, metrics.ndcg_score

pytestmark = pytest.mark.peers

LAYERS = [pytest.param(reference, id="reference"), pytest.param(fast, id="fast")]


def _cases(count: int = 200, seed: int = 2008) -> list[tuple[list[int], list[int], object]]:
    """(scores, labels, k): integer scores 0..3 force ties; labels 0..3; k None (a quarter of them) or 1..n+1."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.randint(2, 9)
        scores = [rng.randint(0, 3) for _ in range(n)]
        labels = [rng.randint(0, 3) for _ in range(n)]
        k = None if rng.random() < 0.25 else rng.randint(1, n + 1)
        out.append((scores, labels, k))
    # All labels 0: the ideal DCG is 0, and both define nDCG as 0.
    out += [([1, 1, 0], [0, 0, 0], None), ([2, 2, 1], [0, 0, 0], 1)]
    return out


CASES = _cases()


def _close(ours: float, theirs: float) -> bool:
    return math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=0.0)


def test_the_batch_exercises_ties_at_the_cutoff():
    # Not vacuous: many cases have a tie group straddling rank k.
    def straddles(scores, k):
        if k is None:
            return False
        ranked = sorted(scores, reverse=True)
        return k < len(ranked) and ranked[k - 1] == ranked[k]

    assert sum(straddles(s, k) for s, _, k in CASES) >= 40
    assert sum(k is None for _, _, k in CASES) >= 40
    assert sum(all(x == 0 for x in labels) for _, labels, _ in CASES) >= 2


@pytest.mark.parametrize("layer", LAYERS)
def test_dcg_score_matches(layer):
    failures = []
    for scores, labels, k in CASES:
        theirs = dcg_score(np.asarray([labels]), np.asarray([scores]), k=k, ignore_ties=False)
        ours = layer.dcg(from_scores(scores, labels), k)
        if not _close(to_float(ours), theirs):
            failures.append((scores, labels, k, ours, theirs))
    assert not failures, failures[:5]


@pytest.mark.parametrize("layer", LAYERS)
def test_ndcg_score_matches(layer):
    failures = []
    for scores, labels, k in CASES:
        y_true = np.asarray([labels])
        theirs = ndcg_score(y_true, np.asarray([scores]), k=k, ignore_ties=False)
        ours = layer.ndcg(from_scores(scores, labels), k)
        if not _close(to_float(ours), theirs):
            failures.append((scores, labels, k, ours, theirs))
    assert not failures, failures[:5]


def test_float_mode_matches_too():
    for scores, labels, k in CASES:
        theirs = ndcg_score(np.asarray([labels]), np.asarray([scores]), k=k, ignore_ties=False)
        ours = fast.ndcg(from_scores(scores, labels), k, exact=False)
        assert math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=1e-15), (scores, labels, k)


def test_ties_at_the_cutoff_by_hand():
    # sklearn's own docstring example: labels 10 0 0 1 5, scores 1 0 0 0 1, k=1.
    # The top group (scores 1) holds labels 10 and 5; rank 1 gets their mean
    # 15/2, the ideal DCG@1 is 10, so nDCG@1 = 3/4 in both.
    labels, scores = [10, 0, 0, 1, 5], [1, 0, 0, 0, 1]
    assert ndcg_score(np.asarray([labels]), np.asarray([scores]), k=1) == 0.75
    for layer in (reference, fast):
        assert layer.ndcg(from_scores(scores, labels), 1) == Fraction(3, 4)


def test_ignore_ties_true_is_not_tie_aware():
    # Contrast: with ignore_ties=True sklearn picks one ordering, and differs.
    labels, scores = [10, 0, 0, 1, 5], [1, 0, 0, 0, 1]
    arbitrary = ndcg_score(np.asarray([labels]), np.asarray([scores]), k=1, ignore_ties=True)
    assert arbitrary != to_float(fast.ndcg(from_scores(scores, labels), 1))
