"""trec_eval's measure list, names, layout and averaging, for ``tieaware eval --format trec``.

A script that parses trec_eval's output reads this unchanged.  What is
reproduced here (read from trec_eval 9.0.8's source, usnistgov/trec_eval:
trec_eval.c, measures.c, meas_init.c, meas_acc.c, meas_avg.c,
meas_print_single.c, meas_print_final.c, convert_zscores.c and the m_*.c
files):

- **-m** (:func:`trec_measures`): each argument is a measure family, a
  family with parameters after a dot (``P.5,10``, ``iprec_at_recall.0.5``,
  ``utility.1,-1,0,0``, ``ndcg.1=3.5,2=9``) or a set (``official``,
  ``set``, ``all_trec``).  As in trec_eval, the parameters of a family are
  those of its **first** ``-m`` with parameters (``-m P.5 -m P.10`` is
  ``P_5`` alone), a family without them takes trec_eval's defaults (``-m P``
  is P_5 ... P_1000), cutoffs are sorted and must be > 0 and distinct, and
  a family is printed once however often it is named.  Any other name is a
  tieaware name (``nDCG@10``, ``P_5``, ``F1@10``).
- **Lines**: ``"%-22s\\t%s\\t%6.4f"`` (name, query or ``all``, value); the
  counts are longs, ``"%-22s\\t%s\\t%ld"``; ``runid`` prints the run's id,
  ``relstring`` a quoted string per query.  With ``-Z`` every value line
  starts with ``Z`` and every value, counts included, prints as ``%6.4f``.
- **Names** (:func:`trec_name`): ``map``, ``map_cut_10``, ``P_5``,
  ``iprec_at_recall_0.10`` (``%3.2f``, cut to trec_eval's buffer),
  ``Rprec_mult_0.20``, ``set_F``; a family given parameters that it prints
  whole prints them as typed (``utility_1,-1,0,0``, ``ndcg_1=3.5,2=9``,
  ``11pt_avg_0.2,0.5,0.8``).  A measure trec_eval does not have (``F1@10``,
  ``RR@10``, ``P(rel=2)@5`` at the default level, ...) is printed under its
  tieaware name, after trec_eval's own measures.
- **Order**: queries in ``strcmp`` order; within a query, and in the
  summary, trec_eval's measure order (:data:`TREC_ORDER`), values of a
  family in its parameter order.
- **Summaries**: the counts (``num_ret``, ``num_rel``, ``num_rel_ret``,
  ``num_nonrel_judged_ret``) are **sums**; ``num_q`` is the number of
  queries; ``gm_map`` and ``gm_bpref`` the geometric mean
  exp(Σ log(max(v, 0.00001))/n); every other measure the sum of its
  per-query doubles in query order divided by the number of queries, as
  trec_eval accumulates them, so that the last printed digit rounds as
  trec_eval's does.  ``num_q``, ``gm_map``, ``gm_bpref`` and ``runid`` have
  no per-query line, ``relstring`` no summary.
- **-c** (``complete``): the divisor is the number of judged queries, so a
  judged query missing from the run counts as 0 (as 0.00001 in the
  geometric means); ``num_q`` is that number and the ``num_rel`` summary
  counts every judged query's documents with label > 0 (m_num_rel.c counts
  ``rel > 0`` there, whatever the level).
- **-n**: no summary lines.  **-Z** (:func:`read_zscores`): every value of
  a query becomes (value − mean)/sd with the query's and measure's mean and
  sd from the file, -1000000 where the file has none (convert_zscores.c).

The values themselves are whatever the caller evaluated: tie-aware by
default, or in trec_eval's tie order.

>>> from tieaware.model.names import parse
>>> [trec_name(parse(n)) for n in ["AP", "AP@10", "P@5", "nDCG@10", "RR", "RR@10", "P(rel=2)@5", "IPrec@0.1"]]
['map', 'map_cut_10', 'P_5', 'ndcg_cut_10', 'recip_rank', None, None, 'iprec_at_recall_0.10']
>>> trec_name(parse("P(rel=2)@5"), level=2)
'P_5'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact, rational, to_float
from tieaware.model.names import MEASURES, Measure, parse
from tieaware.io.exact_print import nearest_float

__all__ = [
    "TREC_ORDER",
    "TREC_DEFAULT",
    "NICKNAMES",
    "TrecMeasures",
    "Completeness",
    "trec_name",
    "trec_measures",
    "completeness",
    "relstrings",
    "render",
    "read_zscores",
    "at_level",
    "with_docs",
    "MISSING_ZSCORE",
    "unsure",
    "trec_eval_mean",
    "near_half",
]

#: trec_eval's measure order (te_trec_measures in measures.c); output follows it.
TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret",
)  # fmt: skip

#: What ``--format trec`` prints without ``-m``: trec_eval's default set.
TREC_DEFAULT = "official"

#: trec_eval's measure sets (measures.c: te_trec_measure_nicknames).
NICKNAMES = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
        "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
        "num_nonrel_judged_ret",
    ),
}  # fmt: skip
#: trec_eval's sets and measures that read other relevance formats (-R prefs, qrels_jg): not computed.
_OTHER_FORMATS = (
    {"all_prefs", "prefs", "qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap"}
    | {f"prefs_{x}" for x in (
        "num_prefs_poss", "num_prefs_ful", "num_prefs_ful_ret", "simp", "pair", "avgjg", "avgjg_Rnonrel",
        "simp_ret", "pair_ret", "avgjg_ret", "avgjg_Rnonrel_ret", "simp_imp", "pair_imp", "avgjg_imp",
    )}
)  # fmt: skip

# The families, by how trec_eval reads their parameters (meas_init.c).
_LONG_CUTOFFS = {"P": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG", "success": "Success", "relative_P": "RelP"}
_LONG_DEFAULT = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_FLOAT_CUTOFFS = {
    "iprec_at_recall": "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
    "Rprec_mult": "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
}
_FLOAT_PARAMS = {"utility": "1.0,-1.0,0.0,0.0", "11pt_avg": "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0", "set_F": "1.0", "relstring": "10"}
_PAIRS = {"ndcg": "nDCG", "ndcg_rel": "nDCGRel", "Rndcg": "RnDCG", "G": "G"}
_PLAIN = {
    "num_q": "NumQ", "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "map": "AP",
    "gm_map": "GMAP", "Rprec": "Rprec", "bpref": "Bpref", "recip_rank": "RR", "infAP": "infAP",
    "gm_bpref": "GMBpref", "binG": "BinG", "set_P": "SetP", "set_relative_P": "SetP(relative=True)",
    "set_recall": "SetR", "set_map": "SetAP", "num_nonrel_judged_ret": "NumNonRelJudgedRet",
}  # fmt: skip
_FAMILIES = set(TREC_ORDER)

#: trec_eval's value of a z-score it cannot compute (MISSING_ZSCORE_VALUE in trec_eval.h).
MISSING_ZSCORE = -1000000.0
#: trec_eval's floor of the geometric means (MIN_GEO_MEAN).
_GEO_FLOOR = 0.00001


# -- trec_eval's number reading: atol and atof ----------------------------------------------


def _atol(text: str) -> int:
    """C's atol: the leading integer (after white space), 0 without one."""
    found = re.match(r"\s*([+-]?\d+)", text)
    return int(found.group(1)) if found else 0


def _atof(text: str) -> Fraction:
    """C's atof on a decimal: the longest leading decimal number, exactly; 0 without one."""
    found = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?)", text)
    return rational(found.group(1), "a trec_eval parameter") if found else Fraction(0)


def _atof_double(text: str) -> float:
    """C's atof as a double, with its ``nan``, ``inf`` and ``infinity`` (any case, signed): -Z files hold them.

    >>> _atof_double("  nan"), _atof_double("-Inf"), _atof_double("0.25x")
    (nan, -inf, 0.25)
    """
    found = re.match(r"\s*([+-]?)(nan|inf(?:inity)?)", text, re.IGNORECASE)
    if found:
        return float(found.group(1) + found.group(2))
    return float(_atof(text))


def _float_name(family: str, value: Fraction) -> str:
    """``family_%3.2f`` as trec_eval writes it, into its buffer of strlen(family) + 10 bytes."""
    return f"{family}_{float(value):3.2f}"[: len(family) + 9]


# -- the names -------------------------------------------------------------------------------


def _family(m: Measure, level: Fraction) -> Optional[tuple[str, str, Any]]:
    """(trec_eval family, output name, order within the family) of *m* at relevance *level*, or None."""
    p = dict(m.params)
    rel_ok = p.get("rel", Fraction(1)) == level
    keys = set(p)
    name, k = m.name, m.k

    def only(*allowed: str) -> bool:
        return keys <= set(allowed)

    if name in ("AP", "P", "R", "Success", "RelP") and only("rel") and rel_ok:
        family = {"AP": "map_cut" if k is not None else "map", "P": "P", "R": "recall", "Success": "success", "RelP": "relative_P"}[name]
        return family, family if k is None else f"{family}_{k}", k or 0
    if name == "RR" and k is None and only("rel") and rel_ok:
        return "recip_rank", "recip_rank", 0
    if name == "nDCG" and only("dcg", "gains") and p.get("dcg", "log2") == "log2":
        gains = p.get("gains")
        if k is None:
            return "ndcg", "ndcg" if gains is None else "ndcg_" + gains.replace(";", ","), 0
        return ("ndcg_cut", f"ndcg_cut_{k}", k) if gains is None else None
    if name == "Rprec" and only("rel", "mult") and rel_ok:
        mult = p.get("mult")
        return ("Rprec", "Rprec", 0) if mult is None else ("Rprec_mult", _float_name("Rprec_mult", mult), mult)
    if name == "IPrec" and only("rel", "recall") and rel_ok:
        return "iprec_at_recall", _float_name("iprec_at_recall", p["recall"]), p["recall"]
    if name == "NumRet" and not keys:
        return "num_ret", "num_ret", 0
    simple = {
        "Bpref": "bpref", "NumRet": "num_rel_ret", "NumRelRet": "num_rel_ret", "NumRel": "num_rel",
        "NumNonRelJudgedRet": "num_nonrel_judged_ret", "SetR": "set_recall", "SetAP": "set_map", "infAP": "infAP",
        "BinG": "binG", "GMAP": "gm_map", "GMBpref": "gm_bpref",
    }  # fmt: skip
    if name in simple and only("rel") and rel_ok:
        return simple[name], simple[name], 0
    if name == "NumQ" and not keys:
        return "num_q", "num_q", 0
    if name == "SetP" and only("rel", "relative") and rel_ok:
        family = "set_relative_P" if p.get("relative") else "set_P"
        return family, family, 0
    if name == "SetF" and only("rel", "beta") and rel_ok:
        return "set_F", "set_F" if "beta" not in p else f"set_F_{p['beta']}", 0
    if name == "Utility" and only("rel", "a", "b", "c", "d", "docs") and rel_ok:
        if not keys & {"a", "b", "c", "d"}:
            return "utility", "utility", 0
        text = ",".join(str(p.get(x, d)) for x, d in (("a", "1"), ("b", "-1"), ("c", "0"), ("d", "0")))
        return "utility", f"utility_{text}", 0
    if name == "IPrecAvg" and only("rel", "levels") and rel_ok:
        return "11pt_avg", "11pt_avg" if "levels" not in p else "11pt_avg_" + p["levels"].replace(";", ","), 0
    if name in ("G", "nDCGRel", "RnDCG") and only("gains", "rel") and (name == "RnDCG" and rel_ok or "rel" not in p):
        family = {"G": "G", "nDCGRel": "ndcg_rel", "RnDCG": "Rndcg"}[name]
        gains = p.get("gains")
        return family, family if gains is None else f"{family}_{gains.replace(';', ',')}", 0
    return None


def trec_name(m: Measure, level: object = 1) -> Optional[str]:
    """trec_eval's output name of *m* at relevance *level* (``-l``), or None when it has none."""
    found = _family(m, Fraction(level))
    return None if found is None else found[1]


# -- -m: trec_eval's measure list -------------------------------------------------------------


@dataclass(frozen=True)
class TrecMeasures:
    """What a list of ``-m`` arguments asks for, as trec_eval reads it (:func:`trec_measures`)."""

    #: The measures to evaluate, counts included, in the order given (tieaware's names last).
    measures: tuple[Measure, ...]
    #: Whether ``runid`` is printed.
    runid: bool = False
    #: ``relstring``'s output name and length (trec_eval's first parameter), or None.
    relstring: Optional[tuple[str, int]] = None
    #: trec_eval measures named that tieaware does not compute (other relevance formats).
    left_out: tuple[str, ...] = field(default=())


def trec_measures(arguments: Sequence[str], level: object = 1) -> TrecMeasures:
    """The measures that trec_eval's ``-m`` *arguments* name, read as trec_eval reads them.

    Each argument may hold several names separated by white space (a
    tieaware extension); each name is a trec_eval family or set, with
    parameters after a dot, or a tieaware measure name.

    >>> [str(m) for m in trec_measures(["P.10,5", "map", "P.20", "nDCG@10"]).measures]
    ['AP', 'P@5', 'P@10', 'nDCG@10']
    >>> [str(m) for m in trec_measures(["iprec_at_recall.0.5", "set_F.0.5", "utility.2,-1,0,0"]).measures]
    ['IPrec@0.5', "Utility(a=2,b='-1',c=0,d=0)", 'SetF(beta=0.5)']
    >>> len(trec_measures(["official"]).measures), trec_measures(["official"]).runid
    (29, True)
    >>> trec_measures(["P.5,5"])
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: -m has duplicate cutoffs (trec_eval refuses them), got 'P.5,5'
    """
    tokens = [t for a in arguments for t in a.split()]
    if not tokens:
        raise bad("-m", list(arguments), "names no measure")
    marked: list[str] = []
    params: dict[str, str] = {}
    tieaware: list[Measure] = []
    left_out: list[str] = []
    for token in tokens:
        name, dot, raw = token.partition(".")
        known = name in NICKNAMES or name in _FAMILIES or name in _OTHER_FORMATS
        if dot and known and raw == "":
            raise bad("-m", token, "has an empty parameter list (trec_eval: improper measure)")
        if name in _OTHER_FORMATS:
            left_out.append(name)
            continue
        if name in NICKNAMES:
            marked += [f for f in NICKNAMES[name] if f not in marked]
            continue
        if name in _FAMILIES:
            if name not in marked:
                marked.append(name)
            if dot and name not in params:  # trec_eval: the first -m with parameters wins
                params[name] = raw
            continue
        tieaware.append(parse(token))
    measures: list[Measure] = []
    relstring = None
    for family in TREC_ORDER:
        if family not in marked:
            continue
        if family == "relstring":
            raw = params.get(family)
            length = int(_atof((raw or _FLOAT_PARAMS[family]).split(",")[0]))
            relstring = ("relstring" if raw is None else f"relstring_{raw}", length)
            continue
        if family != "runid":
            measures += _expand(family, params.get(family))
    measures += tieaware
    return TrecMeasures(tuple(dict.fromkeys(measures)), "runid" in marked, relstring, tuple(dict.fromkeys(left_out)))


def _expand(family: str, raw: Optional[str]) -> list[Measure]:
    """The measures of one trec_eval family with its parameter string (None: trec_eval's defaults)."""
    token = family if raw is None else f"{family}.{raw}"
    if family in _PLAIN:
        return [parse(_PLAIN[family])]  # a family without parameters ignores any given, as trec_eval does
    if family in _LONG_CUTOFFS:
        cutoffs = (1, 5, 10) if family == "success" else _LONG_DEFAULT
        if raw is not None:
            cutoffs = tuple(sorted(_atol(x) for x in raw.split(",")))
            if cutoffs[0] <= 0:
                raise bad("-m", token, "needs cutoffs > 0 (trec_eval: negative cutoff detected)")
            if len(set(cutoffs)) != len(cutoffs):
                raise bad("-m", token, "has duplicate cutoffs (trec_eval refuses them)")
        return [parse(f"{_LONG_CUTOFFS[family]}@{k}") for k in cutoffs]
    if family in _FLOAT_CUTOFFS:
        values = sorted(_atof(x) for x in (raw or _FLOAT_CUTOFFS[family]).split(","))
        doubles = [float(v) for v in values]
        if len(set(doubles)) != len(doubles):
            raise bad("-m", token, "has duplicate cutoffs (trec_eval refuses them)")
        if family == "iprec_at_recall":
            return [Measure("IPrec", None, (("recall", v),)) for v in values]
        return [Measure("Rprec", None, (("mult", v),)) for v in values]
    if family in _PAIRS:
        if raw is None:
            return [parse(_PAIRS[family])]
        return [parse(f"{_PAIRS[family]}(gains={raw.replace(',', ';')})")]
    values = (raw or _FLOAT_PARAMS[family]).split(",")
    if family == "utility":
        if len(values) != 4:
            raise bad("-m", token, "needs 4 coefficients (trec_eval: improper number of coefficients)")
        if raw is None:
            return [parse("Utility")]
        texts = [_number_text(v) for v in values]
        return [Measure("Utility", None, tuple(sorted(zip(("a", "b", "c", "d"), texts))))]
    if family == "set_F":
        return [parse("SetF")] if raw is None else [Measure("SetF", None, (("beta", _number_text(values[0])),))]
    # 11pt_avg: its levels as given, in their order (trec_eval does not sort them)
    return [parse("IPrecAvg")] if raw is None else [Measure("IPrecAvg", None, (("levels", ";".join(_number_text(v) for v in values)),))]


def _number_text(text: str) -> str:
    """A parameter as trec_eval's atof reads it, kept as written when it is a plain decimal."""
    value = _atof(text)
    stripped = text.strip()
    return stripped if re.fullmatch(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?", stripped) else str(value)


def at_level(measures: Iterable[Measure], level: object) -> tuple[Measure, ...]:
    """trec_eval's ``-l LEVEL``: ``rel=LEVEL`` on every measure that takes ``rel`` and names none.

    An explicit ``rel=`` is kept; nDCG has no ``rel`` (trec_eval's ndcg ignores
    the level too), nor has NumRet (num_ret counts every document).

    >>> from tieaware.model.names import parse_list
    >>> [str(m) for m in at_level(parse_list("P@5 P(rel=3)@5 nDCG@10 NumRet"), 2)]
    ['P(rel=2)@5', 'P(rel=3)@5', 'nDCG@10', 'NumRet']
    """
    lvl = rational(level, "-l")
    if lvl <= 0:
        raise bad("-l", level, "must be a relevance level > 0")
    out = []
    for m in measures:
        # nDCG's rel exists only with gain=binary; a graded gain has no level
        takes_rel = "rel" in MEASURES.get(m.name, (False, frozenset()))[1] and m.name not in ("nDCG", "DCG", "NumRet")
        if takes_rel and "rel" not in dict(m.params) and lvl != 1:
            m = Measure(m.name, m.k, tuple(sorted(m.params + (("rel", lvl),))))
        out.append(m)
    return tuple(out)


def with_docs(measures: Iterable[Measure], docs: Optional[int]) -> tuple[Measure, ...]:
    """trec_eval's ``-N DOCS`` (documents in the collection): ``docs=DOCS`` on every Utility that names none.

    >>> [str(m) for m in with_docs([parse("Utility"), parse("AP")], 1000)]
    ['Utility(docs=1000)', 'AP']
    """
    if docs is None:
        return tuple(measures)
    out = []
    for m in measures:
        if m.name == "Utility" and "docs" not in dict(m.params):
            m = Measure(m.name, m.k, tuple(sorted(m.params + (("docs", int(docs)),))))
        out.append(m)
    return tuple(out)


# -- the counts -c needs, the run's id, relstring -------------------------------------------


@dataclass(frozen=True)
class Completeness:
    """What ``-c`` reads from the qrels: the judged queries and, over them, the documents with label > 0."""

    judged_queries: int
    judged_relevant: int


def completeness(prepared: Any, qrels_table: Any) -> Completeness:
    """:class:`Completeness` from columns: a :class:`tieaware.io.columns.Prepared` and its qrels Table."""
    import numpy as np

    from tieaware.io.text import number_text

    texts, inverse = np.unique(qrels_table.value, return_inverse=True)
    positive = np.array([number_text(t.decode("utf-8"), "label", qrels_table.name) > 0 for t in texts.tolist()], dtype=bool)
    return Completeness(
        judged_queries=len(prepared.qids) + len(prepared.skipped_qrels),
        judged_relevant=int(positive[inverse].sum()) if len(texts) else 0,
    )


def relstrings(prepared: Any, length: int, depth: Optional[int] = None, judged_only: bool = False) -> dict[str, str]:
    """Each query's ``relstring``: the relevance of its first *length* documents, one character each.

    trec_eval's characters (m_relstring.c): the label 0-9, ``>`` above 9,
    ``-`` not in the qrels, ``.`` a negative label (in the qrels, not
    judged).  Tie-aware, a rank whose character differs between
    tie-breakings (its tie group holds documents of several characters)
    prints ``?``; in trec_eval's order every rank has one character.
    """
    import numpy as np

    values = prepared.label_values
    out: dict[str, str] = {}
    starts = np.append(prepared.query_start, prepared.rows)
    gs = prepared.group_start
    for i, qid in enumerate(prepared.qids):
        lo, hi = int(starts[i]), int(starts[i + 1])
        chars = []
        for row in range(lo, hi):
            if prepared.judged is not None and not prepared.judged[row]:
                chars.append("-")
            elif prepared.negative is not None and prepared.negative[row]:
                chars.append(".")
            else:
                x = values[int(prepared.label[row])]
                chars.append(">" if x > 9 else str(int(x)))
        bounds = gs[np.searchsorted(gs, lo) : np.searchsorted(gs, hi)].tolist() + [hi]
        groups = [chars[a - lo : b - lo] for a, b in zip(bounds, bounds[1:])]
        out[qid] = _relstring(groups, length, depth, judged_only)
    return out


def _relstring(groups: list[list[str]], length: int, depth: Optional[int], judged_only: bool) -> str:
    """The characters of the first *length* ranks, ``?`` where the tie-breaking decides; -M and -J applied."""
    kept: list[list[str]] = []
    top = 0
    for g in groups:
        if depth is not None and top >= depth:
            break
        slots = len(g) if depth is None else min(len(g), depth - top)
        if slots < len(g):  # the cut crosses this group: a random part of it is kept
            judged = [c for c in g if c not in "-."]
            if judged_only and 0 < len(judged) < len(g):
                # how many judged documents the kept part holds depends on the tie-breaking:
                # the fewest it can hold are shown, as unknown characters
                kept.append(["?"] * max(0, slots - (len(g) - len(judged))))
            else:
                part = judged if judged_only else g
                kept.append((part[:1] * slots) if len(set(part)) == 1 else ["?"] * (slots if not judged_only else len(part)))
            break
        kept.append([c for c in g if c not in "-."] if judged_only else list(g))
        top += len(g)
    flat: list[str] = []
    for g in kept:
        flat += g if len(set(g)) <= 1 else ["?"] * len(g)
    return "".join(flat)[: max(0, length)]


# -- -Z ------------------------------------------------------------------------------------


def read_zscores(source: Any) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's ``-Z`` file: lines ``qid measure mean sd`` as {(qid, measure): (mean, sd)} (get_zscores.c).

    >>> import io
    >>> read_zscores(io.StringIO("q1 map 0.25 0.1\\n"))
    {('q1', 'map'): (0.25, 0.1)}
    """
    from tieaware.io.text import open_binary

    if hasattr(source, "read"):
        text = source.read()
        name = getattr(source, "name", "<zscores>")
    else:
        stream, name, close = open_binary(source)
        try:
            text = stream.read().decode("utf-8")
        finally:
            if close:
                stream.close()
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        columns = line.split()
        if not columns:
            continue
        if len(columns) != 4:
            raise TieawareError(f"{name}:{number}: expected 4 columns (qid measure mean sd), got {len(columns)}")
        qid, meas, mean, sd = columns
        for field in (mean, sd):  # trec_eval's atof reads "abc" as 0 and "0.5x" as 0.5: a typo would pass unseen
            if not re.fullmatch(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf(?:inity)?)", field, re.IGNORECASE):
                raise TieawareError(f"{name}:{number}: {field!r} is not a number (qid measure mean sd)")
        out[qid, meas] = (_atof_double(mean), _atof_double(sd))
    return out


def _zscore(value: float, qid: str, name: str, zscores: Mapping[tuple[str, str], tuple[float, float]], qids: set) -> float:
    if qid not in qids:
        return MISSING_ZSCORE
    found = zscores.get((qid, name))
    if found is None:
        return MISSING_ZSCORE
    mean, sd = found
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING_ZSCORE


# -- the layout -----------------------------------------------------------------------------


def _double(value: Exact) -> float:
    """The nearest double to *value*: a sympy value by interval arithmetic (:func:`nearest_float`).

    Not sympy's evalf: an exact ndcg_rel or Rndcg on a query of 1,000
    documents is a sum of quotients of sums of thousands of c·log(2)/log(b)
    terms, a tree of a few thousand distinct nodes that evalf walks as a tree
    of hundreds of thousands (every shared sum again at each use, with its
    precision raised where terms cancel): seconds a value, where the interval
    evaluation, every node once, takes milliseconds.  The double is the one
    both ends of the enclosure round to, so it is the exact value correctly
    rounded.
    """
    if isinstance(value, (int, float, Fraction)) or not hasattr(value, "free_symbols"):
        return to_float(value)
    return nearest_float(value)


def _line(name: str, qid: str, text: str, z: bool = False) -> str:
    return f"{'Z' if z else ''}{name:<22}\t{qid}\t{text}"


def render(
    measures: Sequence[Measure],
    per_query: Mapping[str, Mapping[str, Exact]],
    tally: Completeness,
    *,
    show_queries: bool = False,
    summary: bool = True,
    complete: bool = False,
    level: object = 1,
    digits: int = 4,
    runid: Optional[str] = None,
    relstring: Optional[tuple[str, Mapping[str, str]]] = None,
    zscores: Optional[Mapping[tuple[str, str], tuple[float, float]]] = None,
    doubles: Optional[Mapping[str, Mapping[str, float]]] = None,
    memo: Optional[dict] = None,
) -> str:
    """trec_eval's output for *measures* over the queries of *per_query* ({qid: {str(measure): value}}).

    *runid* is printed first in the summary when given; *relstring* is
    (output name, {qid: string}); *zscores* turns on ``-Z``.  *doubles*
    ({qid: {str(measure): double}}) replaces a value's nearest double by the
    one given: trec_eval's own (:mod:`tieaware.io.trec_doubles`), whose last
    printed digit can differ where the value is a rounding half, and its
    ``-nan``; :func:`unsure` says which measures need them.

    >>> from fractions import Fraction as F
    >>> print(render([parse("NumQ"), parse("P@1"), parse("NumRet")], {"q1": {"NumQ": F(1), "P@1": F(1), "NumRet": F(2)}},
    ...              Completeness(2, 2), complete=True))
    num_q                 \tall\t2
    num_ret               \tall\t2
    P_1                   \tall\t0.5000
    """
    return _render(measures, per_query, tally, show_queries, summary, complete, level, digits, runid, relstring, zscores, doubles, None, memo)


def unsure(
    measures: Sequence[Measure],
    per_query: Mapping[str, Mapping[str, Exact]],
    tally: Completeness,
    *,
    show_queries: bool = False,
    summary: bool = True,
    complete: bool = False,
    level: object = 1,
    digits: int = 4,
    zscores: Optional[Mapping[tuple[str, str], tuple[float, float]]] = None,
    doubles: Optional[Mapping[str, Mapping[str, float]]] = None,
    memo: Optional[dict] = None,
) -> tuple[Measure, ...]:
    """The measures :func:`render` would print a value of within 10^-9 (relative) of a rounding half.

    Only those :func:`tieaware.io.trec_doubles.emulated` computes: trec_eval's
    double of any other is the exact value's nearest double.  Their printed
    digit depends on trec_eval's rounding errors: pass their doubles to
    :func:`render`.

    >>> from fractions import Fraction as F
    >>> [str(m) for m in unsure([parse("SetF"), parse("P@5")], {"q1": {"SetF": F(11, 32), "P@5": F(11, 32)}}, Completeness(1, 1))]
    ['SetF']
    """
    found: set[str] = set()
    _render(measures, per_query, tally, show_queries, summary, complete, level, digits, None, None, zscores, doubles, found, memo)
    return tuple(m for m in measures if str(m) in found)


def trec_eval_mean(m: Measure, doubles: Mapping[str, float], divisor: int) -> float:
    """trec_eval's summary double of *m*: its per-query *doubles* ({qid: double}) summed in ``strcmp`` order,
    divided by *divisor* (the geometric means: exp of the mean log, the missing queries of ``-c`` at the floor).

    >>> trec_eval_mean(parse("AP"), {"q2": 0.1, "q1": 0.2}, 2)
    0.15000000000000002
    """
    total = 0.0
    for q in sorted(doubles):
        value = doubles[q]
        total += math.log(max(value, _GEO_FLOOR)) if m.aggregate == "gm" else value
    if m.aggregate == "gm":
        total += (divisor - len(doubles)) * math.log(_GEO_FLOOR)
        return math.exp(total / divisor) if divisor else 0.0
    return total / divisor if divisor else 0.0


def near_half(value: float, digits: int) -> bool:
    """Whether *value* lies within 10^-9 (relative, at least 10^-9 absolute) of a rounding half at *digits* digits.

    >>> near_half(0.34375, 4), near_half(0.34374999999999994, 4), near_half(0.3437, 4)
    (True, True, False)
    """
    if not math.isfinite(value):
        return False
    if digits > 15:  # past a double's precision every printed digit depends on the double
        return True
    scaled = abs(value) * 10.0**digits
    tolerance = 1e-9 * 10.0**digits * max(1.0, abs(value))
    return abs(scaled - math.floor(scaled) - 0.5) < tolerance


def _render(
    measures: Sequence[Measure],
    per_query: Mapping[str, Mapping[str, Exact]],
    tally: Completeness,
    show_queries: bool,
    summary: bool,
    complete: bool,
    level: object,
    digits: int,
    runid: Optional[str],
    relstring: Optional[tuple[str, Mapping[str, str]]],
    zscores: Optional[Mapping[tuple[str, str], tuple[float, float]]],
    doubles: Optional[Mapping[str, Mapping[str, float]]],
    found: Optional[set],
    memo: Optional[dict] = None,
) -> str:
    from tieaware.io.trec_doubles import emulated, nan_text

    given = doubles or {}
    lvl = Fraction(level)
    for m in measures:
        if m.param("norel") in ("nan", "skip"):  # trec_eval averages a number per query
            raise bad("measure", str(m), "has norel=nan or norel=skip, which trec_eval's layout cannot print; use --format table or json")
    if digits < 0:
        raise bad("digits", digits, "must be an int >= 0")
    queries = sorted(per_query)  # strcmp order, as trec_eval sorts its results
    ordered = sorted(enumerate(measures), key=lambda pm: _sort_key(pm[1], lvl, pm[0]))
    names: list[tuple[Measure, str]] = []  # one line per output name: P@5 and P(rel=1)@5 are both P_5
    for _, m in ordered:
        name = trec_name(m, lvl) or str(m)
        if name not in (n for _, n in names):
            names.append((m, name))
    relstring_at = TREC_ORDER.index("relstring")
    z = zscores is not None
    zqids = {q for q, _ in zscores} if zscores is not None else set()

    # each value turned into a double once (-q prints it, the mean sums it; unsure() and render() share *memo*)
    doubled: dict[tuple[str, str], float] = {} if memo is None else memo
    keys = {id(m): str(m) for m in measures}  # each measure's name, made once, not once a query

    def raw(m: Measure, q: str) -> float:
        """The per-query double trec_eval holds: the value, or log(max(v, 0.00001)) for the geometric means."""
        key = (q, keys[id(m)])
        value = given.get(q, {}).get(key[1])  # trec_eval's own double, when given
        if value is None:
            value = doubled.get(key)
            if value is None:
                value = doubled[key] = _double(per_query[q][key[1]])
        if m.aggregate == "gm":
            value = math.log(max(value, _GEO_FLOOR))
        return _zscore(value, q, trec_name(m, lvl) or keys[id(m)], zscores, zqids) if z else value

    def text(m: Measure, value: float, exact_value: Any = None) -> str:
        if m.aggregate == "sum" and not z:
            exact_value = value if exact_value is None else exact_value
            if float(exact_value).is_integer():
                return str(int(exact_value))
        if value != value:
            return nan_text(value)  # glibc's %6.4f of a NaN: "  -nan"
        if found is not None and emulated(m) and near_half(value, digits):
            found.add(str(m))
        return f"{value:6.{digits}f}"

    lines = []
    if show_queries:
        for q in queries:
            placed = relstring is None
            for m, name in names:
                if not placed and _family_index(m, lvl) > relstring_at:
                    lines.append(f"{relstring[0]:<22}\t{q}\t'{relstring[1].get(q, '')}'")
                    placed = True
                if m.name == "NumQ" or m.aggregate == "gm":
                    continue  # trec_eval prints them in the summary only
                value = raw(m, q)
                lines.append(_line(name, q, text(m, value, None if z else per_query[q][str(m)]), z))
            if not placed:
                lines.append(f"{relstring[0]:<22}\t{q}\t'{relstring[1].get(q, '')}'")
    if not summary:
        return "\n".join(lines)
    divisor = tally.judged_queries if complete else len(queries)
    if runid is not None:
        lines.append(f"{'runid':<22}\tall\t{runid}")
    for m, name in names:
        if m.name == "NumQ":
            lines.append(_line(name, "all", f"{float(divisor):6.{digits}f}" if z else str(divisor), z))
            continue
        total = 0.0
        for q in queries:  # sequential double sum in query order, as trec_eval's acc_meas
            total += raw(m, q)
        if m.aggregate == "sum":
            if complete and m.name == "NumRel":  # m_num_rel.c, -c: every judged query's documents with rel > 0
                total = float(tally.judged_relevant)
            exact_total = None
            if not z and all(_is_whole(per_query[q][str(m)]) for q in queries):
                exact_total = sum(int(to_float(per_query[q][str(m)])) for q in queries)
                if complete and m.name == "NumRel":
                    exact_total = tally.judged_relevant
            lines.append(_line(name, "all", text(m, total, exact_total), z))
            continue
        if m.aggregate == "gm":
            if complete:
                total += (divisor - len(queries)) * math.log(_GEO_FLOOR)
            value = math.exp(total / divisor) if divisor else 0.0
        else:
            value = total / divisor if divisor else 0.0
        lines.append(_line(name, "all", text(m, value), z))
    return "\n".join(lines)


def _is_whole(value: Any) -> bool:
    try:
        return float(value).is_integer()
    except (TypeError, ValueError):
        return False


def _family_index(m: Measure, level: Fraction) -> int:
    found = _family(m, level)
    return TREC_ORDER.index(found[0]) if found is not None else len(TREC_ORDER)


def _sort_key(m: Measure, level: Fraction, position: int) -> tuple:
    found = _family(m, level)
    if found is None:
        return (len(TREC_ORDER), position, 0)  # after trec_eval's own, in the order asked
    family, _, order = found
    # 11pt_avg and utility hold one value; a family with values keeps them in parameter order
    return (TREC_ORDER.index(family), 0, order)
