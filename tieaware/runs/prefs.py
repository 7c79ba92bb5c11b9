"""A run evaluated against preferences or judgment groups (trec_eval's ``-R prefs``, ``qrels_prefs``, ``qrels_jg``).

Each query's value is tie-aware (the expected value over every ordering of
the documents whose scores tie) through the closed forms of
tieaware.fast.prefs and the ordinary measures' kernels, or, with
``tie_break="trec_eval"``, the value of trec_eval's own ordering computed in
its doubles: what trec_eval 9.0.8 prints.

trec_eval orders a query's documents by score held in a C ``float``,
descending, and breaks ties by docno: **ascending** for the preference
measures (form_prefs_counts.c) and **descending** for the judgment-group ones
(form_res_rels_jg.c, as for ordinary qrels).

>>> from tieaware.io.prefs import parse_prefs, relevance_measures
>>> prefs = parse_prefs(["q1 u s a 1", "q1 u s b 0"])
>>> run = {"q1": [("a", Fraction(1)), ("b", Fraction(1))]}
>>> asked = relevance_measures(["prefs_simp"], "prefs")
>>> evaluate_relevance(prefs, run, "prefs", asked)["q1"]["prefs_simp"]
Fraction(1, 2)
>>> evaluate_relevance(prefs, run, "prefs", asked, tie_break="trec_eval")["q1"]["prefs_simp"]   # a before b
1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Callable, Optional

from tieaware import fast, reference
from tieaware.fast.prefs import prefs_measures as fast_prefs
from tieaware.io.prefs import Judgments, RelevanceMeasures, c_float
from tieaware.io.trec import Run, tie_groups
from tieaware.io.trec_doubles import query_doubles
from tieaware.model.errors import TieawareError, bad
from tieaware.model.names import parse
from tieaware.model.prefs import preference_query
from tieaware.reference.prefs import prefs_measures as reference_prefs

__all__ = ["evaluate_relevance", "trec_eval_order"]


def _float_score(score: Fraction) -> float:
    try:
        return c_float(float(score))
    except OverflowError:
        return float("inf") if score > 0 else float("-inf")


def trec_eval_order(docs: Sequence[tuple[str, Fraction]], docno_ascending: bool) -> list[str]:
    """trec_eval's order: score as a C float descending, ties by docno (ascending for preferences).

    >>> trec_eval_order([("b", Fraction(1)), ("a", Fraction(1)), ("c", Fraction(2))], True)
    ['c', 'a', 'b']
    >>> trec_eval_order([("b", Fraction(1)), ("a", Fraction(1)), ("c", Fraction(2))], False)
    ['c', 'b', 'a']
    """
    by_docno = sorted(docs, key=lambda d: d[0], reverse=not docno_ascending)
    return [d for d, _ in sorted(by_docno, key=lambda d: _float_score(d[1]), reverse=True)]


def _ranking(docs: Sequence[tuple[str, Fraction]], trec: bool, ascending: bool, depth: Optional[int]) -> list[list[str]]:
    """Tie groups best first (tie-aware), or trec_eval's order one document a group, cut at *depth*."""
    if trec:
        order = trec_eval_order(docs, ascending)
        return [[d] for d in (order if depth is None else order[:depth])]
    if depth is not None:
        raise bad("-M", depth, "is computed with --tie-break trec_eval only for -R prefs, qrels_prefs and qrels_jg")
    return [list(g) for g in tie_groups(docs)]


def _prefs(lines: list, docs: Sequence[tuple[str, Fraction]], qid: str, trec: bool, exact: bool, layer: str, depth: Optional[int]) -> dict[str, Any]:
    query = preference_query([(j.jg, j.jsg, j.docno, j.trec_level if trec else j.level) for j in lines], qid)
    ranking = _ranking(docs, trec, True, depth)
    try:
        if layer == "reference" and not trec:
            return reference_prefs(query, ranking)
        return fast_prefs(query, ranking, exact=exact and not trec)
    except TieawareError as e:
        raise TieawareError(f"query {qid!r}: {e}") from None


def _jg_values(
    lines: list, docs: Sequence[tuple[str, Fraction]], asked: RelevanceMeasures, trec: bool, exact: bool, layer: str,
    depth: Optional[int], judged_only: bool, level: Fraction,
) -> dict[str, Any]:
    """map_avgjg, P_avgjg and Rprec_mult_avgjg: each jg's value of the ordinary measure, averaged over the jgs."""
    groups: dict[str, dict[str, Any]] = {}
    for j in lines:
        groups.setdefault(j.jg, {})[j.docno] = j.trec_level if trec else j.level
    ranking = _ranking(docs, trec, False, depth)
    layer_module = reference if layer == "reference" and not trec else fast
    names = asked.names()
    per_jg: list[dict[str, Any]] = []
    for jg in sorted(groups):
        labels = groups[jg]
        # trec_eval's codes: the label when judged (>= 0), -1 judged below 0 (in the pool, unjudged), -2 not in the qrels
        code = {d: (labels[d] if labels[d] >= 0 else -1) if d in labels else -2 for g in ranking for d in g}
        kept = [[d for d in g if not judged_only or code[d] >= 0] for g in ranking]
        r = [[1 if code[d] >= level else 0 for d in g] for g in kept if g]
        num_rel = sum(1 for v in labels.values() if v >= 0 and v >= level)
        number_exact = exact or trec
        values: dict[str, Any] = {}
        if asked.map_avgjg and trec:  # AP's double as trec_eval sums it, down the ranking (tieaware.io.trec_doubles)
            rels = [code[d] for g in kept for d in g]
            counts = [0] * (max((v for v in labels.values() if v >= 0), default=0) + 1)
            for v in labels.values():
                if v >= 0:
                    counts[v] += 1
            ap = parse("AP") if level == 1 else parse(f"AP(rel={level})")
            values["map_avgjg"] = query_doubles(rels, counts, [ap])[str(ap)]
        elif asked.map_avgjg:
            values["map_avgjg"] = layer_module.average_precision(r, num_rel=num_rel, exact=number_exact)
        for k in asked.cutoffs:
            values[f"P_avgjg_{k}"] = layer_module.precision(r, k, exact=number_exact)
        for m in asked.multiples:
            values[f"Rprec_mult_avgjg_{float(m):3.2f}"] = layer_module.r_precision_multiple(r, m, num_rel=num_rel, exact=number_exact)
        per_jg.append(values)
    out = {}
    for n in names:
        if trec:  # trec_eval adds each jg's double, then divides when there are several
            total = 0.0
            for v in per_jg:
                total += float(v[n])
            out[n] = total / len(per_jg) if len(per_jg) > 1 else total
        else:
            out[n] = sum((v[n] for v in per_jg), Fraction(0) if exact else 0.0) / len(per_jg)
    return out


def evaluate_relevance(
    judgments: Judgments,
    run: Run,
    kind: str,
    asked: RelevanceMeasures,
    *,
    tie_break: Optional[str] = None,
    exact: bool = True,
    layer: str = "fast",
    depth: Optional[int] = None,
    judged_only: bool = False,
    level: object = 1,
) -> dict[str, dict[str, Any]]:
    """{qid: {measure: value}} for the queries of *run* that have judgments (as trec_eval evaluates them).

    *kind*: ``prefs`` or ``qrels_prefs`` (the preference measures) or
    ``qrels_jg`` (map_avgjg, P_avgjg, Rprec_mult_avgjg; ``level`` is -l,
    ``judged_only`` is -J).  *depth* is -M.  With ``tie_break="trec_eval"``
    the values are trec_eval's doubles.
    """
    if tie_break not in (None, "trec_eval"):
        raise bad("tie_break", tie_break, "must be None or 'trec_eval'")
    if layer not in ("fast", "reference"):
        raise bad("layer", layer, "must be 'fast' or 'reference'")
    trec = tie_break == "trec_eval"
    lvl = Fraction(level) if not isinstance(level, Fraction) else level
    queries = sorted(set(run) & set(judgments))
    if not queries:
        raise TieawareError(f"the run has no query that the -R {kind} file judges ({len(judgments)} judged)")
    out: dict[str, dict[str, Any]] = {}
    for qid in queries:
        if kind == "qrels_jg":
            out[qid] = _jg_values(judgments[qid], run[qid], asked, trec, exact, layer, depth, judged_only, lvl)
        else:
            values = _prefs(judgments[qid], run[qid], qid, trec, exact, layer, depth)
            out[qid] = {n: values[n] for n in asked.prefs}
    return out
