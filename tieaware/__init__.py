"""tieaware: exact tie-aware information-retrieval measures.

One import gives the whole-run entry points and the number helpers::

    import tieaware
    ev = tieaware.evaluate(qrels, run, "AP nDCG@10")      # per-query values and exact means

The layers are subpackages, each in its own top-level folder of the repository:

- :mod:`tieaware.reference` enumerates every ordering consistent with the ties
  and averages the ordinary measure exactly.  Slow on purpose, obviously right.
- :mod:`tieaware.fast` computes the same numbers through closed forms.
- :mod:`tieaware.proofs` derives, with sympy, that the closed forms equal the
  expectations.

The rest of this package is laid out as the data flows (README, "The house"):
:mod:`tieaware.model` (the tied ranking, exact numbers, names),
:mod:`tieaware.io` (readers and writers), :mod:`tieaware.runs` (whole runs,
evaluated through fast's kernels), then the applications
(:mod:`tieaware.check`, :mod:`tieaware.analysis`, :mod:`tieaware.vectors`),
:mod:`tieaware.testing` with its public face :mod:`tieaware.strategies`, and
the command line (:mod:`tieaware.commands`).

>>> from tieaware import fast, from_scores
>>> fast.precision(from_scores([3, 2, 2, 1], [1, 0, 1, 1]), 2)
Fraction(3, 4)
>>> import tieaware
>>> ev = tieaware.evaluate({"q1": {"a": 1}}, {"q1": {"a": 2.0, "b": 2.0}}, "P@1")   # a and b tie
>>> ev.mean["P@1"]
Fraction(1, 2)
"""

from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_decimal, to_exact_string, to_float
from tieaware.model.ranking import from_scores, groups

__version__ = "0.1.0"

#: Public names imported on first use (so that `tieaware --version` and a bare
#: `import tieaware` do not pay for numpy, sympy or the engines).
_LAZY = {
    "evaluate": "tieaware.runs.stream",  # tieaware.runs.evaluate.evaluate, with jobs=
    "evaluate_matrix": "tieaware.runs.matrix",
    "Evaluation": "tieaware.runs.evaluate",
    "compute": "tieaware.runs.evaluate",
    "compare_runs": "tieaware.runs.comparison",
    "Comparison": "tieaware.runs.comparison",
    "evaluate_spread": "tieaware.runs.comparison",
    "compare_systems": "tieaware.runs.leaderboard",
    "SystemsComparison": "tieaware.runs.leaderboard",
    "Spread": "tieaware.runs.comparison",
    "read_qrels": "tieaware.io.trec",
    "read_run": "tieaware.io.trec",
    "calc_aggregate": "tieaware.runs.compat",
    "iter_calc": "tieaware.runs.compat",
    "evaluator": "tieaware.runs.compat",
    "Metric": "tieaware.runs.compat",
    "rbo_ranking": "tieaware.model.rbo_input",
    "ties": "tieaware.runs.ties",
    "TieReport": "tieaware.runs.ties",
    "sampled_metrics": "tieaware.runs.sampled",
    "SampledEvaluation": "tieaware.runs.sampled",
}
#: Public names that are another module's function under a clearer top-level name.
_RENAMED = {"rbo_ranking": "from_string"}
_LAYERS = ("reference", "fast", "proofs", "strategies", "check", "vectors", "dask", "metrics")

__all__ = [
    "TieawareError",
    "from_scores",
    "groups",
    "to_float",
    "to_decimal",
    "to_exact_string",
    "__version__",
    *_LAZY,
]


def __getattr__(name: str):
    import importlib

    if name in _LAYERS:
        # `tieaware.fast` etc. work after a bare `import tieaware`, without paying
        # for sympy-heavy imports until a layer is used.
        return importlib.import_module(f"tieaware.{name}")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), _RENAMED.get(name, name))
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module 'tieaware' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_LAYERS))
