"""How fast is RBO with ties?

Four measurements, each taken in one run of this module:

1. **fast, exact and float**, on two tied rankings of 1,000 and 10,000
   items drawn from a shared pool (about 30% of adjacent items tied), for
   each variant and for the average over tie-breakings (``rbo_expected``).
   Exact RBO^b at 10,000 items returns a sum of thousands of distinct square
   roots with 30,000-digit coefficients; it is timed at 1,000 items only.
2. **fast vs reference** on small tied rankings, the ratio of their times.
3. **exact mode's growth with depth**: exact RBO^a at doubling lengths.
   The exact value has denominators that grow like (1/p)^l, so the cost
   grows faster than linearly; float mode stays linear.
4. **one exact bound**: ``rbo(..., bound="ext")`` for w, a and b at 10,000
   items, heavy ties and none; only EXT's sums are built.

The official implementation (julian-urbano/sigir2024-rbo) is not run here:
its code is not part of this project.  docs/rbo.md records its time at
1,000 items, measured by hand on the same machine.

>>> tied_pair(20, random.Random(1))[0][:3]
['i4', ('i18', 'i27'), 'i25']

Beware: timings are of this machine at this moment; the ratios, measured
side by side in one run, are what travel.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from typing import Any

from tabulate import tabulate

from tieaware.fast.rank_biased_overlap import rbo, rbo_bounds, rbo_expected_bounds
from tieaware.reference.rank_biased_overlap import rbo_bounds as reference_bounds

__all__ = ["run", "tied_pair", "best_time"]


def tied_pair(n: int, rng: random.Random, tie_rate: float = 0.3) -> tuple[list[Any], list[Any]]:
    """Two rankings of n items each from a pool of 1.5·n, with ~tie_rate of neighbours tied.

    >>> S, L = tied_pair(10, random.Random(0))
    >>> sum(len(g) if isinstance(g, tuple) else 1 for g in S)
    10
    """
    pool = [f"i{k}" for k in range(n + n // 2)]

    def one() -> list[Any]:
        items, ranking, i = rng.sample(pool, n), [], 0
        while i < n:
            size = 1
            while i + size < n and rng.random() < tie_rate:
                size += 1
            group = items[i : i + size]
            ranking.append(group[0] if size == 1 else tuple(group))
            i += size
        return ranking

    return one(), one()


def best_time(call: Callable[[], Any], repeat: int = 3) -> float:
    """The best wall time of *repeat* calls, in seconds.

    >>> best_time(lambda: None, 1) >= 0
    True
    """
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def _sizes_table(quick: bool) -> str:
    rows = []
    sizes = (1_000,) if quick else (1_000, 10_000)
    for n in sizes:
        S, L = tied_pair(n, random.Random(n))
        repeat = 1 if n > 1_000 or quick else 3
        for name, call in (
            ("w", lambda e: rbo_bounds(S, L, "0.9", variant="w", exact=e)),
            ("a", lambda e: rbo_bounds(S, L, "0.9", variant="a", exact=e)),
            ("b", lambda e: rbo_bounds(S, L, "0.9", variant="b", exact=e)),
            ("expected", lambda e: rbo_expected_bounds(S, L, "0.9", exact=e)),
        ):
            floats = best_time(lambda: call(False), repeat)
            exact = "(skipped)" if name == "b" and n > 1_000 else _ms(best_time(lambda: call(True), repeat))
            rows.append([f"{n:,}", name, _ms(floats), exact])
    headers = ["items per ranking", "variant", "float ms", "exact ms"]
    return "1. fast RBO, all four bounds in one pass, p = 0.9\n" + tabulate(rows, headers, disable_numparse=True)


def _reference_table(quick: bool) -> str:
    rows = []
    for n in (4, 6) if quick else (4, 6, 7):
        # Heavy ties, so that the reference has orderings to enumerate.
        S, L = tied_pair(n, random.Random(100 + n), tie_rate=0.6)
        for variant in ("w", "a", "b"):
            reference = best_time(lambda: _cold_reference(S, L, variant), 3)
            fast = best_time(lambda: rbo_bounds(S, L, "0.9", variant=variant), 3)
            rows.append([n, variant, _ms(reference), _ms(fast), f"{reference / fast:,.0f}x"])
    headers = ["items", "variant", "reference ms", "fast ms", "ratio"]
    rows.append(["", "", "", "", "(w needs no enumeration)"])
    return "2. fast vs reference (exact), small tied rankings\n" + tabulate(rows, headers, disable_numparse=True)


def _cold_reference(S: Any, L: Any, variant: str) -> Any:
    # The reference caches enumerations between calls; time it without them.
    module = importlib.import_module("tieaware.reference.rank_biased_overlap")  # the module, not the function

    module._overlap_profiles.cache_clear()
    module._group_orderings.cache_clear()
    return reference_bounds(S, L, "0.9", variant=variant)


def _growth_table(quick: bool) -> str:
    rows = []
    previous = None
    for n in (250, 500, 1_000) if quick else (500, 1_000, 2_000, 4_000, 8_000, 16_000):
        S, L = tied_pair(n, random.Random(7 * n))
        exact = best_time(lambda: rbo_bounds(S, L, "0.9", variant="a"), 1)
        floats = best_time(lambda: rbo_bounds(S, L, "0.9", variant="a", exact=False), 1)
        growth = "" if previous is None else f"{exact / previous:.1f}x"
        rows.append([f"{n:,}", _ms(exact), growth, _ms(floats)])
        previous = exact
    headers = ["items", "exact RBO^a ms", "vs half the items", "float ms"]
    return "3. exact mode's growth with depth (RBO^a, p = 0.9)\n" + tabulate(rows, headers, disable_numparse=True)


def _one_bound_table(quick: bool) -> str:
    """Exact EXT alone (the other bounds are not built), w/a/b, heavy ties and none."""
    n = 1_000 if quick else 10_000
    rows = []
    for ties, rate in (("heavy (~30% of neighbours)", 0.3), ("none", 0.0)):
        S, L = tied_pair(n, random.Random(3 * n), tie_rate=rate)
        for variant in ("w", "a", "b"):
            # The first call also factors every radicand (cached for the process).
            first = best_time(lambda: rbo(S, L, "0.9", variant=variant, bound="ext"), 1)
            seconds = best_time(lambda: rbo(S, L, "0.9", variant=variant, bound="ext"), 1 if quick else 3)
            floats = best_time(lambda: rbo(S, L, "0.9", variant=variant, bound="ext", exact=False), 1)
            rows.append([f"{n:,}", ties, variant, _ms(first), _ms(seconds), _ms(floats)])
    headers = ["items", "ties", "variant", "exact EXT ms, first call", "exact EXT ms, best of 3", "float EXT ms"]
    title = "4. one bound, exact: rbo(..., bound='ext') builds only EXT (target: RBO^b under 3 s at 10^4 items)"
    return title + "\n" + tabulate(rows, headers, disable_numparse=True)


def run(quick: bool = False) -> str:
    """The printable report: the four tables above.

    >>> "fast vs reference" in run(quick=True)
    True
    """
    return "\n\n".join([_sizes_table(quick), _reference_table(quick), _growth_table(quick), _one_bound_table(quick)])
