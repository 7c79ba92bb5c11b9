"""The one exception type tieaware raises for bad input.

It subclasses ValueError, so ``except ValueError`` keeps working, and its
message always names the offending argument and shows the offending value.
"""

from __future__ import annotations

__all__ = ["TieawareError", "bad"]


class TieawareError(ValueError):
    """Bad input to a tieaware function, command or file reader.

    >>> from tieaware import TieawareError
    >>> issubclass(TieawareError, ValueError)
    True
    """


def bad(argument: str, value: object, problem: str) -> TieawareError:
    """Build the error for *argument* holding *value*; the caller raises it.

    >>> str(bad("k", 0, "must be an int >= 1"))
    'k must be an int >= 1, got 0'
    """
    return TieawareError(f"{argument} {problem}, got {value!r}")
