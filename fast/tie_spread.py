"""Minimum, maximum, variance and distribution of a run measure over tie-breakings, per group.

Every measure ``tieaware eval`` computes is **separable by tie group**: its
value on an ordering is a constant plus Σ_g f_g(order inside group g), where
f_g depends on group g's own order and on things the tie-breaking cannot
change (the ranks the group spans, how many relevant documents precede it,
ERR's chance of reaching it).  The groups are ordered independently, so

- min = Σ_g min f_g, max = Σ_g max f_g, Var = Σ_g Var f_g;
- the distribution is the convolution of the groups' distributions.

Without a distribution, P, R, F1, RBP, AP and RR use closed forms per group
(:mod:`tieaware.fast.variance_kernels`, proved by ``tieaware prove``): the
hypergeometric variance of the hits for P, R and F1, Hoeffding's rank
statistic for RBP, the first-relevant distribution for RR and O(n) moments
for AP; their extremes are the measure's own closed form on the ranking
with every group sorted by label (theorem "extremes").

With a distribution, and for ERR, a dynamic program walks the group's slots
in rank order with the state "how many documents of each kind are placed so
far" and keeps, per state, the number of arrangements and the sum, sum of squares, minimum,
maximum (and optionally the distribution) of the contribution so far.  A
document's kind is whether it is relevant (P, R, F1, AP, RR, RBP: O(n·r)
states) or its grade (ERR, DCG, nDCG: the product of (count + 1) over grades).
A slot's contribution is fast's kernels at one document: the combination
kernels at one hit (P, R, F1), ``ap_value(precision_value(hits, rank))``
(AP), ``rbp_group`` of one rank (RBP), ``err_term`` with ``err_stop``'s R
(ERR), ``dcg_group`` of one document (DCG, nDCG in float mode).  What the
state carries is each ordering's definition, not a closed form: the hits
placed above, ERR's survival Π (1 - R)^placed over the members above, and
RR's 1/rank at the first relevant document.

DCG and nDCG in exact mode have irrational values (log2 discounts); there
the minimum and maximum are the orderings sorting each group by gain,
ascending and descending (rearrangement inequality: the discount decreases
with rank), and the variance is Hoeffding's rank-one form per group,
(Σ_e (x_e − x̄)²)·(Σ_j (w_j − w̄)²)/(n − 1), with x the gains and w the
discounts of the group's ranks; no distribution is given (None).

>>> from tieaware.model.names import parse
>>> s = spread_stats(parse("P@1"), [[1, 0]], [1, 0], distribution=True)
>>> s.worst, s.best, s.variance, sorted(s.distribution.items())
(Fraction(0, 1), Fraction(1, 1), Fraction(1, 4), [(Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 1), Fraction(1, 2))])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.fast.measures import dcg as fast_dcg
from tieaware.fast.groups import Group
from tieaware.fast.measures import average_precision_from, f1_from, precision_from, recall_from, reciprocal_rank_from
from tieaware.fast.rbp import rbp_from
from tieaware.fast.spread_dp import MAX_GROUP_SUPPORT, NO_CONVENTION_SPREAD, TREC_MEASURES, SpreadStats, convolve, group_dp
from tieaware.fast.trec_spread import trec_spread
from tieaware.fast.family_spread import FAMILY_SPREAD_MEASURES, NO_FAMILY_SPREAD, family_spread
from tieaware.fast import arith, kernels, variance_kernels  # looked up when called: one object of each kernel
from tieaware.model.gains import check_gain_domain, float_discount_function, float_gain_function, gain_function, perfect_power
from tieaware.model.names import Measure, parse
from tieaware.model.params import cutoff, flag, grade_ceiling, relevant_total, threshold
from tieaware.model.ranking import Ranking, groups, ideal_label

__all__ = ["SpreadStats", "spread_stats", "spread_stats_many", "MAX_GROUP_SUPPORT", "SPREAD_MEASURES", "TREC_MEASURES", "NO_CONVENTION_SPREAD"]

_BINARY = ("P", "R", "F1", "AP", "RR", "RBP")


def spread_stats(
    measure: Any, ranking: Ranking, ideal: Optional[Sequence[object]] = None, *, exact: bool = True, distribution: bool = False
) -> SpreadStats:
    """min, max, variance (and with *distribution*, the pmf) of *measure* over tie-breakings.

    *measure* is a name such as ``"AP@10"`` or a parsed Measure; *ideal* is
    every judged label of the query, with the same meaning as in
    :func:`tieaware.runs.evaluate.compute` (num_rel, nDCG's ideal, ERR's g_max).

    >>> spread_stats("AP", [[1, 0], 1]).variance     # 5/6 or 7/12, even odds
    Fraction(1, 64)
    """
    return spread_stats_many([measure], ranking, ideal, exact=exact, distribution=distribution)[0]


def spread_stats_many(
    measures: Sequence[Any], ranking: Ranking, ideal: Optional[Sequence[object]] = None, *, exact: bool = True, distribution: bool = False
) -> list[SpreadStats]:
    """:func:`spread_stats` of several measures on one ranking, reading the ranking once.

    >>> [s.best for s in spread_stats_many(["P@1", "RR"], [[0, 1]])]
    [Fraction(1, 1), Fraction(1, 1)]
    """
    exact = flag(exact, "exact")
    ms = [m if isinstance(m, Measure) else parse(m) for m in measures]
    # GMAP and GMBpref are AP and Bpref per query (their geometric mean is over queries)
    ms = [Measure({"GMAP": "AP", "GMBpref": "Bpref"}[m.name], None, m.params) if m.name in ("GMAP", "GMBpref") else m for m in ms]
    for m in ms:
        if m.conventions:
            raise bad("measure", str(m), NO_CONVENTION_SPREAD)
    out: list[Optional[SpreadStats]] = [None] * len(ms)
    for i, m in enumerate(ms):  # trec_eval's other families: tieaware.fast.family_spread
        if m.name in FAMILY_SPREAD_MEASURES:
            out[i] = family_spread(m, ranking, ideal, exact=exact, distribution=distribution)
    trec = [i for i, m in enumerate(ms) if m.name in TREC_MEASURES]
    if trec:  # Rprec, Success, Judged, Bpref: one crossing group or per-group interleavings; None kept
        for i in trec:
            out[i] = trec_spread(ms[i], ranking, ideal, exact=exact, distribution=distribution)
    if any(x is None for x in out):
        gs = groups(ranking)
        labels = None if ideal is None else [ideal_label(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
        prepared = _Prepared(gs, labels)
        for i, m in enumerate(ms):
            if out[i] is None:
                out[i] = _stats(m, prepared, exact, distribution)
    return out  # type: ignore[return-value]


class _Prepared:
    """One ranking read once: its groups, each group's label tally, the ideal labels."""

    def __init__(self, gs: Any, labels: Optional[list[Fraction]]) -> None:
        self.gs = gs
        self.labels = labels
        self.tallies = [_tally(g) for g in gs]
        self.ideal_tally = None if labels is None else _tally(labels)

    def relevant(self, t: Fraction) -> list[int]:
        """Per group, how many labels are >= t (comparing distinct labels only)."""
        return [sum(n for x, n in tally if x >= t) for tally in self.tallies]


def _tally(labels: Sequence[Fraction]) -> list[tuple[Fraction, int]]:
    counts: dict[tuple[int, int], int] = {}
    for x in labels:
        key = (x.numerator, x.denominator)  # a Fraction's own hash is slow
        counts[key] = counts.get(key, 0) + 1
    return [(Fraction(p, q), n) for (p, q), n in counts.items()]


#: trec_eval's measures, whose spread :mod:`tieaware.fast.trec_spread` computes (this module hands them on).
SPREAD_MEASURES = frozenset({"P", "R", "F1", "AP", "RR", "RBP", "ERR", "DCG", "nDCG"}) | TREC_MEASURES | FAMILY_SPREAD_MEASURES


def _stats(m: Measure, prepared: _Prepared, exact: bool, distribution: bool) -> SpreadStats:
    if m.name == "nDCGRel":
        raise bad("measure", str(m), NO_FAMILY_SPREAD)
    if m.name not in SPREAD_MEASURES:
        raise bad("measure", str(m), f"has no spread over tie-breakings yet; it is computed for {', '.join(sorted(SPREAD_MEASURES))}")
    if m.name in ("DCG", "nDCG") and (exact or not distribution):
        return _dcg(m, prepared, exact)
    number: Callable[[Any], Any] = Fraction if exact else float
    zero = number(0)
    k = cutoff(m.k, optional=True)
    if m.name in ("P", "R", "F1", "RBP") and not distribution:
        return _additive(m, prepared, number, k)
    if m.name == "RR" and not distribution:
        return _reciprocal_rank(m, prepared, number, k)
    if m.name == "AP" and not distribution:
        return _average_precision(m, prepared, number, k)
    plan = _plan(m, prepared, number, k)
    worst = best = variance = zero
    pmf: Optional[dict[Any, Any]] = {zero: number(1)} if distribution else None
    for start, kinds, contribution, scale in plan:
        acc = group_dp(kinds, contribution, zero, distribution)
        n = number(acc.n)
        mean = acc.s1 / n
        var = acc.s2 / n - mean * mean
        worst, best = worst + scale * acc.lo, best + scale * acc.hi
        variance += scale * scale * (max(var, 0.0) if not exact else var)
        if pmf is not None:
            if acc.pmf is None:
                pmf = None
            else:
                group = {scale * v: number(c) / n for v, c in acc.pmf.items()}
                pmf = convolve(pmf, group)
    return SpreadStats(worst, best, variance, pmf)


def _extremes(m: Measure, prepared: _Prepared, number: Any, k: Optional[int]) -> tuple[Any, Any]:
    """(worst, best): the measure on the ranking with every group sorted by label, ascending and descending.

    Theorem "extremes": swapping two adjacent documents of a group so that
    the better one moves up never lowers P, R, F1, AP, RR, RBP, DCG or nDCG,
    so these orderings are the extreme ones.  Their values are fast's own
    closed forms on the sorted ranking, each run of equal labels a tie group
    of its own (it has one ordering): the ``*_from`` functions on those runs'
    summaries, or for DCG and nDCG the public functions.
    """
    out = []
    for descending in (False, True):
        runs = [sorted(tally, reverse=descending) for tally in prepared.tallies]
        if m.name in ("DCG", "nDCG"):
            from tieaware import fast  # the layer, for tieaware.model.dispatch (fast's package loads its modules lazily)
            from tieaware.model.dispatch import measure_value

            order = [[x] * c if c > 1 else x for run in runs for x, c in run]
            out.append(measure_value(fast, m, order, ideal=prepared.labels, exact=number is not float))
            continue
        t = threshold(m.rel)
        summary, start = [], 0
        for run in runs:
            for x, c in run:
                summary.append(Group(start, c, number(c if x >= t else 0), None))
                start += c
        num_rel = _num_rel(prepared, t, sum(prepared.relevant(t)))
        if m.name == "P":
            out.append(precision_from(summary, k, number=number))
        elif m.name == "R":
            out.append(recall_from(summary, k, num_rel, number=number))
        elif m.name == "F1":
            out.append(f1_from(summary, k, num_rel, number=number))
        elif m.name == "AP":
            out.append(average_precision_from(summary, k, num_rel, number=number))
        elif m.name == "RR":
            out.append(reciprocal_rank_from(summary, k, number=number))
        else:
            out.append(rbp_from(summary, m.rbp_p, k, number=number))  # the exact p, as fast.rbp hands it
    return out[0], out[1]


def _additive(m: Measure, prepared: _Prepared, number: Any, k: Optional[int]) -> SpreadStats:
    """P, R, F1, RBP: Σ_slots w(rank)·rel, w non-increasing; closed-form variance per group.

    P, R and F1 weigh every rank within k alike (w = unit), so a group adds
    unit²·hits_variance(slots within k, r, n), the hypergeometric variance.
    RBP's weights differ per rank: :func:`tieaware.fast.variance_kernels.rbp_group_variance`
    (Hoeffding's rank statistic).  The extremes: :func:`_extremes`.
    """
    t = threshold(m.rel)
    rel = prepared.relevant(t)
    zero = number(0)
    variance = zero
    summary: list[Group] = []  # P, R, F1's groups that vary
    for start, n, r, _ in _relevant_groups(prepared, rel, k):
        if r < n and m.name == "RBP":
            # p exact (the kernel takes 1 - p before rounding); float mode's ranks as floats keep the kernels in floats
            t, end = start, start + kernels.within(start, n, k)
            if number is float:
                t, end = float(t), float(end)
            variance += variance_kernels.rbp_group_variance(m.rbp_p, t, end, number(r), n)
        elif r < n:
            summary.append(Group(start, n, number(r), None))
    if summary:  # P, R, F1: one unit weight for every rank within k (rank 1 <= k always)
        unit = _unit(m, number, _num_rel(prepared, t, sum(rel)))
        variance = unit * unit * number(variance_kernels.hits_variance_from(summary, k))
    if number is float:
        variance = max(variance, 0.0)
    worst, best = _extremes(m, prepared, number, k)
    return SpreadStats(worst, best, variance, None)


def _unit(m: Measure, number: Any, num_rel: int) -> Any:
    """The weight of one hit within k: P@k, R@k or F1@k at hits = 1 (their combination kernels)."""
    one, k = number(1), cutoff(m.k)
    if m.name == "P":
        return kernels.precision_value(one, k)
    if m.name == "R":
        return kernels.recall_value(one, num_rel)
    return kernels.f1_value(one, k, num_rel)


def _relevant_groups(prepared: _Prepared, rel: Sequence[int], k: Optional[int]) -> Iterator[tuple[int, int, int, int]]:
    """(start, size, relevant, relevant above) of every group holding a relevant document and starting above k."""
    start = before = 0
    for g, r in zip(prepared.gs, rel):
        if k is not None and start >= k:
            return
        if r:
            yield start, len(g), r, before
        start += len(g)
        before += r


def _reciprocal_rank(m: Measure, prepared: _Prepared, number: Any, k: Optional[int]) -> SpreadStats:
    """RR: only the first group holding a relevant document varies (every rank above it is irrelevant).

    Its variance is :func:`tieaware.fast.variance_kernels.rr_variance`; the
    extremes: :func:`_extremes` (a relevant document on the group's first
    slot, or on slot n − r + 1).
    """
    zero = number(0)
    variance = zero
    for start, n, r, _ in _relevant_groups(prepared, prepared.relevant(threshold(m.rel)), k):
        variance = variance_kernels.rr_variance(start, n, number(r), k)
        if number is float:
            variance = max(variance, 0.0)
        break
    worst, best = _extremes(m, prepared, number, k)
    return SpreadStats(worst, best, variance, None)


def _average_precision(m: Measure, prepared: _Prepared, number: Any, k: Optional[int]) -> SpreadStats:
    """AP: per group :func:`tieaware.fast.variance_kernels.ap_group_variance` / num_rel²; the extremes: :func:`_extremes`.

    A group starting after rank t, with b relevant documents above it, adds
    Σ over its relevant slots s within k of (b + hits in the group up to s)/(t + s),
    / num_rel; groups are ordered independently, so the variances add.
    """
    t = threshold(m.rel)
    rel = prepared.relevant(t)
    num_rel = _num_rel(prepared, t, sum(rel))
    zero = number(0)
    if num_rel == 0:
        return SpreadStats(zero, zero, zero, None)
    variance = zero
    for start, n, r, before in _relevant_groups(prepared, rel, k):
        variance += variance_kernels.ap_group_variance(start, n, number(r), before, k)
    variance = variance / (num_rel * num_rel)
    if number is float:
        variance = max(variance, 0.0)
    worst, best = _extremes(m, prepared, number, k)
    return SpreadStats(worst, best, variance, None)


def _num_rel(prepared: _Prepared, t: Fraction, retrieved: int) -> int:
    judged = None if prepared.ideal_tally is None else sum(n for x, n in prepared.ideal_tally if x >= t)
    return relevant_total(judged, retrieved)


def _plan(m: Measure, prepared: _Prepared, number: Any, k: Optional[int]) -> list[tuple[int, dict[Any, int], Callable, Any]]:
    """(start rank, kinds, contribution(slot, kind, state), scale) per group that can contribute."""
    name = m.name
    gs, labels = prepared.gs, prepared.labels
    plan = []
    if name in _BINARY:
        t = threshold(m.rel)
        rel = prepared.relevant(t)
        num_rel = _num_rel(prepared, t, sum(rel))
        unit = _unit(m, number, num_rel) if name in ("P", "R", "F1") else None
        before, start = 0, 0
        for g, r in zip(gs, rel):
            if k is not None and start >= k:
                break
            kinds = {True: r, False: len(g) - r}
            kinds = {kind: c for kind, c in kinds.items() if c}
            if name == "RR" and before:  # RR is decided by the first group holding a relevant document
                break
            plan.append((start, kinds, _binary(m, start, before, k, number, num_rel, unit), number(1)))
            before += r
            start += len(g)
        return plan
    if name == "ERR":
        ceiling = None if not labels else max(1, int(max(labels)))
        g_max = grade_ceiling([x for g in gs for x in g], ceiling)
        survive, start = number(1), 0
        for g in gs:
            if k is not None and start >= k:
                break
            kinds: dict[Any, int] = {}
            for x in g:
                kinds[int(x)] = kinds.get(int(x), 0) + 1
            stops = {v: kernels.err_stop(number(v), g_max) for v in kinds}
            order = sorted(kinds, key=repr)
            plan.append((start, kinds, _err(start, k, stops, order, number), survive))
            for x in g:
                survive *= 1 - stops[int(x)]
            start += len(g)
        return plan
    if name in ("DCG", "nDCG"):  # float mode
        check_gain_domain((x for g in gs for x in g), m.gain)
        gain = float_gain_function(m.gain)
        discount = float_discount_function("log2")
        norm = 1.0
        if name == "nDCG":
            ideal = [x for g in gs for x in g] if labels is None else labels
            check_gain_domain(ideal, m.gain, "ideal")
            best = sorted(ideal, reverse=True)[:k]
            norm = sum(gain(x) * discount(j) for j, x in enumerate(best, 1))
        start = 0
        for g in gs:
            if k is not None and start >= k:
                break
            kinds = {}
            for x in g:
                kinds[x] = kinds.get(x, 0) + 1
            plan.append((start, kinds, _gain_slot(start, k, gain, "log2"), 0.0 if norm == 0 else 1.0 / norm))
            start += len(g)
        return plan
    raise bad("measure", str(m), "has no spread over tie-breakings here")


def _binary(m: Measure, start: int, before: int, k: Optional[int], number: Any, num_rel: int, unit: Any) -> Callable:
    """A relevant document's contribution at a slot of one ordering: fast's kernels at one document.

    P, R, F1: *unit*, the combination kernels at hits = 1 (:func:`_unit`);
    AP: ``ap_value(precision_value(hits so far, rank), num_rel)``, P@rank over
    num_rel; RBP: ``rbp_group`` of a relevant document alone at its rank,
    (1 - p)·p^(rank-1).  RR's 1/rank at the first relevant document is the
    definition itself (no kernel holds it).
    """
    name, one = m.name, number(1)
    rbp: dict[int, Any] = {}

    def rbp_weight(rank: int) -> Any:
        w = rbp.get(rank)
        if w is None:
            pf = m.rbp_p  # exact, as above
            w = rbp[rank] = arith.of(pf, one).value(kernels.rbp_group(pf, rank - 1, rank, one, one))
        return w

    def contribution(slot: int, relevant: bool, state: tuple[int, ...]) -> Any:
        rank = start + slot + 1
        if not relevant or (k is not None and rank > k):
            return number(0)
        placed = state[1] if len(state) == 2 else (state[0] if relevant else 0)  # kinds sort as False, True
        if name in ("P", "R", "F1"):
            return unit
        if name == "AP":
            return kernels.ap_value(kernels.precision_value(number(before + placed + 1), rank), num_rel)
        if name == "RR":  # the definition: 1/rank of the first relevant document
            return one / rank if before == 0 and placed == 0 else number(0)
        return rbp_weight(rank)

    return contribution


def _err(start: int, k: Optional[int], stops: dict[int, Any], order: list[int], number: Any) -> Callable:
    """ERR's term at a slot of one ordering: ``err_term(R, keep, rank)``, R from ``err_stop``.

    keep, the chance the user gets past the group's members placed above,
    Π_kinds (1 - R)^placed, is ERR's definition (the state counts the
    members placed); the expectation over orderings is fast.err's closed
    form (theorem "ERR group"), the spread needs each ordering's value.
    """

    def contribution(slot: int, grade: int, state: tuple[int, ...]) -> Any:
        rank = start + slot + 1
        if k is not None and rank > k:
            return number(0)
        keep = number(1)
        for v, placed in zip(order, state):
            keep *= (1 - stops[v]) ** placed
        return kernels.err_term(stops[grade], keep, rank)

    return contribution


def _gain_slot(start: int, k: Optional[int], gain: Callable, discount: str) -> Callable:
    """DCG's term at a slot of one ordering (float mode): ``dcg_group`` of one document alone at its rank."""
    terms: dict[tuple[Any, int], float] = {}

    def contribution(slot: int, x: Any, state: tuple[int, ...]) -> Any:
        rank = start + slot + 1
        if k is not None and rank > k:
            return 0.0
        term = terms.get((x, rank))
        if term is None:
            term = terms[x, rank] = kernels.dcg_group(float(gain(x)), 1, rank - 1, rank, discount)
        return term

    return contribution


@functools.lru_cache(maxsize=1 << 14)
def _exact_log2_discount(j: int) -> Any:
    """1/log2(j+1) as a sympy value: (1/m)·log(2)/log(b) with j+1 = b**m, b minimal.

    Built with log(b, evaluate=False): b is not a perfect power, so sympy's
    evaluation (most of a millisecond per call) could not change it.
    """
    import sympy

    b, m = perfect_power(j + 1)
    if b == 2:
        return sympy.Rational(1, m)
    return sympy.Rational(1, m) * sympy.log(2) / sympy.log(b, evaluate=False)


def _dcg(m: Measure, prepared: _Prepared, exact: bool) -> SpreadStats:
    """DCG/nDCG without a distribution: sorted groups for the extremes, Hoeffding's rank-one variance.

    Inside a group of n, the value is Σ_e x_e·w_σ(e) with x the gains and w
    the discounts of its ranks (0 past k): the variance of such a statistic
    of a uniform bijection σ is Σ(x − x̄)²·Σ(w − w̄)²/(n − 1), and
    Σ(w − w̄)² = Σw² − (Σw)²/n.  Exact values stay unexpanded sympy
    (expanding (Σw)² would make O(n²) terms of log products).
    """
    gs, labels = prepared.gs, prepared.labels
    k = cutoff(m.k, optional=True)
    check_gain_domain((x for g in gs for x in g), m.gain)
    ideal = [x for g in gs for x in g] if labels is None else labels
    check_gain_domain(ideal, m.gain, "ideal")
    worst, best = _extremes(m, prepared, Fraction if exact else float, k)
    ideal_tally = _tally(ideal) if prepared.ideal_tally is None else prepared.ideal_tally
    best_order = [x for x, n in sorted(ideal_tally, reverse=True) for _ in range(n)]
    if not exact:  # nDCG's variance is DCG's over IDCG²
        norm = fast_dcg(best_order, k, gain=m.gain, exact=False) if m.name == "nDCG" else 1.0
        scale_ = 0.0 if norm == 0 else 1.0 / norm
    if exact:
        import sympy

        gain, discount = gain_function(m.gain), _exact_log2_discount
        lift: Callable[[Any], Any] = lambda w: w  # noqa: E731
    else:
        gain, discount = float_gain_function(m.gain), float_discount_function("log2")
        lift = float
    parts: list[Any] = []
    start = 0
    for g, tally in zip(gs, prepared.tallies):
        n = len(g)
        if k is not None and start >= k:
            break
        if len(tally) > 1:
            xs = [(gain(x), c) for x, c in tally]
            x_bar = sum(x * c for x, c in xs) / n
            spread_x = sum(c * (x - x_bar) ** 2 for x, c in xs)
            if spread_x:
                ws = [lift(discount(start + j)) for j in range(1, n + 1) if k is None or start + j <= k]
                if exact:  # one Add each: summing sympy terms one by one is quadratic
                    w1, w2 = sympy.Add(*ws), sympy.Add(*[w * w for w in ws])
                else:
                    w1, w2 = sum(ws), sum(w * w for w in ws)
                if exact:
                    q = Fraction(spread_x)
                    parts.append(variance_kernels.rank_statistic_variance(sympy.Rational(q.numerator, q.denominator), w1, w2, n))
                else:
                    parts.append(max(variance_kernels.rank_statistic_variance(spread_x, w1, w2, n), 0.0))
        start += n
    if not exact:
        variance: Any = sum(parts, 0.0) * scale_ * scale_
        return SpreadStats(worst, best, variance, None)
    variance = sympy.Add(*parts)
    if m.name == "nDCG":
        best_dcg = fast_dcg(best_order, k, gain=m.gain)
        variance = variance / sympy.sympify(best_dcg) ** 2 if best_dcg != 0 else sympy.Integer(0)
    value = Fraction(int(variance.p), int(variance.q)) if variance.is_Rational else variance
    return SpreadStats(worst, best, value, None)
