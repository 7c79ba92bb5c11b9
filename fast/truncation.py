"""trec_eval's ``-M`` (documents per topic) over tie-breakings: a mixture over the group the cut crosses.

trec_eval keeps the first M documents of its order (form_res_rels.c).
Tie-aware, the first M of a uniformly random ordering consistent with the
ties are kept.  The groups wholly above M are kept whole and those below
are dropped, whatever the order; of the one group that the cut crosses
(n members, m of its slots above the cut), a uniformly random m-subset
is kept, in a uniformly random order.  Members with equal labels are
interchangeable, so the kept subset matters only through how many of each
label it holds, which is multivariate hypergeometric:
P(c) = Π_l C(n_l, c_l) / C(n, m).  And given c, the kept documents are a
tie group of their own.  By the law of total expectation,

    E[f(first M)] = Σ_c P(c) · E[f(groups above + one tie group with c)],

each inner expectation being the measure's own tie-aware value.  No group
crosses the cut (always so without ties): the value on the cut ranking.
The cost is the number of label compositions of m kept slots, at most
Π_l (n_l + 1) for the crossing group alone.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb
from typing import Any

from tieaware.model.errors import bad
from tieaware.model.exact import Exact
from tieaware.model.ranking import Ranking, judged_groups

__all__ = ["at_depth", "cut_groups"]


def cut_groups(r: Ranking, depth: int) -> tuple[list, list, int]:
    """(the groups wholly above *depth*, the group it crosses or [], its slots above the cut).

    >>> cut_groups([1, [0, 1, 0], 0], 2)
    ([(Fraction(1, 1),)], (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)), 1)
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise bad("depth", depth, "must be an int >= 0 (trec_eval's -M)")
    above, start = [], 0
    for g in judged_groups(r):
        if start + len(g) <= depth:
            above.append(g)
            start += len(g)
            continue
        return above, (g if start < depth else []), depth - start
    return above, [], 0


def at_depth(measure: Callable[[list], Exact], r: Ranking, depth: int) -> Exact:
    """E[measure(the first *depth* documents)] over tie-breakings, *measure* a tie-aware function of a ranking.

    >>> from tieaware import fast
    >>> at_depth(lambda o: fast.precision(o, 1), [[1, 0, 0]], 1)
    Fraction(1, 3)
    """
    above, crossing, m = cut_groups(r, depth)
    ranking = [list(g) for g in above]
    if not crossing:
        return measure(ranking)
    tally: dict[Any, int] = {}
    for x in crossing:
        tally[x] = tally.get(x, 0) + 1
    kinds = list(tally.items())
    n = len(crossing)
    total: Any = None
    for choice in _compositions(kinds, m):
        ways = 1
        members: list = []
        for (label, count), c in zip(kinds, choice):
            ways *= comb(count, c)
            members += [label] * c
        value = measure(ranking + [members])
        p = Fraction(ways, comb(n, m))
        term = (float(p) * value) if isinstance(value, float) else (p * value if isinstance(value, Fraction) else _times(p, value))
        total = term if total is None else total + term
    return total


def _times(p: Fraction, value: Any) -> Any:
    import sympy

    return sympy.Rational(p.numerator, p.denominator) * value


def _compositions(kinds: list[tuple[Any, int]], m: int):
    """Every (c_1, ..., c_L) with 0 <= c_l <= n_l and Σ c_l = m."""
    if not kinds:
        if m == 0:
            yield ()
        return
    (_, count), rest = kinds[0], kinds[1:]
    room = sum(c for _, c in rest)
    for c in range(max(0, m - room), min(count, m) + 1):
        for tail in _compositions(rest, m - c):
            yield (c,) + tail
