"""``tieaware.ties``: where a run's ties come from and what they cost.

One call reads a score matrix (a queries × candidates array of any float
dtype, as :func:`tieaware.evaluate_matrix` takes) or a run (a TREC file,
dicts, a DataFrame, as :func:`tieaware.evaluate` takes) and reports:

1. the tie census (:class:`tieaware.runs.tie_census.Census`): tie groups,
   tied documents, the largest group, the tied share of the top k;
2. the precision forensics: each tie group's narrowest float format, and
   per format the ties left once the scores are rounded to it;
3. with labels, the cost per measure: the tie-aware expected value, the
   worst and best over tie-breakings, the value a tie-oblivious library
   reports (``tie_break=``, :mod:`tieaware.model.tie_presets`), per query
   and for the mean, and the queries whose value the ties move most;
4. with ``reference_scores=`` (the same run scored at high precision): the
   reference's tie-aware values beside these, and the share of the tie
   groups that the reference separates.

The values come from the engines :func:`tieaware.evaluate_matrix` and
:func:`tieaware.evaluate` use (no formula of its own).

>>> import numpy as np
>>> scores = np.array([[0.5, 0.5, 0.25], [0.75, 0.1, 0.2]], dtype=np.float32)
>>> r = ties(scores, [{1}, {0}], measures="RR@10", k=[1, 3])
>>> r.census.tie_groups, r.census.groups[0]
({'0': 1, '1': 0}, ('0', 2, 'bfloat16'))
>>> r.census.overall_tied_at_k[3], r.cost["RR@10"].expected, r.cost["RR@10"].worst
(Fraction(1, 3), Fraction(7, 8), Fraction(3, 4))
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence, Union

import numpy as np

from tieaware.io.inputs import to_qrels, to_run
from tieaware.io.matrix import as_array
from tieaware.model.errors import TieawareError, bad
from tieaware.model.tie_presets import preset
from tieaware.runs.evaluate import Evaluation, measure_list, natural_key, table_of
from tieaware.runs.tie_census import FORMATS, Census, as_binary, census, float_formats, fraction_formats, round_fraction, round_to

__all__ = ["ties", "TieReport", "MeasureCost", "DEFAULT_MEASURES", "DEFAULT_K", "verdict_precision", "rounded_scores", "ties_files"]

#: Measures reported when labels are given and none are asked for.
DEFAULT_MEASURES = "nDCG@10 RR@10 AP@100 P@10"
#: Cutoffs of the tied share of the top k.
DEFAULT_K = (10, 100)
#: Queries listed as moved most by the ties, per measure.
TOP_QUERIES = 10


@dataclass(frozen=True)
class MeasureCost:
    """What the ties do to one measure: per query and for the mean (:func:`ties`)."""

    measure: str
    expected: Any
    worst: Any
    best: Any
    #: The mean a library breaking ties by the ``tie_break`` preset reports; None without one.
    oblivious: Any
    #: {qid: (expected, worst, best, oblivious or None)}
    per_query: dict[str, tuple[Any, Any, Any, Any]]
    #: The queries whose value the ties move most, (qid, best - worst), largest first (ties in qid order).
    most_moved: tuple[tuple[str, Any], ...]
    #: With reference scores: the reference's tie-aware mean, and per query.
    reference: Any = None
    reference_per_query: Optional[dict[str, Any]] = None


@dataclass(frozen=True)
class TieReport:
    """The result of :func:`ties`."""

    census: Census
    #: {measure: MeasureCost}; empty without labels.
    cost: dict[str, MeasureCost]
    #: The preset the oblivious values follow, or None.
    tie_break: Optional[str]
    #: With reference scores: the share of the tie groups whose documents the reference does not all score equal,
    #: and of those it scores all distinct; None without.
    separated: Optional[Fraction] = None
    fully_separated: Optional[Fraction] = None
    #: 'matrix' or 'run'
    kind: str = "matrix"
    #: Extra notes for the reader (skipped queries, ...).
    notes: tuple[str, ...] = field(default=())
    #: With ``versus=`` (a second system): per measure, the narrowest score format from which on the verdict
    #: between the two no longer depends on ties (:func:`verdict_precision`); None when float64 does not settle it.
    verdict: Optional[dict[str, Optional[str]]] = None

    def as_dict(self) -> dict[str, Any]:
        """Everything as JSON-ready values (exact values as decimal strings of Fractions, floats for shares)."""
        c = self.census
        out: dict[str, Any] = {
            "kind": self.kind,
            "queries": len(c.queries),
            "tie_groups": c.total_groups,
            "tied_documents": c.total_tied,
            "documents": sum(c.documents.values()),
            "largest_group": max(c.largest_group.values(), default=0),
            "tied_at_k": {str(k): float(v) for k, v in c.overall_tied_at_k.items()},
            "group_sizes": {str(s): n for s, n in c.size_counts.items()},
            "representable": c.representable,
            "representable_share": {f: (n / c.total_tied if c.total_tied else 0.0) for f, n in c.representable.items()},
            "narrowest": {f: {"tie_groups": g, "tied_documents": t} for f, (g, t) in c.narrowest_counts.items()},
            "rounded": {f: {"tie_groups": g, "tied_documents": t} for f, (g, t) in c.rounded.items()},
            "per_query": {
                q: {
                    "documents": c.documents[q],
                    "tie_groups": c.tie_groups[q],
                    "tied_documents": c.tied_documents[q],
                    "largest_group": c.largest_group[q],
                    "tied_at_k": {str(k): float(v[q]) for k, v in c.tied_at_k.items()},
                }
                for q in c.queries
            },
        }
        if self.cost:
            out["tie_break"] = self.tie_break
            out["measures"] = {m: _cost_dict(mc) for m, mc in self.cost.items()}
        if self.separated is not None:
            out["reference"] = {"separated": float(self.separated), "fully_separated": float(self.fully_separated or 0)}
        if self.verdict is not None:
            out["verdict_settled_from"] = dict(self.verdict)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def _num(x: Any) -> Any:
    return None if x is None else float(x)


def _cost_dict(mc: MeasureCost) -> dict[str, Any]:
    d = {
        "expected": _num(mc.expected),
        "worst": _num(mc.worst),
        "best": _num(mc.best),
        "oblivious": _num(mc.oblivious),
        "most_moved": [[q, _num(r)] for q, r in mc.most_moved],
        "per_query": {q: [_num(x) for x in v] for q, v in mc.per_query.items()},
    }
    if mc.reference is not None:
        d["reference"] = _num(mc.reference)
        d["reference_per_query"] = {q: _num(x) for q, x in (mc.reference_per_query or {}).items()}
    return d


# ---------------------------------------------------------------- reading the scores


def _run_of(data: Any) -> dict:
    """A run in any shape :func:`tieaware.evaluate` takes, a TREC file's path included."""
    if isinstance(data, (str, os.PathLike)) and not os.fspath(data).startswith("irds:"):
        from tieaware.io.trec import read_run

        return read_run(data)
    return to_run(data)


def _qrels_of(data: Any) -> dict:
    if isinstance(data, (str, os.PathLike)) and not os.fspath(data).startswith("irds:"):
        from tieaware.io.trec import read_qrels

        return read_qrels(data)
    return to_qrels(data)


def _is_run(scores: Any) -> bool:
    if isinstance(scores, (str, os.PathLike, dict)):
        return True
    return hasattr(scores, "columns") and hasattr(scores, "iloc")  # a DataFrame


def _matrix(scores: Any, argument: str) -> np.ndarray:
    s = as_array(scores, argument)
    if s.ndim != 2:
        raise bad(argument, f"shape {s.shape}", "must be a 2-D queries × candidates matrix")
    if s.dtype.kind not in "fiu":
        raise bad(argument, f"dtype {s.dtype}", "must hold numbers (a float or integer dtype)")
    if s.dtype.kind in "iu" and s.size and int(np.max(np.abs(s.astype(object)))) > 2**53:
        raise bad(argument, "an integer beyond 2**53", "is not exact as a float64")
    v = s if s.dtype in (np.float16, np.float32, np.float64) else s.astype(np.float64)  # kept in its dtype: exact
    if not np.isfinite(v).all():
        i, j = np.argwhere(~np.isfinite(v))[0]
        raise bad(argument, f"{v[i, j]} at row {i}, column {j}", "every score must be a finite number (NaN and inf have no place in a ranking)")
    return v


@dataclass
class _Rows:
    """Rows sorted by query then score (best first), with what the census and the reference need."""

    qids: list[str]
    query_start: np.ndarray
    keys: np.ndarray
    formats: Any
    rounded: dict[str, np.ndarray]
    docs: list[list[str]]  # per query, the documents in the rows' order (runs), or None (matrix: columns)
    order: Optional[np.ndarray] = None  # matrix: the column of every row, row-major


def _half_keys(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float16 scores as uint16 keys ordered as the values (so numpy sorts them by radix), and each key's value."""
    bits = (v + np.float16(0)).view(np.uint16)  # + 0 turns -0 into +0: equal values, equal keys
    keys = np.where(bits & 0x8000, ~bits, bits | 0x8000).astype(np.uint16)
    every = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    back = np.where(every & 0x8000, every & 0x7FFF, ~every).astype(np.uint16)
    with np.errstate(invalid="ignore"):
        return keys, back.view(np.float16).astype(np.float64)


def _by_value(table: np.ndarray, keys: np.ndarray) -> Any:
    """The formats of the given rows, whose *keys* index *table* (values), computed once per distinct value."""

    def formats(rows: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        distinct, inverse = np.unique(keys[rows], return_inverse=True)
        names, held = float_formats(table[distinct])
        return names[inverse], {f: h[inverse] for f, h in held.items()}

    return formats


def _matrix_rows(v: np.ndarray, need_order: bool) -> _Rows:
    nq, nc = v.shape
    if v.dtype == np.float16:
        # 16-bit keys: a radix sort, and every format question asked once per distinct value (at most 65,536)
        half, table = _half_keys(v)
        order = np.argsort(~half, axis=1, kind="stable") if need_order else None
        keys = (np.take_along_axis(half, order, axis=1) if order is not None else np.sort(~half, axis=1, kind="stable") ^ np.uint16(0xFFFF)).reshape(-1)
        formats = _by_value(table, keys)
        rounded = {}
        for fmt in FORMATS:
            if fmt == "bfloat16":
                _, ids = np.unique(round_to(np.nan_to_num(table, nan=0.0, posinf=0.0, neginf=0.0), fmt), return_inverse=True)  # NaN keys never occur
                rounded[fmt] = ids.reshape(-1)[keys]
            else:
                rounded[fmt] = keys  # float16 values are float32 and float64 values
    else:
        w = v.astype(np.float64, copy=False)
        order = np.argsort(-w, axis=1, kind="stable") if need_order else None
        keys = (np.take_along_axis(w, order, axis=1) if order is not None else -np.sort(-w, axis=1)).reshape(-1)
        formats = lambda rows: float_formats(keys[rows])  # noqa: E731
        wide = {np.dtype(np.float32): ("float32", "float64"), np.dtype(np.float64): ("float64",)}.get(v.dtype, ("float64",))
        rounded = {fmt: keys if fmt in wide else round_to(keys, fmt) for fmt in FORMATS}  # monotone: still sorted
    return _Rows(
        qids=[str(i) for i in range(nq)],
        query_start=np.arange(nq, dtype=np.int64) * nc,
        keys=keys,
        formats=formats,
        rounded=rounded,
        docs=[],
        order=order,
    )


def _run_rows(run: dict[str, list[tuple[str, Fraction]]]) -> _Rows:
    qids = sorted(run, key=natural_key)
    distinct = sorted({x for q in qids for _, x in run[q]})
    index = {x: i for i, x in enumerate(distinct)}
    keys_l: list[int] = []
    docs: list[list[str]] = []
    starts = []
    for q in qids:
        entries = sorted(run[q], key=lambda e: e[1], reverse=True)
        starts.append(len(keys_l))
        keys_l.extend(index[x] for _, x in entries)
        docs.append([d for d, _ in entries])
    keys = np.array(keys_l, dtype=np.int64)
    distinct_a = distinct
    rounded = {}
    for fmt in FORMATS:
        r = [round_fraction(as_binary(x), fmt) for x in distinct]
        values = sorted(set(r))
        rank = {x: i for i, x in enumerate(values)}
        rounded[fmt] = np.array([rank[x] for x in r], dtype=np.int64)[keys] if len(keys) else keys
    return _Rows(
        qids=qids,
        query_start=np.array(starts, dtype=np.int64),
        keys=keys,
        formats=lambda rows: fraction_formats([distinct_a[int(i)] for i in keys[rows]]),
        rounded=rounded,
        docs=docs,
    )


def _ks(k: Any) -> tuple[int, ...]:
    if isinstance(k, int) and not isinstance(k, bool):
        k = (k,)
    try:
        ks = tuple(k)
    except TypeError:
        raise bad("k", k, "must be an int >= 1 or a list of them") from None
    if not ks or any(not isinstance(x, (int, np.integer)) or isinstance(x, bool) or x < 1 for x in ks):
        raise bad("k", k, "must be an int >= 1 or a list of them")
    return tuple(sorted(set(int(x) for x in ks)))


# ---------------------------------------------------------------- the cost


def _matrix_qrels(labels: Any, shape: tuple[int, int]) -> dict[str, dict[str, Fraction]]:
    """The qrels evaluate_matrix reads from *labels*: grades (every cell judged) or sets of relevant columns."""
    if isinstance(labels, (list, tuple)) and labels and isinstance(labels[0], (set, frozenset)):
        return {str(i): {str(j): Fraction(1) for j in s} for i, s in enumerate(labels) if s}
    g = as_array(labels, "labels")
    if g.shape != shape:
        raise bad("labels", f"shape {g.shape}", f"must match the scores' shape {shape}")
    return {str(i): {str(j): Fraction(g[i, j].item()) for j in range(shape[1])} for i in range(shape[0])}


def _matrix_run(v: np.ndarray) -> dict[str, list[tuple[str, Fraction]]]:
    return {str(i): [(str(j), Fraction(x)) for j, x in enumerate(row.tolist())] for i, row in enumerate(v)}


def _evaluations(scores: Any, v: Optional[np.ndarray], labels: Any, ms: tuple, exact: bool, tie_break: Optional[str]) -> tuple[Evaluation, Optional[Evaluation]]:
    """The tie-aware evaluation with spread, and the one in *tie_break*'s order (or None)."""
    if v is not None and tie_break is None:
        from tieaware.runs.matrix import evaluate_matrix

        return evaluate_matrix(v, labels, ms, exact=exact, spread=True), None
    from tieaware.io.columns import prepare
    from tieaware.runs.parts import combine, evaluate_part

    if v is not None:  # a matrix in a library's order: as the run and qrels it stands for (docno = column number)
        qrels: Any = _matrix_qrels(labels, v.shape)
        run: Any = _matrix_run(v)
    else:
        qrels, run = labels, scores
    prepared = prepare(table_of(qrels, "qrels"), table_of(run, "run"), trec_order=tie_break or False)
    part = evaluate_part(prepared, ms, exact=exact, spread=True, trec=tie_break or False)
    got = combine([part], ms, exact=exact, skipped_run=prepared.skipped_run, skipped_qrels=prepared.skipped_qrels)
    return got.tied, got.trec


def _costs(ev: Evaluation, broken: Optional[Evaluation], top: int) -> dict[str, MeasureCost]:
    out = {}
    for m in ev.measures:
        name = str(m)
        per_query = {}
        for q in ev.queries:
            s = ev.per_query_spread[q][name] if ev.per_query_spread else None
            obl = broken.per_query[q][name] if broken is not None and q in broken.per_query else None
            per_query[q] = (ev.per_query[q][name], s.worst if s else None, s.best if s else None, obl)
        moved = sorted(((q, v[2] - v[1]) for q, v in per_query.items() if v[2] != v[1]), key=lambda e: (-e[1], natural_key(e[0])))
        sp = ev.spread[name] if ev.spread else None
        out[name] = MeasureCost(
            measure=name,
            expected=ev.mean[name],
            worst=sp.min_mean if sp else None,
            best=sp.max_mean if sp else None,
            oblivious=broken.mean[name] if broken is not None else None,
            per_query=per_query,
            most_moved=tuple(moved[:top]),
        )
    return out


# ---------------------------------------------------------------- the reference


def _separated(rows: _Rows, census_: Census, ref: Any, v: Optional[np.ndarray]) -> tuple[Fraction, Fraction]:
    """Shares of the tie groups whose reference scores are not all equal, and all distinct."""
    from tieaware.runs.tie_census import group_sizes

    starts, sizes = group_sizes(rows.keys, rows.query_start)
    tied = np.ones(len(sizes), dtype=bool)
    if not tied.any():
        return Fraction(0), Fraction(0)
    some = every = 0
    if v is not None:
        assert rows.order is not None
        r = ref[np.arange(v.shape[0])[:, None], rows.order].reshape(-1)
        for s, n in zip(starts[tied], sizes[tied]):
            distinct = len(np.unique(r[s : s + n]))
            some += distinct > 1
            every += distinct == n
    else:
        flat_docs = [d for ds in rows.docs for d in ds]
        flat_q = [q for q, ds in zip(rows.qids, rows.docs) for _ in ds]
        for s, n in zip(starts[tied], sizes[tied]):
            q = flat_q[s]
            values = {ref[q][d] for d in flat_docs[s : s + n]}
            some += len(values) > 1
            every += len(values) == n
    total = int(tied.sum())
    return Fraction(some, total), Fraction(every, total)


def _reference_run(ref: Any, run: dict[str, list[tuple[str, Fraction]]]) -> dict[str, dict[str, Fraction]]:
    r = _run_of(ref)
    out = {q: dict(entries) for q, entries in r.items()}
    for q, entries in run.items():
        docs = {d for d, _ in entries}
        got = set(out.get(q, {}))
        if got != docs:
            odd = sorted(got ^ docs)[:3]
            raise bad("reference_scores", f"query {q!r}: {odd}", "must score exactly the run's documents, query by query")
    extra = sorted(set(out) - set(run), key=natural_key)
    if extra:
        raise bad("reference_scores", extra[:3], "has queries the run does not have")
    return out


# ---------------------------------------------------------------- the entry point


def ties(
    scores: Any,
    labels: Any = None,
    *,
    k: Union[int, Sequence[int]] = DEFAULT_K,
    measures: Any = None,
    tie_break: Optional[str] = None,
    reference_scores: Any = None,
    versus: Any = None,
    exact: bool = True,
    top: int = TOP_QUERIES,
) -> TieReport:
    """Where the ties of *scores* come from and what they cost (see the module docstring).

    *scores*: a 2-D matrix (queries × candidates, any float or integer
    dtype; query ids are the row numbers as text, documents the column
    numbers) or a run (a TREC file's path, ``{qid: {docno: score}}``, a
    DataFrame).  *labels*: for a matrix, grades of the same shape or a list
    of sets of relevant columns (as :func:`tieaware.evaluate_matrix`); for a
    run, qrels.  Without labels only the census and the forensics are
    computed.  *k*: the cutoffs of the tied share of the top k.
    *measures*: the measures of the cost (default :data:`DEFAULT_MEASURES`).
    *tie_break*: a preset (:mod:`tieaware.model.tie_presets`) whose
    tie-oblivious values go beside the tie-aware ones; for a matrix its
    docnos are the column numbers as text (so docno order is text order).
    *reference_scores*: the same queries and documents scored at high
    precision (same shape, or a run with the same documents).  *versus*:
    a second system's scores (same kind of input); the report's
    :attr:`TieReport.verdict` says from which score format on the verdict
    between the two no longer depends on ties (:func:`verdict_precision`).

    Ties are exact equality of the given scores; a text run's scores are
    the exact decimals written (``0.1`` is no binary float: its narrowest
    format is ``decimal:1``), except that a score written as Python's
    ``repr`` of a bfloat16, float16 or float32 value counts as that value
    for the formats (``0.10000000149011612`` is float32).

    Beware: the ties left per format (``census.rounded``) round the given
    scores, so they are a lower bound on the ties of a computation carried
    out in that format (rounding earlier can only merge more scores).
    """
    ks = _ks(k)
    exact = bool(exact)
    if tie_break is not None:
        preset(tie_break)
    if not isinstance(top, int) or top < 0:
        raise bad("top", top, "must be an int >= 0")
    v: Optional[np.ndarray] = None
    run: Optional[dict] = None
    if _is_run(scores):
        run = _run_of(scores)
        if not run:
            raise bad("scores", "an empty run", "must hold at least one query")
        rows = _run_rows(run)
    else:
        v = _matrix(scores, "scores")
        rows = _matrix_rows(v, need_order=reference_scores is not None)
    c = census(rows.qids, rows.query_start, rows.keys, rows.formats, rows.rounded, ks)

    ref_v: Optional[np.ndarray] = None
    ref_run: Optional[dict] = None
    separated = fully = None
    if reference_scores is not None:
        if v is not None:
            if _is_run(reference_scores):
                raise bad("reference_scores", type(reference_scores).__name__, "must be a matrix like the scores")
            ref_v = _matrix(reference_scores, "reference_scores")
            if ref_v.shape != v.shape:
                raise bad("reference_scores", f"shape {ref_v.shape}", f"must match the scores' shape {v.shape}")
            separated, fully = _separated(rows, c, ref_v, v)
        else:
            assert run is not None
            ref_run = _reference_run(reference_scores, run)
            separated, fully = _separated(rows, c, ref_run, None)

    cost: dict[str, MeasureCost] = {}
    notes: list[str] = []
    if labels is not None:
        ms = measure_list(DEFAULT_MEASURES if measures is None else measures)
        if v is None:
            labels = _qrels_of(labels)
        ev, broken = _evaluations(run if v is None else None, v, labels, ms, exact, tie_break)
        cost = _costs(ev, broken, top)
        if ev.skipped_run:
            notes.append(f"{len(ev.skipped_run)} queries without labels are not in the cost")
        if reference_scores is not None:
            ref_scores = ref_v if ref_v is not None else {q: list(d.items()) for q, d in (ref_run or {}).items()}
            ref_ev, _ = _evaluations(None if ref_v is not None else ref_scores, ref_v, labels, ms, exact, None)
            cost = {
                name: _with_reference(mc, ref_ev, name) for name, mc in cost.items()
            }
    elif measures is not None or tie_break is not None or versus is not None:
        raise bad("labels", None, "are needed for measures, tie_break and versus (the cost of the ties)")
    verdict = None
    if versus is not None:
        if v is not None:
            other = _matrix(versus, "versus")
            if other.shape != v.shape:
                raise bad("versus", f"shape {other.shape}", f"must match the scores' shape {v.shape}")
            verdict = verdict_precision(v, other, labels, DEFAULT_MEASURES if measures is None else measures, exact=exact)
        else:
            other_run = _run_of(versus)
            if set(other_run) != set(run or {}):
                raise bad("versus", sorted(set(other_run) ^ set(run or {}), key=natural_key)[:3], "must rank the run's queries")
            verdict = verdict_precision(run, other_run, labels, DEFAULT_MEASURES if measures is None else measures, exact=exact)
    return TieReport(
        census=c, cost=cost, tie_break=tie_break, separated=separated, fully_separated=fully,
        kind="run" if v is None else "matrix", notes=tuple(notes), verdict=verdict,
    )


def _with_reference(mc: MeasureCost, ref: Evaluation, name: str) -> MeasureCost:
    from dataclasses import replace

    return replace(mc, reference=ref.mean[name], reference_per_query={q: ref.per_query[q][name] for q in ref.queries})


# ---------------------------------------------------------------- two systems


def rounded_scores(scores: Any, fmt: str) -> Any:
    """*scores* (a matrix or a run) with every score rounded to *fmt* (:data:`FORMATS`): a float64 matrix or a run."""
    if fmt not in FORMATS:
        raise bad("fmt", fmt, f"must be one of {', '.join(FORMATS)}")
    if _is_run(scores):
        out = {}
        for q, entries in _run_of(scores).items():
            row = []
            for d, x in entries:
                r = round_fraction(x, fmt)
                if not isinstance(r, Fraction):
                    raise bad("scores", f"{float(x)!r} in query {q!r}", f"is beyond {fmt}'s range")
                row.append((d, r))
            out[q] = row
        return out
    v = round_to(_matrix(scores, "scores"), fmt)
    if not np.isfinite(v).all():
        raise bad("scores", "a score", f"is beyond {fmt}'s range")
    return v


def verdict_precision(scores_a: Any, scores_b: Any, labels: Any, measures: Any = None, *, exact: bool = True) -> dict[str, Optional[str]]:
    """Per measure, the narrowest score format from which on the verdict between two systems no longer depends on ties.

    Both systems' scores are rounded to each format of :data:`FORMATS`
    (narrowest first); at a format the verdict is settled when one system's
    worst mean beats the other's best (or neither moves with the ties).  The
    answer is the narrowest format at which it is settled and stays settled,
    the same way, at every wider one; None when float64 does not settle it.

    >>> import numpy as np
    >>> a = np.array([[0.5, 0.5 + 2**-10, 0.1]]); b = np.array([[0.9, 0.2, 0.1]])
    >>> verdict_precision(a, b, [{1}], "RR@10")
    {'RR@10': 'float16'}
    """
    ms = measure_list(DEFAULT_MEASURES if measures is None else measures)
    if not _is_run(scores_a) and not _is_run(scores_b):
        sa, sb = _matrix(scores_a, "scores_a"), _matrix(scores_b, "scores_b")
        if sa.shape != sb.shape:
            raise bad("scores_b", f"shape {sb.shape}", f"must match scores_a's shape {sa.shape}")
    elif _is_run(scores_a) != _is_run(scores_b):
        raise bad("scores_b", type(scores_b).__name__, "must be the same kind of input as scores_a (two matrices or two runs)")
    verdicts: dict[str, list[Optional[int]]] = {str(m): [] for m in ms}
    for fmt in FORMATS:
        means = []
        for s in (scores_a, scores_b):
            r = rounded_scores(s, fmt)
            rep = ties(r, labels if not isinstance(r, dict) else _qrels_of(labels), k=1, measures=ms, exact=exact)
            means.append(rep.cost)
        for m in verdicts:
            a, b = means[0][m], means[1][m]
            if a.worst > b.best:
                verdicts[m].append(1)
            elif b.worst > a.best:
                verdicts[m].append(-1)
            elif a.worst == a.best and b.worst == b.best:
                verdicts[m].append(0)
            else:
                verdicts[m].append(None)
    out: dict[str, Optional[str]] = {}
    for m, vs in verdicts.items():
        answer = None
        for i in range(len(FORMATS) - 1, -1, -1):  # from float64 down: settled the same way
            if vs[i] is None or vs[i] != vs[-1]:
                break
            answer = FORMATS[i]
        out[m] = answer
    return out



def _load(path: Any, argument: str) -> Any:
    """A path as ties() takes it: a ``.npy`` file is a matrix (read without pickles), anything else a run or qrels file."""
    text = os.fspath(path)
    if text.endswith(".npy"):
        try:
            return np.load(text, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise bad(argument, text, f"is not a readable .npy array ({exc})") from None
    if not os.path.exists(text) and ":" not in text:
        raise bad(argument, text, "does not exist")
    return text


def ties_files(
    run: Any,
    qrels: Any = None,
    *,
    reference: Any = None,
    versus: Any = None,
    **options: Any,
) -> TieReport:
    """:func:`ties` of files: *run* a TREC run (or a ``.npy`` score matrix), *qrels* its qrels (for a matrix, a
    ``.npy`` array of grades of the same shape), *reference* the same run at high precision; *options* as :func:`ties`."""
    scores = _load(run, "RUN")
    labels = None if qrels is None else _load(qrels, "QRELS")
    ref = None if reference is None else _load(reference, "--reference")
    other = None if versus is None else _load(versus, "--versus")
    for given, value, name in ((qrels, labels, "QRELS"), (reference, ref, "--reference"), (versus, other, "--versus")):
        if value is not None and isinstance(scores, np.ndarray) != isinstance(value, np.ndarray):
            raise bad(name, os.fspath(given), "must be a .npy array for a .npy matrix, and a TREC file for a run")
    try:
        return ties(scores, labels, reference_scores=ref, versus=other, **options)
    except TieawareError as exc:  # name the command's arguments, not the function's
        message = str(exc)
        for name, flag_ in (("reference_scores", "--reference"), ("versus", "--versus"), ("tie_break", "--tie-break"), ("measures", "-m"), ("labels", "QRELS"), ("scores", "RUN")):
            if message.startswith(name):
                raise TieawareError(flag_ + message[len(name) :]) from None
        raise
