"""trec_eval's other measure families over tie-breakings, in closed form (docs/conventions.md, trec_eval's families).

Same names and signatures as :mod:`tieaware.reference.trec_eval_measures`;
labels as there (``None``: not in the qrels; negative: in the qrels, not
judged).  Interpolated precision has its own module,
:mod:`tieaware.fast.interpolated`.

- **Counts and set measures** (num_ret, num_rel_ret,
  num_nonrel_judged_ret, set_P, set_recall, set_F, set_map,
  set_relative_P, utility) are **tie-invariant**: each is a function of how
  many documents of each kind the ranking holds, and every ordering of
  the ranking holds the same documents, so its value on every ordering is
  the same and is the expectation (theorem ``set measures``).
- **relative_P@k** and **Rprec_mult** are expected hits in the top k over a
  constant, P@k's closed form (:func:`tieaware.fast.measures.hits_from`).
- **binG** sums, over relevant documents d, 1/log2(2 + N_d) with N_d the
  non-relevant documents above d: N_d = A + X, A those of the groups
  above, X those of d's group before d, uniform on 0..a (d's place among
  itself and its group's a non-relevant members is uniform, as for Bpref).
- **infAP** sums, over relevant documents, a term that depends on d's rank
  and on how many judged relevant, judged non-relevant and pooled-unjudged
  documents are above it; inside its group those counts are multivariate
  hypergeometric given d's place (uniform), and the term is linear in the
  pooled-unjudged count given the others, so a sum over (relevant,
  non-relevant, other) counts before d gives the exact expectation.
- **G** sums gain/log2(2 + C(p) − S(p)), with C(p) trec_eval's ideal cost
  up to rank p (fixed) and S(p) the gain of the documents up to p: the
  groups above give a fixed part, d's group the gains of a uniformly
  random subset of the others of size (d's place − 1); a subset-sum count
  per size gives the exact distribution.
- **ndcg_rel** averages DCG@p/IDCG@p over the ranks p of positive-gain
  documents: E[y_p·DCG@p] is linear in the pair moments of the group
  (E[y_p·g_j] for the same and for two slots), so it has a closed form per
  rank; **Rndcg** averages DCG@b/IDCG@b at fixed ranks b, linear in the
  expected DCG@b.

The discount of the gain measures is ``"log2"`` or a callable D(j) (the
weight of rank j; trec_eval's 1/log2(x) is D(x − 1)), as in the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Any, Callable, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import Exact, divide, rational
from tieaware.fast.groups import Group
from tieaware.fast.measures import hits_from, precision_from
from tieaware.model.gains import (
    Discount,
    discount_function,
    discounted_sum,
    float_discount_function,
    log2_weighted_sum,
    trec_gain_pairs,
    trec_ideal_walk,
    trec_level_gain,
)
from tieaware.model.params import cutoff, flag, relevant_total, threshold, trec_count
from tieaware.model.ranking import Ranking, judged_groups, judgement

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
    "inferred_average_precision",
    "binary_gain",
    "normalised_gain",
    "ndcg_relevant",
    "r_ndcg",
    "trec_ndcg",
    "set_counts",
    "infap_group",
    "infap_term",
    "g_cost",
    "g_costs",
    "rndcg_weights",
    "INFAP_EPSILON",
]

#: INFAP_EPSILON in trec_eval.h.
INFAP_EPSILON = Fraction(1, 100000)


def _number(exact: object) -> Callable[[Any], Any]:
    return Fraction if flag(exact, "exact") else float


def set_counts(r: Ranking, rel: object = 1) -> tuple[int, int, int, int, int]:
    """(num_ret, num_rel_ret, num_nonpool, num_unjudged_in_pool, judged non-relevant) of a ranking.

    Each is the same on every ordering of the ranking.

    >>> set_counts([1, [0, None, -2], 2])
    (5, 2, 1, 1, 1)
    """
    t = threshold(rel)
    flat = [x for g in judged_groups(r) for x in g]
    rel_ret = sum(1 for x in flat if x is not None and x >= t)
    nonpool = sum(1 for x in flat if x is None)
    unjudged = sum(1 for x in flat if x is not None and x < 0)
    return len(flat), rel_ret, nonpool, unjudged, len(flat) - rel_ret - nonpool - unjudged


def retrieved(r: Ranking, *, exact: bool = True) -> Exact:
    """num_ret (tie-invariant).

    >>> retrieved([1, [0, None]])
    Fraction(3, 1)
    """
    return _number(exact)(set_counts(r)[0])


def relevant_retrieved(r: Ranking, *, rel: object = 1, exact: bool = True) -> Exact:
    """num_rel_ret (tie-invariant).

    >>> relevant_retrieved([2, [0, 1]], rel=2)
    Fraction(1, 1)
    """
    return _number(exact)(set_counts(r, rel)[1])


def judged_nonrelevant(r: Ranking, *, rel: object = 1, exact: bool = True) -> Exact:
    """num_nonrel_judged_ret: retrieved documents judged below rel (tie-invariant).

    >>> judged_nonrelevant([1, [0, None, -2]])
    Fraction(1, 1)
    """
    return _number(exact)(set_counts(r, rel)[4])


def _set_setup(r: Ranking, rel: object, num_rel: Optional[int], exact: object):
    ret, rel_ret, _, _, _ = set_counts(r, rel)
    return ret, rel_ret, relevant_total(num_rel, rel_ret), _number(exact)


def set_precision(r: Ranking, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_P = num_rel_ret / num_ret (tie-invariant; 0 when nothing is retrieved).

    >>> set_precision([1, [0, 1], 0])
    Fraction(1, 2)
    """
    ret, rel_ret, _, number = _set_setup(r, rel, None, exact)
    return number(rel_ret) / ret if ret else number(0)


def set_recall(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_recall = num_rel_ret / num_rel (tie-invariant).

    >>> set_recall([1, [0, 1]], num_rel=4)
    Fraction(1, 2)
    """
    _, rel_ret, big_r, number = _set_setup(r, rel, num_rel, exact)
    return number(rel_ret) / big_r if big_r else number(0)


def set_f(r: Ranking, num_rel: Optional[int] = None, beta: object = 1, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_F = (β + 1)·P·R/(β·P + R) = (β + 1)·num_rel_ret/(β·num_rel + num_ret), trec_eval's β (tie-invariant).

    >>> set_f([1, [0, 1], 0], num_rel=4)
    Fraction(1, 2)
    """
    ret, rel_ret, big_r, number = _set_setup(r, rel, num_rel, exact)
    b = rational(beta, "beta")
    if b < 0:
        raise bad("beta", beta, "must be >= 0 (the weight of recall in set_F)")
    if not rel_ret:
        return number(0)
    return number((b + 1) * rel_ret / (b * big_r + ret))


def set_average_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_map = num_rel_ret² / (num_ret · num_rel) (tie-invariant).

    >>> set_average_precision([1, [0, 1], 0], num_rel=4)
    Fraction(1, 4)
    """
    ret, rel_ret, big_r, number = _set_setup(r, rel, num_rel, exact)
    return number(Fraction(rel_ret * rel_ret, ret * big_r)) if ret and big_r else number(0)


def set_relative_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """set_relative_P = num_rel_ret / min(num_ret, num_rel) (tie-invariant).

    >>> set_relative_precision([1, [0, 1], 0], num_rel=3)
    Fraction(2, 3)
    """
    ret, rel_ret, big_r, number = _set_setup(r, rel, num_rel, exact)
    return number(Fraction(rel_ret, min(ret, big_r))) if ret and big_r else number(0)


def utility(
    r: Ranking,
    num_rel: Optional[int] = None,
    coefficients: Sequence[object] = (1, -1, 0, 0),
    num_docs: int = 0,
    *,
    rel: object = 1,
    exact: bool = True,
) -> Exact:
    """utility = p1·a + p2·b + p3·c + p4·d over the contingency table (tie-invariant).

    >>> utility([1, [0, 1], 0], num_rel=3)
    Fraction(0, 1)
    """
    ret, a, big_r, number = _set_setup(r, rel, num_rel, exact)
    if isinstance(coefficients, (str, bytes)) or len(coefficients) != 4:
        raise bad("coefficients", coefficients, "must be 4 numbers (trec_eval's utility.p1,p2,p3,p4)")
    p1, p2, p3, p4 = (rational(c, "coefficients") for c in coefficients)
    return number(p1 * a + p2 * (ret - a) + p3 * (big_r - a) + p4 * (num_docs + a - ret - big_r))


# -- hits at a cutoff ------------------------------------------------------------------------


def _summary(r: Ranking, t: Fraction, number: Callable[[Any], Any]) -> list[Group]:
    out, start = [], 0
    for g in judged_groups(r):
        out.append(Group(start, len(g), number(sum(1 for x in g if x is not None and x >= t)), None))
        start += len(g)
    return out


def relative_precision(r: Ranking, k: int, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected relative_P@k = E[hits in the top k] / min(k, num_rel).

    >>> relative_precision([[1, 0], 1], 2, num_rel=2)
    Fraction(1, 2)
    """
    t, number, k = threshold(rel), _number(exact), cutoff(k)
    summary = _summary(r, t, number)
    big_r = relevant_total(num_rel, int(sum(g.relevant for g in summary)))
    if big_r == 0:
        return number(0)
    return number(hits_from(summary, k)) / min(k, big_r)


def r_precision_multiple(
    r: Ranking, multiple: object, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True
) -> Exact:
    """Expected Rprec_mult at one multiple m: P@c at trec_eval's count c = (long)(m·R + 0.9); 0 when c < 1.

    >>> r_precision_multiple([[1, 0], 1, 0], "0.5")
    Fraction(1, 2)
    """
    t, number = threshold(rel), _number(exact)
    summary = _summary(r, t, number)
    big_r = relevant_total(num_rel, int(sum(g.relevant for g in summary)))
    c = trec_count(multiple, big_r)
    return precision_from(summary, c, number=number) if c >= 1 else number(0)


# -- infAP -------------------------------------------------------------------------------


def infap_group(
    above: tuple[int, int, int], t: int, kinds: tuple[int, int, int, int], *, number: Callable[[Any], Any] = Fraction
) -> Any:
    """Σ over the group's relevant documents of E[infAP term]: the group starts after rank t.

    *above* holds the judged relevant, judged non-relevant and pooled
    unjudged documents of the groups above; *kinds* the group's relevant,
    judged non-relevant, pooled unjudged and not-pooled members.  A
    relevant document d at group place q = 1 + α + δ + s (α relevant, δ
    non-relevant, s others before it) has the term
    (1 + (A + α + D + δ + U + υ)·(A + α + ε)/(A + α + D + δ + 2ε)) / (t + q),
    linear in the pooled unjudged υ given s, whose mean is s·u/(u + x).

    >>> infap_group((0, 0, 0), 0, (1, 1, 0, 0))    # 1 at rank 1, or (1 + ε/(1 + 2ε))/2 at rank 2: the mean
    Fraction(300007, 400008)
    """
    a0, d0, u0 = above
    r, a, u, x = kinds
    if r == 0:
        return number(0)
    n = r + a + u + x
    others = u + x
    total = number(0)
    for alpha in range(r):
        ca = comb(r - 1, alpha)
        for delta in range(a + 1):
            cd = ca * comb(a, delta)
            for s in range(others + 1):
                ways = cd * comb(others, s)
                before = alpha + delta + s
                p = number(Fraction(ways, comb(n - 1, before)))
                unj = number(s * u) / others if others else number(0)
                total += p * infap_term(t + 1 + before, a0 + alpha, d0 + delta, u0 + unj, number=number)
    return total * r / n


def infap_term(rank: int, relevant: int, nonrelevant: int, unjudged: Any, *, number: Callable[[Any], Any] = Fraction) -> Any:
    """m_infap.c's term of a relevant document at *rank* with these judged relevant, judged non-relevant
    and pooled unjudged documents above it: (1 + (rel + nonrel + unj)·(rel + ε)/(rel + nonrel + 2ε))/rank.

    It is linear in *unjudged*, so an expected count gives the expected term.

    >>> infap_term(1, 0, 0, 0), infap_term(2, 0, 1, 0)
    (Fraction(1, 1), Fraction(100003, 200004))
    """
    eps = number(INFAP_EPSILON)
    w = (relevant + eps) / (relevant + nonrelevant + 2 * eps)
    return (1 + (relevant + nonrelevant + unjudged) * w) / rank


def inferred_average_precision(r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, exact: bool = True) -> Exact:
    """Expected infAP (trec_eval's), in closed form per group; ``None`` not pooled, a negative label pooled unjudged.

    >>> inferred_average_precision([[1, 0]], num_rel=1)
    Fraction(300007, 400008)
    """
    t, number = threshold(rel), _number(exact)
    gs = judged_groups(r)
    kinds = [
        (
            sum(1 for y in g if y is not None and y >= t),
            sum(1 for y in g if y is not None and 0 <= y < t),
            sum(1 for y in g if y is not None and y < 0),
            sum(1 for y in g if y is None),
        )
        for g in gs
    ]
    big_r = relevant_total(num_rel, sum(k[0] for k in kinds))
    total, start = number(0), 0
    a0 = d0 = u0 = 0
    for g, k in zip(gs, kinds):
        if k[0]:
            total += infap_group((a0, d0, u0), start, k, number=number)
        a0, d0, u0 = a0 + k[0], d0 + k[1], u0 + k[2]
        start += len(g)
    return total / big_r if big_r else total


# -- gain measures -------------------------------------------------------------------------


def _log2_value(coefficients: dict[Fraction, Any], discount: Discount, exact: bool) -> Exact:
    """Σ c_x / log2(x), exact (or D(x − 1) for a callable discount); floats in float mode."""
    for x in coefficients:
        if x <= 1:
            raise bad("log2 argument", x, "must be > 1 (a gain sum made the log2 of G's discount 0 or negative)")
    if exact:
        if discount == "log2":
            return log2_weighted_sum(coefficients)
        d = discount_function(discount)
        total: Any = Fraction(0)
        for x, c in sorted(coefficients.items()):
            total = total + c * d(x - 1)
        return total
    if discount == "log2":
        from math import log2

        return sum((float(c) / log2(float(x)) for x, c in coefficients.items()), 0.0)
    d_float = float_discount_function(discount)
    return sum((float(c) * d_float(x - 1) for x, c in coefficients.items()), 0.0)


def binary_gain(
    r: Ranking, num_rel: Optional[int] = None, *, rel: object = 1, discount: Discount = "log2", exact: bool = True
) -> Exact:
    """Expected binG = (1/R) Σ_groups r/(a + 1) Σ_{x=0}^{a} 1/log2(2 + A + x), A the non-relevant above.

    >>> binary_gain([[1, 0]])
    log(2)/(2*log(3)) + 1/2
    """
    exact = flag(exact, "exact")
    t = threshold(rel)
    coefficients: dict[Fraction, Fraction] = {}
    above = rel_ret = 0
    for g in judged_groups(r):
        relevant = sum(1 for y in g if y is not None and y >= t)
        a = len(g) - relevant
        if relevant:
            share = Fraction(relevant, a + 1)
            for x in range(a + 1):
                key = Fraction(2 + above + x)
                coefficients[key] = coefficients.get(key, Fraction(0)) + share
        above += a
        rel_ret += relevant
    big_r = relevant_total(num_rel, rel_ret)
    if not rel_ret:
        return Fraction(0) if exact else 0.0
    return _log2_value({x: c / big_r for x, c in coefficients.items()}, discount, exact)


def _gain_setup(r: Ranking, ideal: Optional[Sequence[object]], gains: Optional[str]):
    pairs = trec_gain_pairs(gains)
    gs = judged_groups(r)
    if ideal is None:
        judged = [x for g in gs for x in g if x is not None]
    else:
        judged = [judgement(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    return gs, pairs, trec_ideal_walk(judged, pairs)


def g_cost(seq: Sequence[Fraction], i: int) -> Fraction:
    """trec_eval's cost of rank i + 1 in G (m_G.c): the ideal gain there, at least 1.

    >>> g_cost([Fraction(3), Fraction(1, 2)], 1), g_cost([Fraction(3)], 4)
    (Fraction(1, 1), Fraction(1, 1))
    """
    return max(seq[i], Fraction(1)) if i < len(seq) else Fraction(1)


def g_costs(judged: Sequence[Optional[Fraction]], pairs: Any, n: int) -> tuple[list[Fraction], list[Fraction]]:
    """(the ideal's gains > 0, C) with C[p] the cumulative cost of ranks 1..p, p = 0..n, for G.

    >>> g_costs([Fraction(2), Fraction(0)], (), 3)
    ([Fraction(2, 1)], [Fraction(0, 1), Fraction(2, 1), Fraction(3, 1), Fraction(4, 1)])
    """
    _, seq, _ = trec_ideal_walk(judged, pairs)
    out = [Fraction(0)]
    for i in range(n):
        out.append(out[-1] + g_cost(seq, i))
    return seq, out


def _subset_sums(counts: dict[Fraction, int]) -> list[dict[Fraction, int]]:
    """ways[m][σ]: how many m-subsets of a multiset of gains ({gain: count}) sum to σ."""
    ways: list[dict[Fraction, int]] = [{Fraction(0): 1}]
    for gain, c in counts.items():
        nxt: list[dict[Fraction, int]] = [dict() for _ in range(len(ways) + c)]
        for m, row in enumerate(ways):
            for sigma, w in row.items():
                for i in range(c + 1):
                    key = sigma + i * gain
                    cell = nxt[m + i]
                    cell[key] = cell.get(key, 0) + w * comb(c, i)
        ways = nxt
    return ways


def normalised_gain(
    r: Ranking, ideal: Optional[Sequence[object]] = None, gains: Optional[str] = None, *, discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """Expected G (trec_eval's): Σ gain/log2(2 + C(p) − S(p)) over the ideal's total gain, per group.

    >>> normalised_gain([[1, 0]])
    log(2)/(2*log(3)) + 1/2
    """
    exact = flag(exact, "exact")
    gs, pairs, (_, seq, _) = _gain_setup(r, ideal, gains)
    total_ideal = sum(seq, Fraction(0))
    if total_ideal <= 0:
        return Fraction(0) if exact else 0.0
    cost = lambda i: g_cost(seq, i)  # noqa: E731

    coefficients: dict[Fraction, Fraction] = {}
    start, gain_above, cost_so_far = 0, Fraction(0), Fraction(0)
    for g in gs:
        n = len(g)
        member_gains = [trec_level_gain(x, pairs) for x in g]
        costs = [cost_so_far]
        for q in range(n):
            costs.append(costs[-1] + cost(start + q))
        tally: dict[Fraction, int] = {}
        for x in member_gains:
            tally[x] = tally.get(x, 0) + 1
        for gamma, c in tally.items():
            if gamma == 0:
                continue
            others = dict(tally)
            others[gamma] -= 1
            ways = _subset_sums({k: v for k, v in others.items() if v})
            for q in range(1, n + 1):  # d at group place q: q - 1 others before it
                row, total_ways = ways[q - 1], comb(n - 1, q - 1)
                for sigma, w in row.items():
                    key = 2 + costs[q] - gain_above - gamma - sigma
                    coefficients[key] = coefficients.get(key, Fraction(0)) + gamma * Fraction(c * w, n * total_ways)
        start += n
        gain_above += sum(member_gains, Fraction(0))
        cost_so_far = costs[-1]
    return _log2_value({x: c / total_ideal for x, c in coefficients.items()}, discount, exact)


def _dcg_terms(gs: Sequence[Sequence[Any]], pairs: Any) -> tuple[list[Fraction], list[tuple[int, int, Fraction, int, Fraction]]]:
    """Per rank the group's mean gain, and per group (start, size, gain sum, positive members, their gain sum)."""
    means: list[Fraction] = []
    info = []
    start = 0
    for g in gs:
        member = [trec_level_gain(x, pairs) for x in g]
        total = sum(member, Fraction(0))
        pos = [x for x in member if x > 0]
        means += [total / len(g)] * len(g)
        info.append((start, len(g), total, len(pos), sum(pos, Fraction(0))))
        start += len(g)
    return means, info


def ndcg_relevant(
    r: Ranking, ideal: Optional[Sequence[object]] = None, gains: Optional[str] = None, *, discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """Expected ndcg_rel (trec_eval's), in closed form: pair moments of each group, rank by rank.

    >>> ndcg_relevant([[1, 0]], discount=lambda j: Fraction(1, j))
    Fraction(3, 4)

    Beware: exact values are sums of ratios of sums of logs; with negative
    gains (``gains=``) trec_eval's "0 unless the sum is positive" is not
    linear, and both layers refuse them.
    """
    exact = flag(exact, "exact")
    gs, pairs, (_, seq, _) = _gain_setup(r, ideal, gains)
    if any(g < 0 for _, g in pairs):
        raise bad("gains", gains, "must be >= 0 for ndcg_rel (trec_eval's 0 for a sum <= 0 is not linear)")
    positive = len(seq)
    if positive == 0:
        if any(trec_level_gain(x, pairs) > 0 for g in gs for x in g):
            raise bad("gains", "a positive gain", "needs an ideal of positive gain (trec_eval would divide by 0)")
        return Fraction(0) if exact else 0.0
    d = discount_function(discount) if exact else float_discount_function(discount)
    zero: Any = Fraction(0) if exact else 0.0
    means, info = _dcg_terms(gs, pairs)
    n_ret = len(means)
    top = max(n_ret, positive)
    disc = [d(j) for j in range(1, top + 1)]
    ideal_dcg = [zero]
    for i in range(top):
        ideal_dcg.append(ideal_dcg[-1] + (seq[i] * disc[i] if i < positive else 0))

    def conv(v: Fraction) -> Any:
        return v if exact else float(v)

    total: Any = zero
    dcg_above: Any = zero  # expected DCG of the groups above
    found = 0
    for start, n, gsum, npos, gpos in info:
        if npos:
            pair = (npos * gsum - gpos) / (n * (n - 1)) if n > 1 else Fraction(0)
            running: Any = zero  # Σ_{j < p in the group} D(j)
            for q in range(1, n + 1):
                p = start + q
                term = conv(Fraction(npos, n)) * dcg_above + conv(gpos / n) * disc[p - 1] + conv(pair) * running
                total = total + _divide(term, ideal_dcg[min(p, positive)], exact)
                running = running + disc[p - 1]
            found += npos
        for q in range(1, n + 1):
            dcg_above = dcg_above + conv(means[start + q - 1]) * disc[start + q - 1]
    if positive - found:
        total = total + (positive - found) * _divide(dcg_above, ideal_dcg[positive], exact)
    return _divide(total, positive, exact)


def _divide(a: Any, b: Any, exact: bool) -> Any:
    if exact:
        return divide(a, b)
    return a / b if b else 0.0


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
    """Expected Rndcg (trec_eval's): the mean of E[DCG@c]/IDCG@b over its fixed (c, b) points.

    >>> r_ndcg([[1, 0]], discount=lambda j: Fraction(1, j))
    Fraction(1, 2)
    """
    exact = flag(exact, "exact")
    zero: Any = Fraction(0) if exact else 0.0
    setup = _rndcg_setup(r, num_rel, ideal, gains, rel, discount, exact)
    if setup is None:
        return zero
    gs, pairs, n_ret, points, disc, ideal_dcg = setup
    # Summed point by point, not as Σ_j E[gain_j]·w_j with rndcg_weights: equal in
    # value, but floats sum in another order (other last digits) and sympy keeps another form.
    means, _ = _dcg_terms(gs, pairs)
    conv = (lambda v: v) if exact else float
    dcg = [zero]
    for j in range(n_ret):
        dcg.append(dcg[-1] + conv(means[j]) * disc[j])
    total: Any = zero
    for c, b in points:
        total = total + _divide(dcg[c], ideal_dcg[b], exact)
    return _divide(total, len(points), exact)


def rndcg_weights(
    r: Ranking,
    num_rel: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    gains: Optional[str] = None,
    *,
    rel: object = 1,
    discount: Discount = "log2",
    exact: bool = True,
) -> Optional[list[Any]]:
    """Rndcg on one ordering is Σ_j gain_j·w_j: the weights w_j of ranks 1..n, or None when it is 0 on every ordering.

    w_j = D(j)·Σ over trec_eval's points (c, b) with c >= j of 1/(P·IDCG@b),
    P the number of points: the mean of DCG@c/IDCG@b, linear in the gains.

    >>> rndcg_weights([[1, 0]], discount=lambda j: Fraction(1, j))
    [Fraction(1, 1), Fraction(0, 1)]
    """
    exact = flag(exact, "exact")
    setup = _rndcg_setup(r, num_rel, ideal, gains, rel, discount, exact)
    if setup is None:
        return None
    _, _, n_ret, points, disc, ideal_dcg = setup
    zero: Any = Fraction(0) if exact else 0.0
    share = [zero] * (n_ret + 2)  # share[j]: Σ over points with c >= j of 1/(P·IDCG@b)
    for c, b in points:
        share[c] = share[c] + _divide(Fraction(1) if exact else 1.0, len(points) * ideal_dcg[b], exact)
    for j in range(n_ret - 1, 0, -1):
        share[j] = share[j] + share[j + 1]
    return [disc[j - 1] * share[j] for j in range(1, n_ret + 1)]


def _rndcg_setup(
    r: Ranking, num_rel: Optional[int], ideal: Optional[Sequence[object]], gains: Optional[str], rel: object,
    discount: Discount, exact: bool,
) -> Optional[tuple[list[list[Any]], Any, int, list[tuple[int, int]], list[Any], list[Any]]]:
    """Rndcg's set-up, shared by :func:`r_ndcg` and :func:`rndcg_weights`.

    (groups, gain pairs, documents retrieved, trec_eval's points (c, b),
    the discounts D(1..top), IDCG@0..top), or None when Rndcg is 0 on every
    ordering (no relevant document, or no point).
    """
    t = threshold(rel)
    gs, pairs, (first, seq, last) = _gain_setup(r, ideal, gains)
    rel_ret = sum(1 for g in gs for x in g if x is not None and x >= t)
    if relevant_total(num_rel, rel_ret) == 0:
        return None
    n_ret = sum(len(g) for g in gs)
    points = _rndcg_points(n_ret, first, seq, last)
    if not points:
        return None
    d = discount_function(discount) if exact else float_discount_function(discount)
    top = max([n_ret] + [b for _, b in points])
    disc = [d(j) for j in range(1, top + 1)]
    ideal_dcg = _ideal_prefix(seq, disc, top, Fraction(0) if exact else 0.0, exact)
    return gs, pairs, n_ret, points, disc, ideal_dcg


def _ideal_prefix(seq: Sequence[Fraction], disc: Sequence[Any], top: int, zero: Any, exact: bool) -> list[Any]:
    """IDCG@b for b = 0..top: the ideal gains *seq* on the discounts *disc*."""
    conv = (lambda v: v) if exact else float
    out = [zero]
    for i in range(top):
        out.append(out[-1] + (conv(seq[i]) * disc[i] if i < len(seq) else zero))
    return out


def _rndcg_points(n_ret: int, first: Fraction, seq: Sequence[Fraction], last: Fraction) -> list[tuple[int, int]]:
    """m_Rndcg.c's averaging points (DCG cutoff, IDCG cutoff): where the ideal gain changes, and the end.

    Only points with IDCG > 0 count (i.e. IDCG cutoff >= 1 with a positive ideal).

    >>> _rndcg_points(5, Fraction(2), [Fraction(2), Fraction(1), Fraction(1)], Fraction(0))
    [(1, 1), (3, 3), (5, 3)]
    """
    def at(i: int) -> Fraction:
        return seq[i] if i < len(seq) else last

    points = []
    gain = old = first
    i = 0
    while i < n_ret and gain > 0:
        gain = at(i)
        if old != gain:
            if i >= 1 and seq:
                points.append((i, min(i, len(seq))))
            old = gain
        i += 1
    if i < n_ret:
        if seq:
            points.append((n_ret, len(seq)))
        i = n_ret
    while gain > 0:
        gain = at(i)
        if old != gain:
            if i >= 1 and seq:
                points.append((n_ret, min(i, len(seq))))
            old = gain
        i += 1
    return points


def trec_ndcg(
    r: Ranking,
    k: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    gains: Optional[str] = None,
    *,
    discount: Discount = "log2",
    exact: bool = True,
) -> Exact:
    """Expected nDCG@k with trec_eval's ``rel_level=gain`` pairs (``-m ndcg.1=3.5,2=9``): E[DCG@k]/IDCG@k.

    Each document gains its level's gain (trec_eval's ``get_gain``; level -1:
    not in the qrels, -2: a negative label) and the ideal is trec_eval's
    (``setup_gains``: the levels sorted by gain).  E[DCG@k] is the mean gain
    of each group at each of its ranks, as for nDCG.

    >>> trec_ndcg([[1, 0]], gains="1=3", discount=lambda j: Fraction(1, j))
    Fraction(3, 4)
    """
    exact = flag(exact, "exact")
    k = cutoff(k, optional=True)
    gs, pairs, (_, seq, _) = _gain_setup(r, ideal, gains)
    d = discount_function(discount) if exact else float_discount_function(discount)
    conv = (lambda v: v) if exact else float
    means, _ = _dcg_terms(gs, pairs)
    depth = len(means) if k is None else min(k, len(means))
    zero: Any = Fraction(0) if exact else 0.0
    if exact and discount == "log2":
        got = discounted_sum({j + 1: means[j] for j in range(depth)}, "log2")
        best = discounted_sum({i + 1: g for i, g in enumerate(seq[:k] if k is not None else seq)}, "log2")
    else:
        got = sum((conv(means[j]) * d(j + 1) for j in range(depth)), zero)
        best = sum((conv(g) * d(i + 1) for i, g in enumerate(seq[:k] if k is not None else seq)), zero)
    return _divide(got, best, exact)
