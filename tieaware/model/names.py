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

__all__ = ["Measure", "parse", "parse_list", "MEASURES", "RBP_P", "NORMS", "NOREL", "CONVENTIONS", "forms"]

#: name -> (k required?, allowed parameters)
MEASURES: dict[str, tuple[bool, frozenset[str]]] = {
    "P": (True, frozenset({"rel", "norm", "norel"})),
    "R": (True, frozenset({"rel", "norel"})),
    "F1": (True, frozenset({"rel", "norel"})),
    "AP": (False, frozenset({"rel", "norm", "norel"})),
    "RR": (False, frozenset({"rel", "norel"})),
    "nDCG": (False, frozenset({"dcg", "gain", "rel", "norel"})),
    "DCG": (False, frozenset({"dcg", "gain", "rel"})),
    "RBP": (False, frozenset({"p", "rel", "norel"})),
    "ERR": (False, frozenset({"g_max", "norel"})),
    "Rprec": (False, frozenset({"rel", "norel"})),
    "Success": (True, frozenset({"rel", "norel"})),
    "Judged": (False, frozenset()),
    "Bpref": (False, frozenset({"rel", "norel"})),
    "RBO": (False, frozenset({"p", "variant", "bound"})),
}

#: The normalisations (``norm=``) each measure takes, the default first:
#: P@k divided by k or by min(k, the documents retrieved); AP@k divided by
#: num_rel (R), by min(R, k) (``capped``), by the relevant documents in the
#: top k (``hits``) or by k (``k``).
NORMS: dict[str, tuple[str, ...]] = {"P": ("k", "retrieved"), "AP": ("R", "capped", "hits", "k")}
#: The values of a query with no relevant document (``norel=``), the default first.
NOREL = ("0", "1", "nan", "skip")
#: The parameters that name another library's convention (docs/conventions.md).
CONVENTIONS = frozenset({"norm", "gain", "g_max", "norel"})

_ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Recall": "R", "recall": "R", "map": "AP", "recip_rank": "RR", "ndcg": "nDCG"}
#: Every accepted spelling, lower-cased -> canonical name: names are
#: case-insensitive, as ir_measures' are (p@5, mrr, map, ndcg@10).  No two
#: names differ only in case, so nothing becomes ambiguous.
_BY_LOWER = {**{a.lower(): c for a, c in _ALIASES.items()}, **{n.lower(): n for n in MEASURES}}
_TREC = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)_(\d+)$", re.IGNORECASE)
_TREC_NAMES = {"p": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG", "success": "Success"}
#: Measures that take no cutoff: R-precision's depth is num_rel itself.
_NO_CUTOFF = frozenset({"Rprec", "Bpref"})
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
        inner = ",".join(f"{key}={_show(value)}" for key, value in sorted(merged.items()))
        return parse(self.name + (f"({inner})" if inner else "") + (f"@{self.k}" if self.k is not None else ""))

    def __str__(self) -> str:
        inner = ",".join(f"{key}={_show(value)}" for key, value in self.params)
        return self.name + (f"({inner})" if inner else "") + (f"@{self.k}" if self.k is not None else "")


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
    # RBO's choices, checked here too, so no bad value waits for the first ranking
    choices = {"variant": ("w", "a", "b"), "bound": ("min", "max", "ext", "res"), "gain": ("binary",), "norel": NOREL}.get(key)
    if choices is not None and raw not in choices:
        raise bad("measure", measure, f"has {key}={raw!r}; use one of {list(choices)}")
    return raw


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
    m = _FORM.match(s)
    if not m:
        raise bad("measure", text, "is not of the form NAME(param=value,...)@k")
    name = _BY_LOWER.get(m.group("name").lower())
    if name is None:
        raise bad("measure", text, f"is not a known measure{_suggestion(m.group('name'))}; known: {', '.join(MEASURES)}")
    needs_k, allowed = MEASURES[name]
    k = None
    if m.group("k") is not None:
        if not m.group("k").isdigit() or int(m.group("k")) < 1:
            raise bad("measure", text, "needs a cutoff @k with k an int >= 1")
        k = int(m.group("k"))
    elif needs_k:
        raise bad("measure", text, f"needs a cutoff, e.g. {name}@10")
    if k is not None and name in _NO_CUTOFF:
        raise bad("measure", text, f"takes no cutoff: {name} reads the whole ranking" if name == "Bpref" else f"takes no cutoff: {name} cuts at R = num_rel")
    params = []
    for part in filter(None, (m.group("params") or "").split(",")):
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
    if name == "AP" and given.get("norm") in ("capped", "k") and k is None:
        raise bad("measure", text, f"needs a cutoff with norm={given['norm']} (AP@k divided by {'min(R, k)' if given['norm'] == 'capped' else 'k'}), e.g. AP(norm={given['norm']})@10")
    # The defaults are not written: P(norm=k)@5 is P@5, so equal measures have one name.
    defaults = {"norm": NORMS.get(name, ("",))[0], "norel": NOREL[0]}
    params = [(key, value) for key, value in params if defaults.get(key) != value]
    return Measure(name, k, tuple(sorted(params)))


def parse_list(text: str) -> list[Measure]:
    """Parse a space- or comma-separated list such as ``'AP nDCG@10 P@5'``.

    Commas inside parentheses belong to the parameters.
    """
    parts = re.findall(r"[^\s,()]+(?:\([^()]*\))?(?:@\d+)?", text)
    if not parts:
        raise bad("measures", text, "names no measure")
    return [parse(p) for p in parts]


def forms() -> list[str]:
    """Every measure name with its cutoff, as help texts list them: ``P@k``, ``AP[@k]``, ``Rprec``.

    Read from :data:`MEASURES`, so a measure added there is listed everywhere.

    >>> forms()[:4]
    ['P@k', 'R@k', 'F1@k', 'AP[@k]']
    """
    return [name + ("@k" if needs_k else "" if name in _NO_CUTOFF else "[@k]") for name, (needs_k, _) in MEASURES.items()]
