"""Reading text input: opening files (plain, ``.gz``, ``.bz2``, stdin) and the number syntax of TREC files.

The TREC readers (:mod:`tieaware.io.trec`, one Python object per line, and
:mod:`tieaware.io.columns`, numpy columns) share these primitives, so both
accept and refuse exactly the same texts with the same messages.

>>> number_text("2.50", "score", "run:1")
Fraction(5, 2)
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Iterator
from fractions import Fraction
from typing import IO, Any, Union

from tieaware.model.errors import TieawareError

__all__ = [
    "NUMBER",
    "MAX_NUMBER_CHARS",
    "MAX_ECHO",
    "MAX_LINE_BYTES",
    "BOM",
    "READ_ERRORS",
    "Source",
    "shorten",
    "number_text",
    "check_number",
    "open_binary",
    "cannot_read",
    "line_too_long",
    "not_utf8",
    "text_lines",
]

#: The number syntax trec_eval's files use: a decimal number, optional sign and
#: exponent; the exponent has at most 4 digits after any leading zeros (``1e00001`` is 10).
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?0*[0-9]{1,4})?")
#: The same with an exponent of any length: told apart so that the message names the exponent.
_LONG_EXPONENT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+")
#: Longer score or label texts are refused (an exact value of 10**999999999 would never finish).
MAX_NUMBER_CHARS = 100
#: Error messages show at most this many characters of an input line.
MAX_ECHO = 80
#: Every reader refuses a line longer than this (bytes, or characters of a text
#: stream, newline excluded), so that a file without newlines (``/dev/zero``, a
#: binary file) is refused after a megabyte instead of filling memory.
MAX_LINE_BYTES = 1 << 20
#: The UTF-8 byte order mark Windows editors, Excel and pandas' ``utf-8-sig``
#: put at the start of a file; every reader drops it, so that the first qid is
#: ``q1`` and not ``\ufeffq1`` (which would silently match no query).
BOM = b"\xef\xbb\xbf"
#: What reading a (possibly compressed) stream raises on a damaged file: a
#: corrupt ``.gz`` raises ``zlib.error``, which is not an OSError.
READ_ERRORS = (OSError, EOFError, zlib.error)

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
    exponent of at most 4 digits, leading zeros aside (``12``, ``-0.5``,
    ``1.5e-3``, ``1e00001``), at most
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
        if _LONG_EXPONENT.fullmatch(raw):
            raise TieawareError(
                f"{where}: {what} has an exponent of more than 4 digits, far beyond double range "
                f"(about 1e-308 to 1.8e308), got {raw!r}"
            )
        raise TieawareError(f"{where}: {what} must be a decimal number such as 12, -0.5 or 1.5e-3, got {raw!r}")
    value = float(raw)  # correctly rounded; the exponent has at most 4 digits, so this is quick
    if value in (_INF, -_INF):
        raise TieawareError(f"{where}: {what} {raw} is beyond double range (about 1.8e308), which trec_eval cannot read either")
    return value


_INF = float("inf")


def cannot_read(name: str, exc: BaseException) -> TieawareError:
    """The one-line error for a file that cannot be read (missing, damaged, a corrupt ``.gz``).

    >>> import zlib
    >>> str(cannot_read("run.gz", zlib.error("Error -3 while decompressing data: invalid stored block lengths")))
    "cannot read 'run.gz': damaged compressed data (Error -3 while decompressing data: invalid stored block lengths)"
    """
    if isinstance(exc, zlib.error):
        return TieawareError(f"cannot read {name!r}: damaged compressed data ({exc})")
    return TieawareError(f"cannot read {name!r}: {getattr(exc, 'strerror', None) or exc}")


def line_too_long(name: str, lineno: int) -> TieawareError:
    """The error for a line over :data:`MAX_LINE_BYTES`, the same in every reader.

    >>> str(line_too_long("run.txt", 3))
    'run.txt:3: line longer than 1,048,576 bytes (no newline within them): not a TREC text file?'
    """
    return TieawareError(f"{name}:{lineno}: line longer than {MAX_LINE_BYTES:,} bytes (no newline within them): not a TREC text file?")


def not_utf8(name: str, lineno: int, exc: UnicodeDecodeError, offset: int) -> TieawareError:
    """The error for a line that is not UTF-8 (*offset*: of the bad byte in the line), the same in every reader.

    >>> str(not_utf8("run.txt", 2, UnicodeDecodeError("utf-8", b"\\xff", 0, 1, "invalid start byte"), 10))
    'run.txt:2: not UTF-8 text (invalid start byte, byte offset 10 in the line)'
    """
    return TieawareError(f"{name}:{lineno}: not UTF-8 text ({exc.reason}, byte offset {offset} in the line)")


@contextlib.contextmanager
def text_lines(source: Source, default_name: str) -> Iterator[tuple[Iterator[str], str]]:
    """``(lines, name)``: the decoded lines of a path, ``-`` or open stream, read one bounded line at a time.

    A leading byte order mark is dropped; a line longer than
    :data:`MAX_LINE_BYTES` raises :func:`line_too_long` as soon as that
    much is read (nothing longer is ever held in memory); bytes that are not
    UTF-8 raise :func:`not_utf8`; a damaged or truncated compressed file
    raises :func:`cannot_read`.  Paths are closed on leaving the block.

    >>> import io
    >>> with text_lines(io.BytesIO(BOM + b"q1 0 a 1\\nq1 0 b 0"), "<qrels>") as (lines, name):
    ...     list(lines), name
    (['q1 0 a 1\\n', 'q1 0 b 0'], '<qrels>')
    """
    if hasattr(source, "read") and isinstance(source.read(0), str):  # an open text stream
        name = str(getattr(source, "name", default_name))
        yield _bounded(source, name, "\ufeff", "\n"), name
        return
    stream, name, close = open_binary(source, default_name)
    try:
        yield _bounded(stream, name, BOM, b"\n"), name
    finally:
        if close:
            stream.close()


def _bounded(stream: Any, name: str, bom: Any, newline: Any) -> Iterator[str]:
    """Lines of *stream* (text or bytes) read with ``readline(limit)``, checked and decoded."""
    lineno = 0
    while True:
        try:
            line = stream.readline(MAX_LINE_BYTES + 1)
        except UnicodeDecodeError as exc:  # a text stream decodes ahead, in chunks: no line number
            raise TieawareError(f"{name}: not UTF-8 text ({exc.reason})") from None
        except READ_ERRORS as exc:
            raise cannot_read(name, exc) from None
        if not line:
            return
        lineno += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(newline):
            raise line_too_long(name, lineno)
        if lineno == 1 and line.startswith(bom):
            line = line[len(bom) :]
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise not_utf8(name, lineno, exc, exc.start) from None
        yield line



def open_binary(source: Source, default_name: str = "<stream>") -> tuple[IO[bytes], str, bool]:
    """(binary stream, name, whether to close it) for a path, ``-`` (stdin) or an open file.

    ``.gz`` and ``.bz2`` paths are decompressed transparently; an ir_datasets
    id (``irds:ID``, or an id that is no file) is read through ir_datasets
    (:mod:`tieaware.io.irds`; *default_name* ``<qrels>`` reads its qrels, else its official run).
    """
    if hasattr(source, "read"):
        name = getattr(source, "name", default_name)
        buffer = getattr(source, "buffer", None)
        if buffer is not None:
            return buffer, str(name), False
        if isinstance(source, io.TextIOBase) or isinstance(source.read(0), str):
            return io.BytesIO(source.read().encode("utf-8")), str(name), False
        return source, str(name), False
    name = os.fspath(source)
    if name == "-":
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:  # started with stdin closed (<&-)
            raise TieawareError(f"stdin is closed: '-' reads the {default_name.strip('<>')} from stdin, which this process was started without")
        return sys.stdin.buffer, "<stdin>", False
    shown = getattr(source, "shown", name)  # a copy of a stream (tieaware.io.stream.Spool) keeps the stream's name
    from tieaware.io import irds

    if irds.is_dataset(name):  # irds:ID, or an ir_datasets id that is no file: its qrels or official run as TREC text
        return irds.open_trec(name, "qrels" if "qrels" in default_name else "run"), name, True
    try:
        if name.endswith(".gz"):
            return gzip.open(name, "rb"), shown, True
        if name.endswith(".bz2"):
            return bz2.open(name, "rb"), shown, True
        return open(name, "rb"), shown, True
    except OSError as exc:
        hint = irds.missing_hint(name) if isinstance(exc, FileNotFoundError) else ""
        raise TieawareError(f"{cannot_read(shown, exc)}{hint}") from None


