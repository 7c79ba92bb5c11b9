"""The preference input model: a query's judgment groups and the preferences they state.

trec_eval 9.0.8's form_prefs_counts.c turns a query's preference lines
``(jg, jsg, docno, level)`` into preferences "a is preferred to b", one
judgment group (jg) at a time, in one of two forms:

- a jg with **one sub-group** is a list of *classes*, one per level, highest
  first: every document of a class is preferred to every document of each
  lower class;
- a jg with **several sub-groups** is a preference *relation*: within each
  sub-group, higher levels over lower ones, then closed transitively across
  the sub-groups (a > b in one and b > c in another give a > c), each pair
  once.

This module builds that structure and refuses what trec_eval refuses (a
document with level 0 in one sub-group and above 0 in another, a preference
cycle), and a document listed twice in one sub-group (trec_eval counts its
preferences twice, or stops when the levels differ: tieaware does not
guess).  Which
documents are relevant and non-relevant is part of it: in a class jg a level
above 0 is relevant and any other non-relevant; in a relation jg a level
above 0 relevant, exactly 0 non-relevant, below 0 neither (trec_eval's
``rel_array``, the level of the last sub-group in name order).

The measures (tieaware.reference.prefs enumerates, tieaware.fast.prefs
computes closed forms) only read this structure.

>>> from fractions import Fraction as F
>>> q = preference_query([("u", "s", "a", F(2)), ("u", "s", "b", F(1)), ("u", "s", "c", F(0))])
>>> q.groups[0].prefs
(('a', 'b'), ('a', 'c'), ('b', 'c'))
>>> q.groups[0].relevant, q.groups[0].nonrelevant
(('a', 'b'), ('c',))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tieaware.model.errors import TieawareError

__all__ = ["JudgmentGroup", "PreferenceQuery", "preference_query"]


@dataclass(frozen=True)
class JudgmentGroup:
    """One jg of a query: its preferences and its relevant and non-relevant documents."""

    name: str
    #: True: several sub-groups (a transitively closed relation); False: one sub-group (classes).
    relation: bool
    #: Class jg: the classes, highest level first, each its documents as listed.
    classes: tuple[tuple[str, ...], ...]
    #: Every preference (a, b), a preferred to b, once.
    prefs: tuple[tuple[str, str], ...]
    #: The documents counted as relevant / non-relevant.
    relevant: tuple[str, ...]
    nonrelevant: tuple[str, ...]


@dataclass(frozen=True)
class PreferenceQuery:
    """A query's judged documents (sorted as strcmp sorts them) and its judgment groups (by name)."""

    judged: tuple[str, ...]
    groups: tuple[JudgmentGroup, ...]


def preference_query(lines: Iterable[Sequence[Any]], qid: str = "") -> PreferenceQuery:
    """The structure of one query's lines ``(jg, jsg, docno, level)``; levels are compared with ``>`` and ``==``.

    Pass exact levels for the tie-aware value, or trec_eval's C floats for
    its own reading (two levels equal as floats are one class there).
    """
    by_jg: dict[str, list[tuple[str, str, Any]]] = {}
    judged = set()
    for jg, jsg, docno, level in lines:
        by_jg.setdefault(jg, []).append((jsg, docno, level))
        judged.add(docno)
    groups = tuple(_group(jg, by_jg[jg], qid) for jg in sorted(by_jg))
    return PreferenceQuery(tuple(sorted(judged)), groups)


def _group(name: str, lines: list[tuple[str, str, Any]], qid: str) -> JudgmentGroup:
    subgroups: dict[str, list[tuple[str, Any]]] = {}
    for jsg, docno, level in lines:
        if any(d == docno for d, _ in subgroups.get(jsg, ())):
            # trec_eval counts such a line twice (or stops, at another level); tieaware does not guess
            raise TieawareError(f"{_where(qid, name)}: document {docno!r} is listed twice in sub-group {jsg!r}")
        subgroups.setdefault(jsg, []).append((docno, level))
    if len(subgroups) == 1:
        return _classes(name, next(iter(subgroups.values())), qid)
    return _relation(name, subgroups, qid)


def _where(qid: str, jg: str) -> str:
    return f"query {qid!r}, judgment group {jg!r}"


def _classes(name: str, members: list[tuple[str, Any]], qid: str) -> JudgmentGroup:
    levels = sorted({level for _, level in members}, reverse=True)
    classes = tuple(tuple(d for d, level in members if level == lv) for lv in levels)
    prefs = tuple((a, b) for i, high in enumerate(classes) for low in classes[i + 1 :] for a in high for b in low)
    relevant = tuple(d for lv, c in zip(levels, classes) if lv > 0 for d in c)
    nonrelevant = tuple(d for lv, c in zip(levels, classes) if not lv > 0 for d in c)
    return JudgmentGroup(name, False, classes, prefs, relevant, nonrelevant)


def _relation(name: str, subgroups: dict[str, list[tuple[str, Any]]], qid: str) -> JudgmentGroup:
    better: dict[str, set[str]] = {}
    last_level: dict[str, Any] = {}
    for jsg in sorted(subgroups):
        members = subgroups[jsg]
        for d, level in sorted(members, key=lambda m: m[1], reverse=True):
            before = last_level.get(d)
            if before is not None and ((before > 0 and level == 0) or (before == 0 and level > 0)):
                raise TieawareError(f"{_where(qid, name)}: document {d!r} has level 0 in one sub-group and above 0 in another")
            last_level[d] = level
        for a, la in members:
            better.setdefault(a, set()).update(b for b, lb in members if la > lb)
    closed = _closure(better)
    for a, bs in closed.items():
        bs.discard(a)  # a document listed at two levels of one sub-group: trec_eval drops the self-preference
    for a, bs in closed.items():
        if any(a in closed.get(b, ()) for b in bs):
            cycle = next(b for b in sorted(bs) if a in closed.get(b, ()))
            raise TieawareError(f"{_where(qid, name)}: the preferences contradict each other ({a!r} and {cycle!r} are each preferred to the other)")
    prefs = tuple((a, b) for a in sorted(closed) for b in sorted(closed[a]))
    docs = sorted(last_level)
    relevant = tuple(d for d in docs if last_level[d] > 0)
    nonrelevant = tuple(d for d in docs if last_level[d] == 0)
    return JudgmentGroup(name, True, (), prefs, relevant, nonrelevant)


def _closure(better: dict[str, set[str]]) -> dict[str, set[str]]:
    """Every document reachable by one or more preferences from each document."""
    out: dict[str, set[str]] = {}
    for start in better:
        seen: set[str] = set()
        stack = list(better[start])
        while stack:
            d = stack.pop()
            if d not in seen:
                seen.add(d)
                stack.extend(better.get(d, ()))
        out[start] = seen
    return out
