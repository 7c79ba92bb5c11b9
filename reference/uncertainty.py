"""How much a measure moves over tie-breakings, by brute force: worst, best, variance, distribution.

Every ordering consistent with the ties is enumerated (the orderings are
equally likely), the ordinary tie-oblivious value of the measure is computed
on each through the reference layer (:func:`tieaware.model.dispatch.measure_value`
with the reference module, on the untied ordering), and the minimum, maximum,
exact variance and exact probability mass function are read off that list.
Nothing here knows a closed form; :mod:`tieaware.fast.uncertainty` has the
same names and signatures, and the tests prove the two equal.

*measure* is any name :func:`tieaware.model.dispatch.measure_value` accepts (``"AP@10"``,
``"P(rel=2)@5"``, ``"nDCG@10"``...), *ideal* every judged label of the query
(num_rel, nDCG's ideal, ERR's g_max), as in compute.  For ``"RBO(p=...)"``
the ranking is a pair (S, L) and the tie-breakings are those of both lists
(:mod:`tieaware.reference.rbo_uncertainty`; no distribution).
:func:`worst_ordering` and :func:`best_ordering` return the first ordering,
in the enumeration order, attaining the worst and the best value.

>>> worst("P@1", [[1, 0]]), best("P@1", [[1, 0]]), variance("P@1", [[1, 0]])
(Fraction(0, 1), Fraction(1, 1), Fraction(1, 4))
>>> sorted(distribution("RR", [[0, 1, 0]]).items())    # the relevant document at rank 1, 2 or 3
[(Fraction(1, 3), Fraction(1, 3)), (Fraction(1, 2), Fraction(1, 3)), (Fraction(1, 1), Fraction(1, 3))]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.model.dispatch import UNJUDGED, measure_value
from tieaware.model.exact import Exact, to_float
from tieaware.model.names import Measure, parse
from tieaware.model.params import flag
from tieaware.model.rbo_input import measure_pair
from tieaware.model.ranking import Ranking, groups, judged_groups
from tieaware.reference import rbo_uncertainty
from tieaware.reference.orderings import orderings

__all__ = ["worst", "best", "variance", "distribution", "worst_ordering", "best_ordering"]


def _measure(measure: Any) -> Measure:
    return measure if isinstance(measure, Measure) else parse(measure)


def _values(m: Measure, ranking: Ranking, ideal: Optional[Sequence[object]]) -> list[Exact]:
    """The exact value on every ordering consistent with the ties (with repeats: each ordering once)."""
    return [value for _, value in _valued(m, ranking, ideal)]


def _valued(m: Measure, ranking: Ranking, ideal: Optional[Sequence[object]]) -> list[tuple[tuple[Any, ...], Exact]]:
    """(ordering, its exact value) for every ordering consistent with the ties, in enumeration order.

    Judged and Bpref tell an unjudged document (None) from a judged 0, so
    their orderings keep the None; for the others None is the label 0.
    """
    gs = judged_groups(ranking) if m.name in UNJUDGED else groups(ranking)
    from tieaware import reference  # the package this module belongs to (imported by then)

    return [(o, measure_value(reference, m, list(o), ideal=ideal)) for o in orderings(gs)]


def _rbo(m: Measure, ranking: Any, what: str, exact: bool) -> Exact:
    S, L, p, bound = measure_pair(m, ranking)
    return getattr(rbo_uncertainty, f"rbo_{what}")(S, L, p, bound=bound, exact=exact)


def _out(value: Exact, exact: bool) -> Exact:
    return value if exact else to_float(value)


def worst(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> Exact:
    """The smallest value of *measure* over every ordering consistent with the ties.

    >>> worst("AP", [[1, 0], 1])     # 0 1 1: (1/2 + 2/3) / 2
    Fraction(7, 12)
    """
    m, exact = _measure(measure), flag(exact, "exact")
    if m.name == "RBO":
        return _rbo(m, ranking, "worst", exact)
    return _out(min(_values(m, ranking, ideal)), exact)


def best(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> Exact:
    """The largest value of *measure* over every ordering consistent with the ties.

    >>> best("AP", [[1, 0], 1])      # 1 0 1: (1 + 2/3) / 2
    Fraction(5, 6)
    """
    m, exact = _measure(measure), flag(exact, "exact")
    if m.name == "RBO":
        return _rbo(m, ranking, "best", exact)
    return _out(max(_values(m, ranking, ideal)), exact)


def variance(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> Exact:
    """The exact variance of *measure* under the uniform tie-breaking: the mean squared deviation.

    >>> variance("AP", [[1, 0], 1])   # 5/6 or 7/12, even odds: (1/8)^2
    Fraction(1, 64)

    Beware: for DCG and nDCG the value is an exact sympy expression of logs,
    not simplified.
    """
    m, exact = _measure(measure), flag(exact, "exact")
    if m.name == "RBO":
        return _rbo(m, ranking, "variance", exact)
    values = _values(m, ranking, ideal)
    n = len(values)
    if all(isinstance(v, Fraction) for v in values):
        mean = sum(values, Fraction(0)) / n
        return _out(sum(((v - mean) ** 2 for v in values), Fraction(0)) / n, exact)
    import sympy  # DCG and nDCG: log discounts

    symbolic = [sympy.sympify(v) for v in values]
    mean = sympy.Add(*symbolic) / n
    return _out(sympy.Add(*((v - mean) ** 2 for v in symbolic)) / n, exact)


def distribution(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None, *, exact: bool = True) -> dict:
    """The exact probability mass function {value: probability} over tie-breakings.

    >>> sorted(distribution("P@2", [[1, 1, 0, 0]]).items())   # hypergeometric: 0, 1 or 2 relevant in the top 2
    [(Fraction(0, 1), Fraction(1, 6)), (Fraction(1, 2), Fraction(2, 3)), (Fraction(1, 1), Fraction(1, 6))]
    """
    m, exact = _measure(measure), flag(exact, "exact")
    if m.name == "RBO":
        raise bad("measure", str(m), "has no distribution here; use worst, best and variance")
    values = _values(m, ranking, ideal)
    pmf: dict[Any, Fraction] = {}
    for v in values:
        pmf[v] = pmf.get(v, Fraction(0)) + Fraction(1, len(values))
    return pmf if exact else {to_float(v): float(q) for v, q in pmf.items()}


def worst_ordering(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None) -> list[Optional[Fraction]]:
    """The first ordering consistent with the ties, in enumeration order, whose value is :func:`worst`.

    The labels come back flat, in rank order, as Fractions (the normal form
    of :func:`tieaware.model.ranking.groups`; for Judged and Bpref an unjudged
    document stays ``None``).  Every ordering is enumerated and
    valued; nothing is assumed about which one is extremal.

    >>> worst_ordering("AP", [[1, 0], 1])     # 0 1 1: AP 7/12
    [Fraction(0, 1), Fraction(1, 1), Fraction(1, 1)]
    >>> worst_ordering("ERR", [[2, 0, 1]])
    [Fraction(0, 1), Fraction(1, 1), Fraction(2, 1)]

    RBO compares two rankings: its extreme orderings are a pair, and this
    refuses it (tieaware.fast.rbo_uncertainty.rbo_worst_orderings gives one).
    """
    return _ordering(_measure(measure), ranking, ideal, min)


def best_ordering(measure: Any, ranking: Any, ideal: Optional[Sequence[object]] = None) -> list[Optional[Fraction]]:
    """The first ordering consistent with the ties, in enumeration order, whose value is :func:`best`.

    >>> best_ordering("AP", [[1, 0], 1])      # 1 0 1: AP 5/6
    [Fraction(1, 1), Fraction(0, 1), Fraction(1, 1)]
    >>> best_ordering("nDCG@2", [3, [0, 2, 1]])
    [Fraction(3, 1), Fraction(2, 1), Fraction(0, 1), Fraction(1, 1)]
    """
    return _ordering(_measure(measure), ranking, ideal, max)


def _ordering(m: Measure, ranking: Any, ideal: Optional[Sequence[object]], pick: Any) -> list[Optional[Fraction]]:
    if m.name == "RBO":
        which = "worst" if pick is min else "best"
        raise bad(
            "measure", str(m),
            f"compares two rankings, so its extreme orderings are a pair (S, L): use tieaware.fast.rbo_{which}_orderings(S, L)",
        )
    valued = _valued(m, ranking, ideal)
    # min and max return the first of several equal extremes: the first in enumeration order.
    order, _ = pick(valued, key=lambda pair: pair[1])
    return list(order)
