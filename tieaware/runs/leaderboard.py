"""Several systems compared with a significance test, whatever the ties: ``tieaware.compare_systems``.

Every system's tied documents can be ordered in many ways, and a paired
test fed one ordering per system (as ranx's ``compare`` or PyTerrier's
``Experiment`` do) gives a verdict that may hold for that ordering only.
For each measure this module gives

- a **leaderboard**: the systems by expected (tie-aware) mean, each with the
  smallest and largest mean over tie-breakings and the best and worst rank
  it can take (systems are tie-broken independently, so a system's best
  rank puts it at its largest mean and every other system at its smallest);
- for each **pair** (each system against a baseline, or all pairs): the test
  on the expected per-query values, bounds on the p-value over every joint
  tie-breaking of both systems (exact and attained when the joint outcomes
  can be enumerated, certified otherwise), the probability that the
  verdict at ``alpha`` differs from the verdict on expected values, and
  whether the verdict is the same for every tie-breaking.

The statistics are in :mod:`tieaware.runs.significance`; docs/uncertainty.md
("Significance") gives the method and the argument for each bound.

>>> from tieaware.io.trec import parse_qrels, parse_run
>>> qrels = parse_qrels(["q1 0 a 1", "q2 0 x 1", "q3 0 m 1"])
>>> tied = parse_run(["q1 Q0 a 1 1 A", "q1 Q0 b 2 1 A", "q2 Q0 x 1 1 A", "q2 Q0 y 2 1 A",
...                   "q3 Q0 m 1 1 A", "q3 Q0 n 2 1 A"])
>>> last = parse_run(["q1 Q0 b 1 2 B", "q1 Q0 a 2 1 B", "q2 Q0 y 1 2 B", "q2 Q0 x 2 1 B",
...                   "q3 Q0 n 1 2 B", "q3 Q0 m 2 1 B"])
>>> out = compare_systems(qrels, {"tied": tied, "last": last}, "P@1", test="sign", alpha=0.25)
>>> (pair,) = out.pairs["P@1"]
>>> pair.p_value, pair.p_min, pair.p_max, pair.bounds   # expected: +1/2 on each query, 3 wins of 3
(0.25, 0.25, 1.0, 'exact')
>>> pair.verdict, pair.flip_probability, pair.robust    # each query a win or a zero, even odds
('tied > last', Fraction(7, 8), False)
>>> [(s.system, s.mean, s.best_rank, s.worst_rank) for s in out.standings["P@1"]]
[('tied', Fraction(1, 2), 1, 1), ('last', Fraction(0, 1), 1, 2)]
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from tieaware.io.trec import Qrels, Run
from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact, is_rational, to_decimal, to_exact_string, to_float
from tieaware.model.logsum import LogSum
from tieaware.model.names import Measure
from tieaware.model.params import flag
from tieaware.runs import significance as sig
from tieaware.runs.comparison import _minus, _sign, _spreadable
from tieaware.runs.evaluate import UNJUDGED, MeasureSpec, _layer, compute, exact_mean, measure_list, natural_key

__all__ = [
    "compare_systems",
    "compare_prepared",
    "sympy_values",
    "SystemsComparison",
    "Standing",
    "PairResult",
    "SAMPLES",
    "ALPHA",
    "FORMATS",
]

#: Monte Carlo tie-breakings drawn for the flip probability when every per-query distribution is known.
SAMPLES = 1000
ALPHA = 0.05
#: What :meth:`SystemsComparison.render` writes.
FORMATS = ("table", "markdown", "latex", "json")


@dataclass(frozen=True)
class Standing:
    """One system on one measure: its expected mean, its range over tie-breakings, its rank interval.

    Exact values are Fractions, or for DCG and nDCG exact sympy values
    (:func:`compare_systems`).  :func:`compare_prepared` and the command
    keep those as :class:`tieaware.model.logsum.LogSum` vectors (``.value()``
    is the sympy value; ``to_decimal`` and ``float()`` print them without it).
    """

    system: str
    mean: Exact
    #: The smallest and largest mean over every tie-breaking of this system.
    min_mean: Exact
    max_mean: Exact
    #: 1 + the number of systems with a larger expected mean (ties share a rank).
    rank: int
    #: The best and worst rank over every tie-breaking of every system.
    best_rank: int
    worst_rank: int


@dataclass(frozen=True)
class PairResult:
    """System A against system B on one measure, over every joint tie-breaking of both (exact values as in :class:`Standing`)."""

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


@dataclass(frozen=True)
class SystemsComparison:
    """The result of :func:`compare_systems`."""

    systems: tuple[str, ...]
    measures: tuple[str, ...]
    queries: int
    exact: bool
    test: Optional[str]
    alpha: float
    correction: str
    baseline: Optional[str]
    resamples: int
    seed: int
    #: Per measure: the systems by expected mean (best first).
    standings: dict[str, list[Standing]]
    #: Per measure: the pairs tested.
    pairs: dict[str, list[PairResult]]
    #: Queries in some runs but not all (left out).
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def render(self, format: str = "table", digits: int = 4) -> str:
        """The comparison as text: ``table``, ``markdown``, ``latex`` or ``json``."""
        if format not in FORMATS:
            raise bad("format", format, f"must be one of {', '.join(FORMATS)}")
        if format == "json":
            return json.dumps(self.as_dict(digits), indent=2)
        return _render(self, format, digits)

    def as_dict(self, digits: int = 4) -> dict[str, Any]:
        """Every value as ``{"exact", "decimal", "float"}`` (floats only for p-values), JSON-ready."""
        return _as_dict(self, digits)

    def plot(self, path: Optional[str] = None, measure: Optional[str] = None) -> Any:
        """A matplotlib figure: each system's expected mean, its tie range and its rank interval.

        Needs matplotlib (``pip install 'tieaware[plots]'``).  With *path* the
        figure is saved there.  Returns the figure.
        """
        return _plot(self, path, measure)


def _check(alpha: Any, correction: Any, test: Any, resamples: Any, seed: Any, samples: Any, limit: Any) -> None:
    if test is not None:
        sig.check_test(test)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, Fraction)) or not 0 < alpha < 1:
        raise bad("alpha", alpha, "must be a number strictly between 0 and 1")
    if correction not in sig.CORRECTIONS:
        raise bad("correction", correction, f"must be one of {', '.join(sig.CORRECTIONS)}")
    for name, value, least in (("resamples", resamples, 1), ("seed", seed, 0), ("limit", limit, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise bad(name, value, f"must be an int >= {least}")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int) or samples < 0):
        raise bad("samples", samples, "must be None (automatic) or an int >= 0")


def compare_systems(
    qrels: Any,
    runs: Any,
    measures: MeasureSpec,
    *,
    test: Optional[str] = "t",
    alpha: float = ALPHA,
    correction: str = "none",
    baseline: Optional[str] = None,
    layer: str = "fast",
    exact: bool = True,
    resamples: int = sig.RESAMPLES,
    seed: int = sig.SEED,
    samples: Optional[int] = None,
    limit: int = sig.ENUMERATION_LIMIT,
    progress: bool = False,
) -> SystemsComparison:
    """Compare *runs* on *measures* with a paired *test*, over every tie-breaking of every run.

    *runs* is a mapping {name: run} or a sequence of runs (named run_1,
    run_2, ...); qrels and runs come in any shape :func:`tieaware.evaluate`
    takes.  Queries: those with qrels in every run.  Pairs: each run against
    *baseline* (A = the run, B = the baseline), or every pair (A before B in
    *runs*' order).  *test*: one of ``t``, ``wilcoxon``, ``sign``,
    ``randomization``, ``bootstrap`` (:mod:`tieaware.runs.significance`), or
    None for the leaderboard alone.  *correction* (``none``, ``bonferroni``,
    ``holm``) is applied per measure across its pairs.

    Bounds on the p-value are exact (enumerated) when a pair's joint
    outcomes number at most *limit*, else certified.  The flip probability is
    exact when enumerated, 0 or 1 when the bounds decide every
    tie-breaking's verdict, else estimated from *samples* seeded
    tie-breakings.  By default (None): :data:`SAMPLES` draws from the
    per-query distributions when they are known (exact mode, enumerable
    sizes); else orderings are shuffled and evaluated (the varying
    queries only, and for an @k measure the tie groups that start in the
    top k), as many draws as :data:`DRAW_BUDGET` row evaluations allow, at
    most :data:`SAMPLES` and at least :data:`MIN_DRAWS`: a flip probability
    is always estimated, with its count, seed and 95% interval (``samples=0``:
    none).  With Holm's correction a
    pair's adjusted verdict depends on every pair: the flip probability is
    then by Monte Carlo over joint tie-breakings of all systems.

    Beware: the resampling tests depend on *seed* (and *resamples*); their
    bounds are over tie-breakings for those resamples.
    """
    ms = _measures(measures)
    exact = flag(exact, "exact")
    _layer(layer)
    _check(alpha, correction, test, resamples, seed, samples, limit)
    from tieaware.io.columns import prepare_dicts
    from tieaware.io.inputs import to_qrels, to_run

    named = _named_runs(runs)
    qrels = to_qrels(qrels)
    converted = {name: to_run(run) for name, run in named.items()}
    queries, skipped = _shared(qrels, converted)
    prepared = {name: prepare_dicts(qrels, run, queries) for name, run in converted.items()}
    result = compare_prepared(
        prepared,
        ms,
        test=test,
        alpha=alpha,
        correction=correction,
        baseline=baseline,
        layer=layer,
        exact=exact,
        resamples=resamples,
        seed=seed,
        samples=samples,
        limit=limit,
        progress=progress,
        skipped=skipped,
    )
    return sympy_values(result)


def sympy_values(result: SystemsComparison) -> SystemsComparison:
    """*result* with every LogSum vector (exact DCG and nDCG) replaced by its exact value: a Fraction or sympy.

    :func:`compare_prepared` and the command keep DCG and nDCG as LogSum
    vectors, which print without building sympy; the public
    :func:`compare_systems` returns the values the rest of tieaware returns
    (the exactness policy: a Fraction when rational, else an exact sympy value).
    """

    def plain(value: Any) -> Any:
        return value.value() if isinstance(value, LogSum) else value

    def each(row: Any, names: tuple[str, ...]) -> Any:
        return replace(row, **{n: plain(getattr(row, n)) for n in names})

    standings = {m: [each(s, ("mean", "min_mean", "max_mean")) for s in rows] for m, rows in result.standings.items()}
    pair_fields = ("mean_a", "mean_b", "expected_difference", "min_difference", "max_difference")
    pairs = {m: [each(p, pair_fields) for p in rows] for m, rows in result.pairs.items()}
    return replace(result, standings=standings, pairs=pairs)


def _measures(measures: MeasureSpec) -> tuple[Measure, ...]:
    ms = _spreadable(measure_list(measures))
    for m in ms:
        if m.name == "RBO":
            raise bad("measure", str(m), "compares two rankings, not a run with qrels; use `tieaware rbo`")
    return ms


def _named_runs(runs: Any) -> dict[str, Any]:
    if isinstance(runs, Mapping) and runs and all(isinstance(k, str) for k in runs) and not _looks_like_a_run(runs):
        named = dict(runs)
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        named = {f"run_{i + 1}": run for i, run in enumerate(runs)}
    else:
        raise bad("runs", runs, "must be a mapping {name: run} or a sequence of runs")
    if len(named) < 2:
        raise bad("runs", list(named), "must hold at least two runs")
    return named


def _looks_like_a_run(runs: Mapping) -> bool:
    """A single run {qid: {docid: score}} passed where several were expected."""
    first = next(iter(runs.values()))
    if isinstance(first, Mapping):  # pytrec_eval's {qid: {docid: score}}
        return bool(first) and not isinstance(next(iter(first.values())), (Mapping, list, tuple))
    # tieaware's {qid: [(docid, score), ...]}
    return isinstance(first, list) and bool(first) and isinstance(first[0], tuple) and len(first[0]) == 2 and isinstance(first[0][0], str)


def _shared(qrels: Qrels, runs: Mapping[str, Run]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    sets = [set(run) for run in runs.values()]
    every = set.intersection(*sets) & set(qrels)
    some = set.union(*sets) & set(qrels)
    if not every:
        raise bad("runs", sorted(set.union(*sets), key=natural_key)[:5], "share no query that has qrels")
    return tuple(sorted(every, key=natural_key)), tuple(sorted(some - every, key=natural_key))


def compare_prepared(
    prepared: Mapping[str, Any],
    measures: MeasureSpec,
    *,
    test: Optional[str] = "t",
    alpha: float = ALPHA,
    correction: str = "none",
    baseline: Optional[str] = None,
    layer: str = "fast",
    exact: bool = True,
    resamples: int = sig.RESAMPLES,
    seed: int = sig.SEED,
    samples: Optional[int] = None,
    limit: int = sig.ENUMERATION_LIMIT,
    progress: bool = False,
    skipped: Sequence[str] = (),
) -> SystemsComparison:
    """:func:`compare_systems` on runs already read as columns ({name: :class:`tieaware.io.columns.Prepared`}).

    The queries compared are those every prepared run holds (each holds
    only queries with qrels); the others are reported in ``skipped``.
    """
    ms = _measures(measures)
    exact = flag(exact, "exact")
    _layer(layer)
    _check(alpha, correction, test, resamples, seed, samples, limit)
    names = tuple(prepared)
    if len(names) < 2:
        raise bad("runs", list(names), "must hold at least two runs")
    if baseline is not None and baseline not in names:
        raise bad("baseline", baseline, f"must be one of the runs' names: {', '.join(names)}")
    sets = [set(p.qids) for p in prepared.values()]
    queries = tuple(sorted(set.intersection(*sets), key=natural_key))
    if not queries:
        raise bad("runs", sorted(set.union(*sets), key=natural_key)[:5], "share no query that has qrels")
    skipped = tuple(sorted(set(skipped) | (set.union(*sets) - set(queries)), key=natural_key))
    if test is not None:
        sig._scipy()  # fail early, before any work, when scipy is missing
    memo: dict = {}  # the exact kernels' results, shared by the runs of this call (not kept past it)
    columns = {
        name: _columns(p, ms, queries, exact=exact, layer=layer, progress=progress, label=name, memo=memo)
        for name, p in prepared.items()
    }
    return _board(
        columns, prepared, ms, queries, skipped, test=test, alpha=alpha, correction=correction, baseline=baseline, exact=exact,
        resamples=resamples, seed=seed, samples=samples, limit=limit,
    )


def _board(
    columns: Mapping[str, dict[str, "_Column"]],
    prepared: Mapping[str, Any],
    ms: Sequence[Measure],
    queries: Sequence[str],
    skipped: Sequence[str],
    *,
    test: Optional[str],
    alpha: float,
    correction: str,
    baseline: Optional[str],
    exact: bool,
    resamples: int,
    seed: int,
    samples: Optional[int],
    limit: int,
) -> SystemsComparison:
    """The leaderboard and the pairs from every system's per-query columns (:func:`_columns`, over *queries*).

    *prepared* gives the rows of a system's varying queries when Monte Carlo
    draws shuffle them: a :class:`tieaware.io.columns.Prepared`, or an object
    with a ``drawn_view(m, queries)`` method (the streamed path,
    :mod:`tieaware.runs.board_stream`).  Arguments are checked by the callers.
    """
    names = tuple(columns)
    if baseline is not None:
        pairs = [(name, baseline) for name in names if name != baseline]
    else:
        pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    standings, results, notes = {}, {}, []
    for m in ms:
        key = str(m)
        cols = {name: columns[name][key] for name in names}
        standings[key] = _standings(names, cols)
        results[key], why = _pairs(
            key, pairs, cols, prepared, m, queries, test, alpha, correction, resamples, seed, samples, limit, exact, names
        )
        notes.extend(why)
    return SystemsComparison(
        systems=names,
        measures=tuple(str(m) for m in ms),
        queries=len(queries),
        exact=exact,
        test=test,
        alpha=float(alpha),
        correction=correction,
        baseline=baseline,
        resamples=resamples,
        seed=seed,
        standings=standings,
        pairs=results,
        skipped=skipped,
        notes=tuple(dict.fromkeys(notes)),
    )


# --- per-system, per-query statistics ---------------------------------------------------------------------


@dataclass
class _Column:
    """One system on one measure, over the shared queries (in their order)."""

    expected: list
    worst: list
    best: list
    #: Exact mode: query number -> (ranking, ideal), for its distribution on demand; None in float mode.
    source: Optional[Callable[[int], tuple[list, list]]] = None
    measure: Optional[Measure] = None
    _cache: dict = field(default_factory=dict)

    def floats(self, which: str) -> np.ndarray:
        key = "floats " + which
        if key not in self._cache:
            self._cache[key] = _floats(getattr(self, which))
        return self._cache[key]

    def mean(self, which: str) -> Any:
        """The exact mean of ``expected``, ``worst`` or ``best``, computed once per system (not per pair)."""
        key = "mean " + which
        if key not in self._cache:
            form = self.form(which)
            self._cache[key] = exact_mean(getattr(self, which)) if form is None else _settled(form)
        return self._cache[key]

    def form(self, which: str) -> Optional[LogSum]:
        """The mean as a :class:`LogSum` when the values are DCG sums kept as vectors (exact nDCG, DCG), else None.

        Means and their differences are then sums of Fraction vectors; sympy is built only for the values shown.
        """
        key = "form " + which
        if key not in self._cache:
            values = getattr(self, which)
            if values and any(isinstance(v, LogSum) for v in values) and all(v is not None for v in values):
                self._cache[key] = LogSum.total(values) / len(values)
            else:
                self._cache[key] = None
        return self._cache[key]

    def varies(self) -> np.ndarray:
        """Per query, whether some tie-breakings give different values."""
        if "varies" not in self._cache:
            gap = self.floats("best") - self.floats("worst")
            self._cache["varies"] = np.array(
                [_sign_near(lambda: _difference(b, w), g) != 0 for w, b, g in zip(self.worst, self.best, gap.tolist())], dtype=bool
            )
        return self._cache["varies"]

    def distribution(self, q: int) -> Optional[dict]:
        """Query q's {value: probability} (exact mode; float values for DCG and nDCG), or None if not available."""
        key = ("pmf", q)
        if key not in self._cache:
            if not self.varies()[q]:
                only = _plain(self.worst[q])
                self._cache[key] = {only: Fraction(1) if not isinstance(only, float) else 1.0}
            elif self.source is None:
                self._cache[key] = None
            else:
                from tieaware.fast.tie_spread import spread_stats

                ranking, ideal = self.source(q)
                pmf = spread_stats(self.measure, ranking, ideal, exact=True, distribution=True).distribution
                if pmf is None and self.measure is not None and self.measure.name in ("DCG", "nDCG"):
                    pmf = spread_stats(self.measure, ranking, ideal, exact=False, distribution=True).distribution
                self._cache[key] = pmf
        return self._cache[key]

    def known(self) -> bool:
        """Whether every varying query's distribution has been computed (and is available)."""
        return all(self._cache.get(("pmf", q)) is not None for q in np.flatnonzero(self.varies()))


def _floats(values: Sequence[Any]) -> np.ndarray:
    """Floats of exact values; sympy values by interval arithmetic (:func:`tieaware.io.exact_print.nearest_float`)."""
    from tieaware.io.exact_print import nearest_float

    plain = (_plain(v) for v in values)
    return np.array([float(v) if isinstance(v, (int, float, Fraction)) else nearest_float(v) for v in plain], dtype=np.float64)


def _plain(value: Any) -> Any:
    """A Fraction or sympy value for a value that may be a :class:`LogSum`."""
    return value.value() if isinstance(value, LogSum) else value


def _settled(value: LogSum) -> Any:
    """A LogSum as it is reported: its Fraction when it is rational, else the LogSum (printed without sympy)."""
    q = value.rational()
    return value if q is None else q


def _difference(a: Any, b: Any) -> Any:
    """a - b, exactly: as vectors when either is a :class:`LogSum` (sympy built once, for the result)."""
    if isinstance(a, LogSum) or isinstance(b, LogSum):
        return (LogSum.of(a) - LogSum.of(b)).value()
    return _minus(a, b)


def _mean_difference(ca: "_Column", which_a: str, cb: "_Column", which_b: str) -> Any:
    """The exact difference of two systems' means (of ``expected``, ``worst`` or ``best``)."""
    fa, fb = ca.form(which_a), cb.form(which_b)
    if fa is not None and fb is not None:
        return _settled(fa - fb)
    return _minus(ca.mean(which_a), cb.mean(which_b))


def _ranking(p: Any, number: int, marks: bool) -> tuple[list, list]:
    """Query *number* of a Prepared: (its ranking as tie groups of labels, every judged label)."""
    values = p.label_values
    first = int(p.query_start[number])
    last = int(p.query_start[number + 1]) if number + 1 < len(p.qids) else int(p.rows)
    labels = [values[i] for i in p.label[first:last].tolist()]
    if marks and p.judged is not None:  # None for unjudged rows (Judged and Bpref tell them from judged zeros)
        labels = [x if seen else None for x, seen in zip(labels, p.judged[first:last].tolist())]
    lo, hi = np.searchsorted(p.group_start, [first, last])
    bounds = p.group_start[lo:hi].tolist() + [last]
    ranking = [labels[a - first : b - first] for a, b in zip(bounds, bounds[1:])]
    j0, j1 = np.searchsorted(p.judged_query, [number, number + 1])
    ideal = [values[i] for i in p.judged_label[j0:j1].tolist()]
    return ranking, ideal


def _rankings(p: Any, marks: bool) -> Iterable[tuple[str, list, list]]:
    """(qid, ranking as tie groups of labels, every judged label) per query of a Prepared, in its order."""
    for number, qid in enumerate(p.qids):
        yield (qid, *_ranking(p, number, marks))


def _extreme_view(p: Any, worst: bool) -> Any:
    """*p* with each tie group sorted by label (ascending: the worst ordering; descending: the best), untied.

    The rule of :func:`tieaware.fast.worst_ordering` and ``best_ordering``,
    which attain the extremes of every measure :data:`tieaware.runs.engine.EXACT_SUPPORTED` holds.
    """
    from tieaware.io.columns import Prepared

    sizes = p.group_sizes()
    group = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    label = p.label.astype(np.int64)
    order = np.lexsort((label if worst else -label, group))
    return Prepared(
        qids=p.qids,
        query=p.query,
        label=p.label[order],
        label_values=p.label_values,
        group_start=np.arange(p.rows, dtype=np.int64),
        query_start=p.query_start,
        judged_query=p.judged_query,
        judged_label=p.judged_label,
        trec_order=None,
        skipped_run=[],
        skipped_qrels=[],
        judged=None if p.judged is None else p.judged[order],
    )


def _columns(
    p: Any, ms: Sequence[Measure], queries: Sequence[str], *, exact: bool, layer: str, progress: bool, label: str,
    memo: Optional[dict] = None,
) -> dict[str, _Column]:
    """Each measure's column for run *p*; *memo* (exact mode) holds kernel results shared by the runs of one call."""
    memo = {} if memo is None else memo
    position = {q: i for i, q in enumerate(p.qids)}
    take = [position[q] for q in queries]
    out: dict[str, _Column] = {}
    slow = list(ms)
    if not exact and layer == "fast":
        from tieaware.runs import engine, spread_engine

        slow = []
        cache: dict = {}
        for m in ms:
            values = engine.values(p, m, cache)
            stats = spread_engine.stats(p, m, cache)
            if values is None or stats is None:
                slow.append(m)
                continue
            worst, best, _ = stats
            out[str(m)] = _Column(
                [float(x) for x in np.asarray(values)[take]], np.asarray(worst)[take].tolist(), np.asarray(best)[take].tolist()
            )
    marks = any(m.name in UNJUDGED for m in ms)
    source = (lambda q: _ranking(p, take[q], marks)) if exact else None
    if exact and layer == "fast":
        # whole runs through the exact array path (tieaware.runs.engine.ExactQueries, as `tieaware eval`): the
        # expected values on p, the extremes on p with each group sorted by label (the orderings that attain them)
        from tieaware.runs.engine import EXACT_SUPPORTED, ORDERS, ExactQueries
        from tieaware.runs.evaluate import evaluate_prepared

        from tieaware.runs import engine

        here = [m for m in slow if m.name in EXACT_SUPPORTED]
        if here:
            # the closed forms per query (ExactQueries, as `tieaware eval`), each tie group as it is and sorted by
            # label (worst, best: the orderings that attain the extremes) from the same group counts; DCG and nDCG
            # as LogSum vectors, so that means and differences are Fraction sums and sympy is built only for the
            # values reported.  *memo* shares the kernels' results between the systems of this call.
            got: dict[str, list[list]] = {str(m): [] for m in here}
            evaluator = ExactQueries(p, memo)
            for order in ORDERS:
                for m in here:
                    got[str(m)].append([evaluator.value(i, m, forms=True, order=order) for i in take])
            aside = [m for m in here if any(v is None for values in got[str(m)] for v in values)]
            views = (p, _extreme_view(p, True), _extreme_view(p, False)) if aside or any(
                m.name in ("nDCG", "DCG") for m in here) else ()
            if aside:  # a query the array path cannot take (e.g. a gain that is not rational): the whole-run path
                per = [evaluate_prepared(view, aside, exact=True).per_query for view in views]
                for m in aside:
                    got[str(m)] = [[per_query[q][str(m)] for q in queries] for per_query in per]
            for m in here:
                e, w, b = ([v.rational() if isinstance(v, LogSum) and v.rational() is not None else v for v in values]
                           for values in got[str(m)])
                column = _Column(e, w, b, source, m)
                if not all(is_rational(_plain(v)) if not isinstance(v, LogSum) else False for v in e + w + b):
                    # irrational values (DCG, nDCG): their floats from the float engine on the same views
                    # (within a few ulps of the nearest; converting thousands of sympy sums took most of the time)
                    for which, view in zip(("expected", "worst", "best"), views):
                        floats = engine.values(view, m)
                        if floats is not None:
                            column._cache["floats " + which] = np.asarray(floats, dtype=np.float64)[take]
                out[str(m)] = column
            slow = [m for m in slow if m not in here]
    if slow:
        per: dict[str, list[list]] = {str(m): [[], [], []] for m in slow}
        from tieaware.fast import best_ordering, worst_ordering

        for q, qid in enumerate(_progress(queries, progress, f"{label} (queries)")):
            ranking, ideal = _ranking(p, take[q], marks)
            try:
                for m in slow:
                    # the extremes as the values of the orderings that attain them (an untied
                    # ranking each: cheaper than the spread's variance, which is not needed here)
                    values = (
                        compute(m, ranking, ideal=ideal, layer=layer, exact=exact),
                        compute(m, worst_ordering(m, ranking, ideal), ideal=ideal, exact=exact),
                        compute(m, best_ordering(m, ranking, ideal), ideal=ideal, exact=exact),
                    )
                    for column, value in zip(per[str(m)], values):
                        column.append(value)
            except TieawareError as exc:
                raise TieawareError(f"query {qid!r}: {exc}") from None
        for m in slow:
            e, w, b = per[str(m)]
            out[str(m)] = _Column(e, w, b, source, m)
    return out


def _progress(items: Sequence[Any], show: bool, desc: str) -> Iterable[Any]:
    if not show:
        return items
    import sys

    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="q", file=sys.stderr, disable=None, leave=False)


# --- the leaderboard ----------------------------------------------------------------------------------------


def _sign_near(exact: Callable[[], Any], rough: float) -> int:
    """The sign of a value from its float when clearly away from 0, else exactly (*exact* computes it)."""
    if abs(rough) > 1e-9:
        return 1 if rough > 0 else -1
    return _sign(exact())


def _standings(names: Sequence[str], cols: Mapping[str, _Column]) -> list[Standing]:
    mean = {s: cols[s].mean("expected") for s in names}
    low = {s: cols[s].mean("worst") for s in names}
    high = {s: cols[s].mean("best") for s in names}
    fmean = {s: float(np.mean(cols[s].floats("expected"))) for s in names}
    flow = {s: float(np.mean(cols[s].floats("worst"))) for s in names}
    fhigh = {s: float(np.mean(cols[s].floats("best"))) for s in names}

    def above(x: dict, fx: dict, t: str, y: dict, fy: dict, s: str) -> bool:
        return _sign_near(lambda: _minus(x[t], y[s]), fx[t] - fy[s]) > 0

    rows = []
    for s in names:
        others = [t for t in names if t != s]
        rows.append(
            Standing(
                system=s,
                mean=mean[s],
                min_mean=low[s],
                max_mean=high[s],
                rank=1 + sum(above(mean, fmean, t, mean, fmean, s) for t in others),
                best_rank=1 + sum(above(low, flow, t, high, fhigh, s) for t in others),
                worst_rank=1 + sum(above(high, fhigh, t, low, flow, s) for t in others),
            )
        )
    return sorted(rows, key=lambda r: (r.rank, names.index(r.system)))


# --- the pairs --------------------------------------------------------------------------------------------


#: Largest product of two per-query support sizes convolved for an enumeration (beyond, the pair is not enumerable:
#: a pair with at most ENUMERATION_LIMIT joint tie-breakings stays far below it).
_LARGEST_PRODUCT = 10**7
#: Row evaluations the automatic Monte Carlo spends drawing orderings (rows drawn × draws), past MIN_DRAWS: ~1-2 s.
DRAW_BUDGET = 20_000_000
#: Automatic draws are never fewer than this: on a large run the flip probability is estimated from these,
#: with a wider interval (the cost is then at most MIN_DRAWS evaluations of the rows drawn).
MIN_DRAWS = 20


def _supports(ca: _Column, cb: _Column, limit: int) -> Optional[list[sig.Support]]:
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


def _pairs(
    key: str,
    pairs: Sequence[tuple[str, str]],
    cols: Mapping[str, _Column],
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
    notes: list[str] = []
    base = []
    for a, b in pairs:
        ca, cb = cols[a], cols[b]
        mean_a, mean_b = ca.mean("expected"), cb.mean("expected")
        low = _mean_difference(ca, "worst", cb, "best")
        high = _mean_difference(ca, "best", cb, "worst")
        low_f = float(np.mean(ca.floats("worst")) - np.mean(cb.floats("best")))
        high_f = float(np.mean(ca.floats("best")) - np.mean(cb.floats("worst")))
        if _sign_near(lambda: low, low_f) > 0:
            order = "every"
        elif _sign_near(lambda: high, high_f) <= 0:
            order = "none"
        else:
            order = "some"
        base.append(dict(measure=key, a=a, b=b, mean_a=mean_a, mean_b=mean_b,
                         expected_difference=_mean_difference(ca, "expected", cb, "expected"),
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
        supports = _supports(ca, cb, limit)
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
        draws = _Draws(cols, prepared, m, queries, seed, samples, involved)
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
    draws: "_Draws",
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


class _Draws:
    """Seeded tie-breakings of each system: per-query values of *count* joint draws (systems independent).

    A system whose varying queries all have known distributions is drawn
    from them; another has its orderings shuffled and evaluated (only its
    varying queries, and with a cutoff only the tie groups that start in
    the top k).  With *samples* None the count is automatic: :data:`SAMPLES`
    when every system is drawn from distributions; else as many as
    :data:`DRAW_BUDGET` row evaluations allow, at most :data:`SAMPLES` and at
    least :data:`MIN_DRAWS` (so a flip probability is always estimated, its
    interval wider on large runs).
    """

    def __init__(self, cols: Mapping[str, _Column], prepared: Mapping[str, Any], m: Measure, queries: Sequence[str],
                 seed: int, samples: Optional[int], systems: Iterable[str]):
        self.cols, self.prepared, self.m, self.queries, self.seed = cols, prepared, m, queries, seed
        drawn = [s for s in systems if not cols[s].known()]
        self.views = {s: _view_of(prepared[s], m, [queries[q] for q in np.flatnonzero(cols[s].varies()).tolist()]) for s in drawn}
        self.rows = sum(int(view.rows) for view in self.views.values())
        if samples is not None:
            self.n = samples
        elif not self.rows:
            self.n = SAMPLES
        else:
            self.n = min(SAMPLES, max(MIN_DRAWS, DRAW_BUDGET // self.rows))
        self.cache: dict[str, np.ndarray] = {}

    def count(self) -> int:
        return self.n

    def values(self, system: str) -> np.ndarray:
        if system not in self.cache:
            index = list(self.cols).index(system)
            rng = np.random.Generator(np.random.PCG64([self.seed, 7, index]))
            self.cache[system] = _draw(self.cols[system], self.views.get(system), self.m, rng, self.n)
        return self.cache[system]


def _draw(col: _Column, view: Any, m: Measure, rng: np.random.Generator, count: int) -> np.ndarray:
    """(count × queries) values of independent uniform tie-breakings of one system.

    *view*: the system's varying queries as :func:`_drawn_view` cuts them
    (None when every varying query's distribution is known).
    """
    out = np.repeat(col.floats("expected")[None, :], count, axis=0)  # the queries that do not vary
    varies = np.flatnonzero(col.varies())
    if col.known():
        for q in varies.tolist():
            d = col.distribution(q)
            values = np.array([to_float(v) for v in d])
            cdf = np.cumsum([float(x) for x in d.values()])
            picks = np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right")
            out[:, q] = values[np.minimum(picks, len(values) - 1)]
    elif len(varies):
        out[:, varies] = _draw_orderings(view, m, rng, count)
    return out


def _view_of(p: Any, m: Measure, queries: Sequence[str]) -> Any:
    """:func:`_drawn_view` of *p*, or *p*'s own ``drawn_view`` (runs read back from partitions when drawn)."""
    own = getattr(p, "drawn_view", None)
    return own(m, queries) if own is not None else _drawn_view(p, m, queries)


def _drawn_view(p: Any, m: Measure, queries: Sequence[str]) -> Any:
    """*p* cut to *queries* (in that order) and, for an @k measure of the array engine, to the tie groups
    that start within each query's top k (the rows below cannot reach the top k in any ordering).

    Judged documents (the ideal, num_rel) stay whole, so the measure of any
    ordering of the kept rows equals its value on the whole query.
    """
    from tieaware.io.columns import Prepared
    from tieaware.runs import engine

    rows = int(p.rows)
    position = {q: i for i, q in enumerate(p.qids)}
    numbers = np.array([position[q] for q in queries], dtype=np.int64)
    new = np.full(len(p.qids), -1, dtype=np.int64)
    new[numbers] = np.arange(len(numbers), dtype=np.int64)
    keep = new[p.query] >= 0 if rows else np.zeros(0, dtype=bool)
    if m.k is not None and m.name in engine.SUPPORTED and rows:
        sizes = p.group_sizes()
        group_first = np.repeat(p.group_start, sizes)  # first row of each row's group
        keep &= (group_first - p.query_start[p.query]) < m.k
    kept = np.flatnonzero(keep)
    # queries in the order asked: sort the kept rows by new query number (stable: rows stay in order)
    kept = kept[np.argsort(new[p.query[kept]], kind="stable")]
    query = new[p.query[kept]]
    heads = np.ones(len(kept), dtype=bool)
    heads[1:] = query[1:] != query[:-1]
    starts = np.zeros(rows + 1, dtype=bool)
    starts[p.group_start] = True
    group_start = np.flatnonzero(starts[kept] | heads)
    jq = new[p.judged_query] if len(p.judged_query) else p.judged_query
    jkeep = np.flatnonzero(jq >= 0) if len(jq) else np.zeros(0, dtype=np.int64)
    jkeep = jkeep[np.argsort(jq[jkeep], kind="stable")]
    return Prepared(
        qids=list(queries),
        query=query,
        label=p.label[kept],
        label_values=p.label_values,
        group_start=group_start.astype(np.int64),
        query_start=np.flatnonzero(heads).astype(np.int64),
        judged_query=jq[jkeep],
        judged_label=p.judged_label[jkeep],
        trec_order=None,
        skipped_run=[],
        skipped_qrels=[],
        judged=None if p.judged is None else p.judged[kept],
        negative=None if p.negative is None else p.negative[kept],
        judged_negative=None if p.judged_negative is None else p.judged_negative[jkeep],
    )


#: Rows evaluated by one engine call when drawing orderings (several draws stacked as one run).
_DRAW_ROWS = 1 << 20


def _draw_orderings(p: Any, m: Measure, rng: np.random.Generator, count: int) -> np.ndarray:
    """(count × queries of *p*) float values of *m* on uniformly random orderings of each query's ties.

    Each draw shuffles the rows inside every tie group whose members are not
    all alike (random keys, one sort) and evaluates the untied rows through
    :func:`tieaware.runs.engine.values`, several draws stacked as the
    queries of one run (per query through ``compute`` for a measure the
    engine lacks).
    """
    from tieaware.io.columns import Prepared
    from tieaware.runs import engine
    from tieaware.runs.evaluate import compute

    rows, nq = int(p.rows), len(p.qids)
    sizes = p.group_sizes()
    group = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    kind = p.label.astype(np.int64) * 2 + (0 if p.judged is None else p.judged.astype(np.int64))
    lo = np.minimum.reduceat(kind, p.group_start) if rows else kind
    hi = np.maximum.reduceat(kind, p.group_start) if rows else kind
    mixed = np.flatnonzero((lo != hi)[group]) if rows else np.array([], dtype=np.int64)
    out = np.empty((count, nq))
    fallback = m.name not in engine.SUPPORTED
    per_call = max(1, min(count, _DRAW_ROWS // max(1, rows)))
    for first in range(0, count, per_call):
        k = min(per_call, count - first)
        shift = (np.arange(k, dtype=np.int64) * rows)[:, None]
        where = (mixed[None, :] + shift).ravel()  # the mixed rows of every stacked draw
        draw_group = (np.arange(k, dtype=np.int64)[:, None] * len(sizes) + group[mixed][None, :]).ravel()
        keys = (draw_group << 32) + rng.integers(0, 1 << 32, size=len(where), dtype=np.int64)
        order = np.arange(k * rows, dtype=np.int64)
        order[where] = where[np.argsort(keys, kind="stable")]  # a shuffle inside each (draw, group)
        source = order % rows if rows else order
        view = Prepared(
            qids=[f"{d}:{q}" for d in range(k) for q in p.qids],
            query=(np.tile(p.query, k).reshape(k, rows) + (np.arange(k, dtype=np.int64) * nq)[:, None]).ravel(),
            label=p.label[source],
            label_values=p.label_values,
            group_start=np.arange(k * rows, dtype=np.int64),
            query_start=(p.query_start[None, :] + shift).ravel(),
            judged_query=(p.judged_query[None, :] + (np.arange(k, dtype=np.int64) * nq)[:, None]).ravel(),
            judged_label=np.tile(p.judged_label, k),
            trec_order=None,
            skipped_run=[],
            skipped_qrels=[],
            judged=None if p.judged is None else p.judged[source],
            negative=None if p.negative is None else p.negative[source],
            judged_negative=None if p.judged_negative is None else np.tile(p.judged_negative, k),
        )
        values = None if fallback else engine.values(view, m)
        if values is None:
            marks = m.name in UNJUDGED
            values = [compute(m, [x for g in r for x in g], ideal=i, exact=False) for _, r, i in _rankings(view, marks)]
        out[first : first + k] = np.asarray(values, dtype=np.float64).reshape(k, nq)
    return out


# --- output -------------------------------------------------------------------------------------------------


def _fmt(value: Any, digits: int) -> str:
    return "" if value is None else to_decimal(value, digits)


def _p(value: Optional[float]) -> str:
    if value is None:
        return ""
    if value == 0:
        return "0"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _flip(r: PairResult, digits: int) -> str:
    if r.flip_probability is None:
        return "-"
    text = to_decimal(r.flip_probability, digits) if not isinstance(r.flip_probability, float) else f"{r.flip_probability:.{digits}f}"
    if r.flip_method == "monte carlo" and r.flip_interval is not None:
        lo, hi = r.flip_interval
        return f"≈{text} [{lo:.2f}, {hi:.2f}]"
    return text


def _robust(r: PairResult) -> str:
    return {True: "yes", False: "no", None: "?"}[r.robust]


def _render(c: SystemsComparison, fmt: str, digits: int) -> str:
    from tabulate import tabulate

    tablefmt = {"table": "simple", "markdown": "github", "latex": "latex_raw"}[fmt]
    lines = []
    what = f"{c.test} test, alpha {c.alpha:g}" + (f", {c.correction}" if c.correction != "none" else "") if c.test else "no test"
    if c.test in ("randomization", "bootstrap"):
        what += f", {c.resamples:,} resamples seeded with {c.seed}"
    lines.append(f"{len(c.systems)} systems, {c.queries} queries ({'exact' if c.exact else 'float'}); {what}")
    if fmt != "table":
        lines.append("")
        lines.extend(_summary(c, fmt, digits, tablefmt))
    for m in c.measures:
        lines.append("")
        lines.append(f"{m}: leaderboard" if fmt != "markdown" else f"### {m}: leaderboard")
        body = [
            [s.rank, s.system, _fmt(s.mean, digits), _fmt(s.min_mean, digits), _fmt(s.max_mean, digits),
             f"{s.best_rank}" if s.best_rank == s.worst_rank else f"{s.best_rank}-{s.worst_rank}"]
            for s in c.standings[m]
        ]
        head = ["rank", "system", "mean", "min", "max", "rank range"]
        lines.append(tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True))
        pairs = c.pairs[m]
        if not pairs:
            continue
        lines.append("")
        lines.append(f"{m}: pairs" if fmt != "markdown" else f"### {m}: pairs")
        head = ["A", "B", "E[A-B]", "min", "max", "order"]
        if c.test:
            head += ["p", "p min", "p max", "bounds"] + (["p adj [min, max]"] if c.correction != "none" else []) + ["verdict", "flip", "robust"]
        body = []
        for r in pairs:
            row = [r.a, r.b, _fmt(r.expected_difference, digits), _fmt(r.min_difference, digits), _fmt(r.max_difference, digits),
                   "fixed" if r.order != "some" else "ties"]
            if c.test:
                row += [_p(r.p_value), _p(r.p_min), _p(r.p_max), r.bounds]
                row += [f"{_p(r.p_adjusted)} [{_p(r.p_adjusted_min)}, {_p(r.p_adjusted_max)}]"] if c.correction != "none" else []
                row += [r.verdict, _flip(r, digits), _robust(r)]
            body.append(row)
        lines.append(tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True))
    lines.append("")
    lines.append(
        "min/max: over every tie-breaking; rank range: best and worst rank over every tie-breaking of every system; "
        "order: 'ties' when the tie-breaking decides which mean is larger."
    )
    if c.test:
        lines.append(
            "p: the test on the expected per-query values; p min/max: over every joint tie-breaking of the pair "
            "(exact: attained; certified: never too narrow); flip: P(verdict differs from the verdict on expected values), "
            "≈ Monte Carlo with its 95% interval; robust: the same verdict for every tie-breaking (?: not decided)."
        )
    lines.extend(c.notes)
    text = "\n".join(lines)
    if fmt == "latex":
        text = text.replace("≈", r"$\approx$")
    return text


def _summary(c: SystemsComparison, fmt: str, digits: int, tablefmt: str) -> list[str]:
    """ranx-style: one row per system, one column per measure, the mean and the systems it beats."""
    from tabulate import tabulate

    letters = {s: chr(ord("a") + i) if i < 26 else f"s{i + 1}" for i, s in enumerate(c.systems)}
    body = []
    for s in c.systems:
        row = [letters[s], s]
        for m in c.measures:
            st = next(x for x in c.standings[m] if x.system == s)
            beats = []
            for r in c.pairs[m]:
                if r.better == s:
                    other = r.b if r.a == s else r.a
                    beats.append(letters[other] if r.robust else f"({letters[other]})")
            mark = ",".join(beats)
            cell = f"{_fmt(st.mean, digits)}"
            if mark:
                cell += f"$^{{{mark}}}$" if fmt == "latex" else f"<sup>{mark}</sup>"
            span = f"{st.best_rank}" if st.best_rank == st.worst_rank else f"{st.best_rank}-{st.worst_rank}"
            row.append(f"{cell} [{_fmt(st.min_mean, digits)}, {_fmt(st.max_mean, digits)}] #{span}")
        body.append(row)
    head = ["", "system"] + list(c.measures)
    note = (
        "mean [min, max over tie-breakings] #rank range; "
        + (
            f"superscript x: significantly better than system x ({c.test}, alpha {c.alpha:g}"
            + (f", {c.correction}" if c.correction != "none" else "")
            + ") for every tie-breaking; (x): on expected values, but not for every tie-breaking."
            if c.test
            else "no test."
        )
    )
    return [tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True), "", note]


def _value(value: Any, digits: int) -> Optional[dict[str, Any]]:
    if value is None:
        return None
    if isinstance(value, LogSum):  # the exact text needs sympy; its decimal and float as the sympy value prints them
        value = value.value()
    if isinstance(value, float):
        return {"decimal": to_decimal(value, digits), "float": value}
    return {"exact": to_exact_string(value), "rational": is_rational(value), "decimal": to_decimal(value, digits), "float": to_float(value)}


def _as_dict(c: SystemsComparison, digits: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "systems": list(c.systems),
        "queries": c.queries,
        "skipped": list(c.skipped),
        "exact": c.exact,
        "test": c.test,
        "alpha": c.alpha,
        "correction": c.correction,
        "baseline": c.baseline,
        "resamples": c.resamples if c.test in ("randomization", "bootstrap") else None,
        "seed": c.seed,
        "notes": list(c.notes),
        "measures": {},
    }
    for m in c.measures:
        out["measures"][m] = {
            "leaderboard": [
                {
                    "system": s.system,
                    "rank": s.rank,
                    "best_rank": s.best_rank,
                    "worst_rank": s.worst_rank,
                    "mean": _value(s.mean, digits),
                    "min_mean": _value(s.min_mean, digits),
                    "max_mean": _value(s.max_mean, digits),
                }
                for s in c.standings[m]
            ],
            "pairs": [
                {
                    "a": r.a,
                    "b": r.b,
                    "mean_a": _value(r.mean_a, digits),
                    "mean_b": _value(r.mean_b, digits),
                    "expected_difference": _value(r.expected_difference, digits),
                    "min_difference": _value(r.min_difference, digits),
                    "max_difference": _value(r.max_difference, digits),
                    "order": r.order,
                    "p_value": r.p_value,
                    "p_min": r.p_min,
                    "p_max": r.p_max,
                    "bounds": r.bounds,
                    "p_adjusted": r.p_adjusted,
                    "p_adjusted_min": r.p_adjusted_min,
                    "p_adjusted_max": r.p_adjusted_max,
                    "better": r.better,
                    "flip_probability": _value(r.flip_probability, digits),
                    "flip_method": r.flip_method,
                    "flip_samples": r.flip_samples,
                    "flip_interval": None if r.flip_interval is None else list(r.flip_interval),
                    "robust": r.robust,
                    "outcomes": r.outcomes,
                }
                for r in c.pairs[m]
            ],
        }
    return out


def _plot(c: SystemsComparison, path: Optional[str], measure: Optional[str]) -> Any:
    try:
        import matplotlib

        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise TieawareError("plots need matplotlib, which is not installed: pip install 'tieaware[plots]'") from None
    chosen = list(c.measures) if measure is None else [measure]
    for m in chosen:
        if m not in c.standings:
            raise bad("measure", m, f"must be one of {', '.join(c.measures)}")
    fig, axes = plt.subplots(1, len(chosen), figsize=(5.5 * len(chosen), 0.55 * len(c.systems) + 1.6), squeeze=False)
    for ax, m in zip(axes[0], chosen):
        rows = c.standings[m][::-1]
        y = np.arange(len(rows))
        mean = np.array([to_float(s.mean) for s in rows])
        lo = np.array([to_float(s.min_mean) for s in rows])
        hi = np.array([to_float(s.max_mean) for s in rows])
        ax.hlines(y, lo, hi, color="tab:blue", linewidth=4, alpha=0.35, label="range over tie-breakings")
        ax.plot(mean, y, "o", color="tab:blue", label="expected mean")
        ax.set_yticks(y)
        ax.set_yticklabels([s.system for s in rows])
        for yy, s, h in zip(y, rows, hi):
            span = f"{s.best_rank}" if s.best_rank == s.worst_rank else f"{s.best_rank}–{s.worst_rank}"
            ax.annotate(f"rank {span}", (h, yy), xytext=(6, -3), textcoords="offset points", fontsize=8)
        ax.set_xlabel(m)
        ax.set_title(f"{m}: means, tie ranges, rank intervals", fontsize=10)
        ax.margins(x=0.25)
        ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig

