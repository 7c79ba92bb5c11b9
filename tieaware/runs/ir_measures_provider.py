"""tieaware as an ir_measures provider: ir_measures' own calls, and PyTerrier's, with tie-aware values.

ir_measures has no plugin discovery: a measure goes to the first provider of
``ir_measures.DefaultPipeline.providers`` that supports it.  :func:`install`
puts :data:`PROVIDER` first there, so ``ir_measures.calc_aggregate``,
``iter_calc``, ``calc``, ``evaluator`` and everything built on them
(``pt.Experiment``, ``pt.Evaluate``) compute every measure tieaware computes
(:data:`~tieaware.runs.compat.IR_MEASURES_FAMILIES`) tie-aware; the others fall
through to ir_measures' own providers.  :func:`uninstall` restores the pipeline.

The values are those of :func:`tieaware.calc_aggregate` with ``complete=True``:
each exact, rounded once to a float.  ir_measures' conventions are kept: the
queries are the judged ones, one the run misses gets the measure's default
(0), and ``NumQ`` counts the queries the run has.  The provider cuts each
ranking at k itself, in expectation over the ties: ir_measures' runtime
cutoff would cut inside a tie group.

When every measure asked for is tieaware's, the means are tieaware's exact
means rounded once; when some go to other providers, ir_measures' combined
evaluator averages the floats, so while installed the pipeline takes
tieaware's measures' means from the provider instead.  PyTerrier computes its
means itself, summing the per-query floats (equal to the last bit to
tieaware's): they can differ from tieaware's correctly rounded mean in the
last bit.

:data:`MEASURES` holds measure objects of ir_measures' kind, named ``ta.P``,
``ta.nDCG`` ...: ``ta.P@5`` is always tie-aware, installed or not (without the
provider, ir_measures' runtime provider computes it through tieaware), so it
can sit beside ir_measures' ``P@5`` in one ``pt.Experiment``.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Iterator, Optional

try:
    import ir_measures
    from ir_measures.providers import Evaluator as IrmEvaluator
    from ir_measures.providers import FallbackProvider, Provider
except ImportError:  # one line saying what to install (tests/test_ir_measures.py)
    from tieaware.model.errors import TieawareError

    raise TieawareError("tieaware.ir_measures needs ir_measures: pip install ir_measures") from None

from tieaware.io.inputs import to_run
from tieaware.model.errors import TieawareError
from tieaware.model.exact import to_float
from tieaware.model.names import Measure as TieawareMeasure
from tieaware.model.params import flag
from tieaware.runs.compat import IR_MEASURES_FAMILIES, Evaluator, from_ir_measures

__all__ = [
    "PROVIDER", "TieawareProvider", "TieawareEvaluator", "TieAwareMeasure", "MEASURES",
    "install", "uninstall", "is_installed", "tieaware_measure",
]  # fmt: skip


def tieaware_measure(measure: Any) -> Optional[TieawareMeasure]:
    """The tieaware measure an ir_measures measure (or a ``ta.`` measure) names, or None when tieaware lacks it.

    >>> import ir_measures
    >>> str(tieaware_measure(ir_measures.nDCG@10)), tieaware_measure(ir_measures.alpha_nDCG@10)
    ('nDCG@10', None)
    """
    if isinstance(measure, TieAwareMeasure):
        measure = measure.ir_measure
    try:
        measure.validate_params()  # ir_measures' own check (an AssertionError), as its providers make it
        return from_ir_measures(measure)
    except (AssertionError, TieawareError):
        return None


class TieawareEvaluator(IrmEvaluator):
    """ir_measures' Evaluator for tieaware's measures: one exact evaluation per run."""

    def __init__(self, measures: Iterable[Any], qrels: Any, *, fast_float: bool = False) -> None:
        measures = list(measures)
        self._pairs = []
        for m in measures:
            parsed = tieaware_measure(m)
            if parsed is None:
                raise TieawareError(f"measure is not one tieaware computes, got {str(m)!r}")
            self._pairs.append((m, parsed))
        self._inner = Evaluator([p for _, p in self._pairs], qrels, exact=not fast_float, fast_float=fast_float, complete=True)
        super().__init__(measures, set(self._inner.queries))
        #: {measure: float mean} of the last run evaluated, for :class:`ExactMeans`.
        self.last_means: dict[Any, float] = {}

    def _evaluate(self, run: Any) -> Any:
        run = to_run(run)
        if not any(q in self.qrel_qids for q in run):
            # No judged query in the run (PyTerrier evaluates an empty frame for topics without results): every judged
            # query gets the default 0, as ir_measures' own providers give it; a mean over no query is NaN, as theirs.
            self.last_means = {m: (0.0 if self.qrel_qids else math.nan if p.aggregate == "mean" else 0) for m, p in self._pairs}
            return None
        ev = self._inner.evaluation(run)
        self.last_means = {m: self._mean(ev, m, p) for m, p in self._pairs}
        return ev

    @staticmethod
    def _mean(ev: Any, measure: Any, parsed: TieawareMeasure) -> float:
        if parsed.name == "NumQ":  # ir_measures gives a query missing from the run NumQ's default 0
            return float(len(ev.queries))
        return to_float(ev.mean[str(parsed)])

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        ev = self._evaluate(run)
        for qid in ev.queries if ev is not None else ():
            values = ev.per_query[qid]
            for m, parsed in self._pairs:
                yield ir_measures.Metric(qid, m, to_float(values[str(parsed)]))

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        self._evaluate(run)
        return dict(self.last_means)

    def calc(self, run: Any) -> Any:
        metrics = list(self.iter_calc(run))
        return ir_measures.CalcResults(dict(self.last_means), metrics)


class TieawareProvider(Provider):
    """The ir_measures provider: supports what :func:`tieaware_measure` maps."""

    NAME = "tieaware"
    #: Compute in float arithmetic (:func:`install` ``fast_float=True``): big runs, values within 1e-12 of the exact ones.
    fast_float = False

    def supports(self, measure: Any) -> bool:
        return tieaware_measure(measure) is not None

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> TieawareEvaluator:
        return TieawareEvaluator(measures, qrels, fast_float=self.fast_float)


class ExactMeans(IrmEvaluator):
    """ir_measures' combined evaluator, with the means of tieaware's measures taken from :class:`TieawareEvaluator`."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner.measures, inner.qrel_qids)
        self._inner = inner
        self._ours = [e for e in inner.evaluators if isinstance(e, TieawareEvaluator)]

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        return self._inner._iter_calc(run)

    def _exact(self, means: dict[Any, Any]) -> dict[Any, Any]:
        for evaluator in self._ours:
            means.update(evaluator.last_means)
        return means

    def calc_aggregate(self, run: Any) -> dict[Any, Any]:
        return self._exact(super().calc_aggregate(run))

    def calc(self, run: Any) -> Any:
        means, metrics = super().calc(run)
        return ir_measures.CalcResults(self._exact(means), metrics)


PROVIDER = TieawareProvider()
if PROVIDER.NAME not in ir_measures.providers.registry:
    ir_measures.providers.register(PROVIDER)


def _pipeline_evaluator(measures: Iterable[Any], qrels: Any) -> Any:
    pipeline = ir_measures.DefaultPipeline
    evaluator = FallbackProvider._evaluator(pipeline, measures, qrels)
    if hasattr(evaluator, "evaluators") and any(isinstance(e, TieawareEvaluator) for e in evaluator.evaluators):
        return ExactMeans(evaluator)
    return evaluator


def install(*, fast_float: bool = False) -> None:
    """Put :data:`PROVIDER` first in ``ir_measures.DefaultPipeline``; a second call changes nothing but *fast_float*.

    *fast_float*: compute in float arithmetic, for big runs (tens of thousands of queries of 1,000 documents):
    each value within 1e-12 of the exact one, no longer equal to it to the last bit.
    """
    PROVIDER.fast_float = flag(fast_float, "fast_float")
    pipeline = ir_measures.DefaultPipeline
    if PROVIDER not in pipeline.providers:
        pipeline.providers.insert(0, PROVIDER)
    pipeline._evaluator = _pipeline_evaluator  # an instance attribute: uninstall() removes it


def uninstall() -> None:
    """Take :data:`PROVIDER` out of ``ir_measures.DefaultPipeline``; ir_measures' own providers compute again."""
    pipeline = ir_measures.DefaultPipeline
    while PROVIDER in pipeline.providers:
        pipeline.providers.remove(PROVIDER)
    vars(pipeline).pop("_evaluator", None)


def is_installed() -> bool:
    """True while :data:`PROVIDER` is in ``ir_measures.DefaultPipeline``."""
    return PROVIDER in ir_measures.DefaultPipeline.providers


class TieAwareMeasure(ir_measures.Measure):
    """An ir_measures measure that is always tie-aware: ``ta.P@5`` beside ir_measures' ``P@5``.

    Its parameters are those of ir_measures' measure of the same family; it prints as ``ta.`` and
    that measure's name, so the two never share a column or a dict key.
    """

    FAMILY = ""

    @property
    def ir_measure(self) -> Any:
        """ir_measures' own measure with the same parameters (``ta.P@5`` -> ``P@5``)."""
        return ir_measures.measures.registry[self.FAMILY](**self.params)

    def runtime_impl(self, qrels: Any, run: Any) -> Iterator[Any]:
        # Called by ir_measures' runtime provider when tieaware's is not installed: qrels and run are DataFrames
        # with ir_measures' columns; the same exact evaluation as the provider's.
        yield from TieawareEvaluator([self], qrels)._iter_calc(run)


def _family(name: str) -> TieAwareMeasure:
    base = type(ir_measures.measures.registry[name])
    cls = type(
        f"TieAware{name}",
        (TieAwareMeasure,),
        {
            "__name__": f"ta.{name}",
            "NAME": f"ta.{name}",
            "FAMILY": name,
            "AT_PARAM": base.AT_PARAM,
            "SUPPORTED_PARAMS": base.SUPPORTED_PARAMS,
            "DEFAULT": base.DEFAULT,
            "aggregator": base.aggregator,
            "__module__": __name__,
        },
    )
    return cls()


#: {name: the tie-aware measure object}: ``MEASURES["P"]@5`` prints as ``ta.P@5``.
MEASURES: dict[str, TieAwareMeasure] = {name: _family(name) for name in sorted(IR_MEASURES_FAMILIES)}
