"""Qrels and runs in the shapes the Python IR ecosystem passes around, converted exactly.

:func:`tieaware.runs.evaluate.evaluate` (and :func:`tieaware.calc_aggregate`) take
qrels and runs as any of:

========================  ===============================================  =================================================
shape                     qrels                                            run
========================  ===============================================  =================================================
pytrec_eval dicts         ``{qid: {docid: relevance}}``                    ``{qid: {docid: score}}``
tieaware's own            the same (:data:`tieaware.io.trec.Qrels`)           ``{qid: [(docid, score), ...]}`` (trec.Run)
ir_measures namedtuples   ``Qrel(query_id, doc_id, relevance, ...)``       ``ScoredDoc(query_id, doc_id, score)``
plain tuples              ``(query_id, doc_id, relevance)``                ``(query_id, doc_id, score)``
pandas DataFrames         columns ``query_id, doc_id, relevance``          columns ``query_id, doc_id, score``
PyTerrier DataFrames      columns ``qid, docno, label``                    columns ``qid, docno, score``
========================  ===============================================  =================================================

Iterables may be generators (read once).  Other DataFrame columns (such as
ir_measures' ``iteration``) are ignored.  pandas is never imported: a
DataFrame is recognised by its ``columns`` and ``itertuples``.

**Numbers are taken exactly**, as :func:`tieaware.model.exact.rational` takes them:
ints, Fractions and Decimals as given, decimal strings as written, and a
float (or NumPy float64) as the shortest decimal that rounds to it, its
``repr``.  So ``0.1`` is 1/10, and two scores tie exactly when they are the
same float.  Query and document ids are strings; ints (a pandas column read
as numbers) become their decimal text.

>>> from fractions import Fraction
>>> to_run({"q1": {"d1": 0.1, "d2": 2}})
{'q1': [('d1', Fraction(1, 10)), ('d2', Fraction(2, 1))]}
>>> from collections import namedtuple
>>> Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
>>> to_qrels([Qrel("q1", "d1", 1, "0"), Qrel("q1", "d2", 0, "0")])
{'q1': {'d1': Fraction(1, 1), 'd2': Fraction(0, 1)}}

Beware: a NumPy float32 is taken as its own shortest decimal (``0.1`` for
``float32(0.1)``), not as the float64 it widens to (``0.10000000149011612``);
either way equal scores tie and distinct scores keep their order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from numbers import Integral
from typing import Any

from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import rational
from tieaware.io.irds import PREFIX
from tieaware.io.trec import Qrels, Run, read_qrels, read_run

__all__ = ["to_qrels", "to_run", "number", "id_text"]

_QREL_FIELDS = ("query_id", "doc_id", "relevance")
_RUN_FIELDS = ("query_id", "doc_id", "score")
#: PyTerrier's column names, used when ir_measures' are absent.
_PYTERRIER = {"query_id": ("qid",), "doc_id": ("docno",), "relevance": ("label",)}


def number(value: Any, where: str) -> Fraction:
    """*value* as an exact Fraction; *where* names it in the error.

    >>> number(0.1, "score"), number("2.50", "score")
    (Fraction(1, 10), Fraction(5, 2))
    >>> number(float("nan"), "run['q1']['d1']")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: run['q1']['d1'] must be a finite number, got nan
    """
    if isinstance(value, float) and type(value) is not float:
        value = float(value)  # NumPy float64: its repr is not a number in NumPy 2
    elif not isinstance(value, (int, float, str)) and _numpy_kind(value) == "f":
        if not math.isfinite(float(value)):
            raise bad(where, value, "must be a finite number")
        value = str(value)  # NumPy's shortest repr at the scalar's own precision
    return rational(value, where)


def _numpy_kind(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "kind", "") if getattr(value, "shape", None) == () else ""


def id_text(value: Any, what: str) -> str:
    """A query or document id as text: a str as is, an int in decimal; *what* names the argument otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, Integral) and not isinstance(value, bool):
        return str(int(value))
    raise bad(what, value, "must be a str (or an int)")


def _rows(data: Any, fields: tuple[str, str, str], argument: str) -> Iterable[tuple[Any, Any, Any]]:
    """(query_id, doc_id, value) of a DataFrame or an iterable of namedtuples/tuples."""
    if hasattr(data, "columns") and hasattr(data, "itertuples"):
        columns = []
        for name in fields:
            present = [c for c in (name, *_PYTERRIER.get(name, ())) if c in data.columns]
            if not present:
                raise bad(argument, list(data.columns), f"is a DataFrame without a {name!r} column; it needs {list(fields)}")
            if len(present) > 1:
                # ir_measures' and PyTerrier's names side by side: which one is meant is a guess.
                raise bad(
                    argument,
                    list(data.columns),
                    f"is a DataFrame with both {present[0]!r} and {present[1]!r} columns; keep one of them "
                    f"(ir_measures' {list(fields)} or PyTerrier's {[_PYTERRIER.get(f, (f,))[0] for f in fields]})",
                )
            columns.append(present[0])
        return data[columns].itertuples(index=False, name=None)
    return (_row(item, fields, argument) for item in data)


def _row(item: Any, fields: tuple[str, str, str], argument: str) -> tuple[Any, Any, Any]:
    if all(hasattr(item, f) for f in fields):
        return tuple(getattr(item, f) for f in fields)  # type: ignore[return-value]
    if isinstance(item, tuple) and len(item) == 3:
        return item
    raise bad(argument, item, f"holds an item that is neither a namedtuple with {', '.join(fields)} nor a 3-tuple")


def _check_container(data: Any, argument: str, example: str) -> None:
    if isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise bad(
            argument,
            data if not isinstance(data, str) else data[:60],
            f"must be {example}, an iterable of ir_measures namedtuples, a DataFrame or an 'irds:' dataset id "
            "(read a TREC file with tieaware.io.trec.read_" + argument + ")",
        )


def to_qrels(data: Any) -> Qrels:
    """Qrels in any supported shape as ``{qid: {docid: Fraction label}}``.

    A negative label (TREC Web track qrels label junk -2) is kept and read
    as trec_eval reads it: in the qrels, not judged; non-relevant, gain 0.

    >>> to_qrels({"q1": {"d1": 2, "d2": 0}})
    {'q1': {'d1': Fraction(2, 1), 'd2': Fraction(0, 1)}}
    >>> to_qrels([("q1", "d1", 1), ("q1", "d1", 0)])
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: qrels judges doc 'd1' of query 'q1' twice, got ('q1', 'd1', 0)
    """
    if isinstance(data, str) and data.startswith(PREFIX):
        return read_qrels(data)  # an ir_datasets id (tieaware.io.irds)
    _check_container(data, "qrels", "a dict {qid: {docid: relevance}}")
    out: Qrels = {}
    if isinstance(data, Mapping):
        for qid, judged in data.items():
            q = id_text(qid, "qrels query id")
            if not isinstance(judged, Mapping):
                raise bad(f"qrels[{q!r}]", judged, "must be a dict {docid: relevance}")
            if _native_qrels(judged):
                out[q] = judged  # already tieaware's own form (as tieaware.io.trec reads it): no copy
                continue
            out[q] = {id_text(d, f"qrels[{q!r}] doc id"): _label(v, q, d) for d, v in judged.items()}
        return out
    for qid, docid, value in _rows(data, _QREL_FIELDS, "qrels"):
        q, d = id_text(qid, "qrels query id"), id_text(docid, "qrels doc id")
        judged = out.setdefault(q, {})
        if d in judged:
            raise bad("qrels", (qid, docid, value), f"judges doc {d!r} of query {q!r} twice")
        judged[d] = _label(value, q, d)
    return out


def _native_qrels(judged: Mapping[Any, Any]) -> bool:
    return (
        type(judged) is dict
        and all(type(d) is str for d in judged)
        and all(type(v) is Fraction for v in judged.values())
    )


def _native_run(scored: Any) -> bool:
    return (
        type(scored) is list
        and all(type(p) is tuple and len(p) == 2 and type(p[0]) is str and type(p[1]) is Fraction for p in scored)
        and len({p[0] for p in scored}) == len(scored)
    )


def _label(value: Any, qid: str, docid: Any) -> Fraction:
    # A negative label is kept, as the qrels file reader keeps it: trec_eval reads it as
    # "in the pool, not judged", non-relevant with gain 0 (tieaware.ranking).
    return number(value, f"qrels[{qid!r}][{docid!r}]")


def to_run(data: Any) -> Run:
    """A run in any supported shape as ``{qid: [(docid, Fraction score), ...]}``.

    >>> to_run([("q1", "d1", 2.5), ("q2", "d9", 1)])
    {'q1': [('d1', Fraction(5, 2))], 'q2': [('d9', Fraction(1, 1))]}
    """
    if isinstance(data, str) and data.startswith(PREFIX):
        return read_run(data)  # an ir_datasets id's official run (tieaware.io.irds)
    _check_container(data, "run", "a dict {qid: {docid: score}}")
    out: Run = {}
    if isinstance(data, Mapping):
        for qid, scored in data.items():
            q = id_text(qid, "run query id")
            out[q] = _scored(scored, q)
        return out
    seen: set[tuple[str, str]] = set()
    for qid, docid, value in _rows(data, _RUN_FIELDS, "run"):
        q, d = id_text(qid, "run query id"), id_text(docid, "run doc id")
        if (q, d) in seen:
            raise bad("run", (qid, docid, value), f"scores doc {d!r} of query {q!r} twice")
        seen.add((q, d))
        out.setdefault(q, []).append((d, number(value, f"run[{q!r}][{d!r}]")))
    return out


def _scored(scored: Any, qid: str) -> list[tuple[str, Fraction]]:
    """One query's docs: a dict {docid: score} (pytrec_eval) or [(docid, score), ...] (tieaware)."""
    if _native_run(scored):
        return scored  # already tieaware's own form (as tieaware.io.trec reads it): no copy
    if isinstance(scored, Mapping):
        pairs: Iterable[Any] = scored.items()
    elif isinstance(scored, Iterable) and not isinstance(scored, (str, bytes)):
        pairs = scored
    else:
        raise bad(f"run[{qid!r}]", scored, "must be a dict {docid: score} or a list of (docid, score)")
    out = []
    seen: set[str] = set()
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise bad(f"run[{qid!r}]", pair, "holds an item that is not a (docid, score) pair")
        d = id_text(pair[0], f"run[{qid!r}] doc id")
        if d in seen:
            raise TieawareError(f"run[{qid!r}] scores doc {d!r} twice")
        seen.add(d)
        score = pair[1] if type(pair[1]) is Fraction else number(pair[1], f"run[{qid!r}][{d!r}]")
        out.append((d, score))
    return out
