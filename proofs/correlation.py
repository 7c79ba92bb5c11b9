"""Kendall's τ and τ_AP with ties: the expectations, variances and extremes fast computes.

The random variable is the coefficient of two untied orderings, when the
ties of x and of y are broken independently and uniformly.  The proofs
derive from that definition, with sympy, and then call fast's kernels
(:mod:`tieaware.fast.corr_kernels`) or fast's functions:

- **τ_a = E[τ]** (general): a pair tied in a ranking is ordered either way
  in half of its tie-breakings, so its sign has mean 0, and the two
  rankings are broken independently.
- **E[τ_AP]**: an item of a group at ranks p..p+g−1 of y is at each rank
  with probability 1/g (general); the expected concordance inside a group
  is checked for every tie structure of x on the group, g <= 5, with p
  symbolic; the whole of fast.tau_ap_expected on every pair of rankings of
  up to 4 items.
- **Var τ**: Kendall's t(t−1)(2t+5)/18, from E[sign·sign] over 3 items,
  for up to 5 blocks of symbolic sizes; fast.kendall_tau_variance whole, up to 4 items.
- **Var τ_AP**: the quadratic-assignment moments against every bijection
  of up to 4 slots with every entry a symbol; the x-part r(r+2)/12 and its
  mean over y (cell_spread) against enumeration; fast.tau_ap_variance whole, up to 4 items.
- **extremes** (general): the exchange step never loses; both range
  functions whole, up to 4 items.

>>> THEOREMS["τ_a = E[τ]"]().proved
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from typing import Any, Optional

import sympy
from sympy import QQ, Eq, Symbol
from sympy.polys.rings import ring

from tieaware.fast import corr_kernels
from tieaware.fast import correlation as fast_corr
from tieaware.fast.corr_kernels import ItemSums, PositionSums
from tieaware.proofs.theorem import GENERAL, THEOREMS, ProofFailure, Tex, bounded, same, theorem
from tieaware.model.structures import compositions, ranking_pairs

__all__ = [
    "CORR_ITEMS",
    "orderings_of",
    "tau_of",
    "tau_ap_of",
    "distribution",
    "prove_tau_a",
    "prove_tau_ap_expected",
    "prove_tau_variance",
    "prove_tau_ap_variance",
    "prove_extremes",
]

#: The whole-function checks run on every pair of rankings of up to this many items.
CORR_ITEMS = 4

_pos = dict(integer=True, positive=True)
_nonneg = dict(integer=True, nonnegative=True)


# -- the definitions, transcribed here ---------------------------------------------------


def orderings_of(ranking: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every tie-breaking of a ranking (items and tuples), in order."""
    groups = [g if isinstance(g, tuple) else (g,) for g in ranking]
    return [sum(parts, ()) for parts in itertools.product(*(itertools.permutations(g) for g in groups))]


def tau_of(x: Sequence[Any], y: Sequence[Any]) -> Fraction:
    """Kendall's τ of two orderings: Σ over pairs of sign·sign, over n(n−1)/2.

    >>> tau_of("abc", "acb")
    Fraction(1, 3)
    """
    rx, ry = {e: i for i, e in enumerate(x)}, {e: i for i, e in enumerate(y)}
    pairs = list(itertools.combinations(x, 2))
    return Fraction(sum(1 if (rx[a] - rx[b]) * (ry[a] - ry[b]) > 0 else -1 for a, b in pairs), len(pairs))


def tau_ap_of(x: Sequence[Any], y: Sequence[Any]) -> Fraction:
    """Yilmaz et al.'s τ_AP of the estimated order y against the true order x.

    >>> tau_ap_of("abc", "acb")
    Fraction(1, 2)
    """
    rx = {e: i for i, e in enumerate(x)}
    total = sum((Fraction(sum(1 for a in y[:k] if rx[a] < rx[y[k]]), k) for k in range(1, len(y))), Fraction(0))
    return 2 * total / (len(y) - 1) - 1


@cache
def distribution(x: tuple[Any, ...], y: tuple[Any, ...], statistic: str) -> tuple[Fraction, ...]:
    """The coefficient over every pair of tie-breakings (x's, y's), each once."""
    evaluate = tau_of if statistic == "tau" else tau_ap_of
    y_orders = orderings_of(y)
    return tuple(evaluate(xo, yo) for xo in orderings_of(x) for yo in y_orders)


def _pairs() -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    for n in range(2, CORR_ITEMS + 1):
        for x, y in ranking_pairs(n):
            yield tuple(x), tuple(y)


def _whole(check: Callable[[tuple[Any, ...], tuple[Any, ...]], tuple[Any, Any]], what: str) -> str:
    """Run *check(x, y)* -> (derived, fast's) on every pair of rankings up to CORR_ITEMS items."""
    count = 0
    for x, y in _pairs():
        derived, got = check(x, y)
        if derived != got:
            raise ProofFailure(f"{what} of x={list(x)}, y={list(y)}: derived {derived}, fast gives {got}")
        count += 1
    return f"{what}: {count} pairs of rankings of 2..{CORR_ITEMS} items (every pair up to renaming)"


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def _variance(values: Sequence[Fraction]) -> Fraction:
    mean = _mean(values)
    return sum(((v - mean) ** 2 for v in values), Fraction(0)) / len(values)


# -- τ_a = E[τ] ---------------------------------------------------------------------------------


def p_above(n: Any) -> Any:
    """P(item i above item j) in a uniform order of a group of n: Σ over ranks a < b of (n−2)!/n!."""
    a, b = sympy.symbols("a b", **_pos)
    return sympy.simplify(
        sympy.summation(sympy.summation(sympy.factorial(n - 2) / sympy.factorial(n), (a, 1, b - 1)), (b, 2, n))
    )


@theorem(
    "τ_a = E[τ]",
    "E[Σ sign(x')·sign(y')] over independent tie-breakings = concordant − discordant (tied pairs 0) = kendall_sum.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[S]"),
        corr_kernels.kendall_sum(*sympy.symbols("n_0 n_1 n_2 n_3"), Symbol("D")),
        evaluate=False,
    ),
)
def prove_tau_a(kernel: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or corr_kernels.kendall_sum
    n = Symbol("n", integer=True)
    half = p_above(n)
    same(half, sympy.Rational(1, 2), "P(i above j) in a group of symbolic size n")
    mean_sign = 2 * half - 1  # E[sign of a tied pair] = P(above) − P(below)
    # Pairs by class: strictly concordant, discordant, tied in x only, y only, both.
    c, d, a, b, t = sympy.symbols("C D a b c", **_nonneg)
    # x and y are broken independently: E[sx'·sy'] = E[sx']·E[sy'].
    derived = c * 1 + d * (-1) + a * mean_sign * 1 + b * 1 * mean_sign + t * mean_sign * mean_sign
    same(derived, kernel(c + d + a + b + t, a + t, b + t, t, d), "E[S] from the pair classes")
    return "P(i above j) = 1/2 for symbolic n, then symbolic counts of the five pair classes"


# -- E[τ_AP] -------------------------------------------------------------------------------------


@theorem(
    "E[τ_AP]",
    f"fast.tau_ap_expected = E[τ_AP] over tie-breakings: slot lemma general; within_group for g <= 5 (p symbolic); whole for n <= {CORR_ITEMS}.",
    bounded(f"g<=5 with p symbolic; n<={CORR_ITEMS} whole"),
    lambda: Eq(Tex(r"\mathbb{E}[\mathrm{within}(p, 3)]"), corr_kernels.within_group(Symbol("p"), 3, sympy.Integer(1)), evaluate=False),
    why="within_group and fast.tau_ap_expected loop over a group's slots and over the groups: the slots need a number, so groups of up to 5 items with the first rank p symbolic, and the whole function on every pair of rankings of up to 4 items",
)
def prove_tau_ap_expected(within: Optional[Callable[..., Any]] = None, expected: Optional[Callable[..., Any]] = None) -> str:
    within = within or corr_kernels.within_group
    expected = expected or fast_corr.tau_ap_expected
    # Slot lemma: an item of a group of g is at each of its g ranks in (g−1)! of the g! orders.
    g = Symbol("g", **_pos)
    same(sympy.factorial(g - 1) / sympy.factorial(g), 1 / g, "P(item at a given rank of its group)")
    # Inside a group at ranks p..p+g−1, the items' order is uniform; for every tie structure of x on
    # the group, average Σ_s ω(p+s)·(items above slot s that a tie-breaking of x also ranks above).
    p = Symbol("p", integer=True)
    checked = 0
    for size in range(1, 6):
        weights = [sympy.Integer(0) if s == 0 else 1 / (p + s - 1) for s in range(size)]  # p >= 2: every slot has items above it
        for sizes in compositions(size):
            x = _ranking(sizes)
            values = []
            for xo in orderings_of(x):
                rank = {e: i for i, e in enumerate(xo)}
                for yo in itertools.permutations(range(size)):
                    values.append(sum(weights[s] * sum(1 for a in yo[:s] if rank[a] < rank[yo[s]]) for s in range(size)))
            derived = sympy.Add(*values) / len(values)
            claimed = within(p, size, sympy.Integer(1))
            same(derived, claimed, f"within-group concordance, g = {size}, x ties {list(sizes)}")
            checked += 1
    detail = _whole(lambda x, y: (_mean(distribution(x, y, "tau_ap")), expected(list(x), list(y))), "fast.tau_ap_expected")
    return f"slot lemma for symbolic g; {checked} group shapes g <= 5 with p symbolic; {detail}"


def _ranking(sizes: Sequence[int]) -> list[Any]:
    ranking, start = [], 0
    for size in sizes:
        ranking.append(start if size == 1 else tuple(range(start, start + size)))
        start += size
    return ranking


# -- Var τ ----------------------------------------------------------------------------------------


def _sign_moments() -> tuple[Fraction, Fraction]:
    """E[η_ij·η_ik] (pairs sharing their first item) and E[η_ij·η_kl] (disjoint), η = sign of the order."""
    shared = _mean([Fraction(_sgn(o[0] - o[1]) * _sgn(o[0] - o[2])) for o in itertools.permutations(range(3))])
    disjoint = _mean([Fraction(_sgn(o[0] - o[1]) * _sgn(o[2] - o[3])) for o in itertools.permutations(range(4))])
    return shared, disjoint


def _sgn(v: int) -> int:
    return (v > 0) - (v < 0)


@theorem(
    "Var τ",
    "Var Σ s_ij·sign(π_i − π_j) over a uniform order π of g items in r blocks = (f(g) − Σ f(u))/18, f = kendall_tie_term.",
    bounded(f"r<=5 blocks of symbolic size; n<={CORR_ITEMS} whole"),
    lambda: Eq(Tex(r"f(t)"), corr_kernels.kendall_tie_term(Symbol("t")), evaluate=False),
    why="the identity is a polynomial in the block sizes for each number of blocks r, checked for r <= 5 with the sizes symbolic (sympy cannot sum over a symbolic number of blocks); the whole function on every pair up to 4 items",
)
def prove_tau_variance(kernel: Optional[Callable[..., Any]] = None, variance: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or corr_kernels.kendall_tie_term
    variance = variance or fast_corr.kendall_tau_variance
    shared, disjoint = _sign_moments()
    if (shared, disjoint) != (Fraction(1, 3), 0):
        raise ProofFailure(f"sign moments over 3 and 4 items: {shared}, {disjoint}")
    for r in range(1, 6):
        u = sympy.symbols(f"u1:{r + 1}", **_pos)
        g = sum(u)
        # s_ij = sign of the blocks' order; c_i = Σ_j s_ij = (items below) − (items above) for i in block k.
        above = [sum(u[:k]) for k in range(r)]
        c = [(g - above[k] - u[k]) - above[k] for k in range(r)]
        untied = (g * g - sum(x * x for x in u)) / 2  # N = Σ_{i<j} s_ij²
        # Var = Σ_pairs s² E[η²] + Σ_i Σ_{j≠k} s_ij s_ik E[η_ij η_ik] (+ disjoint pairs: 0).
        derived = untied + sympy.Rational(shared.numerator, shared.denominator) * (sum(u[k] * c[k] ** 2 for k in range(r)) - 2 * untied)
        same(18 * derived, kernel(g) - sum(kernel(x) for x in u), f"Kendall's null variance, {r} blocks", polynomial=True)
    detail = _whole(lambda x, y: (_variance(distribution(x, y, "tau")), variance(list(x), list(y))), "fast.kendall_tau_variance")
    return f"E[sign·sign] from 3 and 4 items; blocks r <= 5 with symbolic sizes; {detail}"


# -- Var τ_AP ----------------------------------------------------------------------------------------


def _polynomials(*names: str) -> tuple[Any, list[Any]]:
    """A polynomial ring over Q in the given variables: its arithmetic is exact and fast (no expand())."""
    R, *variables = ring(",".join(names), QQ)
    return R, variables


def _variance_of(values: Sequence[Any]) -> Any:
    """E[v²] − E[v]² of equally likely polynomial values."""
    n = len(values)
    total = sum(values[1:], values[0])
    return sum((v * v for v in values[1:]), values[0] * values[0]) / n - total * total / (n * n)


def _same_polynomial(derived: Any, claimed: Any, what: str) -> None:
    if derived != claimed:
        shown = claimed.as_expr() if hasattr(claimed, "as_expr") else claimed
        raise ProofFailure(f"{what}: derived {derived.as_expr()}, but fast gives {shown}")


def _qap_check(g: int, kernel: Callable[..., Any]) -> None:
    """permutation_variance against every bijection of g slots, every entry a variable."""
    off = [(s, t) for s in range(g) for t in range(g) if s != t]
    names = [f"V{s}" for s in range(g)] + [f"a{s}" for s in range(g)] + [f"A{s}{t}" for s, t in off] + [f"B{s}{t}" for s, t in off]
    R, variables = _polynomials(*names)
    V, a = variables[:g], variables[g : 2 * g]
    A = dict(zip(off, variables[2 * g : 2 * g + len(off)]))
    B = dict(zip(off, variables[2 * g + len(off) :]))
    total = lambda terms: sum(terms, R.zero)  # noqa: E731
    values = [
        total(V[s] * a[sigma[s]] for s in range(g)) + total(A[s, t] * B[sigma[s], sigma[t]] for s, t in off)
        for sigma in itertools.permutations(range(g))
    ]
    row = [total(A[s, t] for t in range(g) if t != s) for s in range(g)]
    col = [total(A[s, t] for s in range(g) if s != t) for t in range(g)]
    Row = [total(B[u, v] for v in range(g) if v != u) for u in range(g)]
    Col = [total(B[u, v] for u in range(g) if u != v) for v in range(g)]
    pos = PositionSums(
        v=total(V), v2=total(x * x for x in V), a=total(A.values()), a2=total(x * x for x in A.values()),
        a_swap=total(A[s, t] * A[t, s] for s, t in off), row2=total(x * x for x in row), col2=total(x * x for x in col),
        row_col=total(row[s] * col[s] for s in range(g)), row_v=total(row[s] * V[s] for s in range(g)),
        col_v=total(col[s] * V[s] for s in range(g)),
    )  # fmt: skip
    item = ItemSums(
        a=total(a), a2=total(x * x for x in a), b=total(B.values()), b2=total(x * x for x in B.values()),
        b_swap=total(B[u, v] * B[v, u] for u, v in off), row2=total(x * x for x in Row), col2=total(x * x for x in Col),
        row_col=total(Row[u] * Col[u] for u in range(g)), row_a=total(Row[u] * a[u] for u in range(g)),
        col_a=total(Col[u] * a[u] for u in range(g)),
    )  # fmt: skip
    _same_polynomial(_variance_of(values), kernel(g, pos, item), f"permutation variance, {g} slots")


@theorem(
    "Var τ_AP",
    f"fast.tau_ap_variance = Var τ_AP over tie-breakings: permutation moments (g <= 4, symbolic entries), x-part and cell_spread (enumerated), whole for n <= {CORR_ITEMS}.",
    bounded(f"g<=4 slots with symbolic entries; cells g<=5; n<={CORR_ITEMS} whole"),
    lambda: Eq(
        Tex(r"\mathrm{Var}\,Q"),
        Tex(r"\mathbb{E}_y[\mathrm{Var}_x(Q\mid y)] + \mathrm{Var}_y(\mathbb{E}_x[Q\mid y])"),
        evaluate=False,
    ),
    why="the moments are checked against every bijection of g <= 4 slots with every entry its own variable (from g = 4 every pattern of coinciding indices occurs), the x-part and cell_spread against every order and placement of up to 5 items; the whole function on every pair up to 4 items",
)
def prove_tau_ap_variance(
    kernel: Optional[Callable[..., Any]] = None,
    cell: Optional[Callable[..., Any]] = None,
    variance: Optional[Callable[..., Any]] = None,
) -> str:
    kernel = kernel or corr_kernels.permutation_variance
    cell = cell or corr_kernels.cell_spread
    variance = variance or fast_corr.tau_ap_variance
    for g in range(1, 5):
        _qap_check(g, kernel)
    # The x-part: given y's order, an x-group of h items with weights ω_1..ω_h (its items in y's
    # order) varies by Σ_b ω_b²·r(r+2)/12 with r = b − 1, over x's uniform order of the group.
    for h in range(1, 6):
        R, w = _polynomials(*(f"w{b}" for b in range(h)))
        values = [sum((w[b] * sum(1 for a in range(b) if order[a] < order[b]) for b in range(h)), R.zero) for order in itertools.permutations(range(h))]
        claimed = sum((w[b] ** 2 * (b * (b + 2)) for b in range(h)), R.zero) / 12
        _same_polynomial(_variance_of(values), claimed, f"x's variance inside a group of {h}")
    # cell_spread: the mean of Σ ω² r(r+2)/12 over where y puts the m cell-mates among its g slots.
    for g in range(1, 6):
        R, variables = _polynomials("R", *(f"w{s}" for s in range(g)))  # w_s: ω² of slot s
        above, w = variables[0], variables[1:]
        for m in range(1, g + 1):
            placements = list(itertools.combinations(range(g), m))
            derived = sum((w[s] * (above + i) * (above + i + 2) for slots in placements for i, s in enumerate(slots)), R.zero) / (12 * len(placements))
            w0, w1, w2 = sum(w, R.zero), sum((s * w[s] for s in range(g)), R.zero), sum((s * (s - 1) * w[s] for s in range(g)), R.zero)
            _same_polynomial(derived, cell(above, m, g, w0, w1, w2), f"cell_spread, {m} of {g} slots")
    detail = _whole(lambda x, y: (_variance(distribution(x, y, "tau_ap")), variance(list(x), list(y))), "fast.tau_ap_variance")
    return f"permutation moments for 1..4 slots, x-part for 1..5 items, cell_spread for g <= 5; {detail}"


# -- the extremes ----------------------------------------------------------------------------------


@theorem(
    "τ, τ_AP extremes",
    f"Swapping an adjacent pair into the other ranking's order never lowers Σ ω·concordance (general); the range functions whole for n <= {CORR_ITEMS}.",
    GENERAL,
    lambda: Eq(Tex(r"\Delta"), corr_kernels.exchange_gain(Symbol("k"), Symbol("L"), sympy.Integer(1)), evaluate=False),
)
def prove_extremes(
    gain: Optional[Callable[..., Any]] = None,
    tau_range: Optional[Callable[..., Any]] = None,
    tau_ap_range: Optional[Callable[..., Any]] = None,
) -> str:
    gain = gain or corr_kernels.exchange_gain
    tau_range = tau_range or fast_corr.kendall_tau_range
    tau_ap_range = tau_ap_range or fast_corr.tau_ap_range
    # u above v in the other ranking, adjacent at ranks k, k+1 of a group of y; c_u, c_v the
    # concordant items above each (earlier groups and this one's first k − 1 slots).
    k = Symbol("k", integer=True)
    cu, cv = sympy.symbols("c_u c_v", **_nonneg)
    w = lambda j: 1 / (j - 1)  # noqa: E731  (k >= 2; k = 1 below)
    before = w(k) * cv + w(k + 1) * cu  # v at k, u at k+1: v is not concordant above u
    after = w(k) * cu + w(k + 1) * (cv + 1)  # u at k, v at k+1: u counts for v
    derived = sympy.simplify(after - before)
    same(derived, gain(k, cv - cu, sympy.Integer(1)), "the gain of the swap")
    # c_v − c_u <= k − 1 (at most k − 1 items are above rank k): write it k − 1 − d, d >= 0.
    d = Symbol("d", **_nonneg)
    kk = Symbol("kk", **_pos)  # k = kk + 1 >= 2
    lowest = sympy.factor(gain(kk + 1, kk - d, sympy.Integer(1)))
    if not lowest.is_nonnegative:
        raise ProofFailure(f"the gain at lead k − 1 − d is {lowest}, not shown >= 0")
    if gain(1, 0, Fraction(1)) != 1:  # ranks 1, 2: u above v gains the pair's concordance at rank 2
        raise ProofFailure(f"the gain at ranks 1, 2 is {gain(1, 0, Fraction(1))}, not 1")
    # The range functions, whole: the values, and orderings attaining them.
    for name, function, statistic in (("kendall_tau_range", tau_range, "tau"), ("tau_ap_range", tau_ap_range, "tau_ap")):
        evaluate = tau_of if statistic == "tau" else tau_ap_of
        for x, y in _pairs():
            values = distribution(x, y, statistic)
            got = function(list(x), list(y))
            if (got.min, got.max) != (min(values), max(values)):
                raise ProofFailure(f"{name} of x={list(x)}, y={list(y)}: derived {(min(values), max(values))}, fast gives {got[:2]}")
            if (evaluate(*got.min_orderings), evaluate(*got.max_orderings)) != (got.min, got.max):
                raise ProofFailure(f"{name} of x={list(x)}, y={list(y)}: its orderings do not attain its values")
    return f"the swap's gain is d·(ω_k − ω_k+1) >= 0 for symbolic k, d; both range functions on every pair up to {CORR_ITEMS} items"
