"""The shipped test vectors: valid against the schema, reproducible, consistent, and usable in a few lines."""

from __future__ import annotations

import json
import math
import pathlib
from fractions import Fraction

import jsonschema
import pytest

from tieaware import TieawareError, from_scores, vectors
from tieaware.cli import main
from tieaware.runs.evaluate import compute
from tieaware.model.exact import to_decimal, to_float
from tieaware.vectors.generate import FAMILIES, NOTES

PACKAGE = pathlib.Path(vectors.__file__).resolve().parent


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("vectors")
    assert main(["vectors", "--out", str(out)]) == 0
    return out


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(vectors.schema())


@pytest.mark.parametrize("family", vectors.FAMILIES)
def test_every_shipped_file_validates_against_the_schema(family):
    jsonschema.Draft202012Validator(vectors.schema()).validate(vectors.load(family))


@pytest.mark.parametrize("family", vectors.FAMILIES)
def test_regenerating_gives_the_shipped_files_byte_for_byte(family, regenerated):
    assert (regenerated / f"{family}.json").read_bytes() == (PACKAGE / f"{family}.json").read_bytes()


def test_the_families_are_the_generated_ones_and_the_corpus_is_modest():
    assert set(vectors.FAMILIES) == set(FAMILIES)
    assert sum((PACKAGE / f"{f}.json").stat().st_size for f in vectors.FAMILIES) < 1_200_000  # nine families, about 120 kB each


@pytest.mark.parametrize("family", vectors.FAMILIES)
def test_counts_ids_and_notes_are_consistent(family):
    doc = vectors.load(family)
    tests = [t for g in doc["testGroups"] for t in g["tests"]]
    assert doc["numberOfTests"] == len(tests)
    assert [t["tcId"] for t in tests] == list(range(1, len(tests) + 1))
    used = {f for t in tests for f in t["flags"]}
    assert used == set(doc["notes"])
    assert all(doc["notes"][f] == NOTES[f] for f in used)
    for g in doc["testGroups"]:
        if g["type"] != "RBOPublicExample":  # one example at every variant and bound
            assert all(t["measure"] == g["measure"] for t in g["tests"])


@pytest.mark.parametrize("family", vectors.FAMILIES)
def test_decimal_and_float_agree_with_the_exact_value(family):
    for case in vectors.iter_cases(family):
        assert to_decimal(case.exact, 30) == case.expected_decimal
        assert case.expected_float == float(Fraction(case.expected_decimal)) or math.isclose(
            case.expected_float, float(Fraction(case.expected_decimal)), rel_tol=1e-15
        )


RANKED = [f for f in vectors.FAMILIES if f not in ("rbo", "correlation")]


@pytest.mark.parametrize("family", RANKED)
def test_scores_and_ranking_describe_the_same_tied_ranking(family):
    def canonical(r):
        return [sorted(g) if isinstance(g, list) else g for g in r]

    for case in vectors.iter_cases(family, result=None):
        if "NegativeLabel" in case.flags:
            continue
        assert canonical(from_scores(case.scores, case.labels)) == canonical(case.ranking)


def test_flags_mark_what_they_say():
    [tie_at_cutoff] = [c for c in vectors.iter_cases("precision", measure="P@1") if c.ranking == [[0, 1]]]
    assert set(tie_at_cutoff.flags) == {"Tied", "AllTied", "TieAtCutoff"}
    [beyond] = [c for c in vectors.iter_cases("precision", measure="P@4") if c.ranking == [1, 0]]
    assert set(beyond.flags) == {"Untied", "KBeyondLength"}
    irrational = list(vectors.iter_cases("ndcg", flags={"Irrational"}))
    assert irrational and all(not isinstance(c.exact, Fraction) for c in irrational)


# Golden values from outside the generator, worked by hand from the definitions in docs/conventions.md (Measures).
@pytest.mark.parametrize(
    "family, measure, ranking, expected",
    [
        # Orderings (0,1) and (1,0): P@1 is 0 or 1.
        ("precision", "P@1", [[0, 1]], Fraction(1, 2)),
        # AP of (1,0,1) is (1 + 2/3)/2 = 5/6; of (1,1,0) is 1: mean 11/12.
        ("average_precision", "AP", [1, [0, 1]], Fraction(11, 12)),
        # The first relevant document is at rank 1, 2 or 3 with probability 1/3 each: (1 + 1/2 + 1/3)/3.
        ("reciprocal_rank", "RR", [[0, 0, 1]], Fraction(11, 18)),
        # Relevant documents in the top 2 of (1, [0, 1]): 1 + 1/2; over num_rel = 2.
        ("recall", "R@2", [1, [0, 1]], Fraction(3, 4)),
    ],
)
def test_golden_values(family, measure, ranking, expected):
    [case] = [c for c in vectors.iter_cases(family, measure=measure) if c.ranking == ranking and c.num_rel is None]
    assert case.exact == expected


def test_close_compares_exactly_or_within_tolerance():
    [case] = [c for c in vectors.iter_cases("reciprocal_rank", measure="RR") if c.ranking == [[0, 0, 1]]]
    assert case.close(Fraction(11, 18)) and not case.close(Fraction(11, 18) + Fraction(1, 10**30))
    assert case.close(11 / 18) and not case.close(11 / 18 + 1e-6)
    assert case.close(11 / 18 + 1e-6, rel_tol=1e-5)


# -- the pytest helper, used the way another project would use it ------------------


def tie_aware(case):
    """'Your implementation': here tieaware's own float mode, through the measure name."""
    return compute(case.measure, from_scores(case.scores, case.labels), num_rel=case.num_rel, ideal=case.ideal, exact=False)


@pytest.mark.parametrize("case", vectors.pytest_cases("average_precision"))
def test_pytest_cases_run_an_implementation(case):
    assert case.close(tie_aware(case))


def test_pytest_cases_have_readable_ids():
    params = vectors.pytest_cases("f1", flags={"TieAtCutoff"})
    assert params and all(p.id.startswith("f1-") for p in params)
    assert all("TieAtCutoff" in p.values[0].flags for p in params)


@pytest.mark.parametrize("family", RANKED)
def test_invalid_inputs_are_refused_by_tieaware(family):
    invalid = list(vectors.iter_cases(family, result="invalid"))
    # families that take num_rel or an ideal have invalid inputs; a negative label is valid (read as 0)
    assert bool(invalid) == (family in ("recall", "f1", "average_precision", "ndcg", "conventions")), family
    for case in invalid:
        with pytest.raises(TieawareError):
            compute(case.measure, case.ranking, num_rel=case.num_rel, ideal=case.ideal)
        with pytest.raises(TieawareError, match="is absent"):
            case.exact


@pytest.mark.peers
def test_sklearn_ndcg_score_agrees_with_the_ndcg_vectors():
    """An outside check: scikit-learn's ndcg_score averages DCG over ties (linear gain, log2 discount)."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    checked = 0
    # sklearn takes a negative label as a negative gain; trec_eval (and these vectors) read it as 0
    for case in vectors.iter_cases("ndcg", flags_excluded={"Exp2Gain", "IdealFromQrels", "NegativeLabel"}):
        if len(case.labels) < 2 or sum(case.labels) == 0:
            continue  # sklearn refuses one document, and returns 0 where the ideal DCG is 0 anyway
        k = None if "@" not in case.measure else int(case.measure.split("@")[1])
        got = sklearn_metrics.ndcg_score([case.labels], [case.scores], k=k, ignore_ties=False)
        assert case.close(float(got)), case.id
        checked += 1
    assert checked > 100


def test_bad_family_and_bad_cli_family():
    with pytest.raises(TieawareError, match=r"family is not one of .*got 'map'"):
        vectors.load("map")
    with pytest.raises(TieawareError, match=r"family is not one of .*got 'map'"):
        from tieaware.vectors.generate import generate

        generate("/nonexistent-never-written", ["map"])


def test_the_json_is_plain_json():
    text = (PACKAGE / "ndcg.json").read_text(encoding="utf-8")
    assert json.loads(text) == vectors.load("ndcg")


# -- RBO -----------------------------------------------------------------------------

# The official implementation's README (julian-urbano/sigir2024-rbo), quoted in docs/rbo.md, p = 0.95,
# x = "red (blue green) yellow pink", y = "(blue red) white (yellow black purple) green", 7 decimals.
PUBLIC = {
    ("a", "ext"): 0.6922853, ("a", "min"): 0.3310519, ("a", "max"): 0.8930692, ("a", "res"): 0.5620173,
    ("w", "ext"): 0.7068257, ("w", "min"): 0.3429684, ("w", "max"): 0.9049857, ("w", "res"): 0.5620173,
    ("b", "ext"): 0.7207131, ("b", "min"): 0.3509163, ("b", "max"): 0.9129336, ("b", "res"): 0.5620173,
}  # fmt: skip


def test_rbo_public_example_matches_the_official_implementation():
    cases = list(vectors.iter_cases("rbo", flags={"PublicExample"}))
    assert {(c.variant, c.bound) for c in cases} == set(PUBLIC)
    for c in cases:
        assert round(float(Fraction(c.expected_decimal)), 7) == PUBLIC[(c.variant, c.bound)], c.id


def test_rbo_flags_mark_what_they_say():
    [same] = [c for c in vectors.iter_cases("rbo", measure="RBO(p=0.9, variant=a, bound=ext)") if c.S == ["a"] and c.L == ["a"]]
    assert set(same.flags) == {"Untied", "Identical"} and same.exact == 1
    disjoint = list(vectors.iter_cases("rbo", flags={"Disjoint"}, measure="RBO(p=0.9, variant=w, bound=ext)"))
    assert disjoint and all(c.exact == 0 for c in disjoint)  # no overlap at any depth, and EXT extrapolates 0


def webber_ext(S, L, p):
    """Bare RBO_EXT of two untied lists, Webber et al. eq. 32, in floats: an outside implementation."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    x = x_s = 0
    total = 0.0
    for d in range(1, l + 1):
        x = len(set(S[: min(d, s)]) & set(L[:d]))
        if d == s:
            x_s = x
        total += x / d * p**d + (x_s * (d - s) / (s * d) * p**d if d > s else 0)
    return (1 - p) / p * total + ((x - x_s) / l + x_s / s) * p**l


@pytest.mark.parametrize("case", vectors.pytest_cases("rbo", flags={"Untied"}, measure="RBO(p=0.9, variant=a, bound=ext)"))
def test_untied_rbo_vectors_agree_with_webbers_formula(case):
    assert case.close(webber_ext(case.S, case.L, float(case.p)))


def test_the_documented_pytest_example_passes_for_a_correct_ap(tmp_path):
    """docs/vectors.md's example, run as written, against an independent tie-aware AP (McSherry & Najork's closed form)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "vectors.md").read_text()
    example = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "test_my_average_precision" in b)
    implementation = '''
from tieaware import from_scores


def my_average_precision(scores, labels, num_rel=None):
    """Tie-aware AP: each relevant document in a group of n with r relevant, after s seen and h hits,
    contributes E[precision at its rank] = (h + (r - 1) / (n - 1) * (j - 1) + 1) / (s + j), averaged over j."""
    from fractions import Fraction
    groups = [g if isinstance(g, list) else [g] for g in from_scores(scores, labels)]
    seen = hits = 0
    total = Fraction(0)
    for g in groups:
        n, r = len(g), sum(1 for x in g if x >= 1)
        for j in range(1, n + 1):  # position within the group, each equally likely for a relevant document
            others = Fraction(r - 1, n - 1) * (j - 1) if n > 1 else 0
            total += Fraction(r, n) * (hits + others + 1) / (seen + j)
        seen, hits = seen + n, hits + r
    relevant = hits if num_rel is None else num_rel
    return total / relevant if relevant else Fraction(0)
'''
    (tmp_path / "test_documented.py").write_text(implementation + example)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_documented.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert re.search(r"\b\d{2,} passed", done.stdout) and "failed" not in done.stdout


def test_irrational_flags_only_values_that_are_not_small_fractions():
    """nDCG ratios whose logarithms cancel (1, 1/2, 2/3, 3/4, 5/6) are written as fractions, not flagged Irrational."""
    from fractions import Fraction as F

    flagged = [c for c in vectors.iter_cases("ndcg") if "Irrational" in c.flags]
    assert flagged
    for c in flagged:
        x = F(c.expected_decimal)
        assert all(abs(x * q - round(x * q)) > F(1, 10**20) for q in range(1, 13)), (c.tc_id, c.expected)
    halves = [c for c in vectors.iter_cases("ndcg") if c.expected in ("1/2", "2/3", "3/4", "5/6")]
    assert halves and all("log" not in c.expected for c in halves)


# -- correlation ------------------------------------------------------------------------

# ircor's README (julian-urbano/ircor), quoted in docs/golden.md, 7 digits: tau_a, tauAP_a on x and
# round(y*5)/5; tau_b, tauAP_b with x rounded too.
IRCOR = {("tau", "a"): 0.7111111, ("tauap", "a"): 0.6074515, ("tau", "b"): 0.75, ("tauap", "b"): 0.6269841}


def test_correlation_ircor_example_matches_ircor():
    cases = {(c.coefficient, c.statistic): c for c in vectors.iter_cases("correlation", flags={"IrcorExample"})}
    assert set(cases) >= set(IRCOR) and len(cases) == 12
    for key, want in IRCOR.items():
        assert round(cases[key].expected_float, 7) == want, cases[key].id
    low, high = cases["tau", "min"].exact, cases["tau", "max"].exact
    assert low <= cases["tau", "mean"].exact <= high


def _function(case):
    from tieaware.fast import correlation as fast

    name = "kendall_tau" if case.coefficient == "tau" else "tau_ap"
    if case.statistic in ("a", "b"):
        return lambda x, y: getattr(fast, name)(x, y, case.statistic)
    if case.statistic in ("min", "max"):
        return lambda x, y: getattr(fast, name + "_range")(x, y)[0 if case.statistic == "min" else 1]
    return getattr(fast, name + ("_expected" if case.statistic == "mean" else "_variance"))


@pytest.mark.parametrize("case", vectors.pytest_cases("correlation"))
def test_correlation_vectors_run_an_implementation(case):
    value = _function(case)(case.x, case.y)
    assert case.close(value)  # exactly
    assert case.close(to_float(value))  # and as a float, within 1e-9


def test_correlation_invalid_inputs_are_refused():
    invalid = list(vectors.iter_cases("correlation", result="invalid"))
    assert invalid and {f for c in invalid for f in c.flags} >= {"OneTieGroup", "TiedReference"}
    for case in invalid:
        with pytest.raises(TieawareError):
            _function(case)(case.x, case.y)


def yilmaz_tau_ap(true_order, estimated):
    """Yilmaz et al. (SIGIR 2008), Eq. 4: 2/(N−1)·Σ_{i=2..N} C(i)/(i−1) − 1."""
    position = {e: k for k, e in enumerate(true_order)}
    total = sum(Fraction(sum(1 for a in estimated[: i - 1] if position[a] < position[estimated[i - 1]]), i - 1) for i in range(2, len(estimated) + 1))
    return 2 * total / (len(estimated) - 1) - 1


def test_untied_correlation_vectors_agree_with_yilmaz_and_kendall():
    checked = 0
    for case in vectors.iter_cases("correlation", flags={"Untied"}):
        if case.statistic not in ("a", "mean", "min", "max"):
            continue
        x, y = case.x, case.y
        if case.coefficient == "tauap":
            want = yilmaz_tau_ap(x, y)
        else:
            position = {e: k for k, e in enumerate(y)}
            pairs = [(x[i], x[j]) for i in range(len(x)) for j in range(i + 1, len(x))]
            want = Fraction(sum(1 if position[a] < position[b] else -1 for a, b in pairs), len(pairs))
        assert case.exact == want, case.id
        checked += 1
    assert checked >= 20
