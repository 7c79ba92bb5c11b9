"""How much bare RBO moves over the tie-breakings of both rankings, in closed form.

The random variable is the one :func:`tieaware.reference.rbo` with
``variant="a"`` averages: break the ties of S and of L independently and
uniformly at random, then take bare (tie-free) RBO of the two orderings,
with the chosen prefix bound (MIN, MAX, EXT or RES; docs/rbo.md).  Its mean
is :func:`tieaware.fast.rbo_expected`; this module gives its minimum,
maximum and variance.

Why these are easy.  For fixed lengths s <= l, every bound of bare RBO is
``constant + Σ_{d=1..l} ω_d·X_d`` with X_d = |S_:d ∩ L_:d| and every
ω_d >= 0 (EXT puts extra weight on X_s).  Writing M_e = max(rank of e in S,
rank of e in L) for a shared item e, X_d counts the shared items with
M_e <= d, so the random part is Σ_e W(M_e) with W(m) = Σ_{d>=m} ω_d.

- **best**: one pair of orderings maximises *every* X_d at once: inside a
  group of S, items come in the order of their group in L (missing items
  last), inside a group of L in the order of their group in S, and items
  tied in both keep one common order in both rankings.  At depth d, with
  P_S and P_L the chosen parts of the two straddling groups, the overlap
  above the fully seen groups is i + j + k, i = |P_S ∩ (L's full groups)|,
  j likewise, k = |P_S ∩ P_L| <= min(|P_S|-i, |P_L|-j, shared); raising i
  or j never lowers the sum, so taking them greedily and then sharing the
  common prefix is optimal.  This is Tsatsanis & Urbano's construction for
  τ_max (break S's ties by L's order and vice versa, one order where both
  tie) carried over to overlaps.
- **worst**: the mirror image, which minimises every X_d at once: items
  missing from the other ranking first, then the other ranking's groups in
  reverse, and items tied in both in opposite orders in the two rankings.
- **variance**: the law of total variance over L's and then S's
  tie-breaking; inside one group the random part is a linear statistic of
  a uniform random bijection, whose variance is Hoeffding's
  Σ (double-centred entries)² / (g-1).  O(l + Σ g²) over the groups.

RES = MAX − MIN does not depend on the tie-breaking (the X_d cancel), so its
variance is 0 and its worst and best are its value.

>>> rbo_best(["a", ("b", "c")], ["a", "b", "c"], "0.5")
Fraction(1, 1)
>>> rbo_worst(["a", ("b", "c")], ["a", "b", "c"], "0.5")
Fraction(7, 8)
>>> rbo_variance(["a", ("b", "c")], ["a", "b", "c"], "0.5")
Fraction(1, 256)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Optional

from tieaware.fast import rbo_kernels as K
from tieaware.fast.rank_biased_overlap import group_spans, rbo_expected_bounds  # group_spans: ranks t..b of each group
from tieaware.model.params import flag, probability
from tieaware.model.rbo_input import Groups, Item, bound_name, rbo_pair

__all__ = ["rbo_worst", "rbo_best", "rbo_variance", "rbo_best_orderings", "rbo_worst_orderings"]


def rbo_best(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The largest bare RBO over every tie-breaking of S and L.

    Attained by :func:`rbo_best_orderings`.  Exact mode returns a Fraction,
    or for MIN and RES an exact sympy value with the ln(1/(1-p)) term.

    >>> rbo_best([("a", "b")], [("b", "a")], "0.5")
    Fraction(1, 1)
    """
    name = bound_name(bound)
    S_order, L_order = rbo_best_orderings(S, L)
    return getattr(rbo_expected_bounds(S_order, L_order, p, exact=exact), name)


def rbo_worst(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The smallest bare RBO over every tie-breaking of S and L.

    Attained by :func:`rbo_worst_orderings`.

    >>> rbo_worst([("a", "b")], [("b", "a")], "0.5")
    Fraction(1, 2)
    """
    name = bound_name(bound)
    S_order, L_order = rbo_worst_orderings(S, L)
    return getattr(rbo_expected_bounds(S_order, L_order, p, exact=exact), name)


def rbo_best_orderings(S: Any, L: Any) -> tuple[list[Item], list[Item]]:
    """A tie-breaking of (the shorter, the longer) ranking that maximises every overlap X_d.

    >>> rbo_best_orderings([("x", "a", "b")], ["b", "a", "c"])
    (['b', 'a', 'x'], ['b', 'a', 'c'])
    """
    short, long = rbo_pair(S, L)
    return _break(short, long, best=True)


def rbo_worst_orderings(S: Any, L: Any) -> tuple[list[Item], list[Item]]:
    """A tie-breaking of (the shorter, the longer) ranking that minimises every overlap X_d.

    >>> rbo_worst_orderings([("x", "a", "b")], ["b", "a", "c"])
    (['x', 'a', 'b'], ['b', 'a', 'c'])
    """
    short, long = rbo_pair(S, L)
    return _break(short, long, best=False)


def _break(S: Groups, L: Groups, best: bool) -> tuple[list[Item], list[Item]]:
    group_S = {e: i for i, g in enumerate(S) for e in g}
    group_L = {e: j for j, g in enumerate(L) for e in g}
    # One common order for the items tied in both rankings: S's input order.
    common = {e: n for n, e in enumerate(e for g in S for e in g)}
    missing = float("inf")

    def order(groups: Groups, other: dict[Item, int]) -> list[Item]:
        out: list[Item] = []
        for g in groups:
            if best:  # the other ranking's earlier groups first, missing items last
                key = lambda e: (other.get(e, missing), common.get(e, 0))  # noqa: E731
            else:  # missing items first, then the other's later groups first
                key = lambda e: (-other.get(e, missing), common.get(e, 0))  # noqa: E731
            out.extend(sorted(g, key=key))
        return out

    S_order = order(S, group_L)
    if best:
        return S_order, order(L, group_S)
    # Worst: the items tied in both go in opposite orders in the two rankings.
    L_order: list[Item] = []
    for g in L:
        L_order.extend(sorted(g, key=lambda e: (-group_S.get(e, missing), -common.get(e, 0))))
    return S_order, L_order


# --- variance ---------------------------------------------------------------


def rbo_variance(S: Any, L: Any, p: Any, *, bound: str = "ext", exact: bool = True) -> Any:
    """The exact variance of bare RBO over the uniform tie-breaking of both rankings.

    A Fraction in exact mode for every bound (the ln term of MIN is the same
    in every tie-breaking); a float with ``exact=False``.

    >>> rbo_variance([("a", "b")], [("b", "a")], "0.5")   # 1/2 or 1, even odds
    Fraction(1, 16)
    >>> rbo_variance([("a", "b")], [("b", "a")], "0.5", bound="res")
    Fraction(0, 1)

    Beware: p as a float goes through its repr, so 0.9 means exactly 9/10.
    """
    name = bound_name(bound)
    short, long = rbo_pair(S, L)
    q = probability(p)
    exact = flag(exact, "exact")
    one: Any = Fraction(1) if exact else 1.0
    if name == "res":
        return one * 0
    return _variance(short, long, q if exact else float(q), name, one)


def _weights(s: int, l: int, p: Any, bound: str, one: Any) -> list[Any]:
    """ω_1..ω_l: the coefficient of X_d in the bound, read off the kernels rbo_expected sums.

    Bare RBO's coefficient of p^d is affine in the overlaps (tieaware prove,
    "RBO expected"), so one shared item active in both rankings at depth d
    adds ∂A_d/∂X_d to it; for EXT, A_s = X_s/s also scales S's unseen items
    past s and the tail past l (the same kernels with A_s = 1 and no overlap).
    The formulas stay in :mod:`tieaware.fast.rbo_kernels`.
    """
    scale = (one - p) / p
    weights, p_d, extra = [], one, one * 0
    for d in range(1, l + 1):
        p_d = p_d * p
        if d <= s:  # one item active at rank <= d in both: its own group t = b = d
            slope = K.seen_agreement("a", 1, 0, 0, 0, d, d, d, d, d)[0] - K.seen_agreement("a", 0, 0, 0, 0, d, d, d, d, d)[0]
        else:
            with_item = K.unseen_terms("a", 1, 0, d, d, d, s, 0, 0, (0, ()), True)
            without = K.unseen_terms("a", 0, 0, d, d, d, s, 0, 0, (0, ()), True)
            slope = _sum(with_item, bound) - _sum(without, bound)
            if bound == "ext":
                extra += _sum(K.unseen_terms("a", 0, 0, d, d, d, s, 0, 0, (1, ()), True), bound) * p_d
        weights.append(scale * p_d * slope)
    if bound == "ext":
        for tail in K.third_section("ext", l, s, 0, (1, ())):
            geometric, _, _ = K.series_tail(tail.a, tail.b, tail.start, p)
            extra += geometric * p**tail.start
        weights[s - 1] += scale * extra / s
    return weights


def _sum(terms: Any, bound: str) -> Any:
    # A bound's coefficient of p^d; RBO^a has no square roots.
    return sum((coefficient for coefficient, _ in getattr(terms, bound)), 0)


class _Tails:
    """Prefix sums of W(m) = Σ_{d>=m} ω_d and of W(m)², for O(1) range sums."""

    def __init__(self, weights: list[Any], one: Any) -> None:
        l = len(weights)
        W = [one * 0] * (l + 2)
        for m in range(l, 0, -1):
            W[m] = W[m + 1] + weights[m - 1]
        self.W = W
        self.prefix = [one * 0] * (l + 1)
        self.prefix2 = [one * 0] * (l + 1)
        for m in range(1, l + 1):
            self.prefix[m] = self.prefix[m - 1] + W[m]
            self.prefix2[m] = self.prefix2[m - 1] + W[m] * W[m]

    def max_sum(self, x: int, t: int, b: int, square: bool = False) -> Any:
        """Σ_{y=t..b} W(max(x, y)) (or its square)."""
        prefix = self.prefix2 if square else self.prefix
        below = min(max(x - t + 1, 0), b - t + 1)  # the y <= x give W(x)
        value = self.W[x] * self.W[x] if square else self.W[x]
        start = max(t, x + 1)
        return below * value + (prefix[b] - prefix[start - 1] if start <= b else 0)


def _variance(S: Groups, L: Groups, p: Any, bound: str, one: Any) -> Any:
    s, l = sum(map(len, S)), sum(map(len, L))
    weights = _weights(s, l, p, bound, one)
    scale = 1
    if isinstance(one, Fraction):
        # Work on integer weights ω_d·D: Fraction arithmetic then only meets the
        # small denominators of group sizes, not p^d·d (10x faster at l = 1000).
        scale = math.lcm(*(w.denominator for w in weights))
        weights = [Fraction(int(w * scale)) for w in weights]
    tails = _Tails(weights, one)
    spans_S, spans_L = group_spans(S), group_spans(L)
    group_L = {e: j for j, g in enumerate(L) for e in g}
    cells: dict[tuple[int, int], int] = {}  # (S group, L group) -> shared items
    for i, g in enumerate(S):
        for e in g:
            j = group_L.get(e)
            if j is not None:
                cells[(i, j)] = cells.get((i, j), 0) + 1
    rows: dict[int, list[tuple[int, int]]] = {}
    columns: dict[int, list[tuple[int, int]]] = {}
    for (i, j), n in cells.items():
        rows.setdefault(i, []).append((j, n))
        columns.setdefault(j, []).append((i, n))

    # R_i(y): the mean of W(max(x, y)) over S group i's ranks x; per cell, at L group j's ranks y.
    R: dict[tuple[int, int], list[Any]] = {}
    for (i, j) in cells:
        t_i, b_i = spans_S[i]
        t_j, b_j = spans_L[j]
        g_i = b_i - t_i + 1
        R[(i, j)] = [tails.max_sum(y, t_i, b_i) / (one * g_i) for y in range(t_j, b_j + 1)]

    total = one * 0
    # Var over L's tie-breaking of E[bare RBO | L's order]: one linear
    # permutation statistic per L group, entries R_i(y) for its shared items.
    for j, members in columns.items():
        t_j, b_j = spans_L[j]
        g = b_j - t_j + 1
        if g == 1:
            continue
        squares = sum(n * sum(r * r for r in R[(i, j)]) for i, n in members)
        row_means = sum(n * (sum(R[(i, j)]) / g) ** 2 for i, n in members)
        column = [sum(n * R[(i, j)][y] for i, n in members) / g for y in range(g)]
        grand = sum(column) / g
        total += _hoeffding(g, squares, row_means, sum(c * c for c in column), grand)
    # E over L's tie-breaking of Var over S's: one statistic per S group,
    # entries W(max(x, rank in L)), with the L ranks random.
    for i, members in rows.items():
        t_i, b_i = spans_S[i]
        g = b_i - t_i + 1
        if g == 1:
            continue
        squares = one * 0
        row_means = one * 0
        mean_of_grand, var_of_grand = one * 0, one * 0
        for j, n in members:
            t_j, b_j = spans_L[j]
            g_j = b_j - t_j + 1
            squares += n * sum(tails.max_sum(x, t_j, b_j, square=True) for x in range(t_i, b_i + 1)) / g_j
            values = R[(i, j)]
            u = sum(values) / g_j
            v = sum(r * r for r in values) / g_j - u * u
            row_means += n * sum(r * r for r in values) / g_j
            mean_of_grand += n * u
            var_of_grand += _without_replacement(n, g_j, v)
        columns_sq = one * 0
        for x in range(t_i, b_i + 1):
            mean, var = one * 0, one * 0
            for j, n in members:
                t_j, b_j = spans_L[j]
                g_j = b_j - t_j + 1
                mu = tails.max_sum(x, t_j, b_j) / g_j
                sigma2 = tails.max_sum(x, t_j, b_j, square=True) / g_j - mu * mu
                mean += n * mu
                var += _without_replacement(n, g_j, sigma2)
            columns_sq += (var + mean * mean) / (g * g)
        grand_sq = (var_of_grand + mean_of_grand * mean_of_grand) / (g * g)
        total += _hoeffding(g, squares, row_means, columns_sq, None, grand_sq)
    return total / (scale * scale) if scale != 1 else total


def _without_replacement(n: int, g: int, variance: Any) -> Any:
    """Var of a sum of n of g values drawn without replacement, from their population variance."""
    if g == 1:
        return variance * 0
    return n * variance * (g - n) / (g - 1)


def _hoeffding(g: int, squares: Any, row_means: Any, columns_sq: Any, grand: Optional[Any], grand_sq: Any = None) -> Any:
    """Var of Σ_e a[e, σ(e)] for a uniform bijection σ of a g × g matrix a (Hoeffding 1951).

    (Σ a² − g Σ_e r_e² − g Σ_x c_x² + g² m²)/(g − 1), with row means r,
    column means c and grand mean m; the arguments are those sums (or
    their expectations, when the entries are themselves random).
    """
    if grand_sq is None:
        grand_sq = grand * grand
    return (squares - g * row_means - g * columns_sq + g * g * grand_sq) / (g - 1)
