"""Tie rules: the fixed ways tie-oblivious tools order documents with equal scores, by name.

Every rule ranks by descending score first; they differ only inside a group of
equal scores:

``input``
    the order the documents came in (a stable sort on score: pytorch-ignite,
    sentence-transformers' ranked lists, ``sorted(..., key=score)``);
``reverse-input``
    the reverse of the order they came in;
``docno-asc``
    document names ascending (ir_measures' msmarco provider; a sort on
    ``(-score, docno)``);
``docno-desc``
    document names descending (trec_eval, pytrec_eval, MTEB's document ids);
``pessimistic``
    the least relevant first (catboost's ranking metrics);
``optimistic``
    the most relevant first.

:data:`ARBITRARY` (``arbitrary``) is not a rule but the finding that no fixed
rule explains a tool's answers: an unstable sort, whose tie order changes with
the group size, the ranking length and the CPU.

These names are shared by the checker's reports (which rule a library
follows, measured by probes) and by the presets that reproduce a library's
number from a run.

>>> rank_order([1.0, 2.0, 1.0], "input")
[1, 0, 2]
>>> rank_order([1.0, 2.0, 1.0], "docno-desc", docnos=["b", "c", "a"])
[1, 0, 2]
>>> rank_order([1.0, 1.0, 1.0], "pessimistic", labels=[1, 0, 2])
[1, 0, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from tieaware.model.errors import bad

__all__ = ["INPUT", "REVERSE_INPUT", "DOCNO_ASC", "DOCNO_DESC", "PESSIMISTIC", "OPTIMISTIC", "ARBITRARY", "RULES", "NAMES", "rank_order"]

INPUT = "input"
REVERSE_INPUT = "reverse-input"
DOCNO_ASC = "docno-asc"
DOCNO_DESC = "docno-desc"
PESSIMISTIC = "pessimistic"
OPTIMISTIC = "optimistic"
ARBITRARY = "arbitrary"

#: The fixed rules, in the order the checker tries them.
RULES: tuple[str, ...] = (INPUT, REVERSE_INPUT, DOCNO_ASC, DOCNO_DESC, PESSIMISTIC, OPTIMISTIC)
#: Every name a report may give: the rules and :data:`ARBITRARY`.
NAMES: tuple[str, ...] = RULES + (ARBITRARY,)


def rank_order(
    scores: Sequence[Any], rule: str, *, docnos: Optional[Sequence[str]] = None, labels: Optional[Sequence[Any]] = None
) -> list[int]:
    """The input positions in rank order: descending score, equal scores ordered by *rule*.

    The docno rules need *docnos* (one name per document), the relevance rules
    *labels*; equal labels keep their input order.

    Beware: equal scores are equal numbers (``1.0 == 1``); scores that differ in
    their last bit are not tied here, whatever a float32 tool does with them.
    """
    n = len(scores)
    order = list(range(n))
    if rule in (DOCNO_ASC, DOCNO_DESC):
        if docnos is None or len(docnos) != n:
            raise bad("docnos", docnos, f"must name each of the {n} documents for the rule {rule!r}")
        order.sort(key=lambda i: docnos[i], reverse=rule == DOCNO_DESC)
    elif rule in (PESSIMISTIC, OPTIMISTIC):
        if labels is None or len(labels) != n:
            raise bad("labels", labels, f"must give each of the {n} documents' label for the rule {rule!r}")
        order.sort(key=lambda i: labels[i], reverse=rule == OPTIMISTIC)  # stable: equal labels in input order
    elif rule == REVERSE_INPUT:
        order.reverse()
    elif rule != INPUT:
        raise bad("rule", rule, f"must be one of {list(RULES)}")
    order.sort(key=lambda i: scores[i], reverse=True)  # stable: the rule's order inside each tie group
    return order
