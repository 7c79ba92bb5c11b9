"""trec_eval's other families: fast's closed forms and programmes equal the expectations over tie orders.

Each theorem derives the expectation from trec_eval's own loop on every
ordering (the reference layer's transcription of the m_*.c file, averaged
over every ordering consistent with the ties) and demands that fast's
function gives the same, exactly, on every tie structure up to a bound.
The gain measures are checked with the discount an **undefined positive
function D(j)** (sympy), so one check covers every discount at once, log2
included; the weighted sums of interpolated precisions with **symbolic
weights**, which covers the variance of every mean of them (11pt_avg's).
Kernels are keyword parameters, defaulting to fast's own functions, so a
wrong one is rejected (tests/test_proof_checker.py).

- ``set measures``: every ordering of a ranking holds the same documents,
  so a function of the counts is the same on every ordering (checked on
  every ordering: the tie-invariance itself) and fast's value is it.
- ``binG``: E = (1/R) Σ_groups r/(a+1) Σ_{x=0}^{a} D(1 + A + x) by the
  lemma of theorem ``Bpref`` (X uniform on 0..a).
- ``infAP``: per group, the multivariate hypergeometric counts before a
  relevant document at a uniform place; with the counts above symbolic.
- ``G``, ``ndcg_rel``, ``Rndcg``: per-group subset sums, pair moments,
  and linearity in E[DCG@c].
- ``iprec``: the suffix-maximum programme's E[M(s)], its distribution, and
  E[S], E[S²] for S = Σ_s w_s·M(s) with symbolic w_s.
- ``-M mixture``: E[f(first M)] = Σ_c P(c)·E[f(above + the kept tie
  group c)] for an undefined function f of the kept label sequence.

>>> prove_set_measures().proved
True
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import product
from typing import Any

import sympy

from tieaware import fast, reference
from tieaware.fast.interpolated import iprec_stats
from tieaware.fast.trec_eval_measures import infap_group
from tieaware.proofs.theorem import ProofFailure, Tex, bounded, same, theorem
from tieaware.reference.orderings import orderings
from tieaware.reference.trec_eval_measures import INFAP_EPSILON, counts_of, iprec_of
from tieaware.model.structures import all_tied_rankings, compositions

__all__ = [
    "SET_DOCUMENTS",
    "GAIN_DOCUMENTS",
    "IPREC_DOCUMENTS",
    "prove_set_measures",
    "prove_binary_gain",
    "prove_infap",
    "prove_g",
    "prove_ndcg_rel",
    "prove_rndcg",
    "prove_iprec",
    "prove_depth_mixture",
]

#: Tie structures of up to this many documents (four kinds) for the set measures and -M.
SET_DOCUMENTS = 4
#: Tie structures of up to this many documents for the gain measures (symbolic D).
GAIN_DOCUMENTS = 4
#: Tie structures of up to this many documents (binary) for interpolated precision.
IPREC_DOCUMENTS = 5

#: An undefined positive discount: D(j) is the weight of rank j (trec_eval's 1/log2(x) is D(x − 1)).
D = sympy.Function("D", positive=True)


def _discount(j: Any) -> Any:
    return D(sympy.Rational(j.numerator, j.denominator) if isinstance(j, Fraction) else j)


_SETS = ("retrieved", "relevant_retrieved", "judged_nonrelevant", "set_precision")
_SETS_R = ("set_recall", "set_average_precision", "set_relative_precision", "set_f", "utility")


def _relevant(r: list) -> int:
    return sum(1 for g in r for x in (g if isinstance(g, list) else [g]) if x is not None and x >= 1)


@theorem(
    "set measures",
    "Every ordering of a ranking holds the same documents, so num_ret, num_rel_ret, set_P, set_recall, set_F, "
    "set_map, set_relative_P, utility and num_nonrel_judged_ret are the same on every ordering: E = the value.",
    bounded(f"N<={SET_DOCUMENTS}, four kinds of document; invariance general"),
    lambda: sympy.Eq(Tex(r"\mathbb{E}[f(\mathrm{counts})]"), Tex(r"f(\mathrm{counts})"), evaluate=False),
    why="The invariance is general (every ordering holds the same documents, so the counts do not change); the bound limits only the check that trec_eval's counting and fast's agree, on every ranking of <= 4 documents of four kinds.",
)
def prove_set_measures(measures: Any = None) -> str:
    layer = measures or fast
    cases = 0
    for n in range(1, SET_DOCUMENTS + 1):
        for r in all_tied_rankings(n, (None, -2, 0, 1)):
            every = {tuple(counts_of(o, Fraction(1))) for o in _each(r)}
            if len(every) != 1:
                raise ProofFailure(f"the counts of {r} depend on the ordering: {every}")
            for name in _SETS:
                got, want = getattr(layer, name)(r), getattr(reference, name)(r)
                if got != want:
                    raise ProofFailure(f"{name} of {r}: fast gives {got}, every ordering {want}")
            for name in _SETS_R:
                num_rel = _relevant(r) + 1
                got, want = getattr(layer, name)(r, num_rel), getattr(reference, name)(r, num_rel)
                if got != want:
                    raise ProofFailure(f"{name} of {r}: fast gives {got}, every ordering {want}")
            cases += 1
    return f"{cases} rankings up to N={SET_DOCUMENTS} with unjudged and negative labels: one value per ranking"


def _each(r: list) -> list:
    from tieaware.reference.trec_eval_measures import each_ordering as each

    return each(r)


@theorem(
    "binG",
    "E[binG] = (1/R) Σ_groups r/(a+1) Σ_{x=0}^{a} D(1 + A + x), A the non-relevant documents above, a the group's.",
    bounded(f"N<={GAIN_DOCUMENTS + 1}, every discount D"),
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[\mathrm{binG}]"),
        sympy.Sum(Tex("r_g") / (Tex("a_g") + 1) * sympy.Sum(D(1 + Tex("A_g") + Tex("x")), (Tex("x"), 0, Tex("a_g"))), (Tex("g"), 1, Tex("G")))
        / Tex("R"),
        evaluate=False,
    ),
    why="Bpref's lemma is general; composed with m_binG.c's loop it is checked on every ordering of every ranking of <= 5 documents with an undefined discount D (every discount at once): sympy cannot sum over the orderings of a ranking of symbolic size.",
)
def prove_binary_gain(compose: Callable[..., Any] = fast.binary_gain) -> str:
    cases = 0
    for n in range(1, GAIN_DOCUMENTS + 2):
        for r in all_tied_rankings(n, (None, 0, 1)):
            for num_rel in (None, _relevant(r) + 2):
                want = reference.binary_gain(r, num_rel, discount=_discount)
                got = compose(r, num_rel, discount=_discount)
                same(want, got, f"binG of {r}, R={num_rel}", polynomial=True)
                cases += 1
    return f"{cases} (ranking, R) cases up to N={GAIN_DOCUMENTS + 1}, symbolic D"


_A, _N, _U, _T = sympy.symbols("A N U t", integer=True, nonnegative=True)


@theorem(
    "infAP",
    "E[infAP] = (1/R) Σ_groups Σ_{α,δ,s} P(α,δ,s)·(1 + (A+α+D+δ+U+s·u/(u+x))·(A+α+ε)/(A+α+D+δ+2ε))/(t+1+α+δ+s)·r.",
    bounded("group size<=4 with symbolic counts above and start; N<=4 composed"),
    lambda: sympy.Eq(Tex(r"\mathbb{E}[\mathrm{infAP}]"), Tex(r"\frac{1}{R}\sum_g \mathrm{infap\_group}_g"), evaluate=False),
    why='infap_group sums over the hypergeometric counts before a relevant member; sympy cannot sum over the orders of a group of symbolic size, so every group of <= 4 members of four kinds is checked, the counts above and the start symbolic.',
)
def prove_infap(group: Callable[..., Any] = infap_group, compose: Callable[..., Any] = fast.inferred_average_precision) -> str:
    eps = sympy.Rational(INFAP_EPSILON.numerator, INFAP_EPSILON.denominator)
    cases = 0
    # 1. One group after symbolic counts A (relevant), N (non-relevant), U (pooled unjudged) and start t.
    for size in range(1, 5):
        for r, a, u in product(range(1, size + 1), range(size + 1), range(size + 1)):
            x = size - r - a - u
            if x < 0:
                continue
            members = ["r"] * r + ["n"] * a + ["u"] * u + ["x"] * x
            from sympy.utilities.iterables import multiset_permutations

            total, count = sympy.Integer(0), 0
            for o in multiset_permutations(members):
                rel = non = unj = 0
                for q, kind in enumerate(o, start=1):
                    if kind == "r":
                        above = _A + rel + _N + non + _U + unj
                        total += (1 + above * (_A + rel + eps) / (_A + rel + _N + non + 2 * eps)) / (_T + q)
                        rel += 1
                    elif kind == "n":
                        non += 1
                    elif kind == "u":
                        unj += 1
                count += 1
            got = group((_A, _N, _U), _T, (r, a, u, x), number=sympy.sympify)
            same(total / count, got, f"infAP group (r, a, u, x) = {(r, a, u, x)}")
            cases += 1
    # 2. The composition over groups, against trec_eval's loop on every ordering.
    for n in range(1, SET_DOCUMENTS + 1):
        for r in all_tied_rankings(n, (None, -2, 0, 1)):
            got, want = compose(r), reference.inferred_average_precision(r)
            if got != want:
                raise ProofFailure(f"infAP of {r}: fast gives {got}, the mean over orderings {want}")
            cases += 1
    return f"{cases} group and ranking cases"


def _ideals(r: list):
    flat = [x for g in r for x in (g if isinstance(g, list) else [g]) if x is not None]
    return (None, flat + [2])


@theorem(
    "G",
    "E[G] = Σ_groups Σ_γ γ·(c_γ/n)·Σ_q Σ_σ P(σ | q−1 others)·D(1 + C(t+q) − S_above − γ − σ) / Σ ideal.",
    bounded(f"N<={GAIN_DOCUMENTS}, labels 0..2, every discount D"),
    lambda: sympy.Eq(Tex(r"\mathbb{E}[G]"), Tex(r"\frac{1}{I}\sum_p \mathbb{E}[g_p D(1 + C(p) - S(p))]"), evaluate=False),
    why="The subset sums S(p) are loops over a group's members, not closed forms: with an undefined discount D, every ordering of every ranking of <= 4 documents (labels 0..2) against m_G.c's loop.",
)
def prove_g(compose: Callable[..., Any] = fast.normalised_gain) -> str:
    cases = 0
    for n in range(1, GAIN_DOCUMENTS + 1):
        for r in all_tied_rankings(n, (None, 0, 1, 2)):
            for ideal in _ideals(r):
                same(reference.normalised_gain(r, ideal, discount=_discount), compose(r, ideal, discount=_discount),
                     f"G of {r}, ideal {ideal}", polynomial=True)
                cases += 1
    return f"{cases} (ranking, ideal) cases up to N={GAIN_DOCUMENTS}, symbolic D"


@theorem(
    "ndcg_rel",
    "E[ndcg_rel] = (1/P)(Σ_p E[y_p·DCG@p]/IDCG@p + (P − H)·E[DCG]/IDCG), "
    "E[y_p·g_j] = (P_g·G_g − G⁺_g)/(n(n−1)) for two slots of a group.",
    bounded(f"N<={GAIN_DOCUMENTS - 1}, labels 0..2, every discount D"),
    lambda: sympy.Eq(Tex(r"\mathbb{E}[y_p g_j]"), (Tex("P_g") * Tex("G_g") - Tex("G^+_g")) / (Tex("n") * (Tex("n") - 1)), evaluate=False),
    why="fast's ndcg_relevant is a sum of ratios of discount sums: rational functions in an undefined D(1..n) simplify slowly beyond 3 documents, so every ordering of every ranking of <= 3 documents (labels 0..2).",
)
def prove_ndcg_rel(compose: Callable[..., Any] = fast.ndcg_relevant) -> str:
    cases = 0
    for n in range(1, GAIN_DOCUMENTS):
        for r in all_tied_rankings(n, (None, 0, 1, 2)):
            for ideal in _ideals(r):
                same(reference.ndcg_relevant(r, ideal, discount=_discount), compose(r, ideal, discount=_discount),
                     f"ndcg_rel of {r}, ideal {ideal}")
                cases += 1
    return f"{cases} (ranking, ideal) cases up to N={GAIN_DOCUMENTS - 1}, symbolic D"


@theorem(
    "Rndcg",
    "E[Rndcg] = (1/K) Σ_{(c, b)} E[DCG@c]/IDCG@b over m_Rndcg.c's fixed points (c, b).",
    bounded(f"N<={GAIN_DOCUMENTS - 1}, labels 0..2, every discount D"),
    lambda: sympy.Eq(Tex(r"\mathbb{E}[\mathrm{Rndcg}]"), Tex(r"\frac{1}{K}\sum_{(c,b)} \frac{\mathbb{E}[DCG@c]}{IDCG@b}"), evaluate=False),
    why="m_Rndcg.c's points (c, b) do not depend on the ordering, but E[DCG@c]/IDCG@b is a ratio of discount sums in an undefined D(1..n) that simplifies slowly beyond 3 documents: every ordering of every ranking of <= 3 documents.",
)
def prove_rndcg(compose: Callable[..., Any] = fast.r_ndcg) -> str:
    cases = 0
    for n in range(1, GAIN_DOCUMENTS):
        for r in all_tied_rankings(n, (None, 0, 1, 2)):
            for ideal in _ideals(r):
                same(reference.r_ndcg(r, ideal=ideal, discount=_discount), compose(r, ideal=ideal, discount=_discount),
                     f"Rndcg of {r}, ideal {ideal}")
                cases += 1
    return f"{cases} (ranking, ideal) cases up to N={GAIN_DOCUMENTS - 1}, symbolic D"


@theorem(
    "iprec",
    "E[M(s)], the pmf of M(s), and E[S], E[S²] for S = Σ_s w_s·M(s), M(s) = max_{c>=s} c/pos_c, by the suffix-maximum programme.",
    bounded(f"N<={IPREC_DOCUMENTS}, symbolic weights w_s"),
    lambda: sympy.Eq(Tex(r"\mathbb{E}[M(s)]"), Tex(r"\mathbb{E}[\max_{c \geq s} c/\mathrm{pos}_c]"), evaluate=False),
    why="A maximum is not linear: the suffix-maximum programme runs over concrete groups, checked against m_iprec_at_recall.c's loop on every ordering of every binary ranking of <= 5 documents, the weights w_s symbolic.",
)
def prove_iprec(programme: Callable[..., Any] = iprec_stats) -> str:
    from tieaware.fast.interpolated import relevant_groups
    from tieaware.model.ranking import groups

    cases = 0
    for n in range(1, IPREC_DOCUMENTS + 1):
        for r in all_tied_rankings(n, (0, 1)):
            gs = groups(r)
            h = sum(1 for g in gs for x in g if x >= 1)
            if h == 0:
                continue
            ws = sympy.symbols(f"w1:{h + 1}")
            weights = {s: ws[s - 1] for s in range(1, h + 1)}
            per = [iprec_of(list(o), list(range(1, h + 1)), Fraction(1)) for o in orderings(gs)]
            count = len(per)
            stats = programme(relevant_groups(gs, Fraction(1)), weights, number=sympy.sympify, distribution=True)
            for s in range(1, h + 1):
                mean = sum((v[s - 1] for v in per), Fraction(0)) / count
                if sympy.sympify(stats.mean[s]) != sympy.Rational(mean.numerator, mean.denominator):
                    raise ProofFailure(f"E[M({s})] of {r}: the programme gives {stats.mean[s]}, the mean over orderings {mean}")
                pmf: dict = {}
                for v in per:
                    pmf[v[s - 1]] = pmf.get(v[s - 1], 0) + Fraction(1, count)
                got = {Fraction(int(sympy.fraction(k)[0]), int(sympy.fraction(k)[1])): v for k, v in stats.distribution[s].items()}
                if {k: sympy.sympify(v) for k, v in got.items()} != {k: sympy.Rational(v.numerator, v.denominator) for k, v in pmf.items()}:
                    raise ProofFailure(f"the distribution of M({s}) of {r}: {got} != {pmf}")
            sums = [sum((weights[s] * sympy.Rational(v[s - 1].numerator, v[s - 1].denominator) for s in weights), sympy.Integer(0)) for v in per]
            same(sum(sums, sympy.Integer(0)) / count, stats.weighted_mean, f"E[S] of {r}", polynomial=True)
            same(sum((x * x for x in sums), sympy.Integer(0)) / count, stats.weighted_square, f"E[S²] of {r}", polynomial=True)
            cases += 1
    return f"{cases} rankings up to N={IPREC_DOCUMENTS}: means, distributions, E[S] and E[S²] with symbolic weights"


_f = sympy.Function("f")


def _f_of(o: list) -> Any:
    return _f(*[sympy.Symbol("none") if x is None else sympy.Rational(x.numerator, x.denominator) for x in o])


def _tie_aware_f(ranking: list) -> Any:
    """E[f(ordering)] over the orderings of *ranking*, f undefined: a linear form in the f atoms."""
    from tieaware.reference.truncation import at_depth as ref_depth

    return ref_depth(_f_of, ranking, 10**9)


@theorem(
    "-M mixture",
    "E[f(first M)] = Σ_c Π_l C(n_l, c_l)/C(n, m) · E[f(groups above + one tie group with c)], for every f.",
    bounded(f"N<={SET_DOCUMENTS + 1}, every depth, f an undefined function"),
    lambda: sympy.Eq(
        Tex(r"\mathbb{E}[f(o_{1..M})]"),
        sympy.Sum(Tex(r"\frac{\prod_l \binom{n_l}{c_l}}{\binom{n}{m}}") * Tex(r"\mathbb{E}[f(\mathrm{above} + c)]"), (Tex("c"), 0, Tex("m"))),
        evaluate=False,
    ),
    why='The kept part of the crossing group is a uniformly random m-subset in random order, a sum over subsets sympy cannot form for a group of symbolic size: f an undefined function of the kept labels (every measure at once), every depth, every ranking of <= 5 documents.',
)
def prove_depth_mixture(compose: Callable[..., Any] = fast.at_depth) -> str:
    from tieaware.reference.truncation import at_depth as ref_depth

    cases = 0
    for n in range(1, SET_DOCUMENTS + 2):
        for r in all_tied_rankings(n, (None, 0, 1) if n <= SET_DOCUMENTS else (0, 1)):
            for depth in range(n + 2):
                same(ref_depth(_f_of, r, depth), compose(_tie_aware_f, r, depth), f"-M {depth} on {r}", polynomial=True)
                cases += 1
    return f"{cases} (ranking, depth) cases up to N={SET_DOCUMENTS + 1}, f undefined"
