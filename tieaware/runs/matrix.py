"""Tie-aware evaluation of a score matrix: what MTEB, sentence-transformers and recommender code hold.

>>> import numpy as np
>>> scores = np.array([[0.9, 0.9, 0.1], [0.3, 0.2, 0.1]], dtype=np.float32)
>>> ev = evaluate_matrix(scores, [{1}, {0}], "RR@10 P@1", exact=True)
>>> ev.per_query["0"]["RR@10"], ev.mean["P@1"]        # row 0: the relevant column ties for first
(Fraction(3, 4), Fraction(3, 4))
"""

from __future__ import annotations

from typing import Any, Optional

from tieaware.io.matrix import prepare_matrix
from tieaware.model.params import flag
from tieaware.runs.evaluate import Evaluation, MeasureSpec, measure_list

__all__ = ["evaluate_matrix", "PREFIX_MEASURES"]

#: Measures whose value at cutoff k reads only the tie groups starting within k (and the labels):
#: for these the matrix is cut to each row's top k (ties at the cut kept whole) before sorting.
PREFIX_MEASURES = frozenset({"P", "R", "F1", "AP", "RR", "nDCG", "DCG", "RBP", "ERR"})


def evaluate_matrix(
    scores: Any,
    labels: Any,
    measures: MeasureSpec,
    *,
    mask: Any = None,
    exact: bool = False,
    spread: bool = False,
    empty_rows: str = "skip",
) -> Evaluation:
    """Evaluate a queries × candidates score matrix, tie-aware; the same :class:`Evaluation` as :func:`tieaware.evaluate`.

    *scores*: a 2-D array of any float (or integer) dtype, or anything numpy
    reads through ``__array__`` or DLPack (a CPU torch tensor, a jax array),
    without importing their library.  *labels*: a same-shape array of grades,
    or a list of sets of relevant column indices, one set per row.  *mask*: a
    same-shape boolean array, False for padding (ragged rows).  Ties are
    exact equality of the given values: a float32 tie stays a tie.

    Query ids are the row numbers as text (``"0"``, ``"1"``, …); document ids
    the column numbers.  The result equals :func:`tieaware.evaluate` on the
    TREC run and qrels holding the same cells (grades: every allowed cell
    judged; sets: the listed cells judged relevant).  Rows without any judged
    cell are not evaluated (listed in :attr:`Evaluation.skipped_run`).

    *exact* (default False: float, as the size of such data suggests) gives
    Fractions; *spread* adds each query's worst, best and variance over
    tie-breakings (:attr:`Evaluation.per_query_spread`) and the means'
    (:attr:`Evaluation.spread`).

    *empty_rows*: a row with no relevant column (an empty set, no judged
    cell) is left out of the means (``"skip"``, the default, trec_eval's
    convention: listed in :attr:`Evaluation.skipped_run`, with one warning
    naming the rows), or counted as 0 in them (``"zero"``, the recommender
    convention: every row is a user, and a user with nothing to find scores
    0; the rows are then in :attr:`Evaluation.skipped_qrels`, as trec_eval's
    ``-c`` counts a judged query missing from the run).  No row with a
    relevant column at all is an error.

    Beware: a list of lists shaped like *scores* is read as grades; pass sets
    (or lists of another length) for column indices.
    """
    from tieaware.runs.parts import combine, evaluate_part

    ms = measure_list(measures)
    exact = flag(exact, "exact")
    spread = flag(spread, "spread")
    depth: Optional[int] = None
    plain = all(m.name in PREFIX_MEASURES and not m.conventions for m in ms)  # conventions (norm=, norel=) read more
    if plain and all(m.k is not None for m in ms):
        depth = max(int(m.k) for m in ms)  # type: ignore[arg-type]
    from tieaware.runs.engine import SUPPORTED

    zeros = not (plain and all(m.name in SUPPORTED for m in ms))  # grade-0 judgements matter to Judged@k and Bpref only
    if empty_rows not in ("skip", "zero"):
        from tieaware.model.errors import bad

        raise bad("empty_rows", empty_rows, "must be 'skip' (left out of the means) or 'zero' (counted as 0)")
    prepared = prepare_matrix(scores, labels, mask, depth=depth, zeros=zeros)
    rows = len(prepared.qids) + len(prepared.skipped_run)
    if not prepared.qids:
        from tieaware.model.errors import bad

        raise bad("labels", f"{rows} rows", "name no relevant (or judged) column in any row: there is nothing to evaluate")
    part = evaluate_part(prepared, ms, exact=exact, spread=spread)
    empty = list(prepared.skipped_run)
    if empty and empty_rows == "skip":
        import warnings

        shown = ", ".join(empty[:5]) + (", ..." if len(empty) > 5 else "")
        warnings.warn(
            f"evaluate_matrix: {len(empty)} of {rows} rows ({shown}) have no relevant column and are left out of the means "
            "(Evaluation.skipped_run); empty_rows='zero' counts them as 0, as recommender evaluation does",
            stacklevel=2,
        )
    if empty and empty_rows == "zero":
        return combine([part], ms, exact=exact, complete=True, skipped_run=(), skipped_qrels=empty).tied
    return combine([part], ms, exact=exact).tied
