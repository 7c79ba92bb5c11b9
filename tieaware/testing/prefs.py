"""Hypothesis strategies for preference judgments and the tied runs they judge (trec_eval's -R prefs).

>>> from hypothesis import given
>>> from tieaware import fast, reference
>>> from tieaware.model.prefs import preference_query
>>> from tieaware.strategies import preference_cases
>>> @given(preference_cases())
... def test_prefs_agree(case):
...     lines, ranking = case
...     q = preference_query(lines)
...     assert fast.prefs_measures(q, ranking) == reference.prefs_measures(q, ranking)
>>> test_prefs_agree()
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

__all__ = ["preference_lines", "preference_cases"]


@st.composite
def preference_lines(draw: Any, max_docs: int = 6, max_groups: int = 3, max_subgroups: int = 3) -> list[tuple[str, str, str, Fraction]]:
    """One query's lines ``(jg, jsg, docno, level)``: levels 0-3, each document at most once per sub-group,
    and a document's levels in one jg either all 0 or all above 0 (so trec_eval accepts them); the
    sub-groups of one jg are drawn as one hidden total order, so they never contradict each other."""
    docs = [f"d{i}" for i in range(draw(st.integers(1, max_docs)))]
    lines = []
    for g in range(draw(st.integers(1, max_groups))):
        worth = {d: draw(st.integers(0, 3)) for d in docs}  # the jg's hidden levels: sub-groups agree with them
        for s in range(draw(st.integers(1, max_subgroups))):
            members = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=len(docs), unique=True))
            lines += [(f"u{g}", f"s{s}", d, Fraction(worth[d])) for d in members]
    return lines


@st.composite
def preference_cases(draw: Any, max_docs: int = 6) -> tuple[list[tuple[str, str, str, Fraction]], list[list[str]]]:
    """Preference lines and a run's tie groups (some judged documents unretrieved, some retrieved ones unjudged),
    small enough to enumerate every ordering."""
    lines = draw(preference_lines(max_docs=max_docs))
    pool = sorted({line[2] for line in lines}) + ["x0", "x1"]
    retrieved = draw(st.lists(st.sampled_from(pool), max_size=len(pool), unique=True))
    ranking: list[list[str]] = []
    for d in retrieved:
        if ranking and len(ranking[-1]) < 3 and draw(st.booleans()):
            ranking[-1].append(d)  # tied with the one before
        else:
            ranking.append([d])
    return lines, ranking
