"""Confirm or refute a tie-aware closed form against the expectation it claims to be.

You bring two functions:

- ``metric(labels_in_order) -> value``: the ordinary (tie-oblivious) measure
  of one ordering, a tuple of Fraction labels in rank order;
- ``closed_form(groups) -> value``: your candidate tie-aware formula, given
  the tie groups as :func:`tieaware.groups` returns them (a tuple of tuples
  of Fraction labels, in rank order).

:func:`formula` computes the truth by enumerating every ordering consistent
with the ties and averaging ``metric`` exactly, and compares it with
``closed_form`` exactly: first on every tie structure of up to ``max_size``
documents (in increasing size, so the first failure is a smallest one), then
on hypothesis-generated larger ones (shrunk when one fails).

>>> from fractions import Fraction
>>> def p_at_1(o):                    # precision at 1
...     return Fraction(int(bool(o) and o[0] >= 1))
>>> def right(gs):                    # share of relevant labels in the first group
...     return Fraction(sum(x >= 1 for x in gs[0]), len(gs[0])) if gs else Fraction(0)
>>> formula(p_at_1, right, max_size=4, max_examples=20).ok
True
>>> def wrong(gs):                    # looks at the first label only
...     return Fraction(int(bool(gs) and gs[0][0] >= 1))
>>> bad = formula(p_at_1, wrong, max_size=4, max_examples=20)
>>> bad.ok, bad.counterexample.ranking, bad.counterexample.expected, bad.counterexample.got
(False, [[0, 1]], Fraction(1, 2), Fraction(0, 1))

Beware: both functions must return exact values (int, Fraction or sympy);
a float cannot be compared exactly and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from hypothesis import strategies as st

from tieaware.check.compare import as_number, exact_equal, plain_label
from tieaware.check.progress import bar
from tieaware.check.search import shrunk_failure
from tieaware.check.verdict import raised
from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact, to_exact_string
from tieaware.model.ranking import Groups, groups, label
from tieaware.reference.orderings import orderings
from tieaware.testing.rankings import tied_rankings
from tieaware.model.structures import all_tied_rankings_upto

__all__ = ["formula", "FormulaResult", "FormulaCounterexample", "expectation"]

Metric = Callable[[tuple[Fraction, ...]], Any]
ClosedForm = Callable[[Groups], Any]


@dataclass(frozen=True)
class FormulaCounterexample:
    """A tied ranking on which the closed form is not the expectation."""

    #: The tie groups, as the closed form received them.
    groups: Groups
    #: The exact expectation of the metric over every ordering.
    expected: Optional[Exact]
    #: What the closed form returned (None when it raised).
    got: Optional[Exact]
    #: The exception, as "Type: message", when the closed form (or metric) raised.
    error: Optional[str]
    #: "exhaustive" or "hypothesis".
    phase: str

    @property
    def ranking(self) -> list:
        """The groups in tieaware's input form, with int labels where they are whole: ``[2, [0, 1]]``."""
        return [plain_label(g[0]) if len(g) == 1 else [plain_label(x) for x in g] for g in self.groups]

    def __str__(self) -> str:
        head = f"ranking {self.ranking} ({self.phase})"
        if self.error is not None:
            return f"{head}: {self.error}"
        return f"{head}: expected {to_exact_string(self.expected)}, closed form gave {to_exact_string(self.got)}"


@dataclass(frozen=True)
class FormulaResult:
    """The verdict of :func:`formula`."""

    #: True when the closed form equalled the expectation on every case tried.
    ok: bool
    #: The smallest failing case found, or None.
    counterexample: Optional[FormulaCounterexample]
    #: Tie structures checked (exhaustive and hypothesis together).
    cases: int
    #: Every tie structure up to this many documents was checked.
    exhaustive_size: int

    def __str__(self) -> str:
        if self.ok:
            return f"closed form confirmed on {self.cases} tied rankings (all up to {self.exhaustive_size} documents)"
        return f"closed form refuted: {self.counterexample}"


def expectation(metric: Metric, gs: Groups) -> Exact:
    """The exact mean of *metric* over every ordering consistent with the groups.

    >>> expectation(lambda o: o[0], groups([[0, 1, 1]]))
    Fraction(2, 3)
    """
    values = [_exact(metric(o), "metric", o) for o in orderings(gs)]
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0)) / len(values)
    import sympy  # a symbolic metric (an irrational discount, say)

    mean = sympy.Add(*(sympy.sympify(v) for v in values)) / len(values)
    return Fraction(int(mean.p), int(mean.q)) if mean.is_Rational else mean


def _exact(value: Any, who: str, case: Any) -> Exact:
    number = as_number(value, f"{who} value on {case!r}")
    if isinstance(number, float):
        raise bad(f"{who} value on {case!r}", value, "must be exact (int, Fraction or sympy); a float cannot be compared exactly")
    return number


def _check(metric: Metric, closed_form: ClosedForm, gs: Groups, phase: str) -> Optional[FormulaCounterexample]:
    try:
        expected = expectation(metric, gs)
    except TieawareError:
        raise
    except (Exception, SystemExit) as exc:  # the user's metric is broken on this input: say so, on this input
        return FormulaCounterexample(gs, None, None, f"metric raised {raised(exc)}", phase)
    try:
        raw = closed_form(gs)
    except (Exception, SystemExit) as exc:
        return FormulaCounterexample(gs, expected, None, f"closed form raised {raised(exc)}", phase)
    got = _exact(raw, "closed_form", [list(g) for g in gs])
    return None if exact_equal(got, expected) else FormulaCounterexample(gs, expected, got, None, phase)


#: The largest max_size accepted: every ordering of every tie structure is enumerated
#: (8 documents: ~50,000 structures, up to 40,320 orderings each).
MAX_SIZE = 8


def _options(max_size: object, labels: object, max_examples: object, hypothesis_max_size: object) -> tuple:
    for name, value, low in (("max_size", max_size, 0), ("max_examples", max_examples, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise bad(name, value, f"must be an int >= {low}")
    if max_size > MAX_SIZE:  # type: ignore[operator]
        raise bad("max_size", max_size, f"must be at most {MAX_SIZE}: every ordering of every tie structure is enumerated")
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence) or not labels:
        raise bad("labels", labels, "must be a non-empty list of labels, e.g. (0, 1, 2)")
    values = tuple(sorted(set(label(x, "labels") for x in labels)))
    top = max_size + 4 if hypothesis_max_size is None else hypothesis_max_size
    if isinstance(top, bool) or not isinstance(top, int) or top < max_size:
        raise bad("hypothesis_max_size", hypothesis_max_size, f"must be an int >= max_size ({max_size})")
    return values, top


#: Grades tried beyond the labels given, on rankings of up to 3 documents.
EXTRA_GRADES = (3, 4)


def _larger_grades(values: tuple, size: int) -> list[list]:
    """Tie structures of up to *size* documents that use a grade above the labels given (3 and 4)."""
    extra = tuple(Fraction(x) for x in EXTRA_GRADES if Fraction(x) not in values)
    if not extra:
        return []
    low = values[:2]
    out = []
    for r in all_tied_rankings_upto(size, low + extra):
        if any(x in extra for g in r for x in (g if isinstance(g, list) else [g])):
            out.append(r)
    return out


def _large_groups(values: tuple) -> list[list]:
    """Tie groups of 10 to 14 documents with few distinct labels (at most a few hundred orderings each)."""
    zero, top = values[0], values[-1]
    one = next((x for x in values if x >= 1), top)
    return [
        [[one] + [zero] * 9],
        [[top, one] + [zero] * 8],
        [top, [one, one] + [zero] * 10],
        [zero, [top] + [zero] * 11, one],
        [[one, zero, top] + [zero] * 11],
    ]


def formula(
    metric: Metric,
    closed_form: ClosedForm,
    *,
    max_size: int = 5,
    labels: Sequence[object] = (0, 1, 2),
    max_examples: int = 200,
    hypothesis_max_size: Optional[int] = None,
    progress: bool = False,
) -> FormulaResult:
    """Check that ``closed_form(groups)`` equals the expectation of ``metric`` over tie orderings.

    Every tie structure of 0..*max_size* documents over *labels* is checked,
    smallest first; then every structure of up to min(3, *max_size*)
    documents with a grade of 3 or 4; then *max_examples* hypothesis cases of
    up to *hypothesis_max_size* documents (default ``max_size + 4``),
    derandomized; last, a few rankings with tie groups of 10 to 14 documents
    (few distinct labels, so the enumeration stays small).
    The first failure stops the search; the result carries the smallest one.
    """
    if not callable(metric):
        raise bad("metric", metric, "must be a function metric(labels_in_order) -> exact value")
    if not callable(closed_form):
        raise bad("closed_form", closed_form, "must be a function closed_form(groups) -> exact value")
    values, top = _options(max_size, labels, max_examples, hypothesis_max_size)
    structures = [(r, "exhaustive") for r in all_tied_rankings_upto(max_size, values)]
    structures += [(r, "larger grades") for r in _larger_grades(values, min(3, max_size))]
    for cases, (r, phase) in enumerate(bar(structures, progress, "tie structures", len(structures)), start=1):
        failure = _check(metric, closed_form, groups(r), phase)
        if failure is not None:
            return FormulaResult(False, failure, cases, max_size)
    counted = [0]

    def check(r: list) -> Optional[FormulaCounterexample]:
        counted[0] += 1
        return _check(metric, closed_form, groups(r), "hypothesis")

    beyond = tied_rankings(min_size=min(max_size + 1, top), max_size=top, label_strategy=st.sampled_from(values))
    failure = shrunk_failure(beyond, check, max_examples)
    if failure is None:  # last, being the largest: tie groups of 10 to 14 documents
        for r in _large_groups(values):
            counted[0] += 1
            failure = _check(metric, closed_form, groups(r), "large tie groups")
            if failure is not None:
                break
    return FormulaResult(failure is None, failure, len(structures) + counted[0], max_size)
