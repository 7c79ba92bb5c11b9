"""Every tied ranking of a given size: the exhaustive half of the differential tests.

A tie structure of n documents is a composition of n (the group sizes in
rank order); there are 2**(n-1) of them.  Labels inside a group are an
unordered multiset, since every order inside a group is equally likely.

>>> list(compositions(3))
[(1, 1, 1), (1, 2), (2, 1), (3,)]
>>> sum(1 for _ in all_tied_rankings(2, (0, 1)))
7
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TypeVar

__all__ = ["compositions", "all_tied_rankings", "all_tied_rankings_upto"]

T = TypeVar("T")


def compositions(n: int) -> Iterator[tuple[int, ...]]:
    """Group sizes, in rank order, of every tie structure of n documents.

    >>> list(compositions(2))
    [(1, 1), (2,)]
    """
    if n == 0:
        yield ()
        return
    for first in range(1, n + 1):
        for rest in compositions(n - first):
            yield (first,) + rest


def all_tied_rankings(n: int, labels: Sequence[T]) -> Iterator[list]:
    """Every tied ranking of n documents over *labels*, each exactly once.

    Singletons are written as bare labels and groups as lists, the input form.
    """
    for sizes in compositions(n):
        per_group = [list(itertools.combinations_with_replacement(labels, s)) for s in sizes]
        for choice in itertools.product(*per_group):
            yield [list(g) if len(g) > 1 else g[0] for g in choice]


def all_tied_rankings_upto(n: int, labels: Sequence[T]) -> Iterator[list]:
    """Every tied ranking of 0..n documents over *labels*.

    >>> sum(1 for _ in all_tied_rankings_upto(2, (0, 1)))
    10
    """
    for size in range(n + 1):
        yield from all_tied_rankings(size, labels)
