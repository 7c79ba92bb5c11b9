"""Kendall's τ and Yilmaz et al.'s τ_AP with ties, by definition and by enumeration.

Slow on purpose and small enough to check by eye (docs/correlation.md):

- on two untied orderings, :func:`tau_of_orderings` is Kendall's τ (concordant
  minus discordant pairs over all pairs) and :func:`tau_ap_of_orderings` is
  Yilmaz et al.'s τ_AP (x the true ranking, y the estimated one);
- ``kendall_tau(x, y, "a")`` and ``"b"`` are Kendall's (1945) τ_a and τ_b,
  pair by pair: Σ sign·sign over n(n−1)/2, or over √(pairs x orders ·
  pairs y orders);
- ``tau_ap(x, y, "a")`` is Urbano & Marrero's τ_AP,a as they define it: the
  average of τ_AP over every tie-breaking of y, with x the true ranking,
  which must be untied; ``"b"`` is their τ_AP,b: per item, the share of the
  items above its group that the other ranking also puts above it, both
  ways round, averaged;
- ``*_expected``, ``*_range`` and ``*_variance`` enumerate every pair
  (ordering of x, ordering of y) consistent with the ties, each equally
  likely, and take the mean, the extremes (with the first pair attaining
  each, in enumeration order) and the variance of τ or τ_AP over them.
  The one shortcut: items tied in both rankings are interchangeable, so
  only one of the Π m! pairs that rename them is evaluated (:func:`_cells`).

The enumeration refuses more pairs of orderings than
:func:`tieaware.reference.orderings.get_ordering_limit`.

>>> kendall_tau(["a", ("b", "c")], ["a", "b", "c"], "a")
Fraction(2, 3)
>>> kendall_tau_expected(["a", ("b", "c")], ["a", "b", "c"])   # (1 + 1/3) / 2
Fraction(2, 3)
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

import sympy

from tieaware.model.corr_input import CorrRange, Groups, corr_pair, corr_variant, is_untied
from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import to_float
from tieaware.model.params import flag
from tieaware.reference.orderings import get_ordering_limit, orderings

__all__ = [
    "kendall_tau",
    "tau_ap",
    "kendall_tau_expected",
    "tau_ap_expected",
    "kendall_tau_range",
    "tau_ap_range",
    "kendall_tau_variance",
    "tau_ap_variance",
    "tau_of_orderings",
    "tau_ap_of_orderings",
]


# --- the coefficients of two untied orderings -------------------------------------


def tau_of_orderings(x: tuple[Any, ...], y: tuple[Any, ...]) -> Fraction:
    """Kendall's τ of two orderings of the same items: (concordant − discordant) / all pairs.

    >>> tau_of_orderings(("a", "b", "c"), ("b", "a", "c"))
    Fraction(1, 3)
    """
    ry = {e: r for r, e in enumerate(y)}
    n = len(x)
    total = 0
    for i in range(n):
        for j in range(i + 1, n):  # x puts x[i] above x[j]
            total += 1 if ry[x[i]] < ry[x[j]] else -1
    return Fraction(total, n * (n - 1) // 2)


def tau_ap_of_orderings(x: tuple[Any, ...], y: tuple[Any, ...]) -> Fraction:
    """Yilmaz et al.'s τ_AP of the estimated ordering y against the true ordering x.

    τ_AP = 2/(n−1) · Σ_{k=2..n} C(k)/(k−1) − 1, where C(k) counts the items
    above rank k in y that x also ranks above y's item at rank k.  The sum
    is kept as an integer over lcm(1, …, n−1).

    >>> tau_ap_of_orderings(("a", "b", "c"), ("b", "a", "c"))   # 2/2 · (0/1 + 2/2) − 1
    Fraction(0, 1)
    """
    rx = {e: r for r, e in enumerate(x)}
    n = len(y)
    common = math.lcm(*range(1, n))
    total = 0
    for k in range(1, n):  # 0-based rank k: k items above
        below = rx[y[k]]
        agree = sum(1 for above in y[:k] if rx[above] < below)
        total += agree * (common // k)
    return Fraction(2 * total, (n - 1) * common) - 1


# --- the variants, by definition ----------------------------------------------------


def kendall_tau(x: Any, y: Any, variant: str = "b", *, exact: bool = True) -> Any:
    """Kendall's τ_a or τ_b of two tied rankings of the same items, pair by pair.

    τ_a = Σ sign(x)·sign(y) / (n(n−1)/2), a tied pair counting 0; τ_b divides
    instead by √(pairs x orders) · √(pairs y orders).  τ_b is irrational in
    general: an exact sympy value then, a Fraction when rational.

    >>> kendall_tau([("a", "b"), "c"], ["a", ("b", "c")], "b")
    Fraction(1, 2)
    >>> kendall_tau([("a", "b"), "c"], ["a", "b", "c"], "b")
    sqrt(6)/3

    Beware: τ_b is undefined (0/0) when either ranking is one tie group; that is refused.
    """
    gx, gy = corr_pair(x, y)
    variant = corr_variant(variant)
    exact = flag(exact, "exact")
    rx, ry = _group_index(gx), _group_index(gy)
    items = list(rx)
    product = orders_x = orders_y = 0
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            sx, sy = _sign(rx[a] - rx[b]), _sign(ry[a] - ry[b])
            product += sx * sy
            orders_x += sx * sx
            orders_y += sy * sy
    n = len(items)
    if variant == "a":
        value: Any = Fraction(product, n * (n - 1) // 2)
    else:
        _defined(x, orders_x, "x")
        _defined(y, orders_y, "y")
        value = _rational_or_not(sympy.Integer(product) / (sympy.sqrt(orders_x) * sympy.sqrt(orders_y)))
    return value if exact else to_float(value)


def tau_ap(x: Any, y: Any, variant: str = "b", *, exact: bool = True) -> Any:
    """Urbano & Marrero's τ_AP,a or τ_AP,b of two rankings of the same items.

    **a** (accuracy): x is the true ranking, untied; the value is the average
    of Yilmaz et al.'s τ_AP over every tie-breaking of y.
    **b** (agreement): for each item outside the top group of y, the share of
    the items in y's groups above it that x ranks strictly above it;
    τ_AP,b(x→y) = 2·(mean share) − 1, and τ_AP,b is the mean of x→y and y→x.

    >>> tau_ap(["a", "b", "c"], ["a", ("b", "c")], "a")   # the mean of 1 (a b c) and 1/2 (a c b)
    Fraction(3, 4)
    >>> tau_ap(["a", "b", "c"], ["a", ("b", "c")], "b")   # the mean of 1 (x→y) and 1/2 (y→x)
    Fraction(3, 4)

    Beware: variant a refuses a tied x (use tau_ap_expected); variant b is
    undefined (0/0) when either ranking is one tie group, and refuses it.
    """
    gx, gy = corr_pair(x, y)
    variant = corr_variant(variant)
    exact = flag(exact, "exact")
    if variant == "a":
        if not is_untied(gx):
            raise bad("x", x, 'must be untied for variant "a": it is the true ranking (use tau_ap_expected for a tied x)')
        x_order = tuple(g[0] for g in gx)
        _guard(_count(gy))
        values = [tau_ap_of_orderings(x_order, y_order) for y_order in orderings(gy)]
        value = sum(values, Fraction(0)) / len(values)
    else:
        _defined(x, _pairs_ordered(gx), "x")
        _defined(y, _pairs_ordered(gy), "y")
        value = (_tau_ap_b_one_way(gx, gy) + _tau_ap_b_one_way(gy, gx)) / 2
    return value if exact else to_float(value)


def _tau_ap_b_one_way(reference: Groups, estimated: Groups) -> Fraction:
    """2·(mean over items below the first group of *estimated* of the share agreed) − 1."""
    ref = _group_index(reference)
    shares, above = [], []
    for group in estimated:
        if above:
            for e in group:
                agree = sum(1 for a in above if ref[a] < ref[e])
                shares.append(Fraction(agree, len(above)))
        above.extend(group)
    return 2 * sum(shares, Fraction(0)) / len(shares) - 1


# --- over every tie-breaking ------------------------------------------------------------


def kendall_tau_expected(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The exact average of Kendall's τ over every tie-breaking of x and of y.

    >>> kendall_tau_expected([("a", "b")], [("a", "b")])
    Fraction(0, 1)
    """
    return _out(_summary(x, y, "tau").mean, exact)


def tau_ap_expected(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The exact average of τ_AP (x the true ranking) over every tie-breaking of x and of y.

    >>> tau_ap_expected([("a", "b"), "c"], ["a", "b", "c"])
    Fraction(1, 2)
    """
    return _out(_summary(x, y, "tau_ap").mean, exact)


def kendall_tau_range(x: Any, y: Any, *, exact: bool = True) -> CorrRange:
    """The smallest and largest τ over every tie-breaking, with the first orderings attaining them.

    >>> kendall_tau_range([("a", "b")], ["a", "b"])
    CorrRange(min=Fraction(-1, 1), max=Fraction(1, 1), min_orderings=(['b', 'a'], ['a', 'b']), max_orderings=(['a', 'b'], ['a', 'b']))
    """
    return _range(_summary(x, y, "tau"), exact)


def tau_ap_range(x: Any, y: Any, *, exact: bool = True) -> CorrRange:
    """The smallest and largest τ_AP over every tie-breaking, with the first orderings attaining them.

    >>> tau_ap_range(["a", "b", "c"], [("a", "b", "c")])[:2]
    (Fraction(-1, 1), Fraction(1, 1))
    """
    return _range(_summary(x, y, "tau_ap"), exact)


def kendall_tau_variance(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The exact variance of τ over the uniform, independent tie-breaking of x and of y.

    >>> kendall_tau_variance([("a", "b")], [("a", "b")])   # −1 or 1, even odds
    Fraction(1, 1)
    """
    return _out(_summary(x, y, "tau").variance, exact)


def tau_ap_variance(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The exact variance of τ_AP over the uniform, independent tie-breaking of x and of y.

    >>> tau_ap_variance([("a", "b")], ["a", "b"])
    Fraction(1, 1)
    """
    return _out(_summary(x, y, "tau_ap").variance, exact)


class _Summary:
    """Mean, variance and the first extreme pairs of a coefficient over every pair of orderings."""

    def __init__(self, values: Counter[Fraction], count: int, low: tuple[Any, ...], high: tuple[Any, ...]) -> None:
        self.mean = sum((v * n for v, n in values.items()), Fraction(0)) / count
        self.variance = sum(((v - self.mean) ** 2 * n for v, n in values.items()), Fraction(0)) / count
        self.low = low  # (value, ordering of x, ordering of y), the first attaining it
        self.high = high


_STATISTICS: dict[str, Callable[[tuple[Any, ...], tuple[Any, ...]], Fraction]] = {
    "tau": tau_of_orderings,
    "tau_ap": tau_ap_of_orderings,
}


def _summary(x: Any, y: Any, statistic: str) -> _Summary:
    gx, gy = corr_pair(x, y)
    _guard(_count(gx) * _count(gy))
    return _enumerated(gx, gy, statistic)


@lru_cache(maxsize=256)
def _enumerated(gx: Groups, gy: Groups, statistic: str) -> _Summary:
    # Cached: expected, range and variance of one pair are usually asked together.
    evaluate = _STATISTICS[statistic]
    y_orders = list(orderings(gy))
    cells = _cells(gx, gy)
    values: Counter[Fraction] = Counter()
    low = high = None
    for xo in orderings(gx):
        if not _canonical(xo, cells):
            continue
        for yo in y_orders:
            v = evaluate(xo, yo)
            values[v] += 1
            if low is None or v < low[0]:
                low = (v, xo, yo)
            if high is None or v > high[0]:
                high = (v, xo, yo)
    return _Summary(values, sum(values.values()), low, high)


def _cells(gx: Groups, gy: Groups) -> dict[Any, tuple[tuple[int, int], int]]:
    """{item: (its cell, its place in the cell)}; a cell is the items one group of x and one of y share.

    Items of one cell are interchangeable: renaming them in both orderings
    at once maps the pairs of orderings consistent with the ties one to one
    onto themselves and changes neither τ nor τ_AP.  Each orbit of these
    renamings (Π m! pairs, m the cell sizes) holds exactly one pair whose
    ordering of x lists every cell's items in place order, so enumerating
    only those pairs gives the same distribution.
    """
    y_group = {e: j for j, g in enumerate(gy) for e in g}
    cells: dict[Any, tuple[tuple[int, int], int]] = {}
    seen: Counter[tuple[int, int]] = Counter()
    for i, g in enumerate(gx):
        for e in g:
            cell = (i, y_group[e])
            cells[e] = (cell, seen[cell])
            seen[cell] += 1
    return cells


def _canonical(x_order: tuple[Any, ...], cells: dict[Any, tuple[tuple[int, int], int]]) -> bool:
    """Does *x_order* list each cell's items in place order?"""
    reached: Counter[tuple[int, int]] = Counter()
    for e in x_order:
        cell, place = cells[e]
        if place != reached[cell]:
            return False
        reached[cell] += 1
    return True


def _range(summary: _Summary, exact: Any) -> CorrRange:
    exact = flag(exact, "exact")
    (low, lx, ly), (high, hx, hy) = summary.low, summary.high
    return CorrRange(_out(low, exact), _out(high, exact), (list(lx), list(ly)), (list(hx), list(hy)))


# --- helpers -------------------------------------------------------------------------


def _group_index(groups: Groups) -> dict[Any, int]:
    return {e: i for i, g in enumerate(groups) for e in g}


def _sign(d: int) -> int:
    return (d > 0) - (d < 0)


def _pairs_ordered(groups: Groups) -> int:
    n = sum(len(g) for g in groups)
    return n * (n - 1) // 2 - sum(len(g) * (len(g) - 1) // 2 for g in groups)


def _defined(ranking: Any, ordered_pairs: int, argument: str) -> None:
    if ordered_pairs == 0:
        raise bad(argument, ranking, "is one tie group: variant b is undefined (0/0)")


def _rational_or_not(value: Any) -> Any:
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    return value


def _count(groups: Groups) -> int:
    return math.prod(math.factorial(len(g)) for g in groups)


def _guard(count: int) -> None:
    if count > get_ordering_limit():
        raise TieawareError(
            f"the correlation needs {count} pairs of orderings, over the reference's limit of {get_ordering_limit()}; "
            f"raise it with tieaware.reference.ordering_limit({count}) or use tieaware.fast"
        )


def _out(value: Any, exact: Any) -> Any:
    return value if flag(exact, "exact") else to_float(value)
