"""Tie-breaking presets: how each library orders documents with equal scores, to reproduce its numbers.

A preset is a tie rule (one of :data:`RULES`, the names the checker's
probes report) and the precision at which scores tie: ``"exact"`` (equal
values, as tieaware reads them) or ``"float32"`` (equal once the double
nearest the score is stored in a C float, as trec_eval 9.0.8 and every
library that runs its code do, and as float32 tensors are).

``tieaware eval --tie-break NAME``, ``tieaware compare --tie-break NAME`` and
``tieaware.evaluate(..., tie_break=NAME)`` break ties as NAME does and
compute the ordinary (tie-oblivious) value, the number that library
publishes.  Each library preset was confirmed by running the library on
queries whose docno order and input order differ (docs/conformance.md,
"Reproducing a library's number", gives the runs and versions).

>>> preset("mteb").rule, preset("mteb").scores
('docno-desc', 'float32')
>>> preset("docno-asc").scores
'exact'
>>> preset("galago")
Traceback (most recent call last):
tieaware.model.errors.TieawareError: tie_break must be None (tie-aware) or a rule or library preset: input, reverse-input, docno-asc, docno-desc, pessimistic, optimistic, trec_eval, pytrec_eval, ir_measures.pytrec_eval, ir_measures.msmarco, ir_measures.trectools, mteb, sentence-transformers, pytorch-ignite, got 'galago'
"""

from __future__ import annotations

from dataclasses import dataclass

from tieaware.model.errors import bad
from tieaware.model.tie_rules import RULES as TIE_RULES

__all__ = ["Preset", "PRESETS", "RULES", "NAMES", "SCORES", "preset", "describe", "markdown", "CONFIRMED_ON"]

#: The tie rules (:mod:`tieaware.model.tie_rules`, the names the checker's probes report): the order of
#: documents with equal scores.  input: as the run lists them (a stable sort on score); reverse-input:
#: the reverse; docno-asc / docno-desc: by docno (byte order, as strcmp); pessimistic: non-relevant
#: first (lower labels first); optimistic: relevant first.
RULES = TIE_RULES
#: When scores tie: equal exact values, or equal as float32.
SCORES = ("exact", "float32")


@dataclass(frozen=True)
class Preset:
    """A named way of breaking ties: *rule* among scores equal at *scores* precision."""

    name: str
    rule: str
    scores: str
    #: The library (and where in it) that breaks ties this way; "" for a bare rule.
    library: str = ""
    #: The version it was confirmed on, by a run of that library.
    confirmed: str = ""


def _rule(name: str) -> Preset:
    return Preset(name, name, "exact")


#: Every preset by name: the bare rules first, then the libraries.
PRESETS: dict[str, Preset] = {
    **{r: _rule(r) for r in RULES},
    "trec_eval": Preset("trec_eval", "docno-desc", "float32", "trec_eval (comp_sim_docno; sim kept in a C float)", "trec_eval 9.0.8"),
    "pytrec_eval": Preset("pytrec_eval", "docno-desc", "float32", "pytrec_eval (trec_eval's code)", "pytrec_eval-terrier 0.5.11"),
    "ir_measures.pytrec_eval": Preset(
        "ir_measures.pytrec_eval", "docno-desc", "float32", "ir_measures' pytrec_eval provider (P, AP, nDCG, RR without a cutoff, ...)", "ir_measures 0.4.3"
    ),
    "ir_measures.msmarco": Preset("ir_measures.msmarco", "docno-asc", "exact", "ir_measures' msmarco provider (RR@k: ir_measures' default for it)", "ir_measures 0.4.3"),
    "ir_measures.trectools": Preset("ir_measures.trectools", "input", "exact", "ir_measures' trectools provider", "ir_measures 0.4.3"),
    "mteb": Preset("mteb", "docno-desc", "float32", "MTEB's retrieval evaluator (pytrec_eval; its MRR sorts by (score, doc id) descending)", "mteb 2.26.24"),
    "sentence-transformers": Preset(
        "sentence-transformers", "docno-asc", "float32", "sentence-transformers' InformationRetrievalEvaluator ((-score, corpus_id) on float32 scores)", "sentence-transformers 6.2.0"
    ),
    "pytorch-ignite": Preset("pytorch-ignite", "input", "float32", "pytorch-ignite's rec_sys NDCG (a stable argsort of float32 tensors)", "pytorch-ignite 0.5.5"),
}
#: Every name tie_break takes.
NAMES = tuple(PRESETS)


def preset(name: object) -> Preset:
    """The :class:`Preset` called *name*; a :class:`~tieaware.TieawareError` naming every choice otherwise."""
    if isinstance(name, str) and name in PRESETS:
        return PRESETS[name]
    raise bad("tie_break", name, f"must be None (tie-aware) or a rule or library preset: {', '.join(NAMES)}")


#: How each rule orders documents with equal scores, in words.
HOW = {
    "input": "in the run's order", "reverse-input": "in the reverse of the run's order", "docno-asc": "by docno, ascending",
    "docno-desc": "by docno, descending", "pessimistic": "non-relevant first", "optimistic": "relevant first",
}


def describe(name: str) -> str:
    """One sentence on how the preset *name* breaks ties, and whose preset it is (eval's table footnote).

    >>> describe("docno-asc")
    'docno-asc order: equal scores broken by docno, ascending.'
    """
    if name == "trec_eval":
        return "trec_eval order: ties broken by docno, descending, as trec_eval does."
    p = preset(name)
    among = "scores equal as float32" if p.scores == "float32" else "equal scores"
    whose = f", as {p.library} does ({p.confirmed})" if p.library else ""
    return f"{name} order: {among} broken {HOW[p.rule]}{whose}."


#: When the library presets were confirmed (scripts/tie_presets_probe.py, one run of each library).
CONFIRMED_ON = "2026-11-29"


def markdown() -> str:
    """The presets as a Markdown section (docs/conformance.md, "Reproducing a library's number")."""
    lines = [
        "## Reproducing a library's number (`--tie-break`)",
        "",
        "`tieaware eval --tie-break NAME`, `tieaware compare --tie-break NAME` and `tieaware.evaluate(..., tie_break=NAME)`",
        "break ties as NAME does and compute the ordinary value: the number that library publishes, to the last digit",
        "(the table and JSON put it beside the tie-aware value and its range over every tie-breaking). A rule names the",
        "order of documents with equal scores; a library preset adds when scores tie (float32: equal once stored in a C",
        "float or a float32 tensor). Each library preset was confirmed on " + CONFIRMED_ON + " by running the library",
        "(`python scripts/tie_presets_probe.py` in its environment) on queries whose docno order and input order differ,",
        "with tie groups of 4 to 65 documents and scores that differ only beyond float32's precision: every query's",
        "value fitted that preset and no other rule.",
        "",
        "| preset | ties broken | scores tie | library | confirmed on |",
        "|---|---|---|---|---|",
    ]
    for p in PRESETS.values():
        lines.append(f"| `{p.name}` | {p.rule} | {'as float32' if p.scores == 'float32' else 'exactly'} | {p.library or '(a rule)'} | {p.confirmed or '-'} |")
    lines += [
        "",
        "No preset reproduces torchmetrics, torcheval, ranx, rank_eval, cornac, rectools or RecBole: they break ties with",
        "an unstable sort (`arbitrary_order` above), whose order changes with the group size and the CPU. MTEB's MRR",
        "sorts Python floats (ties exactly), its other measures go through pytrec_eval (ties as float32): the two differ",
        "only on scores closer than float32 can tell apart. ir_measures picks a provider per measure (RR@k goes to",
        "msmarco, RR and P@k to pytrec_eval): choose the preset of the provider that computed the number.",
    ]
    return "\n".join(lines) + "\n"
