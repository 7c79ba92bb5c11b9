"""Wrap code with another calling convention as ``impl(scores, labels) -> number``.

The checker calls ``impl(scores, labels)`` with parallel lists for one query.
Adapters build what other code expects from those two lists:

- :func:`from_qrels_run`: a function of ir_measures/pytrec_eval-style dicts
  ``qrels = {qid: {docno: label}}`` and ``run = {qid: {docno: score}}``;
- :func:`from_arrays`: a scikit-learn-style function of 2-D arrays
  ``fn(y_true, y_score)``;
- :func:`rbo_untied`: an RBO function of two plain lists (no ties), for
  ``RBO(...)`` checks;
- :func:`from_command`: a command line that reads a TREC qrels file and a
  TREC run file and prints the value (trec_eval and friends).

Documents are named ``d000``, ``d001``, ... in input order, so a program that
breaks ties by docno descending (trec_eval) breaks them in reverse input
order, which the diagnosis recognises as ``docno``.

>>> def p_at_1(qrels, run):        # ir_measures-style: dicts in, {qid: value} out
...     best = max(run["q1"].values())
...     top = [d for d, s in run["q1"].items() if s == best]
...     return {"q1": sum(qrels["q1"][d] >= 1 for d in top) / len(top)}
>>> impl = from_qrels_run(p_at_1)
>>> impl([1.0, 1.0], [0, 1])
0.5
"""

from __future__ import annotations

import math
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

from tieaware.model.errors import TieawareError, bad

__all__ = ["from_qrels_run", "from_arrays", "from_command", "rbo_untied", "docnos", "qrels_and_run", "trec_files", "QID", "TIMEOUT", "PREFLIGHT"]

#: The one query every adapter evaluates.
QID = "q1"


def docnos(n: int) -> list[str]:
    """Document names in input order; zero-padded so string order is input order.

    >>> docnos(3)
    ['d000', 'd001', 'd002']
    """
    width = max(3, len(str(max(n - 1, 0))))
    return [f"d{i:0{width}d}" for i in range(n)]


def _plain(label: Any) -> Any:
    # pytrec_eval and friends want int relevance labels.
    try:
        return int(label) if int(label) == label else float(label)
    except (TypeError, ValueError):
        return label


def qrels_and_run(
    scores: Sequence[float], labels: Sequence[Any], *, qid: str = QID, unretrieved: Sequence[Any] = ()
) -> tuple[dict, dict]:
    """The dicts ``({qid: {docno: label}}, {qid: {docno: score}})`` for one query.

    *unretrieved* labels are judged documents missing from the run (``u000``, ...).

    >>> qrels_and_run([2.0, 1.0], [0, 1])
    ({'q1': {'d000': 0, 'd001': 1}}, {'q1': {'d000': 2.0, 'd001': 1.0}})
    >>> qrels_and_run([1.0], [1], qid="1", unretrieved=[1])
    ({'1': {'d000': 1, 'u000': 1}}, {'1': {'d000': 1.0}})
    """
    names = docnos(len(scores))
    qrels = {qid: {d: _plain(x) for d, x in zip(names, labels)}}
    qrels[qid].update({f"u{i:03d}": _plain(x) for i, x in enumerate(unretrieved)})
    run = {qid: {d: float(s) for d, s in zip(names, scores)}}
    return qrels, run


def _single(value: Any, where: str, qid: str = QID) -> Any:
    """The one number in a result that may be a dict {qid: value} or {qid: {measure: value}}."""
    while isinstance(value, Mapping):
        if qid in value:
            value = value[qid]
        elif len(value) == 1:
            value = next(iter(value.values()))
        else:
            raise bad(where, value, f"must be a number, {{'{qid}': number}} or {{'{qid}': {{measure: number}}}}")
    return value


def _check_qid(qid: object) -> str:
    if not isinstance(qid, str) or not qid or any(c.isspace() for c in qid):
        raise bad("qid", qid, "must be a non-empty string without spaces, e.g. '1' or 'q1'")
    return qid


def from_qrels_run(fn: Callable[[dict, dict], Any], *, qid: str = QID, rel: Any = 1) -> Callable[..., Any]:
    """Adapt ``fn(qrels, run)`` taking dicts (ir_measures, pytrec_eval, ranx style).

    *fn* may return a number, ``{qid: number}`` or ``{qid: {measure: number}}``.
    An empty ranking is passed as an empty run for the query.  *qid* names the
    query: some backends want a numeric one (ir_measures' ``nDCG(dcg='exp-log2')``
    and ``ERR@k`` run through trec_eval's C code and need ``qid="1"``).

    The adapted function takes an optional third argument, num_rel: the
    judged relevant documents, retrieved or not.  The ones not retrieved are
    added to the qrels with label *rel* (the measure's relevance threshold),
    so the checker can search over unretrieved relevant documents.

    >>> def count_judged(qrels, run):
    ...     return len(qrels["1"])
    >>> from_qrels_run(count_judged, qid="1")([1.0, 0.5], [1, 0], 3)
    4
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(qrels, run)")
    qid = _check_qid(qid)

    def impl(scores: list, labels: list, num_rel: Any = None) -> Any:
        missing = 0
        if num_rel is not None:
            missing = num_rel - sum(1 for x in labels if x >= rel)
            if missing < 0:
                raise bad("num_rel", num_rel, f"must be at least the relevant documents retrieved ({num_rel + -missing})")
        qrels, run = qrels_and_run(scores, labels, qid=qid, unretrieved=[rel] * missing)
        return _single(fn(qrels, run), "result", qid)

    impl.__name__ = getattr(fn, "__name__", "from_qrels_run")
    impl.integer_labels = True  # type: ignore[attr-defined]  # qrels hold integer grades: no 1/2 grade
    return impl


def from_arrays(fn: Callable[..., Any], **kwargs: Any) -> Callable[[list, list], Any]:
    """Adapt a scikit-learn-style ``fn(y_true, y_score, **kwargs)`` on 2-D arrays of one row.

    >>> from_arrays(lambda y_true, y_score: len(y_true[0]))([1.0, 0.5], [0, 1])
    2
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(y_true, y_score)")

    def impl(scores: list, labels: list) -> Any:
        import numpy as np  # only this adapter needs numpy

        return fn(np.asarray([[float(x) for x in labels]]), np.asarray([scores], dtype=float), **kwargs)

    impl.__name__ = getattr(fn, "__name__", "from_arrays")
    return impl


def trec_files(scores: Sequence[float], labels: Sequence[Any], directory: str, *, qid: str = QID) -> tuple[str, str]:
    """Write one query as TREC qrels and run files in *directory*; return their paths.

    Scores are written with ``repr``, so they read back as the same doubles.
    """
    qrels, run = qrels_and_run(scores, labels, qid=qid)
    qrels_path = os.path.join(directory, "qrels.txt")
    run_path = os.path.join(directory, "run.txt")
    with open(qrels_path, "w", encoding="utf-8") as f:
        f.writelines(f"{qid} 0 {d} {x}\n" for d, x in qrels[qid].items())
    with open(run_path, "w", encoding="utf-8") as f:
        f.writelines(f"{qid} Q0 {d} {i} {s!r} check\n" for i, (d, s) in enumerate(run[qid].items(), start=1))
    return qrels_path, run_path


def _parse_output(text: str, pick: Union[str, None], qid: str = QID) -> float:
    """The value from a command's output: a bare number, or trec_eval's ``measure  qid  value`` rows."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    if pick is not None:
        rows = [r for r in rows if r[0] == pick]
    rows = [r for r in rows if len(r) == 1 or r[1] in (qid, "all")] or rows
    if not rows:
        raise bad("command output", text, f"has no value{'' if pick is None else f' for {pick!r}'}")
    try:
        return float(rows[-1][-1])
    except ValueError:
        raise bad("command output", text, "must end with a number") from None


#: Seconds one call of a command may take before it counts as a failure (a hang).
TIMEOUT = 30.0

#: The input a command is first tried on: a command that fails here fails on everything.
PREFLIGHT = ([2.0, 1.0], [1, 0])


def from_command(
    argv_template: Union[str, Sequence[str]], *, pick: Union[str, None] = None, timeout: float = TIMEOUT, qid: str = QID
) -> Callable[[list, list], float]:
    """Adapt a command line that evaluates TREC files: ``{qrels}`` and ``{run}`` are replaced by paths.

    The value is read from standard output: a bare number, or the last
    ``measure qid value`` row (trec_eval's layout; *pick* selects the
    measure column).  A non-zero exit status, or no answer within *timeout*
    seconds, is reported as a failure on that input.

    The command is tried once here, on two untied documents
    (:data:`PREFLIGHT`): a command that is missing, cannot be run, exits
    non-zero, hangs or prints no number there is refused with
    :class:`~tieaware.TieawareError` (an input error, not a verdict).

    >>> import sys
    >>> impl = from_command([sys.executable, "-c", "print(len(open('{run}').readlines()) / 4)"])
    >>> impl([2.0, 1.0], [0, 1])
    0.5

    Beware: one process per input is slow; use small budgets (max_examples).
    """
    qid = _check_qid(qid)
    argv = shlex.split(argv_template) if isinstance(argv_template, str) else list(argv_template)
    if not argv or not all(isinstance(a, str) for a in argv):
        raise bad("argv_template", argv_template, "must be a non-empty command line")
    if not any("{run}" in a for a in argv):
        raise bad("argv_template", argv_template, "must mention {run} (and usually {qrels})")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < math.inf:
        raise bad("timeout", timeout, "must be a number of seconds > 0")

    def impl(scores: list, labels: list) -> float:
        with tempfile.TemporaryDirectory(prefix="tieaware-check-") as tmp:
            qrels_path, run_path = trec_files(scores, labels, tmp, qid=qid)
            command = [a.replace("{qrels}", qrels_path).replace("{run}", run_path) for a in argv]
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} exited with status {done.returncode}: {done.stderr.strip()[:200]}")
        return _parse_output(done.stdout, pick, qid)

    impl.__name__ = os.path.basename(argv[0])
    impl.integer_labels = True  # type: ignore[attr-defined]  # TREC qrels hold integer grades
    _preflight(impl, argv_template)
    return impl


def _preflight(impl: Callable[[list, list], float], argv_template: Any) -> None:
    """Refuse a command that cannot give a value on the simplest input (missing, failing, hanging)."""
    try:
        impl(*PREFLIGHT)
    except FileNotFoundError:
        raise bad("argv_template", argv_template, "names a command that is not found (is it installed and on PATH?)") from None
    except PermissionError:
        raise bad("argv_template", argv_template, "names a command that cannot be run (permission denied)") from None
    except subprocess.TimeoutExpired as exc:
        raise bad("argv_template", argv_template, f"gave no answer within {exc.timeout:g} s on two untied documents") from None
    except (RuntimeError, TieawareError, OSError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise bad("argv_template", argv_template, f"fails on two untied documents, so on every input ({why})") from None


def rbo_untied(fn: Callable[[list, list], Any]) -> Callable[[list, list], Any]:
    """Adapt ``fn(S, L)`` on plain lists of items: tie groups are handed over in their listed order.

    >>> rbo_untied(lambda S, L: (S, L))(["a", ["b", "c"]], [["c", "a"]])
    (['a', 'b', 'c'], ['c', 'a'])
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(S, L)")

    def impl(S: list, L: list) -> Any:
        def flat(r: list) -> list:
            return [x for g in r for x in (g if isinstance(g, (list, tuple, set, frozenset)) else [g])]

        return fn(flat(S), flat(L))

    impl.__name__ = getattr(fn, "__name__", "rbo_untied")
    return impl
