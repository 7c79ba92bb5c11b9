"""Run the implementation checker against the real IR libraries installed here.

scikit-learn, pytrec_eval, ir_measures, ranx and the PyPI ``rbo`` package.

Each :class:`Peer` names a library, the call checked (``ndcg_score(k=5,
ignore_ties=False)``, pytrec_eval's ``map``, ...) and the tieaware measure
it claims to compute.  :func:`run_all` checks each with
:func:`tieaware.check.implementation` and returns one :class:`Row` per peer:
``conforms``, ``differs`` (with the counterexample and diagnosed cause), or
``not installed`` when the library cannot be imported.  A library that is
not there is never reported as conforming.

>>> [p.library for p in PEERS][:3]
['scikit-learn', 'scikit-learn', 'scikit-learn']
"""

from __future__ import annotations

import importlib
import importlib.metadata
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from tieaware.check import adapters
from tieaware.check.compare import shown
from tieaware.check.implementation import ImplementationResult, implementation
from tieaware.model.exact import to_decimal

__all__ = ["Peer", "Row", "PEERS", "LIBRARIES", "run_all", "table", "markdown", "NOT_INSTALLED"]

NOT_INSTALLED = "not installed"
CONFORMS = "conforms"
DIFFERS = "differs"


@dataclass(frozen=True)
class Peer:
    """One library call that claims to compute a measure."""

    #: Library name as users know it, e.g. "scikit-learn".
    library: str
    #: Distribution name for the version, e.g. "scikit-learn", "pytrec-eval-terrier".
    distribution: str
    #: The call checked, e.g. "ndcg_score(k=5, ignore_ties=False)".
    call: str
    #: The tieaware measure it is compared with.
    measure: str
    #: Builds impl(scores, labels); raises ImportError when the library is missing.
    build: Callable[[], Callable[[list, list], Any]]
    #: Extra options for :func:`implementation` (e.g. min_size=2 for scikit-learn's nDCG).
    options: dict[str, Any] = field(default_factory=dict)
    #: True when its tie order depends on the CPU (numpy's unstable argsort, numba sorts):
    #: reports then name only what holds on every machine.
    machine_dependent: bool = False


# -- the peers ----------------------------------------------------------------


def _sklearn(name: str, **kwargs: Any) -> Callable[[], Callable[[list, list], Any]]:
    def build() -> Callable[[list, list], Any]:
        metrics = importlib.import_module("sklearn.metrics")
        impl = adapters.from_arrays(getattr(metrics, name), **kwargs)

        def quiet(scores: list, labels: list) -> Any:
            with warnings.catch_warnings():  # numpy warns on scores near 1e308; the value is still checked
                warnings.simplefilter("ignore", RuntimeWarning)
                return impl(scores, labels)

        return quiet

    return build


def _sklearn_ap() -> Callable[[list, list], Any]:
    metrics = importlib.import_module("sklearn.metrics")

    def impl(scores: list, labels: list) -> Any:
        with warnings.catch_warnings():  # "No positive class found in y_true": its value is still checked
            warnings.simplefilter("ignore")
            return metrics.average_precision_score([int(x >= 1) for x in labels], scores)

    return impl


def _pytrec_eval(measure: str) -> Callable[[], Callable[[list, list], Any]]:
    def build() -> Callable[[list, list], Any]:
        pytrec_eval = importlib.import_module("pytrec_eval")
        # pytrec_eval is asked for the family ("P", "ndcg_cut") and reports every standard cutoff ("P_5").
        head, _, tail = measure.rpartition("_")
        base = head if tail.isdigit() else measure

        def fn(qrels: dict, run: dict) -> Any:
            values = pytrec_eval.RelevanceEvaluator(qrels, {base}).evaluate(run)
            return values[adapters.QID][measure]

        return adapters.from_qrels_run(fn)

    return build


def _ir_measures(name: str) -> Callable[[], Callable[[list, list], Any]]:
    def build() -> Callable[[list, list], Any]:
        ir_measures = importlib.import_module("ir_measures")
        parsed = ir_measures.parse_measure(name)

        def fn(qrels: dict, run: dict) -> Any:
            return ir_measures.calc_aggregate([parsed], qrels, run)[parsed]

        return adapters.from_qrels_run(fn)

    return build


def _ranx(metric: str) -> Callable[[], Callable[[list, list], Any]]:
    def build() -> Callable[[list, list], Any]:
        ranx = importlib.import_module("ranx")

        def fn(qrels: dict, run: dict) -> Any:
            with warnings.catch_warnings():  # numba's type-safety chatter
                warnings.simplefilter("ignore")
                return ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric)

        return adapters.from_qrels_run(fn)

    return build


def _rbo_ext() -> Callable[[list, list], Any]:
    rbo = importlib.import_module("rbo")
    # An untied implementation: tie groups are handed over in their listed order.
    return adapters.rbo_untied(lambda S, L: rbo.RankingSimilarity(S, L).rbo_ext(p=0.9))


_NDCG = {"min_size": 2}  # scikit-learn refuses a single document
#: numpy's default argsort is not stable on AVX-512 CPUs (x86-simd-sort), and numba sorts are not
#: stable either, so these peers' tie order varies between machines.
_VARIES = True

PEERS: tuple[Peer, ...] = (
    Peer("scikit-learn", "scikit-learn", "ndcg_score(k=5, ignore_ties=False)", "nDCG@5", _sklearn("ndcg_score", k=5), _NDCG),
    Peer("scikit-learn", "scikit-learn", "ndcg_score(k=5, ignore_ties=True)", "nDCG@5", _sklearn("ndcg_score", k=5, ignore_ties=True), _NDCG, _VARIES),
    Peer("scikit-learn", "scikit-learn", "dcg_score(k=5, ignore_ties=False)", "DCG@5", _sklearn("dcg_score", k=5), _NDCG),
    Peer("scikit-learn", "scikit-learn", "dcg_score(k=5, ignore_ties=True)", "DCG@5", _sklearn("dcg_score", k=5, ignore_ties=True), _NDCG, _VARIES),
    Peer("scikit-learn", "scikit-learn", "average_precision_score", "AP", _sklearn_ap),
    Peer("pytrec_eval", "pytrec-eval-terrier", "P_5", "P@5", _pytrec_eval("P_5")),
    Peer("pytrec_eval", "pytrec-eval-terrier", "recall_5", "R@5", _pytrec_eval("recall_5")),
    Peer("pytrec_eval", "pytrec-eval-terrier", "map", "AP", _pytrec_eval("map")),
    Peer("pytrec_eval", "pytrec-eval-terrier", "recip_rank", "RR", _pytrec_eval("recip_rank")),
    Peer("pytrec_eval", "pytrec-eval-terrier", "ndcg_cut_5", "nDCG@5", _pytrec_eval("ndcg_cut_5")),
    Peer("ir_measures", "ir_measures", "P@5", "P@5", _ir_measures("P@5")),
    Peer("ir_measures", "ir_measures", "R@5", "R@5", _ir_measures("R@5")),
    Peer("ir_measures", "ir_measures", "AP", "AP", _ir_measures("AP")),
    Peer("ir_measures", "ir_measures", "RR", "RR", _ir_measures("RR")),
    Peer("ir_measures", "ir_measures", "nDCG@5", "nDCG@5", _ir_measures("nDCG@5")),
    Peer("ranx", "ranx", "precision@5", "P@5", _ranx("precision@5"), {}, _VARIES),
    Peer("ranx", "ranx", "recall@5", "R@5", _ranx("recall@5"), {}, _VARIES),
    Peer("ranx", "ranx", "map", "AP", _ranx("map"), {}, _VARIES),
    Peer("ranx", "ranx", "mrr", "RR", _ranx("mrr"), {}, _VARIES),
    Peer("ranx", "ranx", "ndcg@5", "nDCG@5", _ranx("ndcg@5"), {}, _VARIES),
    Peer("rbo", "rbo", "RankingSimilarity(S, L).rbo_ext(p=0.9)", "RBO(p=0.9, variant=a, bound=ext)", _rbo_ext),
)

#: The libraries, in table order.
LIBRARIES: tuple[str, ...] = tuple(dict.fromkeys(p.library for p in PEERS))


# -- running --------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """The verdict on one peer."""

    peer: Peer
    #: "conforms", "differs" or "not installed".
    status: str
    #: The installed version, or None.
    version: Optional[str]
    #: The checker's result (None when not installed).
    result: Optional[ImplementationResult]
    #: Why it is not installed, when it is not.
    note: str = ""
    #: Seconds spent checking.
    seconds: float = 0.0
    #: The check on untied inputs only (None when not run): is it at least the ordinary measure?
    untied: Optional[ImplementationResult] = None


def _version(distribution: str) -> Optional[str]:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_peer(peer: Peer, **options: Any) -> Row:
    """Check one peer, on all inputs and on untied inputs only; a library that cannot be imported gives a "not installed" row."""
    try:
        impl = peer.build()
    except ImportError as exc:
        return Row(peer, NOT_INSTALLED, _version(peer.distribution), None, f"{type(exc).__name__}: {exc}")
    start = time.perf_counter()
    result = implementation(impl, peer.measure, **{**options, **peer.options})
    untied = implementation(impl, peer.measure, **{**options, **peer.options, "ties": False})
    status = CONFORMS if result.ok else DIFFERS
    return Row(peer, status, _version(peer.distribution), result, seconds=time.perf_counter() - start, untied=untied)


def run_all(
    peers: Optional[Sequence[Peer]] = None,
    *,
    libraries: Optional[Sequence[str]] = None,
    max_size: int = 4,
    max_examples: int = 50,
    progress: bool = False,
) -> list[Row]:
    """Check every peer (or those of *libraries*); one Row each, in :data:`PEERS` order."""
    from tieaware.check.progress import bar
    from tieaware.model.errors import bad

    chosen = list(PEERS if peers is None else peers)
    if libraries is not None:
        for name in libraries:
            if name not in LIBRARIES:
                raise bad("library", name, f"is not one of {list(LIBRARIES)}")
        chosen = [p for p in chosen if p.library in libraries]
    return [check_peer(p, max_size=max_size, max_examples=max_examples) for p in bar(chosen, progress, "peers", len(chosen))]


# -- reporting -------------------------------------------------------------------


def _varies(row: Row) -> bool:
    """A machine-dependent peer whose failure is a tie-break: report nothing order-specific."""
    from tieaware.check.diagnose import TIE_BROKEN_CAUSES

    d = None if row.result is None else row.result.diagnosis
    return row.peer.machine_dependent and d is not None and d.cause in TIE_BROKEN_CAUSES


def _counterexample(row: Row) -> str:
    if row.result is None or row.result.counterexample is None:
        return ""
    c = row.result.counterexample
    got = f"raised {c.exception}" if c.exception is not None else f"got {shown(c.got)}"
    if _varies(row):
        got = "got a tie-broken value (which one depends on the CPU)"
    inputs = f"S {c.S}, L {c.L}" if hasattr(c, "S") else f"scores {list(c.scores)}, labels {list(c.labels)}"
    return f"{inputs}: expected {to_decimal(c.expected, 6)}, {got}"


def _untied(r: Row) -> str:
    """The untied-inputs verdict, with its diagnosed cause when it differs (e.g. ``differs (float32_scores)``)."""
    if r.untied is None:
        return ""
    if r.untied.ok:
        return CONFORMS
    cause = r.untied.diagnosis.cause if r.untied.diagnosis is not None else None
    return f"{DIFFERS} ({cause})" if cause else DIFFERS


def _cause(row: Row) -> str:
    if row.status == NOT_INSTALLED:
        return row.note
    if row.result is None or row.result.ok:
        return ""
    if row.result.counterexample is not None and row.result.counterexample.exception is not None:
        return "raises on this input"
    if _varies(row):
        return "arbitrary_order"
    return "no usual cause fits" if row.result.diagnosis is None else row.result.diagnosis.cause


def table(rows: Sequence[Row], tablefmt: str = "simple") -> str:
    """The library × measure table: verdict, diagnosed cause and counterexample."""
    from tabulate import tabulate

    body = [
        [
            r.peer.library + (f" {r.version}" if r.version else ""),
            r.peer.call,
            r.peer.measure,
            r.status,
            _untied(r),
            _cause(r),
            _counterexample(r),
        ]
        for r in rows
    ]
    head = ["library", "call", "tieaware measure", "verdict", "untied inputs", "cause", "smallest counterexample"]
    return tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True)


def markdown(rows: Sequence[Row], *, max_size: int, max_examples: int) -> str:
    """A Markdown page: what was checked, how, and the table."""
    conforming = sum(1 for r in rows if r.status == CONFORMS)
    missing = sum(1 for r in rows if r.status == NOT_INSTALLED)
    lines = [
        "# Conformance of IR libraries to tie-aware measures",
        "",
        "Generated by `tieaware conformance --markdown docs/conformance.md`; do not edit by hand.",
        "",
        "Each library call is checked with `tieaware.check.implementation` (see docs/check.md):",
        f"every tie structure of up to {max_size} documents over labels 0, 1, 2 (and the structures placed at the",
        "cutoff and past it), near-ties (2^-30 and one ulp apart), zero, negative, -0.0, huge and tiny scores,",
        "grades 3 and 4, tie groups of 10 to 16 documents, every input also in reverse order (see docs/check.md,",
        f"\"What is searched\"), and {max_examples} derandomized hypothesis inputs,",
        "each compared with the exact tie-aware value (the expected value over every ordering of tied documents)",
        "within a relative 1e-9.  *conforms* means no difference was found; *differs* shows the smallest input",
        "found, and the diagnosed cause.  A library that could not be imported is *not installed*, never *conforms*.",
        "The *untied inputs* column repeats the check on rankings without ties only (distinct scores, including",
        "doubles float32 cannot tell apart): there every correct implementation, tie-aware or not, must give the",
        "ordinary value; a *differs* there names its cause (`float32_scores`: scores stored in single precision tie).",
        "",
        "Documents are named d000, d001, ... in input order, so `docno` means ties broken in reverse input order,",
        "trec_eval's rule (docno descending), and `input order` means ties kept in the order given (which is also",
        "docno ascending here).  `one threshold`: each tie group is one threshold of the precision-recall curve.",
        "Inputs are tried smallest first, so every input checked before the counterexample matched.",
        "Tie-oblivious libraries are not wrong by their own definition: they compute the value of one",
        "tie-breaking, and the table shows which one.",
        "",
        "`arbitrary order`: ties are broken, not averaged, and no fixed rule is claimed. scikit-learn's",
        "`ignore_ties=True` sorts with numpy's default `argsort`, which is not stable on CPUs with AVX-512,",
        "and with numpy >= 2 on CPUs with AVX2 too (numpy uses x86-simd-sort there:",
        "`np.argsort([5., 4., 3., 2., 1., 1.])` gives `[5 4 3 2 1 0]`, and `[4 5 3 2 1 0]` elsewhere), and",
        "ranx sorts with numba; so their tie order, and the value they give on a tied input, varies between",
        "machines. The table shows for them only what holds on every CPU: the verdict, the input and the cause.",
        "",
        f"{len(rows)} calls: {conforming} conform, {len(rows) - conforming - missing} differ, {missing} not installed.",
        "",
        table(rows, "github"),
        "",
    ]
    return "\n".join(lines)
