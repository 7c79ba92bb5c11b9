"""Other libraries' conventions (docs/conventions.md): fast's closed forms equal the expectations.

- ``P(norm=retrieved)@k`` divides hits@k by min(k, n), a constant of the
  ranking, so its expectation is E[hits@k]/min(k, n): proved like P@k, for a
  symbolic ranking of three groups and every place the cutoff can fall
  (sympy decides min(k, n) from the assumptions of each place).
- ``P(norm=capped)@k`` divides hits@k by min(k, num_rel), a constant of the
  query: the same proof with a symbolic num_rel.
- ``AP(norm=capped)@k`` divides by min(num_rel, k), and ``AP(norm=k)@k`` by k,
  also constants: fast's
  sum equals the derived E[Σ rel(j)·P@j] over min(num_rel, k), for every tie
  structure up to a bound, with symbolic relevant counts.
- ``AP(norm=hits)@k`` divides by the relevant documents in the top k, which
  the group straddling k makes random, so the expectation of the ratio is not
  the ratio of expectations.  fast conditions on the hits h among the
  straddling group's m slots within k (the hypergeometric pmf ``hits_pmf``)
  and treats those m slots as a group of m with h relevant.  The check
  derives the expectation another way, from the exchangeability lemma: every
  set of r slots of the group is equally likely to hold its relevant members,
  so it averages, over all C(n, r) sets S, the AP given S (the groups above
  contribute their derived expectation, independent of S) divided by the
  hits given S.  Every tie structure and labelling up to a bound, every k.
- The pmf itself: ``hits_pmf(h, m, r, n)`` is the share of the C(n, r) slot
  sets with h members among the first m, for every n up to a bound.

>>> prove_ap_by_hits().proved
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations, product
from math import comb
from typing import Any, Optional

import sympy
from sympy import Eq, Min, Symbol

from tieaware.fast import kernels, measures
from tieaware.fast.groups import Group
from tieaware.proofs.average_precision import ap_cases, expected_ap
from tieaware.proofs.precision import cutoff_cases, expected_hits_at
from tieaware.proofs.theorem import GENERAL, ProofFailure, Tex, bounded, decided, same, theorem
from tieaware.model.structures import compositions

__all__ = [
    "HITS_DOCUMENTS",
    "PMF_SIZE",
    "expected_ap_by_hits",
    "prove_precision_retrieved",
    "prove_precision_capped",
    "prove_ap_capped",
    "prove_hits_pmf",
    "prove_ap_by_hits",
]

#: AP(norm=hits)@k: every tie structure and labelling of up to this many documents.
HITS_DOCUMENTS = 6
#: hits_pmf is checked for every group size n up to this.
PMF_SIZE = 10

_k = Symbol("k")
_n = Symbol("n")


@theorem(
    "P(norm=retrieved)@k",
    "E[hits@k / min(k, n)] = E[hits@k]/min(k, n), n the documents retrieved; 0 for an empty ranking.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[P_{\mathrm{retrieved}}@k]"), Tex(r"\mathbb{E}[\mathrm{hits}@k]") / Min(_k, _n), evaluate=False),
)
def prove_precision_retrieved(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits
    compose = compose or measures.precision_from
    cases = 0
    for where, summary, k in cutoff_cases():
        n = summary[-1].end
        got = compose(summary, k, number=sympy.sympify, hits=kernel, norm="retrieved")
        same(expected_hits_at(summary, k) / decided(Min(k, n), f"min(k, n), {where}"), got, f"P(norm=retrieved)@k, {where}")
        cases += 1
    if sympy.sympify(compose([], 3, number=sympy.sympify, hits=kernel, norm="retrieved")) != 0:
        raise ProofFailure("P(norm=retrieved)@k of an empty ranking is not 0")
    return f"{cases} cutoff positions in a ranking of 3 symbolic groups; the empty ranking gives 0"


@theorem(
    "P(norm=capped)@k",
    "E[hits@k / min(k, num_rel)] = E[hits@k]/min(k, num_rel), num_rel a constant of the query; 0 when num_rel is 0.",
    GENERAL,
    lambda: Eq(Tex(r"\mathbb{E}[P_{\mathrm{capped}}@k]"), Tex(r"\mathbb{E}[\mathrm{hits}@k]") / Min(_k, Tex(r"\mathrm{num\_rel}")), evaluate=False),
)
def prove_precision_capped(kernel: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    kernel = kernel or kernels.expected_hits
    compose = compose or measures.precision_from
    R = Symbol("R", integer=True, positive=True)
    cases = 0
    for where, summary, k in cutoff_cases():
        got = compose(summary, k, number=sympy.sympify, hits=kernel, norm="capped", num_rel=R)
        same(expected_hits_at(summary, k) / Min(k, R), got, f"P(norm=capped)@k, {where}")
        cases += 1
    if sympy.sympify(compose([], 3, number=sympy.sympify, hits=kernel, norm="capped", num_rel=0)) != 0:
        raise ProofFailure("P(norm=capped)@k with num_rel 0 is not 0")
    return f"{cases} cutoff positions in a ranking of 3 symbolic groups, num_rel symbolic; num_rel 0 gives 0"


@theorem(
    "AP(norm=capped)@k",
    "E[Σ rel(j)·P@j]/min(num_rel, k) and /k are fast's AP(norm=capped)@k and AP(norm=k)@k, for symbolic sizes, counts, cutoff and num_rel.",
    GENERAL,
    lambda: Eq(
        Tex(r"\mathbb{E}[AP_{\mathrm{capped}}@k]"),
        Tex(r"\mathbb{E}[\textstyle\sum_{j \le k} \mathrm{rel}(j) P@j]") / Min(Tex(r"\mathrm{num\_rel}"), _k),
        evaluate=False,
    ),
)
def prove_ap_capped(group: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None) -> str:
    compose = compose or measures.average_precision_from
    R = Symbol("R", integer=True, positive=True)
    checked = 0
    for where, sizes, k in ap_cases():
        if k is None:
            continue  # both need a cutoff
        summary, start = [], sympy.Integer(0)
        for size, rel in sizes:
            summary.append(Group(start, size, rel, None))
            start += size
        expected_sum = expected_ap(sizes, k, 1)
        for norm, divisor in (("capped", Min(R, k)), ("k", k)):
            same(expected_sum / divisor, compose(summary, k, R, number=sympy.sympify, group=group, norm=norm), f"AP(norm={norm})@k, {where}")
            checked += 1
    return f"{checked} cases of the AP@k theorem's symbolic rankings, symbolic num_rel"


@theorem(
    "hits pmf",
    f"hits_pmf(h, m, r, n) = #{{r-sets of n slots with h in the first m}}/C(n, r), every n <= {PMF_SIZE}.",
    bounded(f"n<={PMF_SIZE}"),
    lambda: Eq(
        Tex(r"\mathrm{hits\_pmf}(h, m, r, n)"),
        sympy.binomial(Symbol("m"), Symbol("h")) * sympy.binomial(_n - Symbol("m"), Symbol("r") - Symbol("h")) / sympy.binomial(_n, Symbol("r")),
        evaluate=False,
    ),
    why='hits_pmf takes numbers, not symbols (binomials of ints), so it is checked against counting the slot sets themselves, every h, m and r for n <= 10.',
)
def prove_hits_pmf(pmf: Optional[Callable[..., Any]] = None) -> str:
    pmf = pmf or kernels.hits_pmf
    cases = 0
    for n in range(1, PMF_SIZE + 1):
        for r in range(n + 1):
            sets = list(combinations(range(n), r))
            for m in range(n + 1):
                for h in range(min(r, m) + 1):
                    want = Fraction(sum(1 for s in sets if sum(1 for x in s if x < m) == h), len(sets))
                    got = pmf(h, m, r, n)
                    if got != want:
                        raise ProofFailure(f"hits_pmf({h}, {m}, {r}, {n}) = {got}, counting gives {want}")
                    cases += 1
    return f"{cases} (h, m, r, n) cases, by counting the slot sets"


@functools.lru_cache(maxsize=None)
def _expected_sum(groups: tuple[tuple[int, int], ...]) -> Fraction:
    """E[Σ rel(j)·P@j] of whole groups (size, relevant), derived from the lemmas (the AP@k theorem's derivation)."""
    exact = sympy.nsimplify(expected_ap([(sympy.Integer(n), sympy.Integer(r)) for n, r in groups], None, 1))
    return Fraction(int(exact.p), int(exact.q))


def expected_ap_by_hits(summary: list[Group], k: int) -> Fraction:
    """E[AP@k divided by the hits in the top k], derived by averaging over the straddling group's slot sets.

    The groups wholly above k contribute their derived expected sum (pair lemma,
    :func:`tieaware.proofs.average_precision.expected_ap`), the same whatever the
    straddling group does; given the set S of slots holding its relevant members,
    its own contribution and the hits are fixed numbers.
    """
    above = [g for g in summary if g.end <= k]
    cross = [g for g in summary if g.start < k < g.end]
    before = sum(int(g.relevant) for g in above)
    numerator = Fraction(0)
    if above and before:
        numerator = _expected_sum(tuple((a.size, int(a.relevant)) for a in above))
    if not cross:
        return numerator / before if before else Fraction(0)
    (g,) = cross
    m, total = k - g.start, Fraction(0)
    sets = list(combinations(range(g.size), int(g.relevant)))
    for s in sets:
        inside = sorted(x for x in s if x < m)
        hits = before + len(inside)
        if hits == 0:
            continue
        own = sum((Fraction(before + i + 1, g.start + x + 1) for i, x in enumerate(inside)), Fraction(0))
        total += (numerator + own) / hits
    return total / len(sets)


@theorem(
    "AP(norm=hits)@k",
    f"E[AP@k / hits@k] = Σ_h hits_pmf(h)·(A + Σ_slots ap_slot(j, t, B, h, m))/(B + h), every labelled tie structure of <= {HITS_DOCUMENTS} documents.",
    bounded(f"N<={HITS_DOCUMENTS}"),
    lambda: Eq(
        Tex(r"\mathbb{E}[AP_{\mathrm{hits}}@k]"),
        sympy.Sum(
            Tex(r"\mathrm{hits\_pmf}(h, m, r, n)")
            * (Tex("A") + Tex(r"\mathrm{ap\_group}(t, t+m, B, h, m)"))
            / (Symbol("B") + Symbol("h")),
            (Symbol("h"), 0, Symbol("m")),
        ),
        evaluate=False,
    ),
    why='The divisor hits@k is random when a group straddles k, so the expectation of the ratio is not a ratio of expectations and the sum over h needs numbers: every tie structure, relevant count and k up to 6 documents.',
)
def prove_ap_by_hits(
    group: Optional[Callable[..., Any]] = None, pmf: Optional[Callable[..., Any]] = None, compose: Optional[Callable[..., Any]] = None
) -> str:
    compose = compose or measures.average_precision_from
    checked = 0
    for size in range(1, HITS_DOCUMENTS + 1):
        for sizes in compositions(size):
            starts = [sum(sizes[:i]) for i in range(len(sizes))]
            for relevant in product(*(range(s + 1) for s in sizes)):
                summary = [Group(t, s, Fraction(r), None) for t, s, r in zip(starts, sizes, relevant)]
                for k in range(1, size + 2):
                    derived = expected_ap_by_hits(summary, min(k, size))
                    got = compose(summary, k, sum(relevant), number=Fraction, group=group, norm="hits", pmf=pmf)
                    if got != derived:
                        raise ProofFailure(f"AP(norm=hits)@{k} of sizes {sizes}, relevant {relevant}: fast {got}, derived {derived}")
                    checked += 1
    return f"{checked} (structure, relevant counts, k) cases up to N={HITS_DOCUMENTS}, exactly"
