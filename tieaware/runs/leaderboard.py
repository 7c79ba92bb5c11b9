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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Optional

from tieaware.io import board_json, board_plot, board_table, board_text
from tieaware.io.trec import Qrels, Run
from tieaware.model.errors import bad
from tieaware.model.logsum import LogSum
from tieaware.model.names import Measure
from tieaware.model.params import flag
from tieaware.runs import intervals as iv
from tieaware.runs import significance as sig
from tieaware.runs.board_intervals import MeasureIntervals, measure_intervals
from tieaware.runs.board_columns import Column, system_columns
from tieaware.runs.board_draws import DRAW_BUDGET, MIN_DRAWS, SAMPLES
from tieaware.runs.board_pairs import PairResult, pair_results
from tieaware.runs.comparison import spreadable
from tieaware.runs.evaluate import MeasureSpec, layer_module, measure_list, natural_key
from tieaware.runs.standings import Standing, rank_systems

__all__ = [
    "compare_systems",
    "compare_prepared",
    "sympy_values",
    "board",
    "board_measures",
    "check_options",
    "baseline_names",
    "SystemsComparison",
    "Standing",
    "PairResult",
    "SAMPLES",
    "DRAW_BUDGET",
    "MIN_DRAWS",
    "ALPHA",
    "FORMATS",
]

ALPHA = 0.05
#: What :meth:`SystemsComparison.render` writes.
FORMATS = ("table", "markdown", "latex", "json", "csv", "html")


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
    #: Every baseline (``baseline`` is the first, or None): pairs are each run against each of them.
    baselines: tuple[str, ...] = ()
    #: The confidence level in percent, or None (no intervals).
    ci: Optional[float] = None
    #: Per measure (with *ci*): every system's and pair's intervals, effect sizes and rank intervals.
    intervals: dict[str, MeasureIntervals] = field(default_factory=dict)
    #: The query ids compared, in order, and per measure and system the per-query (expected, smallest, largest)
    #: values as floats (what the per-query long form and the HTML spread plot show).
    query_ids: tuple[str, ...] = ()
    per_query: dict[str, dict[str, tuple[Any, Any, Any]]] = field(default_factory=dict)

    def render(self, format: str = "table", digits: int = 4) -> str:
        """The comparison as text: ``table``, ``markdown``, ``latex``, ``json``, ``csv`` or ``html`` (one page)."""
        if format not in FORMATS:
            raise bad("format", format, f"must be one of {', '.join(FORMATS)}")
        if format == "json":
            return json.dumps(self.as_dict(digits), indent=2)
        if format == "csv":
            return board_table.csv_text(self, digits)
        if format == "html":
            from tieaware.io import board_html

            return board_html.page(self, digits)
        return board_text.render(self, format, digits)

    def records(self, digits: int = 4) -> list[dict[str, Any]]:
        """One dict per system and measure, then per pair and measure: every value as a float (the CSV's rows)."""
        return board_table.records(self, digits)

    def dataframe(self) -> Any:
        """PyTerrier's shape: ``name, measure, value, +, -, p-value, corrected p-value`` (pandas).

        One row per system and measure; with baselines one per system, baseline
        and measure (a ``baseline`` column), ``+``/``-`` the queries where the
        system's expected value is above/below the baseline's, the p-values the
        test's on expected values (raw and corrected).  Then the tie-aware columns:
        ``min``, ``max`` (the mean over tie-breakings), ``p min``, ``p max``.
        """
        return board_table.pyterrier_frame(self)

    def per_query_dataframe(self) -> Any:
        """The long per-query form (pandas): ``name, qid, measure, value, min, max``, one row per system, query, measure."""
        return board_table.per_query_frame(self)

    def to_long(self) -> Any:
        """:meth:`per_query_dataframe`, under the name :meth:`tieaware.Evaluation.to_long` has."""
        return self.per_query_dataframe()

    def to_polars(self) -> Any:
        """:meth:`per_query_dataframe` as a polars DataFrame (needs polars)."""
        from tieaware.io.frames import polars_of

        return polars_of(board_table.per_query_frame(self))

    def as_dict(self, digits: int = 4) -> dict[str, Any]:
        """Every value as ``{"exact", "decimal", "float"}`` (floats only for p-values), JSON-ready."""
        return board_json.as_dict(self, digits)

    def plot(self, path: Optional[str] = None, measure: Optional[str] = None) -> Any:
        """A matplotlib figure: each system's expected mean, its tie range and its rank interval.

        Needs matplotlib (``pip install 'tieaware[plots]'``).  With *path* the
        figure is saved there.  Returns the figure.
        """
        return board_plot.plot(self, path, measure)


def check_options(
    alpha: Any, correction: Any, test: Any, resamples: Any, seed: Any, samples: Any, limit: Any, ci: Any = None
) -> None:
    """Raise :class:`tieaware.model.errors.TieawareError` naming the first bad option of :func:`compare_systems`."""
    if ci is not None:
        iv.check_ci(ci)
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


def baseline_names(baseline: Any, names: Sequence[str]) -> tuple[str, ...]:
    """*baseline* (None, a run's name, or a sequence of names) as a tuple of distinct run names.

    >>> baseline_names(["b", "a"], ["a", "b", "c"])
    ('b', 'a')
    """
    if baseline is None:
        return ()
    chosen = (baseline,) if isinstance(baseline, str) else tuple(baseline) if isinstance(baseline, Sequence) else None
    if not chosen or not all(isinstance(b, str) for b in chosen):
        raise bad("baseline", baseline, "must be None, a run's name or a sequence of runs' names")
    for b in chosen:
        if b not in names:
            raise bad("baseline", b, f"must be one of the runs' names: {', '.join(names)}")
    if len(set(chosen)) < len(chosen):
        raise bad("baseline", list(chosen), "must name each baseline once")
    return chosen


def compare_systems(
    qrels: Any,
    runs: Any,
    measures: MeasureSpec,
    *,
    test: Optional[str] = "t",
    alpha: float = ALPHA,
    correction: str = "none",
    baseline: Any = None,
    layer: str = "fast",
    exact: bool = True,
    resamples: int = sig.RESAMPLES,
    seed: int = sig.SEED,
    samples: Optional[int] = None,
    limit: int = sig.ENUMERATION_LIMIT,
    progress: bool = False,
    ci: Optional[float] = None,
) -> SystemsComparison:
    """Compare *runs* on *measures* with a paired *test*, over every tie-breaking of every run.

    *runs* is a mapping {name: run} or a sequence of runs (named run_1,
    run_2, ...); qrels and runs come in any shape :func:`tieaware.evaluate`
    takes.  Queries: those with qrels in every run.  Pairs: each run against
    *baseline* (A = the run, B = the baseline; a sequence of names: against
    each of them, two baselines compared once), or every pair (A before B in
    *runs*' order).  *test*: one of ``t``, ``wilcoxon``, ``sign``,
    ``randomization``, ``bootstrap`` (:mod:`tieaware.runs.significance`), or
    None for the leaderboard alone.  *correction* (``none``, ``bonferroni``,
    ``holm``) is applied per measure across every pair its table shows
    (all the baselines' together).

    *ci* (a level in percent, e.g. 95): per system and per pair the t and
    the paired bootstrap percentile intervals (*resamples* seeded
    resamples) at the expected per-query values and over every tie-breaking,
    Cohen's d_z, the probability of superiority, win/tie/loss counts, and
    each system's rank interval over topics and over topics and ties
    (:mod:`tieaware.runs.intervals`; ``intervals`` of the result).

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
    ms = board_measures(measures)
    exact = flag(exact, "exact")
    layer_module(layer)
    check_options(alpha, correction, test, resamples, seed, samples, limit, ci)
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
        ci=ci,
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


def board_measures(measures: MeasureSpec) -> tuple[Measure, ...]:
    """The measures a leaderboard can take (those with a spread; RBO compares two rankings and is refused)."""
    ms = spreadable(measure_list(measures))
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
    baseline: Any = None,
    layer: str = "fast",
    exact: bool = True,
    resamples: int = sig.RESAMPLES,
    seed: int = sig.SEED,
    samples: Optional[int] = None,
    limit: int = sig.ENUMERATION_LIMIT,
    progress: bool = False,
    skipped: Sequence[str] = (),
    ci: Optional[float] = None,
) -> SystemsComparison:
    """:func:`compare_systems` on runs already read as columns ({name: :class:`tieaware.io.columns.Prepared`}).

    The queries compared are those every prepared run holds (each holds
    only queries with qrels); the others are reported in ``skipped``.
    """
    ms = board_measures(measures)
    exact = flag(exact, "exact")
    layer_module(layer)
    check_options(alpha, correction, test, resamples, seed, samples, limit, ci)
    names = tuple(prepared)
    if len(names) < 2:
        raise bad("runs", list(names), "must hold at least two runs")
    baseline_names(baseline, names)
    sets = [set(p.qids) for p in prepared.values()]
    queries = tuple(sorted(set.intersection(*sets), key=natural_key))
    if not queries:
        raise bad("runs", sorted(set.union(*sets), key=natural_key)[:5], "share no query that has qrels")
    skipped = tuple(sorted(set(skipped) | (set.union(*sets) - set(queries)), key=natural_key))
    if test is not None or ci is not None:
        sig._scipy()  # fail early, before any work, when scipy is missing
    memo: dict = {}  # the exact kernels' results, shared by the runs of this call (not kept past it)
    columns = {
        name: system_columns(p, ms, queries, exact=exact, layer=layer, progress=progress, label=name, memo=memo)
        for name, p in prepared.items()
    }
    return board(
        columns, prepared, ms, queries, skipped, test=test, alpha=alpha, correction=correction, baseline=baseline, exact=exact,
        resamples=resamples, seed=seed, samples=samples, limit=limit, ci=ci,
    )


def board(
    columns: Mapping[str, dict[str, "Column"]],
    prepared: Mapping[str, Any],
    ms: Sequence[Measure],
    queries: Sequence[str],
    skipped: Sequence[str],
    *,
    test: Optional[str],
    alpha: float,
    correction: str,
    baseline: Any,
    exact: bool,
    resamples: int,
    seed: int,
    samples: Optional[int],
    limit: int,
    ci: Optional[float] = None,
) -> SystemsComparison:
    """The leaderboard and the pairs from every system's per-query columns (:func:`system_columns`, over *queries*).

    *prepared* gives the rows of a system's varying queries when Monte Carlo
    draws shuffle them: a :class:`tieaware.io.columns.Prepared`, or an object
    with a ``drawn_view(m, queries)`` method (the streamed path,
    :mod:`tieaware.runs.board_stream`).  Arguments are checked by the callers.
    """
    names = tuple(columns)
    baselines = baseline_names(baseline, names)
    pairs = _pairs(names, baselines)
    standings, results, notes, intervals, per_query = {}, {}, [], {}, {}
    for m in ms:
        key = str(m)
        cols = {name: columns[name][key] for name in names}
        standings[key] = rank_systems(names, cols)
        results[key], why = pair_results(
            key, pairs, cols, prepared, m, queries, test, alpha, correction, resamples, seed, samples, limit, exact, names
        )
        notes.extend(why)
        if ci is not None:
            intervals[key] = measure_intervals(cols, pairs, ci=float(ci), resamples=resamples, seed=seed, limit=limit, exact=exact)
        per_query[key] = {name: tuple(cols[name].floats(k) for k in ("expected", "worst", "best")) for name in names}
    return SystemsComparison(
        systems=names,
        measures=tuple(str(m) for m in ms),
        queries=len(queries),
        exact=exact,
        test=test,
        alpha=float(alpha),
        correction=correction,
        baseline=baselines[0] if baselines else None,
        resamples=resamples,
        seed=seed,
        standings=standings,
        pairs=results,
        skipped=skipped,
        notes=tuple(dict.fromkeys(notes)),
        baselines=baselines,
        ci=None if ci is None else float(ci),
        intervals=intervals,
        query_ids=tuple(queries),
        per_query=per_query,
    )


def _pairs(names: Sequence[str], baselines: Sequence[str]) -> list[tuple[str, str]]:
    """Each run against each baseline (A = the run), two baselines once; without baselines every pair."""
    if not baselines:
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    pairs: list[tuple[str, str]] = []
    for b in baselines:
        for name in names:
            if name != b and (b, name) not in pairs:
                pairs.append((name, b))
    return pairs
