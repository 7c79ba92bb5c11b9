"""How fast are Kendall's τ and τ_AP with ties?

Four measurements, each taken in one run of this module:

1. **fast at scale**: two rankings of the same 10,000 items with heavy ties
   (about 30% and about 90% of neighbours tied), every function, float and
   exact.  Target: E[τ] within 1 s in float mode.
2. **the extremes** (``kendall_tau_range``, ``tau_ap_range``) at 1,000 and
   10,000 items.  Target: within 1 s at 1,000 items.
3. **fast vs reference** on small tied pairs: the reference enumerates every
   pair of tie-breakings.
4. **fast vs the definitions' O(n²)** at 2,000 items: the reference's
   pair-by-pair τ_b and τ_AP,b, and scipy's ``kendalltau`` (O(n log n),
   floats) when scipy is installed.

>>> x, y = corr_pair(6, random.Random(1))
>>> sorted(e for g in x for e in (g if isinstance(g, tuple) else (g,))) == sorted(e for g in y for e in (g if isinstance(g, tuple) else (g,)))
True

Beware: timings are of this machine at this moment; the ratios, measured
side by side in one run, are what travel.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from tabulate import tabulate

from tieaware.benchmarks.rbo import best_time
from tieaware.fast import correlation as fast
from tieaware.reference import correlation as reference

__all__ = ["run", "corr_pair"]


def corr_pair(n: int, rng: random.Random, tie_rate: float = 0.3) -> tuple[list[Any], list[Any]]:
    """Two rankings of the same n items, each shuffled and cut into groups (~tie_rate of neighbours tied)."""
    items = [f"i{k}" for k in range(n)]

    def one() -> list[Any]:
        order = rng.sample(items, n)
        ranking, i = [], 0
        while i < n:
            size = 1
            while i + size < n and rng.random() < tie_rate:
                size += 1
            group = order[i : i + size]
            ranking.append(group[0] if size == 1 else tuple(group))
            i += size
        return ranking

    return one(), one()


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


_FUNCTIONS = [
    ("kendall_tau b", lambda x, y, e: fast.kendall_tau(x, y, "b", exact=e)),
    ("kendall_tau_expected (= τ_a)", lambda x, y, e: fast.kendall_tau_expected(x, y, exact=e)),
    ("kendall_tau_variance", lambda x, y, e: fast.kendall_tau_variance(x, y, exact=e)),
    ("tau_ap b", lambda x, y, e: fast.tau_ap(x, y, "b", exact=e)),
    ("tau_ap_expected", lambda x, y, e: fast.tau_ap_expected(x, y, exact=e)),
    ("tau_ap_variance", lambda x, y, e: fast.tau_ap_variance(x, y, exact=e)),
]


def _scale_table(quick: bool) -> str:
    n = 1_000 if quick else 10_000
    rows = []
    for label, rate in (("~30%", 0.3), ("~90%", 0.9)):
        x, y = corr_pair(n, random.Random(n), rate)
        groups = len(x), len(y)
        for name, call in _FUNCTIONS:
            floats = best_time(lambda: call(x, y, False), 1 if quick else 3)
            exact = best_time(lambda: call(x, y, True), 1)
            rows.append([f"{n:,}", f"{label} ({groups[0]:,}/{groups[1]:,} groups)", name, _ms(floats), _ms(exact)])
    title = f"1. fast at scale: {n:,} items, two tied rankings (target: E[τ] under 1 s in float mode)"
    return title + "\n" + tabulate(rows, ["items", "ties (groups in x/y)", "function", "float ms", "exact ms"], disable_numparse=True)


def _extremes_table(quick: bool) -> str:
    rows = []
    for n in (1_000,) if quick else (1_000, 10_000):
        x, y = corr_pair(n, random.Random(7 * n), 0.3)
        for name in ("kendall_tau_range", "tau_ap_range"):
            function = getattr(fast, name)
            floats = best_time(lambda: function(x, y, exact=False), 1 if quick else 3)
            exact = best_time(lambda: function(x, y), 1 if quick else 3)
            rows.append([f"{n:,}", name, _ms(floats), _ms(exact)])
    title = "2. the extremes (min, max and the orderings attaining them), ~30% of neighbours tied (target: under 1 s at 1,000 items)"
    return title + "\n" + tabulate(rows, ["items", "function", "float ms", "exact ms"], disable_numparse=True)


def _cold(function: Any, x: Any, y: Any) -> Any:
    module = importlib.import_module("tieaware.reference.correlation")
    module._enumerated.cache_clear()
    return function(x, y)


def _reference_table(quick: bool) -> str:
    rows = []
    for n in (4, 5) if quick else (4, 5, 6):
        x, y = corr_pair(n, random.Random(100 + n), 0.6)
        for name in ("kendall_tau_expected", "tau_ap_expected", "tau_ap_variance", "tau_ap_range"):
            slow = best_time(lambda: _cold(getattr(reference, name), x, y), 3)
            quick_ = best_time(lambda: getattr(fast, name)(x, y), 3)
            rows.append([n, name, _ms(slow), _ms(quick_), f"{slow / quick_:,.0f}x"])
    return "3. fast vs reference (exact, heavily tied pairs)\n" + tabulate(
        rows, ["items", "function", "reference ms", "fast ms", "ratio"], disable_numparse=True
    )


def _quadratic_table(quick: bool) -> str:
    n = 500 if quick else 2_000
    x, y = corr_pair(n, random.Random(11 * n), 0.3)
    rows = []
    for name, slow, quick_ in (
        ("τ_b", lambda: reference.kendall_tau(x, y, "b", exact=False), lambda: fast.kendall_tau(x, y, "b", exact=False)),
        ("τ_AP,b", lambda: reference.tau_ap(x, y, "b", exact=False), lambda: fast.tau_ap(x, y, "b", exact=False)),
    ):
        s, q = best_time(slow, 1), best_time(quick_, 3)
        rows.append([f"{n:,}", name, "reference (pair by pair, O(n²))", _ms(s), _ms(q), f"{s / q:,.0f}x"])
    try:
        from scipy import stats

        index_x = {e: -i for i, g in enumerate(x) for e in (g if isinstance(g, tuple) else (g,))}
        index_y = {e: -i for i, g in enumerate(y) for e in (g if isinstance(g, tuple) else (g,))}
        items = sorted(index_x)
        a, b = [index_x[e] for e in items], [index_y[e] for e in items]
        s = best_time(lambda: stats.kendalltau(a, b), 3)
        q = best_time(lambda: fast.kendall_tau(x, y, "b", exact=False), 3)
        rows.append([f"{n:,}", "τ_b", "scipy.stats.kendalltau (floats, C)", _ms(s), _ms(q), f"{s / q:,.2f}x (scipy {q / s:,.0f}x faster)"])
    except ImportError:
        rows.append([f"{n:,}", "τ_b", "scipy not installed", "", "", ""])
    return "4. fast (float) vs O(n²) definitions and scipy\n" + tabulate(
        rows, ["items", "coefficient", "other", "other ms", "fast ms", "other / fast"], disable_numparse=True
    )


def run(quick: bool = False) -> str:
    """The printable report: the four tables above.

    >>> "the extremes" in run(quick=True)
    True
    """
    return "\n\n".join([_scale_table(quick), _extremes_table(quick), _reference_table(quick), _quadratic_table(quick)])
