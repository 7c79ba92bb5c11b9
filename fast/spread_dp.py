"""The dynamic programme over one tie group, shared by the spread of every measure.

A group's members are placed slot by slot; a state counts how many members
of each kind (label, relevant or not, ...) are placed so far, and carries
the number of arrangements reaching it, Σ value, Σ value², min, max and,
while small, the distribution.  :mod:`tieaware.fast.tie_spread` and
:mod:`tieaware.fast.trec_spread` build their measures' spreads on it.

>>> acc = group_dp({0: 1, 1: 1}, lambda slot, kind, state: kind * (2 - slot), 0, True)
>>> acc.n, acc.lo, acc.hi, sorted(acc.pmf.items())
(2, 1, 2, [(1, 1), (2, 1)])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Optional

__all__ = ["SpreadStats", "MAX_GROUP_SUPPORT", "TREC_MEASURES", "group_dp", "convolve", "LogMoments", "log_group_dp", "NO_CONVENTION_SPREAD"]

#: A group's distribution is dropped (None) once it has more distinct values than this.
MAX_GROUP_SUPPORT = 5_000


class SpreadStats(NamedTuple):
    """min, max and variance over tie-breakings, and the pmf {value: probability} or None."""

    worst: Any
    best: Any
    variance: Any
    distribution: Optional[dict[Any, Any]]


class _Acc:
    """Per-state accumulator: arrangements, Σ value, Σ value², min, max, pmf (value -> arrangements)."""

    __slots__ = ("n", "s1", "s2", "lo", "hi", "pmf")

    def __init__(self, n: int, s1: Any, s2: Any, lo: Any, hi: Any, pmf: Optional[dict[Any, int]]) -> None:
        self.n, self.s1, self.s2, self.lo, self.hi, self.pmf = n, s1, s2, lo, hi, pmf


def group_dp(kinds: dict[Any, int], contribution: Callable[[int, Any, tuple[int, ...]], Any], zero: Any, want_pmf: bool) -> _Acc:
    """The DP over one group: *kinds* {kind: count}; contribution(slot, kind, state) for the next slot."""
    order = sorted(kinds, key=repr)
    size = sum(kinds.values())
    states: dict[tuple[int, ...], _Acc] = {tuple(0 for _ in order): _Acc(1, zero, zero, zero, zero, {zero: 1} if want_pmf else None)}
    for slot in range(size):
        nxt: dict[tuple[int, ...], _Acc] = {}
        for state, acc in states.items():
            for i, kind in enumerate(order):
                if state[i] == kinds[kind]:
                    continue
                c = contribution(slot, kind, state)
                new = state[:i] + (state[i] + 1,) + state[i + 1 :]
                pmf = None
                if acc.pmf is not None:
                    pmf = {v + c: m for v, m in acc.pmf.items()}
                s1, s2 = acc.s1 + acc.n * c, acc.s2 + 2 * c * acc.s1 + acc.n * c * c
                old = nxt.get(new)
                if old is None:
                    nxt[new] = _Acc(acc.n, s1, s2, acc.lo + c, acc.hi + c, pmf)
                    continue
                old.n += acc.n
                old.s1 += s1
                old.s2 += s2
                old.lo = min(old.lo, acc.lo + c)
                old.hi = max(old.hi, acc.hi + c)
                if old.pmf is not None and pmf is not None:
                    for v, m in pmf.items():
                        old.pmf[v] = old.pmf.get(v, 0) + m
                    if len(old.pmf) > MAX_GROUP_SUPPORT:
                        want_pmf = False
                else:
                    old.pmf = None
        if not want_pmf:  # one state outgrew the cap: stop carrying distributions at all
            for acc in nxt.values():
                acc.pmf = None
        states = nxt
    (final,) = states.values()
    return final


#: Why a measure with another library's convention (norm=, gain=binary, g_max=, norel=) or trec_eval's gains= has
#: no fast spread.
NO_CONVENTION_SPREAD = (
    "has no closed-form spread over tie-breakings with another library's convention (norm=, gain=binary, "
    "g_max=, norel=) or trec_eval's gains=; tieaware.reference.worst/best/variance/distribution enumerate it"
)

#: trec_eval's measures whose spread :mod:`tieaware.fast.trec_spread` computes.
TREC_MEASURES = frozenset({"Rprec", "Success", "Judged", "Bpref"})
#: The measures whose spread over tie-breakings :func:`spread_stats` computes.

def convolve(a: dict[Any, Any], b: dict[Any, Any]) -> Optional[dict[Any, Any]]:
    """The pmf of the sum of two independent parts; None once it passes MAX_GROUP_SUPPORT values."""
    if len(b) == 1:
        ((v, _),) = b.items()
        return {u + v: pu for u, pu in a.items()}
    out: dict[Any, Any] = {}
    for u, pu in a.items():
        for v, pv in b.items():
            out[u + v] = out.get(u + v, 0) + pu * pv
        if len(out) > MAX_GROUP_SUPPORT:
            return None
    return out


class LogMoments(NamedTuple):
    """One group's arrangements, Σ value and Σ value² as coefficient maps, and its extreme values.

    A value is Σ_x c_x·φ(x) ({x: c_x}) and a square Σ_{x <= y} c_xy·φ(x)·φ(y)
    ({(x, y): c_xy}), with φ a fixed irrational function (1/log2 for binG and
    G): the moments stay exact with rational coefficients, and become sympy
    once, at the end.  *lo* and *hi* are the smallest and largest value,
    as coefficient maps.
    """

    n: int
    s1: dict[Any, Any]
    s2: dict[tuple[Any, Any], Any]
    lo: dict[Any, Any]
    hi: dict[Any, Any]


def log_group_dp(
    kinds: dict[Any, int],
    term: Callable[[int, Any, tuple[int, ...]], Optional[tuple[Any, Any]]],
    order: Callable[[dict[Any, Any], dict[Any, Any]], int],
) -> LogMoments:
    """:func:`group_dp` for values Σ c·φ(x): *term*(slot, kind, state) is (x, c) or None (adds nothing).

    *order*(a, b) compares two coefficient maps' values exactly (-1, 0, 1),
    for the minimum and maximum.

    >>> m = log_group_dp({0: 1, 1: 1}, lambda slot, kind, state: (slot + 2, kind) if kind else None, lambda a, b: 0)
    >>> m.n, sorted(m.s1.items()), sorted(m.s2.items())     # the relevant one at slot 0 (x = 2) or 1 (x = 3)
    (2, [(2, 1), (3, 1)], [((2, 2), 1), ((3, 3), 1)])
    """
    kind_order = sorted(kinds, key=repr)
    size = sum(kinds.values())
    start = tuple(0 for _ in kind_order)
    states: dict[tuple[int, ...], list[Any]] = {start: [1, {}, {}, {}, {}]}
    for slot in range(size):
        nxt: dict[tuple[int, ...], list[Any]] = {}
        for state, (n, s1, s2, lo, hi) in states.items():
            for i, kind in enumerate(kind_order):
                if state[i] == kinds[kind]:
                    continue
                got = term(slot, kind, state)
                new = state[:i] + (state[i] + 1,) + state[i + 1 :]
                a1, a2, alo, ahi = dict(s1), dict(s2), lo, hi
                if got is not None:
                    x, c = got
                    for y, cy in s1.items():  # 2·c·φ(x)·Σ: the cross terms
                        key = (x, y) if x <= y else (y, x)
                        a2[key] = a2.get(key, 0) + 2 * c * cy
                    a2[(x, x)] = a2.get((x, x), 0) + n * c * c
                    a1[x] = a1.get(x, 0) + n * c
                    alo, ahi = _plus(lo, x, c), _plus(hi, x, c)
                old = nxt.get(new)
                if old is None:
                    nxt[new] = [n, a1, a2, alo, ahi]
                    continue
                old[0] += n
                for key, v in a1.items():
                    old[1][key] = old[1].get(key, 0) + v
                for key, v in a2.items():
                    old[2][key] = old[2].get(key, 0) + v
                if order(alo, old[3]) < 0:
                    old[3] = alo
                if order(ahi, old[4]) > 0:
                    old[4] = ahi
        states = nxt
    ((n, s1, s2, lo, hi),) = states.values()
    clean = lambda d: {k: v for k, v in d.items() if v != 0}  # noqa: E731
    return LogMoments(n, clean(s1), clean(s2), clean(lo), clean(hi))


def _plus(form: dict[Any, Any], x: Any, c: Any) -> dict[Any, Any]:
    out = dict(form)
    out[x] = out.get(x, 0) + c
    return out
