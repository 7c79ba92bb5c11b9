"""Wrap code with another calling convention as ``impl(scores, labels) -> number``.

The checker calls ``impl(scores, labels)`` with parallel lists for one query.
Adapters build what other code expects from those two lists:

- :func:`from_qrels_run`: a function of ir_measures/pytrec_eval-style dicts
  ``qrels = {qid: {docno: label}}`` and ``run = {qid: {docno: score}}``;
- :func:`from_arrays`: a scikit-learn-style function of 2-D arrays
  ``fn(y_true, y_score)`` (one row: ``ndcg_score``, ``dcg_score``);
- :func:`from_vectors`: a function of two 1-D arrays (``average_precision_score``);
- :func:`from_tensors`: a function of two tensors built by the constructor you
  pass (``torch.tensor``; tieaware never imports torch), whose result may be
  a tensor (read through ``.item()``, ``__array__`` or DLPack);
- :func:`from_dataframes`: a recommender-style function of a recommendations
  DataFrame (user, item, score, optionally rank) and an interactions DataFrame;
- :func:`from_csr`: a function of two one-row scipy csr matrices (recpack style);
- :func:`from_ranked_ids`: a function of a ranked list of ids and the set of
  relevant ids (ties can only be handed over in input order);
- :func:`rbo_untied`: an RBO function of two plain lists (no ties), for
  ``RBO(...)`` checks;
- :func:`from_command`: a command line that reads a TREC qrels file and a
  TREC run file and prints the value (trec_eval and friends).

Documents are named ``d000``, ``d001``, ... in an order that is *not* the
input order (:func:`docnos`: a shuffle fixed by the labels, so it changes from
one probe to the next), so that the checker tells the tie rules apart: input
order, reverse input order, docno ascending and docno descending
(:mod:`tieaware.model.tie_rules`).

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
from typing import Any, Optional, Union

from tieaware.model.errors import TieawareError, bad

__all__ = [
    "from_qrels_run",
    "from_arrays",
    "from_vectors",
    "from_tensors",
    "from_dataframes",
    "from_csr",
    "from_ranked_ids",
    "from_command",
    "rbo_untied",
    "docnos",
    "qrels_and_run",
    "trec_files",
    "QID",
    "TIMEOUT",
    "PREFLIGHT",
]

#: The one query every adapter evaluates.
QID = "q1"


def docnos(labels: Sequence[Any]) -> list[str]:
    """The names of documents with these *labels*, in input order: ``d000``, ``d001``, ... shuffled.

    The shuffle is fixed by the labels (a CRC32 of their values), so the same
    input always gets the same names, in this process or a worker of another
    Python, while the documents of one case handed over in another order get
    other names.  Docno order and input order then differ, and a tool that
    breaks ties by docno (trec_eval: descending; ir_measures' msmarco provider:
    ascending) is told apart from one that keeps the input order.  Names are
    zero-padded, so string order is number order.

    >>> docnos([0, 1]), docnos([1, 0])
    (['d000', 'd001'], ['d001', 'd000'])
    >>> docnos([0, 1, 0])
    ['d001', 'd002', 'd000']
    """
    import zlib

    n = len(labels)
    # The prefix is fixed so that the smallest cases tell the rules apart: ([0, 1] keeps input order, [1, 0]
    # reverses it, so docno order is input order on one and reverse input order on the other).
    seed = zlib.crc32(("tieaware " + repr([float(x) for x in labels])).encode())
    width = max(3, len(str(max(n - 1, 0))))
    order = sorted(range(n), key=lambda i: (zlib.crc32(f"{seed}:{i}".encode()), i))
    names = [""] * n
    for rank, i in enumerate(order):
        names[i] = f"d{rank:0{width}d}"
    return names


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
    names = docnos(labels)
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


def _pair(scores: Any, labels: Any, truth_first: bool) -> tuple[Any, Any]:
    return (labels, scores) if truth_first else (scores, labels)


def from_vectors(fn: Callable[..., Any], *, truth_first: bool = False, **kwargs: Any) -> Callable[[list, list], Any]:
    """Adapt ``fn(scores, labels, **kwargs)`` on two 1-D numpy arrays (float64 scores; labels as given).

    ``truth_first=True`` passes ``fn(labels, scores)``, scikit-learn's order:
    ``implementation(adapters.from_vectors(average_precision_score, truth_first=True), "AP", labels="binary")``.

    >>> from_vectors(lambda s, l: float(s @ l))([2.0, 1.0], [0, 1])
    1.0
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(scores, labels)")

    def impl(scores: list, labels: list) -> Any:
        import numpy as np  # only this adapter needs numpy

        return fn(*_pair(np.asarray(scores, dtype=float), np.asarray(labels), truth_first), **kwargs)

    impl.__name__ = getattr(fn, "__name__", "from_vectors")
    return impl


def from_tensors(fn: Callable[..., Any], tensor: Callable[[list], Any], *, truth_first: bool = False, **kwargs: Any) -> Callable[[list, list], Any]:
    """Adapt ``fn(tensor(scores), tensor(labels), **kwargs)``: *tensor* builds the tensors (tieaware imports no tensor library).

    ``implementation(adapters.from_tensors(retrieval_average_precision, torch.tensor), "AP")``; the result may be a
    tensor of one element.  Beware: ``torch.tensor`` makes float32 scores from floats (pass
    ``lambda x: torch.tensor(x, dtype=torch.float64)`` for doubles), and the check then reports what float32 does.

    >>> import numpy as np
    >>> from_tensors(lambda s, l: (s * l).sum(), np.asarray)([2.0, 1.0], [0, 1])
    np.float64(1.0)
    """
    if not callable(fn) or not callable(tensor):
        raise bad("fn", fn, "must be a function fn(scores, labels), with tensor a function building a tensor from a list")

    def impl(scores: list, labels: list) -> Any:
        return fn(*_pair(tensor(list(scores)), tensor(list(labels)), truth_first), **kwargs)

    impl.__name__ = getattr(fn, "__name__", "from_tensors")
    return impl


def from_dataframes(
    fn: Callable[[Any, Any], Any],
    *,
    user: str = "user_id",
    item: str = "item_id",
    score: Optional[str] = "score",
    rank: Optional[str] = None,
    label: Optional[str] = None,
    rel: Any = 1,
    **kwargs: Any,
) -> Callable[[list, list], Any]:
    """Adapt a recommender-style ``fn(recommendations, interactions, **kwargs)`` of two pandas DataFrames.

    *recommendations* has one row per document (column *user* = 1, *item* =
    its docno, *score*), and with *rank* a rank column: 1 + the number of
    documents scored strictly higher, so tied items share a rank.
    *interactions* has one row per relevant document (label >= *rel*), with
    the label in column *label* when given (then every judged document is a
    row).  ``implementation(adapters.from_dataframes(metric.calc, rank="rank"), "P@5")``.

    >>> impl = from_dataframes(lambda reco, inter: len(inter) / len(reco), rank="rank")
    >>> impl([2.0, 2.0, 1.0], [1, 0, 0])
    0.3333333333333333
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(recommendations, interactions)")

    def impl(scores: list, labels: list) -> Any:
        import pandas as pd  # only this adapter needs pandas

        names = docnos(labels)
        reco: dict[str, list] = {user: [1] * len(scores), item: names}
        if score is not None:
            reco[score] = [float(s) for s in scores]
        if rank is not None:
            reco[rank] = [1 + sum(1 for t in scores if t > s) for s in scores]
        if label is None:
            chosen = [i for i, x in enumerate(labels) if x >= rel]
            inter = {user: [1] * len(chosen), item: [names[i] for i in chosen]}
        else:
            inter = {user: [1] * len(labels), item: names, label: [_plain(x) for x in labels]}
        return _single(fn(pd.DataFrame(reco), pd.DataFrame(inter), **kwargs), "result", 1)

    impl.__name__ = getattr(fn, "__name__", "from_dataframes")
    return impl


def from_csr(fn: Callable[[Any, Any], Any], *, truth_first: bool = True, **kwargs: Any) -> Callable[[list, list], Any]:
    """Adapt ``fn(y_true, y_pred, **kwargs)`` on one-row scipy csr matrices (recpack's ``calculate``).

    Every document's score is stored, a score of 0.0 too (an explicit zero),
    so a library that reads a stored zero as "not recommended" shows it; the
    labels keep only the non-zero ones, as interaction matrices do.
    ``implementation(adapters.from_csr(lambda t, p: metric.calculate(t, p) or metric.value), "P@5")``.

    >>> from_csr(lambda t, p: p.nnz)([1.0, 0.0], [0, 1])
    2
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(y_true, y_pred)")

    def impl(scores: list, labels: list) -> Any:
        from scipy.sparse import csr_matrix  # only this adapter needs scipy

        n = len(scores)
        pred = csr_matrix(([float(s) for s in scores], list(range(n)), [0, n]), shape=(1, n))
        nonzero = [i for i, x in enumerate(labels) if x != 0]
        true = csr_matrix(([float(labels[i]) for i in nonzero], nonzero, [0, len(nonzero)]), shape=(1, n))
        return fn(*((true, pred) if truth_first else (pred, true)), **kwargs)

    impl.__name__ = getattr(fn, "__name__", "from_csr")
    return impl


def from_ranked_ids(fn: Callable[[list, set], Any], *, rel: Any = 1, **kwargs: Any) -> Callable[[list, list], Any]:
    """Adapt ``fn(ranked_ids, relevant_ids, **kwargs)``: docnos by descending score, and the set of relevant ones.

    A ranked list cannot say which documents tie, so tied documents are
    listed in input order (a stable sort): an implementation behind this
    adapter is checked as a tie-oblivious one, and is expected to show
    ``input_order``.  ``implementation(adapters.from_ranked_ids(lambda r, pos: hit(r[:5], pos)), "Success@5")``.

    >>> from_ranked_ids(lambda ranked, pos: (ranked, sorted(pos)))([1.0, 2.0], [1, 0])   # named d001, d000
    (['d000', 'd001'], ['d001'])
    """
    if not callable(fn):
        raise bad("fn", fn, "must be a function fn(ranked_ids, relevant_ids)")

    def impl(scores: list, labels: list) -> Any:
        names = docnos(labels)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: ties in input order
        return fn([names[i] for i in order], {names[i] for i, x in enumerate(labels) if x >= rel}, **kwargs)

    impl.__name__ = getattr(fn, "__name__", "from_ranked_ids")
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
            code, out, err = _bounded_run(command, timeout)
        if code != 0:
            raise RuntimeError(f"{argv[0]} exited with status {code}: {err.strip()[:200]}")
        return _parse_output(out, pick, qid)

    impl.__name__ = os.path.basename(argv[0])
    impl.integer_labels = True  # type: ignore[attr-defined]  # TREC qrels hold integer grades
    _preflight(impl, argv_template)
    return impl


#: Bytes of output kept from a command (stdout and stderr each); a command printing more is stopped.
MAX_OUTPUT = 1 << 20


def _bounded_run(command: list[str], timeout: float) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of *command*, holding at most :data:`MAX_OUTPUT` bytes of each.

    ``subprocess.run(capture_output=True)`` keeps all the output: a command
    that prints without end (``yes``) would fill memory before its timeout.

    >>> import sys
    >>> _bounded_run([sys.executable, "-c", "print(0.5)"], 30)
    (0, '0.5\\n', '')
    """
    import threading

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kept: dict[str, list[bytes]] = {"out": [], "err": []}
    too_much: list[str] = []

    def pump(stream: Any, key: str) -> None:
        total = 0
        while True:
            data = stream.read1(1 << 16)
            if not data:
                return
            total += len(data)
            if total > MAX_OUTPUT:
                too_much.append(key)
                process.kill()
                return
            kept[key].append(data)

    readers = [threading.Thread(target=pump, args=(process.stdout, "out"), daemon=True),
               threading.Thread(target=pump, args=(process.stderr, "err"), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise
    finally:
        for reader in readers:
            reader.join(timeout=5)
        process.stdout.close()
        process.stderr.close()
    if too_much:
        raise RuntimeError(f"{command[0]} printed more than {MAX_OUTPUT:,} bytes on std{too_much[0]}")
    text = lambda key: b"".join(kept[key]).decode("utf-8", errors="replace")  # noqa: E731
    return code, text("out"), text("err")


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
