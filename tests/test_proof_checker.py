"""A proof of the proof checker: every theorem must reject deliberately wrong kernels.

Each wrong kernel below is a plausible slip (the paper's 0/0, an off-by-one,
a forgotten cutoff, the wrong denominator).  A theorem that still said
"proved" with one of them would prove nothing.  The last tests edit a
kernel *inside fast* (monkeypatching the module global that fast's code
calls) and check that the proofs, which call fast's code, then fail.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from math import comb
import sympy

from tieaware.fast import arith, kernels
from tieaware.fast import measures as fm
from tieaware.fast import rank_biased_overlap as fast_rbo
from tieaware.fast import rbo_kernels
from tieaware.fast import variance_kernels as fv
from tieaware.fast.err import err_group, subset_means
from tieaware.fast.kernels import ap_group, ap_slot, expected_hits, first_relevant_step, pair_fraction, rr_group
from tieaware.fast.tie_spread import spread_stats
from tieaware.fast.trec_measures import bpref_from, capped_sum, success_from
from tieaware import fast
from tieaware.fast.trec_eval_measures import infap_group
from tieaware.fast import correlation as fast_corr
from tieaware.fast import corr_kernels as ck
from tieaware.fast import sampled as fast_sampled
from tieaware.proofs import THEOREMS


def wrong_pair(r, n):
    return (r - 1) / n  # (r-1)/n in place of (r-1)/(n-1)


def wrong_ap_slot(j, t, before, r, n):
    return r / n * (before + 1 + (j - t - 1) * wrong_pair(r, n)) / j


def ap_slot_singleton_ignores_before(j, t, before, r, n):
    if n == 1:
        return r / j  # forgets the relevant documents above
    return ap_slot(j, t, before, r, n)


def ap_slot_paper_parenthesis(j, t, before, r, n):
    # The seed's stray parenthesis: (before + 1)·... read as before + (1 + ...)/j.
    return r / n * (before + (1 + (j - t - 1) * pair_fraction(r, n)) / j)


def precision_divides_by_length(summary, k, *, number, hits):
    length = summary[-1].start + summary[-1].size
    return number(fm.hits_from(summary, k, hits=hits)) / min(k, length)  # "divides by n when k > n"


def hits_ignore_cutoff(m, r, n):
    return r  # the whole group counts, even the part past k


def recall_by_retrieved(summary, k, num_rel, *, number, hits):
    retrieved = sum(g.relevant for g in summary)
    return number(fm.hits_from(summary, k, hits=hits)) / retrieved


def recall_no_zero_guard(summary, k, num_rel, *, number, hits):
    return number(fm.hits_from(summary, k, hits=hits)) / num_rel if num_rel else sympy.nan


def f1_without_two(summary, k, num_rel, *, number, hits):
    return number(fm.hits_from(summary, k, hits=hits)) / (k + num_rel)


def wrong_ap_group(t, last, before, r, n):
    p = wrong_pair(r, n)  # (r-1)/n in the group's harmonic form
    return r / n * ((before + 1 - (t + 1) * p) * (sympy.harmonic(last) - sympy.harmonic(t)) + p * (last - t))


def ap_forgets_before(summary, k, num_rel, *, number, group):
    total = number(0)
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            total += group(g.start, g.start + kernels.within(g.start, g.size, k), 0, g.relevant, g.size)  # `before` never accumulates
    return total / num_rel


def harmonic_off_by_one(t, last, before, r, n):
    return ap_group(t + 1, last, before, r, n)  # the group's first rank left out


def _first_relevant_weights(r, n, slots):
    weights, none_yet = [], 1
    for x in range(1, slots + 1):
        weight, none_yet = first_relevant_step(none_yet, x, r, n)
        weights.append(weight)
    return weights


def rr_ignores_crossing_group(summary, k, *, number, group):
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            if k is not None and g.start + g.size > k:
                break  # skips the group that crosses k
            return number(group(g.start, g.relevant, g.size, g.size))
    return number(0)


def rr_counts_slots_past_k(summary, k, *, number, group):
    for g in summary:
        if k is not None and g.start >= k:
            break
        if g.relevant:
            return number(group(g.start, g.relevant, g.size, g.size))  # all n slots, even past k
    return number(0)


def rr_group_off_by_one(t, r, n, slots):
    return sum((w / (t + x + 1) for x, w in enumerate(_first_relevant_weights(r, n, slots), start=1)), 0)


def rr_step_off_by_one(total, none_yet, x, t, r, n):
    weight, still_none = kernels.first_relevant_step(none_yet, x, r, n)
    return total + weight / (t + x + 1), still_none


def step_forgets_to_carry(none_yet, x, r, n):
    weight, _ = kernels.first_relevant_step(none_yet, x, r, n)
    return weight, none_yet  # carries f(x-1) instead of f(x)


def survival_off_by_one(x, r, n):
    return 1 - r / (n - x)


def dcg_tie_oblivious(ranking, k, gain, discount):
    flat = [y for x in ranking for y in (x if isinstance(x, list) else [x])]
    return fm.dcg(flat, k, gain, discount)


def ndcg_unsorted_ideal(ranking, k, gain, discount):
    flat = [y for x in ranking for y in (x if isinstance(x, list) else [x])]
    got = fm.dcg(ranking, k, gain, discount)
    ideal = fm.dcg(flat, k, gain, discount)  # the ranking's own order, not sorted
    return got / ideal


def dcg_from_whole_groups(summary, k, *, number, discount):
    total = number(0)
    for g in summary:
        if k is not None and g.start >= k:
            break
        total += kernels.dcg_group(g.gain, g.size, g.start, g.start + g.size, discount)  # the crossing group counted whole
    return total


def ideal_runs_worst_first(gains):
    return fm.ideal_groups(list(reversed(gains)))


def rbp_whole_groups(summary, p, k, *, number, group):
    total = number(0)
    for g in summary:
        if k is not None and g.start >= k:
            break
        total += group(p, g.start, g.start + g.size, g.relevant, g.size)  # the crossing group counted whole
    return total


def extremes_swapped(m, ranking):
    s = spread_stats(m, ranking)
    return s.best, s.worst


def extremes_of_the_ranking_as_given(m, ranking):
    from tieaware import fast
    from tieaware.model.dispatch import measure_value

    flat = [y for x in ranking for y in (x if isinstance(x, list) else [x])]
    value = measure_value(fast, m, flat)
    return value, value


def rbp_variance_binomial(p, t, e, r, n):
    w1 = kernels.rbp_group(p, t, e, 1, 1)
    return r / n * (1 - r / n) * w1 * w1  # the hits' binomial variance on the total weight, no rank statistic


class ExactSplitSlip(arith.Exact):
    """Exact arithmetic whose harmonic spans of over 16 ranks lose their last term (a slip in binary splitting)."""

    @staticmethod
    def harmonic(lo, hi):
        return arith.Exact.harmonic(lo, hi - 1 if hi - lo > 16 else hi)


def contribution_off_by_one(t, b, d):
    return (d - t) / (b - t + 1)


def contribution_wrong_branch(t, b, d):
    if d <= t:  # should be d < t: the group's top rank is already at depth d
        return 0
    return rbo_kernels.contribution(t, b, d)


def overlap_without_both_crossing(both_active, s_crossing, l_crossing, both_crossing, c_S, c_L):
    return both_active + c_S * s_crossing + c_L * l_crossing


def overlap_sum_not_product(both_active, s_crossing, l_crossing, both_crossing, c_S, c_L):
    return both_active + c_S * s_crossing + c_L * l_crossing + (c_S + c_L) / 2 * both_crossing


def seen_w_without_crossing(variant, both_active, s_crossing, l_crossing, both_crossing, t_S, b_S, t_L, b_L, d):
    if variant == "w":  # sports overlap that forgets the crossed groups, over the right denominator
        return rbo_kernels.ratio(2 * both_active, b_S + b_L), ()
    return rbo_kernels.seen_agreement(variant, both_active, s_crossing, l_crossing, both_crossing, t_S, b_S, t_L, b_L, d)


def seen_b_with_s_twice(variant, both_active, s_crossing, l_crossing, both_crossing, t_S, b_S, t_L, b_L, d):
    x, radicands = rbo_kernels.seen_agreement(variant, both_active, s_crossing, l_crossing, both_crossing, t_S, b_S, t_L, b_L, d)
    return (x, (radicands[0], radicands[0])) if radicands else (x, radicands)  # √Σc_S² twice


def seen_a_over_d_plus_one(variant, *args):
    x, radicands = rbo_kernels.seen_agreement(variant, *args)
    d = args[-1]
    return (x * d / (d + 1), radicands) if variant == "a" else (x, radicands)


def unseen_max_all_crossing(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, expected=False):
    # MAX matching S's unseen items with L's crossed group first (U_d sorted the wrong way)
    return rbo_kernels.unseen_terms(variant, both_active, l_crossing, t_L, b_L, d, s, 0, unique_active + unique_crossing, a_s, expected) \
        ._replace(min=rbo_kernels.unseen_terms(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, expected).min)


def unseen_ext_without_mean(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, expected=False):
    # Webber's EXT: a matched L item counts 1 even in the paper's a-variant
    real = rbo_kernels.unseen_terms(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, expected)
    ones = rbo_kernels.unseen_terms(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, True)
    return real._replace(ext=ones.ext)


def unseen_res_is_max(variant, *args, **kwargs):
    real = rbo_kernels.unseen_terms(variant, *args, **kwargs)
    return real._replace(res=real.max)  # RES = MAX, not MAX - MIN


def unseen_w_over_2d(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, expected=False):
    real = rbo_kernels.unseen_terms(variant, both_active, l_crossing, t_L, b_L, d, s, unique_active, unique_crossing, a_s, expected)
    if variant != "w":
        return real
    fix = lambda terms: tuple((c * (d + b_L) / (2 * d), r) for c, r in terms)  # noqa: E731  denominator 2d, not d + |L_:d|
    return rbo_kernels.DepthTerms(fix(real.min), fix(real.max), fix(real.ext), fix(real.res))


def unseen_paper_for_expected(variant, *args):
    return rbo_kernels.unseen_terms(variant, *args[:-1], False)  # the paper's c_L where the expectation counts 1


def unseen_min_with_unseen(variant, *args):
    real = rbo_kernels.unseen_terms(variant, *args)
    return real._replace(min=real.ext)  # MIN that extrapolates


def past_max_span_one_short(bound, l, s, x_l, a_s):
    pieces = rbo_kernels.third_section(bound, l, s, x_l, a_s)
    if bound != "max":
        return pieces
    span, tail = pieces
    return (span._replace(hi=span.hi - 1), tail)  # the last depth before f left out


def past_min_from_l(bound, l, s, x_l, a_s):
    return rbo_kernels.third_section(bound, l - 1, s, x_l, a_s) if bound == "min" else rbo_kernels.third_section(bound, l, s, x_l, a_s)


def past_ext_l_minus_s_plus_one(bound, l, s, x_l, a_s):
    if bound != "ext":
        return rbo_kernels.third_section(bound, l, s, x_l, a_s)
    return (rbo_kernels.Tail(rbo_kernels.ratio(x_l, l), 0, l + 1), rbo_kernels.Tail(a_s[0] * (l - s + 1) / l, 0, l + 1, a_s[1]))


def series_tail_span_to_start(a, b, start, p):
    g, log, span = rbo_kernels.series_tail(a, b, start, p)
    return g, log, span._replace(hi=start)  # subtracts the term at d = start as well


def series_tail_without_one_minus_p(a, b, start, p):
    g, log, span = rbo_kernels.series_tail(a, b, start, p)
    return a, log, span  # Σ_{d>=m} p^d taken as p^m


def terms_forgetting_crossing_unique(S, L, variant, expected, number=int):
    # fast's series with L's crossed group never offering items missing from S to the unseen ones
    real = fast_rbo._scan
    def scan(S_, L_):
        for depth in real(S_, L_):
            yield depth._replace(unique_crossing=0) if depth.unique_active else depth
    try:
        fast_rbo._scan = scan
        return fast_rbo._terms(S, L, variant, expected, number)
    finally:
        fast_rbo._scan = real


def terms_expected_as_paper(S, L, variant, expected, number=int):
    return fast_rbo._terms(S, L, variant, False, number)


def terms_a_s_one_depth_early(S, L, variant, expected, number=int):
    terms = fast_rbo._terms(S, L, variant, expected, number)
    if terms.s < 2:
        return terms
    a_s = terms.depths[terms.s - 2][1].min[0]  # the agreement at s - 1
    tails = {b: rbo_kernels.third_section(b, terms.l, terms.s, terms.x_l, a_s) for b in terms.tails}
    return terms._replace(tails=tails)


def hits_variance_binomial(m, r, n):
    return m * r * (n - r) / (n * n)  # sampling with replacement: no finite-population factor (n-m)/(n-1)


def hits_variance_n_cubed(m, r, n):
    return m * r * (n - r) * (n - m) / (n * n * n)  # n³ in place of n²(n-1)


def hits_variance_unguarded(m, r, n):
    return m * r * (n - r) * (n - m) / (n * n * (n - 1))  # 0/0 for a singleton group


def hits_variance_from_whole_groups(summary, k, *, hits=None):
    total = 0
    for g in summary:
        if g.start >= k:
            break
        total = total + fv.hits_variance(g.size if g.end <= k else k - g.start + 1, g.relevant, g.size)  # one slot too many when crossing
    return total


def hoeffding_over_n(x_spread, w1, w2, n):
    return x_spread * (w2 - w1 * w1 / n) / n  # divides by n, not n - 1


def hoeffding_uncentred(x_spread, w1, w2, n):
    return 0 if n == 1 else x_spread * w2 / (n - 1)  # Σw² in place of Σ(w - w̄)²


def rr_variance_unsquared_mean(t, n, r, k):
    mean, second = fv.rr_moments(t, n, r, k)
    return second - mean  # the mean where its square belongs


def rr_variance_squares_the_terms(t, n, r, k):
    slots = n if k is None else min(n, max(0, k - t))
    ws = _first_relevant_weights(r, n, slots)
    second = sum((w / (t + s) ** 2 for s, w in enumerate(ws, start=1)), 0)
    return second - sum(((w / (t + s)) ** 2 for s, w in enumerate(ws, start=1)), 0)  # Σ(P/(t+s))², not (ΣP/(t+s))²


def rr_moment_step_off_by_one(mean, second, none_yet, x, t, r, n):
    return fv.rr_moment_step(mean, second, none_yet, x, t + 1, r, n)


def rr_moments_mean_as_second(t, n, r, k):
    mean, _ = fv.rr_moments(t, n, r, k)
    return mean, mean  # E[RR] reported as E[RR²] (as if RR² = RR)


def _ap_variance_variant(c, r, b, *, p3_is_p2=False, plus_one=1, overlap=2):
    """ap_weighted_variance retyped with one slip switched on."""
    n = len(c)
    p1, p2, p3, p4 = (fv.all_relevant(r, n, j) for j in (1, 2, 3, 4))
    if p3_is_p2:
        p3 = p2
    a = [(b + plus_one) * x for x in c]
    a1, a2 = sum(a, 0), sum((x * x for x in a), 0)
    w = sum((s * c[s] for s in range(n)), 0)
    n2 = sum((s * c[s] * c[s] for s in range(n)), 0)
    cross = sum((s * c[s] * a[s] + c[s] * sum(a[:s], 0) for s in range(n)), 0)
    n1 = sum(((i * c[i] + sum(c[i + 1 :], 0)) ** 2 for i in range(n)), 0) - overlap * n2
    mean = p1 * a1 + p2 * w
    return p1 * a2 + p2 * (a1 * a1 - a2) + 2 * (p3 * a1 * w + (p2 - p3) * cross) + p4 * w * w + (p3 - p4) * n1 + (p2 - p4) * n2 - mean * mean


def ap_variance_p2_for_p3(c, r, b):
    return _ap_variance_variant(c, r, b, p3_is_p2=True)


def ap_variance_forgets_plus_one(c, r, b):
    return _ap_variance_variant(c, r, b, plus_one=0)  # a_s = b·c_s: forgets the document's own hit


def ap_variance_shared_pairs_once(c, r, b):
    return _ap_variance_variant(c, r, b, overlap=1)  # N1 = ΣD² - N2: pairs of equal pairs counted once too many


def ap_group_variance_ignores_k(t, n, r, b, k):
    return fv.ap_group_variance(t, n, r, b, None)


def qap_without_mixed_term(g, pos, item):
    # The covariance of the linear and the pairwise parts forgotten.
    zero = 0 * pos.row_v
    return ck.permutation_variance(g, pos._replace(row_v=zero, col_v=zero, v=zero, v2=zero), item) + ck.permutation_variance(
        g, pos._replace(a=zero, a2=zero, row2=zero, col2=zero, row_col=zero, row_v=zero, col_v=zero), item
    )


def ap_group_forgets_before(t, last, before, r, n):
    return kernels.ap_group(t, last, 0, r, n)  # the relevant documents above the group are forgotten


def precision_retrieved_by_k(summary, k, *, number, hits, norm):
    return fm.precision_from(summary, k, number=number, hits=hits)  # forgets min(k, n)


def precision_capped_by_k(summary, k, *, number, hits, norm, num_rel):
    return fm.precision_from(summary, k, number=number, hits=hits)  # divides by k, not min(k, num_rel)


def sampled_without_limit(m, above, equal, below, level, limit=None):
    return fast_sampled.over_sample(m, above, equal, below, level)  # the cutoff limit on x forgotten


def ap_capped_by_k(summary, k, num_rel, *, number, group, norm):
    return fm.average_precision_from(summary, k, num_rel, number=number, group=group, norm="k")  # k, not min(R, k)


def ap_hits_ratio_of_means(summary, k, num_rel, *, number, group, norm, pmf):
    # E[numerator]/E[hits]: the ratio of expectations, not the expectation of the ratio
    total = fm.average_precision_from(summary, k, 1, number=number, group=group)
    hits = fm.hits_from(summary, k if k is not None else summary[-1].end)
    return number(0) if hits == 0 else total / hits
# -- trec_eval's other families (proofs/trec_eval_families.py) --------------------------------


def _untied(r):
    """The ranking with its ties broken in the given order: the tie-oblivious slip."""
    return [x for g in r for x in (g if isinstance(g, list) else [g])]


def set_precision_at_half(r, **kw):
    flat = _untied(r)
    half = flat[: max(1, len(flat) // 2)]
    return Fraction(sum(1 for x in half if x is not None and x >= 1), len(half))


def _set_measures_with(**replaced):
    import types

    from tieaware import fast as fast_layer

    return types.SimpleNamespace(**{**{n: getattr(fast_layer, n) for n in fast_layer.__all__}, **replaced})


def iprec_relevant_first(groups, weights, **kw):
    from tieaware.fast.interpolated import iprec_stats

    return iprec_stats([(t, r, r) for t, n, r in groups], weights, **kw)  # every group's relevant documents first


def depth_first_members(measure, r, depth):
    from tieaware.fast.truncation import cut_groups

    above, crossing, m = cut_groups(r, depth)
    return measure([list(g) for g in above] + ([list(crossing[:m])] if crossing else []))  # the first m as listed


WRONG = [
    ("P(norm=retrieved)@k", {"compose": precision_retrieved_by_k}),
    ("P(norm=capped)@k", {"compose": precision_capped_by_k}),
    ("sampled expectation", {"kernel": sampled_without_limit}),
    ("AP(norm=capped)@k", {"compose": ap_capped_by_k}),
    ("AP(norm=capped)@k", {"group": ap_group_forgets_before}),
    ("hits pmf", {"pmf": lambda h, m, r, n, number=None: Fraction(comb(m, h) * comb(n - m, r - h), comb(n, r) + 1)}),
    ("hits pmf", {"pmf": lambda h, m, r, n, number=None: Fraction(comb(r, h), 2**r)}),  # binomial, not hypergeometric
    ("AP(norm=hits)@k", {"compose": ap_hits_ratio_of_means}),
    ("AP(norm=hits)@k", {"pmf": lambda h, m, r, n, number=None: Fraction(1, min(r, m) + 1)}),  # uniform hits
    ("AP(norm=hits)@k", {"group": ap_group_forgets_before}),
    ("exchangeability", {"kernel": lambda m, r, n: m * r / (n + 1)}),
    ("exchangeability", {"kernel": lambda m, r, n: (m + 1) * r / n}),
    ("pair", {"pair": wrong_pair}),
    ("pair", {"pair": lambda r, n: r / n}),
    ("pair", {"pair": lambda r, n: (r - 1) / (n - 1)}),  # the paper's 0/0 at n = 1, unguarded
    ("hypergeometric mean", {"kernel": lambda m, r, n: m * r / n + (m - 1) * 0 + 1 - 1 + m / n}),
    ("hypergeometric mean", {"kernel": lambda m, r, n: (m - 1) * r / n}),
    ("first relevant (recursion)", {"step": survival_off_by_one}),
    ("first relevant (recursion)", {"step": lambda x, r, n: 1 - r / n}),  # with replacement
    ("first relevant weights", {"step": lambda none_yet, x, r, n: (none_yet * r / (n - x + 1), none_yet * (1 - r / n))}),  # carries with replacement
    ("first relevant weights", {"step": step_forgets_to_carry}),
    ("P@k", {"compose": precision_divides_by_length}),
    ("P@k", {"kernel": hits_ignore_cutoff}),
    ("P@k", {"kernel": lambda m, r, n: m * r / (n + 1)}),
    ("R@k", {"compose": recall_by_retrieved}),
    ("R@k", {"compose": recall_no_zero_guard}),
    ("R@k", {"kernel": hits_ignore_cutoff}),
    ("F1@k", {"compose": f1_without_two}),
    ("F1@k", {"kernel": hits_ignore_cutoff}),
    ("AP slot", {"slot": wrong_ap_slot}),
    ("AP slot", {"slot": ap_slot_singleton_ignores_before}),
    ("AP slot", {"slot": ap_slot_paper_parenthesis}),
    ("AP harmonic sum", {"group": harmonic_off_by_one}),
    ("AP harmonic sum", {"group": wrong_ap_group}),
    ("AP@k", {"group": wrong_ap_group}),
    ("AP@k", {"compose": ap_forgets_before}),
    ("RR group", {"group": rr_group_off_by_one}),
    ("RR group", {"step": rr_step_off_by_one}),
    ("RR@k", {"compose": rr_ignores_crossing_group}),
    ("RR@k", {"compose": rr_counts_slots_past_k}),
    ("RR@k", {"group": rr_group_off_by_one}),
    ("DCG slot", {"mean": lambda total, n: total / (n + 1)}),
    ("DCG slot", {"mean": lambda total, n: total}),
    ("DCG@k", {"dcg": dcg_tie_oblivious}),
    ("DCG@k", {"compose": dcg_from_whole_groups}),
    ("nDCG@k", {"ndcg": ndcg_unsorted_ideal}),
    ("nDCG@k", {"ideal": ideal_runs_worst_first}),
    ("RBO contribution", {"crossing": contribution_off_by_one}),
    ("RBO contribution", {"piecewise": contribution_wrong_branch}),
    ("RBO^a agreement", {"kernel": overlap_without_both_crossing}),
    ("RBO^a agreement", {"kernel": overlap_sum_not_product}),
    ("RBO^a agreement", {"crossing": contribution_off_by_one}),
    ("RBO agreement d <= s", {"agreement": seen_w_without_crossing}),
    ("RBO agreement d <= s", {"agreement": seen_b_with_s_twice}),
    ("RBO agreement d <= s", {"agreement": seen_a_over_d_plus_one}),
    ("RBO agreement s < d <= l", {"kernel": unseen_max_all_crossing}),
    ("RBO agreement s < d <= l", {"kernel": unseen_ext_without_mean}),
    ("RBO agreement s < d <= l", {"kernel": unseen_res_is_max}),
    ("RBO agreement s < d <= l", {"kernel": unseen_w_over_2d}),
    ("RBO past l", {"kernel": past_max_span_one_short}),
    ("RBO past l", {"kernel": past_min_from_l}),
    ("RBO past l", {"kernel": past_ext_l_minus_s_plus_one}),
    ("RBO series tail", {"kernel": series_tail_span_to_start}),
    ("RBO series tail", {"kernel": series_tail_without_one_minus_p}),
    ("RBO scan", {"terms": terms_forgetting_crossing_unique}),
    ("RBO scan", {"terms": terms_expected_as_paper}),
    ("RBO scan", {"terms": terms_a_s_one_depth_early}),
    ("RBO expected", {"kernel": unseen_paper_for_expected}),  # the paper's MAX/EXT are not the expectation
    ("RBO expected", {"seen": seen_a_over_d_plus_one}),
    ("RBO expected", {"past": past_max_span_one_short}),
    ("RBO^a MIN", {"kernel": unseen_min_with_unseen}),
    ("RBO^a MAX, EXT vs E", {"kernel": unseen_paper_for_expected}),  # no difference at all
    ("RBO^a MAX, EXT vs E", {"kernel": unseen_ext_without_mean}),  # EXT's difference gone
    ("RBP group", {"group": lambda p, t, e, r, n: r / n * (p**t - p ** (e + 1))}),  # one rank too many
    ("RBP@k", {"group": lambda p, t, e, r, n: r / n * (p**t - p ** (e + 1))}),  # one rank too many
    ("RBP@k", {"compose": rbp_whole_groups}),
    ("exact arithmetic", {"exact": ExactSplitSlip()}),
    ("extremes", {"extremes": extremes_swapped}),  # the sort the wrong way round
    ("extremes", {"extremes": extremes_of_the_ranking_as_given}),  # no sort: the ranking's own order
    ("Var RBP", {"squares": lambda p, t, e: (1 - p) / (1 + p) * (p ** (2 * t) - p ** (2 * e + 2))}),  # one rank too many
    ("Var RBP", {"kernel": rbp_variance_binomial}),
    ("ERR group", {"group": lambda t, s, x, num: err_group(t - 1, s, x, num)}),  # ranks shifted up by one
    ("ERR subset mean", {"step": lambda here, below, q, size, m: (m * here + (size + 1 - m) * q * below) / (size + 1)}),  # weights swapped
    ("ERR subset mean", {"step": lambda here, below, q, size, m: ((size + 1 - m) * here + m * q * below) / (size + 2)}),  # one member too many
    ("ERR subset mean", {"means": lambda keeps, top, plain, number: subset_means(keeps, top, 0, number)}),  # the plain members forgotten
    ("Success@k", {"kernel": lambda m, r, n, choose=comb: ((n - r) / n) ** m}),  # drawn with replacement
    ("Success@k", {"kernel": lambda m, r, n, choose=comb: choose(n - r, m + 1) / choose(n, m + 1)}),  # one slot too many
    ("Success@k", {"kernel": lambda m, r, n, choose=comb: choose(n - r, m) / choose(n, r)}),  # C(n-r, m)/C(n, r)
    ("Success@k", {"compose": lambda summary, k, number, kernel: 1 - kernel(min(summary[0].size, k), summary[0].relevant, summary[0].size)}),  # first group only
    ("Success@k", {"compose": lambda summary, k, number, kernel: success_from([g for g in summary if g.end <= k], k, number=number, kernel=kernel)}),  # the group crossing k left out
    ("Bpref", {"kernel": lambda above, a, big_r: (a + 1) * above + a * (a + 1) / 2}),  # min(., R) cap forgotten
    ("Bpref", {"kernel": lambda above, a, big_r: (a + 1) * big_r if above >= big_r else (a + 1) * above}),  # ties resolved optimistically (X = 0)
    ("Bpref", {"kernel": lambda above, a, big_r: capped_sum(above, a + 1, big_r) - big_r}),  # a + 1 judged non-relevant in place of a, less R
    ("Bpref", {"compose": lambda counts, big_r, big_n, number, kernel: bpref_from(counts, big_r, big_r, number=number, kernel=kernel)}),  # divides by R, not min(R, N)
    ("Bpref", {"compose": lambda counts, big_r, big_n, number, kernel: bpref_from([(r, 0) for r, _ in counts[:1]] + list(counts[1:]), big_r, big_n, number=number, kernel=kernel)}),  # first group's own non-relevant ignored
    ("Var P@k", {"kernel": hits_variance_binomial}),
    ("Var P@k", {"kernel": hits_variance_n_cubed}),
    ("Var P@k", {"kernel": hits_variance_unguarded}),
    ("Var P@k", {"compose": hits_variance_from_whole_groups}),
    ("Var DCG@k", {"kernel": hoeffding_over_n}),
    ("Var DCG@k", {"kernel": hoeffding_uncentred}),
    ("Var RR", {"variance": rr_variance_unsquared_mean}),
    ("Var RR", {"variance": rr_variance_squares_the_terms}),
    ("Var RR", {"step": rr_moment_step_off_by_one}),
    ("Var RR", {"moments": rr_moments_mean_as_second}),
    ("Var AP", {"weighted": ap_variance_p2_for_p3}),
    ("Var AP", {"weighted": ap_variance_forgets_plus_one}),
    ("Var AP", {"weighted": ap_variance_shared_pairs_once}),
    ("Var AP", {"group": ap_group_variance_ignores_k}),
    ("τ_a = E[τ]", {"kernel": lambda n0, n1, n2, n3, d: n0 - n1 - n2 - 2 * d}),  # pairs tied in both subtracted twice
    ("τ_a = E[τ]", {"kernel": lambda n0, n1, n2, n3, d: n0 - 2 * d}),  # tied pairs counted as concordant
    ("E[τ_AP]", {"within": lambda p, g, one: 2 * ck.within_group(p, g, one)}),  # a pair inside a group always concordant
    ("E[τ_AP]", {"within": lambda p, g, one: ck.within_group(p + 1, g, one)}),  # slots one rank off
    ("E[τ_AP]", {"expected": lambda x, y: fast_corr.tau_ap_expected(y, x)}),  # reference and estimate swapped
    ("Var τ", {"kernel": lambda t: t * (t - 1) * (2 * t + 3)}),
    ("Var τ", {"variance": lambda x, y: 2 * fast_corr.kendall_tau_variance(x, y)}),
    ("Var τ_AP", {"kernel": qap_without_mixed_term}),
    ("Var τ_AP", {"cell": lambda above, m, g, w0, w1, w2: 12 * ck.cell_spread(above, m, g, w0, w1, w2)}),  # without the 1/12
    ("Var τ_AP", {"cell": lambda above, m, g, w0, w1, w2: ck.cell_spread(above, m, g, w0, w1, 0 * w2)}),  # pairs of cell-mates forgotten
    ("Var τ_AP", {"variance": lambda x, y: fast_corr.tau_ap_variance(y, x)}),
    ("τ, τ_AP extremes", {"gain": lambda k, lead, one: ck.slot_weight(k + 1, one) + (ck.slot_weight(k, one) - ck.slot_weight(k + 1, one)) * lead}),
    ("τ, τ_AP extremes", {"tau_ap_range": lambda x, y: fast_corr.tau_ap_range(y, x)}),
    ("τ, τ_AP extremes", {"tau_range": lambda x, y: fast_corr.kendall_tau_range(x, y)._replace(min=0 * fast_corr.kendall_tau(x, y, "a"))}),
    ("set measures", {"measures": _set_measures_with(set_precision=set_precision_at_half)}),
    ("binG", {"compose": lambda r, num_rel, discount: fast.binary_gain(r, None, discount=discount)}),  # R ignored
    ("binG", {"compose": lambda r, num_rel, discount: fast.binary_gain(_untied(r), num_rel, discount=discount)}),
    ("infAP", {"group": lambda above, t, kinds, number: infap_group(above, t + 1, kinds, number=number)}),  # rank off by one
    ("G", {"compose": lambda r, ideal, discount: fast.normalised_gain(_untied(r), ideal, discount=discount)}),
    ("ndcg_rel", {"compose": lambda r, ideal, discount: fast.ndcg_relevant(_untied(r), ideal, discount=discount)}),
    ("Rndcg", {"compose": lambda r, ideal, discount: fast.r_ndcg(_untied(r), ideal=ideal, discount=discount)}),
    ("iprec", {"programme": iprec_relevant_first}),
    ("-M mixture", {"compose": depth_first_members}),
    ("prefs", {"order": lambda above, below, number: number(1) if above <= below else number(0)}),  # ties fulfilled
    ("prefs", {"share": lambda first, second, number: number(first) / (first + second)}),  # the tie's first order only
    ("prefs_Rnonrel", {"kernel": lambda above, tied, k, number: number(k) - number(min(k, above))}),  # tied members ignored
    ("prefs_Rnonrel", {"kernel": lambda above, tied, k, number: number(k) - number(capped_sum(above, tied, k)) / tied}),
    ("prefs_Rnonrel", {"precedes": lambda tied, kept, number: number(kept) / (2 * (tied + 1))}),  # the kept one's place from 0
]


@pytest.mark.parametrize("name, kernels", WRONG, ids=[f"{n}-{i}" for i, (n, _) in enumerate(WRONG)])
def test_wrong_kernel_is_rejected(name, kernels):
    result = THEOREMS[name](**kernels)
    assert not result.proved, f"{name} accepted a wrong kernel: {result.detail}"
    assert result.detail


def test_every_theorem_has_a_wrong_kernel():
    assert {name for name, _ in WRONG} == set(THEOREMS)


def test_real_kernels_passed_explicitly_are_accepted():
    # The same call shape with the true kernels proves: the rejections above are about the kernels.
    assert THEOREMS["pair"](hits=expected_hits, pair=pair_fraction).proved
    assert THEOREMS["AP slot"](slot=ap_slot).proved
    assert THEOREMS["RR group"](group=rr_group).proved
    assert THEOREMS["P@k"](kernel=expected_hits, compose=fm.precision_from).proved


# -- editing a kernel inside fast breaks the proofs that go through fast's code -----------


def test_editing_pair_fraction_in_fast_breaks_the_ap_proofs(monkeypatch):
    monkeypatch.setattr(kernels, "pair_fraction", wrong_pair)  # ap_slot calls the module global
    assert not THEOREMS["AP slot"]().proved
    assert not THEOREMS["AP@k"]().proved


def test_editing_mean_gain_in_fast_breaks_the_dcg_proofs(monkeypatch):
    monkeypatch.setattr(kernels, "mean_gain", lambda total, n: total / (n + 1))  # fast.dcg's dcg_group calls the module global
    assert not THEOREMS["DCG@k"]().proved
    assert not THEOREMS["nDCG@k"]().proved


def test_editing_survival_step_in_fast_breaks_the_rr_proofs(monkeypatch):
    monkeypatch.setattr(kernels, "survival_step", survival_off_by_one)
    assert not THEOREMS["first relevant weights"]().proved
    assert not THEOREMS["RR group"]().proved
    assert not THEOREMS["Var RR"]().proved


def test_editing_hits_variance_in_fast_breaks_the_variance_proof(monkeypatch):
    # The theorem looks the kernel up when it runs (as hits_variance_from and the spread engine do), so the
    # swapped kernel fails its own identity first.
    real = fv.hits_variance
    monkeypatch.setattr(fv, "hits_variance", hits_variance_binomial)
    result = THEOREMS["Var P@k"]()
    assert not result.proved and "Var[hits in m slots of a group]" in result.detail
    # ... and fast's sum over the groups (hits_variance_from) calls the swapped module global too.
    result = THEOREMS["Var P@k"](kernel=real)
    assert not result.proved and "Var[hits@k]" in result.detail


def test_editing_all_relevant_in_fast_breaks_the_ap_variance_proof(monkeypatch):
    real = fv.all_relevant
    monkeypatch.setattr(fv, "all_relevant", lambda r, n, j: real(r, n, min(j, 2)))  # p3 = p4 = p2
    assert not THEOREMS["Var AP"]().proved


def test_real_variance_kernels_passed_explicitly_are_accepted():
    assert THEOREMS["Var P@k"](kernel=fv.hits_variance, compose=fv.hits_variance_from).proved
    assert THEOREMS["Var DCG@k"](kernel=fv.rank_statistic_variance).proved
    assert THEOREMS["Var AP"](weighted=_ap_variance_variant).proved  # the retyped formula with no slip


def test_a_rejection_names_the_case():
    detail = THEOREMS["P@k"](compose=precision_divides_by_length).detail
    assert "k past the end of the ranking" in detail


def test_counterexample_values():
    # The smallest case where the paper's RBO^a is not the expectation (docs/rbo.md): S = <a>, L = <a [x y]>, p = 1/2.
    detail = THEOREMS["RBO^a MAX, EXT vs E"]().detail
    assert "expectation 1" in detail and str(Fraction(15, 16)) in detail


def test_editing_the_overlap_kernel_in_fast_breaks_the_rbo_proofs(monkeypatch):
    monkeypatch.setattr(rbo_kernels, "overlap", overlap_sum_not_product)  # seen_agreement and unseen_terms call it
    for name in ("RBO agreement d <= s", "RBO scan", "RBO expected"):
        assert not THEOREMS[name]().proved, name


def test_editing_the_contribution_kernel_in_fast_breaks_the_rbo_proofs(monkeypatch):
    monkeypatch.setattr(rbo_kernels, "crossing_contribution", contribution_off_by_one)
    for name in ("RBO agreement d <= s", "RBO agreement s < d <= l", "RBO scan", "RBO^a MAX, EXT vs E"):
        assert not THEOREMS[name]().proved, name


def test_editing_an_rbo_kernel_changes_what_fast_computes(monkeypatch):
    # fast.rbo looks its kernels up in rbo_kernels' module when it runs: the proved functions are the ones it calls.
    before = fast_rbo.rbo_bounds(["a", ("b", "c")], ["c", "a", "x", "b"], "1/2", variant="b")
    monkeypatch.setattr(rbo_kernels, "measurable_squares", lambda t, b, d: (t - 1) + rbo_kernels.ratio((d - t + 1) ** 2, b - t + 2))
    after = fast_rbo.rbo_bounds(["a", ("b", "c")], ["c", "a", "x", "b"], "1/2", variant="b")
    assert before != after
    assert not THEOREMS["RBO agreement d <= s"]().proved


def test_editing_a_kernel_in_fast_correlation_breaks_its_proof(monkeypatch):
    # fast.correlation looks each kernel up in tieaware.fast.corr_kernels when it calls it.
    within, cell, term = ck.within_group, ck.cell_spread, ck.kendall_tie_term
    monkeypatch.setattr(ck, "within_group", lambda p, g, one: within(p + 1, g, one))
    assert not THEOREMS["E[τ_AP]"]().proved
    monkeypatch.undo()
    monkeypatch.setattr(ck, "cell_spread", lambda *args: 12 * cell(*args))
    assert not THEOREMS["Var τ_AP"]().proved
    monkeypatch.undo()
    monkeypatch.setattr(ck, "kendall_tie_term", lambda t: t * (t - 1) * (2 * t + 3))
    assert not THEOREMS["Var τ"]().proved
    monkeypatch.undo()
    assert THEOREMS["Var τ"]().proved and THEOREMS["E[τ_AP]"]().proved
