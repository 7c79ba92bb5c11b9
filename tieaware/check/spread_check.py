"""Check an implementation of a measure's spread over tie-breakings: its worst, best, variance or distribution.

Tie-aware libraries report more than the expected value: the worst and best
value over every ordering of the tied documents, their variance, or the
whole distribution (docs/uncertainty.md).  :func:`spread` checks such code
with the same search, shrinking and profile as
:func:`tieaware.check.implementation`; the truth is
``tieaware.reference.worst/best/variance/distribution`` (every ordering,
enumerated; the closed forms of :mod:`tieaware.fast.uncertainty` for groups
past the enumeration limit).

``impl(scores, labels)`` returns a number for ``"min"``, ``"max"`` and
``"variance"``; for ``"distribution"`` a mapping ``{value: probability}`` (or
a list of ``(value, probability)`` pairs).

Diagnoses of its own, beside the definition and its conventions
(``P(norm=retrieved)@k`` names an extreme computed with P@k divided by
min(k, n)): ``expected_value`` (the mean, not the extreme), ``swapped`` (the
other extreme), ``tie_broken_value`` (one ordering's value, not the
extreme), ``standard_deviation`` (the square root of the variance).

>>> from tieaware import fast
>>> from tieaware.model.ranking import from_scores
>>> worst_p1 = lambda s, l: float(fast.worst("P@1", from_scores(s, l)))
>>> spread(worst_p1, "P@1", "min", max_examples=0).ok
True
>>> best_as_worst = lambda s, l: float(fast.best("P@1", from_scores(s, l)))
>>> r = spread(best_as_worst, "P@1", "min", max_examples=0)
>>> r.ok, r.cause, r.counterexample.labels
(False, 'swapped', (0, 1))
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import factorial, prod
from typing import Any, Callable, Optional, Union

from tieaware.check.cases import Case
from tieaware.check.compare import as_number
from tieaware.check.diagnose import Diagnosis, explains, has_ties, in_domain, tied_probes, probes
from tieaware.check.oracle import REFERENCE_ORDERINGS, Oracle
from tieaware.check.result import ImplementationResult
from tieaware.check.verdict import Counterexample, Judge
from tieaware.check.worker import BUDGET, MEMORY, TIMEOUT, Stopped
from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact
from tieaware.model.names import Measure, parse
from tieaware.model.params import flag
from tieaware.model.ranking import from_scores

__all__ = ["spread", "STATISTICS", "SpreadOracle"]

#: statistic -> the function of tieaware.reference / tieaware.fast that computes it.
STATISTICS = {"min": "worst", "max": "best", "variance": "variance", "distribution": "distribution"}


class SpreadOracle(Oracle):
    """The exact worst, best, variance or distribution of a measure over tie-breakings, on checker cases."""

    def __init__(self, measure: Union[str, Measure], statistic: str) -> None:
        if statistic not in STATISTICS:
            raise bad("statistic", statistic, f"must be one of {list(STATISTICS)}")
        self.statistic = statistic
        super().__init__(measure)

    def like(self, measure: Union[str, Measure]) -> "SpreadOracle":
        return SpreadOracle(measure, self.statistic)

    def value(self, ranking: list, k: Optional[int] = None, num_rel: Optional[int] = None) -> Exact:
        m = self.measure if k is None else Measure(self.measure.name, k, self.measure.params)
        key = ("spread", m.k, num_rel, tuple(tuple(sorted(g)) if isinstance(g, list) else g for g in ranking))
        if key not in self._cache:
            from tieaware import fast, reference

            sizes = [len(g) for g in ranking if isinstance(g, list)]
            small = prod(factorial(n) for n in sizes) <= REFERENCE_ORDERINGS
            if not small and m.conventions and self.statistic in ("min", "max"):
                # fast has no spread for another library's convention; each is monotone in the labels' order,
                # so its worst (best) is its value on the ordering that puts each group's lowest (highest) labels first.
                flat = [x for g in ranking for x in (sorted(g, reverse=self.statistic == "max") if isinstance(g, list) else [g])]
                self._cache[key] = Oracle.value(self, flat, k, num_rel)
                return self._cache[key]
            layer = reference if small else fast
            ideal = None if num_rel is None else None
            self._cache[key] = getattr(layer, STATISTICS[self.statistic])(m, ranking, ideal)
        return self._cache[key]

    def ordinary(self, case: Case, tie_break: str) -> Exact:
        """The measure's ordinary value once ties are broken by *tie_break* (the value of one ordering)."""
        return Oracle(self.measure).broken(case, tie_break)

    def mean(self, case: Case) -> Exact:
        """The measure's tie-aware (expected) value."""
        return Oracle(self.measure).expected(case)


class _SpreadJudge(Judge):
    """A Judge that also reads distributions: a mapping or pairs, compared value by value."""

    def _run(self, case: Case) -> tuple[Any, Optional[str]]:
        if self.oracle.statistic != "distribution":  # type: ignore[attr-defined]
            return super()._run(case)
        self.calls += 1
        return self.caller.call((list(case.scores), list(case.labels)), distribution)

    def close(self, got: Any, expected: Exact) -> bool:
        if not isinstance(expected, Mapping):
            return super().close(got, expected)
        if not isinstance(got, tuple):
            return False
        want = sorted(expected.items())
        if len(want) != len(got):
            return False
        return all(super(_SpreadJudge, self).close(v, w) and super(_SpreadJudge, self).close(p, q) for (v, p), (w, q) in zip(got, want))

    def judging(self, oracle: Oracle) -> "Judge":
        other = _SpreadJudge(self.impl, oracle, rel_tol=float(self.rel_tol), abs_tol=float(self.abs_tol), domain=self.domain, caller=self.caller)
        other.rel_tol, other.abs_tol, other._seen = self.rel_tol, self.abs_tol, self._seen
        return other


def distribution(raw: Any) -> tuple[Any, Optional[str]]:
    """A distribution result as ((value, probability) pairs, None), or (None, "returned no distribution: ...")."""
    try:
        return _pmf(raw), None
    except TieawareError as exc:
        return None, f"returned no distribution: {exc}"


def _pmf(raw: Any) -> tuple:
    """A distribution as sorted (value, probability) pairs of numbers."""
    items = list(raw.items()) if isinstance(raw, Mapping) else list(raw)
    pairs = []
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise bad("distribution", raw, "must be a mapping {value: probability} or (value, probability) pairs")
        pairs.append((as_number(item[0], "value"), as_number(item[1], "probability")))
    return tuple(sorted(pairs, key=lambda p: float(p[0])))


def _sqrt_of(judge: Judge) -> Callable[[Case], Any]:
    import sympy

    return lambda c: sympy.sqrt(sympy.sympify(judge.oracle.expected(c)))


def diagnose_spread(judge: Judge, cex: Counterexample, labels: tuple[Any, ...], confirm: bool = True) -> Optional[Diagnosis]:
    """The usual mistakes of a spread implementation, each confirmed on other input orders and small tied rankings."""
    from tieaware.check.diagnose import diagnose

    if cex.exception is not None:
        return None
    oracle: SpreadOracle = judge.oracle  # type: ignore[assignment]
    case = cex.case
    if not has_ties(case.scores):
        return diagnose(judge, cex, labels, confirm=False)  # the definition: untied, every statistic is the value itself
    cases = in_domain(judge, probes(case)) + tied_probes(judge, labels, oracle.measure.k)
    stat = oracle.statistic
    guesses: list[tuple[str, str, Callable[[Case], Any]]] = []
    if stat in ("min", "max"):
        other = SpreadOracle(oracle.measure, "max" if stat == "min" else "min")
        guesses.append(("swapped", f"the {'best' if stat == 'min' else 'worst'} value, not the {'worst' if stat == 'min' else 'best'}", other.expected))
        guesses.append(("expected_value", "the expected (tie-aware) value, not the extreme", oracle.mean))
        for rule in ("input_order", "docno"):
            guesses.append(("tie_broken_value", f"the value of one ordering (ties broken by {rule.replace('_', ' ')}), not the extreme", lambda c, r=rule: oracle.ordinary(c, r)))
    if stat == "variance":
        guesses.append(("standard_deviation", "the standard deviation (the square root of the variance)", _sqrt_of(judge)))
    for cause, text, predict in guesses:
        if explains(judge, cases, predict):
            return Diagnosis(cause, text)
    return None


def spread(
    impl: Callable[..., Any],
    measure: Union[str, Measure],
    statistic: str,
    *,
    max_size: int = 4,
    min_size: int = 1,
    labels: Union[None, str, Sequence[Any]] = None,
    scores: Union[None, str, Sequence[str]] = None,
    max_docs: Optional[int] = None,
    near_tie_size: int = 4,
    max_examples: int = 100,
    hypothesis_max_size: int = 10,
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
    progress: bool = False,
    timeout: Optional[float] = TIMEOUT,
    memory: Optional[int] = MEMORY,
    budget: Optional[float] = BUDGET,
    isolate: bool = True,
) -> ImplementationResult:
    """Check ``impl(scores, labels)`` as the *statistic* (``"min"``, ``"max"``, ``"variance"`` or
    ``"distribution"``) of *measure* over every ordering of the tied documents.

    The arguments mean what they mean for :func:`tieaware.check.implementation`.
    """
    from tieaware.check.implementation import domain_of, check_int, check_tolerance, isolated, profile_check, stopped

    if not callable(impl):
        raise bad("impl", impl, "must be a function impl(scores, labels)")
    parsed = measure if isinstance(measure, Measure) else parse(measure)
    if parsed.name == "RBO":
        raise bad("measure", str(parsed), "has no spread check here (RBO compares two rankings)")
    oracle = SpreadOracle(parsed, statistic)
    domain, top, _ = domain_of(impl, oracle, min_size, max_size, labels, scores, max_docs, hypothesis_max_size, True)
    tolerances = dict(rel_tol=check_tolerance(rel_tol, "rel_tol"), abs_tol=check_tolerance(abs_tol, "abs_tol"))
    budgets = dict(max_size=check_int(max_size, "max_size", 0), near_tie_size=check_int(near_tie_size, "near_tie_size", 0), max_examples=check_int(max_examples, "max_examples", 0))
    with isolated(impl, flag(isolate, "isolate"), timeout, memory, budget) as caller:
        judge = _SpreadJudge(impl, oracle, domain=domain, caller=caller, **tolerances)
        try:
            return profile_check(judge, domain, top=top, ties=True, progress=progress, diagnoser=diagnose_spread, **budgets)
        except Stopped as stop:
            return stopped(judge, stop)
