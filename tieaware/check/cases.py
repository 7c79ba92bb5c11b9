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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import nextafter
from typing import Any, Optional

from hypothesis import strategies as st

from tieaware.model.ranking import label
from tieaware.testing.rankings import tied_rankings
from tieaware.model.structures import all_tied_rankings_upto

__all__ = [
    "Case",
    "exhaustive",
    "at_cutoff",
    "near_ties",
    "drawn",
    "untied",
    "float32",
    "NUDGE",
    "ULP",
    "LADDERS",
    "score_classes",
    "larger_grades",
    "large_groups",
    "past_cutoff",
    "unretrieved",
    "in_other_orders",
    "plain",
    "tie_rule_probes",
    "RULE_SIZES",
]

#: The gap between near-tied scores: far above double precision (2**-52 near 1)
#: for scores up to 64, far below float32's (2**-23 near 1).
NUDGE = 2.0**-30


#: A nudge of one unit in the last place: the nearest distinct double.
ULP = "ulp"

#: Score ladders: the distinct doubles given to tie groups, best first.  Each is a class of
#: scores real runs contain and the plain 3.0, 2.0, 1.0 never show.
LADDERS: dict[str, tuple[float, ...]] = {
    "zero and negative": (1.0, 0.0, -1.0, -2.0),
    "non-positive": (0.0, -0.5, -3.0, -1e6),
    "huge": (1.7976931348623157e308, 1e308, 1e300, -1e308),
    "tiny": (1e-300, 5e-324, 0.0, -5e-324),
    "mixed magnitudes": (1e16, 1.0, 1e-16, -1e16),
}


@dataclass(frozen=True)
class Case:
    """One input: scores and labels, parallel, in the order the implementation receives them.

    *num_rel*, when set, is the number of judged relevant documents, retrieved
    or not, passed as a third argument to implementations that take one.
    """

    scores: tuple[float, ...]
    labels: tuple[Any, ...]
    num_rel: Optional[int] = None

    def permuted(self, order: Sequence[int]) -> "Case":
        """The same documents handed over in another input order."""
        return Case(tuple(self.scores[i] for i in order), tuple(self.labels[i] for i in order), self.num_rel)


def _groups_of(r: list) -> list[list]:
    return [g if isinstance(g, list) else [g] for g in r]


def _nudged(base: float, steps: int, nudge: Any) -> float:
    if nudge == ULP:
        for _ in range(steps):
            base = nextafter(base, float("inf"))
        return base
    return base + steps * nudge


def _case(r: list, nudge: Any, ladder: Optional[Sequence[float]] = None, signed_zero: bool = False) -> Case:
    """Scores for a tied ranking: group i gets ladder[i] (default len - i); nudge pulls members apart."""
    gs = _groups_of(r)
    scores: list[float] = []
    labels: list[Any] = []
    for i, g in enumerate(gs):
        base = float(len(gs) - i) if ladder is None else ladder[i]
        for j, x in enumerate(g):
            # Nudged members keep their listed order as the true (untied) order.
            score = _nudged(base, len(g) - 1 - j, NUDGE if nudge is True else nudge) if nudge else base
            if signed_zero and score == 0.0 and j % 2:
                score = -0.0  # -0.0 == 0.0: the same score, a different bit pattern
            scores.append(score)
            labels.append(x)
    return Case(tuple(scores), tuple(labels))


def exhaustive(max_size: int, labels: Sequence[Any], min_size: int = 1) -> list[Case]:
    """Every tie structure of min_size..max_size documents over *labels*, smallest first."""
    return [_case(r, False) for r in all_tied_rankings_upto(max_size, labels) if _size(r) >= min_size]


def at_cutoff(k: int, max_size: int, labels: Sequence[Any], nudge: Any = False) -> list[Case]:
    """Every tie structure of 1..max_size documents placed just above the cutoff k.

    k - 2 untied documents come first (labels cycling through *labels*, so
    precision above the window varies), so the structures cover ranks k - 1
    onwards and their tie groups straddle k in every way.  With *nudge*
    (as :func:`near_ties`), only the structures with a tie group, its
    scores pulled apart: near-ties across the cutoff.

    >>> at_cutoff(4, 1, (0, 1))[0].scores
    (3.0, 2.0, 1.0)
    >>> at_cutoff(2, 2, (0, 1), NUDGE)[0].scores
    (1.0000000009313226, 1.0)
    """
    prefix = [labels[i % len(labels)] for i in range(max(k - 2, 0))]
    structures = [r for r in all_tied_rankings_upto(max_size, labels) if _size(r) >= 1]
    if nudge:
        return [_case(prefix + r, nudge) for r in structures if any(isinstance(g, list) for g in r)]
    return [_case(prefix + r, False) for r in structures]


def near_ties(max_size: int, labels: Sequence[Any], min_size: int = 1, nudge: Any = NUDGE) -> list[Case]:
    """Structures with a tie group, its scores pulled apart by *nudge* (2**-30, below float32's
    precision, or :data:`ULP`, one unit in the last place: the nearest distinct double).

    >>> near_ties(2, (1,), nudge=ULP)[0].scores
    (1.0000000000000002, 1.0)
    """
    return [
        _case(r, nudge)
        for r in all_tied_rankings_upto(max_size, labels)
        if _size(r) >= min_size and any(isinstance(g, list) for g in r)
    ]


def score_classes(
    max_size: int, labels: Sequence[Any], ladder: Optional[Callable[[Sequence[float]], tuple[float, ...]]] = None, min_size: int = 1
) -> list[Case]:
    """Every tie structure of up to *max_size* documents, scored from each of :data:`LADDERS`,
    then with zero scores tied as 0.0 and -0.0; unsorted input orders follow each.

    *ladder* keeps the scores of a ladder that a declared domain allows
    (:meth:`tieaware.check.domain.Domain.ladder`); structures with more
    groups than the scores left are skipped.

    >>> score_classes(2, (0, 1), min_size=2)[0].scores
    (1.0, 0.0)
    """
    keep = ladder or tuple
    out: list[Case] = []
    structures = [r for r in all_tied_rankings_upto(max_size, labels) if min_size <= _size(r)]
    for values in LADDERS.values():
        kept = keep(values)
        for r in structures:
            if len(_groups_of(r)) <= len(kept):
                out += in_other_orders(_case(r, False, kept))
    zero = keep(LADDERS["zero and negative"][1:])
    if keep((-0.0,)) and zero and zero[0] == 0.0:
        for r in structures:  # a tie group at score 0 with -0.0 among its members
            if len(_groups_of(r)) <= len(zero):
                case = _case(r, False, zero, signed_zero=True)
                if any(str(s) == "-0.0" for s in case.scores):
                    out += in_other_orders(case)
    return out


def in_other_orders(case: Case) -> list[Case]:
    """*case* (sorted by score), then the same documents in reverse input order when that differs.

    >>> [c.scores for c in in_other_orders(Case((2.0, 1.0), (0, 1)))]
    [(2.0, 1.0), (1.0, 2.0)]
    """
    n = len(case.scores)
    other = case.permuted(range(n - 1, -1, -1))
    return [case] if other == case else [case, other]


def larger_grades(max_size: int, labels: Sequence[Any], extra: Sequence[Any]) -> list[Case]:
    """Structures of up to *max_size* documents over *labels* and *extra* grades, each using an extra grade."""
    values = list(dict.fromkeys([*labels, *extra]))
    return [
        c
        for r in all_tied_rankings_upto(max_size, values)
        if any(x in extra for g in _groups_of(r) for x in g)
        for c in in_other_orders(_case(r, False))
    ]


def large_groups(k: Optional[int], labels: Sequence[Any]) -> list[Case]:
    """A few structured rankings with tie groups of 10 to 64 documents, alone, behind others, and across k.

    The checker takes their expected values from the closed forms (the reference would enumerate
    10! orderings and more); the differential tests prove the two layers equal.  Groups of 17, 33
    and 64 pass the sizes where sorts change method (insertion sort up to 16, partitioning beyond).

    >>> [len(c.scores) for c in large_groups(None, (0, 1, 2))]
    [10, 12, 13, 16, 17, 35, 64]
    """
    top = max(labels, key=lambda x: label(x))
    ones = [x for x in labels if label(x) >= 1] or [top]
    mixed = lambda n: [ones[i % len(ones)] if i % 3 == 0 else labels[0] for i in range(n)]  # noqa: E731
    shapes: list[list] = [
        [mixed(10)],
        [top, labels[0], mixed(10)],
        [mixed(12), top],
        [labels[0], [top] * 5 + [labels[0]] * 10],
        [mixed(17)],
        [top, labels[0], mixed(33)],
        [mixed(64)],
    ]
    if k is not None and k >= 2:  # a large group straddling the cutoff, and one right after it
        before = [labels[i % len(labels)] for i in range(max(k - 4, 0))]
        shapes.append(before + [mixed(10)])
        shapes.append([top] * k + [mixed(10)])
    return [_case(r, False) for r in shapes]


#: Tie group sizes a tie rule must hold at before it is named: past insertion sort's 16,
#: partitioning thresholds and SIMD sorts' block sizes, up to 65.
RULE_SIZES = (5, 8, 16, 17, 24, 32, 33, 48, 64, 65)


def tie_rule_probes(k: Optional[int], labels: Sequence[Any], sizes: Sequence[int] = RULE_SIZES) -> list[Case]:
    """Inputs that confirm a tie rule: one tie group of each size (alone, and between two untied
    documents), in the order listed and reversed; and ties of 2 and 3 documents inside rankings
    of 40 and 200 otherwise distinct scores, in shuffled input orders (seeded).

    The relevant documents sit at scattered places of each group and just above the cutoff, so
    that any two orders of the group give different values.

    >>> [len(c.scores) for c in tie_rule_probes(5, (0, 1), sizes=(5,))][:4]
    [5, 5, 7, 7]
    """
    import random

    top = max(labels, key=lambda x: label(x))
    low = labels[0]
    out: list[Case] = []
    for g in sizes:
        # relevant at 1, then every 3rd from the middle, and the last: orders differ in every window
        group = [top if (i == 1 or i == g - 1 or (i >= g // 2 and i % 3 == 0)) else low for i in range(g)]
        for r in ([group], [top, group, low]):
            out += in_other_orders(_case(r, False))
    rng = random.Random(20)  # fixed: the same probes every run
    where = k if k is not None else 2  # the tie straddles the cutoff (or sits near the top)
    for length in (40, 200):
        for tie in (2, 3):
            ranks = [low] * (where - 1) + [[top] + [low] * (tie - 1)] + [top if i % 7 == 3 else low for i in range(length - where - tie + 1)]
            case = _case(ranks, False)
            for _ in range(3):
                order = list(range(len(case.scores)))
                rng.shuffle(order)
                out.append(case.permuted(order))
    return out


def plain(case: Case) -> Case:
    """*case* with plain scores (n, n-1, ..., 1 by rank, equal scores still equal), in the same input order.

    >>> plain(Case((0.0, -1.0, 0.0), (1, 0, 0))).scores
    (2.0, 1.0, 2.0)
    """
    levels = sorted(set(case.scores), reverse=True)
    score = {s: float(len(levels) - i) for i, s in enumerate(levels)}
    return Case(tuple(score[s] for s in case.scores), case.labels, case.num_rel)


def past_cutoff(k: int, labels: Sequence[Any]) -> list[Case]:
    """Rankings longer than k with more than k relevant documents, untied and with a tie across k.

    >>> [len(c.scores) for c in past_cutoff(2, (0, 1))]
    [3, 3, 4, 4, 4]
    """
    top = max(labels, key=lambda x: label(x))
    ones = [x for x in labels if label(x) >= 1] or [top]
    out: list[Case] = []
    for extra in (1, 2):
        n = k + extra
        every = [ones[i % len(ones)] for i in range(n)]
        out.append(_case(every, False))  # all relevant, untied
        if n >= 3:
            out.append(_case(every[: k - 1] + [every[k - 1 :]], False))  # the last ones tied across k
        if extra == 2:
            out.append(_case([labels[0]] + every[1:], False))  # a miss first, then > k - 1 hits
    return out


def unretrieved(max_size: int, labels: Sequence[Any], rel: Any) -> list[Case]:
    """Structures of up to *max_size* documents with 1 or 2 judged relevant documents not retrieved (num_rel)."""
    out = []
    for r in all_tied_rankings_upto(max_size, labels):
        retrieved = sum(1 for g in _groups_of(r) for x in g if label(x) >= rel)
        for missing in (1, 2):
            case = _case(r, False)
            out.append(Case(case.scores, case.labels, retrieved + missing))
    return out


def _size(r: list) -> int:
    return sum(len(g) if isinstance(g, list) else 1 for g in r)


def untied(case: Case) -> bool:
    """True when no two scores are equal.

    >>> untied(Case((2.0, 1.0), (0, 1))), untied(Case((1.0, 1.0), (0, 1)))
    (True, False)
    """
    return len(set(case.scores)) == len(case.scores)


@st.composite
def drawn(
    draw: Any,
    labels: Sequence[Any],
    min_size: int,
    max_size: int,
    ties: bool = True,
    rel: Optional[Any] = None,
    ladder_filter: Optional[Callable[[Sequence[float]], tuple[float, ...]]] = None,
) -> Case:
    """A tied ranking, maybe near-tied, maybe scored from a ladder, in a shuffled input order;
    shrinks to short, exact, plainly scored and unshuffled.

    With ``ties=False``, an untied ranking (distinct scores) in a shuffled input order.
    With a relevance threshold *rel*, sometimes 1 to 3 judged relevant documents are not retrieved (num_rel).
    *ladder_filter* (a declared score domain) keeps only the ladders, and the near-ties, it allows whole.
    """
    keep = ladder_filter or tuple
    label_strategy = st.sampled_from(list(labels))
    if ties:
        r = draw(tied_rankings(min_size=min_size, max_size=max_size, label_strategy=label_strategy))
    else:
        r = draw(st.lists(label_strategy, min_size=min_size, max_size=max_size))
    fractional = len(keep((1.5,))) == 1  # near-ties need scores between the integers
    nudge = draw(st.sampled_from([False, NUDGE, ULP] if fractional else [False])) if ties else False
    ladder = draw(st.sampled_from([None, *(v for v in LADDERS.values() if len(keep(v)) == len(v))]))
    if ladder is not None and len(ladder) < len(r):
        ladder = None
    case = _case(r, nudge if ladder is None else False, ladder)
    order = draw(st.permutations(range(len(case.scores))))
    case = case.permuted(order)
    if rel is not None:
        missing = draw(st.integers(0, 3))
        if missing:
            case = Case(case.scores, case.labels, sum(1 for x in case.labels if label(x) >= rel) + missing)
    return case


def float32(score: float) -> float:
    """*score* rounded to the nearest float32, as numpy's ``astype(float32)`` does.

    >>> float32(1.0 + NUDGE) == 1.0, float32(0.1)
    (True, 0.10000000149011612)
    """
    try:
        return struct.unpack("f", struct.pack("f", score))[0]
    except OverflowError:
        return float("inf") if score > 0 else float("-inf")
