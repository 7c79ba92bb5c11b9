"""The fast layer: tie-aware measures through closed forms.

Same names and signatures as :mod:`tieaware.reference`, same exact numbers,
in O(n) per ranking.  Pass ``exact=False`` for float arithmetic on big
inputs.  It imports nothing from :mod:`tieaware.reference`.

RBO: ``rbo``/``rbo_bounds`` implement Corsi & Urbano's closed forms (what the
official implementation prints); ``rbo_expected``/``rbo_expected_bounds`` are
the O(l) closed form of the exact average over tie-breakings, which is what
``tieaware.reference.rbo(variant="a")`` enumerates.  The two differ for the
a-variant's MAX, EXT and RES; see docs/rbo.md.

>>> from tieaware import fast
>>> fast.average_precision([[1, 0], 1])    # mean of 5/6 (1 0 1) and 7/12 (0 1 1)
Fraction(17, 24)
"""

import importlib
from typing import Any

# rbp and err are imported now: their modules share their names, and a later import of the module
# would otherwise leave the module, not the function, as tieaware.fast.rbp.  They load no sympy.
from tieaware.fast.rbp import rbp, rbp_residual
from tieaware.fast.err import err

# The rest load when first used: the float engine imports tieaware.fast.kernels, and importing this
# package must not pull in sympy (measures, rbo and uncertainty do) for a float evaluation.
_LAZY = {
    **dict.fromkeys(("average_precision", "dcg", "f1", "ndcg", "precision", "recall", "reciprocal_rank"), "measures"),
    **dict.fromkeys(("rbo", "rbo_bounds", "rbo_expected", "rbo_expected_bounds"), "rank_biased_overlap"),
    **dict.fromkeys(("rbo_best", "rbo_variance", "rbo_worst"), "rbo_uncertainty"),
    **dict.fromkeys(("best", "best_ordering", "distribution", "variance", "worst", "worst_ordering"), "uncertainty"),
    **dict.fromkeys(("bpref", "judged", "r_precision", "success"), "trec_measures"),
    **dict.fromkeys(
        (
            "retrieved", "relevant_retrieved", "judged_nonrelevant", "set_precision", "set_recall", "set_f",
            "set_average_precision", "set_relative_precision", "utility", "relative_precision", "r_precision_multiple",
            "inferred_average_precision", "binary_gain", "normalised_gain", "ndcg_relevant", "r_ndcg", "trec_ndcg",
        ),
        "trec_eval_measures",
    ),  # fmt: skip
    **dict.fromkeys(("interpolated_precision", "eleven_point_average"), "interpolated"),
    "at_depth": "truncation",
    "prefs_measures": "prefs",
    "sampled_measures": "sampled",
    **dict.fromkeys(
        ("kendall_tau", "kendall_tau_expected", "kendall_tau_range", "kendall_tau_variance", "tau_ap", "tau_ap_expected", "tau_ap_range", "tau_ap_variance"),
        "correlation",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tieaware.fast' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"tieaware.fast.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "sampled_measures",
    "precision",
    "recall",
    "f1",
    "average_precision",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "rbo",
    "prefs_measures",
    "rbo_bounds",
    "rbo_expected",
    "rbo_expected_bounds",
    "rbo_worst",
    "rbo_best",
    "rbo_variance",
    "rbp",
    "rbp_residual",
    "err",
    "kendall_tau",
    "tau_ap",
    "kendall_tau_expected",
    "tau_ap_expected",
    "kendall_tau_range",
    "tau_ap_range",
    "kendall_tau_variance",
    "tau_ap_variance",
    "worst",
    "best",
    "variance",
    "distribution",
    "worst_ordering",
    "best_ordering",
    "r_precision",
    "success",
    "bpref",
    "judged",
    "retrieved",
    "relevant_retrieved",
    "judged_nonrelevant",
    "set_precision",
    "set_recall",
    "set_f",
    "set_average_precision",
    "set_relative_precision",
    "utility",
    "relative_precision",
    "r_precision_multiple",
    "inferred_average_precision",
    "binary_gain",
    "normalised_gain",
    "ndcg_relevant",
    "r_ndcg",
    "trec_ndcg",
    "interpolated_precision",
    "eleven_point_average",
    "at_depth",
]
