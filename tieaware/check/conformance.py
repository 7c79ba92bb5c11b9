"""Run the implementation checker against real IR and recommender libraries, each in its own environment.

Each :class:`Peer` names a library, the call checked (``retrieval_average_precision(top_k=5)``,
pytrec_eval's ``map``, ...), the tieaware measure it claims to compute, and
the *code* that calls it: Python source defining ``impl(scores, labels)``,
which may use the stdlib helpers of :data:`PRELUDE` (``docnos``,
``qrels_and_run``, ``trec_files``).  The code runs

- in this process, when the library is installed here, or
- in a worker process started with another Python (``pythons={"torchmetrics":
  "/envs/torch/bin/python"}``; ``tieaware conformance --python
  torchmetrics=/envs/torch/bin/python``): libraries that need another numpy,
  pandas or torch than tieaware's own environment are checked in theirs.  The
  worker is a stdlib-only script that reads inputs as JSON lines and writes
  the values back (floats round-trip exactly, float32 results included);
  tieaware is not installed there.

:func:`run_all` checks each peer with :func:`tieaware.check.implementation`
(or :func:`tieaware.check.spread` for a peer of a statistic) and returns one
:class:`Row` per peer: ``conforms``, ``conforms as`` another convention,
``differs`` (with the profile: the convention computed, the tie rule, the
precision, every bug with its smallest input), or ``not installed`` when the
library cannot be imported.  A library that is not there is never reported
as conforming.

The peers themselves are in :mod:`tieaware.check.peers`.

>>> len({p.library for p in PEERS}) >= 24
True
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import selectors
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from tieaware.check import adapters
from tieaware.check.compare import shown
from tieaware.check.implementation import implementation
from tieaware.check.oracle import TIE_BREAKS
from tieaware.check.peers import ENVIRONMENTS, LIBRARIES, PEERS, PRELUDE, Peer
from tieaware.check.randomness import Randomness, detect
from tieaware.check.result import BUG, CONVENTION, ImplementationResult
from tieaware.model.errors import bad
from tieaware.model.exact import to_decimal, to_exact_string
from tieaware.model import tie_presets
from tieaware.model.tie_rules import ARBITRARY

__all__ = ["Peer", "Row", "PEERS", "LIBRARIES", "PRELUDE", "build", "check_peer", "run_all", "table", "markdown", "NOT_INSTALLED", "NOT_CHECKED", "Worker", "ENVIRONMENTS", "CONFORMS", "CONFORMS_AS", "DIFFERS", "tie_rule", "RULE_NAMES", "reproducer"]

NOT_INSTALLED = "not installed"
CONFORMS = "conforms"
CONFORMS_AS = "conforms as"
DIFFERS = "differs"
NOT_CHECKED = "not checked"

# -- running a peer: here, or in a worker of another environment -------------------------------------------

WORKER = r'''
import json, os, sys, traceback
protocol = os.fdopen(os.dup(1), "w")   # the library's own prints go to stderr, never into the protocol
os.dup2(2, 1)
sys.stdout = sys.stderr

def plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict):
        return {"pmf": [[plain(a), plain(b)] for a, b in v.items()]}
    if hasattr(v, "numerator") and hasattr(v, "denominator") and not isinstance(v, float):
        return {"fraction": [int(v.numerator), int(v.denominator)]}
    if hasattr(v, "item"):
        return plain(v.item())
    return float(v)

def reply(obj):
    protocol.write(json.dumps(obj) + "\n")
    protocol.flush()

request = json.loads(sys.stdin.readline())
namespace = {"__name__": "peer"}
try:
    exec(compile(request["code"], "<peer>", "exec"), namespace)
    impl = namespace["impl"]
    try:
        import inspect
        takes_num_rel = len(inspect.signature(impl).parameters) >= 3
    except (TypeError, ValueError):
        takes_num_rel = False
    try:
        from importlib.metadata import version
        ver = version(request["distribution"])
    except Exception:
        ver = None
    reply({"ready": True, "version": ver, "num_rel": takes_num_rel, "integer_labels": bool(getattr(impl, "integer_labels", False))})
except BaseException as exc:
    reply({"ready": False, "error": f"{type(exc).__name__}: {exc}", "import": isinstance(exc, ImportError)})
    sys.exit(0)
for line in sys.stdin:
    req = json.loads(line)
    args = [req["scores"], req["labels"]] + ([req["num_rel"]] if req.get("num_rel") is not None else [])
    try:
        reply({"value": plain(impl(*args))})
    except BaseException as exc:
        reply({"error": f"{type(exc).__name__}: {exc}"})
'''


class Worker:
    """A peer's code running in another Python (its own environment), called line by line over pipes."""

    def __init__(self, python: str, peer: Peer, timeout: float = 120.0) -> None:
        self.python, self.peer, self.timeout = python, peer, timeout
        self.process: Optional[subprocess.Popen] = None
        self.info = self._start()

    def _start(self) -> dict[str, Any]:
        self.stderr = tempfile.TemporaryFile(mode="w+")
        try:
            self.process = subprocess.Popen(
                [self.python, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1
            )
        except OSError as exc:
            raise bad("python", self.python, f"cannot be run ({exc.strerror or exc})") from None
        self._send({"code": PRELUDE + "\n" + self.peer.code, "distribution": self.peer.distribution})
        info = self._receive(self.timeout * 5)  # the first import of a library can take a while (numba, torch)
        if not info.get("ready"):
            self.close()
            if info.get("import"):
                raise ImportError(info.get("error"))
            raise RuntimeError(info.get("error", "the worker did not start"))
        return info

    def _send(self, obj: Any) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(obj) + "\n")
        self.process.stdin.flush()

    def _receive(self, timeout: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                self.close()
                raise TimeoutError(f"no answer within {timeout:g} s")
        line = self.process.stdout.readline()
        if not line:
            self.stderr.seek(0)
            detail = " ".join(self.stderr.read().split())[-300:]
            self.close()
            raise RuntimeError(f"the worker ended: {detail}")
        return json.loads(line)

    def __call__(self, scores: list, labels: list, num_rel: Any = None) -> Any:
        if self.process is None or self.process.poll() is not None:
            self.info = self._start()
        self._send({"scores": list(scores), "labels": [adapters._plain(x) for x in labels], "num_rel": num_rel})
        answer = self._receive(self.timeout)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return _value(answer["value"])

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


def _value(v: Any) -> Any:
    from fractions import Fraction

    if isinstance(v, dict) and "fraction" in v:
        return Fraction(*v["fraction"])
    if isinstance(v, dict) and "pmf" in v:
        return {_value(a): _value(b) for a, b in v["pmf"]}
    return v


def build(peer: Peer, python: Optional[str] = None) -> tuple[Callable[..., Any], Optional[str]]:
    """(impl, version) for *peer*: its code run here, or in a :class:`Worker` of *python*; ImportError when missing."""
    if python is not None:
        worker = Worker(python, peer)
        takes_num_rel = worker.info.get("num_rel", False)
        if takes_num_rel:

            def impl(scores: list, labels: list, num_rel: Any = None) -> Any:
                return worker(scores, labels, num_rel)

        else:

            def impl(scores: list, labels: list) -> Any:  # type: ignore[misc]
                return worker(scores, labels)

        impl.integer_labels = worker.info.get("integer_labels", False)  # type: ignore[attr-defined]
        impl.worker = worker  # type: ignore[attr-defined]
        return impl, worker.info.get("version")
    namespace: dict[str, Any] = {"__name__": "peer"}
    exec(compile(PRELUDE + "\n" + peer.code, f"<peer {peer.library}: {peer.call}>", "exec"), namespace)
    return namespace["impl"], _version(peer.distribution)


# -- running --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """The verdict on one peer."""

    peer: Peer
    #: "conforms", "conforms as", "differs" or "not installed".
    status: str
    #: The installed version, or None.
    version: Optional[str]
    #: The checker's result (None when not installed).
    result: Optional[ImplementationResult]
    #: Why it is not installed, when it is not.
    note: str = ""
    #: Seconds spent checking.
    seconds: float = 0.0
    #: The Python it ran in (None: this process).
    python: Optional[str] = None
    #: When the same input gave different answers: what they were, against the exact distribution.
    randomness: Optional[Randomness] = None


def _version(distribution: str) -> Optional[str]:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_peer(peer: Peer, python: Optional[str] = None, **options: Any) -> Row:
    """Check one peer; a library that cannot be imported gives a "not installed" row."""
    try:
        impl, version = build(peer, python)
    except ImportError as exc:
        return Row(peer, NOT_INSTALLED, None if python else _version(peer.distribution), None, f"{type(exc).__name__}: {exc}", python=python)
    start = time.perf_counter()
    settings = {**options, **{k: v for k, v in peer.options.items() if v is not None}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if peer.statistic is not None:
                from tieaware.check.spread_check import spread

                settings.pop("ties", None)
                result = spread(impl, peer.measure, peer.statistic, **settings)
            else:
                found = None if peer.measure.startswith("RBO") else detect(impl, peer.measure)
                result = implementation(impl, peer.measure, **settings)
    finally:
        worker = getattr(impl, "worker", None)
        if worker is not None:
            worker.close()
    status = CONFORMS if result.ok else CONFORMS_AS if result.conforms_as is not None else DIFFERS
    if peer.statistic is None and found is not None:
        status = DIFFERS  # one call is one ordering's value: never the expected value, whatever the rest says
    return Row(peer, status, version, result, seconds=time.perf_counter() - start, python=python,
               randomness=None if peer.statistic is not None else found)


def run_all(
    peers: Optional[Sequence[Peer]] = None,
    *,
    libraries: Optional[Sequence[str]] = None,
    pythons: Optional[dict[str, str]] = None,
    max_size: int = 4,
    max_examples: int = 50,
    progress: bool = False,
    jobs: int = 1,
) -> list[Row]:
    """Check every peer (or those of *libraries*); one Row each, in :data:`PEERS` order.

    *pythons* maps a library to the Python of its environment; the others run here.
    """
    from tieaware.check.progress import bar

    chosen = list(PEERS if peers is None else peers)
    for name in libraries or []:
        if name not in LIBRARIES:
            raise bad("library", name, f"is not one of {list(LIBRARIES)}")
    for name in pythons or {}:
        library, _, env = name.partition("/")
        if library not in LIBRARIES or (env and env not in ENVIRONMENTS):
            raise bad("pythons", name, f"must be a library of {list(LIBRARIES)}, or LIBRARY/ENV with ENV one of {list(ENVIRONMENTS)}")
    if libraries is not None:
        chosen = [p for p in chosen if p.library in libraries]
    pythons = pythons or {}
    tasks = [(p, pythons.get(f"{p.library}/{p.env}", pythons.get(p.library)), max_size, max_examples) for p in chosen]
    if jobs <= 1 or len(tasks) <= 1:
        return [_check_task(t) for t in bar(tasks, progress, "peers", len(tasks))]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Not multiprocessing.Pool: its workers are daemonic, and a daemonic process may not start the
    # checker's own worker process (every check ran into "daemonic processes are not allowed to have children").
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:  # rows in PEERS order
        return list(bar(pool.map(_check_task, tasks), progress, "peers", len(tasks)))


def _check_task(task: tuple[Peer, Optional[str], int, int]) -> Row:
    """check_peer on one task; a checker error becomes a "not checked" row instead of ending the run."""
    peer, python, max_size, max_examples = task
    try:
        return check_peer(peer, python, max_size=max_size, max_examples=max_examples)
    except Exception as exc:  # noqa: BLE001 - one peer's failure must not lose the other rows
        return Row(peer, NOT_CHECKED, None, None, f"the check stopped: {type(exc).__name__}: {str(exc)[:200]}", python=python)


# -- reporting ---------------------------------------------------------------------------------------------------

TIE_ASPECTS = ("ties", "large groups")


#: The cause of a tie finding -> its rule's public name (:mod:`tieaware.model.tie_rules`).
RULE_NAMES: dict[str, str] = {**TIE_BREAKS, "arbitrary_order": ARBITRARY, "one_threshold": "one-threshold"}


def tie_rule(row: Row) -> str:
    """The tie rule the probes found, with the largest tie group it held on: ``docno-desc (up to 65)``,
    ``arbitrary (input up to 16)``; "averaged" (tie-aware), or "" when not known.

    The rule names are :mod:`tieaware.model.tie_rules`'s, the presets' names.
    """
    if row.result is None:
        return ""
    if row.randomness is not None:
        return f"{ARBITRARY} (random: differs between calls)"
    ties = [f for f in row.result.profile if f.aspect in TIE_ASPECTS and f.severity == BUG]
    if ties and ties[0].cause not in RULE_NAMES:
        return ties[0].cause  # "unexplained", "raises": no rule
    if ties:
        f = ties[0]
        name = RULE_NAMES[f.cause]
        if f.cause == "arbitrary_order":
            if f.held_rule in RULE_NAMES and f.held_up_to:
                return f"{name} ({RULE_NAMES[f.held_rule]} up to {f.held_up_to})"
            return name
        return f"{name} (up to {f.held_up_to})" if f.held_up_to else name
    tied_bug = any(f.severity == BUG and f.aspect in ("definition", "other") for f in row.result.profile)
    if tied_bug:
        return ""
    return f"exact {row.peer.statistic}" if row.peer.statistic else "averaged"


def _vector(cex: Any, machine_dependent: bool) -> str:
    """A counterexample in one line: the input, the exact expected value and what came back."""
    if cex is None:
        return ""
    if hasattr(cex, "S"):
        inputs = f"S {cex.S}, L {cex.L}"
    else:
        inputs = f"scores {list(cex.scores)}, labels {[adapters._plain(x) for x in cex.labels]}"
    if cex.exception is not None:
        got = f"raised {cex.exception[:80]}"
    elif machine_dependent:
        got = "got a tie-broken value (which one depends on the CPU and the sizes)"
    else:
        got = f"got {shown(cex.got)}"
    try:
        expected = to_exact_string(cex.expected)
        if "/" in expected and len(expected) > 14 or not expected.replace("/", "").isdigit():
            expected = f"{expected if len(expected) <= 30 else '...'} = {to_decimal(cex.expected, 6)}"
    except (ValueError, TypeError):
        expected = str(cex.expected)
    return f"{inputs}: expected {expected}, {got}"


def _findings(row: Row) -> list[str]:
    """The bugs and notes of a row other than its tie rule, as "cause: vector" (one per cause and message)."""
    if row.result is None:
        return []
    out: list[str] = []
    seen = set()
    for f in row.result.profile:
        if f.aspect in TIE_ASPECTS or f.cause in ("convention", "precision"):
            continue
        cex = f.counterexample
        key = (f.cause, None if cex is None else cex.exception)
        if key in seen:
            continue
        seen.add(key)
        vary = row.peer.machine_dependent and f.cause in ("arbitrary_order",)
        out.append(f"`{f.cause}`{' (note)' if f.severity != BUG else ''}: {_vector(cex, vary)}")
    if row.randomness is not None:
        out.insert(0, f"`non_deterministic`: {row.randomness}")
    return out


def _verdict(row: Row) -> str:
    if row.status == NOT_INSTALLED:
        return NOT_INSTALLED
    if row.status == CONFORMS_AS:
        return f"conforms as `{row.result.conforms_as}`"  # type: ignore[union-attr]
    if row.randomness is not None:
        return f"{row.status} (non-deterministic)"
    return row.status


def reproducer(row: Row) -> str:
    """A script a maintainer can paste into an issue: the library call and each finding's smallest input,
    with the exact tie-aware value beside what the library returned ("" when there is nothing to show).

    It needs only the library: the few stdlib helpers the call uses (document names, qrels and run
    dicts) are written out.
    """
    lines = _inputs(row)
    if not lines:
        return ""
    peer = row.peer
    version = f"=={row.version}" if row.version else ""
    helpers = _helpers(peer.code)
    head = [
        f"# {peer.library}{' ' + row.version if row.version else ''}: {peer.call}, checked as {peer.measure} (tieaware conformance)",
        f"# pip install '{peer.distribution}{version}'",
        "import warnings",
        "warnings.simplefilter('ignore')",
    ]
    return "\n".join(head + helpers + [peer.code.strip(), ""] + lines) + "\n"


def _helpers(code: str) -> list[str]:
    """The stdlib helpers of :data:`PRELUDE` that *code* calls, as source."""
    wanted = []
    if "trec_files(" in code or "qrels_and_run(" in code:
        wanted = [adapters.docnos, adapters._plain, adapters.qrels_and_run] + ([adapters.trec_files] if "trec_files(" in code else [])
        return ["import os", "from collections.abc import Sequence", "from typing import Any", f"QID = {adapters.QID!r}"] + [
            inspect.getsource(f).rstrip() + "\n" for f in wanted
        ]
    if "docnos(" in code:
        return ["from collections.abc import Sequence", "from typing import Any", inspect.getsource(adapters.docnos).rstrip() + "\n"]
    return []


def _inputs(row: Row) -> list[str]:
    """One call per finding: ``print(impl(scores, labels))  # cause: tie-aware value ..., got ...``."""
    out: list[str] = []
    if row.randomness is not None:
        c = row.randomness.case
        out.append(f"print([impl({list(c.scores)!r}, {[adapters._plain(x) for x in c.labels]!r}) for _ in range(10)])"
                   f"  # non_deterministic: different answers; tie-aware value {to_exact_string(row.randomness.expected)}")
    if row.result is None:
        return out
    seen = set()
    for f in row.result.profile:
        cex = f.counterexample
        if f.severity != BUG or cex is None or not hasattr(cex, "scores") or f.cause in seen:
            continue
        seen.add(f.cause)
        args = f"{list(cex.scores)!r}, {[adapters._plain(x) for x in cex.labels]!r}"
        if getattr(cex.case, "num_rel", None) is not None:
            args += f", {cex.case.num_rel}"
        out.append(f"print(impl({args}))  # {f.cause}: {_vector(cex, False).split(': ', 1)[1]}")
    return out


def table(rows: Sequence[Row], tablefmt: str = "simple", links: bool = False) -> str:
    """The library × call table: verdict, the measure it computes, tie rule, precision, smallest counterexample.

    *links* adds a column linking each row's reproducer (``#r1``, ...; :func:`markdown` writes them).
    """
    from tabulate import tabulate

    body = []
    for n, r in enumerate(rows, start=1):
        res = r.result
        tie_cex = None
        if res is not None:
            tie = [f for f in res.profile if f.aspect in TIE_ASPECTS and f.severity == BUG]
            tie_cex = tie[0].counterexample if tie else None
        body.append(
            [
                r.peer.library + (f" {r.version}" if r.version else ""),
                r.peer.call,
                f"`{r.peer.measure}`" + (f" ({r.peer.statistic})" if r.peer.statistic else ""),
                _verdict(r) if r.status != NOT_INSTALLED else f"{NOT_INSTALLED}",
                "" if res is None else (f"`{res.convention}`" if res.convention else "no known convention"),
                tie_rule(r),
                "" if res is None or res.precision is None else str(res.precision),
                r.note if res is None else "; ".join(_findings(r)),
                _vector(tie_cex, r.peer.machine_dependent) if tie_cex is not None else "",
            ]
            + ([f"[r{n}](#r{n})" if reproducer(r) else ""] if links else [])
        )
    head = ["library", "call", "checked as", "verdict", "computes (untied)", "tie rule", "precision", "other findings (smallest input)", "tie rule shown on"]
    return tabulate(body, headers=head + (["reproducer"] if links else []), tablefmt=tablefmt, disable_numparse=True)


def markdown(
    rows: Sequence[Row], *, max_size: int, max_examples: int, command: str = "tieaware conformance --markdown docs/conformance.md", date: Optional[str] = None
) -> str:
    """A Markdown page: what was checked, how, when (*date*, default today, UTC), the table, and each row's reproducer."""
    import datetime

    date = date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    counts = {s: sum(1 for r in rows if r.status == s) for s in (CONFORMS, CONFORMS_AS, DIFFERS, NOT_INSTALLED, NOT_CHECKED)}
    libraries = sorted({r.peer.library for r in rows if r.status != NOT_INSTALLED})
    lines = [
        "# Conformance of IR libraries to tie-aware measures",
        "",
        f"Generated by `{command}` on {date}; do not edit by hand.",
        "",
        "Each library call is checked with `tieaware.check.implementation` (a statistic over tie-breakings with",
        "`tieaware.check.spread`; see docs/check.md) at the checker's defaults except for",
        f"{max_examples} hypothesis inputs and the per-call options below: every tie structure of up to {max_size} documents",
        "over labels 0, 1, 2 and around the cutoff, near-ties, zero, negative, -0.0, huge and tiny scores, grades 3, 4",
        "and 1/2, tie groups of 10 to 64 documents, every input also in reverse order.  The profile of each call:",
        "",
        "- **verdict**: *conforms* (the tie-aware value of the measure named, at the measured precision),",
        "  *conforms as* another convention (ties averaged, but the measure is another library's convention of it),",
        "  *differs*, or *not installed* (never *conforms*).",
        "- **computes (untied)**: the tieaware measure its values match on untied inputs: its definition, ties aside",
        "  (docs/conventions.md, Conventions of other libraries).  *no known convention* is a definitional bug.",
        "- **tie rule**: `averaged` (tie-aware), or the rule the probes found, by the names of `--tie-break`",
        "  (tieaware.model.tie_rules): `input` (a stable sort on score), `reverse-input`, `docno-asc`, `docno-desc`",
        "  (trec_eval), `pessimistic`, `optimistic`, `one-threshold` (a tie group is one point of the",
        "  precision-recall curve), with the largest tie group it held on: `(up to 65)` held on every probe, tie",
        "  groups of 5 to 65 documents and ties inside rankings of 40 and 200.  The documents are named so that",
        "  docno order is neither input order nor its reverse, and changes from one input to the next, so the four",
        "  order rules are told apart.  `arbitrary`: no fixed rule held on every probe (an unstable sort: numpy's,",
        "  numba's, torch's, whose order changes with the group size, the ranking length and the CPU); `arbitrary",
        "  (input up to 16)` says which rule held, up to which group size.  A rule of a library whose sort is",
        "  unstable is what this machine gave; for those the vectors show only the input, never which tie-broken",
        "  value came back.  `arbitrary (random: differs between calls)`: the same input gave different answers",
        "  (ties shuffled at random), reported with the distribution of the answers against the exact one.",
        "- **precision**: of the results, measured (float32, rounded to d decimals); answers are judged at it.",
        "- **other findings**: every other class found, with its smallest input and the exact expected value.",
        "- **reproducer**: a script that calls the library on each finding's input (section Reproducers).",
        "",
        "Libraries that need another numpy, pandas or torch than tieaware's environment ran in their own",
        "environment (`tieaware conformance --python LIBRARY=PYTHON`); see the last column of the list below.",
        "",
        f"{len(rows)} calls of {len(libraries)} libraries: {counts[CONFORMS]} conform, {counts[CONFORMS_AS]} conform as another",
        f"convention, {counts[DIFFERS]} differ, {counts[NOT_INSTALLED]} not installed"
        + (f", {counts[NOT_CHECKED]} not checked." if counts[NOT_CHECKED] else "."),
        "",
        table(rows, "github", links=True),
        "",
        "## Where each library ran",
        "",
    ]
    seen = set()
    for r in rows:
        if r.peer.library in seen:
            continue
        seen.add(r.peer.library)
        where = {"test": "tieaware's test environment (CI)", "conformance": "the `conformance` extra (numpy 2; CI)",
                 "numpy1": "an environment with numpy < 2 (out of CI)", "pandas2": "an environment with pandas < 3 (out of CI)",
                 "torch": "an environment with torch (CPU; out of CI)", "own": "an environment of its own (out of CI)"}[r.peer.env]
        lines.append(f"- {r.peer.library}" + (f" {r.version}" if r.version else "") + f": {where}" + (f"; {r.note}" if r.note else ""))
    lines.append("")
    lines += _summaries(rows)
    lines += [tie_presets.markdown(), ""]
    lines += _reproducers(rows)
    return "\n".join(lines)


def _reproducers(rows: Sequence[Row]) -> list[str]:
    """The section every row with a finding links to: its reproducer, anchored ``r<N>``."""
    lines = ["## Reproducers", "", "Each script needs only the library (the version it ran with); paste it into an issue.", ""]
    for n, r in enumerate(rows, start=1):
        script = reproducer(r)
        if script:
            lines += [f'<a id="r{n}"></a>', "", f"### r{n}: {r.peer.library} {r.peer.call}", "", "```python", script.rstrip(), "```", ""]
    return lines


def _family(measure: str) -> str:
    """The measure's name without options: "AP(norm=capped)@5" -> "AP"."""
    return measure.split("(")[0].split("@")[0]


def _summaries(rows: Sequence[Row]) -> list[str]:
    """Per library: its tie rules, the conventions it computes (as tieaware measures), and every bug with its vector."""
    lines = ["## Each library", "", "What the table says, library by library (from the same run).", ""]
    by_library: dict[str, list[Row]] = {}
    for r in rows:
        by_library.setdefault(r.peer.library, []).append(r)
    for library, group in by_library.items():
        checked = [r for r in group if r.result is not None]
        version = next((r.version for r in group if r.version), None)
        lines += [f"### {library}" + (f" {version}" if version else ""), ""]
        if not checked:
            lines += [f"{group[0].status.capitalize()}: {group[0].note}", ""]
            continue
        rules: dict[str, list[str]] = {}
        for r in checked:
            rules.setdefault(tie_rule(r) or "none named (a definitional bug comes first)", []).append(r.peer.call)
        lines.append("- tie rule: " + "; ".join(f"`{rule}` ({', '.join(calls)})" for rule, calls in rules.items()))
        conventions = []
        for r in checked:
            res = r.result
            assert res is not None
            computed = f"`{res.convention}`" if res.convention else "no known convention"
            notes = [f"`{f.measure}`" for f in res.profile if f.cause == "relevance_threshold" and f.measure]
            extra = f"; label 1/2 read as in {', '.join(notes)}" if notes else ""
            conventions.append(f"{r.peer.call}: {computed}{extra}")
        lines.append("- conventions (the measure each call computes on untied inputs): " + "; ".join(conventions))
        families: dict[str, set[str]] = {}
        for r in checked:
            if r.result is not None and r.result.convention:
                families.setdefault(_family(r.peer.measure), set()).add(r.result.convention)
        for family, found in sorted(families.items()):
            if len(found) > 1:
                lines.append(f"- inconsistent: its {family} calls compute {len(found)} conventions: " + ", ".join(f"`{c}`" for c in sorted(found)))
                for r in checked:
                    conv = [f for f in r.result.profile if f.severity == CONVENTION and f.aspect == "definition"]  # type: ignore[union-attr]
                    if _family(r.peer.measure) == family and conv and conv[0].counterexample is not None:
                        lines.append(f"  - {r.peer.call} (`{conv[0].measure}`): {_vector(conv[0].counterexample, False)}")
        bugs = [f"{r.peer.call}: {finding}" for r in checked for finding in _findings(r) if "(note)" not in finding]
        definitional = [r for r in checked if r.result is not None and r.result.convention is None]
        for r in definitional:
            d = [f for f in r.result.profile if f.aspect == "definition" and f.severity == BUG]  # type: ignore[union-attr]
            if d and not any(b.startswith(f"{r.peer.call}: `definition`") for b in bugs):
                bugs.append(f"{r.peer.call}: `definition`: {_vector(d[0].counterexample, False)}")
        lines.append("- bugs:" + (" none found" if not bugs else ""))
        lines += [f"  - {b}" for b in bugs]
        lines.append("")
    return lines
