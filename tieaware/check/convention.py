"""Naming another library's convention: which tieaware measure does an implementation compute, ties aside?

Libraries agree on AP, nDCG or P@k only up to a few conventions
(docs/conventions.md, Conventions of other libraries).  When an
implementation differs on untied inputs, :func:`search` tries the measures
one or two conventions away from the one asked for, nearest first:

- the relevance threshold ``rel`` (the grades of the domain),
- the normaliser ``norm`` (P: k or min(k, n); AP: R, min(R, k), the hits in the top k, k),
- nDCG's gain (linear, 2^x - 1, binary),
- ERR's ``g_max`` (1 to 6),
- the value of a query with no relevant document, ``norel`` (0, 1, NaN, skip),

and returns the first that equals every answer on the untied inputs.  Only
when none does is the difference a bug.

>>> from tieaware.check.cases import Case
>>> [str(m) for m in candidates(parse("AP@5"), (0, 1, 2))][:4]
['AP(norm=capped)@5', 'AP(norm=hits)@5', 'AP(norm=k)@5', 'AP(norel=1)@5']
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional

from tieaware.check.cases import Case
from tieaware.model.errors import TieawareError
from tieaware.model.names import MEASURES, NOREL, NORMS, Measure, parse
from tieaware.model.ranking import label

__all__ = ["candidates", "search", "describe", "unexplained", "USERS", "MAX_CHANGES"]

#: At most this many parameters differ from the measure asked for.
MAX_CHANGES = 2

#: (parameter, value) -> (what it means, which libraries define the measure so).
USERS: dict[tuple[str, str], tuple[str, str]] = {
    ("norm", "capped"): ("AP@k divided by min(R, k)", "RecBole, rankereval and recommenders' map_at_k"),
    ("norm", "hits"): ("AP@k divided by the relevant documents in the top k", "torchmetrics"),
    ("norm", "k"): ("AP@k divided by k", "rectools' MAP(divide_by_k=True)"),
    ("norm", "R"): ("AP@k divided by every relevant document, R", "trec_eval, ir_measures and ranx"),
    ("P.norm", "capped"): ("P@k divided by min(k, R), the relevant documents", "implicit's ranking_metrics_at_k (its precision)"),
    ("norm", "retrieved"): ("P@k divided by min(k, n), the documents retrieved", "torchmetrics (adaptive_k) and rankereval (truncated)"),
    ("gain", "binary"): ("nDCG with gain 1 for a relevant document, 0 otherwise", "RecBole, cornac, recommenders, rectools and TRM"),
    ("dcg", "exp-log2"): ("nDCG with gain 2^label - 1", "ir_measures' nDCG(dcg='exp-log2'), gdeval and ranx's ndcg_burges"),
    ("multirel", "nan"): ("NaN for a query with several relevant documents (defined for one only)", "rankereval's HitRate"),
    ("ideal", "k"): ("nDCG@k over the ideal DCG of k relevant documents, whatever the query holds", "rectools' NDCG (divide_by_achievable=False)"),
    ("dcg", "log2"): ("nDCG with the label as gain", "trec_eval, ir_measures, scikit-learn and ranx"),
    ("g_max", "*"): ("ERR with g_max fixed", "gdeval (g_max = 4)"),
    ("norel", "nan"): ("NaN for a query with no relevant document", "rankereval and trectools' per-query values"),
    ("norel", "skip"): ("no value for a query with no relevant document (it is left out of a mean)", "rectools, recpack, cornac and recommenders"),
    ("norel", "1"): ("1 for a query with no relevant document", "torchmetrics' empty_target_action='pos'"),
    ("norel", "0"): ("0 for a query with no relevant document", "trec_eval, ir_measures and ranx"),
    ("rel", "*"): ("a different relevance threshold", ""),
}

_BINARY = ("P", "R", "F1", "AP", "RR", "RBP", "Rprec", "Success", "Bpref")


def _options(m: Measure, labels: Sequence[Any]) -> dict[str, list[Any]]:
    """Each convention parameter of *m* with the values to try (the current one first)."""
    allowed = MEASURES[m.name][1]
    out: dict[str, list[Any]] = {}
    params = dict(m.params)
    if "norm" in allowed and m.name in NORMS:
        out["norm"] = [m.norm] + [v for v in NORMS[m.name] if v != m.norm and (m.k is not None or v not in ("capped", "k"))]
    if m.name in ("nDCG", "DCG"):
        gains = [("log2", None, None), ("exp-log2", None, None), ("log2", "binary", None)]
        if m.name == "nDCG" and m.k is not None:  # rectools: binary gain over an ideal of k relevant documents
            gains.append(("log2", "binary", "k"))
        here = (params.get("dcg", "log2"), params.get("gain"), params.get("ideal"))
        out["gain"] = [here] + [g for g in gains if g != here]
    if m.name == "ERR":
        out["g_max"] = [params.get("g_max")] + [g for g in (None, 1, 2, 3, 4, 5, 6) if g != params.get("g_max")]
    if "norel" in allowed:
        out["norel"] = [m.norel] + [v for v in NOREL if v != m.norel]
    if "multirel" in allowed:
        out["multirel"] = [params.get("multirel"), "nan"] if params.get("multirel") is None else ["nan", None]
    if m.name in _BINARY or m.binary_gain:
        grades = sorted({label(x) for x in labels if label(x) > 0} | {Fraction(1)})
        out["rel"] = [m.rel] + [g for g in grades if g != m.rel]
    return out


def _with(m: Measure, changes: dict[str, Any]) -> Optional[Measure]:
    """*m* with the *changes* made (``gain`` is a (dcg, gain) pair), or None when they do not make a measure."""
    params = dict(m.params)
    for key, value in changes.items():
        if key == "gain":
            dcg, gain, ideal = value
            params.pop("dcg", None)
            params.pop("gain", None)
            params.pop("ideal", None)
            if ideal is not None:
                params["ideal"] = ideal
            if dcg != "log2":
                params["dcg"] = dcg
            if gain is None:
                params.pop("rel", None)  # rel belongs to the binary gain
            else:
                params["gain"] = gain
        elif value is None:
            params.pop(key, None)
        else:
            params[key] = value
    try:
        return Measure(m.name, m.k, ()).replace(**params)
    except ValueError:
        return None


def candidates(m: Measure, labels: Sequence[Any]) -> list[Measure]:
    """The measures one or two convention changes from *m*, fewest changes first, without duplicates."""
    options = _options(m, labels)
    out: list[Measure] = []
    seen = {str(m)}
    for changes in range(1, MAX_CHANGES + 1):
        for keys in itertools.combinations(options, changes):
            for values in itertools.product(*(options[k][1:] for k in keys)):
                c = _with(m, dict(zip(keys, values)))
                if c is not None and str(c) not in seen:
                    seen.add(str(c))
                    out.append(c)
    return out


def search(judge: Any, cases: Sequence[Case], labels: Sequence[Any]) -> Optional[Measure]:
    """The nearest measure whose values equal every answer of *judge*'s implementation on *cases*, or None.

    The first input each candidate gets wrong is remembered, so most candidates are ruled out by one call.
    """
    answers = []
    for case in cases:
        got, exception = judge.run(case)
        if exception is not None:
            return None  # an implementation that raises on an untied input has no convention to name
        answers.append((case, got))
    if not answers:
        return None
    for c in candidates(judge.oracle.measure, labels):
        try:
            oracle = judge.oracle.like(c)
        except ValueError:
            continue
        if all(_agrees(judge, oracle, case, got) for case, got in answers):
            return c
    return None


def unexplained(judge: Any, cases: Sequence[tuple[Case, str]], labels: Sequence[Any]) -> Any:
    """The first failing input (in the order given: smallest first) whose answer neither the measure nor any
    known convention of it gives, as a counterexample; None when every failure has some convention's value.

    When no single convention explains every answer, the smallest failing input is often one a convention
    explains (an empty query skipped); the failure worth showing is the smallest that none explains.
    """
    oracles = []
    for c in candidates(judge.oracle.measure, labels):
        try:
            oracles.append(judge.oracle.like(c))
        except ValueError:
            continue
    for case, phase in cases:
        cex = judge.check(case, phase)
        if cex is None or cex.exception is not None:
            continue
        if not any(_explains(judge, oracle, case, cex.got) for oracle in oracles):
            return cex
    return None


def _explains(judge: Any, oracle: Any, case: Case, got: Any) -> bool:
    """Does *oracle*'s measure have the value *got* on *case* (False where it has no value)?"""
    try:
        expected = oracle.expected(case)
    except TieawareError:
        return False
    return judge.close(got, expected)


def _agrees(judge: Any, oracle: Any, case: Case, got: Any) -> bool:
    """Does the answer equal the candidate's value?  A probe the candidate has no value on
    (the gain 2^l - 1 on a label of 1/2) is skipped for it: it says nothing either way."""
    try:
        expected = oracle.expected(case)
    except TieawareError:
        return True
    return judge.close(got, expected)


def describe(asked: Measure, found: Measure) -> str:
    """What *found* changes in *asked*, and which libraries define the measure that way.

    >>> describe(parse("AP@5"), parse("AP(norm=capped)@5"))
    "AP@k divided by min(R, k), as RecBole, rankereval and recommenders' map_at_k define it"
    """
    before, after = dict(asked.params), dict(found.params)
    parts = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        value = after.get(key)
        if key == "rel" and "gain" not in after:
            parts.append(f"relevant from grade {value if value is not None else 1}")
            continue
        if key == "norm" and value is None:
            value = NORMS[found.name][0]
        if key == "norel" and value is None:
            value = "0"
        if key == "dcg" and value is None:
            value = "log2"
        if key == "g_max":
            parts.append(f"ERR with g_max fixed at {value}, as gdeval does (g_max = 4)" if value else "ERR with g_max the best judged grade")
            continue
        meaning, users = USERS.get((f"{found.name}.{key}", str(value))) or USERS.get((key, str(value)), (f"{key}={value}", ""))
        parts.append(f"{meaning}, as {users} define it" if users else meaning)
    return "; ".join(dict.fromkeys(parts)) or "the same measure"
