"""The inputs an implementation is checked on: parallel scores and labels.

Three sources, all deterministic:

- :func:`exhaustive`: every tie structure of up to n documents (docs/conventions.md),
  smallest first, with integer-valued float scores, one score per group;
- :func:`at_cutoff`: the same structures placed around the cutoff k, for
  cutoffs beyond the exhaustive size;
- :func:`near_ties`: the same structures, but each tie group's scores differ
  by multiples of 2**-30: distinct as doubles, equal once rounded to float32;
- :func:`drawn`: a hypothesis strategy mixing both, with the documents handed
  over in a shuffled input order.

>>> [c.scores for c in exhaustive(2, (0, 1), min_size=2)][:2]
[(2.0, 1.0), (2.0, 1.0)]
>>> near_ties(2, (1,))[0].scores[1] - near_ties(2, (1,))[0].scores[0]
-9.313225746154785e-10
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tieaware.strategies import tied_rankings
from tieaware.structures import all_tied_rankings_upto

__all__ = ["Case", "exhaustive", "at_cutoff", "near_ties", "drawn", "untied", "float32", "NUDGE"]

#: The gap between near-tied scores: far above double precision (2**-52 near 1)
#: for scores up to 64, far below float32's (2**-23 near 1).
NUDGE = 2.0**-30


@dataclass(frozen=True)
class Case:
    """One input: scores and labels, parallel, in the order the implementation receives them."""

    scores: tuple[float, ...]
    labels: tuple[Any, ...]

    def permuted(self, order: Sequence[int]) -> "Case":
        """The same documents handed over in another input order."""
        return Case(tuple(self.scores[i] for i in order), tuple(self.labels[i] for i in order))


def _groups_of(r: list) -> list[list]:
    return [g if isinstance(g, list) else [g] for g in r]


def _case(r: list, nudge: bool) -> Case:
    gs = _groups_of(r)
    scores: list[float] = []
    labels: list[Any] = []
    for i, g in enumerate(gs):
        base = float(len(gs) - i)
        for j, x in enumerate(g):
            # Nudged members keep their listed order as the true (untied) order.
            scores.append(base + (len(g) - 1 - j) * NUDGE if nudge else base)
            labels.append(x)
    return Case(tuple(scores), tuple(labels))


def exhaustive(max_size: int, labels: Sequence[Any], min_size: int = 1) -> list[Case]:
    """Every tie structure of min_size..max_size documents over *labels*, smallest first."""
    return [_case(r, False) for r in all_tied_rankings_upto(max_size, labels) if _size(r) >= min_size]


def at_cutoff(k: int, max_size: int, labels: Sequence[Any]) -> list[Case]:
    """Every tie structure of 1..max_size documents placed just above the cutoff k.

    k - 2 untied documents come first (labels cycling through *labels*, so
    precision above the window varies), so the structures cover ranks k - 1
    onwards and their tie groups straddle k in every way.

    >>> at_cutoff(4, 1, (0, 1))[0].scores
    (3.0, 2.0, 1.0)
    """
    prefix = [labels[i % len(labels)] for i in range(max(k - 2, 0))]
    return [_case(prefix + r, False) for r in all_tied_rankings_upto(max_size, labels) if _size(r) >= 1]


def near_ties(max_size: int, labels: Sequence[Any], min_size: int = 1) -> list[Case]:
    """Structures with a tie group, its scores pulled apart by less than float32 can see."""
    return [
        _case(r, True)
        for r in all_tied_rankings_upto(max_size, labels)
        if _size(r) >= min_size and any(isinstance(g, list) for g in r)
    ]


def _size(r: list) -> int:
    return sum(len(g) if isinstance(g, list) else 1 for g in r)


def untied(case: Case) -> bool:
    """True when no two scores are equal.

    >>> untied(Case((2.0, 1.0), (0, 1))), untied(Case((1.0, 1.0), (0, 1)))
    (True, False)
    """
    return len(set(case.scores)) == len(case.scores)


@st.composite
def drawn(draw: Any, labels: Sequence[Any], min_size: int, max_size: int, ties: bool = True) -> Case:
    """A tied ranking, maybe near-tied, in a shuffled input order; shrinks to short, exact, unshuffled.

    With ``ties=False``, an untied ranking (distinct scores) in a shuffled input order.
    """
    label_strategy = st.sampled_from(list(labels))
    if ties:
        r = draw(tied_rankings(min_size=min_size, max_size=max_size, label_strategy=label_strategy))
    else:
        r = draw(st.lists(label_strategy, min_size=min_size, max_size=max_size))
    case = _case(r, ties and draw(st.booleans()))
    order = draw(st.permutations(range(len(case.scores))))
    return case.permuted(order)


def float32(score: float) -> float:
    """*score* rounded to the nearest float32, as numpy's ``astype(float32)`` does.

    >>> float32(1.0 + NUDGE) == 1.0, float32(0.1)
    (True, 0.10000000149011612)
    """
    try:
        return struct.unpack("f", struct.pack("f", score))[0]
    except OverflowError:
        return float("inf") if score > 0 else float("-inf")
