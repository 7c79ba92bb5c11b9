"""Check someone's implementation of a measure against the exact tie-aware reference.

``impl(scores, labels) -> number`` receives two parallel lists: float scores
(equal scores are tied) and graded labels (numbers >= 0).  It must return the
measure's value on that one ranking.  An implementation that also takes a
third argument, ``impl(scores, labels, num_rel)``, is also given the number of
judged relevant documents, retrieved or not.

:func:`implementation` builds a *profile*, not a first failure
(docs/check.md, "What is searched" and "The profile"):

1. **precision**: the results on untied inputs tell float64, float32 or
   rounded to d decimals; every answer is then judged at that precision;
2. **definition**: on untied, plainly scored inputs the implementation either
   computes the measure, or another library's convention of it (the nearest
   tieaware measure that fits is named: ``AP(norm=capped)@5``), or neither (a
   bug); the later phases judge it against the measure it computes;
3. every phase runs, each to its first failure: tie structures of up to
   ``max_size`` documents (smallest first, sorted and reversed), around the
   cutoff, near-ties, zero/negative/huge/tiny scores, larger grades (and the
   grade 1/2, which names the relevance threshold), tie groups of 10 to 64
   documents, unretrieved relevant documents, and ``max_examples`` hypothesis
   inputs (derandomized, shrunk);
4. each failure is diagnosed (:mod:`tieaware.check.diagnose`); a tie rule is
   named only after it holds on groups of 5 to 65 documents.

Every input stays inside the declared domain (*labels*, *scores*,
*min_size*, *max_docs*; :mod:`tieaware.check.domain`).

>>> def ap_stable_sort(scores, labels):      # breaks ties by input order
...     order = sorted(range(len(scores)), key=lambda i: -scores[i])
...     hits, total = 0, 0.0
...     for rank, i in enumerate(order, start=1):
...         if labels[i] >= 1:
...             hits += 1
...             total += hits / rank
...     return total / hits if hits else 0.0
>>> result = implementation(ap_stable_sort, "AP", max_size=3, max_examples=0)
>>> result.ok, result.counterexample.labels, result.counterexample.expected, result.cause
(False, (0, 1), Fraction(3, 4), 'input_order')

Beware: with the two-argument form the expected value uses the documents the
implementation sees, so num_rel is the number of relevant labels passed in,
and nDCG's ideal ranking is always built from the labels passed in.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any, Optional, Union

from tieaware.check import cases as _cases
from tieaware.check import convention as _convention
from tieaware.check import precision as _precision
from tieaware.check.diagnose import RULES, TIE_BROKEN_CAUSES, Diagnosis, diagnose
from tieaware.check.domain import HALF, Domain
from tieaware.check.oracle import Oracle
from tieaware.check.progress import bar
from tieaware.check.result import BUG, CONVENTION, NOTE, Finding, ImplementationResult
from tieaware.check.search import shrunk_failure
from tieaware.check.verdict import Counterexample, Impl, Judge
from tieaware.check.worker import BUDGET, MEMORY, TIMEOUT, Stopped, Worker, failure_text
from tieaware.model.errors import TieawareError, bad
from tieaware.model.names import Measure, parse
from tieaware.model.params import flag
from tieaware.model.ranking import label

__all__ = ["implementation", "ImplementationResult", "domain_of", "check_int", "check_tolerance"]


def check_int(value: object, name: str, low: int) -> int:
    """*value* if it is an int >= *low* (not a bool), else TieawareError naming *name*."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise bad(name, value, f"must be an int >= {low}")
    return value


def check_tolerance(value: object, name: str) -> float:
    """*value* as a float if it is a number in [0, 1), else TieawareError naming *name*."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1 or value != value:
        raise bad(name, value, "must be a number in [0, 1)")
    return float(value)


#: The largest max_size accepted: the exhaustive phase grows ~5x per document
#: (4: ~900 inputs, 6: ~21,000, 8: ~490,000, 9 would be ~2.4 million).
MAX_SIZE = 8
#: Sizes of the score-class, larger-grade and unretrieved-relevant phases.
CLASS_SIZE = 3
#: Near-tie structures placed across a cutoff k have at most this many documents (and at
#: most near_tie_size): 3 holds a pair straddling k after one document, whatever max_size is.
NEAR_TIES_AT_CUTOFF = 3
#: The phases whose untied inputs define the measure (plain scores, labels of the domain).
DEFINING = ("exhaustive", "at cutoff", "past cutoff")
#: Where a failure shows, by phase, when its cause does not say more.
PHASE_ASPECT = {
    "near-ties": "near-ties",
    "ulp-apart": "near-ties",
    "scores": "scores",
    "larger grades": "labels",
    "large tie groups": "large groups",
    "unretrieved relevant": "num_rel",
    "hypothesis": "other",
}
#: Where a failure shows, by cause.
CAUSE_ASPECT = {
    **{c: "ties" for c in (*TIE_BROKEN_CAUSES, "one_threshold")},
    "cutoff_straddle": "cutoff",
    "cutoff_off_by_one": "cutoff",
    "float32_scores": "near-ties",
    "tolerance": "near-ties",
    "ignores_num_rel": "num_rel",
    "score_values": "scores",
    "definition": "definition",
    "assumes_sorted": "other",
}


def _accepts_three(impl: Impl) -> bool:
    """Can *impl* be called as impl(scores, labels, num_rel)?"""
    try:
        inspect.signature(impl).bind([], [], 0)
    except (TypeError, ValueError):
        return False
    return True


def _takes_num_rel(judge: Judge) -> bool:
    return _accepts_three(judge.impl) and judge.oracle.takes_num_rel()


def _has_half(case: _cases.Case) -> bool:
    return any(label(x) == HALF for x in case.labels)


def _fixed_cases(judge: Judge, domain: Domain, max_size: int, near_tie_size: int) -> list[tuple[_cases.Case, str]]:
    """The deterministic phases, in the order they run (see docs/check.md, "What is searched"), inside the domain."""
    oracle = judge.oracle
    values = domain.labels
    size = min(CLASS_SIZE, max_size)  # a smaller budget shrinks the class phases too
    k = oracle.measure.k
    fixed = [(c, "exhaustive") for r in _cases.exhaustive(max_size, values, domain.min_size) for c in _cases.in_other_orders(r)]
    if k is not None and k >= max_size:  # the exhaustive sizes never reach the cutoff: go there
        fixed += [(c, "at cutoff") for c in _cases.at_cutoff(k, max_size, values)]
    if k is not None:  # past the cutoff, with more than k relevant documents
        fixed += [(c, "past cutoff") for c in _cases.past_cutoff(k, values)]
    two = max(domain.min_size, 2)
    fixed += [(c, "near-ties") for c in _cases.near_ties(near_tie_size, values, two)]
    if k is not None:  # near-ties across the cutoff: the only place a set measure (P@k, R@k) sees them
        fixed += [(c, "near-ties") for c in _cases.at_cutoff(k, min(near_tie_size, NEAR_TIES_AT_CUTOFF), values, _cases.NUDGE)]
    fixed += [(c, "ulp-apart") for c in _cases.near_ties(min(near_tie_size, size), values, two, _cases.ULP)]
    low = domain.low
    fixed += [(c, "scores") for c in _cases.score_classes(size, low, domain.ladder)]
    extra = tuple(x for x in domain.extra if x not in values) + ((HALF,) if domain.half else ())
    if extra:
        grades = _cases.larger_grades(size, low, extra[:1]) + _cases.larger_grades(min(2, size), low, extra)
        fixed += [(c, "larger grades") for c in list(dict.fromkeys(grades))]
    fixed += [(c, "large tie groups") for c in _cases.large_groups(k, values)]
    if _takes_num_rel(judge):
        fixed += [(c, "unretrieved relevant") for c in _cases.unretrieved(size, values, oracle.measure.rel)]
    return [(c, phase) for c, phase in fixed if domain.admits(c)]


def _fewest_documents(judge: Judge, cex: Counterexample, min_size: int) -> Counterexample:
    """Drop documents one at a time while the input still fails, keeping the others' order.

    Hypothesis shrinks the ranking and its input order separately, so an input-order
    failure can stay longer than it needs to be; this greedy pass finishes the job.
    """
    case = cex.case
    smaller = True
    while smaller and len(case.scores) > min_size:
        smaller = False
        for i in range(len(case.scores)):
            keep = [j for j in range(len(case.scores)) if j != i]
            candidate = _cases.Case(tuple(case.scores[j] for j in keep), tuple(case.labels[j] for j in keep), case.num_rel)
            if not judge.admits(candidate):
                continue
            found = judge.check(candidate, cex.phase)
            if found is not None and found.exception is None:
                case, cex, smaller = candidate, found, True
                break
    return cex


def _allows(oracle: Oracle, grade: Any) -> bool:
    try:
        oracle.value([grade, 1])
    except ValueError:
        return False
    return True


@dataclasses.dataclass
class _Failure:
    """A phase's first failure, where it came in the run (for the order of the profile)."""

    order: int
    cex: Counterexample


def _first_failures(judge: Judge, fixed: list[tuple[_cases.Case, str]], progress: bool, name: str) -> tuple[list[_Failure], int]:
    """The first failing input of each phase, separately for tied and untied inputs; every phase runs."""
    found: dict[tuple[str, bool], _Failure] = {}
    for i, (case, phase) in enumerate(bar(fixed, progress, f"checking {name}", len(fixed))):
        key = (phase, _cases.untied(case))
        if key in found:
            continue
        cex = judge.check(case, phase)
        if cex is not None:
            found[key] = _Failure(i, cex)
    return sorted(found.values(), key=lambda f: f.order), len(fixed)


def _aspect(cex: Counterexample, diagnosis: Optional[Diagnosis]) -> str:
    phase = cex.phase
    cause = None if diagnosis is None else diagnosis.cause
    if cause in TIE_BROKEN_CAUSES or cause == "one_threshold":
        return "large groups" if phase == "large tie groups" else "ties"
    if cause in CAUSE_ASPECT:
        return CAUSE_ASPECT[cause]
    if phase in DEFINING:
        return "definition" if _cases.untied(cex.case) else "ties"
    return PHASE_ASPECT.get(phase, "other")


def _finding(cex: Counterexample, diagnosis: Optional[Diagnosis]) -> Finding:
    if cex.exception is not None:
        return Finding(_aspect(cex, None), "raises", failure_text(cex.exception), BUG, cex)
    if diagnosis is None:
        return Finding(_aspect(cex, None), "unexplained", "no usual cause fits", BUG, cex)
    return Finding(_aspect(cex, diagnosis), diagnosis.cause, diagnosis.explanation, BUG, cex, None, diagnosis.machine_dependent,
                   diagnosis.held_rule, diagnosis.held_up_to)


def _half_grade(judge: Judge, half_cases: list[_cases.Case], tie_bug: bool) -> Optional[Finding]:
    """What the grade 1/2 shows: nothing, the relevance threshold (label > 0 against label >= 1), or a bug.

    The threshold is decided on the untied inputs (ties are the other phases' business); the tied
    ones are checked against the threshold found unless the implementation already mishandles ties.
    """
    untied = [c for c in half_cases if _cases.untied(c)]
    first = next((cex for cex in (judge.check(c, "larger grades") for c in untied) if cex is not None), None)
    note = None
    if first is not None:
        m = judge.oracle.measure
        other = m.replace(rel=HALF) if ("rel" in _names_allowed(m) and m.name not in ("nDCG", "DCG")) or m.binary_gain else None
        if other is None or first.exception is not None:
            return _finding(first, None)
        at_half = judge.judging(judge.oracle.like(other))
        if not all(at_half.check(c, "larger grades") is None for c in untied):
            return Finding("labels", "unexplained", "wrong on a grade of 1/2 in a way no relevance threshold explains", BUG, first)
        judge = at_half
        note = Finding(
            "labels",
            "relevance_threshold",
            f"a label of 1/2 counts as relevant (relevant means label > 0, not label >= {m.rel}): the same on "
            f"integer labels; on fractional labels it computes {other}",
            NOTE,
            first,
            str(other),
        )
    if not tie_bug:
        tied = next((cex for cex in (judge.check(c, "larger grades") for c in half_cases if not _cases.untied(c)) if cex is not None), None)
        if tied is not None:
            return _finding(tied, None) if tied.exception is not None else Finding(
                "labels", "unexplained", "wrong on tied documents with a grade of 1/2", BUG, tied
            )
    return note


def _names_allowed(m: Measure) -> Any:
    from tieaware.model.names import MEASURES

    return {k: True for k in MEASURES[m.name][1]}


def implementation(
    impl: Impl,
    measure: Union[str, Measure],
    *,
    max_size: int = 4,
    min_size: int = 1,
    labels: Union[None, str, Sequence[Any]] = None,
    scores: Union[None, str, Sequence[str]] = None,
    max_docs: Optional[int] = None,
    near_tie_size: int = 4,
    max_examples: int = 200,
    hypothesis_max_size: int = 12,
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
    ties: bool = True,
    progress: bool = False,
    timeout: Optional[float] = TIMEOUT,
    memory: Optional[int] = MEMORY,
    budget: Optional[float] = BUDGET,
    isolate: bool = True,
) -> ImplementationResult:
    """Check ``impl(scores, labels)`` against the exact tie-aware value of *measure*: a profile of what it does.

    *measure* is an ir_measures-style name (``AP@10``, ``nDCG@5``,
    ``P(rel=2)@5``, ``RR``) or a parsed :class:`~tieaware.model.names.Measure`.
    For ``RBO(p=0.9, variant=a, bound=ext)`` *impl* is called as ``impl(S, L)``
    with two rankings instead (see :mod:`tieaware.check.rbo`).

    The domain: *labels* (None: 0, 1, 2, then 3, 4 and 1/2; ``"binary"``;
    ``"integer"``; or a list, exactly those), *scores* (``"positive"``,
    ``"non-negative"``, ``"integer"``, comma-joined), *min_size* and
    *max_docs* (documents per input).  No input outside it is ever passed.
    Set *max_examples* to 0 for the fixed phases only.  ``ties=False``
    checks untied inputs only (distinct scores, including scores that
    differ only beyond float32's precision): does a tie-oblivious library
    at least compute the ordinary measure?

    *impl* runs in a worker process (:mod:`tieaware.check.worker`), the
    exact values in this one: an implementation that ends its process,
    raises ``KeyboardInterrupt`` or monkeypatches tieaware fails on that
    input.  A call without an answer within *timeout* seconds stops the
    check (every later input would wait as long), as does *budget* seconds
    of calls in all; the worker may hold *memory* MiB more than when it
    started (None: no limit).  ``isolate=False`` calls *impl* in this
    process instead (faster to start, for code you trust).
    """
    if not callable(impl):
        raise bad("impl", impl, "must be a function impl(scores, labels) -> number")
    parsed = measure if isinstance(measure, Measure) else parse(measure)
    if parsed.name == "RBO":  # two rankings in, not scores and labels
        from tieaware.check.rbo import rbo_implementation

        with isolated(impl, flag(isolate, "isolate"), timeout, memory, budget) as caller:
            return rbo_implementation(
                impl, parsed, max_size=min(max_size, 2), max_examples=max_examples, rel_tol=rel_tol, abs_tol=abs_tol,
                ties=flag(ties, "ties"), progress=progress, caller=caller,
            )
    domain, top, ties = domain_of(impl, Oracle(parsed), min_size, max_size, labels, scores, max_docs, hypothesis_max_size, ties)
    tolerances = dict(rel_tol=check_tolerance(rel_tol, "rel_tol"), abs_tol=check_tolerance(abs_tol, "abs_tol"))
    budgets = dict(max_size=check_int(max_size, "max_size", 0), near_tie_size=check_int(near_tie_size, "near_tie_size", 0), max_examples=check_int(max_examples, "max_examples", 0))
    with isolated(impl, flag(isolate, "isolate"), timeout, memory, budget) as caller:
        judge = Judge(impl, Oracle(parsed), domain=domain, caller=caller, **tolerances)
        try:
            return profile_check(judge, domain, top=top, ties=ties, progress=progress, **budgets)
        except Stopped as stop:
            return stopped(judge, stop)


@contextlib.contextmanager
def isolated(impl: Impl, isolate: bool, timeout: Any, memory: Any, budget: Any) -> Iterator[Any]:
    """A :class:`~tieaware.check.worker.Worker` for *impl* (or None: this process), ended after the check."""
    if not isolate:
        yield None
        return
    worker = Worker(impl, timeout=timeout, memory=memory, budget=budget)
    try:
        yield worker
    finally:
        worker.close()


def stopped(judge: Judge, stop: Stopped) -> ImplementationResult:
    """The verdict of a check that could not go on (:class:`~tieaware.check.worker.Stopped`): a failure, with the call that stopped it."""
    cex = None
    if stop.call_args is not None:
        scores, labels = stop.call_args[0], stop.call_args[1]
        case = _cases.Case(tuple(scores), tuple(labels), stop.call_args[2] if len(stop.call_args) > 2 else None)
        try:
            expected = judge.oracle.expected(case)
        except TieawareError:
            expected = None
        cex = Counterexample(case.scores, case.labels, expected, None, None, stop.text, "stopped", case.num_rel)
    text = failure_text(stop.text) + "; the check stopped there"
    finding = Finding("other", "stopped", text, BUG, cex)
    return ImplementationResult(False, str(judge.oracle.measure), cex, Diagnosis("stopped", text), judge.calls, "stopped", None, None, None, (finding,))


def domain_of(
    impl: Any, oracle: Oracle, min_size: Any, max_size: Any, labels: Any, scores: Any, max_docs: Any, hypothesis_max_size: Any, ties: Any
) -> tuple[Domain, int, bool]:
    """The checked domain, the largest hypothesis input and the ties flag, from the caller's arguments."""
    min_size = check_int(min_size, "min_size", 0)
    max_size = check_int(max_size, "max_size", min_size)
    if max_size > MAX_SIZE:  # each size is ~5x the inputs of the one before
        raise bad("max_size", max_size, f"must be at most {MAX_SIZE} (every tie structure of {MAX_SIZE} documents is already ~500,000 inputs); use max_examples for larger inputs")
    top = check_int(hypothesis_max_size, "hypothesis_max_size", max(min_size, 1))
    domain = Domain.of(labels, scores, min_size, max_docs)
    if domain.max_docs is not None:
        top = min(top, domain.max_docs)
    half = domain.half and _allows(oracle, HALF) and not getattr(impl, "integer_labels", False)
    return dataclasses.replace(domain, half=half), top, flag(ties, "ties")


def profile_check(
    judge: Judge,
    domain: Domain,
    *,
    max_size: int,
    near_tie_size: int,
    max_examples: int,
    top: int,
    ties: bool,
    progress: bool,
    diagnoser: Any = None,
) -> ImplementationResult:
    """The whole check of *judge*'s implementation on *domain*: precision, definition, every phase, diagnoses.

    *diagnoser* (default :func:`~tieaware.check.diagnose.diagnose`) names a failure's cause;
    :func:`tieaware.check.spread_check.spread` passes its own.
    """
    diagnoser = diagnoser or diagnose
    oracle = judge.oracle
    parsed = oracle.measure
    name = str(parsed)
    values = domain.labels
    profile: list[tuple[int, Finding]] = []

    # 1. precision, from untied inputs
    precision = _precision.measure(judge, _precision.probe_cases(values, lambda c: domain.admits(c, half=False), max(max_size, 2)))
    judge.tolerate(precision.rel_tol, precision.abs_tol)
    if precision.kind not in ("float64", "exact"):
        text = f"results are {precision}: answers are judged within relative {precision.rel_tol:g}, absolute {precision.abs_tol:g}"
        profile.append((-2, Finding("precision", "precision", text, NOTE)))

    # 2. the definition, on untied plainly scored inputs: the measure, another convention, or a bug
    fixed = [(c, phase) for c, phase in _fixed_cases(judge, domain, max_size, near_tie_size) if phase != "large tie groups" or _computable(oracle, c)]
    if not ties:
        # Distinct doubles, including those float32 cannot tell apart (1.0 and 1 + 2**-30, 1e308 and
        # 1e300): they are untied, and hypothesis's untied inputs draw them too, so excluding them
        # here made the verdict depend on max_size (found by hypothesis at some sizes, not others).
        fixed = [(c, phase) for c, phase in fixed if _cases.untied(c)]
    defining = [(c, phase) for c, phase in fixed if phase in DEFINING and _cases.untied(c)]
    effective, convention = judge, name
    first = next((cex for cex in (judge.check(c, phase) for c, phase in defining) if cex is not None), None)
    definition_bug = False
    if first is not None:
        found = _convention.search(judge, [c for c, _ in defining], values) if first.exception is None else None
        if found is not None:
            effective, convention = judge.judging(oracle.like(found)), str(found)
            profile.append((-1, Finding("definition", "convention", f"untied, it computes {found}: {_convention.describe(parsed, found)}", CONVENTION, first, convention)))
        else:
            convention = None  # type: ignore[assignment]
            definition_bug = True
            if first.exception is None:  # show the failure itself, not one a known convention explains
                first = _convention.unexplained(judge, [(c, phase) for c, phase in defining], values) or first

    # 3. every phase, each to its first failure (tied and untied apart), against the measure it computes
    half_cases = [c for c, phase in fixed if _has_half(c)]
    phases = [(c, phase) for c, phase in fixed if not _has_half(c)]
    failures, count = _first_failures(effective, phases, progress, name)
    if half_cases:
        count += len(half_cases)
        tie_bug = any(f.cex.phase in DEFINING and not _cases.untied(f.cex.case) for f in failures)
        finding = _half_grade(effective, half_cases, tie_bug)
        if finding is not None:
            profile.append((len(fixed), finding))
    drawn = [0]

    def check(case: _cases.Case) -> Optional[Counterexample]:
        if not domain.admits(case) or not _computable(effective.oracle, case):
            return None
        drawn[0] += 1
        return effective.check(case, "hypothesis")

    strategy = _cases.drawn(values, min(max(domain.min_size, max_size + 1), top), top, ties, parsed.rel if _takes_num_rel(judge) else None, domain.ladder)
    cex = shrunk_failure(strategy, check, max_examples)
    if cex is not None and cex.exception is None:
        cex = _fewest_documents(effective, cex, max(domain.min_size, 1))
    if cex is not None:
        failures.append(_Failure(len(fixed) + 1, cex))

    # 4. diagnose each failure; keep one finding per cause (the first, the smallest)
    seen: set[tuple[str, str]] = set()
    if definition_bug:
        failures.insert(0, _Failure(-1, first))  # type: ignore[arg-type]
    for failure in failures:
        diagnosis = diagnoser(effective, failure.cex, values) if failure.cex.exception is None else None
        finding = _finding(failure.cex, diagnosis)
        if definition_bug and finding.cause in ("definition", "unexplained") and failure.order >= 0:
            continue  # the definition differs: the same difference shows everywhere
        key = (finding.cause, finding.aspect) if finding.cause in ("unexplained", "raises") else (finding.cause, "")
        if key in seen:
            continue
        seen.add(key)
        profile.append((failure.order, finding))
    profile.sort(key=lambda p: p[0])
    findings = tuple(f for _, f in profile)
    bugs = [f for f in findings if f.severity == BUG]
    if bugs:
        main = bugs[0]
        diagnosis = _diagnosis_of(main)
        return ImplementationResult(False, name, main.counterexample, diagnosis, count + drawn[0], main.cause, None, convention, precision, findings)
    if convention != name:
        main = next(f for f in findings if f.severity == CONVENTION)
        diagnosis = Diagnosis("convention", main.explanation)
        return ImplementationResult(False, name, main.counterexample, diagnosis, count + drawn[0], "convention", convention, convention, precision, findings)
    return ImplementationResult(True, name, None, None, count + drawn[0], None, name, name, precision, findings)


def _computable(oracle: Oracle, case: _cases.Case) -> bool:
    """Can the truth be computed here (a distribution has no closed form for every large group)?"""
    try:
        oracle.expected(case)
    except TieawareError:
        return False
    return True


def _diagnosis_of(finding: Finding) -> Optional[Diagnosis]:
    if finding.cause in ("raises", "unexplained"):
        return None
    return Diagnosis(finding.cause, finding.explanation, finding.machine_dependent)
