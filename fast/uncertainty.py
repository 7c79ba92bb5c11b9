"""How much a measure moves over tie-breakings, in closed form: worst, best, variance, distribution.

Same names and signatures as :mod:`tieaware.reference.uncertainty`, same
exact numbers, without enumerating: each measure splits into independent
per-group parts (:mod:`tieaware.fast.tie_spread`: per-group dynamic
programs and closed forms, polynomial in the group sizes), and RBO's worst,
best and variance come from :mod:`tieaware.fast.rbo_uncertainty`.

Covered: P, R, F1, AP, RR, RBP, ERR, DCG, nDCG (and RBO without a
distribution).  ``distribution`` is not available in fast for exact DCG
and nDCG (their values are sums of logs) nor when a group has more than
5,000 distinct values; it then raises and says so.

>>> worst("P@1", [[1, 0]]), best("P@1", [[1, 0]]), variance("P@1", [[1, 0]])
(Fraction(0, 1), Fraction(1, 1), Fraction(1, 4))
>>> sorted(distribution("RR", [[0, 1, 0]]).items())
[(Fraction(1, 3), Fraction(1, 3)), (Fraction(1, 2), Fraction(1, 3)), (Fraction(1, 1), Fraction(1, 3))]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from tieaware.errors import bad
from tieaware.exact import Exact
from tieaware.fast import rbo_uncertainty
from tieaware.fast.tie_spread import SpreadStats, spread_stats
from tieaware.names import Measure, parse
from tieaware.params import flag
from tieaware.rbo_input import measure_pair

__all__ = ["worst", "best", "variance", "distribution"]


def _measure(measure: Any) -> Measure:
    return measure if isinstance(measure, Measure) else parse(measure)


def _rbo(m: Measure, ranking: Any, what: str, exact: bool) -> Exact:
    S, L, p, bound = measure_pair(m, ranking)
    return getattr(rbo_uncertainty, f"rbo_{what}")(S, L, p, bound=bound, exact=exact)


def _stats(m: Measure, ranking: Any, ideal: Optional[Sequence[object]], exact: bool, pmf: bool = False) -> SpreadStats:
    return spread_stats(m, ranking, ideal, exact=exact, distribution=pmf)


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
