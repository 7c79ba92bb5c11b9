"""ir_measures' calling convention, with tie-aware values: a one-line swap.

:func:`calc_aggregate`, :func:`iter_calc` and :func:`evaluator` take and
return what ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and
``ir_measures.evaluator`` do:

- *measures*: ir_measures measure objects (``ir_measures.AP@10``), tieaware
  names (``"AP@10"``, ``"ndcg_cut_10"``) or parsed :class:`~tieaware.model.names.Measure`
  objects, mixed freely.  An ir_measures object means what it means in
  ir_measures (:func:`from_ir_measures`); a measure tieaware does not compute
  is refused, naming it.
- *qrels* and *run*: anything :mod:`tieaware.io.inputs` reads: pytrec_eval
  dicts, iterables of ``Qrel``/``ScoredDoc`` namedtuples, or DataFrames
  (ir_measures' ``query_id/doc_id/relevance|score`` columns, or PyTerrier's
  ``qid/docno/label|score``).
- results: ``{measure: value}`` keyed by the measure objects as given, and
  :class:`Metric` ``(query_id, measure, value)`` tuples.

The difference is the values: each is the **expected value over every
ordering of the documents whose scores tie**, where ir_measures (through
trec_eval) breaks ties by docno.  Queries are those of the run that have
qrels, as in trec_eval; aggregates are means over them.  ``complete=True``
averages over every judged query, one missing from the run counting as 0
(trec_eval's ``-c``; ir_measures' own evaluators count it so).

>>> qrels = {"q1": {"a": 1, "b": 0}}
>>> run = {"q1": {"a": 1.0, "b": 1.0}}       # a and b tie
>>> calc_aggregate(["P@1", "RR"], qrels, run)
{'P@1': 0.5, 'RR': 0.75}
>>> calc_aggregate(["P@1"], qrels, run, exact=True)
{'P@1': Fraction(1, 2)}
>>> list(iter_calc(["P@1"], qrels, run))
[Metric(query_id='q1', measure='P@1', value=0.5)]

ir_measures itself gives P@1 = 0 here: trec_eval puts ``b`` first (docno
descending).  ``tie_break="trec_eval"`` reproduces that:

>>> calc_aggregate(["P@1"], qrels, run, tie_break="trec_eval")
{'P@1': 0.0}

Beware: values are floats by default, as ir_measures returns them: each is
computed exactly, then rounded once to the nearest float (through 20
significant digits for a symbolic nDCG).  ``exact=True`` returns the exact Fractions (sympy values for
nDCG), and ``fast_float=True`` computes in float arithmetic for big runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, Optional

from tieaware.model.errors import bad
from tieaware.model.exact import Exact, to_float
from tieaware.io.inputs import to_qrels, to_run
from tieaware.model.names import Measure, parse
from tieaware.model.params import flag

__all__ = ["Metric", "calc_aggregate", "iter_calc", "evaluator", "Evaluator", "from_ir_measures", "IR_MEASURES_FAMILIES"]

#: The ir_measures measures tieaware computes, by ir_measures' name: each means in tieaware what it
#: means in ir_measures (its providers agree with tieaware on untied runs, tests/test_ir_measures.py).
IR_MEASURES_FAMILIES = frozenset({
    "P", "R", "AP", "RR", "nDCG", "Rprec", "Bpref", "Success", "Judged", "IPrec", "NumQ", "NumRet", "NumRel",
    "SetP", "SetR", "SetF", "SetAP", "infAP", "ERR", "RBP",
})  # fmt: skip


class Metric(NamedTuple):
    """One query's value of one measure: the shape of ``ir_measures.Metric``."""

    query_id: str
    measure: Any
    value: Any


def from_ir_measures(measure: Any) -> Measure:
    """The tieaware measure an ir_measures measure object names, or TieawareError naming it.

    Mostly its name read by :func:`~tieaware.model.names.parse`; two differ:
    ir_measures' ``ERR@k`` is gdeval's, whose grades are scaled by 2^4 whatever
    the judgements (tieaware's ``ERR(g_max=4)@k``), and its ``RBP`` without
    ``rel`` uses graded gains, which tieaware does not compute.  Parameters
    tieaware lacks (``judged_only=True``) are refused.

    >>> import ir_measures
    >>> str(from_ir_measures(ir_measures.ERR@10)), str(from_ir_measures(ir_measures.P(rel=2)@5))
    ('ERR(g_max=4)@10', 'P(rel=2)@5')
    """
    name = getattr(measure, "NAME", None)
    if name not in IR_MEASURES_FAMILIES:
        raise bad("measure", str(measure), f"is not one tieaware computes; it computes {', '.join(sorted(IR_MEASURES_FAMILIES))}")
    params = dict(measure.params)
    if name == "ERR":
        if set(params) != {"cutoff"}:
            raise bad("measure", str(measure), "needs a cutoff, as gdeval's ERR@k in ir_measures")
        return parse(f"ERR(g_max=4)@{params['cutoff']}")
    if name == "RBP" and "rel" not in params:
        raise bad("measure", str(measure), "is graded RBP (no rel): tieaware computes RBP with rel, e.g. RBP(rel=1)")
    return parse(str(measure))


def _measures(measures: Any) -> list[tuple[Any, Measure]]:
    """(the measure as given, its parsed form) for each measure, duplicates dropped."""
    if isinstance(measures, (str, Measure)) or not isinstance(measures, Iterable) or _is_ir_measure(measures):
        measures = [measures]
    out: dict[Any, Measure] = {}
    for given in measures:
        if isinstance(given, Measure):
            out[given] = given
        elif isinstance(given, str):
            out[given] = parse(given)
        elif _is_ir_measure(given):
            out[given] = from_ir_measures(given)
        else:
            raise bad("measures", given, "must hold ir_measures measures (ir_measures.AP@10) or names ('AP@10')")
    if not out:
        raise bad("measures", measures, "names no measure")
    return list(out.items())


def _is_ir_measure(obj: Any) -> bool:
    # Duck-typed, so ir_measures stays optional: its measures carry NAME and params.
    return hasattr(obj, "NAME") and hasattr(obj, "params") and not isinstance(obj, type)


class Evaluator:
    """Measures and qrels fixed, runs evaluated one after another (``ir_measures.evaluator``)."""

    def __init__(
        self,
        measures: Any,
        qrels: Any,
        *,
        exact: bool = False,
        fast_float: bool = False,
        tie_break: Optional[str] = None,
        layer: str = "fast",
        complete: bool = False,
    ) -> None:
        # Checked here, where every entry point (calc_aggregate, iter_calc, evaluator) passes,
        # as evaluate() and the command line check them: exact="yes" is not silently truthy.
        exact, fast_float = flag(exact, "exact"), flag(fast_float, "fast_float")
        self._complete = flag(complete, "complete")
        from tieaware.runs.evaluate import TIE_BREAKS, check_layer

        check_layer(layer)
        if tie_break not in TIE_BREAKS:
            raise bad("tie_break", tie_break, "must be None (tie-aware) or 'trec_eval'")
        if exact and fast_float:
            raise bad("fast_float", fast_float, "cannot be combined with exact=True")
        self._measures = _measures(measures)
        self._qrels = to_qrels(qrels)
        self._exact = exact
        self._fast_float = fast_float
        self._tie_break = tie_break
        self._layer = layer

    @property
    def measures(self) -> list[tuple[Any, Measure]]:
        """(the measure as given, the tieaware measure it names) for each measure."""
        return list(self._measures)

    @property
    def queries(self) -> frozenset[str]:
        """The judged queries."""
        return frozenset(self._qrels)

    def evaluation(self, run: Any):
        """*run*'s :class:`~tieaware.runs.evaluate.Evaluation`: exact values (floats with *fast_float*), keyed by ``str(measure)``."""
        from tieaware.runs.evaluate import evaluate

        parsed = [m for _, m in self._measures]
        return evaluate(
            self._qrels,
            to_run(run),
            parsed,
            layer=self._layer,
            exact=not self._fast_float,
            tie_break=self._tie_break,
            complete=self._complete,
        )

    def _value(self, value: Exact) -> Any:
        return value if self._exact else to_float(value)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """One :class:`Metric` per query and measure: queries in natural order, measures as given."""
        ev = self.evaluation(run)  # now, so that bad input raises at the call, not at the first next()
        return (
            Metric(qid, given, self._value(ev.per_query[qid][str(parsed)]))
            for qid in ev.queries
            for given, parsed in self._measures
        )

    def calc_aggregate(self, run: Any) -> dict[Any, Any]:
        """``{measure: mean over the evaluated queries}``, keyed by the measures as given."""
        ev = self.evaluation(run)
        return {given: self._value(ev.mean[str(parsed)]) for given, parsed in self._measures}


def evaluator(measures: Any, qrels: Any, **options: Any) -> Evaluator:
    """An :class:`Evaluator` for *measures* and *qrels*; *options* as in :func:`calc_aggregate`."""
    return Evaluator(measures, qrels, **options)


def calc_aggregate(
    measures: Any,
    qrels: Any,
    run: Any,
    *,
    exact: bool = False,
    fast_float: bool = False,
    tie_break: Optional[str] = None,
    layer: str = "fast",
    complete: bool = False,
) -> dict[Any, Any]:
    """Tie-aware ``ir_measures.calc_aggregate``: ``{measure: mean value}``.

    *exact*: return exact values instead of floats.  *fast_float*: compute in
    float arithmetic (big runs; not with *exact*).  *tie_break*: None
    (tie-aware) or ``"trec_eval"`` (ir_measures' own numbers).  *complete*:
    average over every judged query, one missing from the run counting as 0
    (trec_eval's ``-c``, ir_measures' own way).
    """
    return Evaluator(
        measures, qrels, exact=exact, fast_float=fast_float, tie_break=tie_break, layer=layer, complete=complete
    ).calc_aggregate(run)


def iter_calc(
    measures: Any,
    qrels: Any,
    run: Any,
    *,
    exact: bool = False,
    fast_float: bool = False,
    tie_break: Optional[str] = None,
    layer: str = "fast",
    complete: bool = False,
) -> Iterator[Metric]:
    """Tie-aware ``ir_measures.iter_calc``: :class:`Metric` ``(query_id, measure, value)`` per query."""
    return Evaluator(
        measures, qrels, exact=exact, fast_float=fast_float, tie_break=tie_break, layer=layer, complete=complete
    ).iter_calc(run)
