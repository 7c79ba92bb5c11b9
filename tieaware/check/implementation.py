"""Check someone's implementation of a measure against the exact tie-aware reference.

``impl(scores, labels) -> number`` receives two parallel lists: float scores
(equal scores are tied) and graded labels (ints >= 0).  It must return the
measure's value on that one ranking.  :func:`implementation` calls it on

1. every tie structure of up to ``max_size`` documents, smallest first,
   and, when the cutoff k is beyond that, every such structure placed at k,
2. near-ties: tie groups pulled apart by less than float32 precision,
3. ``max_examples`` hypothesis cases of up to ``hypothesis_max_size``
   documents, in shuffled input order (derandomized, shrunk on failure),

and compares each answer with the exact expected value under random
tie-breaking (docs/conventions.md, Measures), computed by the reference layer.  Floats must be
within ``rel_tol`` (relative, default 1e-9) or ``abs_tol``; Fractions and
ints must be exactly equal.  The first failure stops the run and is
diagnosed (:mod:`tieaware.check.diagnose`).

>>> def ap_stable_sort(scores, labels):      # breaks ties by input order
...     order = sorted(range(len(scores)), key=lambda i: -scores[i])
...     hits, total = 0, 0.0
...     for rank, i in enumerate(order, start=1):
...         if labels[i] >= 1:
...             hits += 1
...             total += hits / rank
...     return total / hits if hits else 0.0
>>> result = implementation(ap_stable_sort, "AP", max_size=3, max_examples=0)
>>> result.ok, result.counterexample.labels, result.counterexample.expected, result.diagnosis.cause
(False, (0, 1), Fraction(3, 4), 'input order')

Beware: the expected value uses the documents the implementation sees, so
num_rel is the number of relevant labels passed in (no unretrieved relevant
documents), and nDCG's ideal ranking is built from the same labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from tieaware.check import cases as _cases
from tieaware.check.diagnose import Diagnosis, diagnose
from tieaware.check.oracle import Oracle
from tieaware.check.progress import bar
from tieaware.check.search import shrunk_failure
from tieaware.check.verdict import Counterexample, Impl, Judge
from tieaware.errors import bad
from tieaware.names import Measure, parse
from tieaware.params import flag
from tieaware.ranking import label

__all__ = ["implementation", "ImplementationResult"]


@dataclass(frozen=True)
class ImplementationResult:
    """The verdict of :func:`implementation`."""

    #: True when every answer matched the exact tie-aware value.
    ok: bool
    #: The measure checked, in canonical ir_measures form.
    measure: str
    #: The smallest failing input found, or None.
    counterexample: Optional[Counterexample]
    #: The usual cause that explains the failure, or None.
    diagnosis: Optional[Diagnosis]
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


def _int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise bad(name, value, f"must be an int >= {low}")
    return value


def _tolerance(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1 or value != value:
        raise bad(name, value, "must be a number in [0, 1)")
    return float(value)


def implementation(
    impl: Impl,
    measure: Union[str, Measure],
    *,
    max_size: int = 4,
    min_size: int = 1,
    labels: Sequence[Any] = (0, 1, 2),
    near_tie_size: int = 4,
    max_examples: int = 200,
    hypothesis_max_size: int = 12,
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
    ties: bool = True,
    progress: bool = False,
) -> ImplementationResult:
    """Check ``impl(scores, labels)`` against the exact tie-aware value of *measure*.

    *measure* is an ir_measures-style name (``AP@10``, ``nDCG@5``,
    ``P(rel=2)@5``, ``RR``) or a parsed :class:`~tieaware.names.Measure`.
    For ``RBO(p=0.9, variant=a, bound=ext)`` *impl* is called as ``impl(S, L)``
    with two rankings instead (see :mod:`tieaware.check.rbo`).
    *min_size* skips smaller inputs (some libraries refuse one document).
    Set *max_examples* to 0 for the exhaustive and near-tie phases only.
    ``ties=False`` checks untied inputs only (distinct scores, no near-ties):
    does a tie-oblivious library at least compute the ordinary measure?
    """
    if not callable(impl):
        raise bad("impl", impl, "must be a function impl(scores, labels) -> number")
    parsed = measure if isinstance(measure, Measure) else parse(measure)
    if parsed.name == "RBO":  # two rankings in, not scores and labels
        from tieaware.check.rbo import rbo_implementation

        return rbo_implementation(
            impl,
            parsed,
            max_size=min(max_size, 2),
            max_examples=max_examples,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            ties=flag(ties, "ties"),
            progress=progress,
        )
    oracle = Oracle(parsed)
    min_size = _int(min_size, "min_size", 0)
    max_size = _int(max_size, "max_size", min_size)
    near_tie_size = _int(near_tie_size, "near_tie_size", 0)
    max_examples = _int(max_examples, "max_examples", 0)
    top = _int(hypothesis_max_size, "hypothesis_max_size", max(min_size, 1))
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence) or not labels:
        raise bad("labels", labels, "must be a non-empty list of labels, e.g. (0, 1, 2)")
    for x in labels:
        label(x, "labels")  # validates: a number >= 0
    values = tuple(sorted(set(labels), key=lambda x: label(x, "labels")))
    judge = Judge(impl, oracle, rel_tol=_tolerance(rel_tol, "rel_tol"), abs_tol=_tolerance(abs_tol, "abs_tol"))
    name = str(oracle.measure)

    def verdict(cex: Optional[Counterexample], count: int) -> ImplementationResult:
        diagnosis = None if cex is None else diagnose(judge, cex, values)
        return ImplementationResult(cex is None, name, cex, diagnosis, count)

    count = 0
    ties = flag(ties, "ties")
    fixed = [(c, "exhaustive") for c in _cases.exhaustive(max_size, values, min_size)]
    k = oracle.measure.k
    if k is not None and k >= max_size:  # the exhaustive sizes never reach the cutoff: go there
        fixed += [(c, "at cutoff") for c in _cases.at_cutoff(k, max_size, values) if len(c.scores) >= min_size]
    if ties:
        fixed += [(c, "near-ties") for c in _cases.near_ties(near_tie_size, values, max(min_size, 2))]
    else:
        fixed = [(c, phase) for c, phase in fixed if _cases.untied(c)]
    for case, phase in bar(fixed, progress, f"checking {name}", len(fixed)):
        count += 1
        cex = judge.check(case, phase)
        if cex is not None:
            return verdict(cex, count)
    drawn = [0]

    def check(case: _cases.Case) -> Optional[Counterexample]:
        drawn[0] += 1
        return judge.check(case, "hypothesis")

    strategy = _cases.drawn(values, min(max(min_size, max_size + 1), top), top, ties)
    cex = shrunk_failure(strategy, check, max_examples)
    return verdict(cex, count + drawn[0])
