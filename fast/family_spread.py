"""Minimum, maximum and variance over tie-breakings of trec_eval's other families (docs/uncertainty.md).

:mod:`tieaware.fast.trec_eval_measures` and :mod:`tieaware.fast.interpolated`
give these measures' expectations; this module gives how far the tie-breaking
moves them, per query, with the same names :func:`tieaware.fast.tie_spread.spread_stats`
takes.

- **Counts and set measures** (NumQ, NumRet, NumRelRet, NumRel,
  NumNonRelJudgedRet, SetP, SetR, SetF, SetAP, Utility) are tie-invariant
  (theorem ``set measures``): worst = best = the value, variance 0, the
  distribution one atom.  tests/test_family_spread.py checks it against the
  reference's enumeration rather than assuming it.
- **RelP@k** and **Rprec(mult=m)** count the hits in a fixed top c:
  :mod:`tieaware.fast.trec_spread`'s hypergeometric count.
- **IPrec@r** and **IPrecAvg**: the dynamic programme of
  :func:`tieaware.fast.interpolated.iprec_stats` carries E[S] and E[S²] of
  the weighted interpolated precisions (IPrec: its distribution too); the
  extremes sort every group's relevant documents first (best) or last
  (worst), which makes every pos_c smallest (largest) at once, and M(s)
  falls as any pos_c grows.
- **infAP**, **BinG** and **G** are sums over documents of a term that
  depends on the document's rank and on the documents of each kind above
  it; the groups above fix part of that, so the groups are independent,
  and per group the dynamic programme of :mod:`tieaware.fast.spread_dp`
  over "how many of each kind are placed" gives the exact minimum,
  maximum, variance (and, for rational values, the distribution).  infAP's
  kinds are relevant, judged non-relevant, pooled unjudged and not pooled;
  binG's relevant or not; G's the gains.  With trec_eval's 1/log2 discount
  the values of binG and G are irrational: the programme then keeps Σ and
  Σ² as rational coefficients of 1/log2(x) and of 1/(log2(x)·log2(y))
  (:func:`tieaware.fast.spread_dp.log_group_dp`), exact, compared by
  :mod:`tieaware.model.exactcmp`.
- **RnDCG** is a fixed linear combination of DCG@c at trec_eval's points
  (c, b): Σ_j gain_j·w_j with w_j = D(j)·Σ_{c >= j} 1/(P·IDCG@b), non-increasing
  in j.  Per group Hoeffding's rank statistic gives the variance
  (:func:`tieaware.fast.variance_kernels.rank_statistic_variance`, theorem
  "Var DCG@k") and the rearrangement inequality the extremes: gains sorted
  descending (best) or ascending (worst).
- **GMAP** and **GMBpref** are AP and Bpref per query:
  :func:`tieaware.fast.tie_spread.spread_stats` hands them on as those (their
  geometric mean is taken over queries: :func:`tieaware.runs.comparison.spread`).

nDCGRel (a ratio at the random ranks of the relevant documents) and the
measures with trec_eval's ``gains=`` pairs have no spread here.

>>> from tieaware.model.names import parse
>>> s = family_spread(parse("infAP"), [[1, 0]], [1, 0])     # 1 at rank 1, or (1 + ε/(1 + 2ε))/2 at rank 2
>>> s.worst, s.best
(Fraction(100003, 200004), Fraction(1, 1))
>>> family_spread(parse("SetP"), [[1, 0], 0], [1, 0, 0]).variance
Fraction(0, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Callable, Optional

from tieaware.model.errors import bad
from tieaware.model.gains import discount_function, float_discount_function, log2_weighted_sum, trec_gain_pairs, trec_level_gain
from tieaware.model.names import Measure
from tieaware.model.params import flag, relevant_total, threshold, trec_count
from tieaware.model.ranking import Ranking, groups, judged_groups, judgement
from tieaware.fast.spread_dp import NO_CONVENTION_SPREAD, SpreadStats, convolve, group_dp, log_group_dp

__all__ = ["FAMILY_SPREAD_MEASURES", "INVARIANT", "NO_FAMILY_SPREAD", "family_spread"]

#: The tie-invariant families: one value on every ordering.
INVARIANT = frozenset({"NumQ", "NumRet", "NumRelRet", "NumRel", "NumNonRelJudgedRet", "SetP", "SetR", "SetF", "SetAP", "Utility"})
#: Every family whose spread this module computes (GMAP and GMBpref as AP and Bpref, by tie_spread).
FAMILY_SPREAD_MEASURES = INVARIANT | {"RelP", "IPrec", "IPrecAvg", "infAP", "BinG", "G", "RnDCG", "GMAP", "GMBpref"}
#: Why nDCGRel has no spread.
NO_FAMILY_SPREAD = (
    "has no spread over tie-breakings: ndcg_rel averages DCG@p/IDCG@p over the random ranks p of the relevant "
    "documents, not a sum per tie group; tieaware.reference.worst/best/variance enumerate it"
)


def family_spread(
    m: Measure, ranking: Ranking, ideal: Optional[Sequence[object]] = None, *, exact: bool = True, distribution: bool = False,
    discount: Any = "log2",
) -> SpreadStats:
    """min, max, variance (and, where rational and asked for, the pmf) of one of trec_eval's families.

    *ideal* holds the query's judged labels as given (a negative one: in the
    qrels, not judged), as :func:`tieaware.model.dispatch.measure_value`
    takes them; *discount* (``"log2"`` or a callable D(j), the weight of rank
    j) is for BinG, G and RnDCG, as in :mod:`tieaware.fast.trec_eval_measures`.

    >>> from tieaware.model.names import parse
    >>> family_spread(parse("IPrec@0.5"), [[1, 0], 1], [1, 1, 0])      # M(1): 1 (1 0 1) or 2/3 (0 1 1)
    SpreadStats(worst=Fraction(2, 3), best=Fraction(1, 1), variance=Fraction(1, 36), distribution=None)
    """
    exact = flag(exact, "exact")
    number: Callable[[Any], Any] = Fraction if exact else float
    raw = None if ideal is None else [judgement(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    labels = None if raw is None else [x if x >= 0 else Fraction(0) for x in raw]
    t = threshold(m.rel)
    num_rel = None if labels is None else sum(1 for x in labels if x >= t)
    name = m.name
    if name in ("GMAP", "GMBpref"):
        raise bad("measure", str(m), "is AP (Bpref) per query: tieaware.fast.tie_spread.spread_stats computes its spread as theirs")
    if m.conventions:
        raise bad("measure", str(m), NO_CONVENTION_SPREAD)
    if name in INVARIANT:
        value = _value(m, ranking, ideal, exact)
        return SpreadStats(value, value, number(0), {value: number(1)} if distribution else None)
    if name == "RelP":
        return _count(m, ranking, num_rel, t, exact, distribution)
    if name in ("IPrec", "IPrecAvg"):
        return _interpolated(m, ranking, ideal, num_rel, t, number, distribution)
    if name == "infAP":
        return _infap(ranking, num_rel, t, number, distribution)
    if name in ("BinG", "G"):
        return _gain_dp(m, ranking, raw, num_rel, t, exact, distribution, discount)
    if name == "RnDCG":
        return _rndcg(m, ranking, ideal, raw, num_rel, t, exact, discount)
    raise bad("measure", str(m), NO_FAMILY_SPREAD if name == "nDCGRel" else "has no spread over tie-breakings here")


def _value(m: Measure, ranking: Ranking, ideal: Any, exact: bool) -> Any:
    from tieaware import fast  # the layer, for tieaware.model.dispatch (fast's package loads its modules lazily)
    from tieaware.model.dispatch import measure_value

    return measure_value(fast, m, ranking, ideal=ideal, exact=exact)


def _sorted(gs: Sequence[Sequence[Any]], key: Callable[[Any], Any], descending: bool) -> list[Any]:
    """The untied ranking with every group sorted by *key*: the extreme orderings."""
    return [x for g in gs for x in sorted(g, key=key, reverse=descending)]


def _extremes(m: Measure, gs: Sequence[Sequence[Any]], ideal: Any, exact: bool, key: Callable[[Any], Any]) -> tuple[Any, Any]:
    """The measure on the orderings sorting each group by *key*, ascending (worst) and descending (best)."""
    return tuple(_value(m, _sorted(gs, key, d), ideal, exact) for d in (False, True))  # type: ignore[return-value]


def _count(m: Measure, ranking: Ranking, num_rel: Optional[int], t: Fraction, exact: bool, want: bool) -> SpreadStats:
    """RelP@k: the hits in the top k over min(k, R), hypergeometric in the group crossing k."""
    from tieaware.fast.trec_spread import count_spread

    gs = groups(ranking)
    hits = [sum(1 for x in g if x >= t) for g in gs]
    big_r = relevant_total(num_rel, sum(hits))
    k = int(m.k)  # type: ignore[arg-type]
    return count_spread(gs, hits, k, min(k, big_r), exact, want)


def _interpolated(
    m: Measure, ranking: Ranking, ideal: Any, num_rel: Optional[int], t: Fraction, number: Any, want: bool
) -> SpreadStats:
    """IPrec and IPrecAvg: iprec_stats' E[S], E[S²] (and IPrec's pmf); extremes with relevant documents first or last."""
    from tieaware.fast.interpolated import ELEVEN_POINTS, iprec_plan, iprec_stats, relevant_groups

    gs = groups(ranking)
    found = relevant_groups(gs, t)
    rel_ret = sum(x[2] for x in found)
    big_r = relevant_total(num_rel, rel_ret)
    if m.name == "IPrec":
        levels: Sequence[object] = [m.param("recall")]
    else:
        given = m.param("levels")
        levels = given.split(";") if given else ELEVEN_POINTS
    plan = iprec_plan([trec_count(p, big_r) for p in levels], rel_ret)
    zero = number(0)
    weights: dict[int, Any] = {}
    for s in plan:
        if s:
            weights[s] = weights.get(s, zero) + number(1) / len(plan)
    if not weights:
        return SpreadStats(zero, zero, zero, {zero: number(1)} if want else None)
    stats = iprec_stats(found, weights, number=number, distribution=want and m.name == "IPrec")
    variance = stats.weighted_square - stats.weighted_mean * stats.weighted_mean
    if number is float:
        variance = max(variance, 0.0)
    worst, best = _extremes(m, gs, ideal, number is not float, lambda x: x >= t)
    pmf = None
    if stats.distribution is not None:
        ((s, p),) = stats.distribution.items()
        pmf = p
    return SpreadStats(worst, best, variance, pmf)


def _infap(ranking: Ranking, num_rel: Optional[int], t: Fraction, number: Any, want: bool) -> SpreadStats:
    """infAP: per group, the programme over (relevant, judged non-relevant, pooled unjudged, not pooled) placed."""
    from tieaware.fast.trec_eval_measures import infap_term

    gs = judged_groups(ranking)

    def kind(y: Any) -> int:
        if y is None:
            return 3
        if y < 0:
            return 2
        return 0 if y >= t else 1

    kinds = [[kind(y) for y in g] for g in gs]
    big_r = relevant_total(num_rel, sum(k.count(0) for k in kinds))
    zero = number(0)
    worst = best = variance = zero
    pmf: Optional[dict[Any, Any]] = {zero: number(1)} if want else None
    start = 0
    above = [0, 0, 0]
    for g in kinds:
        if 0 in g:
            a0, d0, u0 = above

            def term(slot: int, k: int, state: tuple[int, ...], start: int = start, a0: int = a0, d0: int = d0, u0: int = u0) -> Any:
                if k != 0:
                    return zero
                return infap_term(start + slot + 1, a0 + state[0], d0 + state[1], u0 + state[2], number=number)

            acc = group_dp({i: g.count(i) for i in range(4)}, term, zero, want)
            worst, best, variance, pmf = _fold(acc, worst, best, variance, pmf, number)
        for i in range(3):
            above[i] += g.count(i)
        start += len(g)
    return _scaled(worst, best, variance, pmf, big_r, number)


def _fold(acc: Any, worst: Any, best: Any, variance: Any, pmf: Optional[dict], number: Any) -> tuple[Any, Any, Any, Optional[dict]]:
    """Add one group's programme to the running sums (its pmf convolved in)."""
    n = number(acc.n)
    mean = acc.s1 / n
    var = acc.s2 / n - mean * mean
    if number is float:
        var = max(var, 0.0)
    if pmf is not None:
        pmf = None if acc.pmf is None else convolve(pmf, {v: number(c) / n for v, c in acc.pmf.items()})
    return worst + acc.lo, best + acc.hi, variance + var, pmf


def _scaled(worst: Any, best: Any, variance: Any, pmf: Optional[dict], divisor: Any, number: Any) -> SpreadStats:
    if not divisor:
        return SpreadStats(worst, best, variance, pmf)
    scale = number(1) / divisor
    values = None if pmf is None else {v * scale: q for v, q in pmf.items()}
    return SpreadStats(worst * scale, best * scale, variance * scale * scale, values)


# -- binG and G ------------------------------------------------------------------------------


def _gain_dp(
    m: Measure, ranking: Ranking, raw: Optional[list], num_rel: Optional[int], t: Fraction, exact: bool, want: bool, discount: Any
) -> SpreadStats:
    """binG and G: per group, the programme over the members' kinds; each term is c/log2(x) (or c·D(x − 1))."""
    gs = judged_groups(ranking)
    plan: list[tuple[dict[Any, int], Callable]] = []
    if m.name == "BinG":
        rel = [sum(1 for y in g if y is not None and y >= t) for g in gs]
        divisor: Any = relevant_total(num_rel, sum(rel))
        if not sum(rel):
            divisor = 0
        above = 0
        for g, r in zip(gs, rel):
            if r:
                def bin_term(slot: int, relevant: bool, state: tuple[int, ...], above: int = above) -> Optional[tuple[Fraction, Fraction]]:
                    # state: (non-relevant placed, relevant placed); kinds sort as False, True
                    return (Fraction(2 + above + state[0]), Fraction(1)) if relevant else None

                plan.append(({True: r, False: len(g) - r}, bin_term))
            above += len(g) - r
    else:
        from tieaware.fast.trec_eval_measures import g_costs

        pairs = trec_gain_pairs(None)
        judged = [x for g in gs for x in g if x is not None] if raw is None else raw
        seq, cost = g_costs(judged, pairs, sum(len(g) for g in gs))
        divisor = sum(seq, Fraction(0))
        if divisor <= 0:
            zero: Any = Fraction(0) if exact else 0.0
            return SpreadStats(zero, zero, zero, {zero: Fraction(1) if exact else 1.0} if want else None)
        start, gain_above = 0, Fraction(0)
        for g in gs:
            gains = [trec_level_gain(y, pairs) for y in g]
            tally: dict[Fraction, int] = {}
            for x in gains:
                tally[x] = tally.get(x, 0) + 1
            if any(x != 0 for x in tally):
                order = sorted(tally)

                def g_term(slot: int, gamma: Fraction, state: tuple[int, ...], start: int = start, gain_above: Fraction = gain_above,
                           order: list = order) -> Optional[tuple[Fraction, Fraction]]:
                    if gamma == 0:
                        return None
                    so_far = gain_above + gamma + sum((x * c for x, c in zip(order, state)), Fraction(0))
                    return 2 + cost[start + slot + 1] - so_far, gamma

                plan.append((tally, g_term))
            start += len(g)
            gain_above += sum(gains, Fraction(0))
    if exact and discount == "log2":
        return _log_exact(plan, divisor, want)
    if exact:
        d = discount_function(discount)
        phi: Callable[[Fraction], Any] = lambda x: d(_whole(x) - 1)  # noqa: E731
        number: Any = Fraction
    else:
        d_float = float_discount_function(discount)
        import math

        phi = (lambda x: 1.0 / math.log2(x)) if discount == "log2" else (lambda x: d_float(_whole(x) - 1))  # noqa: E731
        number = float
    zero = number(0)
    worst = best = variance = zero
    pmf: Optional[dict[Any, Any]] = {zero: number(1)} if want else None
    for kinds, term in plan:
        def value(slot: int, kind: Any, state: tuple[int, ...], term: Callable = term) -> Any:
            got = term(slot, kind, state)
            if got is None:
                return zero
            x, c = got
            _check_argument(x)
            return number(c) * phi(x)

        acc = group_dp(kinds, value, zero, want)
        worst, best, variance, pmf = _fold(acc, worst, best, variance, pmf, number)
    return _scaled(worst, best, variance, pmf, divisor, number)


def _whole(x: Fraction) -> int:
    """A callable discount D(x − 1) needs a whole x (trec_eval's log2 takes any x > 1)."""
    if x.denominator != 1:
        raise bad("discount", "a callable", f"needs whole log2 arguments; this one is {x}")
    return int(x)


def _check_argument(x: Fraction) -> None:
    if x <= 1:
        raise bad("log2 argument", x, "must be > 1 (a gain sum made the log2 of G's discount 0 or negative)")


def _log_exact(plan: list, divisor: Any, want: bool) -> SpreadStats:
    """binG and G with trec_eval's 1/log2, exact: the programme's coefficient maps, made sympy once."""
    import sympy

    from tieaware.model.exactcmp import compare

    def phi(x: Fraction) -> Any:
        return sympy.sympify(log2_weighted_sum({x: Fraction(1)}))

    def as_value(form: dict) -> Any:
        for x in form:
            _check_argument(x)
        return log2_weighted_sum({x: Fraction(c) for x, c in form.items()}) if form else Fraction(0)

    def order(a: dict, b: dict) -> int:
        return compare(as_value(a), as_value(b))

    lo_parts: dict[Fraction, Fraction] = {}
    hi_parts: dict[Fraction, Fraction] = {}
    variance: list[Any] = []
    for kinds, term in plan:
        moments = log_group_dp(kinds, term, order)
        for target, form in ((lo_parts, moments.lo), (hi_parts, moments.hi)):
            for x, c in form.items():
                target[x] = target.get(x, Fraction(0)) + c
        n = moments.n
        square = sympy.Add(*(sympy.Rational(c, n) * phi(x) * phi(y) for (x, y), c in moments.s2.items() if c))
        mean = sympy.sympify(as_value({x: Fraction(c, n) for x, c in moments.s1.items()}))
        variance.append(square - mean * mean)
    if not divisor:
        zero = Fraction(0)
        return SpreadStats(zero, zero, zero, {zero: Fraction(1)} if want and not plan else None)
    worst = as_value({x: c / divisor for x, c in lo_parts.items()})
    best = as_value({x: c / divisor for x, c in hi_parts.items()})
    total = sympy.expand(sympy.Add(*variance)) / sympy.Integer(divisor) ** 2 if variance else sympy.Integer(0)
    value = Fraction(int(total.p), int(total.q)) if total.is_Rational else total
    pmf = None
    if want and worst == best:
        pmf = {worst: Fraction(1)}
    return SpreadStats(worst, best, value, pmf)


# -- Rndcg ---------------------------------------------------------------------------------


def _rndcg(
    m: Measure, ranking: Ranking, ideal: Any, raw: Optional[list], num_rel: Optional[int], t: Fraction, exact: bool, discount: Any
) -> SpreadStats:
    """Rndcg: Σ_j gain_j·w_j with w non-increasing; Hoeffding per group, extremes by sorted gains."""
    from tieaware.fast.trec_eval_measures import rndcg_weights
    from tieaware.fast.variance_kernels import rank_statistic_variance

    gs = judged_groups(ranking)
    pairs = trec_gain_pairs(None)
    weights = rndcg_weights(ranking, num_rel, raw, rel=t, discount=discount, exact=exact)
    zero: Any = Fraction(0) if exact else 0.0
    if weights is None:
        return SpreadStats(zero, zero, zero, None)
    parts: list[Any] = []
    start = 0
    for g in gs:
        n = len(g)
        gains = [trec_level_gain(y, pairs) for y in g]
        mean = sum(gains, Fraction(0)) / n
        spread_x = sum(((x - mean) ** 2 for x in gains), Fraction(0))
        if spread_x:
            ws = weights[start : start + n]
            if exact:
                import sympy

                w1, w2 = sympy.Add(*ws), sympy.Add(*(w * w for w in ws))
                parts.append(rank_statistic_variance(sympy.Rational(spread_x.numerator, spread_x.denominator), w1, w2, n))
            else:
                w1, w2 = sum(ws), sum(w * w for w in ws)
                parts.append(max(rank_statistic_variance(float(spread_x), w1, w2, n), 0.0))
        start += n
    if exact:
        import sympy

        total = sympy.Add(*parts) if parts else sympy.Integer(0)
        variance: Any = Fraction(int(total.p), int(total.q)) if total.is_Rational else total
    else:
        variance = sum(parts, 0.0)
    from tieaware.fast.trec_eval_measures import r_ndcg

    key = lambda y: trec_level_gain(y, pairs)  # noqa: E731
    worst, best = (r_ndcg(_sorted(gs, key, d), num_rel, raw, rel=t, discount=discount, exact=exact) for d in (False, True))
    return SpreadStats(worst, best, variance, None)
