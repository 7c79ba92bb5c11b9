"""The tied-ranking model shared by both layers (docs/conventions.md, Tied rankings).

A ranking is a sequence in rank order.  Each element is either a label (a
singleton group) or a list/tuple of labels (a tie group, whose members are
equally likely to come in any order):

>>> groups([3, [0, 1, 0], 1])
((Fraction(3, 1),), (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)), (Fraction(1, 1),))

Labels are graded relevance values: int, Fraction, Decimal, decimal
string, float (read through its repr, see :mod:`tieaware.model.exact`), or a numpy
scalar of any integer or float dtype.  A 1-d numpy array may stand for a
ranking (each element a singleton group) or for a tie group.

Two labels are not grades.  ``None`` marks a document that is not in the
qrels (unjudged).  A **negative** label marks a document that is in the
qrels but was not judged: TREC's Web track qrels label junk pages -2, and
trec_eval reads every negative label as "in the pool, unjudged"
(``RELVALUE_UNJUDGED`` in form_res_rels.c).  Every measure reads both as 0
(non-relevant, gain 0) through :func:`groups`; the few that tell them apart
(Judged@k, Bpref, infAP, trec_eval's counters) read :func:`judged_groups`,
which keeps them.  All negative labels mean the same.

>>> groups([-2, [None, 1]])
((Fraction(0, 1),), (Fraction(0, 1), Fraction(1, 1)))
>>> judged_groups([-2, [None, 1]])
((Fraction(-2, 1),), (None, Fraction(1, 1)))
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Optional, Union

from tieaware.model.errors import bad
from tieaware.model.exact import numpy_scalar, rational

__all__ = [
    "Label", "Ranking", "Groups", "groups", "judged_groups", "label", "judgement", "ideal_label", "judged_only",
    "from_scores", "flatten",
]  # fmt: skip

Label = Union[int, Fraction, str, float, None]
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


def judgement(value: object, argument: str = "label") -> Fraction:
    """One judgement as a Fraction: a grade >= 0, or a negative number (in the qrels, not judged).

    >>> judgement("2"), judgement(-2)
    (Fraction(2, 1), Fraction(-2, 1))
    """
    if type(value) is Fraction:
        return value  # type: ignore[return-value]
    if type(value) is int:
        return Fraction(value)  # type: ignore[arg-type]
    return rational(value, argument)


def ideal_label(value: object, argument: str = "label") -> Fraction:
    """A judged label as a grade: a negative one (in the qrels, not judged) reads as 0, as in trec_eval.

    >>> ideal_label(-2), ideal_label(3)
    (Fraction(0, 1), Fraction(3, 1))
    """
    x = judgement(value, argument)
    return x if x >= 0 else _ZERO


def groups(ranking: Ranking, argument: str = "ranking") -> Groups:
    """Validate *ranking* and return it as a tuple of tie groups.

    An empty ranking is allowed (it retrieves nothing); an empty group is not.

    >>> groups([[1, 0], 2])
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(2, 1),))
    """
    ndim = _array_ndim(ranking)
    if ndim is not None and ndim != 1:
        raise bad(argument, ranking, f"must be a 1-d array of labels, not {ndim}-d")
    if ndim is None and (isinstance(ranking, (str, bytes)) or not isinstance(ranking, Sequence)):
        raise bad(argument, ranking, "must be a list of labels and lists of labels")
    # Tie groups are lists and tuples, and 1-d arrays once numpy is imported
    # (looked up once: this loop is the hot path for long runs).
    np = sys.modules.get("numpy")
    group_types = (list, tuple, np.ndarray) if np is not None else (list, tuple)
    out = []
    for i, element in enumerate(ranking):
        where = f"{argument}[{i}]"
        if isinstance(element, group_types) and getattr(element, "ndim", 1) == 1:
            if not len(element):
                raise bad(where, element, "is an empty tie group")
            out.append(tuple(_ZERO if x is None else _grade(x, f"{where}[{j}]") for j, x in enumerate(element)))
        else:
            out.append((_ZERO if element is None else _grade(element, where),))
    return tuple(out)


def _grade(value: object, argument: str) -> Fraction:
    # Fast path for the common case; bool is excluded because type() is exact.
    if (type(value) is Fraction or type(value) is int) and value >= 0:
        return Fraction(value) if type(value) is int else value  # type: ignore[return-value]
    x = rational(value, argument)
    return x if x >= 0 else _ZERO


_ZERO = Fraction(0)


def judged_groups(ranking: Ranking, argument: str = "ranking") -> tuple[tuple[Optional[Fraction], ...], ...]:
    """Like :func:`groups`, but an unjudged document (``None``) stays ``None`` and a negative label stays negative.

    >>> judged_groups([None, [1, None, -2]])
    ((None,), (Fraction(1, 1), None, Fraction(-2, 1)))
    """
    gs = groups(ranking, argument)
    out = []
    for element, g in zip(ranking, gs):
        if element is None:
            out.append((None,))
        elif hasattr(element, "__len__") and not isinstance(element, (str, bytes)):
            out.append(tuple(None if x is None else (y if y or _nonnegative(x) else judgement(x)) for x, y in zip(element, g)))
        else:
            out.append(g if g[0] or _nonnegative(element) else (judgement(element),))
    return tuple(out)


def _nonnegative(value: object) -> bool:
    return judgement(value) >= 0


def judged_only(ranking: Ranking, argument: str = "ranking") -> list:
    """trec_eval's ``-J``: the ranking without its unjudged documents (``None``, and negative labels).

    The tie groups keep their ties: removing documents from a uniformly random
    ordering of a group leaves a uniformly random ordering of the rest, so the
    tie-aware value on the result is the expectation of the measure over the
    tie-breakings of the whole ranking with the unjudged documents removed
    after ordering, as trec_eval removes them.

    >>> judged_only([None, [1, -2, 0], [None, None], 2])
    [[Fraction(1, 1), Fraction(0, 1)], Fraction(2, 1)]
    """
    out: list = []
    for g in judged_groups(ranking, argument):
        kept = [x for x in g if x is not None and x >= 0]
        if kept:
            out.append(kept if len(kept) > 1 else kept[0])
    return out


def flatten(gs: Groups) -> tuple[Fraction, ...]:
    """All labels in rank order, ties in the order given.

    >>> flatten(groups([1, [0, 2]]))
    (Fraction(1, 1), Fraction(0, 1), Fraction(2, 1))
    """
    return tuple(x for g in gs for x in g)


def _array_ndim(value: object) -> Union[int, None]:
    """The number of dimensions of a numpy array, None for anything else."""
    np = sys.modules.get("numpy")  # a numpy array means numpy is imported already
    return value.ndim if np is not None and isinstance(value, np.ndarray) else None


def _score(value: object, argument: str) -> Fraction:
    scalar = numpy_scalar(value)
    number = value if scalar is None else scalar
    is_float = isinstance(number, float) or getattr(getattr(number, "dtype", None), "kind", "") == "f"
    if is_float and math.isnan(number):
        raise bad(argument, value, "is NaN; a NaN score has no place in a ranking")
    return rational(value, argument)


def from_scores(scores: Sequence[object], labels: Sequence[Label]) -> list:
    """Group documents with equal scores into tie groups, best score first.

    Scores are compared exactly: ``"1.0"`` equals ``"1"``, but the float
    ``0.1 + 0.2`` does not equal ``0.3``.  Within a tie group labels keep
    their input order, which does not matter to any tie-aware measure.

    >>> from_scores([0.5, 2, "0.50", 1], [1, 0, 2, 1])
    [Fraction(0, 1), Fraction(1, 1), [Fraction(1, 1), Fraction(2, 1)]]

    numpy arrays and scalars of any integer or float dtype are read exactly
    (see :func:`tieaware.model.exact.rational`):

    >>> import numpy as np
    >>> from_scores(np.array([0.9, 0.5, 0.9]), np.array([0, 1, 2]))
    [[Fraction(0, 1), Fraction(2, 1)], Fraction(1, 1)]

    Beware: scores that went through float32 may collapse into false ties,
    and a float32 score is read through its own shortest repr
    (``np.float32(0.9)`` is 9/10), not through ``float()``.
    """
    for name, values in (("scores", scores), ("labels", labels)):
        ndim = _array_ndim(values)
        if (ndim is None and (isinstance(values, (str, bytes)) or not isinstance(values, Sequence))) or (
            ndim is not None and ndim != 1
        ):
            raise bad(name, values, "must be a list or 1-d array")
    if len(scores) != len(labels):
        raise bad("labels", labels, f"must have one label per score ({len(scores)} scores)")
    keyed = [(_score(s, f"scores[{i}]"), judgement(x, f"labels[{i}]")) for i, (s, x) in enumerate(zip(scores, labels))]
    by_score: dict[Fraction, list[Fraction]] = {}
    for s, x in keyed:
        by_score.setdefault(s, []).append(x)
    return [g[0] if len(g) == 1 else g for _, g in sorted(by_score.items(), key=lambda kv: kv[0], reverse=True)]
