"""How precise an implementation's results are, measured on untied inputs: exact, float64, float32 or rounded.

The measure is taken from *what the results look like*, not from how far they
are from the truth, so it holds even when the implementation computes
another convention.  Each float answer is evidence of one kind:

- **float64**: a long shortest repr (more than 10 decimals) of a number
  float32 cannot hold (``0.3333333333333333``);
- **float32**: a float32 number with a long repr (``0.3333333432674408``, or
  ``0.20000000298023224`` for 1/5): what a ``torch.float32`` or numpy
  float32 result reads as in Python;
- **rounded to d decimals**: at most 10 decimals, and no small fraction
  (``0.3333``, ``0.5833``: denominators 10**d, not 3 or 12), as RecBole's 4
  and gdeval's 5 decimals give.

Short values (0.5, 0.2, 0.75) are evidence of nothing.  Any float64
evidence decides float64; else float32 or d decimals when at least two
answers say so and none says otherwise.  The checker then judges every
answer at that precision (float32: relative 1e-5 and absolute 1e-6; d
decimals: absolute 10**-d, which covers rounding and truncation) and says
so, so a float32 result is never called wrong for its last digits.

>>> from tieaware.check.oracle import Oracle
>>> from tieaware.check.verdict import Judge
>>> from tieaware import compute
>>> from tieaware.model.ranking import from_scores
>>> ap = lambda s, l: round(float(compute("AP", from_scores(s, l))), 4)
>>> str(measure(Judge(ap, Oracle("AP"), rel_tol=1e-9, abs_tol=0.0), probe_cases((0, 1, 2), max_size=4)))
'rounded to 4 decimals'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.check.cases import Case, exhaustive, float32, untied
from tieaware.check.compare import is_exact_number
from tieaware.check.result import Precision

__all__ = ["measure", "probe_cases", "evidence", "FLOAT32_REL_TOL", "FLOAT32_ABS_TOL", "MAX_DECIMALS", "PROBES", "NEEDED"]

#: A float32 result is judged within these (about 80 float32 ulps: sums over a few dozen documents).
FLOAT32_REL_TOL = 1e-5
FLOAT32_ABS_TOL = 1e-6
#: Results with at most this many decimals are taken as rounded (a float64 result has about 17).
MAX_DECIMALS = 10
#: At most this many inputs are used, and at least NEEDED answers must say float32 or rounded.
PROBES = 80
NEEDED = 2
#: A value with few decimals is evidence of rounding only when it is no fraction with a denominator up to this.
SMALL_DENOMINATOR = 1000


def probe_cases(labels: Sequence[Any], admits: Optional[Callable[[Case], bool]] = None, max_size: int = 4) -> list[Case]:
    """Untied inputs of 2 to *max_size* documents over *labels* (inside the domain), smallest first:
    the exhaustive phase's own, so measuring costs no extra call."""
    return [c for c in exhaustive(max_size, labels, 2) if untied(c) and (admits is None or admits(c))][:PROBES]


def evidence(x: Any) -> Optional[str]:
    """What one answer says about the precision: "float64", "float32", "decimals:d", or None (nothing).

    >>> evidence(1 / 3), evidence(float(struct_f32(1 / 3))), evidence(0.3333), evidence(0.5)
    ('float64', 'float32', 'decimals:4', None)
    """
    if not isinstance(x, float) or x != x or abs(x) == float("inf"):
        return None
    digits = _decimals(x)
    if digits <= MAX_DECIMALS:
        f = Fraction(repr(x))
        return f"decimals:{digits}" if f.denominator > SMALL_DENOMINATOR else None
    return "float32" if float32(x) == x else "float64"


def struct_f32(x: float) -> float:
    """*x* rounded to float32 (for the doctest)."""
    return float32(x)


def _decimals(x: float) -> int:
    """Digits after the point in the shortest repr of *x* (99 when it does not terminate).

    >>> _decimals(0.3333), _decimals(1 / 3), _decimals(0.5)
    (4, 16, 1)
    """
    den, twos, fives = Fraction(repr(x)).denominator, 0, 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives) if den == 1 else 99


def measure(judge: Any, cases: Sequence[Case], rel_tol: Optional[float] = None, abs_tol: Optional[float] = None) -> Precision:
    """The precision of *judge*'s implementation on *cases* (untied), with the tolerance to judge it at.

    *rel_tol*/*abs_tol* default to the judge's; a measured precision only loosens them.
    """
    rel = float(judge.rel_tol) if rel_tol is None else rel_tol
    ab = float(judge.abs_tol) if abs_tol is None else abs_tol
    answers = []
    for case in cases:
        got, exception = judge.run(case)
        if exception is None and got is not None:
            answers.append(got)
    if answers and all(is_exact_number(x) for x in answers):
        return Precision("exact", None, rel, ab)
    kinds = [e for e in map(evidence, answers) if e is not None]
    if not kinds or "float64" in kinds:
        return Precision("float64", None, rel, ab)
    if all(k == "float32" for k in kinds) and len(kinds) >= NEEDED:
        return Precision("float32", None, max(rel, FLOAT32_REL_TOL), max(ab, FLOAT32_ABS_TOL))
    if all(k.startswith("decimals:") for k in kinds) and len(kinds) >= NEEDED:
        digits = max(int(k.split(":")[1]) for k in kinds)
        return Precision("decimals", digits, rel, max(ab, 10.0**-digits))
    return Precision("float64", None, rel, ab)
