"""A measure, by name, on one tied ranking: which function of a layer, with which parameters.

:func:`measure_value` maps a parsed measure (``AP@10``, ``P(rel=2)@5``,
``nDCG(dcg='exp-log2')@10``...) to the layer function of the same meaning and
passes the query's judgements as each expects (num_rel, nDCG's ideal, ERR's
g_max, Bpref's judged non-relevant count).  Both layers and the whole-run
code share it, so a measure name means the same everywhere.

>>> from tieaware import fast
>>> measure_value(fast, "P@2", [[1, 0], 1])
Fraction(1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional, Union

from tieaware.model.errors import bad
from tieaware.model.exact import Exact
from tieaware.model.names import Measure, parse
from tieaware.model.params import flag
from tieaware.model.ranking import Ranking, ideal_label, judgement

__all__ = ["measure_value", "no_relevant", "UNJUDGED", "NOT_ON_A_RUN"]

_ZERO = Fraction(0)

NOT_ON_A_RUN = "cannot be computed on one run ranking (RBO compares two rankings; use `tieaware rbo`)"


def measure_value(
    layer: Any,
    measure: Union[Measure, str],
    ranking: Ranking,
    *,
    num_rel: Optional[int] = None,
    ideal: Optional[Sequence[object]] = None,
    exact: bool = True,
) -> Exact:
    """The value of one *measure* on one tied *ranking*, through *layer* (a layer module).

    Each measure name maps to one function of the layer, called with the
    measure's parameters; *layer* is ``tieaware.fast`` or ``tieaware.reference``
    (or anything with their function names), so this module imports neither.

    *ideal* is every judged label of the query.  It is nDCG's ideal ranking,
    and when *num_rel* is None it also gives num_rel for R, F1 and AP: the
    labels >= the measure's ``rel``.  Without either, the ranking's own labels
    are used (each layer's default).

    >>> from tieaware import fast, reference
    >>> measure_value(fast, "AP", [[1, 0], 1], ideal=[1, 1, 2])   # (5/9 + 7/18) / 2
    Fraction(17, 36)
    >>> measure_value(reference, "R(rel=2)@1", [[1, 0], 2], ideal=[1, 2])
    Fraction(0, 1)
    >>> measure_value(fast, "RBP(p=0.5)", [[1, 0], 1])    # mean of 5/8 (1 0 1) and 3/8 (0 1 1)
    Fraction(1, 2)
    >>> measure_value(fast, "nDCG@2", [[1, 0]], exact=False)
    0.8154648767857288

    RBO compares two rankings, so it has no value here:

    >>> measure_value(fast, "RBO", [1])
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: measure cannot be computed on one run ranking (RBO compares two rankings; ...
    """
    m = measure if isinstance(measure, Measure) else parse(measure)
    mod = layer
    exact = flag(exact, "exact")
    if m.name == "RBO":
        raise bad("measure", str(m), NOT_ON_A_RUN)
    raw = None if ideal is None else [judgement(x, f"ideal[{i}]") for i, x in enumerate(ideal)]
    labels = None if raw is None else [x if x >= 0 else _ZERO for x in raw]  # negative: in the qrels, not judged
    if num_rel is None and labels is not None:
        num_rel = sum(1 for x in labels if x >= m.rel)
    if m.norel != "0" and no_relevant(m, ranking, labels, num_rel):
        return _no_relevant_value(m.norel, exact)
    if m.param("multirel") == "nan" and _relevant_count(m, ranking, labels, num_rel) > 1:
        return _no_relevant_value("nan", exact)  # rankereval's HitRate: defined for one relevant document only
    return _value(mod, m, ranking, num_rel, labels, exact, raw)


def _relevant_count(m: Measure, ranking: Ranking, labels: Optional[Sequence[Fraction]], num_rel: Optional[int]) -> int:
    """The query's relevant documents (label >= rel): *num_rel*, else its judged labels, else the ranking's."""
    if num_rel is not None:
        return num_rel
    judged = [ideal_label(x, "ranking") for x in _flat(ranking) if x is not None] if labels is None else list(labels)
    return sum(1 for x in judged if x >= m.rel)


def _value(
    mod: Any, m: Measure, ranking: Ranking, num_rel: Optional[int], labels: Optional[list], exact: bool,
    raw: Optional[list] = None,
) -> Exact:
    """*raw*: the judged labels as given (a negative one: in the qrels, not judged), for Bpref's N."""
    if m.name == "P":
        return mod.precision(ranking, m.k, num_rel, rel=m.rel, norm=m.norm, exact=exact)
    if m.name == "R":
        return mod.recall(ranking, m.k, num_rel, rel=m.rel, exact=exact)
    if m.name == "F1":
        return mod.f1(ranking, m.k, num_rel, rel=m.rel, exact=exact)
    if m.name == "AP":
        return mod.average_precision(ranking, m.k, num_rel, rel=m.rel, norm=m.norm, exact=exact)
    if m.name == "RR":
        return mod.reciprocal_rank(ranking, m.k, rel=m.rel, exact=exact)
    if m.name == "nDCG":
        if m.param("gains") is not None:  # trec_eval's ndcg.level=gain,...: its gains and its ideal
            return mod.trec_ndcg(ranking, m.k, raw, m.param("gains").replace(";", ","), exact=exact)
        if m.param("ideal") == "k":  # rectools: the ideal DCG of k relevant documents, whatever the query holds
            from tieaware.model.exact import divide

            ideal = mod.dcg([m.rel] * m.k, m.k, gain=_gain(m), exact=exact)
            return divide(mod.dcg(ranking, m.k, gain=_gain(m), exact=exact), ideal) if exact else mod.dcg(ranking, m.k, gain=_gain(m), exact=exact) / ideal
        return mod.ndcg(ranking, m.k, labels, gain=_gain(m), exact=exact)
    if m.name == "DCG":
        return mod.dcg(ranking, m.k, gain=_gain(m), exact=exact)
    if m.name == "RBP":
        return mod.rbp(ranking, m.rbp_p, m.k, rel=m.rel, exact=exact)
    if m.name == "ERR":
        # g_max is the query's best judged grade, as in Chapelle et al.; the ranking's own otherwise;
        # ERR(g_max=4) fixes it, as gdeval does.
        ceiling = m.param("g_max") or (None if not labels else max(1, int(max(labels))))
        return mod.err(ranking, m.k, max_label=ceiling, exact=exact)
    if m.name == "Rprec":
        if m.param("mult") is not None:  # trec_eval's Rprec_mult: P at (long)(mult·R + 0.9)
            return mod.r_precision_multiple(ranking, m.param("mult"), num_rel, rel=m.rel, exact=exact)
        return mod.r_precision(ranking, num_rel, rel=m.rel, exact=exact)
    if m.name == "Success":
        return mod.success(ranking, m.k, rel=m.rel, exact=exact)
    if m.name == "Judged":
        return mod.judged(ranking, m.k, exact=exact)  # None marks an unjudged document (see UNJUDGED)
    if m.name in ("Bpref", "GMBpref"):
        nonrel = None if raw is None else sum(1 for x in raw if 0 <= x < m.rel)
        return mod.bpref(ranking, num_rel, nonrel, rel=m.rel, exact=exact)
    if m.name in _TREC_FAMILIES:
        return _trec_family(mod, m, ranking, num_rel, raw, exact)
    raise bad("measure", str(m), "is not evaluable on a run")  # a name added to names.MEASURES but not here


#: trec_eval's other families (docs/conventions.md): each maps to one layer function.
_TREC_FAMILIES = frozenset({
    "NumQ", "NumRet", "NumRelRet", "NumRel", "NumNonRelJudgedRet", "SetP", "SetR", "SetF", "SetAP", "Utility", "RelP",
    "IPrec", "IPrecAvg", "infAP", "BinG", "G", "nDCGRel", "RnDCG", "GMAP",
})  # fmt: skip


def _trec_family(mod: Any, m: Measure, ranking: Ranking, num_rel: Optional[int], raw: Optional[list], exact: bool) -> Exact:
    one = Fraction(1) if exact else 1.0
    rel = m.rel
    if m.name == "NumQ":
        return one
    if m.name == "NumRet":  # ir_measures: NumRet(rel=r) counts the retrieved documents with label >= r
        if m.param("rel") is None:
            return mod.retrieved(ranking, exact=exact)
        return mod.relevant_retrieved(ranking, rel=rel, exact=exact)
    if m.name == "NumRelRet":
        return mod.relevant_retrieved(ranking, rel=rel, exact=exact)
    if m.name == "NumRel":
        count = num_rel if num_rel is not None else int(mod.relevant_retrieved(ranking, rel=rel))
        return one * count
    if m.name == "NumNonRelJudgedRet":
        return mod.judged_nonrelevant(ranking, rel=rel, exact=exact)
    if m.name == "SetP":
        if m.param("relative"):
            return mod.set_relative_precision(ranking, num_rel, rel=rel, exact=exact)
        return mod.set_precision(ranking, rel=rel, exact=exact)
    if m.name == "SetR":
        return mod.set_recall(ranking, num_rel, rel=rel, exact=exact)
    if m.name == "SetF":
        return mod.set_f(ranking, num_rel, m.param("beta", "1"), rel=rel, exact=exact)
    if m.name == "SetAP":
        return mod.set_average_precision(ranking, num_rel, rel=rel, exact=exact)
    if m.name == "Utility":
        coefficients = tuple(m.param(key, default) for key, default in (("a", "1"), ("b", "-1"), ("c", "0"), ("d", "0")))
        return mod.utility(ranking, num_rel, coefficients, m.param("docs", 0), rel=rel, exact=exact)
    if m.name == "RelP":
        return mod.relative_precision(ranking, m.k, num_rel, rel=rel, exact=exact)
    if m.name == "IPrec":
        return mod.interpolated_precision(ranking, m.param("recall"), num_rel, rel=rel, exact=exact)
    if m.name == "IPrecAvg":
        levels = m.param("levels")
        return mod.eleven_point_average(ranking, num_rel, *([levels.split(";")] if levels else []), rel=rel, exact=exact)
    if m.name == "infAP":
        return mod.inferred_average_precision(ranking, num_rel, rel=rel, exact=exact)
    if m.name == "BinG":
        return mod.binary_gain(ranking, num_rel, rel=rel, exact=exact)
    gains = m.param("gains")
    gains = None if gains is None else gains.replace(";", ",")
    if m.name == "G":
        return mod.normalised_gain(ranking, raw, gains, exact=exact)
    if m.name == "nDCGRel":
        return mod.ndcg_relevant(ranking, raw, gains, exact=exact)
    if m.name == "RnDCG":
        return mod.r_ndcg(ranking, num_rel, raw, gains, rel=rel, exact=exact)
    return mod.average_precision(ranking, None, num_rel, rel=rel, exact=exact)  # GMAP: AP per query


#: Measures that tell an unjudged document (label None) from a judged non-relevant one (or read a
#: negative label, in the qrels but not judged, apart from both; nDCG for trec_eval's gains).
UNJUDGED = frozenset({"Judged", "Bpref", "GMBpref", "NumNonRelJudgedRet", "infAP", "G", "nDCGRel", "RnDCG", "nDCG"})


def _gain(m: Measure) -> Any:
    """The gain to pass a layer: its name, or the binary gain at the measure's rel."""
    if not m.binary_gain:
        return m.gain
    from tieaware.model.gains import BinaryGain  # gains imports sympy: only when needed

    return BinaryGain(m.rel)


def no_relevant(m: Measure, ranking: Ranking, labels: Optional[Sequence[Fraction]] = None, num_rel: Optional[int] = None) -> bool:
    """Does the query have no relevant document, in *m*'s sense (docs/conventions.md, No relevant document)?

    Relevant means a label >= rel; for nDCG and DCG a label with a positive
    gain, and for ERR a positive grade.  The query's judged labels are
    *labels* (nDCG's ideal) when given, else the ranking's own; a *num_rel*
    greater than 0 says there is a relevant document, retrieved or not.

    >>> no_relevant(parse("AP"), [[0, 0], 0]), no_relevant(parse("AP"), [0], num_rel=2), no_relevant(parse("nDCG"), [[0, 1]])
    (True, False, False)
    """
    judged = [ideal_label(x, "ranking") for x in _flat(ranking) if x is not None] if labels is None else list(labels)
    if m.name in ("nDCG", "DCG"):
        relevant = any(x >= m.rel for x in judged) if m.binary_gain else any(x > 0 for x in judged)
    elif m.name == "ERR":
        relevant = any(x > 0 for x in judged)
    else:
        relevant = any(x >= m.rel for x in judged)
    if num_rel is not None and m.name not in ("nDCG", "DCG", "ERR"):
        relevant = relevant or num_rel > 0
    return not relevant


def _flat(ranking: Ranking) -> list:
    if hasattr(ranking, "tolist"):  # a numpy array of labels
        ranking = ranking.tolist()
    return [x for e in ranking for x in (e.tolist() if hasattr(e, "tolist") else e if isinstance(e, (list, tuple)) else [e])]


def _no_relevant_value(policy: str, exact: bool) -> Any:
    """The value ``norel=`` gives a query with no relevant document: 1, NaN (exact: sympy's nan) or None (skip)."""
    if policy == "skip":
        return None
    if policy == "nan":
        if not exact:
            return float("nan")
        import sympy

        return sympy.nan
    return Fraction(1) if exact else 1.0
