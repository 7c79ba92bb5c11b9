"""trec_eval's ``-M`` (documents per topic), by brute force: truncate every ordering, then measure.

trec_eval sorts a query's documents by score (ties by docno), keeps the
first M and evaluates only those (form_res_rels.c).  Tie-aware, the first M
of a uniformly random ordering consistent with the ties are kept: this
enumerates every ordering, truncates it to *depth* documents and applies
the ordinary measure (the layer's own function on the untied ranking), and
averages exactly.  Nothing here knows the mixture :func:`tieaware.fast.at_depth`
computes.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from tieaware.model.errors import bad
from tieaware.model.exact import Exact
from tieaware.model.ranking import Ranking, judged_groups
from tieaware.reference.orderings import orderings

__all__ = ["at_depth"]

_NONE = float("-inf")  # a sortable stand-in for None inside the enumeration


def at_depth(measure: Callable[[list], Exact], r: Ranking, depth: int) -> Exact:
    """The mean of ``measure(ordering[:depth])`` over every ordering of *r* (labels, ``None`` kept).

    >>> from tieaware import reference
    >>> at_depth(lambda o: reference.precision(o, 1), [[1, 0, 0]], 1)   # the one kept is relevant 1 time in 3
    Fraction(1, 3)
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise bad("depth", depth, "must be an int >= 0 (trec_eval's -M)")
    coded = [tuple(_NONE if x is None else x for x in g) for g in judged_groups(r)]
    total: Any = Fraction(0)
    count = 0
    for o in orderings(coded):
        total = total + measure([None if x == _NONE else x for x in o[:depth]])
        count += 1
    return total / count
