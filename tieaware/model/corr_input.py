"""The rank-correlation input model, shared by both layers (docs/correlation.md, Input).

Kendall's τ and Yilmaz et al.'s τ_AP compare two rankings of the *same*
items.  A ranking is written as for RBO (:mod:`tieaware.model.rbo_input`): a
sequence whose elements are items (``str`` or ``int``) or tie groups
(``list``, ``tuple``, ``set``, ``frozenset``), best first.  Both layers call
:func:`corr_pair`, so they see identical input and refuse identical mistakes
with identical messages.

>>> corr_pair(["a", ("b", "c")], [("a", "c"), "b"])
((('a',), ('b', 'c')), (('a', 'c'), ('b',)))

Scores (a system's value per measure, a document's score) become a ranking
with :func:`ranking_from_scores`: exactly equal values tie, higher is better.

>>> ranking_from_scores({"bm25": "0.31", "dfr": "0.30", "lm": 0.31})
[('bm25', 'lm'), 'dfr']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple, Union

from tieaware.model.errors import bad
from tieaware.model.exact import rational
from tieaware.model.rbo_input import Groups, Item, tie_groups

__all__ = [
    "Item",
    "Groups",
    "VARIANTS",
    "CorrRange",
    "corr_pair",
    "corr_variant",
    "is_untied",
    "pair_count",
    "ranking_from_scores",
]

#: The tie variants of Kendall (1945) and Urbano & Marrero (2017): a (accuracy, the
#: average over tie-breakings) and b (agreement, corrected for the pairs ties hide).
VARIANTS = ("a", "b")


class CorrRange(NamedTuple):
    """The smallest and largest coefficient over every tie-breaking, with orderings attaining them.

    ``min_orderings`` and ``max_orderings`` are (ordering of x, ordering of y),
    each a list of the items in rank order with every tie broken.

    >>> lo, hi, at_lo, at_hi = CorrRange(Fraction(-1), Fraction(1), (["a", "b"], ["b", "a"]), (["a", "b"], ["a", "b"]))
    >>> hi, at_hi[1]
    (Fraction(1, 1), ['a', 'b'])
    """

    min: Any
    max: Any
    min_orderings: tuple[list[Item], list[Item]]
    max_orderings: tuple[list[Item], list[Item]]


def corr_pair(x: object, y: object) -> tuple[Groups, Groups]:
    """Validate two rankings of the same items; return their tie groups.

    >>> corr_pair(["a", "b"], ["b", "c"])
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: y holds an item that x does not rank (both must rank the same items), got 'c'

    Beware: at least two items are needed; a coefficient over one item is 0/0.
    """
    gx, gy = tie_groups(x, "x"), tie_groups(y, "y")
    items_x = [e for g in gx for e in g]
    items_y = {e for g in gy for e in g}
    known = set(items_x)
    for g in gy:
        for e in g:
            if e not in known:
                raise bad("y", e, "holds an item that x does not rank (both must rank the same items)")
    for e in items_x:
        if e not in items_y:
            raise bad("y", e, "does not rank an item that x ranks (both must rank the same items)")
    if len(items_x) < 2:
        raise bad("x", x, "must rank at least 2 items (a correlation over one item is 0/0)")
    return gx, gy


def corr_variant(variant: object) -> str:
    """Check the tie variant: "a" or "b".

    >>> corr_variant("b")
    'b'
    """
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise bad("variant", variant, 'must be "a" or "b"')
    return variant


def is_untied(groups: Groups) -> bool:
    """True when every group is a single item.

    >>> is_untied((("a",), ("b", "c")))
    False
    """
    return all(len(g) == 1 for g in groups)


def pair_count(groups: Groups) -> int:
    """The pairs of items that *groups* order: n(n−1)/2 minus the pairs inside groups.

    >>> pair_count((("a",), ("b", "c")))
    2
    """
    n = sum(len(g) for g in groups)
    return n * (n - 1) // 2 - sum(len(g) * (len(g) - 1) // 2 for g in groups)


def ranking_from_scores(scores: Union[Mapping[Any, object], Sequence[object]], *, decreasing: bool = True) -> list[Any]:
    """The ranking that *scores* describe: exactly equal values tie, higher first.

    *scores* is ``{item: value}``, or a sequence of values whose items are
    their positions 0, 1, 2, …  Values are read exactly (:func:`tieaware.model.exact.rational`:
    a float through its shortest repr), so ``0.1`` and ``"0.10"`` tie.
    With ``decreasing=False`` the lowest value ranks first (ranks, errors).

    >>> ranking_from_scores([0.5, 0.9, 0.5])
    [1, (0, 2)]
    >>> ranking_from_scores([3, 1, 2], decreasing=False)
    [1, 2, 0]
    """
    if not isinstance(decreasing, bool):
        raise bad("decreasing", decreasing, "must be True or False")
    if isinstance(scores, Mapping):
        pairs = list(scores.items())
    elif isinstance(scores, Sequence) and not isinstance(scores, (str, bytes)):
        pairs = list(enumerate(scores))
    else:
        raise bad("scores", scores, "must be a mapping {item: value} or a sequence of values")
    by_value: dict[Fraction, list[Any]] = {}
    for item, value in pairs:
        by_value.setdefault(rational(value, "scores"), []).append(item)
    ranking: list[Any] = []
    for value in sorted(by_value, reverse=decreasing):
        members = by_value[value]
        ranking.append(members[0] if len(members) == 1 else tuple(members))
    tie_groups(ranking, "scores")  # the items must be valid items
    return ranking
