"""Benchmarks, run by ``tieaware bench``.

Each module here that defines ``run(quick: bool = False) -> str`` is one
benchmark; ``tieaware bench`` finds them with :mod:`pkgutil`, runs them and
prints their reports.  Performance is measured here, never in timed tests.
"""

__all__: list[str] = []
