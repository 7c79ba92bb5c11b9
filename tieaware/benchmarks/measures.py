"""How fast are the tie-aware measures, and what do ties cost?

Three measurements, each a set of ratios taken in one run of this module:

1. **fast vs reference** on a ranking that is one tie group of n = 4..9
   documents: the closed forms against the enumeration of every ordering.
2. **tie-aware vs tie-oblivious** on a synthetic run of 50 queries × 1,000
   documents with heavy ties, per measure, at equal number type: exact
   tie-aware (Fractions, exact sympy for log discounts) against an exact
   tie-oblivious baseline, and float tie-aware (``exact=False``) against a
   float baseline.  McSherry & Najork (2008) report the overhead of ties as
   negligible, and about 25% for RR.
3. **wall time** of exact evaluation of all eight measures over that run,
   against a target of 2 s on a 2-core machine: once in a fresh interpreter
   (cold caches), by wall clock and CPU time, and as each query's least CPU
   time over repeats (warm).

The tie-oblivious baseline is written here, plainly: Python loops over the
run's labels after breaking ties as trec_eval does (score descending, then
docno descending), with the same number type as the side it is compared to.
Both sides take their input in the public input form and normalise it with
:func:`tieaware.model.ranking.groups`, so both pay the same input checks (the
report times those on their own).  Before timing, the baseline is checked
to equal :mod:`tieaware.fast` on the untied ordering, exactly.

>>> run_ = synthetic_run(queries=2, docs=30)
>>> len(run_), len(run_[0].labels)
(2, 30)
>>> plain_measure("P@10", untied(run_[0]), exact=True) == MEASURES["P@10"](untied(run_[0]), True)
True

Beware: timings are of this machine at this moment; only the ratios,
measured side by side in one run, are meant to travel.  On a shared
machine, read the CPU-time columns: wall time counts other processes too.
"""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tabulate import tabulate
from tqdm import tqdm

from tieaware import fast, reference
from tieaware.model.exact import Exact, divide
from tieaware.model.gains import discounted_sum
from tieaware.model.ranking import Ranking, flatten, from_scores, groups

__all__ = [
    "MEASURES",
    "Query",
    "synthetic_run",
    "tied",
    "untied",
    "plain_measure",
    "exact_wall_time",
    "run",
]

#: The eight measures, as tie-aware callables f(ranking, exact).
MEASURES: dict[str, Callable[[Ranking, bool], Exact]] = {
    "P@10": lambda r, e: fast.precision(r, 10, exact=e),
    "R@100": lambda r, e: fast.recall(r, 100, exact=e),
    "F1@10": lambda r, e: fast.f1(r, 10, exact=e),
    "AP": lambda r, e: fast.average_precision(r, exact=e),
    "AP@100": lambda r, e: fast.average_precision(r, 100, exact=e),
    "RR": lambda r, e: fast.reciprocal_rank(r, exact=e),
    "nDCG@10": lambda r, e: fast.ndcg(r, 10, exact=e),
    "nDCG": lambda r, e: fast.ndcg(r, exact=e),
}

#: The same measures in the reference layer (exact only: it enumerates).
REFERENCE: dict[str, Callable[[Ranking], Exact]] = {
    "P@10": lambda r: reference.precision(r, 10),
    "R@100": lambda r: reference.recall(r, 100),
    "F1@10": lambda r: reference.f1(r, 10),
    "AP": lambda r: reference.average_precision(r),
    "AP@100": lambda r: reference.average_precision(r, 100),
    "RR": lambda r: reference.reciprocal_rank(r),
    "nDCG@10": lambda r: reference.ndcg(r, 10),
    "nDCG": lambda r: reference.ndcg(r),
}

SEED = 20080330  # ECIR 2008, where McSherry & Najork published the closed forms
TARGET_SECONDS = 2.0


# -- the synthetic run ----------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """One query's retrieved documents: docnos, integer scores, graded labels."""

    docnos: tuple[str, ...]
    scores: tuple[int, ...]
    labels: tuple[int, ...]


def synthetic_run(queries: int = 50, docs: int = 1000, seed: int = SEED) -> list[Query]:
    """A deterministic run with heavy ties and about 10% relevant documents.

    Scores are integers 0..20, so 1,000 documents fall into about 21 tie
    groups of about 50; labels are 0 (90%), 1 (7%) or 2 (3%).

    >>> q = synthetic_run(queries=1, docs=5)[0]
    >>> len(q.docnos), all(0 <= s <= 20 for s in q.scores), set(q.labels) <= {0, 1, 2}
    (5, True, True)
    """
    rng = random.Random(seed)
    out = []
    for _ in range(queries):
        docnos = tuple(f"doc{d:05d}" for d in range(docs))
        scores = tuple(rng.randint(0, 20) for _ in range(docs))
        labels = tuple(rng.choices((0, 1, 2), weights=(90, 7, 3), k=docs))
        out.append(Query(docnos, scores, labels))
    return out


def tied(q: Query) -> Ranking:
    """The query as a tied ranking: equal scores form a tie group."""
    return from_scores(list(q.scores), list(q.labels))


def untied(q: Query) -> list[Fraction]:
    """Labels in trec_eval's order: score descending, then docno descending."""
    order = sorted(zip(q.scores, q.docnos, q.labels), reverse=True)
    return [Fraction(x) for _, _, x in order]


# -- the tie-oblivious baseline -------------------------------------------------


def _best_labels(o: Sequence[Fraction], k: int) -> list[Fraction]:
    # The k best labels, by counting the few distinct ones as tieaware does:
    # the ideal DCG is the same on both sides, so it should cost the same.
    counts = Counter((x.numerator, x.denominator) for x in o)
    ordered = sorted(((Fraction(p, q), n) for (p, q), n in counts.items()), reverse=True)
    return [x for x, n in ordered for _ in range(n)][:k]


def _plain_ndcg(o: Sequence[Fraction], k: int | None, exact: bool) -> Exact:
    top = o if k is None else o[:k]
    ideal = _best_labels(o, len(top))
    if exact:
        # The exact log2 discount is the one tieaware uses, so both sides
        # build the same kind of sympy value.
        got = discounted_sum({j: x for j, x in enumerate(top, 1) if x}, "log2")
        best = discounted_sum({j: x for j, x in enumerate(ideal, 1) if x}, "log2")
        return divide(got, best)
    got_f = sum(float(x) / math.log2(j + 1) for j, x in enumerate(top, 1))
    best_f = sum(float(x) / math.log2(j + 1) for j, x in enumerate(ideal, 1))
    return 0.0 if best_f == 0 else got_f / best_f


def plain_measure(name: str, ordering: Ranking, exact: bool) -> Exact:
    """The ordinary, tie-oblivious measure *name* of an untied ordering.

    Fractions when *exact*, floats otherwise; relevant means label >= 1 and
    num_rel is the relevant documents retrieved, as in :data:`MEASURES`.

    >>> plain_measure("AP", [1, 0, 1], exact=True)
    Fraction(5, 6)
    """
    o = flatten(groups(ordering))  # the same input handling as the tie-aware side
    one = Fraction(1)
    ratio: Callable[[int, int], Any] = Fraction if exact else (lambda a, b: a / b)
    if name == "P@10":
        return ratio(sum(1 for x in o[:10] if x >= one), 10)
    if name in ("R@100", "F1@10"):
        num_rel = sum(1 for x in o if x >= one)  # only the measures that need it pay for it
        k = int(name.split("@")[1])
        hits = sum(1 for x in o[:k] if x >= one)
        if name == "R@100":
            return ratio(0, 1) if num_rel == 0 else ratio(hits, num_rel)
        return ratio(2 * hits, k + num_rel)
    if name in ("AP", "AP@100"):
        num_rel = sum(1 for x in o if x >= one)
        if num_rel == 0:
            return ratio(0, 1)
        depth = len(o) if name == "AP" else 100
        total, hits = ratio(0, 1), 0
        for j, x in enumerate(o[:depth], 1):
            if x >= one:
                hits += 1
                total += ratio(hits, j)
        return total / num_rel
    if name == "RR":
        for j, x in enumerate(o, 1):
            if x >= one:
                return ratio(1, j)
        return ratio(0, 1)
    if name in ("nDCG@10", "nDCG"):
        return _plain_ndcg(o, 10 if name == "nDCG@10" else None, exact)
    raise KeyError(name)


# -- timing -------------------------------------------------------------------------


def _times(f: Callable[[], Any]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call of f.

    CPU time leaves out the time other processes held the core, so on a
    shared machine it is the steadier of the two.
    """
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - start_wall, time.process_time() - start_cpu


@dataclass(frozen=True)
class Timing:
    """Seconds over a whole run: Σ over queries of each query's least and median wall time, least CPU time."""

    best: float
    median: float
    cpu: float


def _paired(
    a: Callable[[Any], Any], b: Callable[[Any], Any], items_a: Sequence[Any], items_b: Sequence[Any], repeats: int
) -> tuple[Timing, Timing]:
    """Time a(x) and b(y) per query, alternately, *repeats* times; sum per-query figures.

    Per query, not per run: on a shared machine a pause hits one query's
    millisecond, not a whole repeat, and the least time per query drops it.
    """
    ta: list[list[tuple[float, float]]] = [[] for _ in items_a]
    tb: list[list[tuple[float, float]]] = [[] for _ in items_b]
    for _ in range(repeats):
        for i, (x, y) in enumerate(zip(items_a, items_b)):
            ta[i].append(_times(lambda: a(x)))
            tb[i].append(_times(lambda: b(y)))

    def total(times: list[list[tuple[float, float]]]) -> Timing:
        return Timing(
            sum(min(w for w, _ in t) for t in times),
            sum(statistics.median(w for w, _ in t) for t in times),
            sum(min(c for _, c in t) for t in times),
        )

    return total(ta), total(tb)


def _best(f: Callable[[], Any], setup: Callable[[], Any] = lambda: None, budget: float = 0.05, at_least: int = 3) -> float:
    """The least CPU time of f() over at least *at_least* calls and about *budget* CPU seconds."""
    times: list[float] = []
    while len(times) < at_least or sum(times) < budget:
        setup()
        times.append(_times(f)[1])
    return min(times)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


# -- 1. fast vs reference -------------------------------------------------------------


def _one_group(n: int) -> Ranking:
    # Graded labels 0, 1, 2 in turn: n!/(a!b!c!) distinct orderings to enumerate.
    return [[i % 3 for i in range(n)]]


def _clear_reference_cache() -> None:
    # The reference caches small enumerations; time it as on a fresh ranking.
    from tieaware.reference import orderings

    clear = getattr(getattr(orderings, "_all_orderings", None), "cache_clear", None)
    if clear:
        clear()


def fast_vs_reference(sizes: Sequence[int], budget: float) -> str:
    """Table: reference time / fast time per measure and group size, exact mode."""
    from tieaware.reference.orderings import count_arrangements

    rows = {name: [name] for name in MEASURES}
    for n in tqdm(sizes, desc="fast vs reference", disable=None, file=sys.stderr):
        r = _one_group(n)
        for name, f in MEASURES.items():
            ref = REFERENCE[name]
            if ref(r) != f(r, True):  # also warms what both share (log units, sympy)
                raise AssertionError(f"fast != reference for {name} on {r}")
            ref_time = _best(lambda: ref(r), setup=_clear_reference_cache, budget=budget)
            fast_time = _best(lambda: f(r, True), budget=budget)
            rows[name].append(f"{ref_time / fast_time:,.0f}×")
    headers = ["measure"] + [f"n={n} ({count_arrangements(_one_group(n)[0]):,} orderings)" for n in sizes]
    return tabulate(list(rows.values()), headers=headers, stralign="right")


# -- 2. tie-aware vs tie-oblivious -------------------------------------------------------


def _check_baseline(queries: Sequence[Query]) -> None:
    # An honest baseline computes the same numbers as tieaware on an untied ordering.
    for q in queries[:2]:
        o = untied(q)
        for name, f in MEASURES.items():
            for exact in (True, False):
                want, got = f(o, exact), plain_measure(name, o, exact)
                same = want == got if exact else math.isclose(want, got, rel_tol=1e-12, abs_tol=1e-15)
                if not same:
                    raise AssertionError(f"baseline {name} (exact={exact}) gives {got}, tieaware gives {want}")


def overhead(queries: Sequence[Query], repeats: int) -> str:
    """Table: tie-aware vs tie-oblivious time per measure, exact and float.

    The first row times, on its own, the input normalisation that both sides
    include (:func:`tieaware.model.ranking.groups` on 1,000 labels), so a reader
    can see how much of each figure it is.
    """
    _check_baseline(queries)
    tied_rs = [tied(q) for q in queries]
    untied_rs = [untied(q) for q in queries]
    g_tied, g_untied = _paired(groups, groups, tied_rs, untied_rs, repeats)
    rows = [
        [
            "input normalisation",
            "both",
            _ms(g_untied.best),
            _ms(g_tied.best),
            f"{g_tied.best / g_untied.best:.2f}",
            f"{g_tied.median / g_untied.median:.2f}",
            f"{g_tied.cpu / g_untied.cpu:.2f}",
        ]
    ]
    jobs = [(name, exact) for exact in (True, False) for name in MEASURES]
    for name, exact in tqdm(jobs, desc="tie-aware vs oblivious", disable=None, file=sys.stderr):
        f = MEASURES[name]
        aware = lambda r: f(r, exact)  # noqa: E731
        plain = lambda o: plain_measure(name, o, exact)  # noqa: E731
        [aware(r) for r in tied_rs], [plain(o) for o in untied_rs]  # warm caches (log units) on both sides alike
        ta, tp = _paired(aware, plain, tied_rs, untied_rs, repeats)
        rows.append(
            [
                name,
                "exact" if exact else "float",
                _ms(tp.best),
                _ms(ta.best),
                f"{ta.best / tp.best:.2f}",
                f"{ta.median / tp.median:.2f}",
                f"{ta.cpu / tp.cpu:.2f}",
            ]
        )
    headers = ["measure", "numbers", "oblivious ms", "tie-aware ms", "ratio (min)", "ratio (median)", "ratio (CPU)"]
    return tabulate(rows, headers=headers, stralign="right")


# -- 3. wall time of exact evaluation -------------------------------------------------------


def exact_wall_time(queries: Sequence[Query]) -> dict[str, dict[str, float]]:
    """Wall and CPU seconds to evaluate each measure exactly over every query, once.

    The rankings are built (grouped by score) before the clock starts.  CPU
    time leaves out the time other processes took the core, so on a busy
    machine it is the better guess at the wall time on an idle one.
    """
    rankings = [tied(q) for q in queries]
    wall, cpu = {}, {}
    for name, f in MEASURES.items():
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        for r in rankings:
            f(r, True)
        wall[name], cpu[name] = time.perf_counter() - start_wall, time.process_time() - start_cpu
    return {"wall": wall, "cpu": cpu}


def _cold_wall_time(n_queries: int, docs: int) -> dict[str, dict[str, float]]:
    """exact_wall_time in a fresh interpreter: no warm caches of ours or sympy's."""
    code = (
        "import json\n"
        "from tieaware.benchmarks.measures import exact_wall_time, synthetic_run\n"
        f"print(json.dumps(exact_wall_time(synthetic_run({n_queries}, {docs}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def _warm_time(queries: Sequence[Query], repeats: int) -> dict[str, float]:
    """Per measure, Σ over queries of the least CPU time of *repeats* exact evaluations."""
    rankings = [tied(q) for q in queries]
    out = {}
    for name, f in tqdm(MEASURES.items(), desc="wall time", disable=None, file=sys.stderr):
        out[name] = sum(min(_times(lambda: f(r, True))[1] for _ in range(repeats)) for r in rankings)
    return out


def wall_time(queries: Sequence[Query], repeats: int) -> str:
    """Table: seconds for exact evaluation of all measures over the run, cold and warm."""
    cold = _cold_wall_time(len(queries), len(queries[0].labels))
    warm = _warm_time(queries, repeats)
    rows = [[name, f"{cold['wall'][name]:.3f}", f"{cold['cpu'][name]:.3f}", f"{warm[name]:.3f}"] for name in MEASURES]
    total_wall, total_cpu = sum(cold["wall"].values()), sum(cold["cpu"].values())
    rows.append(["all measures", f"{total_wall:.3f}", f"{total_cpu:.3f}", f"{sum(warm.values()):.3f}"])
    table = tabulate(rows, headers=["measure", "cold wall s", "cold CPU s", "warm CPU s"], stralign="right")

    def verdict(seconds: float) -> str:
        return f"{'met' if seconds < TARGET_SECONDS else 'NOT met'} ({seconds:.2f} s)"

    return (
        f"{table}\ntarget, all measures exact under {TARGET_SECONDS:g} s: by CPU time {verdict(total_cpu)}, "
        f"by wall clock {verdict(total_wall)}\n(the evaluation is single-threaded: wall exceeds CPU time only "
        f"when other processes hold the cores; load average now {_load()})"
    )


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "unknown"


# -- the report -----------------------------------------------------------------------------


def run(quick: bool = False) -> str:
    """Run all three measurements; return the printable report.

    *quick* (a smoke run, well under 20 s) uses 10 queries, groups of 4..7
    and fewer repeats; its figures are rougher but the same in kind.
    """
    n_queries = 10 if quick else 50
    docs = 1000
    repeats = 2 if quick else 9
    sizes = range(4, 8) if quick else range(4, 10)
    queries = synthetic_run(n_queries, docs)
    groups_per_query = statistics.mean(len(tied(q)) for q in queries[:5])
    relevant = statistics.mean(sum(1 for x in q.labels if x >= 1) for q in queries)
    parts = [
        "## Measures: fast vs reference, tie-aware vs tie-oblivious, exact wall time",
        f"mode: {'quick' if quick else 'full'}; repeats: {repeats}; "
        "timers: time.perf_counter (wall), time.process_time (CPU)",
        "",
        "### fast vs reference (speed-up = reference CPU time / fast CPU time, exact, one tie group)",
        "labels 0, 1, 2 in turn; reference timed with its enumeration cache cleared; results checked equal",
        fast_vs_reference(sizes, budget=0.02 if quick else 0.2),
        "",
        f"### tie-aware vs tie-oblivious ({n_queries} queries × {docs} documents)",
        f"scores 0..20 (about {groups_per_query:.0f} tie groups per query), labels 0/1/2, "
        f"{relevant:.0f} relevant per query on average; seed {SEED}",
        "oblivious: plain Python loops over the labels in trec_eval order (score, then docno, descending),",
        "same number type (exact: Fraction + exact sympy log2; float: float), same input normalisation;",
        "checked equal to tieaware on the untied ordering. ratio = tie-aware time / oblivious time, from per-query",
        "least (or median) wall times summed over queries; ratio (CPU): the same from least CPU times (robust to load).",
        overhead(queries, repeats),
        "",
        f"### exact evaluation of all measures over the run ({n_queries} queries × {docs} documents)",
        "cold: first evaluation in a fresh interpreter (imports excluded), wall clock and CPU time;",
        "warm: per query, the least CPU time of the repeats, summed",
        wall_time(queries, repeats),
    ]
    return "\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    print(run(quick="--quick" in sys.argv))
    print(f"cores: {os.cpu_count()}; python {sys.version.split()[0]}")
