"""tieaware: exact tie-aware information-retrieval measures.

The layers are subpackages, each in its own top-level folder of the repository:

- :mod:`tieaware.reference` enumerates every ordering consistent with the ties
  and averages the ordinary measure exactly.  Slow on purpose, obviously right.
- :mod:`tieaware.fast` computes the same numbers through closed forms.
- :mod:`tieaware.proofs` derives, with sympy, that the closed forms equal the
  expectations.

This top-level package holds what both layers share: the input model
(:mod:`tieaware.ranking`), exact number handling (:mod:`tieaware.exact`),
file formats, measure names and the command line.

>>> from tieaware import fast, from_scores
>>> fast.precision(from_scores([3, 2, 2, 1], [1, 0, 1, 1]), 2)
Fraction(3, 4)
"""

from tieaware.errors import TieawareError
from tieaware.exact import to_decimal, to_exact_string, to_float
from tieaware.ranking import from_scores, groups

__all__ = [
    "TieawareError",
    "from_scores",
    "groups",
    "to_float",
    "to_decimal",
    "to_exact_string",
    "__version__",
    "calc_aggregate",
    "iter_calc",
    "evaluator",
    "Metric",
]

__version__ = "0.1.0"

#: Exported lazily from tieaware.compat (ir_measures' calling convention).
_COMPAT = ("calc_aggregate", "iter_calc", "evaluator", "Metric")


def __getattr__(name: str):
    # `tieaware.fast` etc. work after a bare `import tieaware`, without paying
    # for sympy-heavy imports until a layer is used.
    if name in ("reference", "fast", "proofs"):
        import importlib

        return importlib.import_module(f"tieaware.{name}")
    if name in _COMPAT:
        # ir_measures-style calls (tieaware.calc_aggregate(measures, qrels, run)), imported on first use.
        from tieaware import compat

        return getattr(compat, name)
    raise AttributeError(f"module 'tieaware' has no attribute {name!r}")
