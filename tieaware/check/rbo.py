"""Checking an RBO implementation: two rankings in, one number out.

For ``RBO(p=..., variant=..., bound=...)`` the implementation is called as
``impl(S, L)`` with two rankings in tieaware's RBO input form (docs/rbo.md, Input): lists
of items (str), where a tie group is a list of items.  The expected value is
:func:`tieaware.reference.rank_biased_overlap.rbo` (enumeration, exact).  Untied libraries
can be adapted with :func:`tieaware.check.adapters.rbo_untied`, which hands
them the items in listed order.

>>> from tieaware.reference.rank_biased_overlap import rbo
>>> def by_listed_order(S, L):              # breaks ties by listed order
...     flat = lambda r: [x for g in r for x in (g if isinstance(g, list) else [g])]
...     return float(rbo(flat(S), flat(L), "0.9", variant="a", bound="ext"))
>>> result = rbo_implementation(by_listed_order, parse("RBO(p=0.9)"), max_examples=0)
>>> result.ok, result.counterexample.S, result.counterexample.L, result.cause
(False, ['a'], [['a', 'b']], 'input_order')
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

from hypothesis import strategies as st

from tieaware.check.compare import Error, error_of, shown
from tieaware.check.diagnose import Diagnosis
from tieaware.check.progress import bar
from tieaware.check.result import BUG, Finding, ImplementationResult
from tieaware.check.search import shrunk_failure
from tieaware.check.verdict import Judge
from tieaware.check.worker import Stopped, failure_text, number
from tieaware.model.errors import bad
from tieaware.model.exact import Exact, to_decimal, to_exact_string
from tieaware.model.names import Measure, parse  # noqa: F401  (parse: for the doctest)
from tieaware.model.rbo_input import BOUNDS, VARIANTS, bound_name, variant_name

__all__ = ["rbo_implementation", "RBOCase", "RBOCounterexample", "rbo_cases"]


@dataclass(frozen=True)
class RBOCase:
    """Two rankings; a tie group is a tuple of items (a list when handed to the implementation)."""

    S: tuple
    L: tuple

    def listed(self) -> tuple[list, list]:
        """The rankings in the input form the implementation receives."""
        return _listed(self.S), _listed(self.L)

    def reversed_groups(self) -> "RBOCase":
        """The same rankings with each tie group listed the other way round."""
        return RBOCase(_reverse(self.S), _reverse(self.L))

    def has_ties(self) -> bool:
        return any(isinstance(g, tuple) and len(g) > 1 for g in self.S + self.L)


def _listed(r: tuple) -> list:
    return [list(g) if isinstance(g, tuple) else g for g in r]


def _reverse(r: tuple) -> tuple:
    return tuple(tuple(reversed(g)) if isinstance(g, tuple) else g for g in r)


def _flat(r: tuple) -> list:
    return [x for g in r for x in (g if isinstance(g, tuple) else (g,))]


def _rankings(items: tuple[str, ...], max_size: int) -> Iterator[tuple]:
    """Every ranking of 1..max_size distinct items with every tie structure; groups sorted."""
    from tieaware.model.structures import compositions

    for n in range(1, max_size + 1):
        for chosen in itertools.permutations(items, n):
            for sizes in compositions(n):
                groups, start = [], 0
                for size in sizes:
                    part = chosen[start : start + size]
                    start += size
                    groups.append(part[0] if size == 1 else part)
                # A group's listed order is immaterial: keep one listing of each.
                if all(not isinstance(g, tuple) or list(g) == sorted(g) for g in groups):
                    yield tuple(groups)


def rbo_cases(max_size: int) -> list[RBOCase]:
    """Every pair of rankings of up to *max_size* items from a pool of max_size + 1, fewest items first.

    >>> len(rbo_cases(1)), rbo_cases(1)[0]
    (4, RBOCase(S=('a',), L=('a',)))
    """
    items = tuple("abcdefgh"[: max_size + 1])
    rankings = list(_rankings(items, max_size))
    pairs = [RBOCase(S, L) for S in rankings for L in rankings]
    return sorted(pairs, key=lambda c: len(_flat(c.S)) + len(_flat(c.L)))


@st.composite
def _drawn(draw: Any, max_items: int, ties: bool = True) -> RBOCase:
    from tieaware.testing.rbo import rbo_pairs, untied_rbo_pairs

    S, L = draw(rbo_pairs(max_items=max_items, max_orderings=200) if ties else untied_rbo_pairs(max_items=max_items))

    def norm(r: list) -> tuple:
        out = []
        for g in r:
            if isinstance(g, (list, tuple, set, frozenset)):
                members = sorted(g, key=lambda x: (type(x).__name__, x)) if isinstance(g, (set, frozenset)) else list(g)
                out.append(tuple(members) if len(members) > 1 else members[0])
            else:
                out.append(g)
        return tuple(out)

    return RBOCase(norm(S), norm(L))


@dataclass(frozen=True)
class RBOCounterexample:
    """Two rankings on which the implementation's RBO is not the exact value."""

    S: list
    L: list
    expected: Exact
    got: Any
    error: Optional[Error]
    exception: Optional[str]
    phase: str

    @property
    def lre(self) -> Optional[float]:
        return None if self.error is None else self.error.lre

    def lines(self) -> list[str]:
        out = [f"S        {self.S}", f"L        {self.L}", f"expected {to_exact_string(self.expected)} = {to_decimal(self.expected, 16)}"]
        if self.exception is not None:
            return out + [f"got      exception {self.exception}"]
        e = self.error
        assert e is not None
        relative = "n/a (expected 0)" if e.relative is None else f"{e.relative:.3g}"
        return out + [f"got      {shown(self.got)}", f"error    absolute {e.absolute:.3g}, relative {relative}, {e.lre:.1f} correct digits"]

    def __str__(self) -> str:
        return "; ".join(self.lines())


class _RBOJudge(Judge):
    def __init__(self, impl: Any, measure: Measure, *, rel_tol: float, abs_tol: float, caller: Any = None) -> None:
        super().__init__(impl, None, rel_tol=rel_tol, abs_tol=abs_tol, caller=caller)  # type: ignore[arg-type]
        p = measure.param("p")
        if p is None:
            raise bad("measure", str(measure), "needs p, e.g. RBO(p=0.9)")
        self.p = p
        self.variant = variant_name(measure.param("variant", "a"))
        self.bound = bound_name(measure.param("bound", "ext"))
        self._values: dict[Any, Exact] = {}

    def value(self, S: Any, L: Any, variant: Optional[str] = None, bound: Optional[str] = None) -> Exact:
        from tieaware.reference.rank_biased_overlap import rbo

        key = (repr(S), repr(L), variant, bound)
        if key not in self._values:
            self._values[key] = rbo(S, L, self.p, variant=variant or self.variant, bound=bound or self.bound)
        return self._values[key]

    def expected_of(self, case: RBOCase) -> Exact:
        return self.value(*case.listed())

    def _run(self, case: Any) -> tuple[Any, Optional[str]]:
        self.calls += 1
        return self.caller.call(tuple(case.listed()), number)

    def check_rbo(self, case: RBOCase, phase: str) -> Optional[RBOCounterexample]:
        expected = self.expected_of(case)
        got, exception = self.run(case)
        S, L = case.listed()
        if exception is not None:
            return RBOCounterexample(S, L, expected, None, None, exception, phase)
        if self.close(got, expected):
            return None
        return RBOCounterexample(S, L, expected, got, error_of(got, expected), None, phase)


def _diagnose(judge: _RBOJudge, cex: RBOCounterexample) -> Optional[Diagnosis]:
    if cex.exception is not None:
        return None
    case = RBOCase(*(tuple(tuple(g) if isinstance(g, list) else g for g in r) for r in (cex.S, cex.L)))
    probes = [case, case.reversed_groups()]

    def explains(predict: Any) -> bool:
        for c in probes:
            got, exception = judge.run(c)
            if exception is not None or not judge.close(got, predict(c)):
                return False
        return True

    if case.has_ties() and explains(lambda c: judge.value(_flat(c.S), _flat(c.L))):
        return Diagnosis("input_order", "ties are broken by the order items are listed in, not averaged (a tie-oblivious RBO)")
    # The same variant first: on untied rankings every variant agrees, and the nearest slip is likelier.
    for variant in sorted(VARIANTS, key=lambda v: v != judge.variant):
        for bound in BOUNDS:
            if (variant, bound) != (judge.variant, judge.bound) and explains(lambda c, v=variant, b=bound: judge.value(*c.listed(), v, b)):
                return Diagnosis("another_variant", f"the value is RBO variant {variant}, bound {bound}")
    if not case.has_ties():
        return Diagnosis("definition", "wrong on rankings without ties, so not a tie problem: the bare RBO differs")
    return None


def rbo_implementation(
    impl: Any,
    measure: Measure,
    *,
    max_size: int = 2,
    max_examples: int = 100,
    hypothesis_max_size: int = 6,
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
    ties: bool = True,
    progress: bool = False,
    caller: Any = None,
) -> Any:
    """Check ``impl(S, L)`` against the exact RBO of *measure* (see the module docstring).

    ``ties=False`` checks untied pairs only.  *caller* runs *impl*
    (a :class:`~tieaware.check.worker.Worker`; None: in this process).
    """
    judge = _RBOJudge(impl, measure, rel_tol=rel_tol, abs_tol=abs_tol, caller=caller)
    name = str(measure)
    try:
        return _rbo_profile(judge, name, max_size, max_examples, hypothesis_max_size, ties, progress)
    except Stopped as stop:
        text = failure_text(stop.text) + "; the check stopped there"
        return ImplementationResult(False, name, None, Diagnosis("stopped", text), judge.calls, "stopped", None, None, None, (Finding("other", "stopped", text, BUG),))


def _rbo_profile(judge: "_RBOJudge", name: str, max_size: int, max_examples: int, hypothesis_max_size: int, ties: bool, progress: bool) -> Any:
    """The exhaustive pairs, then hypothesis's: the verdict at the first failure."""

    def verdict(cex: Optional[RBOCounterexample], count: int) -> ImplementationResult:
        if cex is None:
            return ImplementationResult(True, name, None, None, count, None, name, name)
        diagnosis = _diagnose(judge, cex)  # type: ignore[arg-type]
        cause = "raises" if cex.exception is not None else "unexplained" if diagnosis is None else diagnosis.cause
        finding = Finding("definition" if cause == "definition" else "ties" if cause == "input_order" else "other", cause,
                          "no usual cause fits" if diagnosis is None else diagnosis.explanation, BUG, cex)
        return ImplementationResult(False, name, cex, diagnosis, count, cause, None, None, None, (finding,))

    fixed = [c for c in rbo_cases(max_size) if ties or not c.has_ties()]
    for count, case in enumerate(bar(fixed, progress, f"checking {name}", len(fixed)), start=1):
        cex = judge.check_rbo(case, "exhaustive")
        if cex is not None:
            return verdict(cex, count)
    drawn = [0]

    def check(case: RBOCase) -> Optional[RBOCounterexample]:
        drawn[0] += 1
        return judge.check_rbo(case, "hypothesis")

    cex = shrunk_failure(_drawn(hypothesis_max_size, ties), check, max_examples)
    return verdict(cex, len(fixed) + drawn[0])

