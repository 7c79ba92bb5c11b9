"""trec_eval's output layout, names, counters and averaging, for ``tieaware eval --format trec``.

A script that parses trec_eval's output reads this unchanged.  What is
reproduced here (read from trec_eval 9.0.8's source, usnistgov/trec_eval:
meas_print_single.c, meas_print_final.c, measures.c, m_num_*.c, meas_avg.c,
get_trec_results.c):

- **Lines**: ``"%-22s\\t%s\\t%6.4f"`` (name, query or ``all``, value); the
  counters are longs, ``"%-22s\\t%s\\t%ld"``.
- **Names**: ``map``, ``map_cut_10``, ``P_5``, ``recall_10``, ``recip_rank``,
  ``ndcg``, ``ndcg_cut_10``, ``Rprec``, ``bpref``, ``success_1``
  (see :func:`trec_name`).  A measure trec_eval does not have (``F1@10``,
  ``RR@10``, ``P(rel=2)@5`` at the default relevance level, ...) is printed
  under its tieaware name, after trec_eval's own measures.
- **Order**: queries in ``strcmp`` order (trec_eval sorts its results by
  qid); within a query, and in the summary, measures in trec_eval's measure
  order (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``map``,
  ``Rprec``, ``bpref``, ``recip_rank``, ``P``, ``recall``, ``ndcg``,
  ``ndcg_cut``, ``map_cut``, ``success``), cutoffs ascending.
- **Counters**: ``num_ret`` (documents retrieved), ``num_rel`` (judged
  documents with label >= the relevance level), ``num_rel_ret`` (retrieved
  ones among them) per query; their summary is the **sum**, not the mean.
  ``num_q`` has no per-query line; its summary is the number of queries.
- **Averages** are the sum of the per-query values as doubles, in query
  order, divided by the number of queries, as trec_eval accumulates them, so
  that the last printed digit rounds as trec_eval's does.
- **-c** (``complete``): the divisor is the number of judged queries, so a
  judged query missing from the run counts as 0; ``num_q`` is that number
  and the ``num_rel`` summary counts every judged query's documents with
  label > 0 (m_num_rel.c counts ``rel > 0`` there, whatever the level).

The values themselves are whatever the caller evaluated: tie-aware by
default, or in trec_eval's tie order.

>>> from tieaware.model.names import parse
>>> [trec_name(parse(n)) for n in ["AP", "AP@10", "P@5", "nDCG@10", "RR", "RR@10", "P(rel=2)@5"]]
['map', 'map_cut_10', 'P_5', 'ndcg_cut_10', 'recip_rank', None, None]
>>> trec_name(parse("P(rel=2)@5"), level=2)
'P_5'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from tieaware.model.errors import TieawareError, bad
from tieaware.model.exact import Exact, rational, to_float
from tieaware.model.names import MEASURES, Measure

__all__ = [
    "COUNTERS",
    "TREC_ORDER",
    "TREC_DEFAULT",
    "Counts",
    "trec_name",
    "counts",
    "counts_of",
    "counts_of_prepared",
    "judged_relevant",
    "render",
    "split_counters",
    "expand_families",
    "not_computed",
    "at_level",
]

#: trec_eval's counters, in its order.
COUNTERS = ("num_q", "num_ret", "num_rel", "num_rel_ret")

#: trec_eval's measure order (te_trec_measures in measures.c); output follows it.
TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success",
)  # fmt: skip

#: What ``--format trec`` prints without ``-m``: trec_eval's default ("official") set,
#: less what tieaware does not compute (see :func:`expand_families`).
TREC_DEFAULT = "official"

# trec_eval's measure sets (measures.c: off_names, trec_names).
_SETS = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
        "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
        "num_nonrel_judged_ret",
    ),
}  # fmt: skip
# A trec_eval measure of those sets as tieaware names ({} takes each default cutoff).
_AS_TIEAWARE = {
    "map": "AP", "recip_rank": "RR", "ndcg": "nDCG", "Rprec": "Rprec", "bpref": "Bpref",
    "P": "P@{}", "recall": "R@{}", "map_cut": "AP@{}", "ndcg_cut": "nDCG@{}", "success": "Success@{}",
}  # fmt: skip
_DEFAULT_CUTOFFS = {"success": (1, 5, 10)}
_TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: -m names that include every counter, as in trec_eval.
_WITH_COUNTERS = ("all_trec", "official")
_COUNTER = re.compile(r"(?<![\w.@(])(num_q|num_ret|num_rel|num_rel_ret)(?![\w.@(])")

# trec_eval's cutoff families on the command line (-m P.5,10), as tieaware names.  A family
# alone (-m P) keeps tieaware's meaning (P needs a cutoff), not trec_eval's default cutoffs.
_CUTOFF_FAMILIES = {"P": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG", "success": "Success"}
_FAMILY_ARG = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)\.(\S*)$")

# tieaware name -> trec_eval family without a cutoff, and with one.  A measure
# with a relevance threshold has a trec_eval name only at trec_eval's level (-l).
_FAMILIES = {
    "AP": ("map", "map_cut"),
    "P": (None, "P"),
    "R": (None, "recall"),
    "RR": ("recip_rank", None),
    "nDCG": ("ndcg", "ndcg_cut"),
    "Rprec": ("Rprec", None),
    "Bpref": ("bpref", None),
    "Success": (None, "success"),
}


def _family(m: Measure, level: Fraction) -> Optional[tuple[str, Optional[int]]]:
    names = _FAMILIES.get(m.name)
    if names is None or any(key not in ("rel", "dcg") for key, _ in m.params):
        return None
    if m.name == "nDCG":
        if m.param("dcg", "log2") != "log2":  # trec_eval's ndcg gain is the label itself
            return None
    elif m.rel != level:  # trec_eval's line is at its one relevance level (-l), default 1
        return None
    family = names[0] if m.k is None else names[1]
    return None if family is None else (family, m.k)


def trec_name(m: Measure, level: object = 1) -> Optional[str]:
    """trec_eval's output name of *m* at relevance *level* (``-l``), or None when it has none."""
    found = _family(m, Fraction(level))
    if found is None:
        return None
    family, k = found
    return family if k is None else f"{family}_{k}"


def _sort_key(m: Measure, level: Fraction, position: int) -> tuple:
    found = _family(m, level)
    if found is None:
        return (len(TREC_ORDER), position, 0)  # after trec_eval's own, in the order asked
    family, k = found
    return (TREC_ORDER.index(family), 0, k or 0)


def counts(
    qrels_for_q: Mapping[str, Fraction], run_docs: Sequence[tuple[str, Fraction]], level: object = 1
) -> tuple[int, int, int]:
    """(num_ret, num_rel, num_rel_ret) of one query at relevance *level*, as trec_eval counts them.

    >>> from fractions import Fraction as F
    >>> counts({"a": F(1), "b": F(0), "x": F(2)}, [("a", F(3)), ("b", F(2)), ("u", F(1))])
    (3, 2, 1)
    """
    lvl = Fraction(level)
    num_rel = sum(1 for label in qrels_for_q.values() if label >= lvl)
    num_rel_ret = sum(1 for docno, _ in run_docs if qrels_for_q.get(docno, Fraction(0)) >= lvl)
    return len(run_docs), num_rel, num_rel_ret


def _value(value: float, digits: int) -> str:
    return f"{value:6.{digits}f}"


def _line(name: str, qid: str, text: str) -> str:
    return f"{name:<22}\t{qid}\t{text}"


@dataclass(frozen=True)
class Counts:
    """What trec_eval's counters need, whichever way the files were read."""

    #: {qid: (num_ret, num_rel, num_rel_ret)} of every evaluated query.
    per_query: Mapping[str, tuple[int, int, int]]
    #: The number of judged queries (num_q under -c).
    judged_queries: int
    #: Judged documents with label > 0 over every judged query (num_rel's summary under -c).
    judged_relevant: int


def counts_of(
    qrels: Mapping[str, Mapping[str, Fraction]],
    run: Mapping[str, Sequence[tuple[str, Fraction]]],
    queries: Iterable[str],
    level: object = 1,
) -> Counts:
    """:class:`Counts` of *queries* from tieaware's qrels and run mappings (:mod:`tieaware.io.trec`)."""
    return Counts(
        per_query={q: counts(qrels[q], run[q], level) for q in queries},
        judged_queries=len(qrels),
        judged_relevant=sum(1 for judged in qrels.values() for label in judged.values() if label > 0),
    )


def judged_relevant(qrels_table: Any) -> int:
    """Judged documents with label > 0 in a qrels Table (num_rel's summary under -c)."""
    import numpy as np

    from tieaware.io.text import number_text

    texts, inverse = np.unique(qrels_table.value, return_inverse=True)
    positive = np.array([number_text(t.decode("utf-8"), "label", qrels_table.name) > 0 for t in texts.tolist()], dtype=bool)
    return int(positive[inverse].sum()) if len(texts) else 0


def counts_of_prepared(prepared: Any, qrels_table: Any, level: object = 1) -> Counts:
    """:class:`Counts` from columns: a :class:`tieaware.io.columns.Prepared` and the qrels Table it was made from."""
    import numpy as np

    from tieaware.io.text import number_text

    lvl = Fraction(level)
    relevant = np.array([v >= lvl for v in prepared.label_values], dtype=bool)
    n = len(prepared.qids)
    num_ret = np.bincount(prepared.query, minlength=n)
    num_rel = np.bincount(prepared.judged_query[relevant[prepared.judged_label]], minlength=n)
    num_rel_ret = np.bincount(prepared.query[relevant[prepared.label]], minlength=n)
    texts, inverse = np.unique(qrels_table.value, return_inverse=True)
    positive = np.array([number_text(t.decode("utf-8"), "label", qrels_table.name) > 0 for t in texts.tolist()], dtype=bool)
    return Counts(
        per_query={q: (int(num_ret[i]), int(num_rel[i]), int(num_rel_ret[i])) for i, q in enumerate(prepared.qids)},
        judged_queries=n + len(prepared.skipped_qrels),
        judged_relevant=int(positive[inverse].sum()) if len(texts) else 0,
    )


def render(
    measures: Sequence[Measure],
    per_query: Mapping[str, Mapping[str, Exact]],
    tally: Counts,
    *,
    counters: Iterable[str] = (),
    show_queries: bool = False,
    complete: bool = False,
    level: object = 1,
    digits: int = 4,
) -> str:
    """trec_eval's output for *measures* and *counters* over the queries of *per_query*.

    *per_query* is ``{qid: {str(measure): value}}`` (an Evaluation's); the
    queries are exactly its keys, which must be judged and in the run.
    *tally* holds the counts (:func:`counts_of`, :func:`counts_of_prepared`).

    >>> from fractions import Fraction as F
    >>> from tieaware.model.names import parse
    >>> qrels = {"q1": {"a": F(1)}, "q2": {"b": F(1)}}
    >>> run = {"q1": [("a", F(1)), ("b", F(0))]}
    >>> tally = counts_of(qrels, run, ["q1"])
    >>> print(render([parse("P@1")], {"q1": {"P@1": F(1)}}, tally, counters=["num_q", "num_rel"], complete=True))
    num_q                 \tall\t2
    num_rel               \tall\t2
    P_1                   \tall\t0.5000
    """
    lvl = Fraction(level)
    for m in measures:
        if m.norel in ("nan", "skip"):  # trec_eval averages a number per query
            raise bad("measure", str(m), "has norel=nan or norel=skip, which trec_eval's layout cannot print; use --format table or json")
    wanted = set(counters)
    unknown = wanted.difference(COUNTERS)
    if unknown:
        raise bad("counters", sorted(unknown), f"must be among {list(COUNTERS)}")
    if digits < 0:
        raise bad("digits", digits, "must be an int >= 0")
    queries = sorted(per_query)  # strcmp order, as trec_eval sorts its results
    ordered = sorted(enumerate(measures), key=lambda pm: _sort_key(pm[1], lvl, pm[0]))
    names: list[tuple[str, str]] = []  # (key in per_query, output name), one line per output name:
    for _, m in ordered:  # P@5 and P(rel=1)@5 are both trec_eval's P_5
        name = trec_name(m, lvl) or str(m)
        if name not in (n for _, n in names):
            names.append((str(m), name))
    per_counts = tally.per_query
    shown = [c for c in COUNTERS[1:] if c in wanted]

    lines = []
    if show_queries:
        for q in queries:
            lines += [_line(c, q, str(per_counts[q][COUNTERS.index(c) - 1])) for c in shown]
            lines += [_line(name, q, _value(to_float(per_query[q][key]), digits)) for key, name in names]

    divisor = tally.judged_queries if complete else len(queries)
    totals = [sum(per_counts[q][i] for q in queries) for i in range(3)]
    if complete:
        # m_num_rel.c, -c: every judged query's documents with rel > 0, whatever the level.
        totals[1] = tally.judged_relevant
    if "num_q" in wanted:
        lines.append(_line("num_q", "all", str(divisor)))
    lines += [_line(c, "all", str(totals[COUNTERS.index(c) - 1])) for c in shown]
    for key, name in names:
        total = 0.0
        for q in queries:  # sequential double sum in query order, as trec_eval's acc_meas
            total += to_float(per_query[q][key])
        lines.append(_line(name, "all", _value(total / divisor if divisor else 0.0, digits)))
    return "\n".join(lines)


def split_counters(spec: str) -> tuple[list[str], str]:
    """The counters a ``-m`` string names, in trec_eval's order, and the string without them.

    ``all_trec`` and ``official`` name every counter (and stay in the string,
    for their measures).

    >>> split_counters("num_q map num_rel_ret P.5,10")
    (['num_q', 'num_rel_ret'], 'map P.5,10')
    >>> split_counters("official")
    (['num_q', 'num_ret', 'num_rel', 'num_rel_ret'], 'official')
    """
    named = set(_COUNTER.findall(spec))
    if any(token in _WITH_COUNTERS for token in re.split(r"[\s,]+", spec)):
        named.update(COUNTERS)
    rest = " ".join(_COUNTER.sub(" ", spec).split())
    return [c for c in COUNTERS if c in named], rest


def expand_families(spec: str) -> str:
    """trec_eval's cutoff families in a ``-m`` string as tieaware names; other names unchanged.

    ``P.5,10`` is ``P@5 P@10``.  As in trec_eval, cutoffs are sorted and must
    be > 0 and distinct.  A family alone (``P``) is left to tieaware's names,
    where P needs a cutoff.

    >>> expand_families("map P.10,5 ndcg_cut.10 recall_5")
    'map P@5 P@10 nDCG@10 recall_5'
    >>> expand_families("success.1,10 P")
    'Success@1 Success@10 P'

    trec_eval's sets ``official`` and ``all_trec`` become the measures of the
    set that tieaware computes (:func:`not_computed` lists the others; the
    counters are :func:`split_counters`'s):

    >>> expand_families("official").split()[:3]
    ['AP', 'Rprec', 'Bpref']
    >>> expand_families("P.5,5")
    Traceback (most recent call last):
    ...
    tieaware.model.errors.TieawareError: -m has duplicate cutoffs (as trec_eval refuses them), got 'P.5,5'
    """
    out = []
    for token in spec.split():
        if token in _SETS:
            out += [m for name in _SETS[token] for m in _set_member(name)]
            continue
        found = _FAMILY_ARG.match(token)
        if not found:
            out.append(token)
            continue
        family, raw = found.groups()
        parts = raw.split(",")
        if not all(p.isdigit() and int(p) > 0 for p in parts):
            raise bad("-m", token, "needs cutoffs that are ints > 0, such as P.5,10")
        cutoffs = sorted(int(p) for p in parts)
        if len(set(cutoffs)) != len(cutoffs):
            raise bad("-m", token, "has duplicate cutoffs (as trec_eval refuses them)")
        out += [f"{_CUTOFF_FAMILIES[family]}@{k}" for k in cutoffs]
    return " ".join(out)


def _set_member(name: str) -> list[str]:
    """A member of trec_eval's measure sets in tieaware's names; [] when tieaware does not compute it."""
    from tieaware.model.names import parse

    form = _AS_TIEAWARE.get(name)
    if form is None:
        return []  # a counter (split_counters keeps those) or a measure tieaware lacks
    names = [form.format(k) for k in _DEFAULT_CUTOFFS.get(name, _TREC_CUTOFFS)] if "{}" in form else [form]
    try:
        parse(names[0])
    except TieawareError:
        return []
    return names


def not_computed(spec: str) -> list[str]:
    """The members of trec_eval's sets named in *spec* (all_trec, official) that tieaware does not compute.

    >>> "gm_map" in not_computed("official") and "map" not in not_computed("official")
    True
    """
    named = [t for t in spec.split() if t in _SETS]
    missing = [n for s in named for n in _SETS[s] if n not in COUNTERS and not _set_member(n)]
    return list(dict.fromkeys(missing))


def at_level(measures: Iterable[Measure], level: object) -> tuple[Measure, ...]:
    """trec_eval's ``-l LEVEL``: ``rel=LEVEL`` on every measure that takes ``rel`` and names none.

    An explicit ``rel=`` is kept; nDCG has no ``rel`` (trec_eval's ndcg ignores
    the level too).

    >>> from tieaware.model.names import parse_list
    >>> [str(m) for m in at_level(parse_list("P@5 P(rel=3)@5 nDCG@10"), 2)]
    ['P(rel=2)@5', 'P(rel=3)@5', 'nDCG@10']
    """
    lvl = rational(level, "-l")
    if lvl <= 0:
        raise bad("-l", level, "must be a relevance level > 0")
    out = []
    for m in measures:
        # nDCG's rel exists only with gain=binary; a graded gain has no level
        takes_rel = "rel" in MEASURES.get(m.name, (False, frozenset()))[1] and m.name not in ("nDCG", "DCG")
        if takes_rel and "rel" not in dict(m.params) and lvl != 1:
            m = Measure(m.name, m.k, tuple(sorted(m.params + (("rel", lvl),))))
        out.append(m)
    return tuple(out)
