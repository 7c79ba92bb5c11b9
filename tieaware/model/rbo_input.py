"""The RBO input model, shared by both layers (docs/rbo.md, Input).

A ranking is a sequence whose elements are either an item (a ``str`` or an
``int``) or a tie group (a ``list``, ``tuple``, ``set`` or ``frozenset`` of
items).  Both layers call :func:`tie_groups` to validate a ranking and turn
it into a tuple of tie groups, each a tuple of items, so that they see
identical input and reject identical mistakes with identical messages.

The official implementation (Corsi & Urbano) writes rankings as text, e.g.
``"red (blue green) yellow pink"``; :func:`from_string` reads that form.

>>> tie_groups(from_string("red (blue green) yellow pink"), "S")
(('red',), ('blue', 'green'), ('yellow',), ('pink',))
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple, Union

from tieaware.model.errors import bad

__all__ = [
    "measure_pair",
    "Item",
    "Groups",
    "VARIANTS",
    "BOUNDS",
    "RBOBounds",
    "from_string",
    "to_string",
    "tie_groups",
    "rbo_pair",
    "variant_name",
    "bound_name",
]

#: An item of an RBO ranking.
Item = Union[str, int]
#: A validated ranking: its tie groups in rank order, each a tuple of items.
Groups = tuple[tuple[Item, ...], ...]

#: Tie variants of Corsi & Urbano: sports ranking, average, corrected.
VARIANTS = ("w", "a", "b")
#: Prefix-evaluation bounds: lower, upper, extrapolated point estimate, residual.
BOUNDS = ("min", "max", "ext", "res")

_GROUP_TYPES = (list, tuple, set, frozenset)


class RBOBounds(NamedTuple):
    """All four RBO values from one pass; both layers return this type.

    >>> from fractions import Fraction as F
    >>> RBOBounds(F(1, 4), F(3, 4), F(1, 2), F(1, 2)).ext
    Fraction(1, 2)
    """

    min: Any
    max: Any
    ext: Any
    res: Any


def from_string(text: str) -> list[Union[str, tuple[str, ...]]]:
    """Read the official implementation's text form of a ranking.

    Items are separated by blanks; a tie group is enclosed in parentheses.

    >>> from_string("red (blue green) yellow pink")
    ['red', ('blue', 'green'), 'yellow', 'pink']

    Beware: every item read is a ``str``, so ``"1 2"`` gives ``['1', '2']``,
    which never matches the int items ``[1, 2]`` of another ranking.
    """
    if not isinstance(text, str):
        raise bad("text", text, "must be a string such as 'red (blue green) yellow'")
    # Pad the parentheses so that "(a b)" splits into "(", "a", "b", ")".
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    ranking: list[Union[str, tuple[str, ...]]] = []
    group: list[str] | None = None
    for token in tokens:
        if token == "(":
            if group is not None:
                raise bad("text", text, "must not nest tie groups")
            group = []
        elif token == ")":
            if group is None:
                raise bad("text", text, "has a ')' without a matching '('")
            if not group:
                raise bad("text", text, "has an empty tie group '()'")
            ranking.append(tuple(group))
            group = None
        elif group is not None:
            group.append(token)
        else:
            ranking.append(token)
    if group is not None:
        raise bad("text", text, "has a '(' without a matching ')'")
    seen: set[str] = set()
    for item in (i for entry in ranking for i in (entry if isinstance(entry, tuple) else (entry,))):
        if item in seen:
            raise bad("text", text, f"names {item!r} twice (a ranking holds each item once)")
        seen.add(item)
    return ranking


def to_string(ranking: Sequence[object]) -> str:
    """Write a ranking in the official text form; the inverse of :func:`from_string`.

    >>> to_string(['red', ('blue', 'green'), 'yellow'])
    'red (blue green) yellow'
    """
    parts = []
    for group in tie_groups(ranking, "ranking"):
        words = " ".join(str(item) for item in group)
        parts.append(words if len(group) == 1 else f"({words})")
    return " ".join(parts)


def _item(value: object, argument: str) -> Item:
    # bool is an int subclass, but True as an item is almost surely a mistake.
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        if not isinstance(value, Hashable):
            raise bad(argument, value, "holds an unhashable item; items must be str or int")
        raise bad(argument, value, "holds an item that is not a str or int")
    return value


def _sort_key(item: Item) -> tuple[str, Item]:
    # A set has no order; sort so that the result does not depend on hashing.
    return (type(item).__name__, item)


def tie_groups(ranking: object, argument: str) -> Groups:
    """Validate *ranking* and return its tie groups; errors name *argument*.

    >>> tie_groups(["a", {"c", "b"}, ("d",)], "S")
    (('a',), ('b', 'c'), ('d',))

    Beware: the items of a set or frozenset come back sorted; those of a
    list or tuple keep their order.  Neither order matters to RBO.
    """
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, Sequence):
        raise bad(argument, ranking, "must be a sequence of items and tie groups (use from_string for text)")
    groups: list[tuple[Item, ...]] = []
    seen: set[Item] = set()
    for element in ranking:
        if isinstance(element, _GROUP_TYPES):
            if not element:
                raise bad(argument, ranking, "has an empty tie group")
            members = [_item(value, argument) for value in element]
            if isinstance(element, (set, frozenset)):
                members.sort(key=_sort_key)
        else:
            members = [_item(element, argument)]
        for item in members:
            if item in seen:
                raise bad(argument, item, "holds a duplicate item")
            seen.add(item)
        groups.append(tuple(members))
    if not groups:
        raise bad(argument, ranking, "must hold at least one item")
    return tuple(groups)


def _length(groups: Groups) -> int:
    return sum(len(group) for group in groups)


def rbo_pair(S: object, L: object) -> tuple[Groups, Groups]:
    """Validate both rankings and return them shorter first, as the paper's S and L.

    >>> rbo_pair(["a", "b", "c"], [("a", "b")])
    ((('a', 'b'),), (('a',), ('b',), ('c',)))

    Beware: with equal lengths the order is kept; RBO is symmetric then.
    """
    short, long = tie_groups(S, "S"), tie_groups(L, "L")
    if _length(short) > _length(long):
        short, long = long, short
    return short, long


def variant_name(variant: object) -> str:
    """Check the tie variant: "w", "a" or "b".

    >>> variant_name("b")
    'b'
    """
    if variant not in VARIANTS or not isinstance(variant, str):
        raise bad("variant", variant, 'must be "w", "a" or "b"')
    return variant


def bound_name(bound: object) -> str:
    """Check the bound: "min", "max", "ext" or "res".

    >>> bound_name("ext")
    'ext'
    """
    if bound not in BOUNDS or not isinstance(bound, str):
        raise bad("bound", bound, 'must be "min", "max", "ext" or "res"')
    return bound


def measure_pair(measure: Any, ranking: object) -> tuple[object, object, Any, str]:
    """(S, L, p, bound) for an ``RBO(p=...)`` measure applied to ``ranking = (S, L)``.

    Both layers' worst/best/variance take RBO this way; the checks live here once.

    >>> from tieaware.model.names import parse
    >>> measure_pair(parse("RBO(p=0.5)"), (["a"], ["b"]))
    (['a'], ['b'], Fraction(1, 2), 'ext')
    """
    if not isinstance(ranking, (tuple, list)) or len(ranking) != 2:
        raise bad("ranking", ranking, "must be a pair (S, L) of rankings for RBO")
    p = measure.param("p")
    if p is None:
        raise bad("measure", str(measure), "needs p, e.g. RBO(p=0.9)")
    S, L = ranking
    return S, L, p, measure.param("bound", "ext")
