"""Implementations that give different answers for the same input: found, and measured against the exact distribution.

Some libraries break ties at random on purpose (keras-rs' ranking metrics shuffle
tied scores, ``shuffle_ties=True``).  Such an implementation is neither right
nor wrong on one call: each call returns the value of one ordering of the tied
documents.  :func:`detect` calls the implementation several times on small
tied inputs; when the answers differ it says so and, on the first input that
showed it, tabulates many answers against the exact distribution (every
ordering consistent with the ties equally likely) and the tie-aware value.

>>> import random
>>> def shuffled_p1(scores, labels):
...     top = max(scores)
...     return float(random.choice([x for s, x in zip(scores, labels) if s == top]) >= 1)
>>> found = detect(shuffled_p1, "P@1", calls=200, seed=0)
>>> found.case.scores, found.case.labels, found.expected
((1.0, 1.0), (0, 1), Fraction(1, 2))
>>> sorted(found.exact.items())
[(Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 1), Fraction(1, 2))]
>>> sum(found.answers.values()), sorted(found.answers)
(200, [0.0, 1.0])
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations, product
from typing import Any, Optional

from tieaware.check.cases import Case
from tieaware.check.compare import shown
from tieaware.check.oracle import Oracle
from tieaware.model.exact import Exact, to_exact_string
from tieaware.model.ranking import from_scores

__all__ = ["Randomness", "detect", "distribution", "PROBE_CASES", "REPEATS", "CALLS"]

#: Small tied inputs tried: a tie at the top, a tie across the cutoff of a short list, a tie of three.
PROBE_CASES: tuple[Case, ...] = (
    Case((1.0, 1.0), (0, 1)),
    Case((1.0, 1.0, 1.0), (0, 1, 0)),
    Case((6.0, 5.0, 4.0, 3.0, 1.0, 1.0), (0, 0, 0, 0, 0, 1)),
    Case((2.0, 1.0, 1.0, 1.0), (0, 1, 0, 0)),
)
#: Calls per probe to see whether the answers differ.
REPEATS = 8
#: Calls on the input that showed it, for the distribution.
CALLS = 200


@dataclass(frozen=True)
class Randomness:
    """What a non-deterministic implementation returned on one input, against the exact distribution."""

    #: The input (one query).
    case: Case
    #: The exact tie-aware value (the mean of :attr:`exact`).
    expected: Exact
    #: value -> probability when every ordering of the tied documents is equally likely.
    exact: dict[Exact, Fraction]
    #: answer -> how many of the calls returned it.
    answers: dict[Any, int]

    @property
    def calls(self) -> int:
        return sum(self.answers.values())

    @property
    def mean(self) -> float:
        """The mean of the answers (it estimates :attr:`expected` when the shuffle is uniform)."""
        return sum(float(v) * n for v, n in self.answers.items()) / self.calls

    def foreign(self, close: Callable[[Any, Any], bool]) -> list[Any]:
        """Answers that are no ordering's value (judged by *close*)."""
        return [a for a in self.answers if not any(close(a, v) for v in self.exact)]

    def __str__(self) -> str:
        got = ", ".join(f"{shown(v)} x{n}" for v, n in sorted(self.answers.items(), key=lambda kv: float(kv[0])))
        exact = ", ".join(f"{to_exact_string(v)} w.p. {p}" for v, p in sorted(self.exact.items(), key=lambda kv: float(kv[0])))
        sd = math.sqrt(sum((float(v) - float(self.expected)) ** 2 * float(p) for v, p in self.exact.items()) / self.calls)
        return (
            f"different answers for the same input: scores {list(self.case.scores)}, labels {list(self.case.labels)}, "
            f"{self.calls} calls gave {got} (mean {self.mean:.6g}); every ordering equally likely gives {exact} "
            f"(expected {to_exact_string(self.expected)} = {float(self.expected):.6g}, standard error of a mean of "
            f"{self.calls} calls {sd:.2g})"
        )


def distribution(measure: str, case: Case) -> dict[Exact, Fraction]:
    """value -> probability of the ordinary measure over every ordering of *case*'s tied documents.

    >>> distribution("P@1", Case((1.0, 1.0, 1.0), (0, 1, 0)))
    {Fraction(0, 1): Fraction(2, 3), Fraction(1, 1): Fraction(1, 3)}
    """
    oracle = Oracle(measure)
    groups = [g if isinstance(g, list) else [g] for g in from_scores(case.scores, case.labels)]
    counts: Counter = Counter()
    for parts in product(*(list(permutations(g)) for g in groups)):
        counts[oracle.value([x for part in parts for x in part], None, case.num_rel)] += 1
    total = sum(counts.values())
    return {v: Fraction(n, total) for v, n in counts.items()}


def detect(
    impl: Callable[..., Any],
    measure: str,
    *,
    cases: tuple[Case, ...] = PROBE_CASES,
    repeats: int = REPEATS,
    calls: int = CALLS,
    admits: Optional[Callable[[Case], bool]] = None,
    seed: Optional[int] = None,
) -> Optional[Randomness]:
    """None when *impl* answers each probe the same way every time; else its :class:`Randomness`.

    *admits* keeps probes inside the implementation's domain; *seed* seeds Python's
    ``random`` first (for the doctest: a library's own generator is its business).
    An implementation that raises on a probe is not judged on it here.
    """
    if seed is not None:
        random.seed(seed)
    for case in cases:
        if admits is not None and not admits(case):
            continue
        answers = []
        for _ in range(repeats):
            try:
                answers.append(_key(impl(list(case.scores), list(case.labels))))
            except Exception:  # noqa: BLE001 - a raising implementation is the checker's business, not this one's
                answers = []
                break
        if len(set(answers)) > 1:
            more = Counter(answers)
            for _ in range(calls - repeats):
                more[_key(impl(list(case.scores), list(case.labels)))] += 1
            exact = distribution(measure, case)
            return Randomness(case, Oracle(measure).expected(case), exact, dict(more))
    return None


def _key(value: Any) -> Any:
    """A hashable answer: tensors and numpy scalars as Python numbers."""
    if hasattr(value, "item") and not isinstance(value, (int, float, Fraction)):
        value = value.item()
    return value
