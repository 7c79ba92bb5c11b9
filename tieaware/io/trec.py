"""TREC qrels and run files, and the tied rankings they describe.

A **qrels** file has one judgement per line, four whitespace-separated
columns::

    qid  iter  docno  label        e.g.  301 0 FBIS3-10082 2

A **run** file has one retrieved document per line, six columns::

    qid  Q0  docno  rank  score  run_id        e.g.  301 Q0 FBIS3-10082 1 12.5 bm25

As in trec_eval, the ``iter``, ``Q0``, ``rank`` and ``run_id`` columns are
read but ignored: the ranking comes from the scores alone.  Blank lines are
skipped, and so is any text after a run line's sixth column, as trec_eval
skips it (its own test file ``results.trunc`` carries such text); a run line
of fewer than six columns is refused.

Scores are kept **exactly**, as the Fraction of their decimal text, so
documents tie exactly when their score strings have the same value
(``"2"``, ``"2.0"`` and ``"2e0"`` tie; ``"0.1"`` and ``"0.10000000000000001"``
do not).  Documents missing from the qrels are unjudged and count as
non-relevant (label 0), as in trec_eval.

>>> qrels = parse_qrels(["q1 0 a 1", "q1 0 c 2"])
>>> run = parse_run(["q1 Q0 a 1 3 r", "q1 Q0 b 2 2.0 r", "q1 Q0 c 3 2 r"])
>>> run_ranking(run["q1"], qrels["q1"])     # b and c tie: "2.0" == "2"
[Fraction(1, 1), [Fraction(2, 1), Fraction(0, 1)]]
>>> trec_eval_order(run["q1"])
['a', 'c', 'b']

Bad lines raise :class:`~tieaware.model.errors.TieawareError` naming the file and
line, e.g. ``run.txt:7: expected 6 columns (qid Q0 docno rank score run_id),
got 5: 'q1 Q0 d 4 1.5'``.

>>> parse_run(["q1 Q0 d1 1 0.5 r trailing text"])     # after the run id: skipped, as trec_eval does
{'q1': [('d1', Fraction(1, 2))]}
"""

from __future__ import annotations

import math
import os
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import IO, Any, Optional, Union

from tieaware.io.text import number_text, shorten, text_lines
from tieaware.model.errors import TieawareError

__all__ = [
    "Qrels",
    "Run",
    "parse_qrels",
    "parse_run",
    "read_qrels",
    "read_run",
    "tie_groups",
    "run_ranking",
    "trec_eval_order",
    "trec_eval_ranking",
    "read_sample",
    "trec_eval_labels",
]

#: {qid: {docno: label}}; labels are Fractions (a negative one: judged as not judged, read as 0).
Qrels = dict[str, dict[str, Fraction]]
#: {qid: [(docno, score), ...]} in file order; scores are exact Fractions.
Run = dict[str, list[tuple[str, Fraction]]]

Source = Union[str, "os.PathLike[str]", IO[str]]


def _where(name: str, lineno: int) -> str:
    return f"{name}:{lineno}"


def _lines(lines: Iterable[str]) -> Iterable[tuple[int, list[str], str]]:
    """(line number, columns, stripped text) of every non-blank line; a leading BOM is dropped."""
    for lineno, line in enumerate(lines, start=1):
        if lineno == 1 and isinstance(line, str):
            line = line.removeprefix("\ufeff")  # text decoded as utf-8 rather than utf-8-sig
        text = line.strip()
        if text:
            yield lineno, text.split(), text


def _label(raw: str, where: str) -> Fraction:
    # A negative label (TREC Web track qrels: -2 for junk) is kept: trec_eval reads it as
    # "in the pool, not judged", non-relevant with gain 0 (tieaware.ranking, docs/eval.md).
    return number_text(raw, "label", where)


def _score(raw: str, where: str) -> Fraction:
    return number_text(raw, "score", where)  # exact: "2.0" == "2", no float rounding


def parse_qrels(lines: Iterable[str], name: str = "<qrels>") -> Qrels:
    """Parse qrels lines (``qid iter docno label``) into ``{qid: {docno: label}}``.

    *name* is the file name used in error messages.

    >>> parse_qrels(["q1 0 d1 2", "", "q1 0 d2 0"])
    {'q1': {'d1': Fraction(2, 1), 'd2': Fraction(0, 1)}}

    A negative label is read as trec_eval reads it: the document is in the
    qrels but not judged, non-relevant with gain 0 (TREC Web track qrels
    label junk pages -2):

    >>> parse_qrels(["q1 0 d1 -2"])
    {'q1': {'d1': Fraction(-2, 1)}}
    """
    qrels: Qrels = {}
    first_seen: dict[tuple[str, str], int] = {}
    for lineno, columns, text in _lines(lines):
        where = _where(name, lineno)
        if len(columns) != 4:
            raise TieawareError(f"{where}: expected 4 columns (qid iter docno label), got {len(columns)}: {shorten(text)!r}")
        qid, _, docno, raw = columns
        if (qid, docno) in first_seen:
            raise TieawareError(
                f"{where}: duplicate judgement of docno {docno!r} for query {qid!r} "
                f"(first on line {first_seen[qid, docno]})"
            )
        first_seen[qid, docno] = lineno
        qrels.setdefault(qid, {})[docno] = _label(raw, where)
    return qrels


def parse_run(lines: Iterable[str], name: str = "<run>") -> Run:
    """Parse run lines (``qid Q0 docno rank score run_id``) into ``{qid: [(docno, score), ...]}``.

    Scores are exact Fractions of the score text; the rank column is ignored,
    as in trec_eval.

    >>> parse_run(["q1 Q0 d1 1 0.5 r", "q1 Q0 d2 2 1e-1 r"])
    {'q1': [('d1', Fraction(1, 2)), ('d2', Fraction(1, 10))]}
    >>> parse_run(["q1 Q0 d1 1 NaN r"], "run.txt")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: run.txt:1: score is NaN, got 'NaN'; a NaN score has no place in a ranking
    """
    run: Run = {}
    first_seen: dict[tuple[str, str], int] = {}
    for lineno, columns, text in _lines(lines):
        where = _where(name, lineno)
        if len(columns) < 6:  # text after the run id is skipped, as trec_eval skips it
            raise TieawareError(
                f"{where}: expected 6 columns (qid Q0 docno rank score run_id), got {len(columns)}: {shorten(text)!r}"
            )
        qid, _, docno, _, raw = columns[:5]
        if (qid, docno) in first_seen:
            raise TieawareError(
                f"{where}: duplicate docno {docno!r} for query {qid!r} (first on line {first_seen[qid, docno]})"
            )
        first_seen[qid, docno] = lineno
        run.setdefault(qid, []).append((docno, _score(raw, where)))
    return run


def _read(source: Source, parse, default_name: str):
    # paths (.gz and .bz2 decompressed), "-" for stdin, binary and text streams;
    # one bounded line at a time, a leading BOM dropped (tieaware.io.text.text_lines)
    with text_lines(source, default_name) as (lines, name):
        return parse(lines, name)


def _source(source: Any, argument: str) -> None:
    """Refuse what is neither a path, ``-`` nor an open file (None, a number, a dict)."""
    if not (isinstance(source, (str, bytes, os.PathLike)) or hasattr(source, "read")):
        from tieaware.model.errors import bad

        raise bad(argument, source, "must be a path, '-' (stdin) or an open file")


def read_qrels(source: Source) -> Qrels:
    """Read a qrels file from a path or an open text file; see :func:`parse_qrels`.

    >>> import io
    >>> read_qrels(io.StringIO("q1 0 d1 1\\n"))
    {'q1': {'d1': Fraction(1, 1)}}
    """
    _source(source, "source")
    return _read(source, parse_qrels, "<qrels>")


def read_run(source: Source) -> Run:
    """Read a run file from a path or an open text file; see :func:`parse_run`.

    >>> import io
    >>> read_run(io.StringIO("q1 Q0 d1 1 2 r\\n"))
    {'q1': [('d1', Fraction(2, 1))]}
    """
    _source(source, "source")
    return _read(source, parse_run, "<run>")


def _by_docno_descending(docs: Iterable[tuple[str, Fraction]]) -> list[tuple[str, Fraction]]:
    return sorted(docs, key=lambda d: d[0], reverse=True)


def tie_groups(run_docs: Sequence[tuple[str, Fraction]]) -> list[list[str]]:
    """The docnos of one query grouped by exactly equal score, best score first.

    Inside a group docnos are listed in trec_eval's order (descending), which
    matters to no tie-aware measure but makes output reproducible.

    >>> tie_groups([("a", Fraction(1)), ("b", Fraction(2)), ("c", Fraction(1))])
    [['b'], ['c', 'a']]
    """
    by_score: dict[Fraction, list[str]] = {}
    for docno, score in _by_docno_descending(run_docs):
        by_score.setdefault(score, []).append(docno)
    return [by_score[s] for s in sorted(by_score, reverse=True)]


def run_ranking(run_docs: Sequence[tuple[str, Fraction]], qrels_for_q: Mapping[str, Fraction]) -> list:
    """One query's tied ranking in the input form of the measures: labels and tie groups.

    Unjudged documents get label 0.

    >>> run_ranking([("a", Fraction(1)), ("b", Fraction(2)), ("c", Fraction(1))], {"a": Fraction(1)})
    [Fraction(0, 1), [Fraction(0, 1), Fraction(1, 1)]]
    """
    out: list = []
    for group in tie_groups(run_docs):
        labels = [qrels_for_q.get(d, Fraction(0)) for d in group]
        out.append(labels[0] if len(labels) == 1 else labels)
    return out


def trec_eval_order(run_docs: Sequence[tuple[str, Fraction]]) -> list[str]:
    """The docnos in the order trec_eval ranks them: score descending, ties by docno descending.

    This mirrors ``comp_sim_docno`` in trec_eval 9.0.8's form_res_rels.c
    (usnistgov/trec_eval, tag v9.0.8, commit d95ca64, line 276)::

        if (ptr1->sim > ptr2->sim) return (-1);
        if (ptr1->sim < ptr2->sim) return (1);
        return (strcmp (ptr2->docno, ptr1->docno));

    i.e. higher sim first, and among equal sims the docno that is larger
    under strcmp first.  Python's str order equals strcmp's byte order for
    UTF-8 text.

    >>> trec_eval_order([("d1", Fraction(1)), ("d2", Fraction(1)), ("d10", Fraction(3))])
    ['d10', 'd2', 'd1']

    Beware: trec_eval 9.0.8 keeps ``sim`` in a C ``float``: it reads the
    score with ``atof`` (a double) and stores it in 32 bits (trec_format.h,
    form_res_rels.c), so scores that differ only beyond float32's ~7
    significant digits tie there and are broken by docno; pytrec_eval (and
    so ir_measures) compiles the same code.  This function does the same:

    >>> trec_eval_order([("a", Fraction("1.00000002")), ("b", Fraction("1.00000001"))])
    ['b', 'a']

    trec_eval 10.0 keeps doubles, so its order can differ there.
    """
    # Two stable sorts: by docno descending, then by score descending.
    docs = sorted(_by_docno_descending(run_docs), key=lambda d: _as_float32(_as_double(d[1])), reverse=True)
    return [docno for docno, _ in docs]


def _as_double(score: Fraction) -> float:
    try:
        return float(score)  # correctly rounded, as atof is
    except OverflowError:
        return math.copysign(math.inf, score)


def _as_float32(x: float) -> float:
    """The double *x* stored in a C float, as trec_eval 9.0.8 stores a score (round to nearest)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # beyond float32's range: C's conversion gives an infinity
        return math.copysign(math.inf, x)


def trec_eval_ranking(run_docs: Sequence[tuple[str, Fraction]], qrels_for_q: Mapping[str, Fraction]) -> list:
    """One query's untied ranking (labels only) in trec_eval's order.

    >>> trec_eval_ranking([("a", Fraction(1)), ("b", Fraction(1))], {"a": Fraction(1)})
    [Fraction(0, 1), Fraction(1, 1)]
    """
    return [qrels_for_q.get(d, Fraction(0)) for d in trec_eval_order(run_docs)]


def read_sample() -> tuple[Qrels, Run]:
    """The bundled sample (tieaware/data/sample.qrels and sample.run), loaded via importlib.resources.

    Five queries whose scores are integer in-degree buckets, so ties are
    common; see tieaware/data/make_sample.py.

    >>> qrels, run = read_sample()
    >>> sorted(run) == sorted(qrels) == ["q1", "q2", "q3", "q4", "q5"]
    True
    """
    from importlib.resources import files

    data = files("tieaware") / "data"
    qrels = parse_qrels((data / "sample.qrels").read_text(encoding="utf-8").splitlines(), "sample.qrels")
    run = parse_run((data / "sample.run").read_text(encoding="utf-8").splitlines(), "sample.run")
    return qrels, run


def _atol(text: str) -> int:
    """C's atol: the integer the text starts with (after white space), 0 without one."""
    found = re.match(r"\s*([+-]?\d+)", text)
    return int(found.group(1)) if found else 0


def trec_eval_labels(qrels: Any) -> tuple[Any, Optional[str]]:
    """The qrels Table with every label read as trec_eval 9.0.8 reads it, and where that differs.

    trec_eval reads a label with C's ``atol``: the integer its text starts
    with, so ``1.5`` is 1 and ``1e3`` is 1.  tieaware reads the exact number.
    Returns the Table with each differing label replaced by trec_eval's
    reading (the same Table when none differs) and a message naming the file
    and first line where the two readings differ (None when none does).  A
    label tieaware refuses is left for the reader to refuse.

    >>> import io
    >>> from tieaware.io.columns import read_table
    >>> table = read_table(io.BytesIO(b"q1 0 a 1\\nq1 0 b 1.5\\nq1 0 c 1e3\\n"), "qrels")
    >>> read, where = trec_eval_labels(table)
    >>> read.value.tolist(), where
    ([b'1', b'1', b'1'], "<qrels>:2: label '1.5' is 3/2 exactly; trec_eval reads it as 1 (C's atol)")
    """
    import numpy as np

    from tieaware.io.text import number_text

    if not len(qrels):
        return qrels, None
    texts, inverse = np.unique(qrels.value, return_inverse=True)
    replaced = []
    differs = np.zeros(len(texts), dtype=bool)
    for i, raw in enumerate(texts.tolist()):
        text = raw.decode("utf-8", errors="replace")
        read = _atol(text)
        try:
            exact = number_text(text.strip(), "label", qrels.name)
        except TieawareError:
            exact = None
        differs[i] = exact is not None and exact != read
        replaced.append(str(read).encode() if differs[i] else raw)
    if not differs.any():
        return qrels, None
    rows = np.flatnonzero(differs[inverse])
    first = int(rows[np.argmin(qrels.line[rows])])
    text = qrels.value[first].decode("utf-8", errors="replace")
    exact = number_text(text.strip(), "label", qrels.name)
    message = f"{qrels.name}:{int(qrels.line[first])}: label {text!r} is {exact} exactly; trec_eval reads it as {_atol(text)} (C's atol)"
    value = np.array(replaced, dtype=qrels.value.dtype)[inverse]
    from dataclasses import replace

    return replace(qrels, value=value), message
