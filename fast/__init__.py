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

from tieaware.fast.measures import average_precision, dcg, f1, ndcg, precision, recall, reciprocal_rank
from tieaware.fast.rank_biased_overlap import rbo, rbo_bounds, rbo_expected, rbo_expected_bounds
from tieaware.fast.rbo_uncertainty import rbo_best, rbo_variance, rbo_worst
from tieaware.fast.uncertainty import best, best_ordering, distribution, variance, worst, worst_ordering
from tieaware.fast.trec_measures import bpref, judged, r_precision, success
from tieaware.fast.rbp import rbp, rbp_residual
from tieaware.fast.err import err

__all__ = [
    "precision",
    "recall",
    "f1",
    "average_precision",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "rbo",
    "rbo_bounds",
    "rbo_expected",
    "rbo_expected_bounds",
    "rbo_worst",
    "rbo_best",
    "rbo_variance",
    "rbp",
    "rbp_residual",
    "err",
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
]
