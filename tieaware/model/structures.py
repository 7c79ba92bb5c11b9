"""Every tied ranking of a given size: the exhaustive half of the differential tests.

A tie structure of n documents is a composition of n (the group sizes in
rank order); there are 2**(n-1) of them.  Labels inside a group are an
unordered multiset, since every order inside a group is equally likely.

>>> list(compositions(3))
[(1, 1, 1), (1, 2), (2, 1), (3,)]
>>> sum(1 for _ in all_tied_rankings(2, (0, 1)))
7

For rank correlation, :func:`ranking_pairs` lists every pair of tied
rankings of the same n items up to renaming the items.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TypeVar

__all__ = ["compositions", "all_tied_rankings", "all_tied_rankings_upto", "ranking_pairs"]

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


def ranking_pairs(n: int) -> Iterator[tuple[list, list]]:
    """Every pair (x, y) of tied rankings of the items 0..n−1, up to renaming the items, each once.

    x lists the items in order, cut into tie groups (a composition of n);
    y is an ordered partition of x's groups' members into tie groups,
    taking the members of each x-group in order.  Renaming items inside an
    x-group changes neither ranking's structure, so every pair of weak
    orders on n items is one of these after a renaming.  Groups are tuples,
    singletons bare items.

    >>> sum(1 for _ in ranking_pairs(2))
    5
    >>> next(ranking_pairs(3))
    ([0, 1, 2], [2, 1, 0])
    """
    for sizes in compositions(n):
        groups, start = [], 0
        for size in sizes:
            groups.append(list(range(start, start + size)))
            start += size
        x = [g[0] if len(g) == 1 else tuple(g) for g in groups]
        for parts in _ordered_parts(tuple(sizes)):
            taken = [0] * len(sizes)
            y = []
            for part in parts:
                members = []
                for label, count in enumerate(part):
                    members += groups[label][taken[label] : taken[label] + count]
                    taken[label] += count
                y.append(members[0] if len(members) == 1 else tuple(members))
            yield x, y


def _ordered_parts(counts: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every sequence of non-empty sub-multisets (counts per label) that uses up *counts*."""
    if not any(counts):
        yield ()
        return
    for part in itertools.product(*(range(c + 1) for c in counts)):
        if any(part):
            rest = tuple(c - p for c, p in zip(counts, part))
            for tail in _ordered_parts(rest):
                yield (part,) + tail
