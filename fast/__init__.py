"""The fast layer: tie-aware measures through closed forms.

Same names and signatures as :mod:`tieaware.reference`, same exact numbers,
in O(n) per ranking.  Pass ``exact=False`` for float arithmetic on big
inputs.  It imports nothing from :mod:`tieaware.reference`.

>>> from tieaware import fast
>>> fast.average_precision([[1, 0], 1])    # mean of 5/6 (1 0 1) and 7/12 (0 1 1)
Fraction(17, 24)
"""

from tieaware.fast.measures import average_precision, dcg, f1, ndcg, precision, recall, reciprocal_rank

__all__ = ["precision", "recall", "f1", "average_precision", "reciprocal_rank", "dcg", "ndcg"]
