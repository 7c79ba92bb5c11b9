"""Sampled recommender evaluation with ties: the exact expectation over the sample and the tie order.

``sampled_metrics(scores, relevant, measures, n_negatives)`` ranks each
user's test items among *n_negatives* negatives drawn uniformly without
replacement from the items the user has not seen, as RecBole's ``uni100``
does, and returns the expectation of each measure over every such sample
and every order of the tied scores, in closed form
(:func:`tieaware.fast.sampled.sampled_measures`, theorem "sampled
expectation"), beside the full-ranking tie-aware value (all negatives).
docs/recsys.md describes it.

>>> ev = sampled_metrics({"u": {"a": 1, "b": 1, "c": 0}}, {"u": ["a"]}, ["HR@1", "nDCG@2"], 1)
>>> ev.mean["HR@1"], ev.full_mean["HR@1"]
(Fraction(3, 4), Fraction(1, 2))
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from tieaware.fast import sampled
from tieaware.model.errors import TieawareError

__all__ = ["SampledEvaluation", "sampled_metrics", "SAMPLINGS"]

#: The sampling schemes built so far (popularity-weighted sampling is not).
SAMPLINGS = ("uniform",)


@dataclass(frozen=True)
class SampledEvaluation:
    """The result of :func:`sampled_metrics`.

    ``mean[measure]`` and ``per_user[user][measure]`` are expectations over the
    sample of negatives and the tie order; ``full_mean`` and ``full_per_user``
    the full-ranking tie-aware values (every negative ranked).  Users with no
    test item are skipped and listed in ``skipped``.
    """

    measures: tuple[str, ...]
    n_negatives: int
    sampling: str
    exact: bool
    per_user: dict[Hashable, dict[str, Any]] = field(repr=False)
    mean: dict[str, Any]
    full_per_user: dict[Hashable, dict[str, Any]] = field(repr=False)
    full_mean: dict[str, Any]
    skipped: tuple[Hashable, ...] = ()


def sampled_metrics(
    scores: Any,
    relevant: Any,
    measures: Sequence[str],
    n_negatives: int,
    seen: Any = None,
    sampling: str = "uniform",
    exact: bool = True,
) -> SampledEvaluation:
    """Expected sampled HR@k (= Success@k), RR@k, nDCG@k, P@k and R@k of every user, and their means.

    *scores*: ``{user: {item: score}}`` or a users × items array (rows are
    users 0.., columns items 0..).  *relevant*: ``{user: items}`` or a boolean
    users × items array: the test items.  *seen*: the same shapes, items
    excluded from the negatives (training interactions).  The negatives of a
    user are the items neither relevant nor seen; *n_negatives* of them are
    drawn uniformly without replacement.

    >>> ev = sampled_metrics([[3, 2, 2, 2]], [[False, True, False, False]], ["RR@10"], 1)
    >>> ev.mean["RR@10"], ev.full_mean["RR@10"]    # drawn: 1/3·1/2 + 2/3·3/4; full: (1/2 + 1/3 + 1/4)/3
    (Fraction(2, 3), Fraction(13, 36))

    Beware: a constant model ties its test item with every negative; its HR@k is the
    expectation over the tie order, never the 1 that ranking ties optimistically gives.
    """
    if sampling not in SAMPLINGS:
        raise TieawareError(f"sampling: only {', '.join(map(repr, SAMPLINGS))} is built, got {sampling!r}")
    if isinstance(n_negatives, bool) or not isinstance(n_negatives, int) or n_negatives < 0:
        raise TieawareError(f"n_negatives: expected a whole number >= 0, got {n_negatives!r}")
    if isinstance(measures, str):
        measures = [measures]
    names = tuple(measures)
    for name in names:
        sampled.parse_measure(name)
    users = _per_user(scores, "scores")
    tests = _per_user(relevant, "relevant")
    masks = _per_user(seen, "seen") if seen is not None else {}
    per_user: dict[Hashable, dict[str, Any]] = {}
    full: dict[Hashable, dict[str, Any]] = {}
    skipped = []
    for user, row in users.items():
        items = _items(row)
        test = set(_chosen(tests.get(user, ()), f"relevant of user {user!r}"))
        mask = set(_chosen(masks.get(user, ()), f"seen of user {user!r}"))
        _check_user(user, items, test, mask, n_negatives)
        if not test:
            skipped.append(user)
            continue
        per_user[user] = sampled.sampled_measures(items, test, names, n_negatives, mask, exact=exact)
        negatives = len(items) - len(test) - len(mask - test)
        full[user] = sampled.sampled_measures(items, test, names, negatives, mask, exact=exact)
    missing = set(tests) - set(users)
    if missing:
        raise TieawareError(f"relevant: user {sorted(missing, key=repr)[0]!r} has test items but no scores")
    return SampledEvaluation(names, n_negatives, sampling, exact, per_user, _means(per_user, names, exact), full, _means(full, names, exact), tuple(skipped))


def _per_user(table: Any, argument: str) -> Mapping[Hashable, Any]:
    """{user: row}: a mapping as given, an array's rows by their index."""
    if isinstance(table, Mapping):
        return table
    try:
        return dict(enumerate(table))
    except TypeError:
        raise TieawareError(f"{argument}: expected a mapping of users or a users x items array, got {type(table).__name__}") from None


def _items(row: Any) -> dict[Hashable, Any]:
    """{item: score} of a user's row: a mapping as given, a sequence's scores by their index."""
    if isinstance(row, Mapping):
        return dict(row)
    return {i: (s.item() if hasattr(s, "item") else s) for i, s in enumerate(row)}


def _chosen(row: Any, argument: str) -> Iterable[Hashable]:
    """The items of a row of relevant/seen: an iterable of items, or a boolean row (a mask)."""
    values = list(row.values()) if isinstance(row, Mapping) else list(row)
    if values and all(isinstance(v, bool) or type(v).__name__ == "bool_" for v in values):
        return [i for i, v in enumerate(values) if v]
    return values


def _check_user(user: Hashable, items: Mapping[Hashable, Any], test: Collection[Hashable], mask: Collection[Hashable], m: int) -> None:
    for item, score in items.items():
        try:
            bad = math.isnan(score)
        except TypeError:
            raise TieawareError(f"scores: user {user!r}, item {item!r}: expected a number, got {score!r}") from None
        if bad:
            raise TieawareError(f"scores: user {user!r}, item {item!r}: the score is NaN")
    for item in test:
        if item not in items:
            raise TieawareError(f"relevant: user {user!r}: test item {item!r} has no score")
        if item in mask:
            raise TieawareError(f"seen: user {user!r}: test item {item!r} is also in the seen mask")
    negatives = sum(1 for i in items if i not in test and i not in mask)
    if test and m > negatives:
        raise TieawareError(f"n_negatives: {m} is more than the {negatives} negatives of user {user!r}")


def _means(per_user: Mapping[Hashable, Mapping[str, Any]], names: Sequence[str], exact: bool) -> dict[str, Any]:
    """The mean of each measure over the users evaluated (0 when there are none)."""
    count = len(per_user)
    out: dict[str, Any] = {}
    for name in names:
        values = [row[name] for row in per_user.values()]
        if not count:
            out[name] = Fraction(0) if exact else 0.0
        elif exact:
            rational = all(isinstance(v, Fraction) for v in values)
            total = sum(values, Fraction(0)) if rational else _sympy_sum(values)
            out[name] = total / count
        else:
            out[name] = math.fsum(values) / count
    return out


def _sympy_sum(values: Sequence[Any]) -> Any:
    import sympy

    return sympy.Add(*(sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v for v in values))
