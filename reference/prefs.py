"""trec_eval's preference measures (``-m all_prefs``) by enumeration: every ordering of the ties, averaged.

For each ordering consistent with the ties, the measures are computed as
trec_eval 9.0.8 defines them (form_prefs_counts.c and m_prefs_*.c):
documents get docid ranks (retrieved ones by rank, the others after them by
docno), each preference is counted as fulfilled or possible, and each
measure divides its counts.  The mean over the orderings, exact, is the
tie-aware value.  Small on purpose: it shares only the input model
(tieaware.model.prefs) with tieaware.fast.prefs, never a formula.

>>> from tieaware.model.prefs import preference_query
>>> q = preference_query([("u", "0", "a", 1), ("u", "0", "b", 0)])
>>> prefs_measures(q, [["a", "b"]])["prefs_simp"]
Fraction(1, 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from tieaware.model.prefs import JudgmentGroup, PreferenceQuery
from tieaware.reference.orderings import orderings as _all_orderings

__all__ = ["orderings", "prefs_of", "prefs_measures"]

_NAMES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)  # fmt: skip
_NAN = object()  # trec_eval's 0/0


def orderings(ranking: Sequence[Sequence[str]], judged: set[str]) -> Iterator[tuple[str, ...]]:
    """Every order of the judged retrieved documents consistent with the ties (unjudged ones play no part);
    refused over the reference's ordering limit."""
    return _all_orderings([[d for d in g if d in judged] for g in ranking])


def _ratio(a: int, b: int) -> object:
    return _NAN if b == 0 else Fraction(a, b)


def _mean_jg(ratios: list[object], n: int) -> Fraction:
    """trec_eval: sum the jgs' ratios, divide by their number when the sum is > 0 (a NaN sum is not)."""
    if any(r is _NAN for r in ratios):
        return Fraction(0)
    total = sum(ratios, Fraction(0))  # type: ignore[arg-type]
    return total / n if total > 0 else Fraction(0)


def _recalculated_classes(jg: JudgmentGroup, rank: dict[str, int], njr: int, only_ret: bool) -> tuple[int, int]:
    """trec_eval's recomputation for a class jg: the last class cut to its first k by docid rank."""
    members = [sorted(c, key=rank.get) for c in jg.classes]
    if only_ret:
        members = [[d for d in c if rank[d] < njr] for c in members]
        k = sum(1 for d in jg.relevant if rank[d] < njr)
    else:
        k = len(jg.relevant)
    kept = members[-1][:k]
    ful = poss = 0
    for i in range(len(members)):
        for j in range(i + 1, len(members) - 1):
            for p in members[i]:
                for q in members[j]:
                    if rank[p] < rank[q] and rank[p] < njr:
                        ful += 1
                    else:
                        poss += 1
    for c in members:  # every class, the last one too, against the kept ones
        for p in c:
            for q in kept:
                if rank[p] < rank[q] and rank[p] < njr:
                    ful += 1
                else:
                    poss += 1
    return ful, poss + ful


def _recalculated_relation(jg: JudgmentGroup, rank: dict[str, int], njr: int, only_ret: bool) -> tuple[int, int]:
    """trec_eval's recomputation for a relation jg: non-relevant documents past the first num_rel left out."""
    nonrel = sorted(jg.nonrelevant, key=rank.get)
    if only_ret:
        nonrel = [d for d in nonrel if rank[d] < njr]
    dropped = set(jg.nonrelevant) - set(nonrel[: len(jg.relevant)])
    ful = poss = 0
    for a, b in jg.prefs:
        if a in dropped or b in dropped or (only_ret and (rank[a] >= njr or rank[b] >= njr)):
            continue
        poss += 1
        if rank[a] < rank[b] and rank[a] < njr:
            ful += 1
    return ful, poss


def prefs_of(query: PreferenceQuery, order: Sequence[str]) -> dict[str, Fraction]:
    """The measures of one ordering: *order* lists the retrieved judged documents, best first."""
    rank = {d: i for i, d in enumerate(order)}
    njr = len(rank)
    for d in query.judged:
        rank.setdefault(d, len(rank))
    ret = lambda d: rank[d] < njr  # noqa: E731
    per_jg = []
    count: dict[tuple[str, str], int] = {}
    for jg in query.groups:
        fr = pr = fi = pi = no = 0
        for a, b in jg.prefs:
            count[a, b] = count.get((a, b), 0) + 1
            if ret(a) and ret(b):
                pr += 1
                fr += rank[a] < rank[b]
            elif ret(a):
                fi += 1
                pi += 1
            elif ret(b):
                pi += 1
            else:
                no += 1
        per_jg.append((jg, fr, pr, fi, pi, no))
    v: dict[str, Fraction] = {}
    fr, pr, fi, pi, no = (sum(t[i] for t in per_jg) for i in range(1, 6))
    v["prefs_num_prefs_poss"] = Fraction(pr + pi + no)
    v["prefs_num_prefs_ful"] = Fraction(fr + fi)
    v["prefs_num_prefs_ful_ret"] = Fraction(fr)
    v["prefs_simp"] = Fraction(fr + fi, pr + pi + no) if pr + pi + no else Fraction(0)
    v["prefs_simp_ret"] = Fraction(fr, pr) if pr else Fraction(0)
    v["prefs_simp_imp"] = Fraction(fr + fi, pr + pi) if pr + pi else Fraction(0)
    n = len(query.groups)
    v["prefs_avgjg"] = _mean_jg([Fraction(t[1] + t[3], t[2] + t[4] + t[5]) for t in per_jg if t[2] + t[4] + t[5]], n)
    v["prefs_avgjg_ret"] = _mean_jg([Fraction(t[1], t[2]) for t in per_jg if t[2]], n)
    v["prefs_avgjg_imp"] = _mean_jg([Fraction(t[1] + t[3], t[2] + t[4]) for t in per_jg if t[2] + t[4]], n)
    for name, only_ret in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        ratios = []
        for jg, fr_, pr_, fi_, pi_, no_ in per_jg:
            rel = [d for d in jg.relevant if not only_ret or ret(d)]
            non = [d for d in jg.nonrelevant if not only_ret or ret(d)]
            big_r, big_n = len(rel), len(non)
            rel_ret = sum(1 for d in jg.relevant if ret(d))
            if big_r >= big_n:
                ful = fr_ + (0 if only_ret else fi_) + rel_ret * (big_r - big_n)
                poss = pr_ + (0 if only_ret else pi_ + no_) + len(jg.relevant) * (big_r - big_n)
            elif jg.relation:
                ful, poss = _recalculated_relation(jg, rank, njr, only_ret)
            else:
                ful, poss = _recalculated_classes(jg, rank, njr, only_ret)
            ratios.append(_ratio(ful, poss))
        v[name] = _mean_jg(ratios, n)
    both = one = Fraction(0)
    nb = n1 = n0 = 0
    for a, b in {tuple(sorted(p, key=rank.get)) for p in count}:
        share = Fraction(count.get((a, b), 0), count.get((a, b), 0) + count.get((b, a), 0))
        if ret(a) and ret(b):
            nb, both = nb + 1, both + share
        elif ret(a):
            n1, one = n1 + 1, one + share
        else:
            n0 += 1
    v["prefs_pair"] = (both + one) / (nb + n1 + n0) if nb + n1 + n0 else Fraction(0)
    v["prefs_pair_ret"] = both / nb if nb else Fraction(0)
    v["prefs_pair_imp"] = (both + one) / (nb + n1) if nb + n1 else Fraction(0)
    return {m: v[m] for m in _NAMES}


def prefs_measures(query: PreferenceQuery, ranking: Sequence[Sequence[str]], *, exact: bool = True) -> dict[str, Any]:
    """Every measure of ``-m all_prefs``, the exact mean over every ordering of *ranking*'s tie groups
    (``exact=False``: that mean as a float)."""
    total: dict[str, Fraction] = dict.fromkeys(_NAMES, Fraction(0))
    count = 0
    for order in orderings(ranking, set(query.judged)):
        for m, x in prefs_of(query, order).items():
            total[m] += x
        count += 1
    return {m: x / count if exact else float(x / count) for m, x in total.items()}
