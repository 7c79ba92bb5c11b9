"""``tieaware compare`` and tieaware.runs.comparison, against brute force over both runs.

The truth here is independent of the per-query machinery: every
combination of orderings of every query of both runs is enumerated, the
ordinary (untied) measure is computed on each, and the mean difference
A − B is tallied.  Its minimum, maximum, mean and P(> 0) must equal what
compare_runs reports, exactly.
"""

import itertools
import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tieaware.cli import main
from tieaware.runs.comparison import compare_runs, query_stats, spread
from tieaware.runs.evaluate import compute
from tieaware.model.exact import to_float
from tieaware.model.names import parse
from tieaware.reference.orderings import orderings
from tieaware.model.ranking import groups
from tieaware.io.trec import parse_qrels, parse_run, run_ranking

QRELS = """\
q1 0 a 1
q1 0 b 0
q1 0 c 2
q1 0 e 1
q2 0 x 1
q2 0 y 1
q3 0 z 1
"""
RUN_A = """\
q1 Q0 a 1 3 A
q1 Q0 b 2 3 A
q1 Q0 c 3 1 A
q1 Q0 d 4 1 A
q2 Q0 x 1 2 A
q2 Q0 w 2 2 A
q2 Q0 y 3 2 A
q9 Q0 x 1 1 A
"""
RUN_B = """\
q1 Q0 b 1 5 B
q1 Q0 c 2 4 B
q1 Q0 a 3 4 B
q1 Q0 e 4 4 B
q2 Q0 w 1 9 B
q2 Q0 x 2 1 B
q2 Q0 y 3 1 B
q3 Q0 z 1 1 B
"""


def brute_force(qrels, run_a, run_b, measure, exact=True):
    """{mean difference: probability} over every tie-breaking of every query of both runs."""
    m = parse(measure)
    queries = sorted(q for q in run_a if q in run_b and q in qrels)
    per_query = []
    for q in queries:
        ideal = list(qrels[q].values())
        outcomes = []
        for run in (run_a, run_b):
            gs = groups(run_ranking(run[q], qrels[q]))
            outcomes.append([compute(m, list(o), ideal=ideal, exact=exact) for o in orderings(gs)])
        per_query.append([(x, y) for x in outcomes[0] for y in outcomes[1]])
    total = math.prod(len(v) for v in per_query)
    tally = {}
    for combo in itertools.product(*per_query):
        d = sum(to_float(x) - to_float(y) for x, y in combo) if not exact else sum(Fraction(x) - Fraction(y) for x, y in combo)
        d /= len(queries)
        tally[d] = tally.get(d, 0) + Fraction(1, total)
    return tally


@pytest.fixture
def parsed():
    return parse_qrels(QRELS.splitlines()), parse_run(RUN_A.splitlines()), parse_run(RUN_B.splitlines())


@pytest.mark.parametrize("measure", ["P@2", "RR", "AP", "R@3", "F1@2", "RBP(p=0.5)", "ERR@3"])
def test_rational_measures_match_brute_force(parsed, measure):
    qrels, a, b = parsed
    (c,) = compare_runs(qrels, a, b, measure)
    truth = brute_force(qrels, a, b, measure)
    assert c.queries == 2  # q1, q2: q3 and q9 are in one run only
    assert c.min_difference == min(truth) and c.max_difference == max(truth)
    assert c.expected_difference == sum(d * p for d, p in truth.items())
    variance = sum((d - c.expected_difference) ** 2 * p for d, p in truth.items())
    assert c.sd_difference ** 2 == variance or abs(to_float(c.sd_difference) ** 2 - float(variance)) < 1e-15
    assert c.p_greater == sum(p for d, p in truth.items() if d > 0)
    assert c.method in ("exact", "bounds")
    assert c.verdict == ("every" if min(truth) > 0 else "none" if max(truth) <= 0 else "some")


def test_irrational_measure_is_a_float_convolution(parsed):
    qrels, a, b = parsed
    (c,) = compare_runs(qrels, a, b, "nDCG@3")
    truth = brute_force(qrels, a, b, "nDCG@3", exact=False)
    assert to_float(c.min_difference) == pytest.approx(min(truth), abs=1e-12)
    assert to_float(c.max_difference) == pytest.approx(max(truth), abs=1e-12)
    assert to_float(c.expected_difference) == pytest.approx(float(sum(d * p for d, p in truth.items())), abs=1e-12)
    if c.method == "float":
        assert c.p_greater == pytest.approx(float(sum(p for d, p in truth.items() if d > 1e-12)), abs=1e-12)
        assert "float" in c.note


def test_float_mode(parsed):
    qrels, a, b = parsed
    exact = compare_runs(qrels, a, b, "AP P@2")
    floats = compare_runs(qrels, a, b, "AP P@2", exact=False)
    for e, f in zip(exact, floats):
        assert isinstance(f.expected_difference, float)
        assert f.expected_difference == pytest.approx(to_float(e.expected_difference), abs=1e-12)
        assert f.p_greater == pytest.approx(to_float(e.p_greater), abs=1e-12)
        assert f.verdict == e.verdict


def test_verdicts():
    qrels = parse_qrels(["q1 0 a 1"])
    tied = parse_run(["q1 Q0 a 1 1 A", "q1 Q0 b 2 1 A"])
    first = parse_run(["q1 Q0 a 1 2 B", "q1 Q0 b 2 1 B"])
    last = parse_run(["q1 Q0 b 1 2 C", "q1 Q0 a 2 1 C"])
    assert compare_runs(qrels, first, last, "P@1")[0].verdict == "every"
    assert compare_runs(qrels, last, first, "P@1")[0].verdict == "none"
    (c,) = compare_runs(qrels, tied, last, "P@1")
    assert (c.verdict, c.p_greater, c.method) == ("some", Fraction(1, 2), "exact")
    (c,) = compare_runs(qrels, tied, tied, "P@1")  # A > B when A's a is first and B's is not
    assert (c.verdict, c.p_greater, c.expected_difference) == ("some", Fraction(1, 4), 0)
    (c,) = compare_runs(qrels, first, first, "P@1")
    assert (c.verdict, c.p_greater) == ("none", 0)


def test_degrades_to_a_normal_approximation(parsed):
    qrels, a, b = parsed
    (c,) = compare_runs(qrels, a, b, "AP", max_support=2)
    truth = brute_force(qrels, a, b, "AP")
    assert c.method == "normal" and "normal approximation" in c.note and "more than 2 values" in c.note
    assert isinstance(c.p_greater, float) and 0 <= c.p_greater <= 1
    assert c.expected_difference == sum(d * p for d, p in truth.items())  # the rest stays exact


@settings(max_examples=40)
@given(st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1)), min_size=1, max_size=4), min_size=2, max_size=4))
def test_hypothesis_against_brute_force(docs):
    """Random small runs: (score, label) per doc; run B reverses the scores."""
    qrels_lines, a_lines, b_lines = [], [], []
    for q, ds in enumerate(docs):
        for i, (score, lab) in enumerate(ds):
            qrels_lines.append(f"q{q} 0 d{i} {lab}")
            a_lines.append(f"q{q} Q0 d{i} 1 {score} A")
            b_lines.append(f"q{q} Q0 d{i} 1 {(score * (i + 1)) % 3} B")
    qrels, a, b = parse_qrels(qrels_lines), parse_run(a_lines), parse_run(b_lines)
    for measure in ("P@2", "AP"):
        (c,) = compare_runs(qrels, a, b, measure)
        truth = brute_force(qrels, a, b, measure)
        assert (c.min_difference, c.max_difference) == (min(truth), max(truth))
        assert c.p_greater == sum(p for d, p in truth.items() if d > 0)


def test_spread_is_mean_of_extremes():
    s = [query_stats(parse("P@1"), r, [1, 1]) for r in ([[1, 0]], [1, 0], [[1, 1, 0]])]
    out = spread({f"q{i}": {"P@1": x} for i, x in enumerate(s)}, ["P@1"])["P@1"]
    assert (out.min_mean, out.max_mean, out.queries_moved) == (Fraction(1, 3), Fraction(1), 2)
    assert out.sd_mean ** 2 == (Fraction(1, 4) + 0 + Fraction(2, 9)) / 9


# --- the command --------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    paths = []
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    return paths


def test_cli_json(files, capsys):
    assert main(["compare", *files, "-m", "P@2 AP", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    qrels, a, b = parse_qrels(QRELS.splitlines()), parse_run(RUN_A.splitlines()), parse_run(RUN_B.splitlines())
    truth = brute_force(qrels, a, b, "AP")
    ap = out["measures"]["AP"]
    assert ap["min_difference"]["exact"] == f"{min(truth).numerator}/{min(truth).denominator}"
    p = sum(p for d, p in truth.items() if d > 0)
    assert ap["p_greater"]["exact"] == f"{p.numerator}/{p.denominator}"
    assert ap["p_greater_method"] in ("exact", "bounds") and out["queries"] == 2


def test_cli_table(files, capsys):
    assert main(["compare", *files, "-m", "P@2 AP nDCG@3"]) == 0
    out = capsys.readouterr().out
    assert "2 shared queries; 1 in only one run skipped" in out  # q3; q9 has no qrels
    assert "P(A > B)" in out and "A > B for" in out
    for m in ("P@2", "AP", "nDCG@3"):
        assert f"\n{m} " in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "XYZ"], "XYZ"),
        (["--digits", "-1"], "--digits"),
        (["--max-support", "0"], "--max-support"),
        (["-m", "RBO"], "RBO"),
    ],
)
def test_cli_bad_arguments(files, capsys, argv, message):
    assert main(["compare", *files, *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tieaware compare: error:") and message in err and err.count("\n") == 1


def test_cli_no_shared_query(tmp_path, capsys):
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "a").write_text("q1 Q0 a 1 1 A\n")
    (tmp_path / "b").write_text("q2 Q0 a 1 1 B\n")
    assert main(["compare", str(tmp_path / "q"), str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "share no query" in err


def test_cli_missing_file(files, capsys):
    assert main(["compare", files[0], files[1], files[1] + ".missing"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tieaware compare: error:")


def test_the_normal_approximation_uses_the_variance_of_the_mean_difference(parsed):
    """P(A > B) ≈ Φ(E[D]/sd(D)) with sd(D) the sd of the *mean* difference (docs/uncertainty.md), the sd column.

    It used Σ var instead of Σ var / n², so with many queries it sat near 1/2
    whatever the difference: 100 queries of one tied pair each, A's relevant
    document tied with a non-relevant one and B's always second, gave 0.54
    for an exact P(A > B) of 1 - 2**-100.
    """
    import math

    lines_q = [f"q{i} 0 a 1" for i in range(100)]
    tied = [f"q{i} Q0 {d} 1 1 A" for i in range(100) for d in "ab"]
    second = [f"q{i} Q0 b 1 2 B\nq{i} Q0 a 2 1 B" for i in range(100)]
    qrels, a, b = parse_qrels(lines_q), parse_run(tied), parse_run("\n".join(second).splitlines())
    (exact,) = compare_runs(qrels, a, b, "P@1")
    (normal,) = compare_runs(qrels, a, b, "P@1", max_support=2)
    assert exact.method == "exact" and exact.p_greater == 1 - Fraction(1, 2**100)
    assert normal.method == "normal" and normal.sd_difference == Fraction(1, 20)  # √(100/4)/100
    z = float(normal.expected_difference) / float(normal.sd_difference)  # (1/2) / (1/20) = 10
    assert normal.p_greater == 0.5 * math.erfc(-z / math.sqrt(2)) and normal.p_greater > 0.999
    # the same identity on the shared fixture, whatever its numbers
    qrels, a, b = parsed
    (c,) = compare_runs(qrels, a, b, "AP", max_support=2)
    sd = float(c.sd_difference)
    assert c.p_greater == pytest.approx(0.5 * math.erfc(-float(c.expected_difference) / (sd * math.sqrt(2))), rel=1e-12)
