"""trec_eval's doubles: the per-query value its C code holds, for printing its last digit.

trec_eval computes each measure in C doubles, one operation after another,
and prints ``%6.4f`` of the double.  Where the exact value is a rounding half
at the printed digits (``set_F`` = 11/32 = 0.34375), or within a few units in
the last place of one, the digit printed depends on the double's rounding
errors: trec_eval's ``set_F`` is ``(x+1)·P·R / (x·P + R)`` with P = 11/50 and
R = 11/14 each rounded first, 0.34374999999999994, printed ``0.3437``; the
exact value correctly rounded prints ``0.3438``.

:func:`query_doubles` repeats trec_eval 9.0.8's operations for one query, in
its order (read from usnistgov/trec_eval's m_*.c files: the sums run down the
ranking from rank 1, the quotients and products as its expressions group
them), on Python floats, which are the same IEEE doubles; ``log2`` and
``log`` are the C library's.  It takes the query as trec_eval's
``te_form_res_rels`` leaves it:

- *rels*: the relevance of each ranked document in trec_eval's order, after
  ``-M`` and ``-J``: the label (an int, as trec_eval reads it), or
  :data:`NONPOOL` (-1, not in the qrels) or :data:`UNJUDGED` (-2, a negative
  qrels label);
- *levels*: how many of the query's judgements carry each label 0, 1, 2, ...
  (negative labels are not counted).

Only the families whose double can differ from the exact value's nearest
double are here (:data:`FAMILIES`): a value made by one division of two
integers (P, recall, recip_rank, Rprec, set_P, ...) is that nearest double
already, and trec_eval's means are sums of the per-query doubles in query
order, which :mod:`tieaware.io.trec_format` repeats.  A query with no
document (``-M 0``, or ``-J`` leaving none) makes ``iprec_at_recall`` at a
recall whose cutoff is 0 divide 0 by 0: its double is ``-nan``, and so is
``11pt_avg``'s.

>>> from fractions import Fraction
>>> from tieaware.model.names import parse
>>> rels = [1] * 11 + [NONPOOL] * 39
>>> query_doubles(rels, [0, 14], [parse("SetF")])["SetF"]
0.34374999999999994
>>> float(Fraction(11, 32))
0.34375
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cmp_to_key
from typing import Optional

from tieaware.model.names import Measure

__all__ = ["NONPOOL", "UNJUDGED", "FAMILIES", "emulated", "query_doubles", "nan_text"]

#: trec_eval's relevance of a ranked document not in the qrels (RELVALUE_NONPOOL).
NONPOOL = -1
#: trec_eval's relevance of a ranked document with a negative qrels label (RELVALUE_UNJUDGED).
UNJUDGED = -2
#: trec_eval's floor of infAP's quotients (INFAP_EPSILON).
_INFAP_EPSILON = 0.00001
#: The measures whose double is emulated here (tieaware's names of trec_eval's families).
FAMILIES = frozenset({"AP", "GMAP", "Bpref", "GMBpref", "infAP", "SetF", "IPrec", "IPrecAvg", "nDCG", "nDCGRel", "RnDCG", "G", "BinG", "Utility"})
_ELEVEN = "0.0;0.1;0.2;0.3;0.4;0.5;0.6;0.7;0.8;0.9;1.0"


def emulated(m: Measure) -> bool:
    """Whether :func:`query_doubles` computes *m* (one of trec_eval's families whose double needs its order)."""
    if m.name not in FAMILIES:
        return False
    params = dict(m.params)
    if m.name == "nDCG":
        return set(params) <= {"gains"} and not (m.k is not None and params)
    if m.name == "AP":
        return set(params) <= {"rel"}
    return True


def nan_text(value: float, width: int = 6) -> str:
    """glibc's ``%6.4f`` of a NaN: ``-nan`` or ``nan`` by its sign bit, right-aligned.

    >>> nan_text(-math.nan), nan_text(math.nan)
    ('  -nan', '   nan')
    """
    return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(width)


def query_doubles(rels: Sequence[int], levels: Sequence[int], measures: Sequence[Measure], docs: int = 0) -> dict[str, float]:
    """{str(m): trec_eval's double} for the measures of *measures* that :func:`emulated` accepts.

    *docs* is trec_eval's ``-N`` (documents in the collection, utility's fourth term).
    """
    out = {}
    for m in measures:
        if emulated(m):
            out[str(m)] = _one(m, list(rels), list(levels), docs)
    return out


def _level(m: Measure) -> Fraction:
    return Fraction(m.param("rel", 1))


def _counts(rels: list[int], levels: list[int], level: Fraction) -> tuple[int, int, int]:
    """(num_ret, num_rel, num_rel_ret) as te_form_res_rels counts them."""
    num_rel = sum(n for label, n in enumerate(levels) if label >= level)
    return len(rels), num_rel, sum(1 for r in rels if r >= 0 and r >= level)


def _one(m: Measure, rels: list[int], levels: list[int], docs: int) -> float:
    level = _level(m)
    name = m.name
    if name in ("AP", "GMAP"):
        return _map(rels, levels, level, m.k)
    if name in ("Bpref", "GMBpref"):
        return _bpref(rels, levels, level)
    if name == "infAP":
        return _infap(rels, levels, level)
    if name == "SetF":
        return _set_f(rels, levels, level, float(m.param("beta", "1.0")))
    if name == "IPrec":
        return _iprec(rels, levels, level, [float(m.param("recall"))])[0]
    if name == "IPrecAvg":
        percents = [float(t) for t in m.param("levels", _ELEVEN).split(";")]
        values = _iprec(rels, levels, level, percents)
        total = 0.0
        for v in reversed(values):  # m_11pt_avg.c adds them from the last cutoff down
            total += v
        return total / float(len(percents))
    if name == "BinG":
        return _bin_g(rels, levels, level)
    if name == "Utility":
        return _utility(m, rels, levels, level, docs)
    gains = _gains(m.param("gains"), levels)
    if name == "nDCG" and m.k is not None:
        return _ndcg_cut(rels, levels, m.k)
    if name == "nDCG":
        return _ndcg(rels, gains)
    if name == "nDCGRel":
        return _ndcg_rel(rels, gains)
    if name == "RnDCG":
        return _rndcg(rels, levels, level, gains)
    return _g(rels, gains)


# -- C's arithmetic where Python's raises ------------------------------------------------------


def _div(a: float, b: float) -> float:
    """a / b as C divides doubles: x/0 is ±inf, 0/0 -nan (x86's default NaN)."""
    if b != 0.0:
        return a / b
    if a != a or a == 0.0:
        return -math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _log2(x: float) -> float:
    """C's log2: -inf at 0, -nan below it."""
    if x > 0.0:
        return math.log2(x)
    return -math.inf if x == 0.0 else -math.nan


# -- the families (trec_eval's m_*.c, in its order of operations) -----------------------------


def _map(rels: list[int], levels: list[int], level: Fraction, k: Optional[int]) -> float:
    """m_map.c and m_map_cut.c: Σ rel_so_far/(i+1) down the ranking, then / num_rel."""
    _, num_rel, _ = _counts(rels, levels, level)
    if k is not None and num_rel == 0:
        return 0.0
    total, found = 0.0, 0
    for i, r in enumerate(rels if k is None else rels[:k]):
        if r >= level:
            found += 1
            total += found / float(i + 1)
    if k is None and not found:
        return 0.0
    return total / float(num_rel)


def _bpref(rels: list[int], levels: list[int], level: Fraction) -> float:
    """m_bpref.c: Σ 1 - min(nonrel so far, R)/min(nonrel judged, R) over the relevant, then / R."""
    _, num_rel, _ = _counts(rels, levels, level)
    num_nonrel = sum(n for label, n in enumerate(levels) if label < level)
    total, nonrel = 0.0, 0
    for r in rels:
        if r < 0:  # not in the pool, or in it unjudged: skipped
            continue
        if r < level:
            nonrel += 1
        elif nonrel > 0:
            total += 1.0 - float(min(nonrel, num_rel)) / float(min(num_nonrel, num_rel))
        else:
            total += 1.0
    if num_rel:
        total /= num_rel
    return total


def _infap(rels: list[int], levels: list[int], level: Fraction) -> float:
    """m_infap.c, term by term as it groups them."""
    _, num_rel, _ = _counts(rels, levels, level)
    total, rel, nonrel, unjudged = 0.0, 0, 0, 0
    for j, r in enumerate(rels):
        if r == NONPOOL:
            continue
        if r == UNJUDGED:
            unjudged += 1
            continue
        if r < level:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (float(rel - 1 + nonrel + unjudged) / fj) * (
                (rel - 1 + _INFAP_EPSILON) / (rel - 1 + nonrel + 2 * _INFAP_EPSILON)
            )
    if num_rel:
        total /= num_rel
    return total


def _set_f(rels: list[int], levels: list[int], level: Fraction, x: float) -> float:
    """m_set_F.c: P and R rounded first, then (x+1)·P·R / (x·P + R)."""
    num_ret, num_rel, num_rel_ret = _counts(rels, levels, level)
    if not num_rel_ret:
        return 0.0
    p = float(num_rel_ret) / float(num_ret)
    r = float(num_rel_ret) / float(num_rel)
    return _div((x + 1.0) * p * r, x * p + r)


def _iprec(rels: list[int], levels: list[int], level: Fraction, percents: list[float]) -> list[float]:
    """m_iprec_at_recall.c (m_11pt_avg.c shares it): interpolated precision at each recall cutoff."""
    num_ret, num_rel, num_rel_ret = _counts(rels, levels, level)
    cutoffs = [int(p * num_rel + 0.9) for p in percents]
    values = [0.0] * len(percents)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    best = float(num_rel_ret) / float(num_ret) if num_ret else -math.nan  # C's 0.0/0.0 on x86: -nan
    found = num_rel_ret
    i = num_ret
    while i > 0 and found > 0:
        precision = float(found) / float(i)
        if best < precision:  # a NaN never compares less: it stays
            best = precision
        if rels[i - 1] >= level:
            while current >= 0 and found == cutoffs[current]:
                values[current] = best
                current -= 1
            found -= 1
        i -= 1
    while current >= 0:
        values[current] = best
        current -= 1
    return values


def _bin_g(rels: list[int], levels: list[int], level: Fraction) -> float:
    """m_binG.c: Σ 1/log2(3 + i - rel_so_far) over the relevant, then / num_rel."""
    _, num_rel, _ = _counts(rels, levels, level)
    total, found = 0.0, 0
    for i, r in enumerate(rels):
        if r >= level:
            found += 1
            total += 1.0 / math.log2(float(3 + i - found))
    return total / float(num_rel) if found else 0.0


def _utility(m: Measure, rels: list[int], levels: list[int], level: Fraction, docs: int) -> float:
    """m_utility.c: a·rel_ret + b·nonrel_ret + c·rel_not_ret + d·nonrel_not_ret, coefficients as doubles."""
    num_ret, num_rel, num_rel_ret = _counts(rels, levels, level)
    a, b, c, d = (float(m.param(k, default)) for k, default in (("a", "1"), ("b", "-1"), ("c", "0"), ("d", "0")))
    docs = int(m.param("docs", docs))
    return a * num_rel_ret + b * (num_ret - num_rel_ret) + c * (num_rel - num_rel_ret) + d * (docs + num_rel_ret - num_ret - num_rel)


# -- the DCG families: trec_eval's gain table (setup_gains) ----------------------------------


def _gains(text: Optional[str], levels: list[int]) -> list[tuple[int, float, int]]:
    """setup_gains: (label, gain, judgements at that label), ordered as its qsort orders them.

    Labels named in ``gains`` take their gain; every other label up to the
    highest judged one gains its own number.  The comparison is trec_eval's
    ``(int)(gain1 - gain2)``, so gains less than 1 apart compare equal and
    keep their order (glibc's qsort sorts by merging, which is stable).
    """
    table: list[list] = []
    for pair in (text.split(";") if text else []):
        name, _, value = pair.partition("=")
        table.append([_atol(name), float(value), 0])
    for label in range(len(levels)):
        for entry in table:
            if entry[0] == label:
                entry[2] = levels[label]
                break
        else:
            table.append([label, float(label), levels[label]])
    ordered = sorted(table, key=cmp_to_key(lambda p, q: int(p[1] - q[1])))
    return [(int(e[0]), float(e[1]), int(e[2])) for e in ordered]


def _atol(text: str) -> int:
    digits = ""
    for ch in text.strip():
        if ch.isdigit() or (not digits and ch in "+-"):
            digits += ch
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0


def _gain(label: int, gains: list[tuple[int, float, int]]) -> float:
    for lvl, gain, _ in gains:
        if lvl == label:
            return gain
    return 0.0


class _Ideal:
    """The ideal ranking's gains, walked as trec_eval walks them: the highest gain first, level by level."""

    def __init__(self, gains: list[tuple[int, float, int]]):
        self.gains = gains
        self.level = len(gains) - 1
        self.gain = gains[self.level][1] if self.level >= 0 else 0.0
        self.count = 0

    def step(self) -> None:
        self.count += 1
        while self.level >= 0 and self.count > self.gains[self.level][2]:
            self.count = 1
            self.level -= 1
            self.gain = self.gains[self.level][1] if self.level >= 0 else 0.0


def _ndcg(rels: list[int], gains: list[tuple[int, float, int]]) -> float:
    """m_ndcg.c."""
    dcg = ideal_dcg = 0.0
    ideal = _Ideal(gains)
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        g = _gain(rels[i], gains)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        ideal.step()
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    while i < len(rels):
        g = _gain(rels[i], gains)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    return dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def _ndcg_cut(rels: list[int], levels: list[int], k: int) -> float:
    """m_ndcg_cut.c: the label is the gain; the ideal from the judged labels, highest first, to rank k."""
    dcg = 0.0
    for i, r in enumerate(rels[:k]):
        if r > 0:
            dcg += float(r) / math.log2(float(i + 2))
    ideal_dcg = 0.0
    level = len(levels) - 1
    count = 0
    i = 0
    while True:
        count += 1
        while level > 0 and count > levels[level]:
            level -= 1
            count = 1
        if level <= 0 or i == k:
            break
        ideal_dcg += float(level) / math.log2(float(i + 2))
        i += 1
    return dcg / ideal_dcg if ideal_dcg > 0.0 else dcg


def _ndcg_rel(rels: list[int], gains: list[tuple[int, float, int]]) -> float:
    """m_ndcg_rel.c: the nDCG at each relevant document, averaged over the ideal's relevant count."""
    dcg = ideal_dcg = total = 0.0
    num_rel = rel_ret = 0
    ideal = _Ideal(gains)
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        g = _gain(rels[i], gains)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        if g > 0:
            total += _div(dcg, ideal_dcg)
            rel_ret += 1
        i += 1
    while i < len(rels):
        g = _gain(rels[i], gains)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        if g > 0:
            total += _div(dcg, ideal_dcg)
            rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    # the relevant documents not retrieved count at the final nDCG
    total += _div(float(num_rel - rel_ret) * dcg, ideal_dcg)
    return total / num_rel if total > 0.0 else 0.0


def _rndcg(rels: list[int], levels: list[int], level: Fraction, gains: list[tuple[int, float, int]]) -> float:
    """m_Rndcg.c: the nDCG where the ideal's gain changes, averaged."""
    _, num_rel, _ = _counts(rels, levels, level)
    if num_rel == 0:
        return 0.0
    dcg = ideal_dcg = total = 0.0
    changes = 0
    ideal = _Ideal(gains)
    old = ideal.gain
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        g = _gain(rels[i], gains)
        ideal.step()
        if old != ideal.gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    if i < len(rels):
        while i < len(rels):
            g = _gain(rels[i], gains)
            if g != 0:
                dcg += g / math.log2(float(i + 2))
            i += 1
        if ideal_dcg > 0.0:
            total += dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.step()
        if old != ideal.gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    return _div(total, float(changes))


def _g(rels: list[int], gains: list[tuple[int, float, int]]) -> float:
    """m_G.c: gain over log2(2 + cost so far - gain so far), over the ideal's total gain."""
    result = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    ideal = _Ideal(gains)
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        g = _gain(rels[i], gains)
        sum_results += g
        ideal.step()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= min_cost else min_cost
        if g != 0:
            result += _div(g, _log2(2 + sum_cost - sum_results))
        i += 1
    while i < len(rels):
        g = _gain(rels[i], gains)
        sum_results += g
        sum_cost += min_cost
        if g != 0:
            result += _div(g, _log2(2 + sum_cost - sum_results))
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        i += 1
    return result / sum_ideal if sum_ideal > 0.0 else 0.0
