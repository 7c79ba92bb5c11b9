"""The domain an implementation is checked on: which labels, scores and sizes it may receive.

Every phase of :func:`tieaware.check.implementation`, and every probe its
diagnosis sends, stays inside the declared domain: ``labels=(0, 1)`` never
sees a grade 2, ``scores="positive"`` never sees a zero, ``max_docs=10``
never sees an eleventh document.

- ``labels``: ``None`` (the default) checks grades 0, 1, 2, probes grades 3
  and 4 later, and probes the grade 1/2 only to name the relevance-threshold
  convention (docs/check.md, Conventions); ``"binary"`` is exactly 0 and 1;
  ``"integer"`` is 0, 1, 2 and the grades 3 and 4; a list of labels is
  exactly those labels.
- ``scores``: ``"any"`` (the default), or any of ``"positive"`` (> 0),
  ``"non-negative"`` (>= 0) and ``"integer"`` (whole numbers), joined by
  commas (``"positive,integer"``).
- ``min_size``, ``max_docs``: the fewest and most documents one input holds.

>>> d = Domain.of(labels="binary", scores="positive")
>>> d.admits(Case((2.0, 1.0), (0, 1))), d.admits(Case((1.0, 0.0), (0, 1))), d.admits(Case((2.0, 1.0), (0, 2)))
(True, False, False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Union

from tieaware.check.cases import Case
from tieaware.model.errors import bad
from tieaware.model.ranking import label

__all__ = ["Domain", "SCORE_KINDS", "LABEL_KINDS", "EXTRA_GRADES", "HALF"]

#: The score constraints that can be declared.
SCORE_KINDS = ("positive", "non-negative", "integer")
#: Named label domains.
LABEL_KINDS = ("binary", "integer")
#: Grades probed beyond 0, 1, 2 when the labels are not declared as a list.
EXTRA_GRADES = (3, 4)
#: The non-integer grade probed to name the relevance threshold (label > 0 or label >= 1).
HALF = Fraction(1, 2)


@dataclass(frozen=True)
class Domain:
    """What an implementation may be given (see the module docstring)."""

    #: The labels of the exhaustive phases, lowest first.
    labels: tuple
    #: Grades probed in the larger-grades phase (not declared as a list).
    extra: tuple = ()
    #: Probe the grade 1/2 to name the relevance threshold (only where the measure takes it).
    half: bool = False
    #: Score constraints, a subset of :data:`SCORE_KINDS`.
    scores: frozenset = frozenset()
    min_size: int = 1
    #: The most documents one input may hold (None: no limit).
    max_docs: Optional[int] = None

    @classmethod
    def of(
        cls,
        labels: Union[None, str, Sequence[Any]] = None,
        scores: Union[None, str, Sequence[str]] = None,
        min_size: int = 1,
        max_docs: Optional[int] = None,
    ) -> "Domain":
        """The domain from :func:`~tieaware.check.implementation`'s arguments (checked here)."""
        if labels is None:
            values, extra, half = (0, 1, 2), EXTRA_GRADES, True
        elif isinstance(labels, str):
            if labels not in LABEL_KINDS:
                raise bad("labels", labels, f"must be one of {list(LABEL_KINDS)} or a list of labels, e.g. (0, 1, 2)")
            values, extra, half = ((0, 1), (), False) if labels == "binary" else ((0, 1, 2), EXTRA_GRADES, False)
        else:
            if isinstance(labels, bytes) or not isinstance(labels, Sequence) or not labels:
                raise bad("labels", labels, "must be a non-empty list of labels, e.g. (0, 1, 2), or 'binary' or 'integer'")
            for x in labels:
                label(x, "labels")  # validates: a number >= 0
            values, extra, half = tuple(sorted(set(labels), key=lambda x: label(x, "labels"))), (), False
        kinds = _score_kinds(scores)
        if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < max(min_size, 1)):
            raise bad("max_docs", max_docs, f"must be None or an int >= {max(min_size, 1)} (min_size)")
        return cls(values, extra, half, kinds, min_size, max_docs)

    @property
    def declared(self) -> bool:
        """True when the labels are exactly the declared ones (no grade is probed beyond them)."""
        return not self.extra and not self.half

    def label_set(self, half: bool = True) -> frozenset:
        """Every label an input may hold (with 1/2 only when *half* and it is probed)."""
        out = {label(x) for x in (*self.labels, *self.extra)}
        if half and self.half:
            out.add(HALF)
        return frozenset(out)

    def admits_score(self, s: float) -> bool:
        if not math.isfinite(s):
            return False
        if "positive" in self.scores and not s > 0:
            return False
        if "non-negative" in self.scores and (s < 0 or math.copysign(1.0, s) < 0):
            return False
        if "integer" in self.scores and s != int(s):
            return False
        return True

    def admits(self, case: Case, half: bool = True) -> bool:
        """Is *case* inside the domain (sizes, labels, scores)?"""
        n = len(case.scores)
        if n < self.min_size or (self.max_docs is not None and n > self.max_docs):
            return False
        allowed = self.label_set(half)
        if any(label(x) not in allowed for x in case.labels):
            return False
        return all(self.admits_score(s) for s in case.scores)

    def keep(self, cases: Sequence[Case], half: bool = True) -> list[Case]:
        """The cases inside the domain, in order."""
        return [c for c in cases if self.admits(c, half)]

    def ladder(self, ladder: Sequence[float]) -> tuple[float, ...]:
        """A score ladder with the scores outside the domain left out."""
        return tuple(s for s in ladder if self.admits_score(s))

    @property
    def top(self) -> Any:
        """The highest declared label."""
        return max(self.labels, key=lambda x: label(x))

    @property
    def low(self) -> tuple:
        """The two lowest declared labels (one when only one is declared)."""
        return self.labels[:2]

    def describe(self) -> str:
        """The domain in words, for reports.

        >>> Domain.of().describe(), Domain.of(labels=(0, 1), scores="positive", max_docs=20).describe()
        ('labels 0, 1, 2 (and 3, 4; 1/2 for the relevance threshold), any scores', 'labels 0, 1, positive scores, at most 20 documents')
        """
        text = "labels " + ", ".join(str(x) for x in self.labels)
        if self.extra:
            text += f" (and {', '.join(map(str, self.extra))}" + ("; 1/2 for the relevance threshold)" if self.half else ")")
        text += ", " + (", ".join(sorted(self.scores)) + " scores" if self.scores else "any scores")
        if self.max_docs is not None:
            text += f", at most {self.max_docs} documents"
        return text


def _score_kinds(scores: Union[None, str, Sequence[str]]) -> frozenset:
    if scores is None or scores == "any":
        return frozenset()
    parts = [p.strip() for p in scores.split(",")] if isinstance(scores, str) else list(scores)
    for p in parts:
        if p not in SCORE_KINDS:
            raise bad("scores", scores, f"must be 'any' or among {list(SCORE_KINDS)} (comma-separated)")
    return frozenset(parts)
