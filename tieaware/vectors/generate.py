"""Generate the certified test vectors: Wycheproof-style JSON, one file per measure family.

Every expected value is computed by the **reference** layer (enumeration of
every ordering, exact average) and cross-checked, exactly, against the
**fast** layer's closed forms; a disagreement stops the generation.  The
corpus is deterministic: the same files, byte for byte, on every run.

The ``rbo`` family is built by :mod:`tieaware.vectors.generate_rbo`, the
``correlation`` family (Kendall's τ, τ_AP) by :mod:`tieaware.vectors.generate_corr`.
Inputs per other family: every tie structure of up to 3 documents over labels
{0, 1, 2} at a few cutoffs, plus seeded random rankings of 5 to 9 documents
(in shuffled input order), plus cases for the family's options (rel=2,
num_rel beyond the retrieved relevant documents, an ideal ranking from the
qrels, exp2 gain) and a few invalid inputs that a careful implementation
refuses.

>>> fam = FAMILIES["precision"]
>>> fam.algorithm
'tie-aware precision at k (P@k)'
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from tieaware.check.compare import exact_equal
from tieaware.runs.evaluate import compute
from tieaware.model.exact import Exact, is_rational, to_decimal, to_exact_string, to_float
from tieaware.model.names import parse
from tieaware.model.structures import all_tied_rankings_upto

__all__ = ["FAMILIES", "Family", "NOTES", "SCHEMA_NAME", "generate", "build", "write"]

SCHEMA_NAME = "tieaware_vectors_v1"
DIGITS = 30

#: Flag -> what it marks; every file carries the descriptions of the flags it uses.
NOTES: dict[str, str] = {
    "Untied": "No two documents share a score: the ordinary tie-oblivious value.",
    "Tied": "At least one tie group of two or more documents.",
    "AllTied": "Every document has the same score (one tie group of two or more).",
    "TieAtCutoff": "A tie group straddles the cutoff k: some of its ranks are <= k, some > k.",
    "NoRelevant": "No document is relevant (binary measures: no label >= rel; nDCG: all labels 0).",
    "KBeyondLength": "The cutoff k exceeds the number of documents; missing ranks count as non-relevant.",
    "EmptyRanking": "No documents at all.",
    "Graded": "Labels above 1 occur.",
    "RelThreshold": "A relevance threshold rel = 2 (ir_measures' P(rel=2)@k): only labels >= 2 are relevant.",
    "NumRelBeyondRetrieved": "num_rel exceeds the relevant documents retrieved (judged relevant documents not in the run).",
    "IdealFromQrels": "nDCG's ideal ranking uses the given judged labels, not only the retrieved ones.",
    "Exp2Gain": "nDCG with gain 2^label - 1 (ir_measures' nDCG(dcg='exp-log2')).",
    "Convention": "Another library's convention (norm=, gain=binary, g_max=, norel=; docs/conventions.md, Conventions of other libraries).",
    "Irrational": "The exact value is irrational (log2 discounts); expected is a sympy expression.",
    "ShuffledInput": "The documents are listed in an order other than the rank order.",
    "Larger": "A random ranking of 5 to 9 documents (RBO and correlation: a ranking of 4 or more items).",
    "UnevenLengths": "RBO: the two rankings have different lengths (Webber et al.'s eq. 32 case).",
    "Disjoint": "RBO: the rankings share no item.",
    "Identical": "RBO, correlation: the two rankings are the same.",
    "PublicExample": "RBO: the example of the official implementation's README (Corsi & Urbano), p = 0.95.",
    "TiedInBoth": "Correlation: two items tied in x are tied in y too.",
    "OneTieGroup": "Invalid (correlation, variant b): a ranking is one tie group, so tau_b and tau_AP,b are 0/0.",
    "TiedReference": "Invalid (tau_AP,a): x, the true ranking, has ties; the variant takes it untied.",
    "IrcorExample": "Correlation: the example of ircor's README (Urbano & Marrero's R package).",
    "NearTie": "Two distinct scores closer than float32 can tell apart (2^-30 apart, or one ulp): they do not tie.",
    "ZeroScore": "A document scored exactly 0: it is retrieved and ranked like any other.",
    "NegativeScore": "Negative scores occur: they rank below zero, and the documents are still retrieved.",
    "NegativeZero": "Scores 0.0 and -0.0 occur together: they are equal, so they tie.",
    "ExtremeScore": "Scores of huge (about 1e308) or tiny (subnormal) magnitude.",
    "LargeTieGroup": "A tie group of 10 or more documents.",
    "ManyRelevant": "More relevant documents than the cutoff k, with the ranking longer than k.",
    "HighGrade": "Grades of 3 or more occur.",
    "FractionalGrade": "A non-integer grade (1/2) occurs.",
    "NegativeLabel": "A negative label (TREC Web track qrels: -2 for junk): trec_eval reads it as in the qrels but not judged, non-relevant with gain 0.",
    "NumRelTooSmall": "Invalid: num_rel is smaller than the relevant documents retrieved.",
    "IdealTooSmall": "Invalid: the ideal (every judged label) cannot be the ranking's: it lacks a label the ranking has.",
}


@dataclass(frozen=True)
class Family:
    """One file: a family of measures and the measure names its tests use."""

    name: str
    algorithm: str
    #: Measures every small tie structure is evaluated on.
    main: tuple[str, ...]
    #: Measures for the options (rel=2, exp2 gain, ...), on a smaller selection.
    extra: tuple[str, ...] = ()
    #: Does the measure take num_rel (R, F1, AP) or an ideal (nDCG)?
    num_rel: bool = False
    ideal: bool = False


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("precision", "tie-aware precision at k (P@k)", ("P@1", "P@2", "P@4"), ("P(rel=2)@2",)),
        Family("recall", "tie-aware recall at k (R@k)", ("R@1", "R@2", "R@4"), ("R(rel=2)@2",), num_rel=True),
        Family("f1", "tie-aware F1 at k (2·hits / (k + num_rel))", ("F1@1", "F1@2", "F1@4"), ("F1(rel=2)@2",), num_rel=True),
        Family("average_precision", "tie-aware average precision (AP, AP@k)", ("AP", "AP@2"), ("AP(rel=2)", "AP@4"), num_rel=True),
        Family("reciprocal_rank", "tie-aware reciprocal rank (RR, RR@k)", ("RR", "RR@2"), ("RR(rel=2)", "RR@4")),
        Family("ndcg", "tie-aware nDCG with log2 discount (nDCG, nDCG@k)", ("nDCG", "nDCG@2"), ("nDCG(dcg='exp-log2')@2", "nDCG@4"), ideal=True),
        Family("rbo", "rank-biased overlap with ties (Corsi & Urbano: variants w, a, b; bounds min, max, ext, res)", ()),
        Family("correlation", "Kendall's tau and Yilmaz et al.'s tau_AP with ties (variants a, b; mean, min, max, variance over tie-breakings)", ()),
        Family(
            "conventions",
            "other libraries' conventions as tie-aware measures (docs/conventions.md): AP@k divided by min(R, k), "
            "by the hits in the top k or by k; P@k divided by min(k, n); binary-gain nDCG; ERR with g_max = 4; "
            "the value of a query with no relevant document",
            ("AP(norm=capped)@2", "AP(norm=hits)@2"),
            ("P(norm=retrieved)@4", "AP(norm=k)@2", "nDCG(gain=binary)@2", "ERR(g_max=4)@2", "AP(norel=1)"),
            num_rel=True,
        ),
    )
}

_HEADER = [
    "Test vectors for tie-aware IR measures, generated by tieaware (`tieaware vectors`).",
    "Each expected value is the exact expectation of the ordinary measure over every ordering of the",
    "documents with equal scores (random tie-breaking), computed by enumeration (tieaware.reference)",
    "and cross-checked against the closed forms (tieaware.fast).",
    "Inputs: `scores` and `labels` are parallel (equal scores tie); `ranking` is the same input in",
    "tieaware's form (labels in rank order, tie groups as lists).  `numRel` (when not null) counts judged",
    "relevant documents, retrieved or not; `ideal` (when not null) lists every judged label for nDCG.",
    "`expected` is exact: 'p/q' or a sympy expression; `expectedDecimal` has 30 digits after the point.",
]


# -- inputs ---------------------------------------------------------------------


def _groups(r: list) -> list[list[int]]:
    return [g if isinstance(g, list) else [g] for g in r]


def _scores(r: list) -> tuple[list[int], list[int]]:
    gs = _groups(r)
    scores = [len(gs) - i for i, g in enumerate(gs) for _ in g]
    return scores, [x for g in gs for x in g]


def _random_rankings(seed: int, count: int) -> list[tuple[list, list[int]]]:
    """(ranking, input order) pairs of 5..9 documents, seeded: the same every run."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.randint(5, 9)
        labels = [rng.choice((0, 0, 1, 1, 2)) for _ in range(n)]
        r: list = []
        i = 0
        while i < n:
            size = min(n - i, rng.choice((1, 1, 2, 3, 4)))
            g = labels[i : i + size]
            r.append(g if size > 1 else g[0])
            i += size
        order = list(range(n))
        rng.shuffle(order)
        out.append((r, order))
    return out


# -- one test -------------------------------------------------------------------


def _flags(r: list, measure: str, num_rel: Optional[int], ideal: Optional[list], shuffled: bool) -> list[str]:
    m = parse(measure)
    gs = _groups(r)
    n = sum(map(len, gs))
    labels = [x for g in gs for x in g]
    flags = []
    tied = any(len(g) > 1 for g in gs)
    flags.append("Tied" if tied else "Untied")
    if len(gs) == 1 and n >= 2:
        flags.append("AllTied")
    if m.k is not None:
        top = 0
        for g in gs:
            if top < m.k < top + len(g):
                flags.append("TieAtCutoff")
            top += len(g)
        if m.k > n:
            flags.append("KBeyondLength")
    relevant = [x for x in labels if (x > 0 if m.name in ("nDCG", "DCG", "ERR") and not m.binary_gain else x >= m.rel)]
    if not relevant:
        flags.append("NoRelevant")
    if n == 0:
        flags.append("EmptyRanking")
    if any(x > 1 for x in labels):
        flags.append("Graded")
    if any(x >= 3 for x in labels):
        flags.append("HighGrade")
    if any(x != int(x) for x in labels):
        flags.append("FractionalGrade")
    if any(len(g) >= 10 for g in gs):
        flags.append("LargeTieGroup")
    if m.k is not None and n > m.k and len(relevant) > m.k:
        flags.append("ManyRelevant")
    if m.param("rel") is not None:
        flags.append("RelThreshold")
    if num_rel is not None:
        flags.append("NumRelBeyondRetrieved")
    if ideal is not None:
        flags.append("IdealFromQrels")
    if m.param("dcg") == "exp-log2":
        flags.append("Exp2Gain")
    if m.conventions:
        flags.append("Convention")
    if shuffled:
        flags.append("ShuffledInput")
    if n >= 5:
        flags.append("Larger")
    return flags


def _certified(measure: str, r: list, num_rel: Optional[int], ideal: Optional[list]) -> Exact:
    value = compute(measure, r, num_rel=num_rel, ideal=ideal, layer="reference")
    check = compute(measure, r, num_rel=num_rel, ideal=ideal, layer="fast")
    if not exact_equal(value, check):
        raise AssertionError(f"reference and fast disagree on {measure} of {r!r}: {value} != {check}")
    return value


def _simplest(value: Exact) -> Exact:
    """*value* as a Fraction when it is rational in disguise: nDCG's log ratios often cancel (1/2, 2/3, ...).

    The logarithms are treated as independent symbols, so a value is only called rational when its
    terms cancel exactly; only then is it flagged rational.
    """
    if is_rational(value):
        return value
    import sympy

    simplified = sympy.cancel(sympy.together(value))
    if simplified.is_Rational:
        return Fraction(int(simplified.p), int(simplified.q))
    return value


def _comment(r: list, measure: str) -> str:
    return f"{measure} of {json.dumps(r)}"


def _test(
    measure: str,
    r: list,
    *,
    num_rel: Optional[int] = None,
    ideal: Optional[list] = None,
    order: Optional[list[int]] = None,
    given: Optional[tuple[list, list]] = None,
) -> dict[str, Any]:
    """One valid test; *given* = (scores, labels) as handed over (r is then the ranking they describe)."""
    scores, labels = _scores(r) if given is None else given
    if order is not None:
        scores, labels = [scores[i] for i in order], [labels[i] for i in order]
    value = _simplest(_certified(measure, r, num_rel, ideal))
    shuffled = order is not None and order != sorted(order)
    if given is not None:
        shuffled = list(scores) != sorted(scores, reverse=True)
    flags = _flags(r, measure, num_rel, ideal, shuffled) + ([] if given is None else _score_flags(scores))
    if not is_rational(value):
        flags.append("Irrational")
    return {
        "comment": _comment(r, measure),
        "flags": flags,
        "measure": measure,
        "ranking": r,
        "scores": scores,
        "labels": labels,
        "numRel": num_rel,
        "ideal": ideal,
        "expected": to_exact_string(value),
        "expectedDecimal": to_decimal(value, DIGITS),
        "expectedFloat": to_float(value),
        "result": "valid",
    }


def _score_flags(scores: Sequence[Any]) -> list[str]:
    flags = []
    distinct = sorted(set(scores))
    if any(b != a and b - a <= 2.0**-20 * max(abs(a), abs(b)) for a, b in zip(distinct, distinct[1:])):
        flags.append("NearTie")
    if any(s == 0 for s in scores):
        flags.append("ZeroScore")
    if any(s < 0 for s in scores):
        flags.append("NegativeScore")
    if any(s == 0 and math.copysign(1.0, s) < 0 for s in scores) and any(s == 0 and math.copysign(1.0, s) > 0 for s in scores):
        flags.append("NegativeZero")
    if any(s != 0 and (abs(s) > 1e300 or abs(s) < 1e-300) for s in scores):
        flags.append("ExtremeScore")
    return flags


def _class_test(measure: str, scores: list, labels: list, num_rel: Optional[int] = None) -> dict[str, Any]:
    """A test given as scores and labels: the ranking is what the scores describe."""
    from tieaware.model.ranking import from_scores

    plain = lambda x: int(x) if x.denominator == 1 else float(x)  # noqa: E731
    r = [[plain(x) for x in e] if isinstance(e, list) else plain(e) for e in from_scores(scores, labels)]
    return _test(measure, r, num_rel=num_rel, given=(scores, labels))


def _checker_class_tests() -> list[dict[str, Any]]:
    """AP tests for every class the checker searches (docs/check.md): near ties, zero, negative,
    -0.0 and extreme scores, unsorted input, grades >= 3 and 1/2, tie groups of 10+."""
    one_ulp = math.nextafter(1.0, 2.0)
    cases = [
        ([1.0, one_ulp], [1, 0]),  # one ulp apart, unsorted: no tie
        ([one_ulp, 1.0, 1.0], [0, 1, 0]),
        ([1.0 + 2.0**-30, 1.0], [0, 1]),  # float32 cannot tell them apart
        ([1.0, 1.0 + 2.0**-30, 1.0 + 2 * 2.0**-30], [1, 0, 1]),
        ([1.0, 0.0], [0, 1]),  # a zero score is still retrieved
        ([0.0, 0.0, 1.0], [1, 0, 0]),
        ([-1.0, 0.0], [1, 0]),
        ([-0.5, -2.0, -0.5], [1, 1, 0]),
        ([0.0, -0.0], [0, 1]),  # equal scores: a tie
        ([-0.0, 1.0, 0.0, -1.0], [1, 0, 0, 1]),
        ([1e308, 1.7976931348623157e308], [1, 0]),
        ([5e-324, 0.0, 1e-300], [1, 0, 0]),
        ([1.0, 2.0], [1, 0]),  # unsorted input
        ([1.0, 3.0, 2.0, 3.0], [1, 0, 1, 1]),
        ([2.0, 1.0, 1.0], [3, 0, 4]),  # grades >= 3 (relevant like any grade >= 1)
        ([1.0, 1.0, 2.0], [0.5, 1, 0]),  # a fractional grade below rel = 1: not relevant
        ([1.0] * 10, [1, 0, 0, 0, 0, 0, 0, 0, 1, 0]),  # a tie group of 10
        ([2.0] + [1.0] * 12, [0] + [1, 1, 1] + [0] * 9),  # 12 tied behind one
        ([3.0, 2.0] + [1.0] * 14, [1, 0] + [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
    ]
    tests = [_class_test("AP", s, l) for s, l in cases]
    tests.append(_class_test("AP", [1.0, 0.0], [1, 0], num_rel=3))
    many = [float(20 - i) for i in range(14)]  # AP@12 with 14 relevant: normalised by num_rel, not by k
    tests.append(_class_test("AP@12", many, [1] * 14))
    tests.append(_class_test("AP@12", many[:11] + [1.0, 1.0, 1.0], [1] * 14))
    tests.append(_class_test("AP@12", many[:10] + [1.0] * 4, [0] + [1] * 13))
    tests.append(_class_test("AP@12", list(reversed(many)), [1] * 13 + [0]))
    return tests


def _invalid(
    measure: str, r: list, flag: str, comment: str, num_rel: Optional[int] = None, ideal: Optional[list] = None
) -> dict[str, Any]:
    scores, labels = _scores(r)
    return {
        "comment": comment,
        "flags": [flag],
        "measure": measure,
        "ranking": r,
        "scores": scores,
        "labels": labels,
        "numRel": num_rel,
        "ideal": ideal,
        "expected": None,
        "expectedDecimal": None,
        "expectedFloat": None,
        "result": "invalid",
    }


# -- a file ---------------------------------------------------------------------


def _valid_tests(family: Family, measure: str, main: bool) -> Iterator[dict[str, Any]]:
    labels = (0, 1, 2) if main else (0, 2)
    for r in all_tied_rankings_upto(3, labels):
        yield _test(measure, r)
    seed = sum(map(ord, family.name + measure))
    for r, order in _random_rankings(seed, 6 if main else 3):
        yield _test(measure, r, order=order)
    if not main:
        return
    negative = _test(measure, [1, [0, -2]])  # trec_eval: in the qrels, not judged, read as 0
    negative["flags"].append("NegativeLabel")
    negative["comment"] += "; -2 is a judged-as-unjudged document, read as 0 (trec_eval)"
    yield negative
    for r in ([1, [0, 1]], [[2, 0, 1], 0], [[1, 1, 0, 0]]):
        if family.num_rel:
            relevant = sum(1 for g in _groups(r) for x in g if x >= parse(measure).rel)
            yield _test(measure, r, num_rel=relevant + 2)
        if family.ideal:
            yield _test(measure, r, ideal=[x for g in _groups(r) for x in g] + [2, 1])


def _invalid_tests(family: Family) -> Iterator[dict[str, Any]]:
    measure = family.main[0]
    if family.num_rel:
        yield _invalid(measure, [1, [1, 0]], "NumRelTooSmall", "num_rel 1, but 2 relevant documents were retrieved", num_rel=1)
    if family.ideal:
        yield _invalid(measure, [2, [0, 1]], "IdealTooSmall", "the ideal [1, 1] holds no 2, but the ranking does", ideal=[1, 1])


def build(family: Family, progress: bool = False) -> dict[str, Any]:
    """The whole JSON document of one family."""
    from tieaware import __version__
    from tieaware.check.progress import bar

    groups = []
    measures = [(m, True) for m in family.main] + [(m, False) for m in family.extra]
    for measure, main in bar(measures, progress, f"vectors {family.name}", len(measures)):
        groups.append({"type": "TieAwareMeasureTest", "measure": measure, "tests": list(_valid_tests(family, measure, main))})
    header = _HEADER
    if family.name == "rbo":  # two rankings in: its own inputs, groups and header
        from tieaware.vectors.generate_rbo import HEADER, rbo_groups

        groups, header = rbo_groups(), HEADER
    elif family.name == "correlation":  # two rankings of the same items
        from tieaware.vectors.generate_corr import HEADER as CORR_HEADER, corr_groups

        groups, header = corr_groups(), CORR_HEADER
    else:
        if family.name == "average_precision":
            for measure in ("AP", "AP@12"):
                tests = [t for t in _checker_class_tests() if t["measure"] == measure]
                groups.append({"type": "TieAwareMeasureTest", "measure": measure, "tests": tests})
        invalid = list(_invalid_tests(family))
        if invalid:
            groups.append({"type": "InvalidInputTest", "measure": family.main[0], "tests": invalid})
    tc_id = 0
    used: set[str] = set()
    for g in groups:
        for t in g["tests"]:
            tc_id += 1
            t["tcId"] = tc_id
            used.update(t["flags"])
    for g in groups:  # tcId first, as in Wycheproof files
        g["tests"] = [{"tcId": t.pop("tcId"), **t} for t in g["tests"]]
    return {
        "algorithm": family.algorithm,
        "family": family.name,
        "schema": SCHEMA_NAME,
        "generatorVersion": __version__,
        "numberOfTests": tc_id,
        "header": header,
        "notes": {flag: NOTES[flag] for flag in NOTES if flag in used},
        "testGroups": groups,
    }


def write(document: dict[str, Any], path: str) -> None:
    """Write one family's document as JSON with one test per line, so diffs stay readable."""
    dump = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731
    head = [f" {dump(key)}: {json.dumps(value, ensure_ascii=False, indent=1)}" for key, value in document.items() if key != "testGroups"]
    groups = []
    for g in document["testGroups"]:
        fields = [f"   {dump(key)}: {dump(value)}" for key, value in g.items() if key != "tests"]
        tests = ",\n".join("    " + dump(t) for t in g["tests"])
        groups.append("  {\n" + ",\n".join(fields + ['   "tests": [\n' + tests + "\n   ]"]) + "\n  }")
    body = ",\n".join(head + [' "testGroups": [\n' + ",\n".join(groups) + "\n ]"])
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + body + "\n}\n")


def _make_directories(out_dir: str) -> list[str]:
    """Make *out_dir* and its missing parents; return those made (outermost first), or refuse naming the folder."""
    from tieaware.model.errors import bad

    missing = []
    path = os.path.abspath(out_dir)
    while not os.path.exists(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    made: list[str] = []
    try:
        for folder in reversed(missing):
            os.mkdir(folder)
            made.append(folder)
    except OSError as exc:
        _remove_directories(made)
        raise bad("--out", out_dir, f"cannot be created ({exc.strerror or exc})") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        _remove_directories(made)
        raise bad("--out", out_dir, "cannot be written (no permission)")
    return made


def _remove_directories(made: list[str]) -> None:
    for folder in reversed(made):
        try:
            os.rmdir(folder)
        except OSError:
            pass


def generate(out_dir: str, families: Optional[Sequence[str]] = None, progress: bool = False) -> list[str]:
    """Write ``FAMILY.json`` for each family into *out_dir*; return the paths written."""
    from tieaware.model.errors import bad

    names = list(FAMILIES) if families is None else list(dict.fromkeys(families))  # a repeated family is written once
    for name in names:
        if name not in FAMILIES:
            raise bad("family", name, f"is not one of {sorted(FAMILIES)}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise bad("--out", out_dir, "must be a directory, not an existing file")
    created = _make_directories(out_dir)  # before the work: a folder that cannot be made is known at once
    try:
        documents = [(name, build(FAMILIES[name], progress)) for name in names]  # all work first: no partial corpus
    except BaseException:
        _remove_directories(created)  # nothing left behind, on an error or Ctrl-C
        raise
    paths = [os.path.join(out_dir, f"{name}.json") for name in names]
    temporary = [f"{path}.tmp-{os.getpid()}" for path in paths]
    try:
        os.makedirs(out_dir, exist_ok=True)
        for (_, document), tmp in zip(documents, temporary):
            write(document, tmp)
        for tmp, path in zip(temporary, paths):  # every file is whole before any is renamed into place
            os.replace(tmp, path)
    except OSError as exc:
        for tmp in temporary:
            if os.path.exists(tmp):
                os.remove(tmp)
        raise bad("--out", out_dir, f"cannot be written ({exc.strerror or exc})") from None
    return paths
