"""A run's means with ties broken as a library breaks them, over a given set of queries.

``tieaware compare --tie-break NAME`` puts these beside the tie-aware
comparison: each run's mean in NAME's order (:mod:`tieaware.model.tie_presets`)
over the queries the two runs share, and their difference, which is what a
paper that evaluated both runs with that library reports.

>>> from fractions import Fraction
>>> from tieaware.io.columns import prepare_dicts
>>> qrels, run = {"q1": {"a": Fraction(1)}}, {"q1": [("b", Fraction(1)), ("a", Fraction(1))]}
>>> broken_means(prepare_dicts(qrels, run, ["q1"], trec_order="docno-asc"), "RR", "docno-asc", ["q1"], prepared=True)
{'RR': Fraction(1, 1)}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tieaware.model.tie_presets import preset
from tieaware.runs.evaluate import aggregate, evaluate_prepared, measure_list

__all__ = ["broken_means"]


def broken_means(
    source: Any, measures: Any, tie_break: str, queries: Sequence[str], *, qrels: Any = None, prepared: bool = False,
    exact: bool = True, layer: str = "fast", jobs: Any = 1,
) -> dict[str, Any]:
    """{measure: mean over *queries*} of the run *source* with ties broken by *tie_break*.

    *source* is a run file (read again, streamed by query, against *qrels*) or, with
    ``prepared=True``, rows :func:`~tieaware.io.columns.prepare` joined with ``trec_order=tie_break``
    (or :func:`~tieaware.io.columns.prepare_dicts`' rows already in that order).
    """
    preset(tie_break)
    ms = measure_list(measures)
    if prepared:
        broken = source.trec_order is not None
        per_query = evaluate_prepared(source, ms, exact=exact, layer=layer, tie_break=tie_break if broken else None).per_query
    else:
        from tieaware.runs.stream import evaluate_files

        per_query = evaluate_files(qrels, source, ms, exact=exact, layer=layer, tie_break=tie_break, jobs=jobs).tied.per_query
    return {str(m): aggregate(m, [per_query[q][str(m)] for q in queries]) for m in ms}
