"""The reference layer: tie-aware measures by exhaustive enumeration.

Every function here enumerates the orderings consistent with the ties,
evaluates the ordinary measure on each, and averages exactly.  It is slow on
purpose and small enough to check by eye; :mod:`tieaware.fast` must return
identical numbers.  It imports nothing from :mod:`tieaware.fast`.

The enumeration refuses rankings with more orderings than
:func:`get_ordering_limit` (default 1,000,000); raise it with
:func:`ordering_limit`.

>>> from tieaware import reference
>>> reference.average_precision([[1, 0], 1])    # mean of 5/6 (1 0 1) and 7/12 (0 1 1)
Fraction(17, 24)
"""

from tieaware.reference.measures import average_precision, dcg, f1, ndcg, precision, recall, reciprocal_rank
from tieaware.reference.orderings import get_ordering_limit, ordering_limit
from tieaware.reference.rank_biased_overlap import rbo, rbo_bounds
from tieaware.reference.rbo_uncertainty import rbo_best, rbo_variance, rbo_worst
from tieaware.reference.uncertainty import best, best_ordering, distribution, variance, worst, worst_ordering
from tieaware.reference.trec_measures import bpref, judged, r_precision, success
from tieaware.reference.rbp import rbp, rbp_residual
from tieaware.reference.err import err
from tieaware.reference.prefs import prefs_measures
from tieaware.reference.sampled import sampled_measures
from tieaware.reference.correlation import (
    kendall_tau,
    kendall_tau_expected,
    kendall_tau_range,
    kendall_tau_variance,
    tau_ap,
    tau_ap_expected,
    tau_ap_range,
    tau_ap_variance,
)
from tieaware.reference.trec_eval_measures import (
    retrieved,
    relevant_retrieved,
    judged_nonrelevant,
    set_precision,
    set_recall,
    set_f,
    set_average_precision,
    set_relative_precision,
    utility,
    relative_precision,
    r_precision_multiple,
    inferred_average_precision,
    binary_gain,
    normalised_gain,
    ndcg_relevant,
    r_ndcg,
    trec_ndcg,
)
from tieaware.reference.trec_eval_measures import eleven_point_average, interpolated_precision
from tieaware.reference.truncation import at_depth

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
    "ordering_limit",
    "get_ordering_limit",
]
