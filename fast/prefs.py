"""trec_eval's preference measures (``-m all_prefs``), tie-aware, in closed form.

A query's preferences come from :func:`tieaware.model.prefs.preference_query`;
the run is its tie groups of retrieved documents, best first.  trec_eval
(form_prefs_counts.c) gives every judged document a *docid rank*: retrieved
ones by their rank, then the others by docno.  A preference a > b is

- *fulfilled, retrieved* when both are retrieved and a is ranked above b;
- *fulfilled, implied* when a is retrieved and b is not;
- *possible* in every case (retrieved, implied, or neither retrieved).

Only the first depends on how ties are broken, and it is linear: a
preference between two documents of one tie group is fulfilled in exactly
half of the orderings (:func:`order_probability`; theorem ``prefs``), so
E[fulfilled] is the sum of those probabilities and every measure whose
denominator does not depend on the ordering is its expected numerator over
that denominator.  ``prefs_pair`` averages, over document pairs, the share of
the pair's preferences (over all jgs) that the ranking fulfils; for a tied
pair the two orders give c_ab/(c_ab+c_ba) and c_ba/(c_ab+c_ba), mean 1/2
whatever the counts.

``prefs_avgjg_Rnonrel`` keeps, in a jg with fewer relevant (R) than
non-relevant documents, only the first R non-relevant ones by docid rank
(bpref's idea).  In a class jg each document p of a higher class is then
paired with those R (k of them), fulfilled when p is retrieved and above;
their count below p is k - min(k, n_p), n_p the kept class's members above
p, whose expectation is bpref's: n_p = A + X, X uniform on 0..a over the
orderings (tieaware.fast.trec_measures.capped_sum, theorem ``Bpref``;
theorem ``prefs_Rnonrel``).  In a relation jg (several sub-groups) the
number of preferences kept can depend on the ordering, when tied
non-relevant documents straddle the R-th: the ratio is averaged over the
equally likely choices of the kept ones (:func:`tied_kept_precedes`), and
refused only when some choices keep no preference (0/0) and others do.

trec_eval's own quirks are kept, as they do not depend on the ordering:
Rnonrel's R >= N branch adds R·(R - N) possible preferences (R the jg's
relevant documents, retrieved or not), its recomputation pairs the kept
class with itself, and a jg with no possible preference makes its ratio
0/0, which turns the query's whole value into 0 (a NaN sum is not > 0).

With ``exact=False`` every number is a float and each sum runs in
trec_eval's order, so that on an untied ranking the doubles are trec_eval's
own (:func:`prefs_measures` on trec_eval's ordering is what ``--tie-break
trec_eval`` prints).

>>> from tieaware.model.prefs import preference_query
>>> q = preference_query([("u", "0", "a", 1), ("u", "0", "b", 0)])
>>> prefs_measures(q, [["a", "b"]])["prefs_simp"]          # a and b tied: fulfilled half the time
Fraction(1, 2)
>>> prefs_measures(q, [["a"], ["b"]])["prefs_simp"]
Fraction(1, 1)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tieaware.fast.trec_measures import capped_sum
from tieaware.model.errors import TieawareError
from tieaware.model.prefs import JudgmentGroup, PreferenceQuery

__all__ = [
    "PREFS_MEASURES", "LONG_MEASURES", "order_probability", "tied_pair_share", "kept_below", "tied_kept_precedes", "prefs_measures",
]  # fmt: skip

#: trec_eval's preference measures, in its order (measures.c, "all_prefs").
PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)  # fmt: skip
#: The counts: summed over queries, printed as integers when whole.
LONG_MEASURES = frozenset(PREFS_MEASURES[:3])


def order_probability(above: Any, below: Any, *, number: Callable[[Any], Any] = Fraction) -> Any:
    """P(the document in group *above* is ranked before the one in group *below*): 1, 0, or 1/2 when tied.

    Groups are indices in rank order.

    >>> order_probability(0, 1), order_probability(2, 2)
    (Fraction(1, 1), Fraction(1, 2))
    """
    if above == below:
        return number(1) / 2
    return number(1) if above < below else number(0)


def tied_pair_share(first: Any, second: Any, *, number: Callable[[Any], Any] = Fraction) -> Any:
    """E[prefs_pair's term] for two tied documents with first → second and second → first counts: 1/2.

    >>> tied_pair_share(3, 1)
    Fraction(1, 2)
    """
    return number(1) / 2


def kept_below(above: Any, tied: Any, k: Any, *, number: Callable[[Any], Any] = Fraction) -> Any:
    """E[how many of the first k of a class rank below p]: k - E[min(k, above + X)], X uniform on 0..tied.

    *above*: the class's members in groups above p; *tied*: in p's group.

    >>> kept_below(0, 1, 1)     # one tied member, the only one kept: below p half the time
    Fraction(1, 2)
    """
    return number(k) - number(capped_sum(above, tied, k)) / (tied + 1)


@dataclass
class _Counts:
    ful_ret: Any
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    rel_ret: int = 0
    nonrel_ret: int = 0

    def ful(self) -> Any:
        return self.ful_ret + self.ful_imp

    def poss(self) -> int:
        return self.poss_ret + self.poss_imp + self.notoccur


class _Ranks:
    """Where each judged document stands: its group (retrieved) or its place after them (not retrieved)."""

    def __init__(self, query: PreferenceQuery, ranking: Sequence[Sequence[str]]):
        judged = set(query.judged)
        self.group: dict[str, int] = {}
        self.order: dict[str, int] = {}  # docid rank in the given order (ties as listed): trec_eval's loop order
        for g, members in enumerate(ranking):
            for d in members:
                if d in judged:
                    self.group[d] = g
                    self.order[d] = len(self.order)
        self.retrieved = len(self.order)
        for d in query.judged:  # sorted by docno, as strcmp sorts them
            if d not in self.order:
                self.order[d] = len(self.order)

    def ret(self, d: str) -> bool:
        return d in self.group

    def before(self, a: str, b: str, number: Callable[[Any], Any]) -> Any:
        """P(docid rank of a < that of b)."""
        if self.ret(a) and self.ret(b):
            return order_probability(self.group[a], self.group[b], number=number)
        return number(1) if self.order[a] < self.order[b] else number(0)


def _counts(jg: JudgmentGroup, ranks: _Ranks, number: Callable[[Any], Any]) -> _Counts:
    c = _Counts(number(0))
    for a, b in jg.prefs:
        ra, rb = ranks.ret(a), ranks.ret(b)
        if ra and rb:
            c.poss_ret += 1
            c.ful_ret += ranks.before(a, b, number)
        elif ra:
            c.ful_imp += 1
            c.poss_imp += 1
        elif rb:
            c.poss_imp += 1
        else:
            c.notoccur += 1
    c.rel_ret = sum(1 for d in jg.relevant if ranks.ret(d))
    c.nonrel_ret = sum(1 for d in jg.nonrelevant if ranks.ret(d))
    return c


def _divide(a: Any, b: Any) -> Any:
    """a / b as C divides doubles: 0/0 is NaN (it poisons trec_eval's sum)."""
    return float("nan") if b == 0 else a / b


def _rnonrel(jg: JudgmentGroup, c: _Counts, ranks: _Ranks, retrieved_only: bool, number: Callable[[Any], Any]) -> Any:
    """prefs_avgjg_Rnonrel's (or _ret's) expected ratio, fulfilled over possible, for one jg."""
    big_r = c.rel_ret if retrieved_only else len(jg.relevant)
    big_n = c.nonrel_ret if retrieved_only else len(jg.nonrelevant)
    if big_r >= big_n:  # every counted preference kept, and R - N non-relevant successes added per relevant one
        if retrieved_only:
            return _divide(c.ful_ret + number(c.rel_ret * (big_r - big_n)), c.poss_ret + len(jg.relevant) * (big_r - big_n))
        return _divide(c.ful() + number(c.rel_ret * (big_r - big_n)), c.poss() + len(jg.relevant) * (big_r - big_n))
    if jg.relation:
        return _rnonrel_relation(jg, ranks, retrieved_only, number)
    return _divide(*_rnonrel_classes(jg, ranks, big_r, retrieved_only, number))


def _rnonrel_classes(jg: JudgmentGroup, ranks: _Ranks, big_r: int, retrieved_only: bool, number: Callable[[Any], Any]) -> Any:
    last = jg.classes[-1]
    last_ret = [d for d in last if ranks.ret(d)]
    # the first k of the last class by docid rank (trec_eval takes R of them, reading past a shorter class)
    k = min(big_r, len(last_ret)) if retrieved_only else min(big_r, len(last))
    ful, poss = number(0), 0
    for i, high in enumerate(jg.classes[:-1]):  # preferences between the classes above the last one
        for low in jg.classes[i + 1 : -1]:
            for p in high:
                for q in low:
                    if retrieved_only and not (ranks.ret(p) and ranks.ret(q)):
                        continue
                    poss += 1
                    if ranks.ret(p):
                        ful += ranks.before(p, q, number)
    groups: dict[int, int] = {}  # the last class's retrieved members per tie group
    for d in last_ret:
        groups[ranks.group[d]] = groups.get(ranks.group[d], 0) + 1
    for high in jg.classes[:-1]:  # each document above, with the k kept
        for p in high:
            if retrieved_only and not ranks.ret(p):
                continue
            poss += k
            if ranks.ret(p):
                g = ranks.group[p]
                above = sum(n for h, n in groups.items() if h < g)
                ful += kept_below(above, groups.get(g, 0), k, number=number)
    # the last class with its own first k (trec_eval's loop pairs them too): the retrieved
    # members at places t < k each precede k - 1 - t of them, whatever the order
    poss += k * (len(last_ret) if retrieved_only else len(last))
    ful += number(sum(k - 1 - t for t in range(min(len(last_ret), k))))
    return ful, poss


def _rnonrel_relation(jg: JudgmentGroup, ranks: _Ranks, retrieved_only: bool, number: Callable[[Any], Any]) -> Any:
    """Rnonrel's ratio for a jg with sub-groups: the non-relevant documents past the first num_rel left out."""
    kept_count = len(jg.relevant)  # trec_eval's recomputation keeps num_rel non-relevant ones, also in _ret
    nonrel = sorted((d for d in jg.nonrelevant if not retrieved_only or ranks.ret(d)), key=lambda d: ranks.order[d])
    straddle = None
    if 0 < kept_count < len(nonrel):
        first_out, last_in = nonrel[kept_count], nonrel[kept_count - 1]
        if ranks.ret(first_out) and ranks.ret(last_in) and ranks.group[first_out] == ranks.group[last_in]:
            straddle = ranks.group[first_out]
    if straddle is None:  # the kept ones are the same in every ordering
        return _divide(*_kept_prefs(jg, ranks, set(nonrel[:kept_count]), retrieved_only, number, lambda x, y: ranks.before(x, y, number)))
    # Tied non-relevant documents straddle the cut: the j kept of the group's a are the first j of them in a random
    # order, every j-subset alike.  Given the subset, another member of the group (not non-relevant) precedes a given
    # kept one with probability (j + 1)/(2(a + 1)) (its place among the a is uniform on 0..a, the kept one's uniform
    # on 1..j; theorem prefs_Rnonrel); the rest as always.  The ratio is averaged over the subsets.
    tied = [d for d in nonrel if ranks.ret(d) and ranks.group[d] == straddle]
    before = [d for d in nonrel if ranks.ret(d) and ranks.group[d] < straddle]
    a, j = len(tied), kept_count - len(before)
    if math.comb(a, j) > _SUBSETS:
        raise TieawareError(
            f"prefs_avgjg_Rnonrel{'_ret' if retrieved_only else ''} of judgment group {jg.name!r} with sub-groups: "
            f"{math.comb(a, j):,} ways to choose the {j} kept of {a} tied non-relevant documents, over {_SUBSETS:,}; "
            "use --tie-break trec_eval"
        )
    below = tied_kept_precedes(a, j, number=number)

    def probability(x: str, y: str) -> Any:
        if ranks.ret(x) and ranks.ret(y) and ranks.group[x] == ranks.group[y] == straddle and (x in kept) != (y in kept):
            return below if y in kept else 1 - below
        return ranks.before(x, y, number)

    total = number(0)
    for chosen in itertools.combinations(tied, j):
        kept = set(before) | set(chosen)
        ful, poss = _kept_prefs(jg, ranks, kept, retrieved_only, number, probability)
        if poss == 0:  # 0/0 in some orderings only: the query's value is 0 there, not a mean of ratios
            raise _MixedZero(
                f"prefs_avgjg_Rnonrel{'_ret' if retrieved_only else ''} of judgment group {jg.name!r}: some orderings keep "
                "no preference (0/0, which zeroes the query in trec_eval) and others do; use --layer reference"
            )
        total += ful / poss
    return total / math.comb(a, j)


class _MixedZero(TieawareError):
    """Some orderings of a jg keep no preference (0/0) and others do."""


#: At most this many subsets of tied non-relevant documents are averaged over (prefs_avgjg_Rnonrel, sub-groups).
_SUBSETS = 100_000


def tied_kept_precedes(tied: Any, kept: Any, *, number: Callable[[Any], Any] = Fraction) -> Any:
    """P(a given other member of a tie group precedes a given one of the first *kept* of its *tied* non-relevant
    members): (kept + 1)/(2(tied + 1)).

    >>> tied_kept_precedes(1, 1)      # one non-relevant member, kept: the other document precedes it half the time
    Fraction(1, 2)
    """
    return number(kept + 1) / (2 * (tied + 1))


def _kept_prefs(
    jg: JudgmentGroup, ranks: _Ranks, kept: set, retrieved_only: bool, number: Callable[[Any], Any], probability: Callable[[str, str], Any]
) -> tuple[Any, int]:
    """(expected fulfilled, possible) among the preferences whose non-relevant documents are all kept."""
    dropped = set(jg.nonrelevant) - kept
    ful, poss = number(0), 0
    for a, b in jg.prefs:
        if a in dropped or b in dropped:
            continue
        if retrieved_only and not (ranks.ret(a) and ranks.ret(b)):
            continue
        poss += 1
        if ranks.ret(a):
            ful += probability(a, b)
    return ful, poss


def _pair(query: PreferenceQuery, ranks: _Ranks, number: Callable[[Any], Any]) -> tuple[Any, Any, int, int, int]:
    """prefs_pair's sums, each continued in trec_eval's loop order, and its pair counts:
    (sum over both retrieved, that sum continued over one retrieved, pairs both, one, none retrieved)."""
    count: dict[tuple[str, str], int] = {}
    for jg in query.groups:
        for a, b in jg.prefs:
            count[a, b] = count.get((a, b), 0) + 1
    pairs = sorted({(a, b) if ranks.order[a] < ranks.order[b] else (b, a) for a, b in count}, key=lambda p: (ranks.order[p[0]], ranks.order[p[1]]))
    both, ones = number(0), []
    n_both = n_one = n_none = 0
    for x, y in pairs:  # x first in the given order: trec_eval's loops over docid ranks i < j
        cxy, cyx = count.get((x, y), 0), count.get((y, x), 0)
        rx, ry = ranks.ret(x), ranks.ret(y)
        if rx and ry:
            n_both += 1
            if ranks.group[x] == ranks.group[y]:
                both += tied_pair_share(cxy, cyx, number=number)
            else:
                both += number(cxy) / number(cxy + cyx)
        elif rx or ry:
            n_one += 1
            ones.append(number(cxy) / number(cxy + cyx))  # x, first in docid order, is the retrieved one
        else:
            n_none += 1
    total = both
    for term in ones:  # trec_eval's second loop adds to the same sum
        total += term
    return both, total, n_both, n_one, n_none


def _average_jg(ratios: list[Any], n: int, number: Callable[[Any], Any]) -> Any:
    total = number(0)
    for r in ratios:  # in jg order, as trec_eval sums
        total += r
    return total / n if total > 0 else number(0)


def prefs_measures(query: PreferenceQuery, ranking: Sequence[Sequence[str]], *, exact: bool = True) -> dict[str, Any]:
    """Every measure of ``-m all_prefs`` for one query: expected over the orderings of *ranking*'s tie groups.

    *ranking*: the retrieved documents' tie groups, best first (unjudged ones
    may be listed; they are skipped).  With ``exact=False`` floats, summed in
    trec_eval's order (on an untied ranking: trec_eval's doubles).

    >>> from tieaware.model.prefs import preference_query
    >>> q = preference_query([("u", "0", "a", 2), ("u", "0", "b", 1), ("u", "0", "c", 0)])
    >>> v = prefs_measures(q, [["c", "b"], ["x"], ["a"]])
    >>> v["prefs_num_prefs_ful"], v["prefs_simp"], v["prefs_pair"]
    (Fraction(1, 2), Fraction(1, 6), Fraction(1, 6))
    """
    number: Callable[[Any], Any] = Fraction if exact else float
    ranks = _Ranks(query, ranking)
    counts = [_counts(jg, ranks, number) for jg in query.groups]
    ful_ret = sum((c.ful_ret for c in counts), number(0))
    ful_imp = sum(c.ful_imp for c in counts)
    poss_ret = sum(c.poss_ret for c in counts)
    poss_imp = sum(c.poss_imp for c in counts)
    poss = sum(c.poss() for c in counts)
    n = len(query.groups)
    both, both_one, n_both, n_one, n_none = _pair(query, ranks, number)
    out = {
        "prefs_num_prefs_poss": number(poss),
        "prefs_num_prefs_ful": ful_ret + ful_imp,
        "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": (ful_ret + ful_imp) / poss if poss else number(0),
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else number(0),
        "prefs_simp_imp": (ful_ret + ful_imp) / (poss_ret + poss_imp) if poss_ret + poss_imp else number(0),
        "prefs_pair": both_one / (n_both + n_one + n_none) if n_both + n_one + n_none else number(0),
        "prefs_pair_ret": both / n_both if n_both else number(0),
        "prefs_pair_imp": both_one / (n_both + n_one) if n_both + n_one else number(0),
        "prefs_avgjg": _average_jg([c.ful() / c.poss() for c in counts if c.poss()], n, number),
        "prefs_avgjg_ret": _average_jg([c.ful_ret / c.poss_ret for c in counts if c.poss_ret], n, number),
        "prefs_avgjg_imp": _average_jg([c.ful() / (c.poss_ret + c.poss_imp) for c in counts if c.poss_ret + c.poss_imp], n, number),
    }
    for name, only in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        ratios, refused = [], None
        for jg, c in zip(query.groups, counts):
            try:
                ratios.append(_rnonrel(jg, c, ranks, only, number))
            except _MixedZero as e:  # no value unless another jg's 0/0 zeroes the query in every ordering anyway
                refused = e
        if refused is not None and not any(r != r for r in ratios):
            raise TieawareError(str(refused))
        out[name] = _average_jg(ratios, n, number)
    return {m: out[m] for m in PREFS_MEASURES}
