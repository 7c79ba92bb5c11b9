"""The hypothesis half of a check: search, shrink, and hand back the smallest failure.

Settings are fixed here, not taken from the caller's hypothesis profile, so
that a verdict is the same on every machine and every run: derandomized, no
example database, no deadline, quiet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

__all__ = ["shrunk_failure", "checker_settings"]

C = TypeVar("C")


class _Found(Exception):
    """Carries a failure out of the hypothesis test, through shrinking."""

    def __init__(self, failure: Any) -> None:
        super().__init__("counterexample found")
        self.failure = failure


def checker_settings(max_examples: int) -> settings:
    """Reproducible settings: the same cases, in the same order, every run."""
    return settings(
        derandomize=True,
        max_examples=max_examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        phases=(Phase.generate, Phase.shrink),
        print_blob=False,
    )


def shrunk_failure(strategy: st.SearchStrategy, check: Callable[[Any], Optional[C]], max_examples: int) -> Optional[C]:
    """Run *check* on up to *max_examples* drawn cases; the shrunk failure it returned, or None.

    *check* returns None for a passing case and a failure record otherwise;
    hypothesis shrinks towards the simplest case whose check fails.

    >>> from hypothesis import strategies as st
    >>> shrunk_failure(st.integers(0, 1000), lambda n: n if n >= 10 else None, 100)
    10
    """
    if max_examples <= 0:
        return None

    @checker_settings(max_examples)
    @given(strategy)
    def search(case: Any) -> None:
        failure = check(case)
        if failure is not None:
            raise _Found(failure)

    try:
        search()
    except _Found as found:
        return found.failure
    return None
