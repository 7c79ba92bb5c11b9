"""The six McSherry–Najork measures, by brute force (docs/conventions.md, Measures).

Each tie-aware value is computed the way it is defined: enumerate every
ordering consistent with the ties, evaluate the ordinary tie-oblivious
measure on it, and take the exact mean.  Nothing here knows a closed form.

The ``*_of`` functions are the tie-oblivious definitions on one ordering
(a sequence of labels); the public functions average them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Optional

from tieaware.model.exact import Exact, divide, to_float
from tieaware.model.gains import Discount, Gain, check_gain_domain, check_ideal, discounted_sum, gain_function
from tieaware.model.errors import bad
from tieaware.model.params import choice, cutoff, flag, relevant_total, threshold
from tieaware.model.ranking import Ranking, flatten, groups, ideal_label
from tieaware.reference.orderings import orderings

__all__ = [
    "precision",
    "recall",
    "f1",
    "average_precision",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "hits_of",
    "average_precision_of",
    "reciprocal_rank_of",
    "dcg_terms_of",
]

Labels = Sequence[Fraction]


# -- the tie-oblivious definitions, on one ordering -------------------------


def hits_of(o: Labels, k: int, rel: Fraction) -> int:
    """Relevant documents among the first k; positions past the end count as non-relevant."""
    return sum(1 for x in o[:k] if x >= rel)


def average_precision_of(o: Labels, k: int, rel: Fraction, num_rel: int, norm: str = "R") -> Fraction:
    """Σ over relevant ranks j <= k of P@j, divided by num_rel (``norm="R"``), by min(num_rel, k)
    (``"capped"``), by the relevant documents among the first k (``"hits"``) or by k (``"k"``);
    0 when the divisor is 0.

    >>> o = [Fraction(0), Fraction(1), Fraction(1)]
    >>> [average_precision_of(o, 2, Fraction(1), 3, norm) for norm in ("R", "capped", "hits")]
    [Fraction(1, 6), Fraction(1, 4), Fraction(1, 2)]
    """
    divisor = {"R": num_rel, "capped": min(num_rel, k), "hits": hits_of(o, k, rel), "k": k}[norm]
    if divisor == 0:
        return Fraction(0)
    total = sum((Fraction(hits_of(o, j, rel), j) for j in range(1, min(k, len(o)) + 1) if o[j - 1] >= rel), Fraction(0))
    return total / divisor


def reciprocal_rank_of(o: Labels, k: int, rel: Fraction) -> Fraction:
    """1 / the rank of the first relevant document within k, or 0."""
    for j, x in enumerate(o[:k], start=1):
        if x >= rel:
            return Fraction(1, j)
    return Fraction(0)


def dcg_terms_of(o: Labels, k: int, gain: Callable[[Fraction], Exact]) -> dict[int, Exact]:
    """DCG as {rank j: gain at j}, with the discount D(j) left for later."""
    return {j: gain(x) for j, x in enumerate(o[:k], start=1)}


# -- averaging over orderings -----------------------------------------------


def _mean(values: list) -> Exact:
    return sum(values, Fraction(0)) / len(values)


def _mean_terms(all_terms: list[dict[int, Exact]]) -> dict[int, Exact]:
    total: dict[int, Exact] = {}
    for terms in all_terms:
        for j, c in terms.items():
            total[j] = total.get(j, 0) + c
    return {j: c / len(all_terms) for j, c in total.items()}


def _finish(value: Exact, exact: bool) -> Exact:
    return value if flag(exact, "exact") else to_float(value)


def _binary_setup(r: Ranking, rel: object, num_rel: object = None):
    gs = groups(r)
    threshold_ = threshold(rel)
    retrieved = sum(1 for x in flatten(gs) if x >= threshold_)
    return gs, threshold_, relevant_total(num_rel, retrieved)


# -- the tie-aware measures ---------------------------------------------------


def precision(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, norm: str = "k", exact: bool = True) -> Exact:
    """Expected P@k over every ordering consistent with the ties.

    ``norm="retrieved"`` divides each ordering's hits by min(k, n), the
    documents retrieved within k (``P(norm=retrieved)@k``), and gives 0 for
    an empty ranking.  ``norm="capped"`` divides by min(k, num_rel)
    (``P(norm=capped)@k``, implicit's precision), 0 when num_rel is 0.

    >>> precision([1, [0, 1, 0], 1], 3)    # (1 + 2·1/3) / 3
    Fraction(5, 9)
    >>> precision([[1, 0]], 5, norm="retrieved")
    Fraction(1, 2)

    Beware: for k beyond the ranking, missing ranks count as non-relevant
    (trec_eval's P_k), so P@10 of a 5-document ranking is at most 1/2
    (unless ``norm="retrieved"``).
    """
    norm = choice(norm, "norm", ("k", "retrieved", "capped"))
    gs, t, n_rel = _binary_setup(r, rel, num_rel)
    k = cutoff(k)
    divisor = k if norm == "k" else min(k, len(flatten(gs)) if norm == "retrieved" else n_rel)
    if divisor == 0:
        return _finish(Fraction(0), exact)
    return _finish(_mean([Fraction(hits_of(o, k, t), divisor) for o in orderings(gs)]), exact)


def recall(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected R@k; num_rel defaults to the relevant documents in the ranking.

    >>> recall([1, [0, 1, 0], 1], 3, num_rel=4)
    Fraction(5, 12)
    """
    gs, t, n_rel = _binary_setup(r, rel, num_rel)
    k = cutoff(k)
    if n_rel == 0:
        return _finish(Fraction(0), exact)
    return _finish(_mean([Fraction(hits_of(o, k, t), n_rel) for o in orderings(gs)]), exact)


def f1(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected F1@k = 2·hits / (k + num_rel), the harmonic mean of P@k and R@k.

    >>> f1([1, [0, 1, 0], 1], 3)    # 2·(5/3) / (3 + 3)
    Fraction(5, 9)
    """
    gs, t, n_rel = _binary_setup(r, rel, num_rel)
    k = cutoff(k)
    return _finish(_mean([Fraction(2 * hits_of(o, k, t), k + n_rel) for o in orderings(gs)]), exact)


def average_precision(
    r: Ranking,
    k: Optional[int] = None,
    num_rel: Optional[int] = None,
    *,
    rel: object = 1,
    norm: str = "R",
    exact: bool = True,
) -> Exact:
    """Expected AP@k (k=None: the whole ranking), normalised by num_rel.

    *norm* chooses the divisor of each ordering's sum: ``"R"`` num_rel,
    ``"capped"`` min(num_rel, k), ``"hits"`` its relevant documents in the
    top k, ``"k"`` k (``AP(norm=...)@k``; see :func:`average_precision_of`).

    >>> average_precision([1, [0, 1], 1])    # mean of 29/36 (1011) and 33/36 (1101)
    Fraction(31, 36)
    >>> average_precision([0, [1, 0]], 2, norm="hits")    # 0 1 0: 1/2; 0 0 1: no hit in the top 2, 0
    Fraction(1, 4)

    Beware: num_rel counts judged relevant documents the run never
    retrieved when you pass it (trec_eval's map); by default it does not.
    """
    norm = choice(norm, "norm", ("R", "capped", "hits", "k"))
    if norm in ("capped", "k") and k is None:
        raise bad("k", k, f"must be a cutoff with norm={norm!r} (AP@k divided by {'min(num_rel, k)' if norm == 'capped' else 'k'})")
    gs, t, n_rel = _binary_setup(r, rel, num_rel)
    k = cutoff(k, optional=True)
    depth = len(flatten(gs)) if k is None else k
    return _finish(_mean([average_precision_of(o, depth, t, n_rel, norm) for o in orderings(gs)]), exact)


def reciprocal_rank(r: Ranking, k: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected reciprocal rank of the first relevant document within k.

    >>> reciprocal_rank([0, [0, 1, 0]])
    Fraction(13, 36)
    """
    gs, t, _ = _binary_setup(r, rel)
    k = cutoff(k, optional=True)
    depth = len(flatten(gs)) if k is None else k
    return _finish(_mean([reciprocal_rank_of(o, depth, t) for o in orderings(gs)]), exact)


def _expected_dcg(gs, k: Optional[int], gain: Gain, discount: Discount) -> Exact:
    g = gain_function(gain)
    depth = len(flatten(gs)) if k is None else k
    return discounted_sum(_mean_terms([dcg_terms_of(o, depth, g) for o in orderings(gs)]), discount)


def dcg(
    r: Ranking, k: Optional[int] = None, gain: Gain = "linear", discount: Discount = "log2", *, exact: bool = True
) -> Exact:
    """Expected DCG@k; exact, and symbolic where the discount is irrational.

    >>> dcg([[2, 0], 1], discount=lambda j: Fraction(1, j))
    Fraction(11, 6)
    >>> dcg([3, 2, 3, 0, 1])
    log(2)/log(6) + 2*log(2)/log(3) + 9/2
    """
    gs = groups(r)
    check_gain_domain(flatten(gs), gain)
    return _finish(_expected_dcg(gs, cutoff(k, optional=True), gain, discount), exact)


def ndcg(
    r: Ranking,
    k: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    gain: Gain = "linear",
    discount: Discount = "log2",
    *,
    exact: bool = True,
) -> Exact:
    """Expected DCG@k over the ideal DCG@k; 0 when the ideal DCG is 0.

    ``ideal`` lists every judged label of the query (default: the ranking's
    own labels); it is sorted best first to give the ideal ranking.

    >>> ndcg([[1, 0]], discount=lambda j: Fraction(1, j))
    Fraction(3, 4)
    """
    gs = groups(r)
    k = cutoff(k, optional=True)
    ideal_labels = flatten(gs) if ideal is None else tuple(ideal_label(x, f"ideal[{i}]") for i, x in enumerate(ideal))
    check_gain_domain(flatten(gs), gain)
    check_gain_domain(ideal_labels, gain, "ideal")
    if ideal is not None:
        check_ideal(flatten(gs), ideal_labels, ideal)
    best = sorted(ideal_labels, reverse=True)
    ideal_dcg = discounted_sum(dcg_terms_of(best, len(best) if k is None else k, gain_function(gain)), discount)
    return _finish(divide(_expected_dcg(gs, k, gain, discount), ideal_dcg), exact)
