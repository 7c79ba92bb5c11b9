"""Results tables: rows are systems, columns are measures, one exact value per cell.

The input of ``tieaware corr --systems`` (docs/correlation.md, Command line):
a tab-separated text file whose first non-blank line names the system
column and the measures, and each further line a system and its values.
Values are read exactly, as TREC scores are (:func:`tieaware.io.text.number_text`),
so ``0.5`` and ``0.50`` tie.  Blank lines are skipped.

>>> table = read_systems(io.StringIO("system\\tAP\\tP@10\\nbm25\\t0.31\\t0.5\\nlm\\t0.29\\t0.50\\n"))
>>> table.columns, table.values["P@10"]
(['AP', 'P@10'], {'bm25': Fraction(1, 2), 'lm': Fraction(1, 2)})

Bad lines raise :class:`~tieaware.model.errors.TieawareError` naming the
file and line, e.g. ``results.tsv:3: system 'bm25' is listed twice (first on line 2)``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from fractions import Fraction
from typing import IO, NamedTuple, Optional, Union

from tieaware.io.text import number_text, shorten, text_lines
from tieaware.model.errors import TieawareError

__all__ = ["Systems", "read_systems"]


class Systems(NamedTuple):
    """A results table: its measure columns and, per column, {system: exact value}."""

    label: str
    columns: list[str]
    systems: list[str]
    values: dict[str, dict[str, Fraction]]


def read_systems(source: Union[str, IO[str]]) -> Systems:
    """Read a tab-separated results table from a path (.gz, .bz2 too), ``-`` or an open text file.

    >>> read_systems(io.StringIO("system\\tAP\\tP@10\\nx\\t1\\t2\\ny\\t1\\t1\\n")).systems
    ['x', 'y']
    """
    # one bounded line at a time, a leading BOM dropped, a damaged .gz reported: as every TREC reader
    with text_lines(source, "<results>") as (lines, name):
        return _parse(lines, name)


def _parse(lines: Iterable[str], name: str) -> Systems:
    header: Optional[list[str]] = None
    systems: list[str] = []
    values: dict[str, dict[str, Fraction]] = {}
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(lines, start=1):
        if lineno == 1:
            line = line.removeprefix("\ufeff")  # decoded as utf-8 rather than utf-8-sig (Excel's export)
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        cells = [c.strip() for c in text.split("\t")]
        where = f"{name}:{lineno}"
        if header is None:
            if len(cells) < 3:
                raise TieawareError(f"{where}: the header needs a system column and at least 2 measure columns, tab-separated, got {shorten(text)!r}")
            header = cells
            seen: dict[str, int] = {}
            for i, column in enumerate(cells[1:], start=2):
                if not column:
                    raise TieawareError(f"{where}: measure column {i} has no name")
                if column in seen:
                    raise TieawareError(f"{where}: measure {column!r} is named twice (columns {seen[column]} and {i})")
                seen[column] = i
            values = {column: {} for column in cells[1:]}
            continue
        if len(cells) != len(header):
            raise TieawareError(f"{where}: expected {len(header)} tab-separated cells (as the header), got {len(cells)}: {shorten(text)!r}")
        system = cells[0]
        if not system:
            raise TieawareError(f"{where}: the system has no name")
        if system in first_line:
            raise TieawareError(f"{where}: system {system!r} is listed twice (first on line {first_line[system]})")
        first_line[system] = lineno
        systems.append(system)
        for column, raw in zip(header[1:], cells[1:]):
            values[column][system] = number_text(raw, f"the value of {column!r}", where)
    if header is None:
        raise TieawareError(f"{name}: no header line: the file is empty")
    if len(systems) < 2:
        raise TieawareError(f"{name}: needs at least 2 systems to rank, got {len(systems)}")
    return Systems(header[0], header[1:], systems, values)
