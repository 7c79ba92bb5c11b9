"""One evaluation, cut into parts: the per-partition function every scaled path shares.

A *part* is a set of whole queries joined to their qrels and grouped by tied
score, a :class:`~tieaware.io.columns.Prepared`, whatever it came from: a
stretch of a streamed TREC file, a Parquet row group, a shard of a
``--jobs`` run, a Dask partition, a score matrix.  :func:`evaluate_part`
evaluates one part through the engines' public functions
(:func:`tieaware.runs.evaluate.evaluate_prepared`, and for the spread
:mod:`tieaware.runs.spread_engine` by way of :mod:`tieaware.runs.comparison`)
and returns every query's values; :func:`combine` joins the parts.

**Partitioning never changes a result.**  A query's value depends only on
its own rows (the engines sum per query, in the query's own group order), and
:func:`combine` puts the queries in one canonical order (natural order of
their ids) before anything is summed; the means are exact (Fractions) or
correctly rounded (``math.fsum``), so they equal the one-part means bit for
bit however the queries were split (tests/test_scale.py checks 1, 2 and 7
parts and shuffled input).

>>> import io
>>> from tieaware.io.columns import prepare, read_table
>>> from tieaware.runs.evaluate import measure_list
>>> qrels = read_table(io.BytesIO(b"q1 0 a 1\\nq2 0 b 1\\n"), "qrels")
>>> one = read_table(io.BytesIO(b"q1 Q0 a 1 2 r\\nq1 Q0 b 2 2 r\\n"), "run")
>>> two = read_table(io.BytesIO(b"q2 Q0 b 1 1 r\\n"), "run")
>>> ms = measure_list("P@1")
>>> parts = [evaluate_part(prepare(qrels, run), ms, exact=True) for run in (one, two)]
>>> combine(parts, ms, exact=True).tied.mean["P@1"]      # (1/2 + 1) / 2
Fraction(3, 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Optional, Union

import numpy as np

from tieaware.model.exact import Exact
from tieaware.model.names import Measure
from tieaware.runs.evaluate import Evaluation, finish, evaluate_prepared, natural_key

__all__ = ["Part", "Combined", "evaluate_part", "combine"]


@dataclass
class Part:
    """What one part yields: every query's values, keyed by qid."""

    qids: list[str]
    #: {qid: {measure: tie-aware value}}
    tied: dict[str, dict[str, Exact]]
    #: {qid: {measure: value in trec_eval's order}}, when asked for
    trec: Optional[dict[str, dict[str, Exact]]] = None
    #: {qid: {measure: QueryStats}} (worst, best, variance), when asked for
    spread: Optional[dict[str, dict[str, Any]]] = None
    #: {qid: (num_ret, num_rel, num_rel_ret)} at the relevance level, when asked for
    counts: Optional[dict[str, tuple[int, int, int]]] = None
    #: run documents of the evaluated queries, and their tie groups of more than one document
    docs: int = 0
    groups: int = 0
    skipped_run: list[str] = field(default_factory=list)
    skipped_qrels: list[str] = field(default_factory=list)
    #: {qid: {measure: trec_eval's double}} (:mod:`tieaware.io.trec_doubles`), for the measures asked for
    doubles: dict[str, dict[str, float]] = field(default_factory=dict)
    #: queries left with no document by -M and -J in trec_eval's order
    empty: list[str] = field(default_factory=list)


def evaluate_part(
    prepared: Any,
    measures: tuple[Measure, ...],
    *,
    exact: bool,
    layer: str = "fast",
    trec: Union[bool, str] = False,
    spread: bool = False,
    level: Optional[object] = None,
    tie_break: Optional[str] = None,
    depth: Optional[int] = None,
    judged_only: bool = False,
    doubles: tuple[Measure, ...] = (),
) -> Part:
    """Every query of one part: tie-aware values, and on request trec_eval-order values, spreads and counts.

    *trec* names the preset of the second column (True: trec_eval; :mod:`tieaware.model.tie_presets`).

    With ``tie_break="trec_eval"`` the part's main values (:attr:`Part.tied`) are those in trec_eval's order;
    *depth* and *judged_only* are trec_eval's ``-M`` and ``-J``, as in :func:`~tieaware.runs.evaluate.evaluate_prepared`
    (not with *spread* or *level*).  *doubles* names measures whose per-query doubles, as trec_eval's C code
    computes them in its order, go to :attr:`Part.doubles` (the rows must carry trec_eval's order); with -M or -J
    and rows in that order, :attr:`Part.empty` lists the queries they leave with no document, and their
    ``iprec_at_recall`` and ``11pt_avg`` doubles (trec_eval's 0/0) are in :attr:`Part.doubles` too.
    """
    restrict = dict(depth=depth, judged_only=judged_only)
    if (depth is not None or judged_only) and (spread or level is not None):
        from tieaware.model.errors import bad

        raise bad("depth/judged_only", (depth, judged_only), "are not computed with a spread or trec_eval's counts here")
    part = Part(qids=list(prepared.qids), tied={}, skipped_run=list(prepared.skipped_run), skipped_qrels=list(prepared.skipped_qrels))
    if not prepared.qids:
        part.trec = {} if trec else None
        part.spread = {} if spread else None
        part.counts = {} if level is not None else None
        return part
    if measures:
        part.tied = evaluate_prepared(prepared, measures, layer=layer, exact=exact, tie_break=tie_break, **restrict).per_query
        if trec:  # True: trec_eval's order; a preset's name: that preset's
            column = "trec_eval" if trec is True else str(trec)
            part.trec = evaluate_prepared(prepared, measures, layer=layer, exact=exact, tie_break=column, **restrict).per_query
    else:
        part.tied = {q: {} for q in prepared.qids}
        part.trec = {q: {} for q in prepared.qids} if trec else None
    if spread:
        part.spread = query_spreads(prepared, measures, exact=exact, layer=layer)
    if level is not None:
        lvl = Fraction(level)  # type: ignore[arg-type]
        relevant = np.array([v >= lvl for v in prepared.label_values], dtype=bool)
        n = len(prepared.qids)
        num_ret = np.bincount(prepared.query, minlength=n).tolist()
        num_rel = np.bincount(prepared.judged_query[relevant[prepared.judged_label]], minlength=n).tolist()
        num_rel_ret = np.bincount(prepared.query[relevant[prepared.label]], minlength=n).tolist()
        part.counts = {q: (num_ret[i], num_rel[i], num_rel_ret[i]) for i, q in enumerate(prepared.qids)}
    if prepared.trec_order is not None and (doubles or depth is not None or judged_only):
        part.doubles, part.empty = trec_eval_doubles(prepared, measures, doubles, depth, judged_only)
    sizes = prepared.group_sizes()
    part.docs, part.groups = int(sizes.sum()), int((sizes > 1).sum())
    return part


def trec_eval_doubles(
    prepared: Any, measures: tuple[Measure, ...], wanted: tuple[Measure, ...], depth: Optional[int], judged_only: bool
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """({qid: {measure: double}}, empty queries): trec_eval's doubles (:func:`tieaware.io.trec_doubles.query_doubles`)
    of the *wanted* measures on every query, and of ``iprec_at_recall`` and ``11pt_avg`` on the queries -M and -J
    leave with no document, each query's rows taken in trec_eval's order as te_form_res_rels takes them."""
    from tieaware.io import trec_doubles
    from tieaware.runs.engine import trec_eval_view

    view = trec_eval_view(prepared)
    ints = [int(v) for v in view.label_values]  # trec_eval's labels are longs (atol)
    starts = np.append(view.query_start, view.rows).tolist()
    levels_of: list[list[int]] = [[] for _ in view.qids]
    for i, (q, lab) in enumerate(zip(view.judged_query.tolist(), view.judged_label.tolist())):
        if view.judged_negative is not None and view.judged_negative[i]:
            continue  # a negative label is in the pool but not judged: no level counts it
        counts = levels_of[q]
        value = ints[lab]
        counts.extend([0] * (value + 1 - len(counts)))
        counts[value] += 1
    at_zero = tuple(m for m in measures if m.name in ("IPrec", "IPrecAvg"))
    label, judged, negative = view.label, view.judged, view.negative
    kept = np.ones(view.rows, dtype=bool)  # the rows -J keeps: judged, with a label >= 0
    if judged_only and judged is not None:
        kept &= judged
    if judged_only and negative is not None:
        kept &= ~negative
    out: dict[str, dict[str, float]] = {}
    empty: list[str] = []
    for i, qid in enumerate(view.qids):
        lo, hi = starts[i], starts[i + 1]
        if depth is not None:
            hi = min(hi, lo + depth)
        asked = wanted
        if (depth is not None or judged_only) and not kept[lo:hi].any():
            empty.append(qid)
            asked = tuple(dict.fromkeys(wanted + at_zero))
        if not asked:
            continue
        rels = []
        for row in range(lo, hi):
            if judged is not None and not judged[row]:
                rels.append(trec_doubles.NONPOOL)
            elif negative is not None and negative[row]:
                rels.append(trec_doubles.UNJUDGED)
            else:
                rels.append(ints[int(label[row])])
        if judged_only:
            rels = [r for r in rels if r >= 0]
        out[qid] = trec_doubles.query_doubles(rels, levels_of[i], asked)
    return out, empty


def query_spreads(prepared: Any, measures: tuple[Measure, ...], *, exact: bool, layer: str = "fast") -> dict[str, dict[str, Any]]:
    """{qid: {measure: QueryStats}}: the spread engine in float mode, fast's tie_spread per query otherwise."""
    from tieaware.runs import comparison

    comparison.spreadable(measures)
    if not exact and layer == "fast":
        return comparison._array_spread(prepared, measures, False)
    return comparison._per_query_spread(prepared, measures, exact, False)


@dataclass
class Combined:
    """The parts joined: Evaluations (tie-aware, and in trec_eval's order), spreads, counts."""

    tied: Evaluation
    trec: Optional[Evaluation]
    #: {measure: Spread} of the means, when the parts have spreads
    spread: Optional[dict[str, Any]]
    #: {qid: (num_ret, num_rel, num_rel_ret)}, when the parts have counts
    counts: Optional[dict[str, tuple[int, int, int]]]
    docs: int
    groups: int
    #: {qid: {measure: trec_eval's double}} from the parts (:attr:`Part.doubles`)
    doubles: dict[str, dict[str, float]] = field(default_factory=dict)
    #: the queries -M and -J leave with no document in trec_eval's order, in natural order
    empty: tuple[str, ...] = ()


def combine(
    parts: Iterable[Part],
    measures: tuple[Measure, ...],
    *,
    exact: bool,
    complete: bool = False,
    skipped_run: Optional[Iterable[str]] = None,
    skipped_qrels: Optional[Iterable[str]] = None,
) -> Combined:
    """Join the parts' queries in natural order and take the means (exact, or correctly rounded).

    *skipped_run* and *skipped_qrels* replace the parts' own lists when the
    caller knows better (a streamed run: a judged query is missing only if no
    part held it).  A query evaluated in two parts is refused.
    """
    from tieaware.model.errors import TieawareError

    tied: dict[str, dict[str, Exact]] = {}
    trec: Optional[dict[str, dict[str, Exact]]] = None
    spreads: Optional[dict[str, dict[str, Any]]] = None
    counts: Optional[dict[str, tuple[int, int, int]]] = None
    docs = groups = 0
    doubles: dict[str, dict[str, float]] = {}
    empty: list[str] = []
    run_only: set[str] = set()
    qrels_only: set[str] = set()
    for part in parts:
        for q in part.qids:
            if q in tied:
                raise TieawareError(f"query {q!r} is in two parts of the run: a query's rows must be evaluated together")
        tied.update(part.tied)
        if part.trec is not None:
            trec = {} if trec is None else trec
            trec.update(part.trec)
        if part.spread is not None:
            spreads = {} if spreads is None else spreads
            spreads.update(part.spread)
        if part.counts is not None:
            counts = {} if counts is None else counts
            counts.update(part.counts)
        docs += part.docs
        groups += part.groups
        doubles.update(part.doubles)
        empty += part.empty
        run_only.update(part.skipped_run)
        qrels_only.update(part.skipped_qrels)
    if not tied:
        from tieaware.model.errors import bad

        raise bad("run", sorted(run_only, key=natural_key)[:5], "has no query that appears in the qrels")
    queries = tuple(sorted(tied, key=natural_key))
    skipped_run_t = tuple(sorted(run_only if skipped_run is None else skipped_run, key=natural_key))
    skipped_qrels_t = tuple(sorted(qrels_only if skipped_qrels is None else skipped_qrels, key=natural_key))
    ordered = {q: tied[q] for q in queries}
    common = dict(exact=exact, complete=complete)
    spread_summary = None
    per_query_spread = None
    if spreads is not None:
        from tieaware.runs.comparison import QueryStats, spread

        per_query_spread = {q: spreads[q] for q in queries}
        with_missing = dict(per_query_spread)
        if complete:
            zero, one = (Fraction(0), Fraction(1)) if exact else (0.0, 1.0)
            for q in skipped_qrels_t:  # as the means count them: 0, and 1 for NumQ
                with_missing[q] = {str(m): QueryStats(*(3 * [one if m.name == "NumQ" else zero]), zero) for m in measures}
        spread_summary = spread(with_missing, [str(m) for m in measures], exact=exact)
    tied_ev = finish(measures, queries, ordered, skipped_run_t, skipped_qrels_t, **common)
    if spreads is not None:
        tied_ev = Evaluation(**{**tied_ev.__dict__, "spread": spread_summary, "per_query_spread": per_query_spread})
    trec_ev = None
    if trec is not None:
        trec_ev = finish(measures, queries, {q: trec[q] for q in queries}, skipped_run_t, skipped_qrels_t, **common)
    return Combined(
        tied=tied_ev,
        trec=trec_ev,
        spread=spread_summary,
        counts=None if counts is None else {q: counts[q] for q in queries},
        docs=docs,
        groups=groups,
        doubles=doubles,
        empty=tuple(sorted(empty, key=natural_key)),
    )
