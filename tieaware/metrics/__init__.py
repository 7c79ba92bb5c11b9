"""Tie-aware measures of score batches, numpy-only: what embedding, reranker and recommender code holds.

A batch is a ``[B, N]`` score array (B queries, N candidates) and its labels;
every function returns one float64 value per row, the expected value of the
measure over every ordering consistent with the ties (McSherry & Najork), or
with ``order="worst"`` / ``"best"`` the lowest or highest value a
tie-breaking can give.  A tie is exact equality in the scores' own dtype
(float16, bfloat16, float32, float64)::

    >>> import numpy as np
    >>> from tieaware import metrics
    >>> scores = np.array([[0.5, 0.5, 0.5, 0.1], [0.9, 0.2, 0.2, 0.1]], dtype=np.float16)
    >>> metrics.reciprocal_rank(scores, [{0}, {2}]).round(4).tolist()
    [0.6111, 0.4167]
    >>> out = metrics.evaluate(scores, [{0}, {2}], "nDCG@10 RR@10 R@2")
    >>> sorted(out), out["R@2"].tolist()
    (['R@2', 'RR@10', 'nDCG@10'], [0.6666666666666666, 0.5])

numpy arrays are computed with numpy; torch (CPU or GPU), CuPy, JAX and
array-api-strict arrays in their own library, on their own device, through
the array API standard (``array-api-compat``), and the result is an array of
that library.  The values come from the closed forms of
:mod:`tieaware.fast.kernels`, the functions ``tieaware prove`` proves and
:func:`tieaware.evaluate_matrix` runs: the two agree to float accuracy.

Importing this module loads numpy and tieaware's kernels only: no sympy,
mpmath, tabulate, tqdm or hypothesis.

Beware: the values are floats (rounded once per group and summed);
:func:`tieaware.evaluate_matrix` with ``exact=True`` gives Fractions.
"""

from tieaware.metrics.measures import (
    SUPPORTED,
    average_precision,
    dcg,
    evaluate,
    f1,
    ndcg,
    precision,
    recall,
    reciprocal_rank,
    success,
)

__all__ = [
    "SUPPORTED",
    "evaluate",
    "ndcg",
    "dcg",
    "average_precision",
    "reciprocal_rank",
    "precision",
    "recall",
    "f1",
    "success",
]
