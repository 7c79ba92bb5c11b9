"""trec_eval's other relevance formats: preferences (``-R prefs``, ``-R qrels_prefs``) and judgment groups (``-R qrels_jg``).

trec_eval 9.0.8 reads three more relevance formats beside ``qrels``
(its get_prefs.c, get_qrels_prefs.c and get_qrels_jg.c); docs/eval.md,
"Preferences and judgment groups", describes them:

- **prefs**, five columns ``qid jg jsg docno level``: within one judgment
  *sub*-group (jsg) of a judgment group (jg), every document is preferred to
  every document of a lower level; a jg's sub-groups together give a partial
  order (closed transitively);
- **qrels_prefs**, an ordinary qrels file ``qid iter docno label`` read as
  prefs: the ``iter`` column is the jg, every line in one sub-group;
- **qrels_jg**, ``qid jg docno label``: one set of ordinary judgements per
  jg (per user), each evaluated as qrels and averaged over the jgs.

Every reader returns ``{qid: [Judgment, ...]}`` in file order.  A level is
kept **exactly** (the Fraction of its text) and, beside it, as trec_eval
holds it: ``atof`` stored in a C ``float`` for the preference formats,
``atol`` for qrels_jg (a label ``1.5`` is 1 there).

>>> prefs = parse_prefs(["q1 u1 s1 d1 3", "q1 u1 s1 d2 2.5"])
>>> prefs["q1"][1]
Judgment(jg='u1', jsg='s1', docno='d2', level=Fraction(5, 2), trec_level=2.5)
>>> parse_qrels_prefs(["q1 0 d1 1"])["q1"][0].jsg         # one sub-group per jg
'0'
>>> parse_qrels_jg(["q1 u2 d1 1.5"])["q1"][0].trec_level  # trec_eval's atol
1

Bad lines raise :class:`~tieaware.model.errors.TieawareError` naming the
file and line:

>>> parse_prefs(["q1 u1 d1 3"], "prefs.txt")
Traceback (most recent call last):
...
tieaware.model.errors.TieawareError: prefs.txt:1: expected 5 columns (qid jg jsg docno level), got 4: 'q1 u1 d1 3'
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple, Optional, Union

from tieaware.io.exact_print import decimal
from tieaware.io.text import Source, number_text, shorten, text_lines
from tieaware.model.errors import TieawareError

__all__ = [
    "FORMATS",
    "Judgment",
    "Judgments",
    "parse_prefs",
    "parse_qrels_prefs",
    "parse_qrels_jg",
    "read_prefs",
    "read_qrels_prefs",
    "read_qrels_jg",
    "read_relevance",
    "c_float",
    "PREFS_NAMES",
    "JG_FAMILIES",
    "RelevanceMeasures",
    "relevance_measures",
    "render",
]

#: trec_eval's relevance formats beside ``qrels`` (its ``-R``), with their columns.
FORMATS = {
    "prefs": "qid jg jsg docno level",
    "qrels_prefs": "qid iter docno label",
    "qrels_jg": "qid jg docno label",
}


class Judgment(NamedTuple):
    """One line: judgment group, sub-group, document, its level exactly, and as trec_eval reads it."""

    jg: str
    jsg: str
    docno: str
    level: Fraction
    #: trec_eval's value: ``(float) atof(text)`` for the preference formats, ``atol(text)`` for qrels_jg.
    trec_level: Union[float, int]


#: {qid: [Judgment, ...]} in file order.
Judgments = dict[str, list[Judgment]]


def c_float(x: float) -> float:
    """The double *x* stored in a C ``float`` (round to nearest), as trec_eval keeps levels and scores.

    >>> c_float(0.1) == 0.1, c_float(0.5)
    (False, 0.5)
    """
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # beyond float's range: C's conversion gives an infinity
        return float("inf") if x > 0 else float("-inf")


def _atol(text: str) -> int:
    """C's atol on a number text that :func:`number_text` accepted: its leading integer."""
    found = re.match(r"[+-]?\d*", text)
    digits = found.group(0) if found else ""
    return int(digits) if digits.strip("+-") else 0


def _parse(lines: Iterable[str], name: str, kind: str) -> Judgments:
    columns_wanted = FORMATS[kind]
    width = len(columns_wanted.split())
    out: Judgments = {}
    jg_docs: dict[tuple[str, str, str], int] = {}
    for lineno, line in enumerate(lines, start=1):
        if lineno == 1:
            line = line.removeprefix("\ufeff")
        text = line.strip()
        if not text:
            continue
        where = f"{name}:{lineno}"
        if "\x00" in text:
            raise TieawareError(f"{where}: a NUL byte in the line: {shorten(text)!r}")
        columns = text.split()
        if len(columns) != width:
            raise TieawareError(f"{where}: expected {width} columns ({columns_wanted}), got {len(columns)}: {shorten(text)!r}")
        if kind == "prefs":
            qid, jg, jsg, docno, raw = columns
        else:
            qid, jg, docno, raw = columns
            jsg = "0"  # trec_eval: one sub-group per judgment group
        level = number_text(raw, "label" if kind != "prefs" else "level", where)
        if kind == "qrels_jg":
            first = jg_docs.setdefault((qid, jg, docno), lineno)
            if first != lineno:  # trec_eval refuses it too ("duplicate docs")
                raise TieawareError(
                    f"{where}: duplicate judgement of docno {docno!r} for query {qid!r} in judgment group {jg!r} "
                    f"(first on line {first})"
                )
            trec: Union[float, int] = _atol(raw)
        else:
            trec = c_float(float(level))
        out.setdefault(qid, []).append(Judgment(jg, jsg, docno, level, trec))
    return out


def parse_prefs(lines: Iterable[str], name: str = "<prefs>") -> Judgments:
    """Parse prefs lines ``qid jg jsg docno level`` (trec_eval's ``-R prefs``)."""
    return _parse(lines, name, "prefs")


def parse_qrels_prefs(lines: Iterable[str], name: str = "<qrels>") -> Judgments:
    """Parse qrels lines ``qid iter docno label`` as preferences (``-R qrels_prefs``): iter is the jg."""
    return _parse(lines, name, "qrels_prefs")


def parse_qrels_jg(lines: Iterable[str], name: str = "<qrels>") -> Judgments:
    """Parse qrels lines ``qid jg docno label`` with judgment groups (``-R qrels_jg``).

    A document judged twice in one jg of a query is refused (trec_eval
    refuses it too).
    """
    return _parse(lines, name, "qrels_jg")


_PARSERS = {"prefs": parse_prefs, "qrels_prefs": parse_qrels_prefs, "qrels_jg": parse_qrels_jg}


def read_relevance(source: Source, kind: str) -> Judgments:
    """Read a file (path, ``-`` for stdin, gz or bz2) in trec_eval's relevance format *kind*.

    An empty file is refused (trec_eval cannot read one either).
    """
    if kind not in _PARSERS:
        raise TieawareError(f"-R must be one of qrels, {', '.join(FORMATS)}; got {kind!r}")
    with text_lines(source, f"<{kind}>") as (lines, name):
        out = _PARSERS[kind](lines, name)
    if not out:
        raise TieawareError(f"{name}: no judgement in the file (-R {kind} expects lines '{FORMATS[kind]}')")
    return out


def read_prefs(source: Source) -> Judgments:
    """Read a prefs file (``-R prefs``)."""
    return read_relevance(source, "prefs")


def read_qrels_prefs(source: Source) -> Judgments:
    """Read a qrels file as preferences (``-R qrels_prefs``)."""
    return read_relevance(source, "qrels_prefs")


def read_qrels_jg(source: Source) -> Judgments:
    """Read a qrels file with judgment groups (``-R qrels_jg``)."""
    return read_relevance(source, "qrels_jg")


# -- the measures of these formats, as trec_eval names and prints them ------------------------------

#: trec_eval's preference measures in its order (measures.c); the first three are counts.
PREFS_NAMES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)  # fmt: skip
#: The judgment-group measures (qrels_jg), in trec_eval's order.
JG_FAMILIES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
_SETS = {
    "all_prefs": ("runid", "num_q", *PREFS_NAMES),
    "prefs": ("runid", "num_q", *PREFS_NAMES[:6]),
    "qrels_jg": ("runid", "num_q", *JG_FAMILIES),
}
_P_DEFAULT = "5,10,15,20,30,100,200,500,1000"
_RPREC_DEFAULT = "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"


class RelevanceMeasures(NamedTuple):
    """What ``-m`` asks for under ``-R prefs``/``qrels_prefs``/``qrels_jg``, in trec_eval's print order."""

    runid: bool
    num_q: bool
    #: Preference measures asked for (names of :data:`PREFS_NAMES`).
    prefs: tuple[str, ...]
    #: map_avgjg asked for.
    map_avgjg: bool
    #: P_avgjg's cutoffs (ascending) and Rprec_mult_avgjg's multiples (ascending, exact).
    cutoffs: tuple[int, ...]
    multiples: tuple[Fraction, ...]

    def names(self) -> list[str]:
        """The output names of the values, in print order (runid and num_q aside)."""
        out = list(self.prefs) + (["map_avgjg"] if self.map_avgjg else [])
        out += [f"P_avgjg_{k}" for k in self.cutoffs]
        out += [f"Rprec_mult_avgjg_{float(m):3.2f}" for m in self.multiples]
        return out


def _params(family: str, raw: str, integer: bool) -> list:
    values = []
    for part in raw.split(","):
        where = f"-m {family}.{raw}"
        if integer:
            if not re.fullmatch(r"\+?\d+", part.strip()) or int(part) <= 0:
                raise TieawareError(f"{where}: each cutoff must be an integer > 0, got {part!r}")
            values.append(int(part))
        else:
            values.append(number_text(part.strip(), "multiple", where))
    if len(set(values)) != len(values):
        raise TieawareError(f"-m {family}.{raw}: a parameter is repeated (trec_eval refuses duplicate cutoffs)")
    return sorted(values)  # trec_eval sorts them


def relevance_measures(arguments: Iterable[str], kind: str) -> RelevanceMeasures:
    """Read ``-m`` arguments (sets, names, ``family.params``) for relevance format *kind*.

    >>> relevance_measures(["qrels_jg"], "qrels_jg").names()[:3]
    ['map_avgjg', 'P_avgjg_5', 'P_avgjg_10']
    >>> relevance_measures(["P_avgjg.20,5"], "qrels_jg").names()
    ['P_avgjg_5', 'P_avgjg_20']
    >>> relevance_measures(["map"], "prefs")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: -m map is not a measure of -R prefs: use prefs_* measures or the sets all_prefs, prefs
    """
    allowed = set(PREFS_NAMES) if kind != "qrels_jg" else set(JG_FAMILIES)
    sets = ("all_prefs", "prefs") if kind != "qrels_jg" else ("qrels_jg",)
    asked: dict[str, Optional[str]] = {}
    for argument in arguments:
        for token in argument.split():
            family, _, raw = token.partition(".")
            for name in _SETS.get(token, (family,)) if token in sets else (family,):
                if name not in allowed and name not in ("runid", "num_q"):
                    hint = "prefs_* measures or the sets all_prefs, prefs" if kind != "qrels_jg" else "map_avgjg, P_avgjg, Rprec_mult_avgjg or the set qrels_jg"
                    raise TieawareError(f"-m {token} is not a measure of -R {kind}: use {hint}")
                if raw and name not in ("P_avgjg", "Rprec_mult_avgjg"):
                    raise TieawareError(f"-m {token}: {name} takes no parameters")
                asked[name] = raw or asked.get(name)
    if not asked:
        raise TieawareError(f"-m names no measure of -R {kind}")
    cutoffs = tuple(_params("P_avgjg", asked["P_avgjg"] or _P_DEFAULT, True)) if "P_avgjg" in asked else ()
    multiples = tuple(_params("Rprec_mult_avgjg", asked["Rprec_mult_avgjg"] or _RPREC_DEFAULT, False)) if "Rprec_mult_avgjg" in asked else ()
    return RelevanceMeasures(
        "runid" in asked, "num_q" in asked, tuple(m for m in PREFS_NAMES if m in asked), "map_avgjg" in asked, cutoffs, multiples
    )


def _text(value: Any, count: bool, digits: int) -> str:
    """A value as trec_eval prints it: ``%6.4f`` of a double; a count as an integer (when whole)."""
    if isinstance(value, float):
        if count and math.isfinite(value):
            return str(int(value))  # trec_eval's (long) value
        return f"{value:6.{digits}f}".replace("nan", "-nan") if math.isnan(value) else f"{value:6.{digits}f}"
    if count and Fraction(value).denominator == 1:
        return str(int(value))
    return decimal(value, digits)


def render(
    asked: RelevanceMeasures,
    per_query: Mapping[str, Mapping[str, Any]],
    *,
    show_queries: bool = False,
    summary: bool = True,
    divisor: Optional[int] = None,
    runid: str = "",
    digits: int = 4,
) -> str:
    """trec_eval's output for these measures: per query (``-q``), then the summary.

    Values that are floats are trec_eval's doubles, printed as it prints them;
    exact values are correctly rounded.  The counts (prefs_num_prefs_*) are
    summed over queries, the others averaged over *divisor* queries (the
    evaluated ones, or every judged one with ``-c``).

    >>> m = relevance_measures(["prefs_num_prefs_ful", "prefs_simp"], "prefs")
    >>> print(render(m, {"q1": {"prefs_num_prefs_ful": Fraction(3, 2), "prefs_simp": Fraction(1, 3)}}, show_queries=True))  # doctest: +NORMALIZE_WHITESPACE
    prefs_num_prefs_ful   \tq1\t1.5000
    prefs_simp            \tq1\t0.3333
    prefs_num_prefs_ful   \tall\t1.5000
    prefs_simp            \tall\t0.3333
    """
    names = asked.names()
    counts = set(PREFS_NAMES[:3])
    queries = sorted(per_query)  # strcmp order, as trec_eval's
    lines = []
    if show_queries:
        for q in queries:
            lines += [f"{n:<22}\t{q}\t{_text(per_query[q][n], n in counts, digits)}" for n in names]
    if not summary:
        return "\n".join(lines)
    n_q = len(queries) if divisor is None else divisor
    if asked.runid:
        lines.append(f"{'runid':<22}\tall\t{runid}")
    if asked.num_q:
        lines.append(f"{'num_q':<22}\tall\t{n_q}")
    for n in names:
        values = [per_query[q][n] for q in queries]
        total = values[0] * 0 if values else 0.0
        for v in values:  # in query order, as trec_eval accumulates
            total += v
        mean = total if n in counts else (total / n_q if n_q else total * 0)
        lines.append(f"{n:<22}\tall\t{_text(mean, n in counts, digits)}")
    return "\n".join(lines)
