"""Why an implementation got a counterexample wrong: the usual causes, tested one by one.

A cause *explains* the failure when the value it predicts equals what the
implementation returned, not only on the counterexample but also on the same
documents handed over in other input orders and on independent probes chosen
so that a wrong cause would show.  Every probe stays inside the declared
domain (:mod:`tieaware.check.domain`).  Causes are stable identifiers
(:data:`tieaware.check.result.CAUSES`); in the order they are tried:

``ignores_num_rel``
    (3-argument form) the value is the one normalised by the relevant documents retrieved.
``input_order`` / ``reverse_input`` / ``docno_asc`` / ``docno`` / ``optimistic`` / ``pessimistic``
    the implementation breaks ties (stable sort on score; reverse input
    order; docno ascending, ir_measures' msmarco provider; docno descending,
    trec_eval's rule; relevant first; non-relevant first: the rules of
    :mod:`tieaware.model.tie_rules`) and computes the ordinary measure.
    Documents are named so that docno order is not input order and changes
    between probes (:func:`tieaware.check.adapters.docnos`), so the four
    order rules are told apart.  A rule is named only after it also holds on
    tie groups of 5 to 65 documents and on ties inside rankings of 40 and
    200 documents (:func:`confirm_rule`); otherwise the answer is
    ``arbitrary_order``, saying which rule held up to which group size.
``one_threshold`` (AP only)
    each tie group is one threshold of a precision-recall curve, as in
    scikit-learn's ``average_precision_score``.
``arbitrary_order``
    the answers are tie-broken values (each equals the ordinary measure on
    some ordering of the tied documents) but no single fixed rule explains
    every probe, at every group size: an unstable sort (numpy's, numba's,
    torch's), whose order can differ between machines, group sizes and
    ranking lengths.
``tolerance`` / ``float32_scores``
    scores closer than a tolerance tie; scores pass through float32.
``assumes_sorted``
    the documents are taken in the order given.
``cutoff_straddle`` / ``cutoff_off_by_one``
    a tie group across k is mishandled; the value is the one at k ± 1.
``score_values``
    wrong on an untied input whose plain-scored twin (the same order, scores
    n, n-1, ..., 1) is right: zero or negative scores dropped, an overflow.
``definition``
    wrong on a plainly scored ranking without ties: the ordinary definition
    differs.  :func:`tieaware.check.implementation` then searches the known
    conventions (:mod:`tieaware.check.convention`) before calling it a bug.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tieaware.check.cases import Case, at_cutoff, exhaustive, float32, past_cutoff, plain, tie_rule_probes
from tieaware.check.compare import exact_equal
from tieaware.check.oracle import TIE_BREAKS, straddles
from tieaware.check.result import CAUSES
from tieaware.check.verdict import Counterexample, Judge
from tieaware.model.ranking import label

__all__ = ["Diagnosis", "diagnose", "probes", "confirm_rule", "confirm_extent", "ARBITRARY", "TIE_BROKEN_CAUSES", "RULES", "explains", "has_ties", "in_domain", "tied_probes"]

PROBES = 12
#: The causes that say "ties are broken, not averaged": the named rules and "arbitrary order".
TIE_BROKEN_CAUSES = ("input_order", "reverse_input", "docno_asc", "docno", "optimistic", "pessimistic", "arbitrary_order")
#: Causes that name a fixed tie rule, confirmed on large groups before they are named.
RULES = ("input_order", "reverse_input", "docno_asc", "docno", "optimistic", "pessimistic", "one_threshold")
STRADDLE_CASES = 300
#: Tied rankings of up to this many documents also have to fit a tie-break diagnosis.
TIED_PROBE_SIZE = 3


@dataclass(frozen=True)
class Diagnosis:
    """A cause (an identifier of :data:`~tieaware.check.result.CAUSES`) that explains the counterexample."""

    cause: str
    explanation: str
    #: True when the behaviour can differ between machines (an unstable sort's tie order).
    machine_dependent: bool = False
    #: For a tie rule, or arbitrary order: the rule (a cause of RULES) that held longest on the probes ...
    held_rule: Optional[str] = None
    #: ... and the largest tie group it held on (65 for a rule named: every probe).
    held_up_to: Optional[int] = None

    @property
    def title(self) -> str:
        """The cause's short human name, e.g. ``input order``."""
        return CAUSES.get(self.cause, self.cause)

    def __str__(self) -> str:
        return f"{self.title}: {self.explanation}"


_TIE_BREAK_TEXT = {
    "input_order": "ties are broken by input order (a stable sort on score), not averaged",
    "reverse_input": "ties are broken in reverse input order, not averaged",
    "docno_asc": "ties are broken by docno ascending (a sort on (-score, docno)), not averaged",
    "docno": "ties are broken by docno descending (trec_eval's rule), not averaged",
    "optimistic": "ties are broken optimistically (relevant documents first), not averaged",
    "pessimistic": "ties are broken pessimistically (non-relevant documents first), not averaged",
}

#: The explanation when answers are tie-broken but no fixed rule explains them all.
ARBITRARY = (
    "ties are broken, not averaged, and no single fixed rule explains every probe "
    "(an unstable sort: the order can differ between machines, group sizes and ranking lengths)"
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


def in_domain(judge: Judge, cases: list[Case]) -> list[Case]:
    """The cases inside the judge's declared domain."""
    return [c for c in cases if judge.admits(c)]


def tied_probes(judge: Judge, labels: tuple[Any, ...], k: Optional[int]) -> list[Case]:
    """Small tied rankings, also around the cutoff, in two input orders: they tell tie-breaks from other causes."""
    small = exhaustive(TIED_PROBE_SIZE, labels)
    if k is not None and k >= TIED_PROBE_SIZE:
        small += at_cutoff(k, TIED_PROBE_SIZE, labels)
    tied = [c for c in small if has_ties(c.scores)]
    return in_domain(judge, tied + [c.permuted(range(len(c.scores) - 1, -1, -1)) for c in tied])


def explains(judge: Judge, cases: list[Case], predict: Callable[[Case], Any]) -> bool:
    """Whether *predict* gives the implementation's answer on every case inside the judge's domain (and there is one)."""
    cases = in_domain(judge, cases)
    if not cases:
        return False
    for case in cases:
        got, exception = judge.run(case)
        if exception is not None or not judge.close(got, predict(case)):
            return False
    return True


def has_ties(scores: tuple[float, ...]) -> bool:
    """Whether two of *scores* are equal."""
    return len(set(scores)) < len(scores)


def diagnose(judge: Judge, cex: Counterexample, labels: tuple[Any, ...], confirm: bool = True) -> Optional[Diagnosis]:
    """The first usual cause that explains *cex*, or None when none fits (or the code raised).

    Every cause is confirmed on probes beyond the counterexample (other input
    orders, other small rankings, gap ladders) before it is named, so one
    coincidence cannot name it; a tie rule is also confirmed on large groups
    (*confirm*, see :func:`confirm_rule`).
    """
    if cex.exception is not None:
        return None
    oracle = judge.oracle
    case = cex.case
    cases = in_domain(judge, probes(case))
    if case.num_rel is not None:
        found = _ignores_num_rel(judge, cases)
        if found is not None:
            return found
    if has_ties(case.scores):
        found = _tie_rule(judge, cases, labels, confirm)
        if found is not None:
            return found
    if _close_scores(case.scores):
        found = _by_tolerance(judge, cases, labels)
        if found is not None:
            return found
    rounded = tuple(float32(s) for s in case.scores)
    # Also after the gap ladder found nothing: a docno tie-break can give the untied value on its
    # pair probes, so the ladder misses a float32 implementation that the probes here confirm.
    if has_ties(rounded) and rounded != case.scores:
        found = _float32(judge, cases)  # float32 underflow (tiny scores tie) or overflow (huge ones do)
        if found is not None:
            return found
    if _assumes_sorted(judge, cases):
        return Diagnosis(
            "assumes_sorted",
            "the documents are taken in the order given, not sorted by score: right only when the input is "
            "already sorted by descending score",
        )
    k = oracle.measure.k
    if k is not None and straddles(case, k) and _right_unless_straddling(judge, len(case.scores), labels):
        return Diagnosis(
            "cutoff_straddle",
            f"right whenever every tie group lies wholly above or below rank {k}, wrong when a tie group straddles it",
        )
    if k is not None:
        independent = in_domain(judge, _cutoff_probes(labels, k))
        for other in (k - 1, k + 1):
            predict = lambda c, other=other: oracle.expected(c, other)  # noqa: E731
            if other >= 1 and explains(judge, cases, predict) and _discriminating(judge, independent, predict):
                return Diagnosis("cutoff_off_by_one", f"the value is the tie-aware value at k={other}, not k={k}")
    if not has_ties(rounded):
        twin = plain(case)
        if twin != case and judge.admits(twin) and judge.check(twin, "probe") is None:
            return Diagnosis(
                "score_values",
                f"wrong on these scores but right on the same ranking scored plainly ({list(twin.scores)}): the value "
                "depends on the scores' values, not only their order (zero or negative scores dropped, an overflow)",
            )
        return Diagnosis(
            "definition",
            "wrong on a ranking without ties, so not a tie problem: the ordinary definition differs "
            "(an off-by-one rank or cutoff, another num_rel, gain or normalisation convention)",
        )
    return None


def _tie_rule(judge: Judge, cases: list[Case], labels: tuple[Any, ...], confirm: bool) -> Optional[Diagnosis]:
    """A tie-break that explains the counterexample's probes and small tied rankings, confirmed on large groups."""
    oracle = judge.oracle
    others = tied_probes(judge, labels, oracle.measure.k)
    named: list[tuple[str, str, Callable[[Case], Any]]] = [
        (name, text, lambda c, name=name: oracle.broken(c, name)) for name, text in _TIE_BREAK_TEXT.items()
    ]
    if oracle.measure.name == "AP" and oracle.measure.k is None:
        named.append(("one_threshold", _ONE_THRESHOLD, oracle.one_threshold))
    held: list[tuple[int, str, str]] = []  # (largest group held, rule, where it failed) for rules that held on small groups only
    for name, text, predict in named:
        # The counterexample's own probes first (cheap), then other tied rankings.
        if explains(judge, cases, predict) and explains(judge, others, predict):
            if not confirm:
                return Diagnosis(name, text)
            failed_at, up_to = confirm_extent(judge, predict, labels)
            if failed_at is None:
                return Diagnosis(name, text, held_rule=name, held_up_to=up_to)
            held.append((up_to, name, failed_at))
    if held:
        up_to, name, failed_at = max(held, key=lambda h: h[0])
        return Diagnosis(
            "arbitrary_order",
            f"{_TIE_BREAK_TEXT.get(name, name).split(',')[0]} on tie groups of up to {up_to} documents, but not at "
            f"{failed_at}: ties are broken by an unstable sort, whose order can differ between machines, group sizes "
            f"and ranking lengths (so no rule is named; {CAUSES[name]} holds only for small inputs)",
            machine_dependent=True,
            held_rule=name,
            held_up_to=up_to,
        )
    if _tie_broken_everywhere(judge, cases + others):
        return Diagnosis("arbitrary_order", ARBITRARY, machine_dependent=True)
    return None


def confirm_rule(judge: Judge, predict: Callable[[Case], Any], labels: tuple[Any, ...]) -> Optional[str]:
    """None when *predict* (a tie rule) also explains every large-group probe inside the domain;
    else where it first fails ("a tie group of 17 documents", "a tie inside 200 documents").
    """
    return confirm_extent(judge, predict, labels)[0]


def confirm_extent(judge: Judge, predict: Callable[[Case], Any], labels: tuple[Any, ...]) -> tuple[Optional[str], int]:
    """(where *predict* first fails on the large-group probes or None, the largest tie group it held on).

    The probes go by growing group size (:func:`tieaware.check.cases.tie_rule_probes`), so a
    rule that fails at 17 documents held up to 16: what an unstable sort's small-group path does.
    """
    up_to = TIED_PROBE_SIZE
    for case in in_domain(judge, tie_rule_probes(judge.oracle.measure.k, labels)):
        groups = sorted({case.scores.count(s) for s in case.scores if case.scores.count(s) > 1})
        got, exception = judge.run(case)
        if exception is not None or not judge.close(got, predict(case)):
            n = len(case.scores)
            if groups and max(groups) <= 3 and n >= 40:
                return f"a tie of {max(groups)} inside a ranking of {n} documents", up_to
            return f"a tie group of {max(groups or [n])} documents", up_to
        up_to = max([up_to, *groups])
    return None, up_to


def _cutoff_probes(labels: tuple[Any, ...], k: int) -> list[Case]:
    """Untied and tied rankings around the cutoff, in two input orders: a cutoff error shows on them."""
    small = at_cutoff(k, 2, labels) + past_cutoff(k, labels) + exhaustive(2, labels)
    return small + [c.permuted(range(len(c.scores) - 1, -1, -1)) for c in small]


def _discriminating(judge: Judge, cases: list[Case], predict: Callable[[Case], Any]) -> bool:
    """*predict* explains every case, and on some of them it differs from the right value: real evidence."""
    cases = in_domain(judge, cases)
    evidence = any(not _same(predict(c), judge.oracle.expected(c)) for c in cases)
    return evidence and explains(judge, cases, predict)


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return exact_equal(a, b)
    except TypeError:
        return False


def _ignores_num_rel(judge: Judge, cases: list[Case]) -> Optional[Diagnosis]:
    """The value is the one with num_rel = the relevant documents retrieved: unretrieved ones are ignored."""
    plain_cases = [Case(c.scores, c.labels, None) for c in cases]
    pairs = list(zip(cases, plain_cases))
    if not pairs:
        return None
    for with_num_rel, without in pairs:
        got, exception = judge.run(with_num_rel)
        if exception is not None or not judge.close(got, judge.oracle.expected(without)):
            return None
    return Diagnosis(
        "ignores_num_rel",
        "normalised by the relevant documents retrieved, not by every judged relevant document (num_rel): "
        "unretrieved relevant documents are ignored",
    )


def _in_input_order(case: Case, grouped: bool) -> list:
    """The labels in input order; with *grouped*, runs of equal adjacent scores as tie groups."""
    out: list = []
    previous = None
    for score, x in zip(case.scores, case.labels):
        x = label(x)
        if grouped and out and score == previous:
            last = out[-1] if isinstance(out[-1], list) else [out[-1]]
            out[-1] = last + [x]
        else:
            out.append(x)
        previous = score
    return out


def _assumes_sorted(judge: Judge, cases: list[Case]) -> bool:
    """The value is the measure of the documents in the order given, whatever their scores."""
    unsorted = [c for c in cases if list(c.scores) != sorted(c.scores, reverse=True)]
    if not unsorted:
        return False
    # Independent probes of the same size: ascending scores, the labels rotated through every position.
    n, ls = len(cases[0].scores), cases[0].labels
    ascending = tuple(float(i + 1) for i in range(n))
    unsorted += [Case(ascending, ls[r:] + ls[:r], cases[0].num_rel) for r in range(n)]
    for grouped in (False, True):
        if _discriminating(judge, unsorted, lambda c, g=grouped: judge.oracle.value(_in_input_order(c, g), None, c.num_rel)):
            return True
    return False


def _close_scores(scores: tuple[float, ...]) -> bool:
    """Two distinct scores within a relative 1e-6 of each other."""
    distinct = sorted(set(scores))
    return any(b - a <= 1e-6 * max(abs(a), abs(b)) for a, b in zip(distinct, distinct[1:]))


#: Gaps tried above 1.0 to find when an implementation starts treating two scores as tied.
GAPS = tuple(2.0**-e for e in range(1, 53))
#: Two scores 2**-39 apart that float32 rounds apart (they straddle a float32 rounding boundary).
FLOAT32_SPLIT = (1.0 - 2.0**-25 + 2.0**-40, 1.0 - 2.0**-25 - 2.0**-40)


def _pair_probe(k: Optional[int], high: float, low: float, labels: tuple[Any, ...]) -> list[Case]:
    """A relevant document scored *low* and a non-relevant one scored *high*, at rank k, handed over in
    both orders (so that any tie-break that puts one of them first shows a tie)."""
    before = max((k or 1) - 1, 0)
    top = max(labels, key=lambda x: label(x))
    scores = tuple(100.0 + before - i for i in range(before))
    case = Case(scores + (low, high), (labels[0],) * before + (top, labels[0]))
    return [case, Case(scores + (high, low), (labels[0],) * before + (labels[0], top))]


def _treated_as_tied(judge: Judge, high: float, low: float, labels: tuple[Any, ...]) -> Optional[bool]:
    """Does *impl* give something other than the untied value when *high* and *low* are near?  None: it raised."""
    tied = False
    for case in _pair_probe(judge.oracle.measure.k, high, low, labels):
        if not judge.admits(case):
            return None
        got, exception = judge.run(case)
        if exception is not None:
            return None
        tied = tied or not judge.close(got, judge.oracle.expected(case))
    return tied


def _by_tolerance(judge: Judge, cases: list[Case], labels: tuple[Any, ...]) -> Optional[Diagnosis]:
    """float32 rounding, or equality up to a tolerance, estimated on a ladder of gaps above 1.0."""
    pattern = [_treated_as_tied(judge, 1.0 + g, 1.0, labels) for g in GAPS]
    split = _treated_as_tied(judge, *FLOAT32_SPLIT, labels)
    if None in pattern or split is None or not any(pattern):
        return None
    f32 = [float32(1.0 + g) == 1.0 for g in GAPS]
    if pattern == f32 and not split:  # float32 ties exactly these gaps, and splits the boundary pair
        return _float32(judge, cases)
    first = pattern.index(True)
    if all(pattern[first:]):  # tied at every gap below a threshold (and not float32's pattern)
        tied, untied = GAPS[first], GAPS[first - 1] if first else None
        where = f"at most {untied:.2g}" if untied is not None else "of any size"
        return Diagnosis(
            "tolerance",
            f"scores closer than a tolerance are treated as tied: near 1.0, scores {tied:.2g} apart tie, "
            f"{where} apart do not (tolerance between {tied:.2g} and {untied or float('inf'):.2g}); "
            "distinct doubles are distinct scores",
        )
    return None


def _tie_broken_everywhere(judge: Judge, cases: list[Case], shown: Optional[list[Case]] = None) -> bool:
    """True when every answer is the ordinary value of some ordering of the tied documents, and some tie mattered.

    With *shown*, the implementation is run on ``shown[i]`` and its answer judged against the
    orderings of ``cases[i]`` (the same documents with float32 scores).
    """
    mattered = False
    pairs = list(zip(cases, shown if shown is not None else cases))
    for case, run_on in pairs:
        if not has_ties(case.scores) or not judge.admits(run_on):
            continue
        values = judge.oracle.tie_broken_values(case)
        if values is None:  # too many orderings to list: no evidence either way
            continue
        got, exception = judge.run(run_on)
        if exception is not None or not any(judge.close(got, v) for v in values):
            return False
        mattered = mattered or len(values) > 1
    return mattered


def _float32(judge: Judge, cases: list[Case]) -> Optional[Diagnosis]:
    oracle = judge.oracle
    if explains(judge, cases, oracle.in_float32):
        return Diagnosis("float32_scores", "scores are rounded to float32, so scores that differ by less than its precision tie")
    for name in TIE_BREAKS:
        if explains(judge, cases, lambda c, name=name: oracle.in_float32(c, name)):
            text = _TIE_BREAK_TEXT[name.replace(" ", "_")].replace(", not averaged", "")
            return Diagnosis("float32_scores", f"scores are rounded to float32, so near-equal scores tie; then {text}")
    # torch's sorts: float32 scores, then ties in an order no fixed rule gives (each answer one ordering's value)
    rounded = [_rounded(c) for c in cases]
    plain_values = getattr(oracle, "statistic", None) is None  # a spread's oracle gives statistics, not values
    if plain_values and any(has_ties(c.scores) for c in rounded) and _tie_broken_everywhere(judge, rounded, cases):
        return Diagnosis(
            "float32_scores",
            "scores are rounded to float32, so near-equal scores tie; then ties are broken in an arbitrary order "
            "(each answer is the value of one ordering of the float32 ties; which one can differ between machines)",
            machine_dependent=True,
        )
    return None


def _rounded(case: Case) -> Case:
    """*case* with its scores rounded to float32 (past its range, ±3.5e38: equal infinities tie)."""
    return Case(tuple(max(-3.5e38, min(3.5e38, float32(s))) for s in case.scores), case.labels, case.num_rel)


def _right_unless_straddling(judge: Judge, size: int, labels: tuple[Any, ...]) -> bool:
    k = judge.oracle.measure.k
    tied = in_domain(judge, [c for c in exhaustive(min(size + 1, 5), labels) if has_ties(c.scores) and not straddles(c, k)])
    if not tied:
        return False
    for case in tied[:STRADDLE_CASES]:
        for probe in in_domain(judge, probes(case, 2)):
            got, exception = judge.run(probe)
            if exception is not None or not judge.close(got, judge.oracle.expected(probe)):
                return False
    return True
