"""Kendall's τ and Yilmaz et al.'s τ_AP with ties, in closed form.

Same names and signatures as :mod:`tieaware.reference.correlation`, same
exact numbers.  Everything comes from one pass over y's tie groups with a
Fenwick tree over x's groups (:func:`_scan`): for each item, how many items
of the earlier groups of y x ranks strictly above it (A) and how many x ties
with it (T).  That is O(n log n):

- Kendall: the discordant pairs are Σ (items above in y) − A − T, and
  concordant − discordant = :func:`~tieaware.fast.corr_kernels.kendall_sum`;
  τ_a = E[τ] over tie-breakings (each tied pair is concordant in half of
  them), τ_b divides by √((n0 − n1)(n0 − n2)).  The extremes break every
  tied pair the good (or bad) way at once; the variance is Kendall's
  Σ t(t−1)(2t+5) over y's groups, x's groups and their intersections.
- τ_AP (x the true ranking): E[τ_AP] = 2/(n−1)·Σ_groups of y [mean slot
  weight · Σ (A + T/2) + within-group term] − 1; τ_AP,a is that when x is
  untied; τ_AP,b averages, per item, the share A/(items above its group),
  both ways round.  The extremes: y's ties broken by x's order (x's ties by
  y's), or both reversed, maximise (minimise) τ_AP as well as τ
  (:func:`~tieaware.fast.corr_kernels.exchange_gain`).  The variance is the
  law of total variance over x's and then y's tie-breaking, O(n) after the
  scan.

>>> kendall_tau(["a", ("b", "c")], ["a", "b", "c"], "a")
Fraction(2, 3)
>>> tau_ap_expected([("a", "b"), "c"], ["a", "b", "c"])
Fraction(1, 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, NamedTuple

from tieaware.model.corr_input import CorrRange, Groups, Item, corr_pair, corr_variant, is_untied, pair_count
from tieaware.model.errors import bad
from tieaware.fast import corr_kernels  # kernels are looked up in their module when called: one object of each
from tieaware.fast.corr_kernels import ItemSums, PositionSums
from tieaware.model.params import flag

__all__ = [
    "kendall_tau",
    "tau_ap",
    "kendall_tau_expected",
    "tau_ap_expected",
    "kendall_tau_range",
    "tau_ap_range",
    "kendall_tau_variance",
    "tau_ap_variance",
]


# --- the scan ----------------------------------------------------------------------


class _Group(NamedTuple):
    """One tie group of the estimated ranking, with what the reference says about its items."""

    top: int  # its first rank p (1-based)
    labels: list[int]  # each member's group index in the reference ranking
    stronger: list[int]  # A: items of earlier groups that the reference ranks strictly above it
    tied: list[int]  # T: items of earlier groups that the reference ties with it


class _Fenwick:
    """Counts per reference group, with prefix sums in O(log n)."""

    def __init__(self, size: int) -> None:
        self.tree = [0] * (size + 1)
        self.at = [0] * size

    def add(self, i: int) -> None:
        self.at[i] += 1
        i += 1
        while i < len(self.tree):
            self.tree[i] += 1
            i += i & -i

    def below(self, i: int) -> int:
        """Items counted in groups 0..i−1."""
        total = 0
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return total


def _scan(reference: Groups, estimated: Groups) -> Iterator[_Group]:
    index = {e: i for i, g in enumerate(reference) for e in g}
    counts = _Fenwick(len(reference))
    top = 1
    for group in estimated:
        labels = [index[e] for e in group]
        yield _Group(top, labels, [counts.below(r) for r in labels], [counts.at[r] for r in labels])
        for r in labels:
            counts.add(r)
        top += len(group)


def _n(groups: Groups) -> int:
    return sum(len(g) for g in groups)


def _number(exact: Any) -> Any:
    return Fraction(1) if flag(exact, "exact") else 1.0


# --- Kendall ------------------------------------------------------------------------


class _Kendall(NamedTuple):
    n0: int  # all pairs
    n1: int  # tied in x
    n2: int  # tied in y
    n3: int  # tied in both
    s: int  # concordant − discordant


def _kendall(gx: Groups, gy: Groups) -> _Kendall:
    n = _n(gx)
    n0 = n * (n - 1) // 2
    discordant = n3 = 0
    for group in _scan(gx, gy):
        above = group.top - 1
        discordant += sum(above - a - t for a, t in zip(group.stronger, group.tied))
        for m in _cells(group.labels).values():
            n3 += m * (m - 1) // 2
    n1, n2 = n0 - pair_count(gx), n0 - pair_count(gy)
    return _Kendall(n0, n1, n2, n3, corr_kernels.kendall_sum(n0, n1, n2, n3, discordant))


def _cells(labels: list[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for r in labels:
        counts[r] = counts.get(r, 0) + 1
    return counts


def kendall_tau(x: Any, y: Any, variant: str = "b", *, exact: bool = True) -> Any:
    """Kendall's τ_a or τ_b of two tied rankings of the same items, in O(n log n).

    τ_a = (concordant − discordant)/(n(n−1)/2): the average of τ over every
    tie-breaking.  τ_b = (concordant − discordant)/√((n0 − n1)(n0 − n2)), with
    n1, n2 the pairs tied in x, in y: scipy.stats.kendalltau's default.
    Exact: a Fraction, or for τ_b an exact sympy value when irrational.

    >>> kendall_tau([("a", "b"), "c"], ["a", "b", "c"], "b")
    sqrt(6)/3
    >>> kendall_tau([("a", "b"), "c"], ["a", "b", "c"], "b", exact=False)
    0.8164965809277261

    Beware: τ_b is a correction for the pairs ties hide, not an average over
    tie-breakings, and is undefined (refused) when a ranking is one tie group.
    """
    gx, gy = corr_pair(x, y)
    variant = corr_variant(variant)
    exact = flag(exact, "exact")
    k = _kendall(gx, gy)
    if variant == "a":
        return Fraction(k.s, k.n0) if exact else k.s / k.n0
    for ranking, groups, tied, name in ((x, gx, k.n1, "x"), (y, gy, k.n2, "y")):
        if tied == k.n0:
            raise bad(name, ranking, "is one tie group: variant b is undefined (0/0)")
    product = (k.n0 - k.n1) * (k.n0 - k.n2)
    if not exact:
        return k.s / math.sqrt(product)
    root = math.isqrt(product)
    if root * root == product:
        return Fraction(k.s, root)
    import sympy  # only an irrational τ_b needs it

    return sympy.Integer(k.s) / sympy.sqrt(product)


def kendall_tau_expected(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The average of Kendall's τ over every tie-breaking of x and of y: τ_a, in O(n log n).

    >>> kendall_tau_expected([("a", "b"), "c"], ["a", "b", "c"])
    Fraction(2, 3)
    """
    return kendall_tau(x, y, "a", exact=exact)


def kendall_tau_range(x: Any, y: Any, *, exact: bool = True) -> CorrRange:
    """The smallest and largest τ over every tie-breaking, and orderings that attain them.

    Every pair a ranking ties can be made concordant at once (break x's ties
    by y's order, y's by x's, one common order where both tie), or
    discordant at once (the reverse orders): τ_max, τ_min = (S ± T)/n0, T
    the pairs tied in x or y.

    >>> kendall_tau_range([("a", "b")], ["a", "b"])
    CorrRange(min=Fraction(-1, 1), max=Fraction(1, 1), min_orderings=(['b', 'a'], ['a', 'b']), max_orderings=(['a', 'b'], ['a', 'b']))
    """
    gx, gy = corr_pair(x, y)
    one = _number(exact)
    k = _kendall(gx, gy)
    tied = k.n1 + k.n2 - k.n3
    return CorrRange(one * (k.s - tied) / k.n0, one * (k.s + tied) / k.n0, _extreme(gx, gy, best=False), _extreme(gx, gy, best=True))


def kendall_tau_variance(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The exact variance of τ over the uniform, independent tie-breaking of x and of y, in O(n).

    Var(S) = [Σ_y's groups f(g) + Σ_x's groups f(h) − Σ_cells f(m)]/18 with
    f(t) = t(t−1)(2t+5) (Kendall's null variance, group by group) and a cell
    the items a group of x and a group of y share.

    >>> kendall_tau_variance([("a", "b")], [("a", "b")])   # −1 or 1, even odds
    Fraction(1, 1)
    """
    gx, gy = corr_pair(x, y)
    one = _number(exact)
    n = _n(gx)
    n0 = n * (n - 1) // 2
    total = sum(corr_kernels.kendall_tie_term(len(g)) for g in gx) + sum(corr_kernels.kendall_tie_term(len(g)) for g in gy)
    for group in _scan(gx, gy):
        total -= sum(corr_kernels.kendall_tie_term(m) for m in _cells(group.labels).values())
    return one * total / (18 * n0 * n0)


# --- τ_AP ---------------------------------------------------------------------------


def _sum(terms: list[Any], one: Any) -> Any:
    return math.fsum(terms) if isinstance(one, float) else sum(terms, Fraction(0))


def _expected_q(gx: Groups, gy: Groups, one: Any) -> Any:
    """E[Σ_k C(k)/(k−1)] over the tie-breakings of both: τ_AP = 2/(n−1)·this − 1."""
    terms = []
    for group in _scan(gx, gy):
        g = len(group.labels)
        above = sum(2 * a + t for a, t in zip(group.stronger, group.tied))  # 2·Σ (A + T/2)
        if above:
            terms.append(corr_kernels.group_weight_mean(group.top, g, one) * above / 2)
        if g > 1:
            terms.append(corr_kernels.within_group(group.top, g, one))
    return _sum(terms, one)


def tau_ap_expected(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The average of τ_AP (x the true ranking) over every tie-breaking of x and of y, in O(n log n).

    An item of y's group at ranks p..p+g−1 sits at each of them equally
    often; an item of an earlier group is above it and concordant when x
    ranks it higher (1), ties it (1/2, over x's tie-breakings) or not (0);
    an item of its own group is above it and concordant with probability 1/2.

    >>> tau_ap_expected(["a", "b", "c"], ["a", ("b", "c")])
    Fraction(3, 4)
    >>> tau_ap_expected(["a", "b", "c"], ["a", ("b", "c")], exact=False)
    0.75
    """
    gx, gy = corr_pair(x, y)
    one = _number(exact)
    n = _n(gx)
    return 2 * _expected_q(gx, gy, one) / (n - 1) - one


def _one_way_b(reference: Groups, estimated: Groups, one: Any) -> Any:
    """τ_AP,b from *reference* to *estimated*: 2·(mean share of the items above agreed) − 1."""
    terms, counted = [], 0
    for group in _scan(reference, estimated):
        if group.top > 1:
            terms.append(one * sum(group.stronger) / (group.top - 1))
            counted += len(group.labels)
    return 2 * _sum(terms, one) / counted - one


def tau_ap(x: Any, y: Any, variant: str = "b", *, exact: bool = True) -> Any:
    """Urbano & Marrero's τ_AP,a or τ_AP,b of two rankings of the same items, in O(n log n).

    **a**: x is the true ranking (untied); the average of τ_AP over the
    tie-breakings of y.  **b**: per item outside the top group of y, the
    share of the items in y's groups above it that x ranks strictly above
    it; 2·(mean share) − 1, averaged with the same from y to x.  Without ties
    a is Yilmaz et al.'s τ_AP and b the mean of τ_AP(x, y) and τ_AP(y, x).

    >>> tau_ap(["a", "b", "c"], ["a", ("b", "c")], "a")
    Fraction(3, 4)
    >>> tau_ap(["a", "b", "c"], ["b", "a", "c"], "b")
    Fraction(0, 1)

    Beware: variant a refuses a tied x (tau_ap_expected averages over x's
    ties too); variant b refuses a ranking that is one tie group (0/0).
    """
    gx, gy = corr_pair(x, y)
    variant = corr_variant(variant)
    one = _number(exact)
    if variant == "a":
        if not is_untied(gx):
            raise bad("x", x, 'must be untied for variant "a": it is the true ranking (use tau_ap_expected for a tied x)')
        return tau_ap_expected(x, y, exact=exact)
    for ranking, groups, name in ((x, gx, "x"), (y, gy, "y")):
        if len(groups) == 1:
            raise bad(name, ranking, "is one tie group: variant b is undefined (0/0)")
    return (_one_way_b(gx, gy, one) + _one_way_b(gy, gx, one)) / 2


def tau_ap_range(x: Any, y: Any, *, exact: bool = True) -> CorrRange:
    """The smallest and largest τ_AP over every tie-breaking, and orderings that attain them.

    The orderings are those of :func:`kendall_tau_range`: inside each group
    of y, x's better items first (last, for the minimum), x's ties broken
    by the resulting order of y (reversed).  An adjacent swap into that
    order never loses (:func:`~tieaware.fast.corr_kernels.exchange_gain`), so
    the order is optimal group by group.

    >>> tau_ap_range(["a", "b", "c"], [("a", "b", "c")])[:2]
    (Fraction(-1, 1), Fraction(1, 1))
    """
    gx, gy = corr_pair(x, y)
    one = _number(exact)
    worst, best = _extreme(gx, gy, best=False), _extreme(gx, gy, best=True)
    n = _n(gx)
    values = []
    for x_order, y_order in (worst, best):
        singletons_x, singletons_y = tuple((e,) for e in x_order), tuple((e,) for e in y_order)
        values.append(2 * _expected_q(singletons_x, singletons_y, one) / (n - 1) - one)
    return CorrRange(values[0], values[1], worst, best)


def _extreme(gx: Groups, gy: Groups, best: bool) -> tuple[list[Item], list[Item]]:
    """(ordering of x, ordering of y) making every tied pair concordant (best) or discordant."""
    x_group = {e: i for i, g in enumerate(gx) for e in g}
    common = {e: i for i, e in enumerate(e for g in gx for e in g)}  # one order for items tied in both
    sign = 1 if best else -1
    y_order = [e for g in gy for e in sorted(g, key=lambda e: (sign * x_group[e], common[e]))]
    y_rank = {e: r for r, e in enumerate(y_order)}
    x_order = [e for g in gx for e in sorted(g, key=lambda e: sign * y_rank[e])]
    return x_order, y_order


def tau_ap_variance(x: Any, y: Any, *, exact: bool = True) -> Any:
    """The exact variance of τ_AP over the uniform, independent tie-breaking of x and of y.

    With Q = Σ_k C(k)/(k−1), Var Q = E_y[Var_x(Q | y)] + Var_y(E_x[Q | y]):

    - given y's order, x's tie-breaking moves only pairs inside a group of x,
      and Var_x = Σ_items ω² r(r+2)/12, r the items of its x-group above it;
      its mean over y's tie-breaking is :func:`~tieaware.fast.corr_kernels.cell_spread`, cell by cell;
    - E_x[Q | y] is, group of y by group, a linear plus a pairwise statistic
      of the group's random order: :func:`~tieaware.fast.corr_kernels.permutation_variance`.

    O(n log n) in all.

    >>> tau_ap_variance([("a", "b")], ["a", "b"])
    Fraction(1, 1)
    >>> tau_ap_variance(["a", "b", "c"], ["a", ("b", "c")])   # 1 or 1/2, even odds
    Fraction(1, 16)
    """
    gx, gy = corr_pair(x, y)
    one = _number(exact)
    n = _n(gx)
    terms = []
    for group in _scan(gx, gy):
        g = len(group.labels)
        weights = [corr_kernels.slot_weight(group.top + s, one) for s in range(g)]
        squares = [w * w for w in weights]
        w0 = _sum(squares, one)
        w1 = _sum([s * w for s, w in enumerate(squares)], one)
        w2 = _sum([s * (s - 1) * w for s, w in enumerate(squares)], one)
        cells = _cell_stats(group)
        for label, (m, above, _) in cells.items():
            terms.append(corr_kernels.cell_spread(above, m, g, w0, w1, w2))
        if g > 1:
            terms.append(corr_kernels.permutation_variance(g, _positions(weights, one), _items(cells, g, one)))
    return 4 * _sum(terms, one) / ((n - 1) * (n - 1))


def _cell_stats(group: _Group) -> dict[int, tuple[int, int, int]]:
    """{x-group: (m items, T of them: the x-group's items in earlier groups, 2A + T)} in x's order."""
    cells: dict[int, tuple[int, int, int]] = {}
    for label, a, t in zip(group.labels, group.stronger, group.tied):
        m, _, _ = cells.get(label, (0, t, 2 * a + t))
        cells[label] = (m + 1, t, 2 * a + t)
    return dict(sorted(cells.items()))


def _positions(weights: list[Any], one: Any) -> PositionSums:
    """Slot sums of E_x[Q | y] in one group: V_s = ω_s, A_st = ω_t when s < t (s is above t)."""
    g = len(weights)
    rows, running = [one * 0] * g, one * 0
    for s in range(g - 1, -1, -1):
        rows[s] = running  # Σ_{t > s} ω_t
        running += weights[s]
    cols = [s * w for s, w in enumerate(weights)]
    zero = one * 0
    return PositionSums(
        v=_sum(weights, one),
        v2=_sum([w * w for w in weights], one),
        a=_sum(cols, one),
        a2=_sum([s * w * w for s, w in enumerate(weights)], one),
        a_swap=zero,
        row2=_sum([r * r for r in rows], one),
        col2=_sum([c * c for c in cols], one),
        row_col=_sum([r * c for r, c in zip(rows, cols)], one),
        row_v=_sum([r * w for r, w in zip(rows, weights)], one),
        col_v=_sum([c * w for c, w in zip(cols, weights)], one),
    )


def _items(cells: dict[int, tuple[int, int, int]], g: int, one: Any) -> ItemSums:
    """Item sums: a(u) = Σ P(an earlier item is above u in x), B(u, v) = P(x puts u above v)."""
    half = one / 2
    a = a2 = row2 = col2 = row_col = row_a = col_a = one * 0
    better = 0
    same = 0  # Σ m(m−1)
    for m, _, twice_a in cells.values():
        value = twice_a * half
        worse = g - better - m
        row, col = worse + (m - 1) * half, better + (m - 1) * half
        a += m * value
        a2 += m * value * value
        row2 += m * row * row
        col2 += m * col * col
        row_col += m * row * col
        row_a += m * value * row
        col_a += m * value * col
        same += m * (m - 1)
        better += m
    b = one * g * (g - 1) / 2
    b_swap = one * same / 4
    return ItemSums(a, a2, b, b - one * same / 2 + b_swap, b_swap, row2, col2, row_col, row_a, col_a)
