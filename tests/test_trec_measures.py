"""Rprec and Success@k: fast == reference exactly, and both == trec_eval on untied input.

- Exhaustive: every tie structure and labelling up to 6 documents (binary)
  and 4 (grades 0-2 with rel=1 and rel=2), every cutoff up to one past the
  end, num_rel from 0 to two more than retrieved.
- Hypothesis beyond, with the project's public strategies.
- Golden values from outside: trec_eval (through pytrec_eval, which embeds
  trec_eval 9.0.x) on untied rankings: Rprec and success_k.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given

from tieaware import fast, reference
from tieaware.ranking import flatten, groups
from tieaware.strategies import rankings_with_cutoff
from tieaware.structures import all_tied_rankings


def _retrieved(r, rel) -> int:
    return sum(1 for x in flatten(groups(r)) if x >= rel)


def _check(r, k, rel):
    assert fast.success(r, k, rel=rel) == reference.success(r, k, rel=rel), (r, k, rel)
    base = _retrieved(r, rel)
    for num_rel in (None, *range(base, base + 3)):
        assert fast.r_precision(r, num_rel, rel=rel) == reference.r_precision(r, num_rel, rel=rel), (r, num_rel, rel)


@pytest.mark.parametrize("n", range(1, 7))
def test_exhaustive_binary(n):
    for r in all_tied_rankings(n, (0, 1)):
        for k in range(1, n + 2):
            _check(r, k, 1)


@pytest.mark.parametrize("n", range(1, 5))
def test_exhaustive_graded(n):
    for r in all_tied_rankings(n, (0, 1, 2)):
        for k in range(1, n + 2):
            for rel in (1, 2):
                _check(r, k, rel)


@given(rankings_with_cutoff())
def test_hypothesis(case):
    r, k = case
    _check(r, k, 1)
    assert fast.success(r, k, exact=False) == pytest.approx(float(reference.success(r, k)), abs=1e-12)
    assert fast.r_precision(r, exact=False) == pytest.approx(float(reference.r_precision(r)), abs=1e-12)


def test_by_hand():
    # Success@2 of [0, [0, 1, 0]]: rank 1 is non-relevant; the relevant document
    # takes rank 2 in 1 of the 3 orderings of the group: 1/3.
    assert fast.success([0, [0, 1, 0]], 2) == reference.success([0, [0, 1, 0]], 2) == Fraction(1, 3)
    # Success@2 of [[0, 1, 0, 1]]: no relevant in 2 slots of 4 with 2 relevant:
    # C(2, 2)/C(4, 2) = 1/6, so 5/6.
    assert fast.success([[0, 1, 0, 1]], 2) == Fraction(5, 6)
    # Rprec of [[1, 0, 0], 1] with R = 2: the top 2 are two of the group's three
    # slots, expected hits 2·(1/3), over R = 2: 1/3.  With R = 4 (more than
    # retrieved... the ranking has 4 documents, 2 relevant): (1 + 1) / 4 = 1/2.
    assert fast.r_precision([[1, 0, 0], 1], num_rel=2) == Fraction(1, 3)
    assert fast.r_precision([[1, 0, 0], 1], num_rel=4) == Fraction(1, 2)
    # R = 0: trec_eval gives 0.
    assert fast.r_precision([[0, 0], 0]) == reference.r_precision([[0, 0], 0]) == 0


pytrec_eval = pytest.importorskip("pytrec_eval")


@pytest.mark.peers
@pytest.mark.parametrize("seed", range(20))
def test_trec_eval_on_untied_input(seed):
    """trec_eval's Rprec and success_k (via pytrec_eval) equal ours on untied rankings."""
    rng = random.Random(seed)
    n = rng.randint(1, 15)
    labels = [rng.choice((0, 0, 1, 2)) for _ in range(n)]
    unretrieved = rng.randint(0, 3)  # judged relevant documents the run missed
    run = {"q": {f"d{i}": float(n - i) for i in range(n)}}  # distinct scores: no ties
    qrels = {"q": {f"d{i}": labels[i] for i in range(n)}}
    qrels["q"].update({f"m{j}": 1 for j in range(unretrieved)})
    if not any(v >= 1 for v in qrels["q"].values()):
        qrels["q"]["m_extra"] = 1
    got = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec", "success"}).evaluate(run)["q"]
    num_rel = sum(1 for v in qrels["q"].values() if v >= 1)
    assert float(fast.r_precision(labels, num_rel)) == pytest.approx(got["Rprec"], abs=1e-12)
    for k in (1, 5, 10):
        assert float(fast.success(labels, k)) == got[f"success_{k}"]
