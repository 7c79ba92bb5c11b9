"""What a check of an implementation returns: :class:`ImplementationResult`, its :class:`Finding` profile
and the measured :class:`Precision`.

It sits in its own module so that the checkers of every kind of measure
(:mod:`tieaware.check.implementation` for one ranking, :mod:`tieaware.check.rbo`
for two, :mod:`tieaware.check.spread` for extremes and variances) return the
same type without importing each other.

The fields meant for programs are stable: ``ok``, ``cause`` (an identifier
from :data:`CAUSES`), ``conforms_as`` and ``convention`` (tieaware measure
strings), ``precision`` and ``profile``; :meth:`ImplementationResult.as_dict`
gives them as JSON-ready values (``tieaware check --format json``).

>>> r = ImplementationResult(True, "AP", None, None, 10, conforms_as="AP", convention="AP")
>>> r.as_dict()["ok"], r.as_dict()["cause"], str(r)
(True, None, 'AP: conforms (10 inputs checked against the exact tie-aware value)')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["ImplementationResult", "Finding", "Precision", "CAUSES", "ASPECTS", "BUG", "CONVENTION", "NOTE"]

#: Finding severities: a bug makes the check fail; a convention is another measure's definition
#: (the implementation conforms as that measure); a note is information (precision, a label outside
#: the declared domain).
BUG, CONVENTION, NOTE = "bug", "convention", "note"

#: The aspects a profile reports on, in the order they are shown.
ASPECTS = ("precision", "definition", "ties", "large groups", "scores", "near-ties", "labels", "num_rel", "cutoff", "other")

#: Every cause identifier, with its short human name (docs/check.md, Diagnoses).
CAUSES: dict[str, str] = {
    "input_order": "input order",
    "reverse_input": "reverse input order",
    "docno_asc": "docno ascending",
    "docno": "docno descending",
    "optimistic": "optimistic",
    "pessimistic": "pessimistic",
    "one_threshold": "one threshold",
    "arbitrary_order": "arbitrary order",
    "float32_scores": "float32 scores",
    "tolerance": "ties by tolerance",
    "assumes_sorted": "assumes sorted input",
    "cutoff_straddle": "cutoff straddle",
    "cutoff_off_by_one": "cutoff off by one",
    "ignores_num_rel": "ignores num_rel",
    "score_values": "score values",
    "convention": "convention",
    "relevance_threshold": "relevance threshold",
    "definition": "definition",
    "raises": "raises",
    "stopped": "check stopped",
    "precision": "precision",
    "another_variant": "another variant or bound",
    "expected_value": "expected value",
    "swapped": "min and max swapped",
    "standard_deviation": "standard deviation",
    "tie_broken_value": "one ordering's value",
    "unexplained": "no usual cause fits",
}


@dataclass(frozen=True)
class Precision:
    """The precision an implementation's results carry, measured on untied inputs, and the tolerance it gives.

    *kind* is ``"exact"`` (ints, Fractions, sympy), ``"float64"``, ``"float32"``
    or ``"decimals"`` (rounded to *digits* decimals); results are judged within
    *rel_tol*/*abs_tol* (the caller's, or looser ones the precision needs).

    >>> str(Precision("decimals", 4, 1e-9, 1e-4)), str(Precision("float32", None, 1e-5, 1e-6))
    ('rounded to 4 decimals', 'float32')
    """

    kind: str
    digits: Optional[int]
    rel_tol: float
    abs_tol: float

    def __str__(self) -> str:
        return f"rounded to {self.digits} decimals" if self.kind == "decimals" else self.kind

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "digits": self.digits, "rel_tol": self.rel_tol, "abs_tol": self.abs_tol}


@dataclass(frozen=True)
class Finding:
    """One class of behaviour found: its aspect, cause, severity and the smallest input that shows it."""

    #: One of :data:`ASPECTS`.
    aspect: str
    #: A cause identifier (:data:`CAUSES`).
    cause: str
    #: What it means, in a sentence.
    explanation: str
    #: :data:`BUG`, :data:`CONVENTION` or :data:`NOTE`.
    severity: str
    #: The smallest input that shows it (None for precision).
    counterexample: Optional[Any] = None
    #: For a convention: the tieaware measure the implementation computes.
    measure: Optional[str] = None
    #: True when the behaviour can differ between machines (an unstable sort's tie order).
    machine_dependent: bool = False
    #: For a tie rule or arbitrary order: the rule that held longest on the probes (a cause) ...
    held_rule: Optional[str] = None
    #: ... and the largest tie group it held on.
    held_up_to: Optional[int] = None

    def line(self) -> str:
        text = f"{self.aspect:<13}{self.severity:<11}{self.cause}: {self.explanation}"
        return text + (" [machine-dependent]" if self.machine_dependent else "")

    def as_dict(self) -> dict[str, Any]:
        return {
            "aspect": self.aspect,
            "cause": self.cause,
            "severity": self.severity,
            "explanation": self.explanation,
            "measure": self.measure,
            "machine_dependent": self.machine_dependent,
            "held_rule": self.held_rule,
            "held_up_to": self.held_up_to,
            "counterexample": None if self.counterexample is None else _counterexample_dict(self.counterexample),
        }


@dataclass(frozen=True)
class ImplementationResult:
    """The verdict of :func:`~tieaware.check.implementation` (and of the RBO and spread checkers)."""

    #: True when every answer matched the exact tie-aware value of the measure asked for
    #: (within the measured precision, on the declared domain).
    ok: bool
    #: The measure checked, in canonical ir_measures form.
    measure: str
    #: The smallest failing input of the main finding, or None.
    counterexample: Optional[Any]
    #: The usual cause that explains it, or None.
    diagnosis: Optional[Any]
    #: Inputs checked before the verdict (probes for the diagnosis not counted).
    cases: int
    #: The main finding's cause identifier (:data:`CAUSES`); None when ok.
    cause: Optional[str] = None
    #: The tieaware measure the implementation matches on every input checked (the measure itself
    #: when ok, another convention's name when that is what it computes), or None.
    conforms_as: Optional[str] = None
    #: The tieaware measure it matches on untied inputs (its definition, ties aside), or None when
    #: no known convention fits.
    convention: Optional[str] = None
    #: The precision of its results, measured (None when not measured).
    precision: Optional[Precision] = None
    #: Every class of behaviour found, one :class:`Finding` each.
    profile: tuple[Finding, ...] = field(default=())

    def lines(self) -> list[str]:
        """The verdict, counterexample, diagnosis and profile, one fact per line."""
        if self.ok:
            head = f"{self.measure}: conforms ({self.cases} inputs checked against the exact tie-aware value)"
            out = [head]
        elif self.counterexample is None:
            out = [f"{self.measure}: DIFFERS from the exact tie-aware value ({self.cases} inputs checked)"]
        else:
            out = [f"{self.measure}: DIFFERS from the exact tie-aware value ({self.cases} inputs checked; smallest counterexample in the {self.counterexample.phase} phase)"]
            out += ["  " + line for line in self.counterexample.lines()]
            if self.counterexample.exception is None:
                cause = "no usual cause fits" if self.diagnosis is None else str(self.diagnosis)
                out.append(f"  cause    {cause}")
        if self.conforms_as is not None and self.conforms_as != self.measure:
            out.append(f"  conforms as {self.conforms_as}")
        elif self.convention is not None and self.convention != self.measure:
            out.append(f"  untied, it computes {self.convention}")
        if self.precision is not None and self.precision.kind not in ("float64", "exact"):
            out.append(f"  precision {self.precision} (judged within rel {self.precision.rel_tol:g}, abs {self.precision.abs_tol:g})")
        shown = [f for f in self.profile if f.aspect != "precision"]
        if len(shown) > 1 or (shown and self.ok):
            out.append("  profile:")
            out += ["    " + f.line() for f in shown]
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def as_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready values (exact values as strings, floats as floats)."""
        return {
            "ok": self.ok,
            "measure": self.measure,
            "cause": self.cause,
            "conforms_as": self.conforms_as,
            "convention": self.convention,
            "precision": None if self.precision is None else self.precision.as_dict(),
            "cases": self.cases,
            "counterexample": None if self.counterexample is None else _counterexample_dict(self.counterexample),
            "diagnosis": None if self.diagnosis is None else {"cause": self.diagnosis.cause, "explanation": self.diagnosis.explanation},
            "profile": [f.as_dict() for f in self.profile],
        }


def _plain(value: Any) -> Any:
    """A label, score or result as JSON: numbers stay numbers, exact values become their text."""
    from fractions import Fraction

    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def _counterexample_dict(cex: Any) -> dict[str, Any]:
    from tieaware.model.exact import to_decimal, to_exact_string

    out: dict[str, Any] = {"phase": cex.phase}
    for name in ("scores", "labels", "num_rel", "S", "L"):
        if hasattr(cex, name):
            out[name] = _plain(getattr(cex, name))
    if hasattr(cex, "ranking"):
        out["ranking"] = _plain(cex.ranking)
    expected = cex.expected
    try:
        out["expected"] = to_exact_string(expected)
        out["expected_decimal"] = to_decimal(expected, 17)
    except (ValueError, TypeError, AttributeError):
        out["expected"], out["expected_decimal"] = str(expected), None
    out["got"] = _plain(cex.got)
    out["exception"] = cex.exception
    e = cex.error
    out["error"] = None if e is None else {"absolute": _plain(e.absolute), "relative": _plain(e.relative), "lre": e.lre}
    return out
