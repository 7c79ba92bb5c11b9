"""Every ordering consistent with the ties, and a guard on how many there are.

A tie group of n labels has n! orderings, but orderings that differ only by
swapping equal labels give identical label sequences.  Each distinct
arrangement of a group's multiset of labels stands for the same number
(the product of the factorials of the label multiplicities) of the n!
orderings, so averaging uniformly over distinct arrangements gives exactly
the same value as averaging over all n! orderings.  That is the only
shortcut the reference takes.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
from collections import Counter
from collections.abc import Hashable, Iterator, Sequence
from typing import TypeVar

from tieaware.model.errors import TieawareError

__all__ = ["arrangements", "count_arrangements", "orderings", "ordering_limit", "get_ordering_limit"]

T = TypeVar("T", bound=Hashable)

_limit = [1_000_000]


def get_ordering_limit() -> int:
    """How many orderings the reference will enumerate before refusing.

    >>> get_ordering_limit()
    1000000
    """
    return _limit[0]


@contextlib.contextmanager
def ordering_limit(limit: int) -> Iterator[int]:
    """Temporarily allow the reference to enumerate up to *limit* orderings.

    >>> from tieaware.reference import precision
    >>> with ordering_limit(10**8):
    ...     precision([[1, 0] * 6], 3)
    Fraction(1, 2)
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise TieawareError(f"limit must be an int >= 1, got {limit!r}")
    old = _limit[0]
    _limit[0] = limit
    try:
        yield limit
    finally:
        _limit[0] = old


def count_arrangements(group: Sequence[Hashable]) -> int:
    """Distinct arrangements of a group: the multinomial n! / Π m_v!.

    >>> count_arrangements([0, 1, 0])
    3
    """
    total = math.factorial(len(group))
    for m in Counter(group).values():
        total //= math.factorial(m)
    return total


def arrangements(group: Sequence[T]) -> Iterator[tuple[T, ...]]:
    """Each distinct arrangement of *group* exactly once, in lexicographic order.

    Iterative, so a group of any size is fine (only the count is limited).
    The labels are numbered by first appearance and the numbers stepped
    through their lexicographic permutations, each once even with repeats
    (Knuth, TAOCP 7.2.1.2, Algorithm L).

    >>> sorted(arrangements([0, 1, 0]))
    [(0, 0, 1), (0, 1, 0), (1, 0, 0)]
    """
    values = list(dict.fromkeys(group))  # distinct labels, in first-seen order
    number = {v: i for i, v in enumerate(values)}
    a = sorted(number[x] for x in group)  # the first permutation
    while True:
        yield tuple(values[i] for i in a)
        # The next permutation: find the last ascent a[j] < a[j + 1] ...
        j = len(a) - 2
        while j >= 0 and a[j] >= a[j + 1]:
            j -= 1
        if j < 0:
            return  # a is non-increasing: that was the last one
        # ... swap a[j] with the last entry greater than it, reverse the tail.
        m = len(a) - 1
        while a[m] <= a[j]:
            m -= 1
        a[j], a[m] = a[m], a[j]
        a[j + 1 :] = reversed(a[j + 1 :])


def orderings(groups: Sequence[Sequence[T]]) -> Iterator[tuple[T, ...]]:
    """Every distinct full ordering of a tied ranking, each exactly once.

    Raises TieawareError, stating the count, when there are more orderings
    than the current :func:`ordering_limit`.

    >>> list(orderings([[1], [0, 2]]))
    [(1, 0, 2), (1, 2, 0)]
    """
    total = math.prod(count_arrangements(g) for g in groups)
    if total > _limit[0]:
        shown = _count(total)
        remedy = f"raise it with tieaware.reference.ordering_limit({total}) or " if total < _SHOWN_UP_TO else ""
        raise TieawareError(
            f"ranking has {shown} orderings consistent with its ties, over the reference's "
            f"limit of {_count(_limit[0])}; {remedy}use tieaware.fast"
        )
    key = tuple(tuple(g) for g in groups)
    if total > _CACHE_UP_TO:
        return _generate(key)
    # 1 == Fraction(1) with equal hashes: the types go into the key so a cached
    # enumeration never hands back items of another type than the caller's.
    return iter(_all_orderings(key, tuple(type(x) for g in key for x in g)))


_SHOWN_UP_TO = 10**30


def _count(n: int) -> str:
    """*n* in full up to 30 digits, else as its number of digits.

    Python refuses to print an int of more than 4,300 digits, and no one
    wants to read one: ``_count(10**5000)`` is ``'a 5001-digit number of'``.
    """
    if n < _SHOWN_UP_TO:
        return str(n)
    digits = int(math.log10(n)) + 1  # may be one off near a power of ten: fix it exactly
    digits += (n >= 10**digits) - (n < 10 ** (digits - 1))
    return f"a {digits}-digit number of"


_CACHE_UP_TO = 5040  # 7!: small enumerations are asked for again and again


def _generate(groups: tuple[tuple[T, ...], ...]) -> Iterator[tuple[T, ...]]:
    for parts in itertools.product(*(list(arrangements(g)) for g in groups)):
        yield tuple(x for part in parts for x in part)


@functools.lru_cache(maxsize=1024)
def _all_orderings(groups: tuple[tuple[T, ...], ...], _types: tuple[type, ...]) -> tuple[tuple[T, ...], ...]:
    # Cached because a test or a user asks many measures of the same ranking;
    # caching changes how often, never what, is enumerated.
    return tuple(_generate(groups))
