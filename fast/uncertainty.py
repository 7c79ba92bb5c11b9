"""How much a measure moves over tie-breakings, in closed form: worst, best, variance, distribution.

Same names and signatures as :mod:`tieaware.reference.uncertainty`, same
exact numbers, without enumerating: each measure splits into independent
per-group parts (:mod:`tieaware.fast.tie_spread`: per-group dynamic
programs and closed forms, polynomial in the group sizes), and RBO's worst,
best and variance come from :mod:`tieaware.fast.rbo_uncertainty`.

Covered: P, R, F1, AP, RR, RBP, ERR, DCG, nDCG; Rprec, Success@k and
Judged@k (:mod:`tieaware.fast.trec_spread`: one hypergeometric group); RBO
without a distribution.  ``distribution`` is not available in fast for
exact DCG and nDCG (their values are sums of logs) nor when a group has
more than 5,000 distinct values; it then raises and says so.
:func:`worst_ordering` and :func:`best_ordering` give one ordering
attaining the worst and the best value: each tie group sorted by label,
ascending and descending.

>>> worst("P@1", [[1, 0]]), best("P@1", [[1, 0]]), variance("P@1", [[1, 0]])
(Fraction(0, 1), Fraction(1, 1), Fraction(1, 4))
>>> sorted(distribution("RR", [[0, 1, 0]]).items())
[(Fraction(1, 3), Fraction(1, 3)), (Fraction(1, 2), Fraction(1, 3)), (Fraction(1, 1), Fraction(1, 3))]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import Exact
from tieaware.fast import rbo_uncertainty
from tieaware.fast.tie_spread import SPREAD_MEASURES, SpreadStats, spread_stats
from tieaware.model.gains import check_gain_domain, check_ideal
from tieaware.model.names import Measure, parse
from tieaware.model.params import cutoff, flag, grade_ceiling, relevant_total, threshold
from tieaware.model.rbo_input import measure_pair
from tieaware.model.ranking import groups, judged_groups, judgement

__all__ = ["worst", "best", "variance", "distribution", "worst_ordering", "best_ordering"]


def _measure(measure: Any) -> Measure:
    return measure if isinstance(measure, Measure) else parse(measure)


def _rbo(m: Measure, ranking: Any, what: str, exact: bool) -> Exact:
    S, L, p, bound = measure_pair(m, ranking)
    return getattr(rbo_uncertainty, f"rbo_{what}")(S, L, p, bound=bound, exact=exact)


def _stats(m: Measure, ranking: Any, ideal: Optional[Sequence[object]], exact: bool, pmf: bool = False) -> SpreadStats:
    return spread_stats(m, ranking, ideal, exact=exact, distribution=pmf)  # it hands trec_eval's measures to trec_spread


def worst(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> Exact:
    """The smallest value of *measure* over every ordering consistent with the ties.

    >>> worst("AP", [[1, 0], 1])
    Fraction(7, 12)
    """
    m, exact = _measure(measure), flag(exact, "exact")
    return _rbo(m, ranking, "worst", exact) if m.name == "RBO" else _stats(m, ranking, ideal, exact).worst


def best(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> Exact:
    """The largest value of *measure* over every ordering consistent with the ties.

    >>> best("AP", [[1, 0], 1])
    Fraction(5, 6)
    """
    m, exact = _measure(measure), flag(exact, "exact")
    return _rbo(m, ranking, "best", exact) if m.name == "RBO" else _stats(m, ranking, ideal, exact).best


def variance(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> Exact:
    """The exact variance of *measure* under the uniform tie-breaking.

    >>> variance("AP", [[1, 0], 1])
    Fraction(1, 64)

    Beware: for DCG and nDCG the value is an exact sympy expression of logs,
    not simplified.
    """
    m, exact = _measure(measure), flag(exact, "exact")
    return _rbo(m, ranking, "variance", exact) if m.name == "RBO" else _stats(m, ranking, ideal, exact).variance


def distribution(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> dict:
    """The exact probability mass function {value: probability} over tie-breakings.

    >>> sorted(distribution("P@2", [[1, 1, 0, 0]]).items())
    [(Fraction(0, 1), Fraction(1, 6)), (Fraction(1, 2), Fraction(2, 3)), (Fraction(1, 1), Fraction(1, 6))]
    """
    m, exact = _measure(measure), flag(exact, "exact")
    if m.name == "RBO":
        raise bad("measure", str(m), "has no distribution here; use worst, best and variance")
    pmf = _stats(m, ranking, ideal, exact, pmf=True).distribution
    if pmf is None:
        raise bad(
            "measure", str(m),
            "has no distribution in fast here (exact DCG/nDCG are sums of logs, or a group has over 5,000 values); "
            "use exact=False or tieaware.reference.distribution",
        )
    return pmf


def worst_ordering(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None) -> list[Optional[Fraction]]:
    """One ordering consistent with the ties whose value is :func:`worst`: each group sorted by label, ascending.

    The labels come back flat, in rank order, as Fractions (the normal form
    of :func:`tieaware.model.ranking.groups`); for Judged, an unjudged document
    stays ``None`` and sorts below every label.

    >>> worst_ordering("AP", [[1, 0], 1])     # AP 7/12 = worst("AP", [[1, 0], 1])
    [Fraction(0, 1), Fraction(1, 1), Fraction(1, 1)]
    >>> worst_ordering("ERR", [[2, 0, 1]])
    [Fraction(0, 1), Fraction(1, 1), Fraction(2, 1)]

    Why one rule is extremal for every measure here.  Each measure is a
    non-decreasing function (for all but Success@k, a constant plus the sum)
    of per-group parts that depend only on the group's own order (the ranks
    it spans, the relevant documents above it and ERR's chance of reaching
    it do not depend on any tie-breaking), so it is enough that the sorted
    order is extremal inside every group; and by bubble sort, that swapping
    two adjacent documents of a group so that the higher label comes first
    never lowers the value:

    - P, R, F1, RBP: Σ w(rank)·rel with w non-increasing in rank (0 past
      the cutoff), and rel non-decreasing in the label;
    - AP and RR: moving a relevant document one rank above a non-relevant
      one raises its own precision (or reciprocal rank), or brings it inside
      the cutoff, and changes no other term, so AP and RR never drop;
    - DCG, nDCG: Σ gain(label)·discount(rank) with the gain non-decreasing
      in the label and the discount decreasing in rank (0 past the cutoff):
      the rearrangement inequality; nDCG's ideal does not move;
    - Rprec, Success@k, Judged@k: they count the hits (relevant, or judged,
      documents) in the top d ranks, and a hit moved up stays in the top d
      or enters it;
    - ERR: with grades a > b at ranks j, j + 1, stop probabilities
      R_a >= R_b and S the chance of reaching rank j, putting a first
      changes ERR by S·(R_a − R_b)·(1/j − 1/(j + 1)) >= 0, and nothing below
      j + 1 changes (the chance of passing both is (1 − R_a)(1 − R_b) either
      way); at the cutoff j = k it swaps S·R_b/k for S·R_a/k.

    RBO compares two rankings; its extreme orderings are a pair, from
    :func:`tieaware.fast.rbo_uncertainty.rbo_worst_orderings`.
    """
    return _ordering(measure, ranking, ideal, descending=False)


def best_ordering(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None) -> list[Optional[Fraction]]:
    """One ordering consistent with the ties whose value is :func:`best`: each group sorted by label, descending.

    Extremal for every measure here by the argument in :func:`worst_ordering`.

    >>> best_ordering("AP", [[1, 0], 1])      # AP 5/6 = best("AP", [[1, 0], 1])
    [Fraction(1, 1), Fraction(0, 1), Fraction(1, 1)]
    >>> best_ordering("nDCG@2", [3, [0, 2, 1]])
    [Fraction(3, 1), Fraction(2, 1), Fraction(1, 1), Fraction(0, 1)]
    """
    return _ordering(measure, ranking, ideal, descending=True)


def _ordering(measure: Any, ranking: Any, ideal: Optional[Sequence[object]], descending: bool) -> list[Optional[Fraction]]:
    m = _measure(measure)
    if m.name == "RBO":
        which = "best" if descending else "worst"
        raise bad(
            "measure", str(m),
            f"compares two rankings, so its extreme orderings are a pair (S, L): use tieaware.fast.rbo_{which}_orderings(S, L)",
        )
    if m.name not in SPREAD_MEASURES:
        raise bad("measure", str(m), f"has no spread over tie-breakings yet; it is computed for {', '.join(sorted(SPREAD_MEASURES))}")
    from tieaware.fast.family_spread import FAMILY_SPREAD_MEASURES

    if m.name in FAMILY_SPREAD_MEASURES or m.param("mult") is not None:
        raise bad(
            "measure", str(m),
            "has worst and best values here but no extreme ordering: sorting by label is not extremal for every one of "
            "trec_eval's families (infAP, G); tieaware.reference.worst_ordering and best_ordering enumerate",
        )
    cutoff(m.k, optional=True)
    raw = None if ideal is None else [judgement(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    labels = None if raw is None else [x if x >= 0 else Fraction(0) for x in raw]
    if m.name in ("Judged", "Bpref"):  # unjudged (None) below every label: it changes neither measure
        judged = judged_groups(ranking)
        if m.name == "Bpref":
            _check_bpref(m, [x for g in judged for x in g if x is not None], raw)
        return [x for g in judged for x in sorted(g, key=lambda x: (x is not None, x or 0), reverse=descending)]
    gs = groups(ranking)
    _check(m, [x for g in gs for x in g], labels, ideal)
    return [x for g in gs for x in sorted(g, reverse=descending)]


def _check_bpref(m: Measure, flat: list[Fraction], labels: Optional[list[Fraction]]) -> None:
    """Bpref's num_rel and num_nonrel from *ideal*, never below the judged documents retrieved."""
    from tieaware.model.params import nonrelevant_total

    t = threshold(m.rel)
    relevant_total(None if labels is None else sum(1 for x in labels if x >= t), sum(1 for x in flat if x >= t))
    nonrelevant_total(None if labels is None else sum(1 for x in labels if 0 <= x < t), sum(1 for x in flat if 0 <= x < t))


def _check(m: Measure, flat: list[Fraction], labels: Optional[list[Fraction]], ideal: Any) -> None:
    """Refuse what :func:`worst` refuses for this input, without computing the spread."""
    if m.name in ("P", "R", "F1", "AP", "RR", "RBP", "Rprec"):  # num_rel from ideal, never below the retrieved
        t = threshold(m.rel)
        relevant_total(None if labels is None else sum(1 for x in labels if x >= t), sum(1 for x in flat if x >= t))
    elif m.name in ("DCG", "nDCG"):
        check_gain_domain(flat, m.gain)
        if labels is not None:
            check_gain_domain(labels, m.gain, "ideal")
            if m.name == "nDCG":
                check_ideal(flat, labels, ideal)
    elif m.name == "ERR":
        grade_ceiling(flat, None if not labels else max(1, int(max(labels))))
