"""What a measure's value should be: the exact reference, and the usual wrong answers.

:class:`Oracle` maps an ir_measures-style measure name and one
:class:`~tieaware.check.cases.Case` to

- :meth:`Oracle.expected`: the tie-aware value, computed by the reference
  layer (enumeration, exact);
- :meth:`Oracle.broken`: the ordinary tie-oblivious value after breaking
  ties one of the usual ways (:data:`TIE_BREAKS`), which is what most
  libraries compute.

Both are cached, since checks ask about the same rankings again and again.

>>> from tieaware.check.cases import Case
>>> o = Oracle("P@1")
>>> case = Case((1.0, 1.0), (0, 1))
>>> o.expected(case), o.broken(case, "input_order"), o.broken(case, "optimistic")
(Fraction(1, 2), Fraction(0, 1), Fraction(1, 1))
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial, prod
from typing import Any, Optional, Union

from tieaware.check.adapters import docnos
from tieaware.check.cases import Case, float32
from tieaware.runs.evaluate import compute
from tieaware.model.exact import Exact
from tieaware.model.names import Measure, parse
from tieaware.model.ranking import from_scores, label
from tieaware.model.tie_rules import DOCNO_ASC, DOCNO_DESC, INPUT, OPTIMISTIC, PESSIMISTIC, REVERSE_INPUT, rank_order

__all__ = ["Oracle", "TIE_BREAKS", "tie_broken_order", "straddles", "REFERENCE_ORDERINGS"]

#: Rankings with more orderings than this get their expected value from the closed forms.
REFERENCE_ORDERINGS = 5040

#: cause identifier -> the tie rule (:mod:`tieaware.model.tie_rules`) it names.  Documents are
#: named by :func:`tieaware.check.adapters.docnos`, not in input order, so the four order rules differ.
TIE_BREAKS: dict[str, str] = {
    "input_order": INPUT,  # a stable sort on score: ties keep the order the documents came in
    "reverse_input": REVERSE_INPUT,
    "docno_asc": DOCNO_ASC,  # ir_measures' msmarco provider: (-score, docno)
    "docno": DOCNO_DESC,  # trec_eval: docno descending
    "optimistic": OPTIMISTIC,  # relevant (higher label) first: the best case
    "pessimistic": PESSIMISTIC,  # non-relevant first: the worst case
}


def tie_broken_order(case: Case, tie_break: str) -> list[int]:
    """Positions of *case* in rank order, ties broken by *tie_break* (a cause of :data:`TIE_BREAKS` or a rule name).

    >>> case = Case((1.0, 2.0, 1.0), (0, 0, 1))
    >>> docnos(case.labels)
    ['d001', 'd002', 'd000']
    >>> tie_broken_order(case, "input_order"), tie_broken_order(case, "docno_asc"), tie_broken_order(case, "docno")
    ([1, 0, 2], [1, 2, 0], [1, 0, 2])
    """
    rule = TIE_BREAKS.get(tie_break, tie_break)
    names = docnos(case.labels) if rule in (DOCNO_ASC, DOCNO_DESC) else None
    return rank_order(case.scores, rule, docnos=names, labels=[label(x) for x in case.labels])


def straddles(case: Case, k: Optional[int]) -> bool:
    """True when a tie group of *case* has members both at rank <= k and rank > k.

    >>> straddles(Case((2.0, 1.0, 1.0), (0, 1, 0)), 2), straddles(Case((2.0, 1.0, 1.0), (0, 1, 0)), 1)
    (True, False)
    """
    if k is None:
        return False
    above = 0
    for score in sorted(set(case.scores), reverse=True):
        size = sum(1 for s in case.scores if s == score)
        if above < k < above + size:
            return True
        above += size
    return False


class Oracle:
    """Exact values of one measure on checker cases (see the module docstring)."""

    def __init__(self, measure: Union[str, Measure]) -> None:
        self.measure = measure if isinstance(measure, Measure) else parse(measure)
        compute(self.measure, [])  # a measure that cannot be computed on a ranking fails here, once
        self._cache: dict[Any, Exact] = {}

    def like(self, measure: Union[str, Measure]) -> "Oracle":
        """An oracle of the same kind for another *measure* (a convention of this one)."""
        return Oracle(measure)

    def value(self, ranking: list, k: Optional[int] = None, num_rel: Optional[int] = None) -> Exact:
        """The tie-aware value of a ranking in input form; *k* overrides the measure's cutoff.

        The reference layer computes it, except for rankings with more than
        :data:`REFERENCE_ORDERINGS` orderings (tie groups of 8 and more), where the
        closed forms do: the differential tests prove the two layers equal.
        """
        m = self.measure if k is None else Measure(self.measure.name, k, self.measure.params)
        key = (m.k, num_rel, tuple(tuple(sorted(g)) if isinstance(g, list) else g for g in ranking))
        if key not in self._cache:
            sizes = [len(g) for g in ranking if isinstance(g, list)]
            layer = "reference" if prod(factorial(n) for n in sizes) <= REFERENCE_ORDERINGS else "fast"
            self._cache[key] = compute(m, ranking, num_rel=num_rel, layer=layer)
        return self._cache[key]

    def expected(self, case: Case, k: Optional[int] = None) -> Exact:
        """The exact tie-aware value on *case*: every ordering of equal scores, averaged."""
        return self.value(from_scores(case.scores, case.labels), k, case.num_rel)

    def takes_num_rel(self) -> bool:
        """True when num_rel (unretrieved relevant documents) changes this measure's value."""
        try:
            return compute(self.measure, [1], num_rel=2) != compute(self.measure, [1])
        except (TypeError, ValueError):
            return False

    def broken(self, case: Case, tie_break: str) -> Exact:
        """The tie-oblivious value on *case* after breaking ties by *tie_break*."""
        return self.value([label(case.labels[i]) for i in tie_broken_order(case, tie_break)], None, case.num_rel)

    def tie_broken_values(self, case: Case, limit: int = 720) -> Optional[set]:
        """The ordinary values of every ordering of *case*'s tied documents; None past *limit* orderings.

        >>> sorted(Oracle("P@1").tie_broken_values(Case((1.0, 1.0), (0, 1))))
        [Fraction(0, 1), Fraction(1, 1)]
        """
        from itertools import permutations, product

        gs = [g if isinstance(g, list) else [g] for g in from_scores(case.scores, case.labels)]
        if prod(factorial(len(g)) for g in gs) > limit:
            return None
        return {self.value([x for part in parts for x in part], None, case.num_rel) for parts in product(*(set(permutations(g)) for g in gs))}

    def one_threshold(self, case: Case) -> Exact:
        """AP with each tie group taken as one threshold (scikit-learn's ``average_precision_score``).

        Every relevant document of a group is credited with the precision at
        the group's last rank: AP = sum over groups of (r_g / R) * (hits / docs) through g.

        >>> Oracle("AP").one_threshold(Case((1.0, 1.0), (0, 1)))
        Fraction(1, 2)
        """
        rel = self.measure.rel
        gs = [g if isinstance(g, list) else [g] for g in from_scores(case.scores, case.labels)]
        relevant = sum(1 for g in gs for x in g if x >= rel)
        total, hits, seen = Fraction(0), 0, 0
        for g in gs:
            r = sum(1 for x in g if x >= rel)
            hits, seen = hits + r, seen + len(g)
            if r:
                total += Fraction(r * hits, seen)
        return total / relevant if relevant else Fraction(0)

    def in_float32(self, case: Case, tie_break: Optional[str] = None) -> Exact:
        """The value once scores are rounded to float32 (tie-aware when *tie_break* is None)."""
        # Past float32's range a score becomes ±inf: equal infinities tie, and ±3.5e38 stands for them
        # (beyond every finite float32, so the order is kept).
        rounded = Case(tuple(max(-3.5e38, min(3.5e38, float32(s))) for s in case.scores), case.labels, case.num_rel)
        return self.expected(rounded) if tie_break is None else self.broken(rounded, tie_break)
