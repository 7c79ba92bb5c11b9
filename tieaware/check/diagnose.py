"""Why an implementation got a counterexample wrong: the usual causes, tested one by one.

A cause *explains* the failure when the value it predicts equals what the
implementation returned, not only on the counterexample but also on the same
documents handed over in other input orders (the probes).  The probes are
what tell "ties broken by input order" from "ties broken pessimistically":
the two agree on one input order, rarely on all of them.

Causes, in the order they are tried:

``input order`` / ``docno`` / ``optimistic`` / ``pessimistic``
    the implementation breaks ties (stable sort on score; reverse input
    order, which is trec_eval's docno-descending rule with docnos given in
    input order; relevant first; non-relevant first) and computes the
    ordinary measure.
``arbitrary order``
    the answers are tie-broken values (each equals the ordinary measure on
    some ordering of the tied documents) but no single named rule explains
    every probe: an unstable sort (numpy's argsort on AVX-512 CPUs, numba
    sorts) or a hash order.  The order may differ between machines, so
    nothing more specific is claimed.
``one threshold`` (AP only)
    each tie group is one threshold of a precision-recall curve, as in
    scikit-learn's ``average_precision_score``.
``float32``
    scores pass through float32, so near-equal scores become ties.
``cutoff off by one``
    the value is the tie-aware one at k - 1 or k + 1.
``untied``
    wrong on a ranking without ties: the ordinary definition differs
    (an off-by-one rank, another num_rel or gain convention, ...).
``cutoff straddle``
    right on every tied input whose tie groups all sit on one side of
    the cutoff, wrong when one straddles it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tieaware.check.cases import Case, at_cutoff, exhaustive, float32
from tieaware.check.oracle import TIE_BREAKS, straddles
from tieaware.check.verdict import Counterexample, Judge

__all__ = ["Diagnosis", "diagnose", "probes", "ARBITRARY", "TIE_BROKEN_CAUSES"]

PROBES = 12
#: The causes that say "ties are broken, not averaged": the named rules and "arbitrary order".
TIE_BROKEN_CAUSES = ("input order", "docno", "optimistic", "pessimistic", "arbitrary order")
STRADDLE_CASES = 300
#: Tied rankings of up to this many documents also have to fit a tie-break diagnosis.
TIED_PROBE_SIZE = 3


@dataclass(frozen=True)
class Diagnosis:
    """A cause that explains the counterexample, and what it means."""

    cause: str
    explanation: str

    def __str__(self) -> str:
        return f"{self.cause}: {self.explanation}"


_TIE_BREAK_TEXT = {
    "input order": "ties are broken by input order (a stable sort on score), not averaged",
    "docno": (
        "ties are broken in reverse input order, not averaged: trec_eval's rule (docno descending) "
        "when docnos follow the input order, as the adapters name them"
    ),
    "optimistic": "ties are broken optimistically (relevant documents first), not averaged",
    "pessimistic": "ties are broken pessimistically (non-relevant documents first), not averaged",
}

#: The cause named when answers are tie-broken but no fixed rule explains them all.
ARBITRARY = (
    "ties are broken, not averaged, and no single fixed rule explains every probe "
    "(an unstable sort: the order can differ between machines)"
)

_ONE_THRESHOLD = (
    "each tie group is one threshold: all its relevant documents get the precision at the group's "
    "last rank (scikit-learn's average_precision_score), not the average over orderings"
)


def probes(case: Case, count: int = PROBES) -> list[Case]:
    """*case* and the same documents in other input orders: reversed, then seeded shuffles.

    >>> [p.labels for p in probes(Case((1.0, 1.0), (0, 1)))]
    [(0, 1), (1, 0)]
    """
    n = len(case.scores)
    orders = [tuple(range(n)), tuple(reversed(range(n)))]
    rng = random.Random(0)  # fixed seed: the same probes, the same diagnosis, every run
    for _ in range(count * 4):
        if len(orders) >= count:
            break
        order = list(range(n))
        rng.shuffle(order)
        orders.append(tuple(order))
    return [case.permuted(o) for o in dict.fromkeys(orders)]


def _tied_probes(labels: tuple[Any, ...], k: Optional[int]) -> list[Case]:
    """Small tied rankings, also around the cutoff, in two input orders: they tell tie-breaks from other causes."""
    small = exhaustive(TIED_PROBE_SIZE, labels)
    if k is not None and k >= TIED_PROBE_SIZE:
        small += at_cutoff(k, TIED_PROBE_SIZE, labels)
    tied = [c for c in small if _has_ties(c.scores)]
    return tied + [c.permuted(range(len(c.scores) - 1, -1, -1)) for c in tied]


def _explains(judge: Judge, cases: list[Case], predict: Callable[[Case], Any]) -> bool:
    for case in cases:
        got, exception = judge.run(case)
        if exception is not None or not judge.close(got, predict(case)):
            return False
    return True


def _has_ties(scores: tuple[float, ...]) -> bool:
    return len(set(scores)) < len(scores)


def diagnose(judge: Judge, cex: Counterexample, labels: tuple[Any, ...]) -> Optional[Diagnosis]:
    """The first usual cause that explains *cex*, or None when none fits (or the code raised)."""
    if cex.exception is not None:
        return None
    oracle = judge.oracle
    case = Case(cex.scores, cex.labels)
    cases = probes(case)
    if _has_ties(case.scores):
        others = _tied_probes(labels, oracle.measure.k)
        for name, text in _TIE_BREAK_TEXT.items():
            predict = lambda c, name=name: oracle.broken(c, name)  # noqa: E731
            # The counterexample's own probes first (cheap), then other tied
            # rankings: a tie-break that is the cause explains every one.
            if _explains(judge, cases, predict) and _explains(judge, others, predict):
                return Diagnosis(name, text)
        if oracle.measure.name == "AP" and oracle.measure.k is None:
            if _explains(judge, cases, oracle.one_threshold) and _explains(judge, others, oracle.one_threshold):
                return Diagnosis("one threshold", _ONE_THRESHOLD)
        if _tie_broken_everywhere(judge, cases + others):
            return Diagnosis("arbitrary order", ARBITRARY)
    rounded = tuple(float32(s) for s in case.scores)
    if _has_ties(rounded) and rounded != case.scores:
        found = _float32(judge, cases)
        if found is not None:
            return found
    k = oracle.measure.k
    if k is not None:
        for other in (k - 1, k + 1):
            if other >= 1 and _explains(judge, cases, lambda c, other=other: oracle.expected(c, other)):
                return Diagnosis("cutoff off by one", f"the value is the tie-aware value at k={other}, not k={k}")
    if not _has_ties(rounded):
        return Diagnosis(
            "untied",
            "wrong on a ranking without ties, so not a tie problem: the ordinary definition differs "
            "(an off-by-one rank or cutoff, another num_rel, gain or normalisation convention)",
        )
    if straddles(case, k) and _right_unless_straddling(judge, len(case.scores), labels):
        return Diagnosis(
            "cutoff straddle",
            f"right whenever every tie group lies wholly above or below rank {k}, wrong when a tie group straddles it",
        )
    return None


def _tie_broken_everywhere(judge: Judge, cases: list[Case]) -> bool:
    """True when every answer is the ordinary value of some ordering of the tied documents, and some tie mattered."""
    mattered = False
    for case in cases:
        if not _has_ties(case.scores):
            continue
        values = judge.oracle.tie_broken_values(case)
        if values is None:  # too many orderings to list: no evidence either way
            continue
        got, exception = judge.run(case)
        if exception is not None or not any(judge.close(got, v) for v in values):
            return False
        mattered = mattered or len(values) > 1
    return mattered


def _float32(judge: Judge, cases: list[Case]) -> Optional[Diagnosis]:
    oracle = judge.oracle
    if _explains(judge, cases, oracle.in_float32):
        return Diagnosis("float32", "scores are rounded to float32, so scores that differ by less than its precision tie")
    for name in TIE_BREAKS:
        if _explains(judge, cases, lambda c, name=name: oracle.in_float32(c, name)):
            text = _TIE_BREAK_TEXT[name].replace(", not averaged", "")
            return Diagnosis("float32", f"scores are rounded to float32, so near-equal scores tie; then {text}")
    return None


def _right_unless_straddling(judge: Judge, size: int, labels: tuple[Any, ...]) -> bool:
    k = judge.oracle.measure.k
    tied = [c for c in exhaustive(min(size + 1, 5), labels) if _has_ties(c.scores) and not straddles(c, k)]
    if not tied:
        return False
    for case in tied[:STRADDLE_CASES]:
        for probe in probes(case, 2):
            got, exception = judge.run(probe)
            if exception is not None or not judge.close(got, judge.oracle.expected(probe)):
                return False
    return True
