"""Hypothesis strategies for pairs of RBO rankings with ties.

A ranking is drawn as distinct items from a small shared pool (so the two
rankings overlap partly, fully or not at all), cut into tie groups, each
group written as a list, tuple, set or frozenset.  To keep the enumerating
reference fast, groups are split until the pair has at most
*max_orderings* tie-breakings (Π of group-size factorials over both).

>>> from hypothesis import given
>>> @given(rbo_pairs(max_items=4))
... def check(pair):
...     S, L = pair
...     assert 1 <= len(S) and 1 <= len(L)
>>> check()
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

__all__ = ["tie_structure", "rbo_rankings", "rbo_pairs", "untied_rbo_pairs", "POOL", "build", "split_until"]

#: The items rankings are drawn from: str and int (an RBO input may mix them).
POOL = [f"i{n}" for n in range(12)] + list(range(4))
_GROUP_TYPES = (list, tuple, set, frozenset)


def split_until(sizes: list[int], budget: int) -> list[int]:
    """*sizes* with the largest group halved until the orderings number at most *budget*."""
    # Halve the largest group until the orderings fit the budget: small
    # shapes stay as drawn, and the result is a deterministic function of
    # the draw, which keeps shrinking effective.
    sizes = list(sizes)
    while math.prod(math.factorial(n) for n in sizes) > budget:
        i = max(range(len(sizes)), key=lambda j: sizes[j])
        half = sizes[i] // 2
        sizes[i : i + 1] = [half, sizes[i] - half]
    return sizes


@st.composite
def tie_structure(draw: Any, length: int) -> list[int]:
    """Group sizes of a ranking of *length* items: a random composition.

    >>> from hypothesis import find
    >>> find(tie_structure(3), lambda sizes: len(sizes) == 2) in ([1, 2], [2, 1])
    True
    """
    sizes = [1]
    for _ in range(length - 1):
        if draw(st.booleans()):
            sizes[-1] += 1
        else:
            sizes.append(1)
    return sizes


@st.composite
def rbo_rankings(draw: Any, max_items: int = 8, pool: Any = None, max_orderings: int = 1000) -> list[Any]:
    """One ranking of 1..*max_items* distinct items with random ties.

    >>> from hypothesis import find
    >>> len(find(rbo_rankings(max_items=3), lambda r: len(r) == 2))
    2
    """
    items = draw(st.lists(st.sampled_from(pool or POOL), min_size=1, max_size=max_items, unique=True))
    sizes = split_until(draw(tie_structure(len(items))), max_orderings)
    return build(draw, items, sizes)


def build(draw: Any, items: list[Any], sizes: list[int]) -> list[Any]:
    """A ranking of *items* in groups of *sizes* (a singleton drawn bare or as a group, a group as a list, tuple, set or frozenset)."""
    ranking: list[Any] = []
    start = 0
    for n in sizes:
        members = items[start : start + n]
        start += n
        if n == 1 and draw(st.booleans()):
            ranking.append(members[0])
        else:
            ranking.append(draw(st.sampled_from(_GROUP_TYPES))(members))
    return ranking


@st.composite
def rbo_pairs(draw: Any, max_items: int = 8, max_orderings: int = 1000) -> tuple[list[Any], list[Any]]:
    """Two rankings sharing a pool of items, with at most *max_orderings* tie-breakings.

    >>> from hypothesis import find
    >>> S, L = find(rbo_pairs(max_items=5), lambda pair: any(isinstance(g, list) for g in pair[1]))
    >>> len(S) >= 1 and any(isinstance(g, list) for g in L)
    True
    """
    pool = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=2 * max_items, unique=True))
    items_S = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_items, unique=True))
    items_L = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_items, unique=True))
    sizes_S = draw(tie_structure(len(items_S)))
    sizes_L = draw(tie_structure(len(items_L)))
    # Share the budget: split S first to its square root, then L to the rest.
    sizes_S = split_until(sizes_S, math.isqrt(max_orderings))
    budget_L = max_orderings // math.prod(math.factorial(n) for n in sizes_S)
    sizes_L = split_until(sizes_L, max(budget_L, 1))
    return build(draw, items_S, sizes_S), build(draw, items_L, sizes_L)


@st.composite
def untied_rbo_pairs(draw: Any, max_items: int = 12) -> tuple[list[Any], list[Any]]:
    """Two rankings without ties (every group a single item).

    >>> from hypothesis import find
    >>> S, L = find(untied_rbo_pairs(), lambda pair: len(pair[1]) > len(pair[0]))
    >>> len(L) > len(S) >= 1
    True
    """
    pool = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=2 * max_items, unique=True))
    S = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_items, unique=True))
    L = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_items, unique=True))
    return S, L
