"""The leaderboard's pairs: system A against system B, the test, its bounds over tie-breakings, the flip probability.

Each pair's expected, smallest and largest mean difference, the paired
test on the expected per-query values (:mod:`tieaware.runs.significance`),
bounds on its p-value over every joint tie-breaking (enumerated when the
joint outcomes are few, certified otherwise), and the probability that a
tie-breaking flips the verdict (exact, decided by the bounds, or Monte
Carlo through :class:`tieaware.runs.board_draws.Draws`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.model.exact import Exact, to_float
from tieaware.model.names import Measure
from tieaware.runs import significance as sig
from tieaware.runs.board_columns import Column, mean_difference, sign_near
from tieaware.runs.board_draws import Draws

__all__ = ["PairResult", "pair_results", "pair_supports"]


@dataclass(frozen=True)
class PairResult:
    """System A against system B on one measure, over every joint tie-breaking of both (exact values as in :class:`tieaware.runs.standings.Standing`)."""

    measure: str
    a: str
    b: str
    #: Expected means, E[mean A − mean B], and its smallest and largest value over tie-breakings.
    mean_a: Exact
    mean_b: Exact
    expected_difference: Exact
    min_difference: Exact
    max_difference: Exact
    #: "every", "some" or "none": A's mean is above B's for every tie-breaking, some, or none.
    order: str
    #: The test's name, or None (no test asked: the fields below are None).
    test: Optional[str] = None
    #: The test on the per-query expected values, and its bounds over every joint tie-breaking.
    p_value: Optional[float] = None
    p_min: Optional[float] = None
    p_max: Optional[float] = None
    #: "exact" (attained; every joint outcome enumerated, or attained by construction) or "certified".
    bounds: Optional[str] = None
    #: The same three after the multiple-comparison correction (equal to the raw ones without one).
    p_adjusted: Optional[float] = None
    p_adjusted_min: Optional[float] = None
    p_adjusted_max: Optional[float] = None
    #: The verdict on expected values at alpha: the significantly better system's name, or None.
    better: Optional[str] = None
    #: P(the verdict of a uniformly random joint tie-breaking differs from ``better``'s verdict).
    flip_probability: Any = None
    #: "exact" (enumerated), "bounds" (every tie-breaking has the same verdict), "monte carlo", "not estimated".
    flip_method: Optional[str] = None
    #: Monte Carlo: the number of tie-breakings drawn and the 95% Clopper-Pearson interval.
    flip_samples: Optional[int] = None
    flip_interval: Optional[tuple[float, float]] = None
    #: True: one verdict for every tie-breaking; False: a tie-breaking changes it; None: not decided.
    robust: Optional[bool] = None
    #: Joint outcomes enumerated (distinct per-query difference combinations), when they were.
    outcomes: Optional[int] = None

    @property
    def verdict(self) -> str:
        """``"A > B"``, ``"B > A"`` or ``"n.s."`` (A and B as this pair's system names)."""
        if self.test is None:
            return ""
        if self.better is None:
            return "n.s."
        return f"{self.a} > {self.b}" if self.better == self.a else f"{self.b} > {self.a}"

    @property
    def order_depends_on_ties(self) -> bool:
        return self.order == "some"


#: Largest product of two per-query support sizes convolved for an enumeration (beyond, the pair is not enumerable:
#: a pair with at most ENUMERATION_LIMIT joint tie-breakings stays far below it).
_LARGEST_PRODUCT = 10**7


def pair_supports(ca: Column, cb: Column, limit: int) -> Optional[list[sig.Support]]:
    """Per query, the distribution of A_q − B_q (independent tie-breakings, values snapped), or None.

    None in float mode, when a distribution is not available, or when the
    joint outcomes certainly exceed *limit*: more varying queries than
    log2(limit), or a product of per-query sizes over it.
    """
    if ca.source is None or cb.source is None:
        return None
    varies = np.flatnonzero(ca.varies() | cb.varies())
    if len(varies) > math.log2(limit):
        return None
    constant = sig.snap(ca.floats("expected") - cb.floats("expected"))
    out = [sig.Support(constant[q : q + 1], (Fraction(1),)) for q in range(len(constant))]
    pmfs = []
    bound = 1
    for q in varies.tolist():
        x, y = ca.distribution(q), cb.distribution(q)
        if x is None or y is None:
            return None
        bound *= max(len(x), len(y))  # the support of A_q − B_q is at least this large
        if bound > limit or len(x) * len(y) > _LARGEST_PRODUCT:
            return None
        pmfs.append((q, x, y))
    total = 1
    for q, x, y in pmfs:
        fx = np.array([to_float(u) for u in x])
        fy = np.array([to_float(v) for v in y])
        diff = sig.snap(np.subtract.outer(fx, fy).ravel())
        values, inverse = np.unique(diff, return_inverse=True)
        total *= len(values)
        if total > limit:
            return None
        weights: list[Any] = [0] * len(values)
        for k, w in zip(inverse.tolist(), (pu * pv for pu in x.values() for pv in y.values())):
            weights[k] += w
        out[q] = sig.Support(values, tuple(weights))
    return out


def pair_results(
    key: str,
    pairs: Sequence[tuple[str, str]],
    cols: Mapping[str, Column],
    prepared: Mapping[str, Any],
    m: Measure,
    queries: Sequence[str],
    test: Optional[str],
    alpha: float,
    correction: str,
    resamples: int,
    seed: int,
    samples: Optional[int],
    limit: int,
    exact: bool,
    names: Sequence[str],
) -> tuple[list[PairResult], list[str]]:
    """The :class:`PairResult` of each of *pairs* on measure *m* (*key*), and the notes they add."""
    notes: list[str] = []
    base = []
    for a, b in pairs:
        ca, cb = cols[a], cols[b]
        mean_a, mean_b = ca.mean("expected"), cb.mean("expected")
        low = mean_difference(ca, "worst", cb, "best")
        high = mean_difference(ca, "best", cb, "worst")
        low_f = float(np.mean(ca.floats("worst")) - np.mean(cb.floats("best")))
        high_f = float(np.mean(ca.floats("best")) - np.mean(cb.floats("worst")))
        if sign_near(lambda: low, low_f) > 0:
            order = "every"
        elif sign_near(lambda: high, high_f) <= 0:
            order = "none"
        else:
            order = "some"
        base.append(dict(measure=key, a=a, b=b, mean_a=mean_a, mean_b=mean_b,
                         expected_difference=mean_difference(ca, "expected", cb, "expected"),
                         min_difference=low, max_difference=high, order=order))
    if test is None:
        return [PairResult(**x) for x in base], notes
    alpha = float(alpha)
    family = len(pairs)
    level = alpha / family if correction == "bonferroni" else alpha  # raw-p threshold of a per-pair verdict
    work = []
    for (a, b), info in zip(pairs, base):
        ca, cb = cols[a], cols[b]
        expected = sig.snap(ca.floats("expected") - cb.floats("expected"))
        low = sig.snap(ca.floats("worst") - cb.floats("best"))
        high = sig.snap(ca.floats("best") - cb.floats("worst"))
        p, direction = sig.pvalues(test, expected[None, :], resamples=resamples, seed=seed)
        supports = pair_supports(ca, cb, limit)
        enumerated = None
        if supports is not None:
            enumerated = sig.enumerate_pair(test, supports, limit=limit, resamples=resamples, seed=seed)
        if enumerated is not None:
            bounds = enumerated.bounds()
        else:
            zero = None if supports is None else [bool(np.any(s.values == 0)) for s in supports]
            bounds = sig.certified_bounds(test, low, high, zero=zero, resamples=resamples, seed=seed)
        witnesses = sig.pvalues(test, np.vstack([low, high]), resamples=resamples, seed=seed)
        work.append(dict(info=info, p=float(p[0]), direction=int(direction[0]), bounds=bounds, enumerated=enumerated,
                         witnesses=witnesses))
    raw = np.array([w["p"] for w in work])
    adjusted = sig.adjust(raw, correction)
    adjusted_min = sig.adjust(np.array([w["bounds"].p_min for w in work]), correction)
    adjusted_max = sig.adjust(np.array([w["bounds"].p_max for w in work]), correction)
    joint = correction == "holm" and family > 1
    results = []
    mc_pairs = []
    for i, w in enumerate(work):
        b: sig.Bounds = w["bounds"]
        verdict = w["direction"] if adjusted[i] <= alpha else 0
        # every tie-breaking's verdict, when the (adjusted) bounds decide it
        decided: Optional[int] = None
        if adjusted_max[i] <= alpha and b.direction_min == b.direction_max != 0:
            decided = b.direction_min
        elif adjusted_min[i] > alpha:
            decided = 0
        flip: Any = None
        method = "not estimated"
        robust: Optional[bool] = None
        if decided is not None:
            flip = (Fraction(1) if exact else 1.0) if decided != verdict else (Fraction(0) if exact else 0.0)
            method, robust = "bounds", True
        elif w["enumerated"] is not None and not joint:
            e = w["enumerated"]
            outcome = e.verdicts(level)
            flip = e.probability_of(outcome != verdict)
            method, robust = "exact", bool(np.all(outcome == outcome[0]))
        if robust is None and not joint:
            wp, wd = w["witnesses"]
            if len({int(d) if p <= level else 0 for p, d in zip(wp, wd)}) > 1:
                robust = False  # the two extreme tie-breakings disagree
        if method not in ("exact", "bounds"):
            mc_pairs.append(i)
        results.append(dict(verdict=verdict, flip=flip, method=method, robust=robust, interval=None, count=None))
    if mc_pairs:
        involved = {s for i in (range(family) if joint else mc_pairs) for s in pairs[i]}
        draws = Draws(cols, prepared, m, queries, seed, samples, involved)
        if draws.count() == 0:
            notes.append(f"{key}: flip probability not estimated for {len(mc_pairs)} pair(s): samples (--samples) is 0")
        else:
            _monte_carlo(mc_pairs, pairs, results, draws, test, alpha, level, correction, resamples, seed)
            how = "the per-query distributions" if not draws.rows else "shuffled orderings"
            notes.append(f"{key}: ≈ flip probabilities from {draws.count():,} joint tie-breakings drawn from {how} (seed {seed})")
    out = []
    for i, (w, r) in enumerate(zip(work, results)):
        info, b = w["info"], w["bounds"]
        better = None if r["verdict"] == 0 else (info["a"] if r["verdict"] > 0 else info["b"])
        e = w["enumerated"]
        out.append(
            PairResult(
                **info,
                test=test,
                p_value=w["p"],
                p_min=b.p_min,
                p_max=b.p_max,
                bounds="exact" if b.exact else "certified",
                p_adjusted=float(adjusted[i]),
                p_adjusted_min=float(adjusted_min[i]),
                p_adjusted_max=float(adjusted_max[i]),
                better=better,
                flip_probability=r["flip"],
                flip_method=r["method"],
                flip_samples=r["count"],
                flip_interval=r["interval"],
                robust=r["robust"],
                outcomes=None if e is None else e.outcomes,
            )
        )
    if joint:
        notes.append(f"{key}: Holm's adjusted bounds are certified (each pair's bounds pushed through the correction)")
    return out, notes


def _monte_carlo(
    which: Sequence[int],
    pairs: Sequence[tuple[str, str]],
    results: list[dict],
    draws: "Draws",
    test: str,
    alpha: float,
    level: float,
    correction: str,
    resamples: int,
    seed: int,
) -> None:
    """Flip probabilities (and robust = False when a flip is seen) from seeded joint tie-breakings."""
    joint = correction == "holm" and len(pairs) > 1
    tested = range(len(pairs)) if joint else which
    p = {}
    direction = {}
    for i in tested:
        a, b = pairs[i]
        p[i], direction[i] = sig.pvalues(test, draws.values(a) - draws.values(b), resamples=resamples, seed=seed)
    S = draws.count()
    if joint:
        P = sig.adjust(np.column_stack([p[i] for i in range(len(pairs))]), correction)
        verdicts = {i: np.where(P[:, i] <= alpha, direction[i], 0) for i in which}
    else:
        verdicts = {i: np.where(p[i] <= level, direction[i], 0) for i in which}
    for i in which:
        v = verdicts[i]
        flips = int((v != results[i]["verdict"]).sum())
        results[i]["flip"] = flips / S
        results[i]["method"] = "monte carlo"
        results[i]["count"] = S
        results[i]["interval"] = sig.clopper_pearson(flips, S)
        if results[i]["robust"] is None and len(set(v.tolist())) > 1:
            results[i]["robust"] = False
