"""The hypothesis half of a check: search, shrink, and hand back the smallest failure.

Settings are fixed here, not taken from the caller's hypothesis profile, so
that a verdict is the same on every machine and every run: derandomized, no
example database, no deadline, quiet.  Hypothesis also caches what it reads
from local source files in a ``.hypothesis/`` folder of the current
directory; during a search that folder is a temporary one, removed after,
so nothing is left in the user's directory.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
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
        with _scratch_home():
            search()
    except _Found as found:
        return found.failure
    return None


@contextlib.contextmanager
def _scratch_home() -> Iterator[None]:
    """Point hypothesis's storage (its ``.hypothesis/`` folder) at a temporary directory, then restore it."""
    from hypothesis import configuration

    before = configuration.storage_directory(intent_to_write=False).home_directory
    with tempfile.TemporaryDirectory(prefix="tieaware-hypothesis-") as scratch:
        configuration.set_hypothesis_home_dir(scratch)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(before)
