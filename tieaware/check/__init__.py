"""Check other people's code and formulas against the exact tie-aware reference.

- :func:`formula`: is a candidate closed form the expectation, under random
  tie-breaking, of a per-ordering metric?  Exact comparison; the smallest
  counterexample when it is not.
- :func:`implementation`: does ``impl(scores, labels)`` compute the
  tie-aware value of an ir_measures-style measure?  Counterexample, error,
  digits of accuracy and a diagnosis of the usual causes.
- :mod:`tieaware.check.adapters`: wrap code with other signatures
  (qrels/run dicts, a command line) as ``impl(scores, labels)``.

Every verdict is deterministic: hypothesis runs derandomized, with its
settings fixed inside the checker.

>>> from fractions import Fraction
>>> formula(lambda o: Fraction(len(o)), lambda gs: Fraction(sum(map(len, gs))), max_examples=10).ok
True
"""

from tieaware.check import adapters
from tieaware.check.diagnose import Diagnosis
from tieaware.check.formula import FormulaCounterexample, FormulaResult, expectation, formula
from tieaware.check.implementation import ImplementationResult, implementation
from tieaware.check.verdict import Counterexample

__all__ = [
    "formula",
    "implementation",
    "expectation",
    "FormulaResult",
    "FormulaCounterexample",
    "ImplementationResult",
    "Counterexample",
    "Diagnosis",
    "adapters",
]
