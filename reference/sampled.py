"""Sampled recommender measures by brute force: every sample of negatives, every tie order.

For one user, every m-subset of the negatives (the catalogue items neither
relevant nor seen) is drawn, with equal weight; the drawn negatives and the
relevant items are ranked by score, and every ordering consistent with the
ties is enumerated; the ordinary measure of each ordering is averaged,
exactly.  Small and slow on purpose: it shares no formula with
:mod:`tieaware.fast.sampled`.

>>> sampled_measures({"a": 1, "b": 1, "c": 0}, {"a"}, ["HR@1", "RR@2", "P@1"], 1)
{'HR@1': Fraction(3, 4), 'RR@2': Fraction(7, 8), 'P@1': Fraction(3, 4)}
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from fractions import Fraction
from itertools import combinations, groupby
from typing import Any

from tieaware.model.exact import divide
from tieaware.model.gains import discounted_sum
from tieaware.reference.orderings import orderings

__all__ = ["sampled_measures"]


def sampled_measures(
    scores: Mapping[Hashable, Any],
    relevant: Collection[Hashable],
    measures: Sequence[str],
    n_negatives: int,
    seen: Collection[Hashable] = (),
    *,
    exact: bool = True,
) -> dict[str, Any]:
    """One user's measures averaged over every sample of *n_negatives* negatives and every tie order.

    Measures ``HR@k`` (= ``Success@k``), ``RR@k``, ``nDCG@k`` (binary gains,
    log2 discount), ``P@k``, ``R@k``.  exact=False converts the exact value to float.
    """
    negatives = [i for i in scores if i not in relevant and i not in seen]
    samples = list(combinations(negatives, n_negatives))
    total = len(relevant)
    out: dict[str, Any] = {}
    for name in measures:
        head, _, tail = name.partition("@")
        k = int(tail)
        value = Fraction(0)
        dcg: dict[int, Fraction] = {}
        for sample in samples:
            items = sorted(list(relevant) + list(sample), key=lambda i: scores[i], reverse=True)
            groups = [[i in relevant for i in g] for _, g in groupby(items, key=lambda i: scores[i])]
            each = list(orderings(groups))
            weight = Fraction(1, len(samples) * len(each))
            for order in each:
                ranks = [j for j, rel in enumerate(order, 1) if rel and j <= k]
                if head in ("HR", "Success"):
                    value += weight * (1 if ranks else 0)
                elif head == "RR":
                    value += weight * (Fraction(1, ranks[0]) if ranks else 0)
                elif head == "P":
                    value += weight * Fraction(len(ranks), k)
                elif head == "R":
                    value += weight * (Fraction(len(ranks), total) if total else 0)
                elif head == "nDCG":
                    for j in ranks:
                        dcg[j] = dcg.get(j, Fraction(0)) + weight
                else:
                    raise ValueError(f"unknown measure {name!r}")
        if head == "nDCG":
            ideal = discounted_sum({j: Fraction(1) for j in range(1, min(total, k) + 1)}, "log2")
            value = divide(discounted_sum(dcg, "log2"), ideal) if total else Fraction(0)
        out[name] = value if exact else float(value)
    return out
