"""A tied ranking summarised per group: where it starts, its size, relevant count, gain.

This is the only pass over the labels; every closed form then works on the
summaries in O(number of groups + cutoff).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tieaware.model.ranking import Groups

__all__ = ["Group", "summarise"]


@dataclass(frozen=True)
class Group:
    """Ranks start+1 .. start+size; *relevant* members; *gain* summed over members."""

    start: int
    size: int
    relevant: Any
    gain: Any

    @property
    def end(self) -> int:
        return self.start + self.size


def summarise(
    gs: Groups,
    rel: Fraction,
    gain: Callable[[Fraction], Any] | None = None,
    number: Callable[[int], Any] = Fraction,
) -> list[Group]:
    """One Group per tie group; counts are converted with *number* (Fraction or float).

    >>> [(g.start, g.size, g.relevant) for g in summarise(((Fraction(1),), (Fraction(0), Fraction(2))), Fraction(1))]
    [(0, 1, Fraction(1, 1)), (1, 2, Fraction(1, 1))]
    """
    out = []
    start = 0
    for g in gs:
        relevant = number(sum(1 for x in g if x >= rel))
        total_gain = sum((gain(x) for x in g), Fraction(0)) if gain else None
        out.append(Group(start, len(g), relevant, total_gain))
        start += len(g)
    return out
