"""The tied-ranking model shared by both layers (SPEC §1).

A ranking is a sequence in rank order.  Each element is either a label (a
singleton group) or a list/tuple of labels (a tie group, whose members are
equally likely to come in any order):

>>> groups([3, [0, 1, 0], 1])
((Fraction(3, 1),), (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)), (Fraction(1, 1),))

Labels are graded relevance values >= 0: int, Fraction, Decimal, decimal
string, or float (read through its repr, see :mod:`tieaware.exact`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Union

from tieaware.errors import bad
from tieaware.exact import rational

__all__ = ["Label", "Ranking", "Groups", "groups", "label", "from_scores", "flatten"]

Label = Union[int, Fraction, str, float]
#: The input form: labels and tie groups (lists or tuples of labels).
Ranking = Sequence[Union[Label, Sequence[Label]]]
#: The normal form both layers work on: a tuple of non-empty tuples of Fractions.
Groups = tuple[tuple[Fraction, ...], ...]


def label(value: object, argument: str = "label") -> Fraction:
    """One relevance label as a Fraction; it must be a number >= 0.

    >>> label("2")
    Fraction(2, 1)
    """
    # Fast path for the common case; bool is excluded because type() is exact.
    if (type(value) is Fraction or type(value) is int) and value >= 0:
        return Fraction(value) if type(value) is int else value
    result = rational(value, argument)
    if result < 0:
        raise bad(argument, value, "must be >= 0")
    return result


def groups(ranking: Ranking, argument: str = "ranking") -> Groups:
    """Validate *ranking* and return it as a tuple of tie groups.

    An empty ranking is allowed (it retrieves nothing); an empty group is not.

    >>> groups([[1, 0], 2])
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(2, 1),))
    """
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, Sequence):
        raise bad(argument, ranking, "must be a list of labels and lists of labels")
    out = []
    for i, element in enumerate(ranking):
        where = f"{argument}[{i}]"
        if isinstance(element, (list, tuple)):
            if not element:
                raise bad(where, element, "is an empty tie group")
            out.append(tuple(label(x, f"{where}[{j}]") for j, x in enumerate(element)))
        else:
            out.append((label(element, where),))
    return tuple(out)


def flatten(gs: Groups) -> tuple[Fraction, ...]:
    """All labels in rank order, ties in the order given.

    >>> flatten(groups([1, [0, 2]]))
    (Fraction(1, 1), Fraction(0, 1), Fraction(2, 1))
    """
    return tuple(x for g in gs for x in g)


def _score(value: object, argument: str) -> Fraction:
    if isinstance(value, float) and math.isnan(value):
        raise bad(argument, value, "is NaN; a NaN score has no place in a ranking")
    return rational(value, argument)


def from_scores(scores: Sequence[object], labels: Sequence[Label]) -> list:
    """Group documents with equal scores into tie groups, best score first.

    Scores are compared exactly: ``"1.0"`` equals ``"1"``, but the float
    ``0.1 + 0.2`` does not equal ``0.3``.  Within a tie group labels keep
    their input order, which does not matter to any tie-aware measure.

    >>> from_scores([0.5, 2, "0.50", 1], [1, 0, 2, 1])
    [Fraction(0, 1), Fraction(1, 1), [Fraction(1, 1), Fraction(2, 1)]]

    Beware: scores that went through float32 may collapse into false ties.
    """
    if len(scores) != len(labels):
        raise bad("labels", labels, f"must have one label per score ({len(scores)} scores)")
    keyed = [(_score(s, f"scores[{i}]"), label(x, f"labels[{i}]")) for i, (s, x) in enumerate(zip(scores, labels))]
    by_score: dict[Fraction, list[Fraction]] = {}
    for s, x in keyed:
        by_score.setdefault(s, []).append(x)
    return [g[0] if len(g) == 1 else g for _, g in sorted(by_score.items(), key=lambda kv: kv[0], reverse=True)]
