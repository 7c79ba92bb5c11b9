"""Find and run the trec_eval C binary, when one is installed (it is optional).

tieaware never needs trec_eval and never downloads it.  Tests and benchmarks
that compare with trec_eval's own output use the binary when :func:`locate`
finds one, and fall back on pytrec_eval (trec_eval's C code behind a Python
binding) otherwise.  ``scripts/build_trec_eval.sh`` builds it from trec_eval's
C source; docs/eval.md ("The trec_eval binary") says how.

Where it looks, in order:

1. the environment variable ``TIEAWARE_TREC_EVAL`` (the path of the binary);
   when it is set, it must name an executable file, or :func:`locate` raises
   rather than silently falling back;
2. ``trec_eval`` on ``PATH``.

>>> import os
>>> locate(environ={}, path=os.devnull) is None        # nothing installed there
True
>>> locate(environ={ENV: "/no/such/trec_eval"})
Traceback (most recent call last):
...
tieaware.model.errors.TieawareError: TIEAWARE_TREC_EVAL must name an executable trec_eval binary, got '/no/such/trec_eval'
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import Optional, Union

from tieaware.model.errors import TieawareError, bad

__all__ = ["ENV", "locate", "require", "run", "version"]

#: The environment variable naming the binary.
ENV = "TIEAWARE_TREC_EVAL"

_HOW = "build one with scripts/build_trec_eval.sh and set TIEAWARE_TREC_EVAL, or put trec_eval on PATH"

PathLike = Union[str, "os.PathLike[str]"]


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def locate(environ: Optional[Mapping[str, str]] = None, path: Optional[str] = None) -> Optional[str]:
    """The trec_eval binary's path, or None when none is installed.

    *environ* and *path* default to ``os.environ`` and its ``PATH``; they are
    parameters so that tests can look elsewhere.
    """
    env = os.environ if environ is None else environ
    chosen = env.get(ENV, "")
    if chosen:
        if not _executable(chosen):
            raise bad(ENV, chosen, "must name an executable trec_eval binary")
        return os.path.abspath(chosen)
    return shutil.which("trec_eval", path=path if path is not None else env.get("PATH"))


def require() -> str:
    """The binary's path; raise TieawareError saying how to get one when there is none."""
    found = locate()
    if found is None:
        raise TieawareError(f"no trec_eval binary found: {_HOW}")
    return found


def run(
    qrels: PathLike, results: PathLike, options: Sequence[str] = (), *, binary: Optional[str] = None
) -> str:
    """trec_eval's standard output for ``trec_eval OPTIONS QRELS RESULTS``.

    *options* are trec_eval's own, e.g. ``["-c", "-q", "-m", "P.5,10"]``.
    A non-zero exit raises TieawareError with trec_eval's message.
    """
    exe = binary or require()
    args = [exe, *map(str, options), os.fspath(qrels), os.fspath(results)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise TieawareError(f"trec_eval exited with {done.returncode}: {message[-1] if message else 'no message'}")
    return done.stdout


def version(binary: Optional[str] = None) -> str:
    """trec_eval's version line, e.g. ``'trec_eval version 9.0.7'``."""
    exe = binary or require()
    done = subprocess.run([exe, "-v"], capture_output=True, text=True, check=False)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[0] if lines else ""
