"""trec_eval's other measure families, by brute force: every ordering, trec_eval's own loop, the exact mean.

Each ``*_of`` function is a transcription of trec_eval 9.0.8's loop for one
measure (usnistgov/trec_eval, the m_*.c file named in its docstring) on one
ordering, with exact arithmetic in place of C doubles.  An ordering is a
sequence of trec_eval's relevance values: the label of a judged document,
``-1`` for a document not in the qrels (``RELVALUE_NONPOOL``, a ``None`` in
the ranking) and ``-2`` for one in the qrels with a negative label
(``RELVALUE_UNJUDGED``).  The public functions enumerate every ordering
consistent with the ties and average; nothing here knows a closed form.

The measures read R = num_rel (judged documents with label >= rel; by
default the relevant documents in the ranking) and, for the gain measures,
the judged labels of the query (*ideal*; by default the ranking's own).

The discount of the gain measures (ndcg_rel, Rndcg, binG, G) is
``"log2"`` (trec_eval's, exact) or a callable D(j), the weight of rank j, so
that trec_eval's ``1/log2(x)`` is D(x - 1); a rational callable keeps every
value a Fraction (the tests use it to compare the layers exactly).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import Exact, divide, to_float
from tieaware.model.gains import (
    Discount,
    discount_function,
    log2_weighted_sum,
    trec_gain_pairs,
    trec_ideal_walk,
    trec_level_gain,
)
from tieaware.model.params import cutoff, flag, relevant_total, threshold, trec_count
from tieaware.model.ranking import Ranking, judged_groups, judgement
from tieaware.reference.orderings import orderings

__all__ = [
    "retrieved",
    "relevant_retrieved",
    "judged_nonrelevant",
    "set_precision",
    "set_recall",
    "set_f",
    "set_average_precision",
    "set_relative_precision",
    "utility",
    "relative_precision",
    "r_precision_multiple",
    "interpolated_precision",
    "eleven_point_average",
    "inferred_average_precision",
    "binary_gain",
    "normalised_gain",
    "ndcg_relevant",
    "r_ndcg",
    "trec_ndcg",
    "iprec_of",
    "rprec_mult_of",
    "infap_of",
    "ELEVEN_POINTS",
    "INFAP_EPSILON",
    "GEO_MEAN_FLOOR",
    "each_ordering",
]

#: trec_eval's default recall levels for iprec_at_recall and 11pt_avg: 0, 0.1, ..., 1.
ELEVEN_POINTS = tuple(Fraction(i, 10) for i in range(11))
#: INFAP_EPSILON in trec_eval.h: keeps infAP's ratio defined when nothing is judged above.
INFAP_EPSILON = Fraction(1, 100000)
#: MIN_GEO_MEAN in trec_eval.h: the floor of gm_map and gm_bpref (the log of 0 is -inf).
GEO_MEAN_FLOOR = Fraction(1, 100000)

_NONPOOL, _UNJUDGED = -1, -2
#: A sortable, hashable stand-in for "not in the qrels" inside the enumeration.
_NONE = float("-inf")

Codes = Sequence[Any]


def _codes(r: Ranking) -> list[tuple[Any, ...]]:
    """The tie groups as trec_eval's values: labels, -1 (not in the qrels), -2 (negative label)."""
    return [tuple(_NONE if x is None else (Fraction(_UNJUDGED) if x < 0 else x) for x in g) for g in judged_groups(r)]


def _value(x: Any) -> Any:
    return _NONPOOL if x == _NONE else x


def each_ordering(r: Ranking) -> list[list[Any]]:
    """Every ordering of *r*, each as trec_eval's list of relevance values."""
    return [[_value(x) for x in o] for o in orderings(_codes(r))]


def _mean(values: list) -> Any:
    total: Any = Fraction(0)
    for v in values:
        total = total + v
    return total / len(values)


def _out(value: Exact, exact: bool) -> Exact:
    return value if flag(exact, "exact") else to_float(value)


def _relevant_in(r: Ranking, t: Fraction) -> int:
    return sum(1 for g in judged_groups(r) for x in g if x is not None and x >= t)


# -- counts: trec_eval's RES_RELS (form_res_rels.c) ----------------------------------------


def counts_of(o: Codes, rel: Fraction) -> tuple[int, int, int, int]:
    """(num_ret, num_rel_ret, num_nonpool, num_unjudged_in_pool) of one ordering."""
    return (
        len(o),
        sum(1 for x in o if x >= 0 and x >= rel),
        sum(1 for x in o if x == _NONPOOL),
        sum(1 for x in o if x == _UNJUDGED),
    )


def _per_ordering(r: Ranking, fn: Callable[[list[Any]], Any], exact: bool) -> Exact:
    return _out(_mean([fn(o) for o in each_ordering(r)]), exact)


def retrieved(r: Ranking, *, exact: bool = True) -> Exact:
    """num_ret: the documents retrieved.

    >>> retrieved([1, [0, None]])
    Fraction(3, 1)
    """
    return _per_ordering(r, lambda o: Fraction(len(o)), exact)


def relevant_retrieved(r: Ranking, *, rel: object = 1, exact: bool = True) -> Exact:
    """num_rel_ret: the relevant documents retrieved (m_num_rel_ret.c).

    >>> relevant_retrieved([2, [0, 1]], rel=2)
    Fraction(1, 1)
    """
    t = threshold(rel)
    return _per_ordering(r, lambda o: Fraction(counts_of(o, t)[1]), exact)


def judged_nonrelevant(r: Ranking, *, rel: object = 1, exact: bool = True) -> Exact:
    """num_nonrel_judged_ret: num_ret - num_nonpool - num_unjudged_in_pool - num_rel_ret (m_num_nonrel_judged_ret.c).

    >>> judged_nonrelevant([1, [0, None, -2]])
    Fraction(1, 1)
    """
    t = threshold(rel)

    def one(o: list[Any]) -> Fraction:
        ret, rel_ret, nonpool, unjudged = counts_of(o, t)
        return Fraction(ret - nonpool - unjudged - rel_ret)

    return _per_ordering(r, one, exact)


# -- set measures (m_set_P.c, m_set_recall.c, m_set_F.c, m_set_map.c, m_set_rel_P.c, m_utility.c)


def set_precision(r: Ranking, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_P: num_rel_ret / num_ret (0 when nothing is retrieved).

    >>> set_precision([1, [0, 1], 0])
    Fraction(1, 2)
    """
    t = threshold(rel)

    def one(o: list[Any]) -> Fraction:
        ret, rel_ret, _, _ = counts_of(o, t)
        return Fraction(rel_ret, ret) if ret else Fraction(0)

    return _per_ordering(r, one, exact)


def set_recall(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_recall: num_rel_ret / num_rel (0 when num_rel is 0).

    >>> set_recall([1, [0, 1]], num_rel=4)
    Fraction(1, 2)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))
    return _per_ordering(r, lambda o: Fraction(counts_of(o, t)[1], big_r) if big_r else Fraction(0), exact)


def set_f(r: Ranking, num_rel: Optional[int] = None, beta: object = 1, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_F: (beta + 1)·P·R / (beta·P + R), with trec_eval's beta (not squared); 0 with no relevant retrieved.

    >>> set_f([1, [0, 1], 0], num_rel=4)      # P = 1/2, R = 1/2
    Fraction(1, 2)
    """
    t = threshold(rel)
    b = _beta(beta)
    big_r = relevant_total(num_rel, _relevant_in(r, t))

    def one(o: list[Any]) -> Fraction:
        ret, rel_ret, _, _ = counts_of(o, t)
        if not rel_ret:
            return Fraction(0)
        p, q = Fraction(rel_ret, ret), Fraction(rel_ret, big_r)
        return (b + 1) * p * q / (b * p + q)

    return _per_ordering(r, one, exact)


def _beta(beta: object) -> Fraction:
    from tieaware.model.exact import rational

    value = rational(beta, "beta")
    if value < 0:
        raise bad("beta", beta, "must be >= 0 (the weight of recall in set_F)")
    return value


def set_average_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_map: num_rel_ret² / (num_ret · num_rel) (0 when either is 0).

    >>> set_average_precision([1, [0, 1], 0], num_rel=4)
    Fraction(1, 4)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))

    def one(o: list[Any]) -> Fraction:
        ret, rel_ret, _, _ = counts_of(o, t)
        return Fraction(rel_ret * rel_ret, ret * big_r) if ret and big_r else Fraction(0)

    return _per_ordering(r, one, exact)


def set_relative_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_relative_P: num_rel_ret / min(num_ret, num_rel) (0 when either is 0).

    >>> set_relative_precision([1, [0, 1], 0], num_rel=3)
    Fraction(2, 3)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))

    def one(o: list[Any]) -> Fraction:
        ret, rel_ret, _, _ = counts_of(o, t)
        return Fraction(rel_ret, min(ret, big_r)) if ret and big_r else Fraction(0)

    return _per_ordering(r, one, exact)


def utility(
    r: Ranking,
    num_rel: Optional[int] = None,
    coefficients: Sequence[object] = (1, -1, 0, 0),
    num_docs: int = 0,
    *,
    rel: object = 1,
    exact: bool = True,
) -> Exact:
    """utility: p1·a + p2·b + p3·c + p4·d over the contingency table (m_utility.c).

    a = relevant retrieved, b = non-relevant retrieved, c = relevant not
    retrieved, d = num_docs + a - num_ret - num_rel (trec_eval's -N).

    >>> utility([1, [0, 1], 0], num_rel=3)      # 2 - 2
    Fraction(0, 1)
    """
    t = threshold(rel)
    p1, p2, p3, p4 = _coefficients(coefficients)
    big_r = relevant_total(num_rel, _relevant_in(r, t))

    def one(o: list[Any]) -> Fraction:
        ret, a, _, _ = counts_of(o, t)
        return p1 * a + p2 * (ret - a) + p3 * (big_r - a) + p4 * (num_docs + a - ret - big_r)

    return _per_ordering(r, one, exact)


def _coefficients(coefficients: Sequence[object]) -> tuple[Fraction, ...]:
    from tieaware.model.exact import rational

    if isinstance(coefficients, (str, bytes)) or len(coefficients) != 4:
        raise bad("coefficients", coefficients, "must be 4 numbers (trec_eval's utility.p1,p2,p3,p4)")
    return tuple(rational(c, "coefficients") for c in coefficients)


# -- measures at cutoffs (m_rel_P.c, m_Rprec_mult.c) ----------------------------------------


def relative_precision(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """relative_P@k: relevant in the top k / min(k, num_rel) (0 when num_rel is 0).

    >>> relative_precision([[1, 0], 1], 2, num_rel=2)      # 1 0 1 and 0 1 1: one relevant in the top 2, / 2
    Fraction(1, 2)
    """
    t = threshold(rel)
    k = cutoff(k)
    big_r = relevant_total(num_rel, _relevant_in(r, t))

    def one(o: list[Any]) -> Fraction:
        if big_r == 0:
            return Fraction(0)
        return Fraction(sum(1 for x in o[:k] if x >= t), min(k, big_r))

    return _per_ordering(r, one, exact)


def rprec_mult_of(o: Codes, cuts: Sequence[int], rel: Fraction) -> list[Fraction]:
    """m_Rprec_mult.c's loop on one ordering: the precision at each document count in *cuts* (ascending)."""
    num_ret = len(o)
    rel_ret = sum(1 for x in o if x >= rel)
    values = [Fraction(0)] * len(cuts)
    current = len(cuts) - 1
    while current >= 0 and cuts[current] > num_ret:
        values[current] = Fraction(rel_ret, cuts[current])
        current -= 1
    so_far, i = rel_ret, num_ret
    while i > 0 and so_far > 0:
        precision = Fraction(so_far, i)
        while current >= 0 and i == cuts[current]:
            values[current] = precision
            current -= 1
        if o[i - 1] >= rel:
            so_far -= 1
        i -= 1
    return values


def r_precision_multiple(
    r: Ranking, multiple: object, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Rprec_mult at one multiple m: precision at trec_eval's count (long)(m·R + 0.9).

    >>> r_precision_multiple([[1, 0], 1, 0], "0.5")     # R = 2: the count is 1
    Fraction(1, 2)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))
    cut = trec_count(multiple, big_r)
    return _per_ordering(r, lambda o: rprec_mult_of(o, [cut], t)[0], exact)


# -- interpolated precision (m_iprec_at_recall.c, m_11pt_avg.c) -----------------------------


def iprec_of(o: Codes, cuts: Sequence[int], rel: Fraction) -> list[Fraction]:
    """m_iprec_at_recall.c's loop on one ordering: the interpolated precision at each count in *cuts*.

    *cuts* are in trec_eval's order (iprec_at_recall sorts its levels,
    11pt_avg keeps them as given); a count is (long)(level·R + 0.9).  An
    empty ranking gives 0 (trec_eval would divide 0 by 0).
    """
    num_ret = len(o)
    rel_ret = sum(1 for x in o if x >= rel)
    values = [Fraction(0)] * len(cuts)
    current = len(cuts) - 1
    while current >= 0 and cuts[current] > rel_ret:
        current -= 1
    best = Fraction(rel_ret, num_ret) if num_ret else Fraction(0)
    so_far, i = rel_ret, num_ret
    while i > 0 and so_far > 0:
        precision = Fraction(so_far, i)
        if best < precision:
            best = precision
        if o[i - 1] >= rel:
            while current >= 0 and so_far == cuts[current]:
                values[current] = best
                current -= 1
            so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = best
        current -= 1
    return values


def interpolated_precision(
    r: Ranking, recall: object, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """iprec_at_recall at one recall level: the largest precision at or after the document that reaches it.

    >>> interpolated_precision([[1, 0], 1], "0.5", num_rel=2)    # 1 0 1: 1; 0 1 1: max(1/2, 2/3)
    Fraction(5, 6)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))
    cut = trec_count(recall, big_r)
    return _per_ordering(r, lambda o: iprec_of(o, [cut], t)[0], exact)


def eleven_point_average(
    r: Ranking, num_rel: Optional[int] = None, levels: Sequence[object] = ELEVEN_POINTS, *, rel: object = 1, exact: bool = True
) -> Exact:
    """11pt_avg: the mean interpolated precision over the recall *levels*, in trec_eval's order (as given).

    >>> eleven_point_average([1, 0])
    Fraction(1, 1)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))
    if not len(levels):
        raise bad("levels", levels, "must hold at least one recall level")
    cuts = [trec_count(p, big_r) for p in levels]
    return _per_ordering(r, lambda o: sum(iprec_of(o, cuts, t), Fraction(0)) / len(cuts), exact)


# -- infAP (m_infap.c) -----------------------------------------------------------------------


def infap_of(o: Codes, num_rel: int, rel: Fraction) -> Fraction:
    """m_infap.c's loop on one ordering, exactly (INFAP_EPSILON = 1/100000)."""
    nonrel = rel_so_far = unjudged = 0
    total = Fraction(0)
    eps = INFAP_EPSILON
    for j, x in enumerate(o):
        if x == _NONPOOL:
            continue
        if x == _UNJUDGED:
            unjudged += 1
            continue
        if 0 <= x < rel:
            nonrel += 1
            continue
        rel_so_far += 1
        if j == 0:
            total += 1
        else:
            fj = Fraction(j)
            total += 1 / (fj + 1) + (fj / (fj + 1)) * ((rel_so_far - 1 + nonrel + unjudged) / fj) * (
                (rel_so_far - 1 + eps) / (rel_so_far - 1 + nonrel + 2 * eps)
            )
    return total / num_rel if num_rel else total


def inferred_average_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """infAP (Yilmaz & Aslam, CIKM 2006), trec_eval's: ``None`` is not in the pool, a negative label pooled but unjudged.

    >>> inferred_average_precision([[1, 0]], num_rel=1)     # 1 at rank 1, or (1 + ε/(1 + 2ε))/2 at rank 2
    Fraction(300007, 400008)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))
    return _per_ordering(r, lambda o: infap_of(o, big_r, t), exact)


# -- gain measures (m_binG.c, m_G.c, m_ndcg_rel.c, m_Rndcg.c) ------------------------------


def _log2_value(coefficients: dict[Fraction, Fraction], discount: Discount) -> Exact:
    """Σ c_x / log2(x): exact log2 (canonical), or D(x - 1) for a callable discount."""
    if discount == "log2":
        return log2_weighted_sum(coefficients)
    d = discount_function(discount)
    total: Any = Fraction(0)
    for x, c in sorted(coefficients.items()):
        if x <= 1:
            raise bad("log2 argument", x, "must be > 1 (a gain sum made the log2 of G's discount 0 or negative)")
        total = total + c * d(x - 1)
    return total


def _mean_coefficients(all_coefficients: list[dict[Fraction, Fraction]]) -> dict[Fraction, Fraction]:
    total: dict[Fraction, Fraction] = {}
    for cs in all_coefficients:
        for x, c in cs.items():
            total[x] = total.get(x, Fraction(0)) + c
    return {x: c / len(all_coefficients) for x, c in total.items()}


def binary_gain(
    r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, discount: Discount = "log2", exact: bool = True
) -> Exact:
    """binG: (1/R) Σ over relevant documents of 1/log2(2 + the non-relevant documents above it).

    >>> binary_gain([[1, 0]])           # 1/log2(2) = 1 or 1/log2(3), even odds
    log(2)/(2*log(3)) + 1/2
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))

    def one(o: list[Any]) -> dict[Fraction, Fraction]:
        so_far, out = 0, {}
        for i, x in enumerate(o):
            if x >= t:
                so_far += 1
                key = Fraction(3 + i - so_far)
                out[key] = out.get(key, Fraction(0)) + 1
        return {x: c / big_r for x, c in out.items()} if so_far else {}

    return _out(_log2_value(_mean_coefficients([one(o) for o in each_ordering(r)]), discount), exact)


def _gain_setup(r: Ranking, ideal: Optional[Sequence[object]], gains: Optional[str]):
    pairs = trec_gain_pairs(gains)
    if ideal is None:
        judged = [x for g in judged_groups(r) for x in g if x is not None]
    else:
        judged = [judgement(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    return pairs, trec_ideal_walk(judged, pairs)


def normalised_gain(
    r: Ranking, ideal: Optional[Sequence[object]] = None, gains: Optional[str] = None, *, discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """G (m_G.c): Σ gain/log2(2 + ideal cost so far − gain so far), over the ideal's total gain.

    >>> normalised_gain([[1, 0]])       # 1/log2(2) or 1/log2(3), even odds
    log(2)/(2*log(3)) + 1/2
    """
    pairs, (first, seq, last) = _gain_setup(r, ideal, gains)
    total_ideal = sum(seq, Fraction(0))

    def one(o: list[Any]) -> dict[Fraction, Fraction]:
        out: dict[Fraction, Fraction] = {}
        got = cost = Fraction(0)
        ideal_gain = first
        i = 0
        while i < len(o) and ideal_gain > 0:
            g = trec_level_gain(None if o[i] == _NONPOOL else o[i], pairs)
            got += g
            ideal_gain = seq[i] if i < len(seq) else last
            cost += ideal_gain if ideal_gain >= 1 else 1
            if g != 0:
                out[2 + cost - got] = out.get(2 + cost - got, Fraction(0)) + g
            i += 1
        while i < len(o):
            g = trec_level_gain(None if o[i] == _NONPOOL else o[i], pairs)
            got += g
            cost += 1
            if g != 0:
                out[2 + cost - got] = out.get(2 + cost - got, Fraction(0)) + g
            i += 1
        return {x: c / total_ideal for x, c in out.items()} if total_ideal > 0 else {}

    return _out(_log2_value(_mean_coefficients([one(o) for o in each_ordering(r)]), discount), exact)


def ndcg_relevant(
    r: Ranking, ideal: Optional[Sequence[object]] = None, gains: Optional[str] = None, *, discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """ndcg_rel (m_ndcg_rel.c): nDCG at each retrieved document of positive gain, averaged over the ideal's.

    An unretrieved one counts the nDCG at the end of the ranking.

    >>> ndcg_relevant([[1, 0]], discount=lambda j: Fraction(1, j))    # 1 0: 1; 0 1: (1/2)/1, and 1/2 missing... averaged
    Fraction(3, 4)
    """
    pairs, (first, seq, last) = _gain_setup(r, ideal, gains)
    d = discount_function(discount)

    def one(o: list[Any]) -> Exact:
        got = ideal_dcg = total = Fraction(0)
        found = positive = 0
        ideal_gain = first
        i = 0
        while i < len(o) and ideal_gain > 0:
            g = trec_level_gain(None if o[i] == _NONPOOL else o[i], pairs)
            if g != 0:
                got = got + g * d(i + 1)
            ideal_gain = seq[i] if i < len(seq) else last
            if ideal_gain > 0:
                positive += 1
                ideal_dcg = ideal_dcg + ideal_gain * d(i + 1)
            if g > 0:
                total = total + _ratio(got, ideal_dcg)
                found += 1
            i += 1
        while i < len(o):
            g = trec_level_gain(None if o[i] == _NONPOOL else o[i], pairs)
            if g != 0:
                got = got + g * d(i + 1)
            if g > 0:
                total = total + _ratio(got, ideal_dcg)
                found += 1
            i += 1
        while ideal_gain > 0:
            ideal_gain = seq[i] if i < len(seq) else last
            if ideal_gain > 0:
                positive += 1
                ideal_dcg = ideal_dcg + ideal_gain * d(i + 1)
            i += 1
        if positive - found:
            total = total + (positive - found) * _ratio(got, ideal_dcg)
        return total / positive if positive and _positive(total) else Fraction(0)

    return _out(_mean([one(o) for o in each_ordering(r)]), exact)


def _ratio(a: Exact, b: Exact) -> Exact:
    if b == 0:
        raise bad("gains", "a positive gain", "needs an ideal of positive gain (trec_eval would divide by 0)")
    return divide(a, b)


def _positive(value: Exact) -> bool:
    from tieaware.model.exact import is_rational

    if is_rational(value):
        return value > 0
    import sympy

    known = sympy.sympify(value).is_positive  # decided by assumptions (a positive discount D(j)), else compared
    if known is not None:
        return bool(known)
    from tieaware.model.exactcmp import compare

    return compare(value, Fraction(0)) > 0


def r_ndcg(
    r: Ranking,
    num_rel: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    gains: Optional[str] = None,
    *,
    rel: object = 1,
    discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """Rndcg (m_Rndcg.c): the mean nDCG at the ranks where the ideal gain changes (the R levels) and at the end.

    0 when num_rel (labels >= rel) is 0.

    >>> r_ndcg([[1, 0]], discount=lambda j: Fraction(1, j))
    Fraction(1, 2)
    """
    t = threshold(rel)
    big_r = relevant_total(num_rel, _relevant_in(r, t))
    pairs, (first, seq, last) = _gain_setup(r, ideal, gains)
    d = discount_function(discount)

    def one(o: list[Any]) -> Exact:
        if big_r == 0:
            return Fraction(0)
        got = ideal_dcg = total = Fraction(0)
        points = 0
        ideal_gain = old = first
        i = 0
        while i < len(o) and ideal_gain > 0:
            g = trec_level_gain(None if o[i] == _NONPOOL else o[i], pairs)
            ideal_gain = seq[i] if i < len(seq) else last
            if old != ideal_gain:
                if _positive(ideal_dcg):
                    total, points = total + divide(got, ideal_dcg), points + 1
                old = ideal_gain
            if g != 0:
                got = got + g * d(i + 1)
            if ideal_gain > 0:
                ideal_dcg = ideal_dcg + ideal_gain * d(i + 1)
            i += 1
        if i < len(o):
            while i < len(o):
                g = trec_level_gain(None if o[i] == _NONPOOL else o[i], pairs)
                if g != 0:
                    got = got + g * d(i + 1)
                i += 1
            if _positive(ideal_dcg):
                total, points = total + divide(got, ideal_dcg), points + 1
        while ideal_gain > 0:
            ideal_gain = seq[i] if i < len(seq) else last
            if old != ideal_gain:
                if _positive(ideal_dcg):
                    total, points = total + divide(got, ideal_dcg), points + 1
                old = ideal_gain
            if ideal_gain > 0:
                ideal_dcg = ideal_dcg + ideal_gain * d(i + 1)
            i += 1
        return total / points if points else Fraction(0)

    return _out(_mean([one(o) for o in each_ordering(r)]), exact)


def trec_ndcg(
    r: Ranking,
    k: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    gains: Optional[str] = None,
    *,
    discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """nDCG@k with trec_eval's ``rel_level=gain`` pairs (m_ndcg.c's gains), averaged over every ordering.

    >>> trec_ndcg([[1, 0]], gains="1=3", discount=lambda j: Fraction(1, j))    # 1 0: 1; 0 1: 1/2
    Fraction(3, 4)
    """
    k = cutoff(k, optional=True)
    pairs, (_, seq, _) = _gain_setup(r, ideal, gains)
    d = discount_function(discount)
    best_seq = seq if k is None else seq[:k]
    if discount == "log2":
        from tieaware.model.gains import discounted_sum

        best = discounted_sum({i + 1: g for i, g in enumerate(best_seq)}, "log2")
    else:
        best = sum((g * d(i + 1) for i, g in enumerate(best_seq)), Fraction(0))

    def one(o: list[Any]) -> dict[int, Fraction]:
        cut = o if k is None else o[:k]
        return {j + 1: trec_level_gain(None if x == _NONPOOL else x, pairs) for j, x in enumerate(cut)}

    terms: dict[int, Fraction] = {}
    orders = each_ordering(r)
    for o in orders:
        for j, g in one(o).items():
            terms[j] = terms.get(j, Fraction(0)) + g
    terms = {j: g / len(orders) for j, g in terms.items()}
    if discount == "log2":
        from tieaware.model.gains import discounted_sum

        got = discounted_sum(terms, "log2")
    else:
        got = sum((g * d(j) for j, g in terms.items()), Fraction(0))
    return _out(divide(got, best), exact)
