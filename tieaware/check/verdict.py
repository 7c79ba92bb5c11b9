"""Running an implementation on one case and judging its answer.

>>> from fractions import Fraction
>>> from tieaware.check.cases import Case
>>> from tieaware.check.oracle import Oracle
>>> judge = Judge(lambda s, l: 0.5, Oracle("P@1"), rel_tol=1e-9, abs_tol=0.0)
>>> judge.check(Case((1.0, 1.0), (0, 1)), "exhaustive") is None
True
>>> judge.check(Case((1.0,), (1,)), "exhaustive").got
0.5
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Optional

from tieaware.check.cases import Case
from tieaware.check.compare import Error, approximate, as_number, error_of, exact_equal, is_exact_number, plain_label, shown
from tieaware.check.oracle import Oracle
from tieaware.check.worker import InProcess, failure_text, number, raised
from tieaware.model.errors import TieawareError
from tieaware.model.exact import Exact, to_decimal, to_exact_string
from tieaware.model.ranking import from_scores, label

__all__ = ["Counterexample", "Judge", "Impl", "raised"]

#: impl(scores, labels) -> number
Impl = Callable[[list, list], Any]


@dataclass(frozen=True)
class Counterexample:
    """An input on which the implementation's value is not the exact tie-aware value."""

    #: The scores, as the implementation received them.
    scores: tuple[float, ...]
    #: The labels, parallel to the scores.
    labels: tuple[Any, ...]
    #: The exact tie-aware value (reference layer).
    expected: Exact
    #: What the implementation returned (None when it raised).
    got: Any
    #: Absolute error, relative error and digits of accuracy (None when it raised).
    error: Optional[Error]
    #: "Type: message" when the implementation raised.
    exception: Optional[str]
    #: Where it was found: "exhaustive", "near-ties", "scores", ... or "hypothesis".
    phase: str
    #: Judged relevant documents, retrieved or not, when passed as impl's third argument.
    num_rel: Optional[int] = None

    @property
    def case(self) -> Case:
        """The input, as a :class:`~tieaware.check.cases.Case`."""
        return Case(self.scores, self.labels, self.num_rel)

    @property
    def ranking(self) -> list:
        """The tied ranking the scores describe, in tieaware's input form, with int labels where whole."""
        ranking = from_scores(self.scores, self.labels)
        return [[plain_label(x) for x in e] if isinstance(e, list) else plain_label(e) for e in ranking]

    @property
    def absolute_error(self) -> Optional[float]:
        return None if self.error is None else self.error.absolute

    @property
    def relative_error(self) -> Optional[float]:
        return None if self.error is None else self.error.relative

    @property
    def lre(self) -> Optional[float]:
        """Digits of accuracy: -log10(relative error), capped (see :data:`~tieaware.check.compare.LRE_CAP`)."""
        return None if self.error is None else self.error.lre

    def lines(self) -> list[str]:
        """The counterexample, one fact per line, for reports."""
        out = [
            f"scores   {list(self.scores)}",
            f"labels   {list(self.labels)}",
            *([] if self.num_rel is None else [f"num_rel  {self.num_rel} (passed as the third argument)"]),
            f"expected {_expected_text(self.expected)}",
        ]
        if self.exception is not None:
            text = failure_text(self.exception)
            raised_it = text.startswith("the implementation raised ")
            out.append(f"got      exception {self.exception}" if raised_it else f"got      nothing: {text}")
            return out
        out.append(f"got      {shown(self.got)}")
        e = self.error
        if e is None:
            return out
        relative = "n/a (expected 0)" if e.relative is None else f"{e.relative:.3g}"
        out.append(f"error    absolute {e.absolute:.3g}, relative {relative}, {e.lre:.1f} correct digits")
        return out

    def __str__(self) -> str:
        return "; ".join(self.lines())


class Judge:
    """Runs *impl* on cases and compares with the oracle: exactly for exact results, else within tolerance."""

    def __init__(self, impl: Impl, oracle: Oracle, *, rel_tol: float, abs_tol: float, domain: Any = None, caller: Any = None) -> None:
        self.impl = impl
        #: What calls impl: a :class:`~tieaware.check.worker.Worker` (another process) or, by default, this process.
        self.caller = caller if caller is not None else InProcess(impl)
        self.oracle = oracle
        self.rel_tol = Fraction(rel_tol)
        self.abs_tol = Fraction(abs_tol)
        #: The declared domain (a :class:`~tieaware.check.domain.Domain`): no input outside it is ever run.
        self.domain = domain
        self.calls = 0
        #: impl requires a third argument, num_rel: pass it on every call.
        self.needs_num_rel = _requires_three(impl)
        # Diagnosis asks about the same inputs under several hypotheses; ask impl once.
        self._seen: dict[Case, tuple[Any, Optional[str]]] = {}
        self._approximations: dict[Any, Fraction] = {}

    def judging(self, oracle: Oracle) -> "Judge":
        """A judge of the same implementation against another *oracle* (another convention), sharing the answers."""
        other = Judge(self.impl, oracle, rel_tol=float(self.rel_tol), abs_tol=float(self.abs_tol), domain=self.domain, caller=self.caller)
        other.rel_tol, other.abs_tol = self.rel_tol, self.abs_tol
        other._seen = self._seen
        return other

    def tolerate(self, rel_tol: float, abs_tol: float) -> None:
        """Judge floats within *rel_tol* and *abs_tol* from now on (a measured precision)."""
        self.rel_tol, self.abs_tol = Fraction(rel_tol), Fraction(abs_tol)

    def admits(self, case: Case) -> bool:
        """Is *case* inside the declared domain (always, without one)?"""
        return self.domain is None or self.domain.admits(case)

    def run(self, case: Case) -> tuple[Any, Optional[str]]:
        """(value, None) or (None, "Type: message") when *impl* raised or returned a non-number.

        A value of None is the implementation's "no value" (``norel=skip``).
        """
        if case not in self._seen:
            if not self.admits(case):  # a checker bug, never the user's: every phase and probe is filtered
                raise RuntimeError(f"the checker tried an input outside the declared domain: {case}")
            self._seen[case] = self._run(case)
        return self._seen[case]

    def _run(self, case: Case) -> tuple[Any, Optional[str]]:
        self.calls += 1
        num_rel = case.num_rel
        if num_rel is None and self.needs_num_rel:  # impl(scores, labels, num_rel) with no default
            num_rel = sum(1 for x in case.labels if label(x) >= self.oracle.measure.rel)
        args = (list(case.scores), list(case.labels))
        # the documented 3-argument form passes num_rel: judged relevant documents, retrieved or not
        return self.caller.call(args if num_rel is None else (*args, num_rel), number)

    def close(self, got: Any, expected: Exact) -> bool:
        """Is *got* the expected value: exactly (exact results) or within tolerance (floats)?

        An expected None (``norel=skip``) wants None; an expected NaN (``norel=nan``) wants NaN.
        """
        if expected is None or got is None:
            return expected is None and got is None
        if _is_nan(expected) or _is_nan(got):
            return _is_nan(expected) and _is_nan(got)
        if is_exact_number(got):
            return exact_equal(got, expected)
        if isinstance(got, Decimal):  # an exact decimal: right when it is the value, else judged as a float is
            if exact_equal(Fraction(got), expected):
                return True
        want = self._approximate(expected)
        try:
            difference = abs(Fraction(got) - want)
        except (OverflowError, ValueError):  # inf
            return False
        return difference <= max(self.rel_tol * abs(want), self.abs_tol)

    def _approximate(self, expected: Exact) -> Fraction:
        # The same expected value is compared again and again (other input orders, score ladders).
        try:
            return self._approximations[expected]
        except KeyError:
            want = self._approximations[expected] = approximate(expected)
            return want
        except TypeError:  # unhashable
            return approximate(expected)

    def check(self, case: Case, phase: str) -> Optional[Counterexample]:
        """None when *impl* is right on *case*, else the counterexample.

        None too when the measure has no value on *case* (a convention tried, such as the gain
        2^l - 1 on a label of 1/2): the input says nothing about that measure.
        """
        try:
            expected = self.oracle.expected(case)
        except TieawareError:
            return None
        got, exception = self.run(case)
        if exception is not None:
            return Counterexample(case.scores, case.labels, expected, None, None, exception, phase, case.num_rel)
        if self.close(got, expected):
            return None
        return Counterexample(case.scores, case.labels, expected, got, _error(got, expected), None, phase, case.num_rel)


def _expected_text(value: Any) -> str:
    """The exact expected value and its decimals; "no value" (norel=skip) and "nan" (norel=nan) as such."""
    if value is None:
        return "no value (the query is skipped)"
    if isinstance(value, Mapping):  # a distribution: {value: probability}
        return "{" + ", ".join(f"{to_exact_string(v)}: {to_exact_string(p)}" for v, p in sorted(value.items())) + "}"
    if _is_nan(value):
        return "nan"
    return f"{to_exact_string(value)} = {to_decimal(value, 16)}"


def _is_nan(x: Any) -> bool:
    """A float NaN or sympy's nan."""
    if isinstance(x, float):
        return x != x
    if type(x).__module__.startswith("sympy"):
        import sympy

        return x is sympy.nan
    return False


def _requires_three(impl: Impl) -> bool:
    import inspect

    try:
        signature = inspect.signature(impl)
    except (TypeError, ValueError):
        return False
    try:
        signature.bind([], [])
        return False
    except TypeError:
        pass
    try:
        signature.bind([], [], 0)
        return True
    except TypeError:
        return False


def _error(got: Any, expected: Exact) -> Optional[Error]:
    if got is None or expected is None or _is_nan(expected) or isinstance(expected, Mapping) or isinstance(got, tuple):
        return None  # no value, no number to measure the distance from, or a distribution
    if isinstance(got, float) and (got != got or got in (float("inf"), float("-inf"))):
        return Error(float("nan"), None, 0.0)
    return error_of(got, expected)
