"""Where ties come from: the tie census of a ranking and the float format of every tied score.

Two parts, both exact (no float tolerance anywhere):

- **the census**: per query, the tie groups (two or more documents with the
  same score), the tied documents, the largest group, and for every cutoff
  k the share of the top k positions held by tied documents;
- **precision forensics**: for each tie group, the narrowest format in
  which its score is exactly representable (``bfloat16``, ``float16``,
  ``float32``, ``float64``, or for text scores ``decimal:d``, a decimal
  with d significant digits), and per format the ties that remain when
  every score is rounded to that format (round to nearest, ties to even):
  a lower bound on the ties a computation in that format would give.

A score is representable in a format when rounding it to the format gives
it back.  The rounding here is written once (:func:`round_to`), for
float64 arrays and for exact Fractions, with power-of-two scalings and
``rint`` only, which are exact in float64; so are the comparisons.

>>> round_to(np.array([1 + 2**-8, 1 + 2**-7]), "bfloat16").tolist()      # 8 significant bits, ties to even
[1.0, 1.0078125]
>>> narrowest(1 / 3), narrowest(Fraction(3, 4)), narrowest(Fraction(1, 10)), narrowest(Fraction(1, 3))
('float64', 'bfloat16', 'decimal:1', 'exact')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence, Union

import numpy as np

__all__ = ["FORMATS", "BITS", "round_to", "round_fraction", "representable", "narrowest", "as_binary", "float_formats", "fraction_formats", "Census", "census", "group_sizes"]

#: The binary formats, narrowest first: (significant bits p, smallest normal exponent, largest exponent).
BITS = {"bfloat16": (8, -126, 127), "float16": (11, -14, 15), "float32": (24, -126, 127), "float64": (53, -1022, 1023)}
#: The formats a tie group's score is classified by, narrowest first (then ``decimal:d`` for text scores).
FORMATS = tuple(BITS)


def round_to(values: np.ndarray, fmt: str) -> np.ndarray:
    """*values* (float64) rounded to the nearest value of *fmt*, ties to even; beyond its largest value, ±inf.

    Exact: ``frexp``, ``ldexp`` and ``rint`` neither round nor overflow here.
    """
    p, emin, emax = BITS[fmt]
    v = np.asarray(values, dtype=np.float64)
    if fmt == "float64":
        return v.copy()
    _, e = np.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1: the leading bit is 2**(e-1)
    q = np.maximum(e - p, emin - p + 1)  # the exponent of the last kept bit (subnormals keep fewer)
    out = np.ldexp(np.rint(np.ldexp(v, -q)), q)
    largest = (2 - 2.0 ** (1 - p)) * 2.0**emax
    return np.where(np.abs(out) > largest, np.copysign(np.inf, v), out)


def round_fraction(x: Fraction, fmt: str) -> Union[Fraction, float]:
    """The exact value of *x* rounded to *fmt* (ties to even): a Fraction, or ±inf beyond its range.

    >>> round_fraction(Fraction(1, 10), "bfloat16")
    Fraction(205, 2048)
    """
    p, emin, emax = BITS[fmt]
    if x == 0:
        return Fraction(0)
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2**e <= a < 2**(e+2)
    if Fraction(2) ** e > a:
        e -= 1
    if Fraction(2) ** (e + 1) <= a:
        e += 1
    # now 2**e <= a < 2**(e+1): the leading bit is 2**e
    q = max(e - p + 1, emin - p + 1)
    scaled = a / Fraction(2) ** q
    n = round(scaled)  # Fraction.__round__: ties to even
    out = n * Fraction(2) ** q
    if out > (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax:
        return float("inf") if x > 0 else float("-inf")
    return out if x > 0 else -out


def representable(x: Union[Fraction, float], fmt: str) -> bool:
    """Whether *x* is exactly a value of *fmt* (``decimal:d``: a decimal of at most d significant digits)."""
    x = Fraction(x)
    if fmt.startswith("decimal:"):
        return _digits(x) is not None and _digits(x) <= int(fmt.split(":")[1])  # type: ignore[operator]
    return round_fraction(x, fmt) == x


def _digits(x: Fraction) -> Union[int, None]:
    """Significant decimal digits of *x*, None when its decimal expansion is infinite."""
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return None
    n = abs(x.numerator) * 10 ** max(twos, fives) // x.denominator  # x scaled to an integer
    if n == 0:
        return 1
    s = str(n).rstrip("0")
    return len(s)


def as_binary(x: Fraction) -> Fraction:
    """*x*, or the low-precision value it prints: a text score that is exactly Python's ``repr`` of a double
    holding a bfloat16, float16 or float32 value stands for that value (``0.10000000149011612`` is float32's 0.1).

    >>> as_binary(Fraction("0.10000000149011612")) == Fraction(float(np.float32(0.1)))
    True
    >>> as_binary(Fraction("0.1"))       # the double nearest 0.1 is no float32: one tenth stays
    Fraction(1, 10)
    """
    if x.denominator & (x.denominator - 1) == 0:  # a dyadic value: exactly a binary one, or of none
        return x
    y = float(x)
    if not np.isfinite(y) or Fraction(repr(y)) != x:
        return x
    exact = Fraction(y)
    if any(round_fraction(exact, fmt) == exact for fmt in FORMATS[:-1]):
        return exact
    return x


def narrowest(x: Union[Fraction, float]) -> str:
    """The narrowest of :data:`FORMATS` holding *x* exactly; else ``decimal:d`` (d significant digits), else ``exact``.

    A text score that prints a low-precision value counts as that value (:func:`as_binary`).
    """
    x = as_binary(Fraction(x))
    for fmt in FORMATS:
        if round_fraction(x, fmt) == x:
            return fmt
    d = _digits(x)
    return f"decimal:{d}" if d is not None else "exact"


def float_formats(values: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """For float64 *values*: the narrowest format of each (names) and {format: whether it holds each exactly}."""
    held = {fmt: round_to(values, fmt) == values for fmt in FORMATS}
    out = np.full(values.shape, "float64", dtype=object)
    for fmt in reversed(FORMATS[:-1]):  # float32, float16, bfloat16: the narrowest that holds wins
        out[held[fmt]] = fmt
    return out, held


def fraction_formats(values: Sequence[Fraction]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:func:`float_formats` of exact values (text scores): ``decimal:d`` where no binary format holds one."""
    values = [as_binary(x) for x in values]
    held = {fmt: np.array([round_fraction(x, fmt) == x for x in values], dtype=bool) for fmt in FORMATS}
    return np.array([narrowest(x) for x in values], dtype=object), held


def group_sizes(keys: np.ndarray, query_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tie groups (two or more rows) of rows sorted by query then score: (first row of each, its size).

    *keys*: one value per row, equal exactly when the scores tie; *query_start*: first row of each query.
    Only the runs of equal neighbours are looked at, so untied rows cost one comparison each.
    """
    n = len(keys)
    if n < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    same = np.empty(n + 1, dtype=np.int8)  # same[i + 1]: row i + 1 ties with row i (same query)
    same[0] = same[n] = 0
    np.equal(keys[1:], keys[:-1], out=same[1:n].view(bool))
    inner = query_start[(query_start > 0) & (query_start < n)]
    same[inner] = 0
    edges = np.flatnonzero(same[1:] != same[:-1])  # alternately: a group's first row, its last row
    starts, ends = edges[0::2], edges[1::2]
    return starts, ends - starts + 1


@dataclass(frozen=True)
class Census:
    """The tie census and the precision forensics of one ranking set (see the module docstring)."""

    #: The queries, in order.
    queries: tuple[str, ...]
    #: Per query: documents, tie groups, tied documents, largest group (1 when untied).
    documents: dict[str, int]
    tie_groups: dict[str, int]
    tied_documents: dict[str, int]
    largest_group: dict[str, int]
    #: {k: {qid: share of the top k positions held by tied documents}} (Fractions; of min(k, documents)).
    tied_at_k: dict[int, dict[str, Fraction]]
    #: {k: tied positions in every query's top k / all those positions}.
    overall_tied_at_k: dict[int, Fraction]
    #: Every tie group, best-scored first within a query: its query's index in :attr:`queries`, its size,
    #: the narrowest format of its score (arrays; :attr:`groups` as tuples).
    qids_of_groups: np.ndarray
    group_size: np.ndarray
    group_format: np.ndarray
    #: {format: tied documents whose score is exactly representable in it} (formats not nested: counted apart).
    representable: dict[str, int]
    #: {format: (tie groups, tied documents) once every score is rounded to it}: a lower bound on its ties.
    rounded: dict[str, tuple[int, int]]

    @property
    def groups(self) -> tuple[tuple[str, int, str], ...]:
        """Every tie group as (qid, size, narrowest format of its score), best-scored first within a query."""
        return tuple((self.queries[q], s, str(f)) for q, s, f in zip(self.qids_of_groups.tolist(), self.group_size.tolist(), self.group_format))

    @property
    def narrowest_counts(self) -> dict[str, tuple[int, int]]:
        """{format: (tie groups, tied documents) for which it is the narrowest}, narrowest first."""
        out = {}
        for fmt in sorted(set(self.group_format.tolist()), key=lambda f: (FORMATS.index(f) if f in FORMATS else len(FORMATS), f)):
            pick = self.group_format == fmt
            out[fmt] = (int(pick.sum()), int(self.group_size[pick].sum()))
        return out

    @property
    def total_groups(self) -> int:
        return sum(self.tie_groups.values())

    @property
    def total_tied(self) -> int:
        return sum(self.tied_documents.values())

    @property
    def size_counts(self) -> dict[int, int]:
        """{group size: number of tie groups of that size}."""
        sizes, counts = np.unique(self.group_size, return_counts=True)
        return {int(s): int(n) for s, n in zip(sizes, counts)}


def census(
    qids: Sequence[str],
    query_start: np.ndarray,
    keys: np.ndarray,
    formats: Any,
    rounded_keys: dict[str, np.ndarray],
    ks: Sequence[int],
) -> Census:
    """The :class:`Census` of rows sorted by query, then score descending.

    *keys*: per row, equal exactly when scores tie; *formats*: a callable
    giving, for the given group-start rows, their narrowest formats and
    {format: whether it holds each} (:func:`float_formats`); *rounded_keys*:
    per format, the rows' keys once rounded to it (still sorted: rounding is monotone).
    """
    n = len(keys)
    qn = len(qids)
    ends = np.append(query_start[1:], n)
    docs = ends - query_start
    t_starts, t_sizes = group_sizes(keys, query_start)
    t_q = np.searchsorted(query_start, t_starts, side="right") - 1  # the query of every group
    groups_per_q = np.bincount(t_q, minlength=qn)
    tied_per_q = np.bincount(t_q, weights=t_sizes, minlength=qn).astype(np.int64)
    largest = np.ones(qn, dtype=np.int64)
    if len(t_sizes):
        np.maximum.at(largest, t_q, t_sizes)
    largest = np.where(docs == 0, 0, largest)
    # tied positions in the top k, group by group: a group at positions p .. p+n-1 holds min(p+n, k) - p of them
    t_pos = t_starts - query_start[t_q]
    tied_at_k: dict[int, dict[str, Fraction]] = {}
    overall: dict[int, Fraction] = {}
    for k in ks:
        inside = np.clip(np.minimum(t_pos + t_sizes, k) - t_pos, 0, None)
        hits = np.bincount(t_q, weights=inside, minlength=qn).astype(np.int64)
        cut = np.minimum(docs, k)
        tied_at_k[k] = {q: Fraction(int(h), int(c)) if c else Fraction(0) for q, h, c in zip(qids, hits.tolist(), cut.tolist())}
        overall[k] = Fraction(int(hits.sum()), int(cut.sum())) if cut.sum() else Fraction(0)
    if len(t_starts):
        names, held = formats(t_starts)
    else:
        names, held = np.array([], dtype=object), {fmt: np.zeros(0, dtype=bool) for fmt in FORMATS}
    representable_counts = {fmt: int(np.sum(t_sizes[held[fmt]])) for fmt in FORMATS}
    rounded = {}
    for fmt, rk in rounded_keys.items():
        if rk is keys:  # the format holds every given score: the ties are the given ones
            rounded[fmt] = (len(t_sizes), int(t_sizes.sum()))
            continue
        _, rs = group_sizes(rk, query_start)
        rounded[fmt] = (len(rs), int(rs.sum()))
    return Census(
        queries=tuple(qids),
        documents={q: int(d) for q, d in zip(qids, docs)},
        tie_groups={q: int(g) for q, g in zip(qids, groups_per_q)},
        tied_documents={q: int(t) for q, t in zip(qids, tied_per_q)},
        largest_group={q: int(x) for q, x in zip(qids, largest)},
        tied_at_k=tied_at_k,
        overall_tied_at_k=overall,
        qids_of_groups=np.asarray(t_q),
        group_size=np.asarray(t_sizes),
        group_format=np.asarray(names, dtype=object),
        representable=representable_counts,
        rounded=rounded,
    )
