"""What a check of an implementation returns: :class:`ImplementationResult`.

It sits in its own module so that the checkers of every kind of measure
(:mod:`tieaware.check.implementation` for one ranking,
:mod:`tieaware.check.rbo` for two) return the same type without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["ImplementationResult"]


@dataclass(frozen=True)
class ImplementationResult:
    """The verdict of :func:`implementation`."""

    #: True when every answer matched the exact tie-aware value.
    ok: bool
    #: The measure checked, in canonical ir_measures form.
    measure: str
    #: The smallest failing input found, or None.
    counterexample: Optional[Any]
    #: The usual cause that explains the failure, or None.
    diagnosis: Optional[Any]
    #: Inputs checked before the verdict (probes for the diagnosis not counted).
    cases: int

    def lines(self) -> list[str]:
        """The verdict, counterexample and diagnosis, one fact per line."""
        if self.ok:
            return [f"{self.measure}: conforms ({self.cases} inputs checked against the exact tie-aware value)"]
        assert self.counterexample is not None
        out = [f"{self.measure}: DIFFERS from the exact tie-aware value ({self.counterexample.phase} input {self.cases})"]
        out += ["  " + line for line in self.counterexample.lines()]
        cause = "no usual cause fits" if self.diagnosis is None else str(self.diagnosis)
        if self.counterexample.exception is None:
            out.append(f"  cause    {cause}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())
