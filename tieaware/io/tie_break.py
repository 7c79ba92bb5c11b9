"""Runs in a library's order: ties broken by a preset of :mod:`tieaware.model.tie_presets`.

Two forms, one per reader: :func:`broken_docnos` for one query of the dict
form (:mod:`tieaware.io.trec`), :func:`broken_rows` for the column form
(:func:`tieaware.io.columns.prepare`, every query at once).  ``trec_eval``
itself keeps :func:`tieaware.io.trec.trec_eval_order`, which follows
trec_eval's source line by line; the generic rule ``docno-desc`` on float32
scores gives the same order (tests/test_tie_presets.py).

>>> from fractions import Fraction as F
>>> docs = [("c", F(1)), ("a", F(1)), ("b", F(2))]
>>> broken_docnos(docs, {}, "input"), broken_docnos(docs, {}, "docno-asc"), broken_docnos(docs, {}, "docno-desc")
(['b', 'c', 'a'], ['b', 'a', 'c'], ['b', 'c', 'a'])
>>> broken_docnos(docs, {"a": F(1)}, "optimistic"), broken_docnos(docs, {"a": F(1)}, "pessimistic")
(['b', 'a', 'c'], ['b', 'c', 'a'])
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from tieaware.model.tie_presets import Preset, preset

__all__ = ["broken_docnos", "broken_ranking", "broken_rows", "single"]


def single(x: Any) -> float:
    """*x* as a C float holds it: the nearest double, then the nearest float32 (±inf past its range).

    >>> single(Fraction(1) + Fraction(1, 2**30)) == single(1)
    True
    """
    d = float(x)
    try:
        return struct.unpack("f", struct.pack("f", d))[0]
    except OverflowError:
        return math.copysign(math.inf, d)


def _score_key(p: Preset) -> Any:
    return single if p.scores == "float32" else (lambda s: s)


def broken_docnos(run_docs: Sequence[tuple[str, Fraction]], qrels_for_q: Mapping[str, Any], tie_break: str) -> list[str]:
    """One query's docnos in rank order: score descending, ties broken by the preset *tie_break*."""
    p = preset(tie_break)
    if p.name == "trec_eval":
        from tieaware.io.trec import trec_eval_order

        return trec_eval_order(run_docs)
    docs = list(run_docs)
    if p.rule == "reverse-input":
        docs.reverse()
    elif p.rule in ("docno-asc", "docno-desc"):
        docs.sort(key=lambda e: e[0], reverse=p.rule == "docno-desc")  # str order is UTF-8 byte order, as strcmp
    elif p.rule in ("pessimistic", "optimistic"):
        worst = p.rule == "pessimistic"
        docs.sort(key=lambda e: _label(qrels_for_q, e[0]), reverse=not worst)  # stable: input order among equal labels
    key = _score_key(p)
    docs.sort(key=lambda e: key(e[1]), reverse=True)  # stable: the rule's order among equal scores
    return [d for d, _ in docs]


def _label(qrels_for_q: Mapping[str, Any], docno: str) -> Any:
    x = qrels_for_q.get(docno)
    return 0 if x is None or not x >= 0 else x  # unjudged, or a negative label (judged non-relevant): 0


def broken_ranking(run_docs: Sequence[tuple[str, Fraction]], qrels_for_q: Mapping[str, Fraction], tie_break: str) -> list:
    """One query's untied ranking (labels only) in the preset's order.

    >>> broken_ranking([("a", Fraction(1)), ("b", Fraction(1))], {"a": Fraction(1)}, "docno-desc")
    [Fraction(0, 1), Fraction(1, 1)]
    """
    return [qrels_for_q.get(d, Fraction(0)) for d in broken_docnos(run_docs, qrels_for_q, tie_break)]


def broken_rows(tie_break: str, query: np.ndarray, score: np.ndarray, group_start: np.ndarray, docno: np.ndarray, line: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Rows already sorted by query and score descending, in the preset's order (for every preset but trec_eval).

    *group_start* starts each group of exactly equal scores, *score* holds the
    nearest doubles, *docno* the rows' docnos (bytes), *line* their lines in
    the run, *label* their label numbers (in increasing label order).

    >>> q = np.zeros(3, dtype=np.int64); s = np.array([1.0, 1.0, 1.0])
    >>> broken_rows("docno-asc", q, s, np.array([0]), np.array([b"c", b"a", b"b"]), np.arange(3), np.zeros(3, dtype=np.int64)).tolist()
    [1, 2, 0]
    """
    p = preset(tie_break)
    n = len(query)
    if p.scores == "float32":
        with np.errstate(over="ignore"):  # beyond float32's range: infinity, as in C
            single32 = score.astype(np.float32)
        same = np.zeros(n, dtype=bool)
        same[1:] = (query[1:] == query[:-1]) & (single32[1:] == single32[:-1])
        tied = np.cumsum(~same)
    else:
        starts = np.zeros(n, dtype=bool)
        starts[group_start] = True
        tied = np.cumsum(starts)
    if p.rule == "input":
        secondary: Any = line
    elif p.rule == "reverse-input":
        secondary = -line
    elif p.rule in ("docno-asc", "docno-desc"):
        rank = np.unique(docno, return_inverse=True)[1].reshape(-1)  # byte order, as strcmp
        secondary = rank if p.rule == "docno-asc" else -rank
    else:
        secondary = label if p.rule == "pessimistic" else -label
        return np.lexsort((line, secondary, tied))
    return np.lexsort((secondary, tied))
