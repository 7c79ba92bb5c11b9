"""The exact arithmetic under the kernels: harmonic spans, power sums and formal discount spans.

The kernels are proved over the symbolic arithmetic (sympy's harmonic numbers,
powers, Sums of an undefined discount).  Exact mode evaluates the same
kernels over :data:`tieaware.fast.arith.EXACT`, whose primitives compute
those quantities another way, for speed: harmonic spans by binary splitting
on integers, Σ c_j·p**j in integers stepped from one power to the next, and
discount spans kept formal and applied once per query.  This theorem checks
that each primitive returns exactly its definition, on every case up to a
bound: a primitive is a loop over integers, not a formula with symbolic
sizes, so its cases are numbers (the bound covers several levels of the
binary splitting, whose base case is 16 ranks).

>>> prove_exact_arithmetic().proved
True
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Optional

import sympy
from sympy import Eq, Sum, Symbol

from tieaware.fast import arith
from tieaware.proofs.theorem import ProofFailure, Tex, bounded, theorem

__all__ = ["HARMONIC_TOP", "POWER_TOP", "POWER_BASES", "prove_exact_arithmetic"]

#: Exact harmonic spans are checked for every 0 <= lo <= hi <= this.
HARMONIC_TOP = 80
#: Exact power sums are checked for every set of exponents in 0..this ...
POWER_TOP = 7
#: ... and each of these p.
POWER_BASES = (Fraction(1, 2), Fraction(4, 5), Fraction(9, 10), Fraction(2, 3), Fraction(3, 7), Fraction(1))

_j, _lo, _hi = sympy.symbols("j lo hi", integer=True, nonnegative=True)


@theorem(
    "exact arithmetic",
    f"EXACT.harmonic(lo, hi) = Σ_(j=lo+1..hi) 1/j (hi <= {HARMONIC_TOP}); Σ c_j·p^j in integers = its definition "
    f"(exponents <= {POWER_TOP}, p in {', '.join(map(str, POWER_BASES))}); formal discount spans = Σ_j c_j·D(j).",
    bounded(f"hi<={HARMONIC_TOP}; exponents<={POWER_TOP}, {len(POWER_BASES)} values of p; spans<=8"),
    lambda: Eq(Tex(r"\mathrm{EXACT.harmonic}(lo, hi)"), Sum(1 / _j, (_j, _lo + 1, _hi)), evaluate=False),
    why='These primitives are loops over integers (binary splitting, integer power sums), not formulas in symbolic sizes, so their cases are numbers; hi <= 80 spans several levels of the splitting (its base case is 16 ranks).',
)
def prove_exact_arithmetic(exact: Optional[Any] = None) -> str:
    A = exact or arith.EXACT
    # 1. Harmonic spans, against the definition summed term by term.
    prefix = [Fraction(0)]
    for j in range(1, HARMONIC_TOP + 1):
        prefix.append(prefix[-1] + Fraction(1, j))
    for lo in range(HARMONIC_TOP + 1):
        for hi in range(lo, HARMONIC_TOP + 1):
            got = A.harmonic(lo, hi)
            if got != prefix[hi] - prefix[lo]:
                raise ProofFailure(f"EXACT.harmonic({lo}, {hi}) = {got}, not {prefix[hi] - prefix[lo]}")
    # 2. Power sums Σ c_j·p^j (RBP's formal powers), every set of exponents, coefficients of both signs.
    sums = 0
    for p in POWER_BASES:
        for size in range(1, POWER_TOP + 2):
            for exponents in itertools.combinations(range(POWER_TOP + 1), size):
                coefficients = {e: Fraction((-1) ** e * (e + 1), e + 2) for e in exponents}
                formal = sum((c * A.power(p, e) for e, c in coefficients.items()), Fraction(0))
                want = sum((c * p**e for e, c in coefficients.items()), Fraction(0))
                if A.value(formal) != want:
                    raise ProofFailure(f"Σ c_j·p^j with p = {p}, exponents {exponents}: {A.value(formal)}, not {want}")
                sums += 1
    # 3. Formal discount spans: Σ_i c_i·Σ_{j=lo_i+1..hi_i} D(j) with a rational D, overlapping spans.
    discount = lambda j: Fraction(1, j * j + 1)  # noqa: E731  any exact discount
    spans = [(lo, hi) for lo in range(8) for hi in range(lo, 9)]
    for (a, b), (c, d) in itertools.combinations(spans, 2):
        formal = Fraction(3, 2) * A.discount_span(a, b, discount) - Fraction(1, 3) * A.discount_span(c, d, discount)
        want = Fraction(3, 2) * sum((discount(j) for j in range(a + 1, b + 1)), Fraction(0)) - Fraction(1, 3) * sum(
            (discount(j) for j in range(c + 1, d + 1)), Fraction(0)
        )
        if A.value(formal) != want:
            raise ProofFailure(f"the formal spans ({a}, {b}) and ({c}, {d}) resolve to {A.value(formal)}, not {want}")
    ratios = [(Fraction(1), 0, 0), (Fraction(1), Fraction(2), Fraction(1, 2)), (3, 4, Fraction(3, 4)), (0, 0, 0), (Fraction(-5, 3), 7, Fraction(-5, 21))]
    for num, den, want in ratios:
        got = A.ratio(num, den)
        if got != want or not isinstance(got, Fraction):
            raise ProofFailure(f"EXACT.ratio({num!r}, {den!r}) = {got!r}, not the Fraction {want} (num/den, 0 for a zero denominator)")
    return f"{len(prefix) * (len(prefix) + 1) // 2} harmonic spans; {sums} power sums; {len(spans) * (len(spans) - 1) // 2} pairs of formal spans; the safe ratio"
