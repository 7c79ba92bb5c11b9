"""Hypothesis strategies for tied rankings, for your own property tests.

>>> from hypothesis import given
>>> from tieaware import fast, reference
>>> @given(tied_rankings(max_size=6))
... def test_precision_agrees(r):
...     assert fast.precision(r, 3) == reference.precision(r, 3)
>>> test_precision_agrees()

Strategies:

- :func:`tied_rankings`: rankings in the input form (labels and tie groups).
- :func:`rankings_with_cutoff`: a ranking and a cutoff k from 1 to n + 2.
- :func:`rankings_with_ideal`: a ranking with few enough tie-breakings to
  enumerate, and the query's judged labels (or None).
- :func:`scores_and_labels`: parallel score and label lists with forced ties.
- :func:`qrels_and_runs`: a qrels dict and a run dict with tied scores.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

from hypothesis import strategies as st

from tieaware.testing.rbo import split_until, tie_structure

__all__ = [
    "labels",
    "tied_rankings",
    "rankings_with_cutoff",
    "rankings_with_ideal",
    "scores_and_labels",
    "qrels_and_runs",
]


def labels(max_label: int = 2) -> st.SearchStrategy[int]:
    """Graded labels 0..max_label, shrinking towards 0 (non-relevant)."""
    return st.integers(min_value=0, max_value=max_label)


def _group_up(values: list, cuts: list[bool]) -> list:
    # cuts[i] says whether a new group starts before values[i + 1].
    out, current = [], [values[0]] if values else []
    for value, cut in zip(values[1:], cuts):
        if cut:
            out.append(current)
            current = [value]
        else:
            current.append(value)
    if current:
        out.append(current)
    return [g if len(g) > 1 else g[0] for g in out]


@st.composite
def tied_rankings(
    draw: Any, min_size: int = 0, max_size: int = 12, label_strategy: Optional[st.SearchStrategy] = None
) -> list:
    """A tied ranking of min_size..max_size documents in the input form.

    Shrinks towards short rankings, label 0 and no ties.
    """
    values = draw(st.lists(labels() if label_strategy is None else label_strategy, min_size=min_size, max_size=max_size))
    cuts = draw(st.lists(st.booleans().map(lambda b: not b), min_size=max(len(values) - 1, 0), max_size=max(len(values) - 1, 0)))
    return _group_up(values, cuts)


@st.composite
def rankings_with_cutoff(draw: Any, max_size: int = 12, label_strategy: Optional[st.SearchStrategy] = None) -> tuple:
    """(ranking, k) with k from 1 to len + 2, so cutoffs past the end are covered."""
    r = draw(tied_rankings(max_size=max_size, label_strategy=label_strategy))
    n = sum(len(x) if isinstance(x, list) else 1 for x in r)
    return r, draw(st.integers(min_value=1, max_value=n + 2))


@st.composite
def rankings_with_ideal(
    draw: Any,
    max_size: int = 7,
    max_orderings: int = 720,
    label_strategy: Optional[st.SearchStrategy] = None,
    max_unretrieved: int = 3,
) -> tuple[list, Optional[list]]:
    """(ranking, ideal): a tied ranking the reference can enumerate, and the query's judged labels.

    The ranking has 0..max_size documents; its groups are halved until it
    has at most *max_orderings* tie-breakings (the product of the group
    sizes' factorials), so ``tieaware.reference`` stays cheap on it.
    *ideal* is None (each layer then uses the ranking's own labels) or every
    label of the ranking plus up to *max_unretrieved* judged labels the run
    did not retrieve, as :func:`tieaware.runs.evaluate.compute` takes it.
    Shrinks towards short rankings, label 0, no ties and no ideal.

    >>> from hypothesis import given
    >>> @given(rankings_with_ideal(max_size=4, max_orderings=6))
    ... def check(pair):
    ...     ranking, ideal = pair
    ...     assert all(len(g) <= 3 for g in ranking if isinstance(g, list))
    ...     assert ideal is None or len(ideal) >= sum(len(g) if isinstance(g, list) else 1 for g in ranking)
    >>> check()
    """
    strategy = labels() if label_strategy is None else label_strategy
    values = draw(st.lists(strategy, max_size=max_size))
    sizes = split_until(draw(tie_structure(len(values))), max_orderings) if values else []
    ranking: list = []
    start = 0
    for n in sizes:
        ranking.append(values[start : start + n] if n > 1 else values[start])
        start += n
    ideal = None
    if draw(st.booleans()):
        ideal = values + draw(st.lists(strategy, max_size=max_unretrieved))
    return ranking, ideal


@st.composite
def scores_and_labels(draw: Any, max_size: int = 12, distinct_scores: int = 4) -> tuple[list[Fraction], list[int]]:
    """Parallel scores and labels; scores come from a few values, so ties are common."""
    n = draw(st.integers(min_value=0, max_value=max_size))
    score = st.integers(min_value=0, max_value=distinct_scores - 1).map(Fraction)
    return draw(st.lists(score, min_size=n, max_size=n)), draw(st.lists(labels(), min_size=n, max_size=n))


@st.composite
def qrels_and_runs(draw: Any, max_queries: int = 3, max_docs: int = 10) -> tuple[dict, dict]:
    """({qid: {docno: label}}, {qid: {docno: score string}}) with tied scores and unjudged docs."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, str]] = {}
    for q in range(draw(st.integers(min_value=1, max_value=max_queries))):
        qid = f"q{q + 1}"
        docs = [f"d{i}" for i in range(draw(st.integers(min_value=1, max_value=max_docs)))]
        qrels[qid] = {d: draw(labels()) for d in docs if draw(st.booleans())}
        run[qid] = {d: str(draw(st.integers(min_value=0, max_value=3))) for d in docs}
    return qrels, run
