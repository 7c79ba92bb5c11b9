"""Gain and discount functions for DCG, and the exact form of a discounted sum.

Both layers compute DCG as a *formal* sum ``Σ_j c_j · D(j)``: a map from
rank j to an exact coefficient c_j, with the discount D kept abstract
(docs/conventions.md, Exactness).  DCG is linear in D, so two layers that produce the same
coefficients agree for every discount at once.  :func:`discounted_sum`
applies D only at the very end.

For the default ``"log2"`` discount, 1/log2(j+1) is rational only when j+1
is a power of two.  Otherwise the value is kept exact as ``log(2)/log(b)``,
where b is the smallest base with j+1 = b**m, so that like terms collect:
1/log2(9) is written (1/2)·log(2)/log(3).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Optional, Union

import sympy
from sympy.core.basic import _args_sortkey

from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact, rational

__all__ = [
    "BinaryGain",
    "Gain",
    "Discount",
    "gain_function",
    "discount_function",
    "float_gain_function",
    "check_gain_domain",
    "check_ideal",
    "float_discount_function",
    "discounted_sum",
    "log2_discount",
    "log2_weighted_sum",
    "perfect_power",
    "trec_gain_pairs",
    "trec_level_gain",
    "trec_ideal_gains",
    "trec_ideal_walk",
    "log2_sum_rational",
]

Gain = Union[str, Callable[[Fraction], Any]]
Discount = Union[str, Callable[[int], Any]]

GAINS = ("linear", "exp2", "binary")


@dataclass(frozen=True)
class BinaryGain:
    """Binary gain: 1 for a label >= *rel*, else 0 (``nDCG(gain=binary)``, the gain of most
    recommender-system libraries).  ``"binary"`` is ``BinaryGain()``, rel = 1.

    >>> g = BinaryGain(Fraction(2))
    >>> g(Fraction(3)), g(Fraction(1))
    (Fraction(1, 1), Fraction(0, 1))
    """

    rel: Fraction = Fraction(1)

    def __call__(self, label: Fraction) -> Fraction:
        return Fraction(1) if label >= self.rel else Fraction(0)
DISCOUNTS = ("log2",)


def _exp2(label: Fraction) -> Fraction:
    if label.denominator != 1:
        raise bad("gain", "exp2", f"needs integer labels (2**l - 1), and a label is {label}")
    return Fraction(2 ** label.numerator - 1)


def _exactify(value: Any, argument: str) -> Exact:
    # A user's callable may hand back an int or float; keep sympy values as they are.
    if isinstance(value, sympy.Basic):
        return value
    return rational(value, argument)


def gain_function(gain: Gain) -> Callable[[Fraction], Exact]:
    """The exact gain for a label: ``"linear"`` (l), ``"exp2"`` (2**l - 1), ``"binary"`` (1 for l >= 1) or a callable.

    >>> gain_function("exp2")(Fraction(3))
    Fraction(7, 1)
    """
    if gain == "linear":
        return lambda label: label
    if gain == "exp2":
        return _exp2
    if gain == "binary":
        return BinaryGain()
    if isinstance(gain, BinaryGain):
        return gain
    if callable(gain):
        return lambda label: _exactify(gain(label), "gain")
    raise bad("gain", gain, f"must be one of {GAINS} or a callable")


def check_gain_domain(labels: Iterable[Fraction], gain: Gain, argument: str = "ranking") -> None:
    """Refuse labels the gain cannot take, wherever they sit, not only within the cutoff.

    >>> check_gain_domain([Fraction(1, 2)], "exp2")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: gain='exp2' needs integer labels (2**l - 1), but ranking has the label 1/2
    """
    if gain == "exp2":
        for x in labels:
            if x.denominator != 1:
                raise TieawareError(f"gain='exp2' needs integer labels (2**l - 1), but {argument} has the label {x}")


def check_ideal(ranking: Sequence[Fraction], ideal: Sequence[Fraction], given: object) -> None:
    """Refuse an nDCG *ideal* that cannot be the ideal of *ranking* (docs/conventions.md, Measures).

    The ideal lists every judged label of the query, so for every grade it
    holds at least as many labels at or above that grade as the ranking
    does (the ranking's zeros need no partner: unjudged documents are 0).
    An ideal with fewer or smaller labels would give an nDCG above 1.
    *given* is the ideal as the caller passed it, for the message.

    >>> check_ideal([Fraction(2), Fraction(1)], [Fraction(1)], [1])
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: ideal cannot be the ideal of the ranking: the ranking has 1 label >= 2 but ideal has 0; it must list every judged label of the query, got [1]
    """
    ours = sorted(ranking, reverse=True)
    best = sorted(ideal, reverse=True)
    for i, x in enumerate(ours):
        if x == 0:
            return  # the rest are zeros too
        if i >= len(best) or best[i] < x:
            m, n = sum(1 for y in ours if y >= x), sum(1 for y in best if y >= x)
            raise bad(
                "ideal",
                given,
                f"cannot be the ideal of the ranking: the ranking has {m} label{'s' if m != 1 else ''} >= {x} "
                f"but ideal has {n}; it must list every judged label of the query",
            )


def float_gain_function(gain: Gain) -> Callable[[Fraction], float]:
    """The gain as a float function, for float mode.

    >>> float_gain_function("linear")(Fraction(1, 2))
    0.5
    """
    exact = gain_function(gain)
    return lambda label: float(exact(label))


@functools.lru_cache(maxsize=1 << 16)
def perfect_power(n: int) -> tuple[int, int]:
    """(b, m) with n == b**m and b as small as possible, by exact integer roots.

    >>> perfect_power(9), perfect_power(64), perfect_power(12)
    ((3, 2), (2, 6), (12, 1))
    """
    for m in range(n.bit_length(), 1, -1):
        root, exact = sympy.integer_nthroot(n, m)
        if exact:
            return int(root), m
    return n, 1


@functools.lru_cache(maxsize=1 << 14)
def log2_discount(j: int) -> Exact:
    """1/log2(j+1), exactly: a Fraction when j+1 is a power of two.

    >>> log2_discount(3), log2_discount(2)
    (Fraction(1, 2), log(2)/log(3))

    Remembered (the values are immutable), and log(b) is built with
    ``evaluate=False``: b is not a perfect power, so sympy's evaluation
    (milliseconds a call) would leave it as it is.
    """
    b, m = perfect_power(j + 1)
    if b == 2:
        return Fraction(1, m)
    return sympy.Rational(1, m) * sympy.log(2) / sympy.log(b, evaluate=False)


def discount_function(discount: Discount) -> Callable[[int], Exact]:
    """The exact discount for a rank j >= 1: ``"log2"`` or a callable.

    >>> discount_function(lambda j: Fraction(1, j))(4)
    Fraction(1, 4)
    """
    if discount == "log2":
        return log2_discount
    if callable(discount):
        return lambda j: _exactify(discount(j), "discount")
    raise bad("discount", discount, f"must be one of {DISCOUNTS} or a callable")


def float_discount_function(discount: Discount) -> Callable[[int], float]:
    """The discount as a float function, for float mode.

    >>> float_discount_function("log2")(1)
    1.0
    """
    if discount == "log2":
        return lambda j: 1.0 / math.log2(j + 1)
    exact = discount_function(discount)
    return lambda j: float(exact(j))


def discounted_sum(coefficients: Mapping[int, Exact], discount: Discount) -> Exact:
    """Σ c_j · D(j) exactly: a Fraction when every term is rational, else sympy.

    For ``"log2"`` the irrational terms are collected per base, so the same
    coefficients always give the same expression.

    >>> discounted_sum({1: Fraction(3), 3: Fraction(1)}, "log2")
    Fraction(7, 2)
    >>> discounted_sum({2: Fraction(1), 8: Fraction(2)}, "log2")
    2*log(2)/log(3)
    """
    if discount == "log2":
        return _log2_sum(coefficients)
    d = discount_function(discount)
    rational_part = Fraction(0)
    symbolic: list[Any] = []
    for j, c in sorted(coefficients.items()):
        if c == 0:
            continue
        term = c * d(j) if not isinstance(c, Fraction) else _times(c, d(j))
        if isinstance(term, Fraction):
            rational_part += term
        else:
            symbolic.append(term)
    return _combine(rational_part, symbolic)


def log2_weighted_sum(coefficients: Mapping[Fraction, Exact]) -> Exact:
    """Σ c_x / log2(x) exactly, over rationals x > 1: the log2 discount at a rational argument.

    An integer x is the discount D(x - 1) = 1/log2(x) of :func:`discounted_sum`
    (canonical, like terms collected); any other x gives ``log(2)/log(x)``.
    trec_eval's binG and G divide by log2(2 + a count or a gain sum).

    >>> log2_weighted_sum({Fraction(2): Fraction(1), Fraction(4): Fraction(2)})
    Fraction(2, 1)
    >>> log2_weighted_sum({Fraction(5, 2): Fraction(1)})
    log(2)/log(5/2)
    """
    whole: dict[int, Exact] = {}
    other: list[Any] = []
    for x, c in coefficients.items():
        if x <= 1:
            raise bad("log2 argument", x, "must be > 1 (a gain sum made the log2 of G's discount 0 or negative)")
        if x.denominator == 1:
            j = int(x) - 1
            whole[j] = whole.get(j, 0) + c
        elif c != 0:
            coeff = sympy.Rational(c.numerator, c.denominator) if isinstance(c, Fraction) else sympy.sympify(c)
            other.append(coeff * sympy.log(2) / sympy.log(sympy.Rational(x.numerator, x.denominator)))
    total = discounted_sum(whole, "log2")
    if not other:
        return total
    head = sympy.Rational(total.numerator, total.denominator) if isinstance(total, Fraction) else total
    return _combine(Fraction(0), [head, *other])


def trec_gain_pairs(spec: Optional[str], argument: str = "gains") -> tuple[tuple[int, Fraction], ...]:
    """trec_eval's ``rel_level=gain`` pairs (``-m ndcg.1=3.5,2=9``) as ((level, gain), ...).

    The pairs are checked as trec_eval checks them (``get_param_pairs`` in
    meas_init.c): comma separated, each ``name=value``; the level is the
    leading integer of the name (trec_eval's ``atol``) and the gain an exact
    decimal.  Levels -1 and -2 are trec_eval's codes for a document not in
    the qrels and for a negative (not judged) label.  A level given twice is
    refused (trec_eval would use one of them, depending on its sort).

    >>> trec_gain_pairs("1=3.5,2=9.0")
    ((1, Fraction(7, 2)), (2, Fraction(9, 1)))
    """
    if spec is None:
        return ()
    parts = spec.split(",")
    out: list[tuple[int, Fraction]] = []
    for part in parts:
        name, eq, value = part.partition("=")
        if not eq or "=" in value or not name:
            raise bad(argument, spec, "must be rel_level=gain pairs separated by commas, such as 1=3.5,2=9")
        found = re.match(r"\s*([+-]?\d+)", name)
        level = int(found.group(1)) if found else 0  # atol: the leading integer, else 0
        gain = rational(value.strip() or "0", argument)
        if any(level == seen for seen, _ in out):
            raise bad(argument, spec, f"gives the level {level} twice")
        out.append((level, gain))
    return tuple(out)


def trec_level_gain(label: Optional[Fraction], pairs: Sequence[tuple[int, Fraction]]) -> Fraction:
    """trec_eval's gain of a retrieved document (``get_gain``): a pair's gain for its level, else the label.

    ``None`` (not in the qrels) is level -1 and a negative label level -2,
    as trec_eval codes them; without a pair they gain 0.

    >>> trec_level_gain(Fraction(2), ((1, Fraction(5)),)), trec_level_gain(Fraction(1), ((1, Fraction(5)),))
    (Fraction(2, 1), Fraction(5, 1))
    >>> trec_level_gain(None, ()), trec_level_gain(None, ((-1, Fraction(1, 2)),))
    (Fraction(0, 1), Fraction(1, 2))
    """
    level: Fraction = Fraction(-1) if label is None else (Fraction(-2) if label < 0 else label)
    for lv, g in pairs:
        if lv == level:
            return g
    return level if level >= 0 else Fraction(0)


def trec_ideal_gains(judged: Iterable[Optional[Fraction]], pairs: Sequence[tuple[int, Fraction]]) -> list[Fraction]:
    """The gains of trec_eval's ideal ranking for ndcg, ndcg_rel, Rndcg and G (``setup_gains``), best first.

    The levels are the judged labels >= 0 (trec_eval's 0 .. max level, a
    level without documents included) and the pairs' levels; each gets its
    pair's gain or its own value.  trec_eval sorts them with ``qsort`` and a
    comparator that truncates the difference of two gains to an int, so
    gains less than 1 apart compare equal; glibc's qsort (a merge sort for
    arrays this small) is reproduced here, so the order is trec_eval's.  The
    ideal takes the levels from the top, each as many times as it has
    documents, while the gain stays > 0.

    >>> trec_ideal_gains([Fraction(2), Fraction(0), Fraction(1), Fraction(2)], ())
    [Fraction(2, 1), Fraction(2, 1), Fraction(1, 1)]
    >>> trec_ideal_gains([Fraction(1), Fraction(2)], ((1, Fraction(5)),))
    [Fraction(5, 1), Fraction(2, 1)]
    """
    return trec_ideal_walk(judged, pairs)[1]


def trec_ideal_walk(
    judged: Iterable[Optional[Fraction]], pairs: Sequence[tuple[int, Fraction]]
) -> tuple[Fraction, list[Fraction], Fraction]:
    """(the top level's gain before the walk, the ideal gains > 0, the gain the walk stops at).

    Rndcg counts a boundary wherever the ideal gain changes, including from
    the first value trec_eval holds (the top level's gain, even when that
    level has no document) and to the value it stops at (<= 0); see
    :func:`trec_ideal_gains`.

    >>> trec_ideal_walk([Fraction(1), Fraction(0)], ())
    (Fraction(1, 1), [Fraction(1, 1)], Fraction(0, 1))
    """
    counts: dict[Fraction, int] = {}
    for x in judged:
        if x is not None and x >= 0:
            counts[x] = counts.get(x, 0) + 1
    whole = [x for x in counts if x.denominator == 1]
    top = int(max(whole)) if whole else -1
    levels: list[Fraction] = sorted({Fraction(i) for i in range(top + 1)} | set(counts))
    records = [[Fraction(lv), g, 0] for lv, g in pairs]  # (level, gain, count), pairs first
    for lv in levels:
        for rec in records:
            if rec[0] == lv:
                rec[2] = counts.get(lv, 0)
                break
        else:
            records.append([lv, lv, counts.get(lv, 0)])
    records = _glibc_msort(records, lambda a, b: int(a[1] - b[1]))  # (int)(gain1 - gain2), truncated
    out: list[Fraction] = []
    cur = len(records) - 1
    gain = first = records[cur][1] if cur >= 0 else Fraction(0)
    at = 0
    while gain > 0:
        at += 1
        while cur >= 0 and at > records[cur][2]:
            at = 1
            cur -= 1
            gain = records[cur][1] if cur >= 0 else Fraction(0)
        if gain > 0:
            out.append(gain)
    return first, out, gain


def _glibc_msort(items: list, cmp: Callable[[Any, Any], int]) -> list:
    """glibc's qsort for small arrays (msort.c): top-down merge sort, left half n // 2, ties from the left."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left, right = _glibc_msort(items[:n1], cmp), _glibc_msort(items[n1:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _times(c: Fraction, v: Exact) -> Exact:
    return c * v if isinstance(v, Fraction) else sympy.Rational(c.numerator, c.denominator) * v


def _combine(rational_part: Fraction, symbolic: list[Any]) -> Exact:
    if not symbolic:
        return rational_part
    total = sympy.Add(sympy.Rational(rational_part.numerator, rational_part.denominator), *symbolic)
    if total.is_Rational:
        return Fraction(int(total.p), int(total.q))
    return total


def _log2_sum(coefficients: Mapping[int, Exact]) -> Exact:
    per_base: dict[int, Any] = {}
    for j, c in coefficients.items():
        if (not c) if type(c) is Fraction else c == 0:
            continue
        b, m = perfect_power(j + 1)
        share = c if m == 1 else c / m
        before = per_base.get(b)
        per_base[b] = share if before is None else before + share
    if all(type(c) is Fraction for c in per_base.values()):
        return log2_sum_rational(per_base)
    rational_part = Fraction(0)
    symbolic = []
    for b, c in sorted(per_base.items()):
        if b == 2:
            if isinstance(c, Fraction) or isinstance(c, int):
                rational_part += c
            else:
                symbolic.append(c)
        elif c != 0:
            coeff = sympy.Rational(c.numerator, c.denominator) if isinstance(c, Fraction) else sympy.sympify(c)
            symbolic.append(coeff * sympy.log(2) / sympy.log(b))
    return _combine(rational_part, symbolic)


# Full nDCG over a long ranking has a term for almost every base up to its
# length.  Letting sympy multiply and add ~1,000 terms one by one costs tens
# of milliseconds per ranking, almost all of it spent re-deriving a canonical
# form we already know: each term is c·log(2)/log(b) with a distinct b, so no
# like terms can collect.  log2_sum_rational builds that same canonical
# expression directly.  It is == (same args, same order) to what
# sympy.Add(...) returns; tests/test_bench.py checks this against sympy's own
# construction.


@functools.lru_cache(maxsize=1 << 16)
def _log2_unit(b: int) -> Any:
    """log(2)/log(b), == to ``sympy.log(2) / sympy.log(b)``, for b >= 3 not a perfect power.

    log's evaluation (which looks for perfect powers and special values)
    costs most of a millisecond per base and cannot change log(b) here.
    """
    inverse = sympy.Pow(sympy.log(b, evaluate=False), -1, evaluate=False)
    return sympy.Mul._from_args(tuple(sorted((inverse, _LOG2), key=_args_sortkey)), True)


_LOG2 = sympy.log(2)


def _log2_term(c: sympy.Rational, b: int) -> Any:
    """c·log(2)/log(b) in canonical form: Mul puts a Rational coefficient first."""
    unit = _log2_unit(b)
    if c is sympy.S.One:  # Rational(1) is a singleton
        return unit
    return sympy.Mul._from_args((c,) + unit.args, True)


def log2_sum_rational(per_base: Mapping[int, Fraction]) -> Exact:
    """Σ_b c_b·log(2)/log(b) with rational c_b, built without sympy's flatten."""
    rational_part = per_base.get(2, Fraction(0))
    # Key coefficients by (p, q): Fraction hashes are recomputed on every use.
    coeffs = [(b, (c.numerator, c.denominator)) for b, c in per_base.items() if b != 2 and c]
    if not coeffs:
        return rational_part
    as_sympy = {pq: sympy.Rational(*pq) for _, pq in coeffs}
    # Add orders its terms by Basic.compare.  Our terms are all Muls of
    # (coefficient,) log(2), 1/log(b): fewer args sort first (coefficient 1),
    # then the coefficient decides by sympy's own order, then b.
    ranked = sorted(as_sympy, key=lambda pq: (pq != (1, 1), _args_sortkey(as_sympy[pq])))
    rank = {pq: i for i, pq in enumerate(ranked)}
    coeffs.sort(key=lambda b_pq: (rank[b_pq[1]], b_pq[0]))
    terms = [_log2_term(as_sympy[pq], b) for b, pq in coeffs]
    if rational_part:
        terms.insert(0, sympy.Rational(rational_part.numerator, rational_part.denominator))
    return sympy.Add._from_args(terms, True)
