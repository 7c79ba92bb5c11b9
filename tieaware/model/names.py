"""Measure names in ir_measures syntax: ``P@5``, ``AP@100``, ``nDCG@10``, ``P(rel=2)@5``, ``RR@10``.

>>> m = parse("P(rel=2)@5")
>>> m.name, m.k, m.rel, str(m)
('P', 5, Fraction(2, 1), 'P(rel=2)@5')
>>> [str(x) for x in parse_list("AP nDCG@10 recip_rank")]
['AP', 'nDCG@10', 'RR']
>>> [str(x) for x in parse_list("p@5 mrr map ndcg@10")]     # case-insensitive, as ir_measures
['P@5', 'RR', 'AP', 'nDCG@10']
>>> parse("nDGC@10")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tieaware.model.errors.TieawareError: measure is not a known measure, did you mean 'nDCG'?; known: P, R, ... got 'nDGC@10'

Supported names and what they compute (see docs/conventions.md, Measures):

==========  =====================================  ==========================================
name        measure                                 parameters
==========  =====================================  ==========================================
P@k         precision, k required                   rel, norm=k | retrieved
R@k         recall, k required                      rel
F1@k        F1 (tieaware extension), k required     rel
AP[@k]      average precision                       rel, norm=R | capped | hits | k
RR[@k]      reciprocal rank                         rel
nDCG[@k]    normalised DCG, linear gain             dcg='log2' | 'exp-log2', gain=binary (+ rel)
DCG[@k]     DCG (tieaware extension)                dcg='log2' | 'exp-log2', gain=binary (+ rel)
RBP[@k]     rank-biased precision (lower bound)     p (default 0.8), rel
ERR[@k]     expected reciprocal rank, Chapelle      g_max (default: best judged grade)
RBO         rank-biased overlap of two rankings     p, variant, bound
Rprec       R-precision: P@R with R = num_rel       rel
Success@k   1 if a relevant doc is in the top k     rel
Judged[@k]  fraction of the top k that is judged    (unjudged: not in qrels)
Bpref       trec_eval's bpref                       rel
==========  =====================================  ==========================================

trec_eval's other families (docs/conventions.md, trec_eval's other families;
ir_measures' names where it has them):

==================  ================================  ===================================
name                trec_eval                         parameters
==================  ================================  ===================================
NumQ                num_q (a sum over queries)
NumRet              num_ret; NumRet(rel=1): num_rel_ret  rel
NumRelRet           num_rel_ret                       rel
NumRel              num_rel                           rel
NumNonRelJudgedRet  num_nonrel_judged_ret             rel
SetP                set_P; SetP(relative=True) (SetRelP): set_relative_P   rel, relative
SetR, SetAP         set_recall, set_map               rel
SetF                set_F                             rel, beta (trec_eval's, not squared)
Utility             utility                           rel, a, b, c, d (its p1..p4), docs (-N)
RelP@k              relative_P_k                      rel
Rprec(mult=m)       Rprec_mult_m                      rel, mult
IPrec@r             iprec_at_recall_r (r a recall level)  rel
IPrecAvg            11pt_avg                          rel, levels (recall levels, ;-separated)
infAP               infAP                             rel
BinG                binG                              rel
G                   G                                 gains (trec_eval's level=gain pairs)
nDCGRel, RnDCG      ndcg_rel, Rndcg                   gains (RnDCG: rel)
nDCG(gains=...)     ndcg with level=gain pairs        gains
GMAP, GMBpref       gm_map, gm_bpref: AP and Bpref per query, geometric mean over queries  rel
==================  ================================  ===================================

Every measure that has relevant documents also takes ``norel=0 | 1 | nan |
skip``: the value of a query with no relevant document (0, the default;
1; NaN; or no value, so the query is left out of a mean).  The conventions
``norm``, ``gain=binary``, ``g_max`` and ``norel`` are the ones other
libraries use (docs/conventions.md, Conventions of other libraries):

>>> [str(parse(x)) for x in ("AP(norm=capped)@5", "nDCG(gain=binary)@10", "ERR(g_max=4)@20", "RR(norel=nan)")]
['AP(norm=capped)@5', 'nDCG(gain=binary)@10', 'ERR(g_max=4)@20', 'RR(norel=nan)']
>>> str(parse("P(norm=k,norel=0)@5"))        # the defaults are not written
'P@5'

trec_eval's names are accepted as aliases: ``P_5``, ``recall_10``, ``map``,
``map_cut_100``, ``recip_rank``, ``ndcg``, ``ndcg_cut_10``.  Names are
case-insensitive (``p@5``, ``MRR``, ``ndcg@10``); an unknown name suggests
the closest known one.  Parameters are checked when the name is parsed
(``RBP(p=1.5)`` is refused there, not when the first query is evaluated),
and a parameter given twice is refused.

``str(m)`` is the canonical name, and ``parse(str(m)) == m``: the name that
keys results names the measure computed.  A terminating value prints as a
decimal with every digit (``RBP(p=0.04)``, as ir_measures writes it; from
six zeros after the point on, ``1e-7``), any other as ``p/q``
(``RBP(p=1/3)``); parameters in alphabetical order.

>>> str(parse("rbp(rel=2, p=1/25)@10"))
'RBP(p=0.04,rel=2)@10'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import rational

__all__ = ["Measure", "parse", "parse_list", "MEASURES", "RBP_P", "NORMS", "NOREL", "CONVENTIONS", "SUMS", "GEOMETRIC", "forms"]

#: name -> (k required?, allowed parameters)
MEASURES: dict[str, tuple[bool, frozenset[str]]] = {
    "P": (True, frozenset({"rel", "norm", "norel"})),
    "R": (True, frozenset({"rel", "norel"})),
    "F1": (True, frozenset({"rel", "norel"})),
    "AP": (False, frozenset({"rel", "norm", "norel"})),
    "RR": (False, frozenset({"rel", "norel"})),
    "nDCG": (False, frozenset({"dcg", "gain", "rel", "norel", "ideal"})),
    "DCG": (False, frozenset({"dcg", "gain", "rel"})),
    "RBP": (False, frozenset({"p", "rel", "norel"})),
    "ERR": (False, frozenset({"g_max", "norel"})),
    "Rprec": (False, frozenset({"rel", "norel"})),
    "Success": (True, frozenset({"rel", "norel", "multirel"})),
    "Judged": (False, frozenset()),
    "Bpref": (False, frozenset({"rel", "norel"})),
    "RBO": (False, frozenset({"p", "variant", "bound"})),
    # trec_eval's other families (docs/conventions.md)
    "NumQ": (False, frozenset()),
    "NumRet": (False, frozenset({"rel"})),
    "NumRelRet": (False, frozenset({"rel"})),
    "NumRel": (False, frozenset({"rel"})),
    "NumNonRelJudgedRet": (False, frozenset({"rel"})),
    "SetP": (False, frozenset({"rel", "relative"})),
    "SetR": (False, frozenset({"rel"})),
    "SetF": (False, frozenset({"rel", "beta"})),
    "SetAP": (False, frozenset({"rel"})),
    "Utility": (False, frozenset({"rel", "a", "b", "c", "d", "docs"})),
    "RelP": (True, frozenset({"rel"})),
    "IPrec": (True, frozenset({"rel"})),
    "IPrecAvg": (False, frozenset({"rel", "levels"})),
    "infAP": (False, frozenset({"rel"})),
    "BinG": (False, frozenset({"rel"})),
    "G": (False, frozenset({"gains"})),
    "nDCGRel": (False, frozenset({"gains"})),
    "RnDCG": (False, frozenset({"rel", "gains"})),
    "GMAP": (False, frozenset({"rel"})),
    "GMBpref": (False, frozenset({"rel"})),
}
MEASURES["nDCG"] = (False, MEASURES["nDCG"][1] | {"gains"})
MEASURES["Rprec"] = (False, MEASURES["Rprec"][1] | {"mult"})

#: Measures whose aggregate over queries is the sum (ir_measures' SumAgg; trec_eval's counters).
SUMS = frozenset({"NumQ", "NumRet", "NumRelRet", "NumRel", "NumNonRelJudgedRet"})
#: Measures whose aggregate is trec_eval's geometric mean (with its floor 0.00001).
GEOMETRIC = frozenset({"GMAP", "GMBpref"})

#: The normalisations (``norm=``) each measure takes, the default first:
#: P@k divided by k or by min(k, the documents retrieved); AP@k divided by
#: num_rel (R), by min(R, k) (``capped``), by the relevant documents in the
#: top k (``hits``) or by k (``k``).
NORMS: dict[str, tuple[str, ...]] = {"P": ("k", "retrieved", "capped"), "AP": ("R", "capped", "hits", "k")}
#: The values of a query with no relevant document (``norel=``), the default first.
NOREL = ("0", "1", "nan", "skip")
#: The parameters that name another library's convention (docs/conventions.md); ``gains`` is
#: trec_eval's rel_level=gain list for ndcg.
CONVENTIONS = frozenset({"norm", "gain", "g_max", "norel", "gains", "ideal", "multirel"})

_ALIASES = {
    "MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Recall": "R", "recall": "R", "map": "AP", "recip_rank": "RR", "ndcg": "nDCG",
    # trec_eval's names of its other families
    "num_q": "NumQ", "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet", "set_P": "SetP", "set_recall": "SetR", "set_F": "SetF",
    "set_map": "SetAP", "utility": "Utility", "binG": "BinG", "ndcg_rel": "nDCGRel", "Rndcg": "RnDCG",
    "gm_map": "GMAP", "gm_bpref": "GMBpref",
}  # fmt: skip
#: Every accepted spelling, lower-cased -> canonical name: names are
#: case-insensitive, as ir_measures' are (p@5, mrr, map, ndcg@10).  No two
#: names differ only in case, so nothing becomes ambiguous.
_BY_LOWER = {**{a.lower(): c for a, c in _ALIASES.items()}, **{n.lower(): n for n in MEASURES}}
_TREC = re.compile(r"^(P|recall|map_cut|ndcg_cut|success|relative_P)_(\d+)$", re.IGNORECASE)
_TREC_NAMES = {"p": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG", "success": "Success", "relative_p": "RelP"}
#: trec_eval's names with a float parameter: iprec_at_recall_0.10 is IPrec@0.1, Rprec_mult_0.20 Rprec(mult=0.2).
_TREC_FLOAT = re.compile(r"^(iprec_at_recall|Rprec_mult)_([-+]?[0-9]*\.?[0-9]+)$", re.IGNORECASE)
#: Names that stand for a measure with a parameter set.
_WITH_PARAMS = {"setrelp": ("SetP", "relative=True"), "set_relative_p": ("SetP", "relative=True"), "11pt_avg": ("IPrecAvg", "")}
#: Measures that take no cutoff: R-precision's depth is num_rel itself; the others read the whole ranking.
_NO_CUTOFF = frozenset({
    "Rprec", "Bpref", "NumQ", "NumRet", "NumRelRet", "NumRel", "NumNonRelJudgedRet", "SetP", "SetR", "SetF", "SetAP",
    "Utility", "IPrecAvg", "infAP", "BinG", "G", "nDCGRel", "RnDCG", "GMAP", "GMBpref",
})  # fmt: skip
#: Parameters kept as the text given (numbers checked), so trec_eval's output name can repeat it.
_TEXT_PARAMS = frozenset({"beta", "a", "b", "c", "d", "levels", "gains"})
_FORM = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[^@]+))?$")
_DCG_GAINS = {"log2": "linear", "exp-log2": "exp2"}


#: RBP's persistence p when the name gives none (ir_measures' default): every layer and engine reads it through :attr:`Measure.rbp_p`.
RBP_P = Fraction(4, 5)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its canonical name, cutoff (None: whole ranking) and parameters."""

    name: str
    k: Optional[int] = None
    params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def rel(self) -> Fraction:
        """The relevance threshold for binary measures (default 1)."""
        return dict(self.params).get("rel", Fraction(1))

    @property
    def rbp_p(self) -> Fraction:
        """RBP's persistence p (default :data:`RBP_P`, 4/5).

        >>> Measure("RBP").rbp_p, Measure("RBP", params=(("p", Fraction(1, 2)),)).rbp_p
        (Fraction(4, 5), Fraction(1, 2))
        """
        return dict(self.params).get("p", RBP_P)

    @property
    def gain(self) -> str:
        """The DCG gain: ``linear`` for dcg='log2' (default), ``exp2`` for dcg='exp-log2', ``binary`` for gain=binary."""
        if self.binary_gain:
            return "binary"
        return _DCG_GAINS[dict(self.params).get("dcg", "log2")]

    @property
    def binary_gain(self) -> bool:
        """True for ``gain=binary``: a document's gain is 1 when its label is >= rel, else 0."""
        return dict(self.params).get("gain") == "binary"

    @property
    def norm(self) -> str:
        """The normaliser (``norm=``): ``k`` or ``retrieved`` for P; ``R``, ``capped``, ``hits`` or ``k`` for AP."""
        return dict(self.params).get("norm", NORMS.get(self.name, ("",))[0])

    @property
    def norel(self) -> str:
        """The value of a query with no relevant document: ``"0"`` (default), ``"1"``, ``"nan"`` or ``"skip"``."""
        return dict(self.params).get("norel", NOREL[0])

    @property
    def conventions(self) -> tuple[str, ...]:
        """The convention parameters set (``norm``, ``gain``, ``g_max``, ``norel``): empty for the usual measure."""
        return tuple(key for key, _ in self.params if key in CONVENTIONS)

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def aggregate(self) -> str:
        """How values over queries combine: ``"mean"``, ``"sum"`` (the counts) or ``"gm"`` (GMAP, GMBpref).

        >>> parse("AP").aggregate, parse("NumRet").aggregate, parse("gm_map").aggregate
        ('mean', 'sum', 'gm')
        """
        return "sum" if self.name in SUMS else "gm" if self.name in GEOMETRIC else "mean"

    def replace(self, **params: Any) -> "Measure":
        """The same measure with some parameters set (a value None removes one), in canonical form.

        >>> str(parse("AP@5").replace(norm="capped")), str(parse("AP(norm=hits)@5").replace(norm=None))
        ('AP(norm=capped)@5', 'AP@5')
        """
        merged = dict(self.params)
        for key, value in params.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return parse(_text(self.name, tuple(sorted(merged.items())), self.k))

    def __str__(self) -> str:
        return _text(self.name, self.params, self.k)


def _text(name: str, params: tuple[tuple[str, Any], ...], k: Optional[int]) -> str:
    """The canonical name; IPrec writes its recall level after @, as ir_measures does (IPrec@0.1)."""
    at = f"@{k}" if k is not None else ""
    if name == "IPrec":
        at = "@" + _show(dict(params)["recall"])
        params = tuple((key, value) for key, value in params if key != "recall")
    inner = ",".join(f"{key}={_show(value)}" for key, value in params)
    return name + (f"({inner})" if inner else "") + at


def _show(value: Any) -> str:
    """A parameter value as :func:`parse` reads it back to the same value.

    >>> _show(Fraction(1, 25)), _show(Fraction(1, 3)), _show(Fraction(5, 2)), _show("exp-log2")
    ('0.04', '1/3', '2.5', "'exp-log2'")
    """
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        return _terminating(value) or str(value)
    return f"'{value}'" if isinstance(value, str) and "-" in value else str(value)


def _terminating(value: Fraction) -> Optional[str]:
    """*value* as a decimal with every digit exact, or None when it does not terminate.

    Plain (p=0.8, as ir_measures writes it) unless it starts with more than 5
    zeros after the point (p=1e-30).  Not through :class:`decimal.Decimal`
    division, which rounds to 28 digits: ``RBP(p=1/2**60)`` would print as a
    p it does not use.

    >>> _terminating(Fraction(1, 2**60)), _terminating(Fraction(3, 400)), _terminating(Fraction(1, 3))
    ('8.67361737988403547205962240695953369140625e-19', '0.0075', None)
    """
    d, places = value.denominator, 0
    for prime in (2, 5):
        count = 0
        while d % prime == 0:
            d //= prime
            count += 1
        places = max(places, count)
    if d != 1:
        return None
    sign = "-" if value < 0 else ""
    # value * 10**places is an integer; it ends in a non-zero digit unless places == 0
    digits = str(abs(value.numerator) * 10**places // value.denominator)
    if places > len(digits) + 5:
        return f"{sign}{digits[0]}{'.' + digits[1:] if len(digits) > 1 else ''}e-{places - len(digits) + 1}"
    digits = digits.rjust(places + 1, "0")
    return sign + (digits[:-places] + "." + digits[-places:] if places else digits)


def _param(measure: str, key: str, raw: str) -> Any:
    raw = raw.strip().strip("'\"")
    if key == "rel":
        value = rational(raw, f"rel in {measure!r}")
        if value <= 0:
            raise bad("measure", measure, "needs rel > 0")
        return value
    if key == "dcg":
        if raw not in _DCG_GAINS:
            raise bad("measure", measure, f"has dcg={raw!r}; use one of {sorted(_DCG_GAINS)}")
        return raw
    if key == "p":
        value = rational(raw, f"p in {measure!r}")
        if not 0 < value < 1:
            # Checked here, when the measure list is read, so a bad p is not
            # blamed on the first query evaluated.
            raise bad("measure", measure, f"needs p strictly between 0 and 1 (p={raw})")
        return value
    if key == "g_max":
        if not raw.isdigit() or int(raw) < 1:
            raise bad("measure", measure, f"needs g_max an int >= 1 (g_max={raw})")
        return int(raw)
    if key == "multirel":
        if raw != "nan":
            raise bad("measure", measure, f"has multirel={raw!r}; use multirel=nan (no value for a query with several relevant documents) or leave it out")
        return raw
    if key == "ideal":
        if raw != "k":
            raise bad("measure", measure, f"has ideal={raw!r}; use ideal=k (the ideal DCG of k relevant documents) or leave it out")
        return raw
    if key == "relative":
        if raw not in ("True", "true", "1", "False", "false", "0"):
            raise bad("measure", measure, f"has relative={raw!r}; use True or False")
        return raw in ("True", "true", "1")
    if key in ("mult", "docs"):
        value = rational(raw, f"{key} in {measure!r}")
        if key == "docs" and value.denominator != 1:
            raise bad("measure", measure, f"needs docs an int (trec_eval's -N), got {raw}")
        return value if key == "mult" else int(value)
    if key in ("beta", "a", "b", "c", "d"):
        value = rational(raw, f"{key} in {measure!r}")
        if key == "beta" and value < 0:
            raise bad("measure", measure, f"needs beta >= 0 (beta={raw})")
        return raw
    if key == "levels":
        parts = raw.split(";")
        for part in parts:
            rational(part, f"levels in {measure!r}")
        return raw
    if key == "gains":
        from tieaware.model.gains import trec_gain_pairs  # the pairs' own check, trec_eval's

        text = _gains_text(raw)
        trec_gain_pairs(text.replace(";", ","), f"gains in {measure!r}")
        return text
    # RBO's choices, checked here too, so no bad value waits for the first ranking
    choices = {"variant": ("w", "a", "b"), "bound": ("min", "max", "ext", "res"), "gain": ("binary",), "norel": NOREL}.get(key)
    if choices is not None and raw not in choices:
        raise bad("measure", measure, f"has {key}={raw!r}; use one of {list(choices)}")
    return raw


def _gains_text(raw: str) -> str:
    """Gains as trec_eval's pairs ``1=3.5;2=9``; ir_measures' dict ``{1:3.5,2:9}`` is read too.

    >>> _gains_text("{0:0, 1:1, 2:3}"), _gains_text("1=3.5;2=9.0")
    ('0=0;1=1;2=3', '1=3.5;2=9.0')
    """
    text = raw.strip()
    if text.startswith("{") and text.endswith("}"):
        pairs = [p.split(":", 1) for p in text[1:-1].split(",") if p.strip()]
        return ";".join(f"{a.strip()}={b.strip()}" for a, b in pairs)
    return text


def _split_params(text: str) -> list[str]:
    """Parameters split at the commas outside braces: ``gains={1:3,2:9},rel=2``."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p for p in parts if p.strip()]


def _suggestion(name: str) -> str:
    """', did you mean 'X'?' for the closest known spelling, or ''."""
    import difflib

    spellings = {**{n: n for n in MEASURES}, **_ALIASES}
    close = difflib.get_close_matches(name.lower(), [s.lower() for s in spellings], n=1, cutoff=0.5)
    if not close:
        return ""
    original = next(s for s in spellings if s.lower() == close[0])
    return f", did you mean {original!r}?"


def parse(text: str) -> Measure:
    """Parse one measure name; raise TieawareError naming it when it is not understood."""
    if not isinstance(text, str):
        raise bad("measure", text, "must be a string such as 'nDCG@10'")
    s = text.strip()
    trec = _TREC.match(s)
    if trec:
        s = f"{_TREC_NAMES[trec.group(1).lower()]}@{trec.group(2)}"
    trec = _TREC_FLOAT.match(s)
    if trec:
        s = f"IPrec@{trec.group(2)}" if trec.group(1).lower() == "iprec_at_recall" else f"Rprec(mult={trec.group(2)})"
    head = re.match(r"^([A-Za-z0-9_]+)", s)
    if head and head.group(1).lower() in _WITH_PARAMS:
        name, extra = _WITH_PARAMS[head.group(1).lower()]
        rest = s[head.end() :]
        if extra and rest.startswith("("):  # SetRelP(rel=2) is SetP(relative=True,rel=2)
            rest = f"({extra},{rest[1:]}"
        elif extra:
            rest = f"({extra}){rest}"
        s = name + rest
    m = _FORM.match(s)
    if not m:
        raise bad("measure", text, "is not of the form NAME(param=value,...)@k")
    name = _BY_LOWER.get(m.group("name").lower())
    if name is None:
        raise bad("measure", text, f"is not a known measure{_suggestion(m.group('name'))}; known: {', '.join(MEASURES)}")
    needs_k, allowed = MEASURES[name]
    k = None
    params = []
    if name == "IPrec":  # @ is a recall level, as in ir_measures (IPrec@0.1)
        if m.group("k") is None:
            raise bad("measure", text, "needs a recall level, e.g. IPrec@0.1")
        params.append(("recall", rational(m.group("k"), f"the recall level of {text!r}")))
    elif m.group("k") is not None:
        if not m.group("k").isdigit() or int(m.group("k")) < 1:
            raise bad("measure", text, "needs a cutoff @k with k an int >= 1")
        k = int(m.group("k"))
    elif needs_k:
        raise bad("measure", text, f"needs a cutoff, e.g. {name}@10")
    if k is not None and name in _NO_CUTOFF:
        why = "cuts at R = num_rel" if name == "Rprec" else "reads the whole ranking"
        raise bad("measure", text, f"takes no cutoff: {name} {why}")
    for part in _split_params(m.group("params") or ""):
        key, eq, raw = part.partition("=")
        key = key.strip()
        if not eq or key not in allowed:
            raise bad("measure", text, f"has parameter {part.strip()!r}; {name} takes {sorted(allowed) or 'none'}")
        if any(key == seen for seen, _ in params):
            raise bad("measure", text, f"gives {key} twice")
        if key == "norm":
            choices = NORMS[name]
            if raw.strip().strip("'\"") not in choices:
                raise bad("measure", text, f"has norm={raw.strip()!r}; {name} takes norm= one of {list(choices)}")
        params.append((key, _param(text, key, raw)))
    given = dict(params)
    if "rel" in given and name in ("nDCG", "DCG") and given.get("gain") != "binary":
        raise bad("measure", text, "takes rel only with gain=binary (a graded gain has no relevance threshold)")
    if given.get("gain") == "binary" and given.get("dcg", "log2") != "log2":
        raise bad("measure", text, "has gain=binary and dcg='exp-log2': choose one gain")
    if "ideal" in given and (given.get("gain") != "binary" or k is None):
        raise bad("measure", text, "takes ideal=k with gain=binary and a cutoff only (the ideal DCG of k relevant documents), e.g. nDCG(gain=binary, ideal=k)@10")
    if name == "AP" and given.get("norm") in ("capped", "k") and k is None:
        raise bad("measure", text, f"needs a cutoff with norm={given['norm']} (AP@k divided by {'min(R, k)' if given['norm'] == 'capped' else 'k'}), e.g. AP(norm={given['norm']})@10")
    # The defaults are not written: P(norm=k)@5 is P@5, so equal measures have one name.
    defaults = {"norm": NORMS.get(name, ("",))[0], "norel": NOREL[0], "relative": False}
    params = [(key, value) for key, value in params if defaults.get(key) != value]
    if name == "Rprec" and given.get("mult") is not None and "norel" in given:
        raise bad("measure", text, "takes norel without mult only")
    return Measure(name, k, tuple(sorted(params)))


def parse_list(text: str) -> list[Measure]:
    """Parse a space- or comma-separated list such as ``'AP nDCG@10 P@5'``.

    Commas inside parentheses belong to the parameters.
    """
    parts = re.findall(r"[^\s,()]+(?:\([^()]*\))?(?:@[\d.]+)?", text)
    if not parts:
        raise bad("measures", text, "names no measure")
    return [parse(p) for p in parts]


def forms() -> list[str]:
    """Every measure name with its cutoff, as help texts list them: ``P@k``, ``AP[@k]``, ``Rprec``.

    Read from :data:`MEASURES`, so a measure added there is listed everywhere.

    >>> forms()[:4]
    ['P@k', 'R@k', 'F1@k', 'AP[@k]']
    """
    at = {"IPrec": "@r"}  # IPrec's @ is a recall level
    return [
        name + (at.get(name, "@k") if needs_k else "" if name in _NO_CUTOFF else "[@k]") for name, (needs_k, _) in MEASURES.items()
    ]
