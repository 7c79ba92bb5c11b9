"""Hypothesis strategies for pairs of tied rankings of the same items (Kendall's τ, τ_AP).

Both rankings order one set of 2..*max_items* distinct items, each cut
into tie groups written as lists, tuples, sets or frozensets.  To keep the
enumerating reference fast, groups are split until the pair has at most
*max_orderings* pairs of tie-breakings (Π of group-size factorials over both).

>>> from hypothesis import given
>>> @given(corr_pairs(max_items=4))
... def check(pair):
...     x, y = pair
...     assert sum(len(g) if isinstance(g, (list, tuple, set, frozenset)) else 1 for g in x) >= 2
>>> check()
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from tieaware.testing.rbo import POOL, build, split_until, tie_structure

__all__ = ["corr_pairs", "untied_corr_pairs"]


@st.composite
def corr_pairs(draw: Any, max_items: int = 7, max_orderings: int = 2000, min_items: int = 2) -> tuple[list[Any], list[Any]]:
    """Two tied rankings of the same min_items..max_items items, with at most *max_orderings* pairs of tie-breakings.

    Shrinks towards few items and no ties.

    >>> from hypothesis import find
    >>> x, y = find(corr_pairs(max_items=4), lambda pair: len(pair[0]) == 1)
    >>> len(x), isinstance(x[0], (list, tuple, set, frozenset))
    (1, True)
    """
    n = draw(st.integers(min_value=min_items, max_value=max_items))
    items = draw(st.lists(st.sampled_from(POOL), min_size=n, max_size=n, unique=True))
    items_y = draw(st.permutations(items))
    sizes_x = split_until(draw(tie_structure(n)), math.isqrt(max_orderings))
    budget_y = max_orderings // math.prod(math.factorial(s) for s in sizes_x)
    sizes_y = split_until(draw(tie_structure(n)), max(budget_y, 1))
    return build(draw, items, sizes_x), build(draw, list(items_y), sizes_y)


@st.composite
def untied_corr_pairs(draw: Any, max_items: int = 30, min_items: int = 2) -> tuple[list[Any], list[Any]]:
    """Two untied rankings (orders) of the same min_items..max_items items.

    >>> from hypothesis import find
    >>> x, y = find(untied_corr_pairs(), lambda pair: pair[0] != pair[1])
    >>> sorted(x, key=str) == sorted(y, key=str)
    True
    """
    n = draw(st.integers(min_value=min_items, max_value=max_items))
    items = draw(st.lists(st.integers(min_value=0, max_value=10 * max_items), min_size=n, max_size=n, unique=True))
    return items, list(draw(st.permutations(items)))
