"""Qrels and official runs by ir_datasets id: ``irds:msmarco-passage/trec-dl-2019/judged`` (``pip install 'tieaware[irds]'``).

Wherever tieaware reads a qrels or run file (``tieaware.read_qrels``,
``read_run``, ``tieaware eval``, ``compare``, ``corr``), a name that is
``irds:`` and a dataset id, or a dataset id that is not a file
(``msmarco-passage/trec-dl-2019/judged``), is read through ir_datasets, as
ir_measures' command line, ranx and PyTerrier address benchmark data:

- as qrels, the dataset's qrels (``query_id iteration doc_id relevance``);
- as a run, the dataset's official run, its ``scoreddocs`` (the ranking it
  ships, such as the BM25 top 1000 of TREC DL), scores as ir_datasets
  gives them (floats, read through their shortest repr, so equal floats tie).

The records become TREC text, spooled to a temporary file, and the usual
readers read it: the same checks, messages and streaming as for a file.
ir_datasets downloads a dataset's files on first use, into its own cache
(``IR_DATASETS_HOME``).  A missing ir_datasets, an unknown id or a dataset
without qrels or official run is one :class:`~tieaware.model.errors.TieawareError`.

>>> is_dataset("irds:vaswani"), is_dataset("run.txt")
(True, False)
"""

from __future__ import annotations

import os
import tempfile
from typing import IO, Any, Iterator

from tieaware.model.errors import TieawareError

__all__ = ["PREFIX", "is_dataset", "dataset_id", "open_trec", "trec_lines", "missing_hint"]

#: The prefix that always means an ir_datasets id (PyTerrier's spelling).
PREFIX = "irds:"
#: Bytes of TREC text held in memory before the spool goes to disk.
_IN_MEMORY = 64 * 2**20


def dataset_id(name: str) -> str:
    """*name* without :data:`PREFIX`."""
    return name[len(PREFIX) :] if name.startswith(PREFIX) else name


def is_dataset(name: Any) -> bool:
    """True for ``irds:ID``, and for a name that is no file but an id ir_datasets knows (when it is installed)."""
    if not isinstance(name, str):
        return False
    if name.startswith(PREFIX):
        return True
    if name == "-" or os.path.exists(name) or name.endswith((".gz", ".bz2", ".txt", ".parquet", ".feather", ".arrow")):
        return False
    try:
        import ir_datasets
    except ImportError:
        return False
    return _known(ir_datasets, name)


def missing_hint(name: str) -> str:
    """For a missing file whose name looks like a dataset id (``a/b``, relative, no suffix): why it was not read as one.

    >>> missing_hint("runs/bm25.txt"), missing_hint("/data/x")
    ('', '')
    """
    if "/" not in name or name.startswith(("/", ".", "~")) or os.path.splitext(name)[1]:
        return ""
    try:
        import ir_datasets  # noqa: F401
    except ImportError:
        return "; to read it as an ir_datasets id: pip install 'tieaware[irds]'"
    return "; nor is it a dataset id ir_datasets knows"


def _known(ir_datasets: Any, name: str) -> bool:
    try:
        ir_datasets.registry[name]
    except KeyError:
        return False
    return True


def _dataset(name: str) -> Any:
    ident = dataset_id(name)
    try:
        import ir_datasets
    except ImportError:
        raise TieawareError(f"reading {name!r} needs ir_datasets: pip install 'tieaware[irds]'") from None
    if not ident or not _known(ir_datasets, ident):
        import difflib

        close = difflib.get_close_matches(ident, list(ir_datasets.registry), n=1, cutoff=0.6)
        hint = f", did you mean {PREFIX}{close[0]}?" if close else " (see ir-datasets.com)"
        raise TieawareError(f"{name!r} is not a dataset id ir_datasets knows{hint}")
    return ir_datasets.load(ident)


def trec_lines(name: str, kind: str) -> Iterator[str]:
    """The dataset's qrels (*kind* ``"qrels"``) or official run (``"run"``) as TREC lines."""
    ds = _dataset(name)
    if kind == "qrels":
        if not ds.has_qrels():
            raise TieawareError(f"dataset {name!r} has no qrels")
        for q in ds.qrels_iter():
            yield _line(name, q.query_id, getattr(q, "iteration", "0"), q.doc_id, q.relevance)
        return
    if not ds.has_scoreddocs():
        raise TieawareError(f"dataset {name!r} has no official run (scoreddocs) to read as a run")
    rank, last = 0, None
    for sd in ds.scoreddocs_iter():
        rank = rank + 1 if sd.query_id == last else 1
        last = sd.query_id
        yield _line(name, sd.query_id, "Q0", sd.doc_id, rank, repr(float(sd.score)), "irds")


def _line(name: str, *fields: Any) -> str:
    texts = [str(f) for f in fields]
    for text in texts:
        if not text or any(c.isspace() for c in text):
            raise TieawareError(f"dataset {name!r} has an id that TREC text cannot hold (empty or with spaces), got {text!r}")
    return " ".join(texts) + "\n"


def open_trec(name: str, kind: str) -> IO[bytes]:
    """The dataset's TREC text as a binary stream at its start (a spooled temporary file; close it)."""
    spool = tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY, prefix="tieaware-irds-")
    try:
        for line in trec_lines(name, kind):
            spool.write(line.encode("utf-8"))
        spool.seek(0)
    except BaseException:
        spool.close()
        raise
    return spool  # type: ignore[return-value]
