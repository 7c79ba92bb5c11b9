"""Check someone's implementation of a measure against the exact tie-aware reference.

``impl(scores, labels) -> number`` receives two parallel lists: float scores
(equal scores are tied) and graded labels (numbers >= 0).  It must return the
measure's value on that one ranking.  An implementation that also takes a
third argument, ``impl(scores, labels, num_rel)``, is also given the number of
judged relevant documents, retrieved or not.  :func:`implementation` calls it on

1. every tie structure of up to ``max_size`` documents, smallest first, sorted
   by score and in reverse input order; when the cutoff k is beyond that,
   every such structure placed at k, and rankings past k with more than k
   relevant documents,
2. near-ties: tie groups pulled apart by 2**-30 (below float32 precision) and
   by one ulp,
3. score classes: zero, negative, -0.0, huge, tiny and mixed-magnitude scores,
4. larger grades (3, 4, and 1/2 where the measure allows it), tie groups of
   10 to 16 documents, and unretrieved relevant documents (3-argument form),
5. ``max_examples`` hypothesis cases of up to ``hypothesis_max_size``
   documents, in shuffled input order (derandomized, shrunk on failure),

and compares each answer with the exact expected value under random
tie-breaking (docs/conventions.md, Measures), computed by the reference layer
(by the closed forms for tie groups of 8 and more).  Floats must be within
``rel_tol`` (relative, default 1e-9) or ``abs_tol``; Fractions and ints must
be exactly equal.  The first failure stops the run and is diagnosed
(:mod:`tieaware.check.diagnose`).  docs/check.md lists the search space in full.

>>> def ap_stable_sort(scores, labels):      # breaks ties by input order
...     order = sorted(range(len(scores)), key=lambda i: -scores[i])
...     hits, total = 0, 0.0
...     for rank, i in enumerate(order, start=1):
...         if labels[i] >= 1:
...             hits += 1
...             total += hits / rank
...     return total / hits if hits else 0.0
>>> result = implementation(ap_stable_sort, "AP", max_size=3, max_examples=0)
>>> result.ok, result.counterexample.labels, result.counterexample.expected, result.diagnosis.cause
(False, (0, 1), Fraction(3, 4), 'input order')

Beware: with the two-argument form the expected value uses the documents the
implementation sees, so num_rel is the number of relevant labels passed in,
and nDCG's ideal ranking is always built from the labels passed in.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Optional, Union

from tieaware.check import cases as _cases
from tieaware.check.diagnose import diagnose
from tieaware.check.oracle import Oracle
from tieaware.check.progress import bar
from tieaware.check.search import shrunk_failure
from tieaware.check.result import ImplementationResult
from tieaware.check.verdict import Counterexample, Impl, Judge
from tieaware.model.errors import bad
from tieaware.model.names import Measure, parse
from tieaware.model.params import flag
from tieaware.model.ranking import label

__all__ = ["implementation", "ImplementationResult"]


def _int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise bad(name, value, f"must be an int >= {low}")
    return value


def _tolerance(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1 or value != value:
        raise bad(name, value, "must be a number in [0, 1)")
    return float(value)


#: Extra grades tried beyond the labels given (plus 1/2 where the measure allows a non-integer grade).
EXTRA_GRADES = (3, 4)
#: The largest max_size accepted: the exhaustive phase grows ~5x per document
#: (4: ~900 inputs, 6: ~21,000, 8: ~490,000, 9 would be ~2.4 million).
MAX_SIZE = 8
#: Sizes of the score-class, larger-grade and unretrieved-relevant phases.
CLASS_SIZE = 3


def _accepts_three(impl: Impl) -> bool:
    """Can *impl* be called as impl(scores, labels, num_rel)?"""
    try:
        inspect.signature(impl).bind([], [], 0)
    except (TypeError, ValueError):
        return False
    return True


def _takes_num_rel(judge: Judge) -> bool:
    return _accepts_three(judge.impl) and judge.oracle.takes_num_rel()


def _near(case: _cases.Case) -> bool:
    """Two distinct scores closer than float32 can tell apart: a near-tie."""
    rounded = [_cases.float32(s) for s in case.scores]
    return len(set(rounded)) < len(set(case.scores))


def _fixed_cases(judge: Judge, values: tuple, max_size: int, min_size: int, near_tie_size: int) -> list[tuple[_cases.Case, str]]:
    """The deterministic phases, in the order they run (see docs/check.md, "What is searched")."""
    oracle = judge.oracle
    size = min(CLASS_SIZE, max_size)  # a smaller budget shrinks the class phases too
    k = oracle.measure.k
    sized = lambda cases: [c for c in cases if len(c.scores) >= min_size]  # noqa: E731
    fixed = [(c, "exhaustive") for r in _cases.exhaustive(max_size, values, min_size) for c in _cases.in_other_orders(r)]
    if k is not None and k >= max_size:  # the exhaustive sizes never reach the cutoff: go there
        fixed += [(c, "at cutoff") for c in sized(_cases.at_cutoff(k, max_size, values))]
    if k is not None:  # past the cutoff, with more than k relevant documents
        fixed += [(c, "past cutoff") for c in sized(_cases.past_cutoff(k, values))]
    two = max(min_size, 2)
    fixed += [(c, "near-ties") for c in _cases.near_ties(near_tie_size, values, two)]
    fixed += [(c, "ulp-apart") for c in _cases.near_ties(min(near_tie_size, size), values, two, _cases.ULP)]
    low = values[:2] if len(values) > 1 else values
    fixed += [(c, "scores") for c in sized(_cases.score_classes(size, low))]
    half = _allows(oracle, Fraction(1, 2)) and not getattr(judge.impl, "integer_labels", False)
    extra = tuple(x for x in EXTRA_GRADES if x not in values) + ((0.5,) if half else ())
    grades = _cases.larger_grades(size, low, extra[:1]) + _cases.larger_grades(min(2, size), low, extra)
    fixed += [(c, "larger grades") for c in sized(list(dict.fromkeys(grades)))]
    fixed += [(c, "large tie groups") for c in sized(_cases.large_groups(k, values))]
    if _takes_num_rel(judge):
        fixed += [(c, "unretrieved relevant") for c in sized(_cases.unretrieved(size, values, oracle.measure.rel))]
    return fixed


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
            candidate = _cases.Case(
                tuple(case.scores[j] for j in keep), tuple(case.labels[j] for j in keep), case.num_rel
            )
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


def implementation(
    impl: Impl,
    measure: Union[str, Measure],
    *,
    max_size: int = 4,
    min_size: int = 1,
    labels: Sequence[Any] = (0, 1, 2),
    near_tie_size: int = 4,
    max_examples: int = 200,
    hypothesis_max_size: int = 12,
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
    ties: bool = True,
    progress: bool = False,
) -> ImplementationResult:
    """Check ``impl(scores, labels)`` against the exact tie-aware value of *measure*.

    *measure* is an ir_measures-style name (``AP@10``, ``nDCG@5``,
    ``P(rel=2)@5``, ``RR``) or a parsed :class:`~tieaware.model.names.Measure`.
    For ``RBO(p=0.9, variant=a, bound=ext)`` *impl* is called as ``impl(S, L)``
    with two rankings instead (see :mod:`tieaware.check.rbo`).
    *min_size* skips smaller inputs (some libraries refuse one document).
    Set *max_examples* to 0 for the exhaustive and near-tie phases only.
    ``ties=False`` checks untied inputs only (distinct scores, no near-ties):
    does a tie-oblivious library at least compute the ordinary measure?
    """
    if not callable(impl):
        raise bad("impl", impl, "must be a function impl(scores, labels) -> number")
    parsed = measure if isinstance(measure, Measure) else parse(measure)
    if parsed.name == "RBO":  # two rankings in, not scores and labels
        from tieaware.check.rbo import rbo_implementation

        return rbo_implementation(
            impl,
            parsed,
            max_size=min(max_size, 2),
            max_examples=max_examples,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            ties=flag(ties, "ties"),
            progress=progress,
        )
    oracle = Oracle(parsed)
    min_size = _int(min_size, "min_size", 0)
    max_size = _int(max_size, "max_size", min_size)
    if max_size > MAX_SIZE:  # each size is ~5x the inputs of the one before
        raise bad("max_size", max_size, f"must be at most {MAX_SIZE} (every tie structure of {MAX_SIZE} documents is already ~500,000 inputs); use max_examples for larger inputs")
    near_tie_size = _int(near_tie_size, "near_tie_size", 0)
    max_examples = _int(max_examples, "max_examples", 0)
    top = _int(hypothesis_max_size, "hypothesis_max_size", max(min_size, 1))
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence) or not labels:
        raise bad("labels", labels, "must be a non-empty list of labels, e.g. (0, 1, 2)")
    for x in labels:
        label(x, "labels")  # validates: a number >= 0
    values = tuple(sorted(set(labels), key=lambda x: label(x, "labels")))
    judge = Judge(impl, oracle, rel_tol=_tolerance(rel_tol, "rel_tol"), abs_tol=_tolerance(abs_tol, "abs_tol"))
    name = str(oracle.measure)

    def verdict(cex: Optional[Counterexample], count: int) -> ImplementationResult:
        diagnosis = None if cex is None else diagnose(judge, cex, values)
        return ImplementationResult(cex is None, name, cex, diagnosis, count)

    count = 0
    ties = flag(ties, "ties")
    fixed = _fixed_cases(judge, values, max_size, min_size, near_tie_size)
    if not ties:
        fixed = [(c, phase) for c, phase in fixed if _cases.untied(c) and not _near(c)]
    for case, phase in bar(fixed, progress, f"checking {name}", len(fixed)):
        count += 1
        cex = judge.check(case, phase)
        if cex is not None:
            return verdict(cex, count)
    drawn = [0]

    def check(case: _cases.Case) -> Optional[Counterexample]:
        drawn[0] += 1
        return judge.check(case, "hypothesis")

    strategy = _cases.drawn(values, min(max(min_size, max_size + 1), top), top, ties, oracle.measure.rel if _takes_num_rel(judge) else None)
    cex = shrunk_failure(strategy, check, max_examples)
    if cex is not None and cex.exception is None:
        cex = _fewest_documents(judge, cex, max(min_size, 1))
    return verdict(cex, count + drawn[0])
