"""Hypothesis strategies for tied rankings: the public surface for your own property tests.

This module is a thin public layer over :mod:`tieaware.testing` (as
``hypothesis.strategies`` is over hypothesis's internals); import from here.

>>> from hypothesis import given
>>> from tieaware import fast, reference
>>> from tieaware.strategies import tied_rankings
>>> @given(tied_rankings(max_size=6))
... def test_precision_agrees(r):
...     assert fast.precision(r, 3) == reference.precision(r, 3)
>>> test_precision_agrees()

Rankings of labels (the measures' input form):

- :func:`labels`: graded labels, shrinking towards 0.
- :func:`tied_rankings`: rankings in the input form (labels and tie groups).
- :func:`rankings_with_cutoff`: a ranking and a cutoff k from 1 to n + 2.
- :func:`rankings_with_ideal`: a ranking with few enough tie-breakings to
  enumerate, and the query's judged labels (or None).
- :func:`scores_and_labels`: parallel score and label lists with forced ties.
- :func:`qrels_and_runs`: a qrels dict and a run dict with tied scores.

Rankings of items (RBO's input form):

- :func:`rbo_pairs`, :func:`rbo_rankings`, :func:`untied_rbo_pairs`: rankings
  of items with tie groups; :func:`tie_structure`: group sizes.
- :func:`corr_pairs`, :func:`untied_corr_pairs`: two rankings of the same
  items, for Kendall's τ and τ_AP.

Preferences (trec_eval's ``-R prefs``):

- :func:`preference_lines`: one query's ``(jg, jsg, docno, level)`` lines;
  :func:`preference_cases`: those lines and a run's tie groups.
"""

try:
    import hypothesis  # noqa: F401  (an extra, not a dependency)
except ModuleNotFoundError:  # pragma: no cover - exercised in a subprocess by tests/test_packaging.py
    raise ModuleNotFoundError(
        "tieaware.strategies needs hypothesis, which is not installed: pip install 'tieaware[testing]'", name="hypothesis"
    ) from None

from tieaware.testing.rankings import (
    labels,
    qrels_and_runs,
    rankings_with_cutoff,
    rankings_with_ideal,
    scores_and_labels,
    tied_rankings,
)
from tieaware.testing.rbo import rbo_pairs, rbo_rankings, tie_structure, untied_rbo_pairs
from tieaware.testing.corr import corr_pairs, untied_corr_pairs
from tieaware.testing.prefs import preference_cases, preference_lines

__all__ = [
    "labels",
    "tied_rankings",
    "rankings_with_cutoff",
    "rankings_with_ideal",
    "scores_and_labels",
    "qrels_and_runs",
    "rbo_pairs",
    "rbo_rankings",
    "untied_rbo_pairs",
    "tie_structure",
    "corr_pairs",
    "untied_corr_pairs",
    "preference_lines",
    "preference_cases",
]
