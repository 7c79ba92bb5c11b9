"""Reading text input: opening files (plain, ``.gz``, ``.bz2``, stdin) and the number syntax of TREC files.

The TREC readers (:mod:`tieaware.io.trec`, one Python object per line, and
:mod:`tieaware.io.columns`, numpy columns) share these primitives, so both
accept and refuse exactly the same texts with the same messages.

>>> number_text("2.50", "score", "run:1")
Fraction(5, 2)
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import sys
from fractions import Fraction
from typing import IO, Any, Union

from tieaware.model.errors import TieawareError

__all__ = ["NUMBER", "MAX_NUMBER_CHARS", "MAX_ECHO", "Source", "shorten", "number_text", "check_number", "open_binary"]

#: The number syntax trec_eval's files use: a decimal number, optional sign and exponent.
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
#: Longer score or label texts are refused (an exact value of 10**999999999 would never finish).
MAX_NUMBER_CHARS = 100
#: Error messages show at most this many characters of an input line.
MAX_ECHO = 80

Source = Union[str, "os.PathLike[str]", IO[Any]]


def shorten(text: str, limit: int = MAX_ECHO) -> str:
    """*text* cut to *limit* characters, with a note of how much was left out.

    >>> shorten("x" * 100, 10)
    'xxxxxxxxxx... (90 more characters)'
    """
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


def number_text(raw: str, what: str, where: str) -> Fraction:
    """The exact value of a score or label text, as trec_eval's format allows it.

    Accepted: a decimal number with an optional sign and an optional
    exponent of at most 4 digits (``12``, ``-0.5``, ``1.5e-3``), at most
    :data:`MAX_NUMBER_CHARS` characters, within double range (trec_eval
    reads it with ``atof``).  Refused: fractions (``3/4``), digit separators
    (``1_000``), ``inf`` and ``nan``, hexadecimal.

    >>> number_text("2.50", "score", "run:1")
    Fraction(5, 2)
    >>> number_text("1_000", "score", "run:1")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: run:1: score must be a decimal number such as 12, -0.5 or 1.5e-3, got '1_000'
    """
    check_number(raw, what, where)
    return Fraction(raw)


def check_number(raw: str, what: str, where: str) -> float:
    """Refuse *raw* unless :func:`number_text` accepts it; return the nearest double (as ``atof``)."""
    if len(raw) > MAX_NUMBER_CHARS:
        raise TieawareError(
            f"{where}: {what} has {len(raw)} characters, more than the {MAX_NUMBER_CHARS} accepted: {shorten(raw, 30)!r}"
        )
    if what == "score" and raw.strip().lower().lstrip("+-") in ("nan", "snan"):
        raise TieawareError(f"{where}: score is NaN, got {raw!r}; a NaN score has no place in a ranking")
    if not NUMBER.fullmatch(raw):
        raise TieawareError(f"{where}: {what} must be a decimal number such as 12, -0.5 or 1.5e-3, got {raw!r}")
    value = float(raw)  # correctly rounded; the exponent has at most 4 digits, so this is quick
    if value in (_INF, -_INF):
        raise TieawareError(f"{where}: {what} {raw} is beyond double range (about 1.8e308), which trec_eval cannot read either")
    return value


_INF = float("inf")



def open_binary(source: Source) -> tuple[IO[bytes], str, bool]:
    """(binary stream, name, whether to close it) for a path, ``-`` (stdin) or an open file.

    ``.gz`` and ``.bz2`` paths are decompressed transparently.
    """
    if hasattr(source, "read"):
        name = getattr(source, "name", "<stream>")
        buffer = getattr(source, "buffer", None)
        if buffer is not None:
            return buffer, str(name), False
        if isinstance(source, io.TextIOBase) or isinstance(source.read(0), str):
            return io.BytesIO(source.read().encode("utf-8")), str(name), False
        return source, str(name), False
    name = os.fspath(source)
    if name == "-":
        return sys.stdin.buffer, "<stdin>", False
    try:
        if name.endswith(".gz"):
            return gzip.open(name, "rb"), name, True
        if name.endswith(".bz2"):
            return bz2.open(name, "rb"), name, True
        return open(name, "rb"), name, True
    except OSError as exc:
        raise TieawareError(f"cannot read {name!r}: {exc.strerror or exc}") from None


