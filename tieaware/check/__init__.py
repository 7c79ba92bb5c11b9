"""Check other people's code and formulas against the exact tie-aware reference.

- :func:`formula`: is a candidate closed form the expectation, under random
  tie-breaking, of a per-ordering metric?  Exact comparison; the smallest
  counterexample when it is not.
- :func:`implementation`: does ``impl(scores, labels)`` compute the
  tie-aware value of an ir_measures-style measure?  A profile: the precision
  of its results, the convention it computes (``AP(norm=capped)@5``), its tie
  rule, and every class of failure with its smallest counterexample, error,
  digits of accuracy and diagnosis.
- :func:`spread`: the same for code that computes the worst, best, variance
  or distribution of a measure over tie-breakings.
- :mod:`tieaware.check.adapters`: wrap code with other signatures
  (qrels/run dicts, arrays, tensors, DataFrames, csr matrices, ranked id
  lists, a command line) as ``impl(scores, labels)``.

Every verdict is deterministic: hypothesis runs derandomized, with its
settings fixed inside the checker.

>>> from fractions import Fraction
>>> formula(lambda o: Fraction(len(o)), lambda gs: Fraction(sum(map(len, gs))), max_examples=10).ok
True
"""

try:
    import hypothesis  # noqa: F401  (the search runs on hypothesis: an extra, not a dependency)
except ModuleNotFoundError:  # pragma: no cover - exercised in a subprocess by tests/test_packaging.py
    raise ModuleNotFoundError(
        "tieaware.check needs hypothesis, which is not installed: pip install 'tieaware[check]'", name="hypothesis"
    ) from None

from tieaware.check import adapters
from tieaware.check.diagnose import Diagnosis
from tieaware.check.formula import FormulaCounterexample, FormulaResult, expectation, formula
from tieaware.check.domain import Domain
from tieaware.check.implementation import implementation
from tieaware.check.result import Finding, ImplementationResult, Precision
from tieaware.check.spread_check import spread
from tieaware.check.verdict import Counterexample

__all__ = [
    "formula",
    "implementation",
    "spread",
    "expectation",
    "FormulaResult",
    "FormulaCounterexample",
    "ImplementationResult",
    "Finding",
    "Precision",
    "Domain",
    "Counterexample",
    "Diagnosis",
    "adapters",
]
