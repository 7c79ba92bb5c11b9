"""tieaware.analysis.disagreement and `tieaware disagree`: counts, features, float mode, the paper's tables."""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from fractions import Fraction

import pytest
import sympy

from tieaware import TieawareError, reference
from tieaware.commands import disagree
from tieaware.analysis.disagreement import (
    DEFAULT_MEASURES,
    FEATURES,
    binary_vectors,
    disagreement,
    float_verdicts,
    parse_measures,
)
from tieaware.reference.err import err as ref_err
from tieaware.reference.rbp import rbp as ref_rbp

# -- brute force, independent of the NumPy counting and of tieaware.fast ------------------

# Each measure through the *reference* layer; rational ones compare exactly.
BRUTE = {
    "P": lambda v, k, R: reference.precision(v, k),
    "AP": lambda v, k, R: reference.average_precision(v, k, R),
    "RR": lambda v, k, R: reference.reciprocal_rank(v, k),
    "ERR": lambda v, k, R: ref_err(v, k, max_label=1),
    "RBP(p=0.5)": lambda v, k, R: ref_rbp(v, Fraction(1, 2), k),
    "RBP(p=0.85)": lambda v, k, R: ref_rbp(v, Fraction(17, 20), k),
    "DCG": lambda v, k, R: reference.dcg(v, k),
}


def _sign(x, y) -> int:
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return (x > y) - (x < y)
    d = sympy.N(sympy.sympify(x) - sympy.sympify(y), 50)  # DCG: sympy's own high-precision evaluation
    return 0 if abs(d) < 1e-40 else (1 if d > 0 else -1)


def _first(v, bit, k):
    return v.index(bit) if bit in v else k


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_counts_and_features_match_a_pair_loop(k):
    R = k + 1
    names = list(BRUTE)
    result = disagreement(names, k, R)
    vectors = binary_vectors(k)
    values = {n: [BRUTE[n](list(v), k, R) for v in vectors] for n in names}
    for a, b in itertools.combinations_with_replacement(names, 2):
        count, feats = 0, dict.fromkeys(FEATURES, 0)
        for i, j in itertools.permutations(range(len(vectors)), 2):
            sa, sb = _sign(values[a][i], values[a][j]), _sign(values[b][i], values[b][j])
            if sa != sb:
                count += 1
                vi, vj = vectors[i], vectors[j]
                marks = {
                    "recall": (sum(vi) > sum(vj)) - (sum(vi) < sum(vj)),
                    "first-rel": (_first(vi, 1, k) < _first(vj, 1, k)) - (_first(vi, 1, k) > _first(vj, 1, k)),
                    "first-irrel": (_first(vi, 0, k) < _first(vj, 0, k)) - (_first(vi, 0, k) > _first(vj, 0, k)),
                }
                for f, mark in marks.items():
                    feats[f] += mark != 0 and sa == mark
        assert result.count(a, b) == result.count(b, a) == count, (a, b)
        assert result.features[(a, b)] == feats, (a, b)
    assert result.pairs == (2**k - 1) * (2**k - 2)


def test_small_case_by_hand():
    # k = 2: vectors 01, 10, 11.  P: 1/2, 1/2, 1.  RR: 1/2, 1, 1.
    # They disagree on (01, 10) (P ties, RR prefers 10) and (10, 11) (RR ties, P prefers 11), both orders: 4.
    result = disagreement("P RR", k=2)
    assert result.vectors == ("01", "10", "11")
    assert result.count("P", "RR") == 4
    assert result.percent("P", "RR") == Fraction(400, 6)
    # On (10, 11) P prefers 11, the vector with more relevant documents; on (01, 10) P ties.
    assert result.features[("P", "RR")] == {"recall": 2, "first-rel": 0, "first-irrel": 0}
    # RR prefers 10 over 01: the earlier first relevant and the later first irrelevant... 01's first irrelevant is rank 1.
    assert result.features[("RR", "P")] == {"recall": 0, "first-rel": 2, "first-irrel": 0}


# -- the paper's tables (Jones, Thomas, Scholer & Sanderson, SIGIR 2015) --------------------

# Table 2, the cells for measures we share, in percent.  The paper's columns
# MRR/ERR map to our RR; P@k/R@k to P; DCG/NDCG/SDCG to DCG; AP/SP to AP.
TABLE_2 = {
    ("P", "RBP(p=0.95)"): 17.57, ("P", "DCG"): 23.99, ("P", "RBP(p=0.85)"): 23.75, ("P", "AP"): 23.06,
    ("P", "RR"): 54.09, ("P", "RBP(p=0.5)"): 39.99,
    ("RBP(p=0.95)", "DCG"): 8.65, ("RBP(p=0.95)", "RBP(p=0.85)"): 6.87, ("RBP(p=0.95)", "AP"): 7.02,
    ("RBP(p=0.95)", "RR"): 50.79, ("RBP(p=0.95)", "RBP(p=0.5)"): 24.95,
    ("DCG", "RBP(p=0.85)"): 5.32, ("DCG", "AP"): 3.01, ("DCG", "RR"): 43.02, ("DCG", "RBP(p=0.5)"): 16.30,
    ("RBP(p=0.85)", "AP"): 2.88, ("RBP(p=0.85)", "RR"): 45.73, ("RBP(p=0.85)", "RBP(p=0.5)"): 18.29,
    ("AP", "RR"): 45.04, ("AP", "RBP(p=0.5)"): 17.99,
    ("RR", "RBP(p=0.5)"): 33.27,
}
# Table 4: (preferring measure, other measure) -> (recall, first-rel, first-irrel), percent of disagreeing pairs.
TABLE_4 = {
    ("AP", "DCG"): (52.41, 4.07, 65.54), ("DCG", "AP"): (22.09, 71.63, 14.34),
    ("DCG", "RBP(p=0.85)"): (33.24, 62.38, 11.27), ("RBP(p=0.85)", "DCG"): (37.71, 11.27, 62.38),
    ("RBP(p=0.85)", "RBP(p=0.95)"): (0.00, 75.00, 1.38), ("RBP(p=0.95)", "RBP(p=0.85)"): (89.96, 1.38, 75.00),
    ("RBP(p=0.5)", "RBP(p=0.95)"): (0.00, 70.24, 0.00), ("RBP(p=0.95)", "RBP(p=0.5)"): (89.89, 0.00, 70.24),
}
# The documented differences (docs/disagreement.md): both involve AP, and both vanish in the float
# mode that ranks six exactly tied AP pairs (test_float_naive_strict_reproduces_the_paper).
TABLE_2_DIFFERS = {("AP", "RBP(p=0.5)"): 18.00}
TABLE_4_DIFFERS = {("AP", "DCG"): (52.39, 4.07, 65.51)}


@pytest.fixture(scope="module")
def k10():
    # With the all-zero vector: the paper's percentages are over 1024·1023 = 1,047,552 ordered pairs.
    return disagreement(DEFAULT_MEASURES, 10, 10, include_zero=True)


def test_zero_vector_changes_counts_not_pairs_only():
    # Every measure scores all-zeros 0, below every other vector: no new disagreement, only more pairs.
    without, with_zero = disagreement(list(BRUTE), 5), disagreement(list(BRUTE), 5, include_zero=True)
    assert (without.counts == with_zero.counts).all()
    assert (without.pairs, with_zero.pairs) == (31 * 30, 32 * 31)
    assert with_zero.vectors[0] == "00000"


def test_k10_shape(k10):
    assert len(k10.vectors) == 1024
    assert len(binary_vectors(10)) * (len(binary_vectors(10)) - 1) == 1_045_506  # the pair count the paper states
    assert (k10.counts == k10.counts.T).all() and not k10.counts.diagonal().any()
    # nDCG's ideal is the same for every vector (R = 10 relevant), so it never disagrees with DCG.
    assert k10.count("DCG", "nDCG") == 0


def test_table_2(k10):
    # The paper's percentages are over 1024·1023 = 1,047,552 ordered pairs (the all-zero vector's
    # pairs included, on which no measure disagrees), not the 1,045,506 it states.
    assert k10.pairs == 1024 * 1023
    for (a, b), paper in TABLE_2.items():
        ours = round(float(k10.percent(a, b)), 2)
        assert ours == TABLE_2_DIFFERS.get((a, b), paper), (a, b, ours, paper)
    # The one exact difference: 188,510 pairs, 17.9953%, which rounds to 18.00; the paper's float run has 188,502.
    assert k10.count("AP", "RBP(p=0.5)") == 188_510


def test_table_4(k10):
    for (a, b), paper in TABLE_4.items():
        ours = tuple(round(float(k10.feature_percent(a, b, f)), 2) for f in FEATURES)
        assert ours == TABLE_4_DIFFERS.get((a, b), paper), (a, b, ours, paper)


def test_float_fast_inclusive_changes_nothing_at_k10(k10):
    differences, floats = float_verdicts(k10, implementation="fast", inclusive=True)
    assert differences == []
    assert (floats.counts == k10.counts).all()


def test_float_naive_strict_reproduces_the_paper(k10):
    # Textbook float64 loops, equal when |a - b| < 2**-53: six pairs of vectors with exactly equal
    # AP come out one ulp (2**-53, in [0.5, 1)) apart and are ranked.  With that, every cell of
    # Tables 2 and 4 we share is reproduced, the AP ones included.
    differences, floats = float_verdicts(k10, implementation="naive", inclusive=False)
    assert {d.measure for d in differences} == {"AP"} and len(differences) == 6
    for d in differences:
        a, b = ([int(c) for c in x] for x in (d.a, d.b))
        assert reference.average_precision(a, 10, 10) == reference.average_precision(b, 10, 10)  # an exact tie
        assert d.exact == 0 and d.float != 0 and abs(d.difference) == 2.0**-53
    for (a, b), paper in TABLE_2.items():
        assert round(float(floats.percent(a, b)), 2) == paper, (a, b)
    for (a, b), paper in TABLE_4.items():
        assert tuple(round(float(floats.feature_percent(a, b, f)), 2) for f in FEATURES) == paper, (a, b)
    # With <= instead of <, the same loops give the exact verdicts.
    assert float_verdicts(k10, implementation="naive", inclusive=True)[0] == []


def test_float_mode_reports_differences():
    # A silly epsilon of 0.4 makes P values 1/3 apart "equal" in float (2/3 apart stay unequal):
    # each pair of vectors whose hit counts differ by one is listed, with both verdicts.
    result = disagreement("P", k=3)
    differences, floats = float_verdicts(result, epsilon=0.4)
    expected = [(a, b) for a, b in itertools.combinations(result.vectors, 2) if abs(a.count("1") - b.count("1")) == 1]
    assert [(d.a, d.b) for d in differences] == expected
    assert all(d.float == 0 and d.exact == (1 if d.a.count("1") > d.b.count("1") else -1) for d in differences)
    assert floats.counts.tolist() == [[0]]
    with pytest.raises(TieawareError, match="implementation .*'slow'"):
        float_verdicts(result, implementation="slow")
    with pytest.raises(TieawareError, match="epsilon .*-1"):
        float_verdicts(result, epsilon=-1.0)
    with pytest.raises(TieawareError, match="inclusive .*'yes'"):
        float_verdicts(result, inclusive="yes")


# -- names and bad input -------------------------------------------------------------------


def test_parse_measures():
    assert [m.name for m in parse_measures("MAP MRR NDCG RBP(p=0.5) ERR")] == ["AP", "RR", "nDCG", "RBP(p=0.5)", "ERR"]
    assert [m.name for m in parse_measures(["P", "F1", "R"])] == ["P", "F1", "R"]


@pytest.mark.parametrize(
    "text, shown",
    [("AP@10", "AP@10"), ("SDCG", "SDCG"), ("RBP", "RBP"), ("RBP(q=0.5)", "RBP(q=0.5)"), ("RBP(p=1)", "RBP(p=1)"), ("", "")],
)
def test_bad_measures(text, shown):
    with pytest.raises(TieawareError) as info:
        parse_measures(text)
    assert "measure" in str(info.value) and repr(shown) in str(info.value)


def test_bad_measures_type():
    with pytest.raises(TieawareError, match="^measures .*got 3$"):
        parse_measures(3)
    with pytest.raises(TieawareError, match="^measure .*got 7$"):
        parse_measures(["AP", 7])


def test_bad_k_R_feature():
    for k in (0, 13, True, "3"):
        with pytest.raises(TieawareError, match=r"^k .*" + repr(k).replace("(", r"\(")):
            disagreement("P", k=k)
    with pytest.raises(TieawareError, match=r"^R .*, got 2$"):
        disagreement("P", k=3, R=2)
    with pytest.raises(TieawareError, match="measures .*twice"):
        disagreement("AP MAP", k=2)
    with pytest.raises(TieawareError, match="feature .*'speed'"):
        disagreement("P RR", k=2).feature_percent("P", "RR", "speed")
    with pytest.raises(TieawareError, match="measure .*'AP'"):
        disagreement("P RR", k=2).count("P", "AP")


# -- the command -------------------------------------------------------------------------


def _args(*argv):
    parser = argparse.ArgumentParser()
    disagree.add_parser(parser.add_subparsers())
    return parser.parse_args(["disagree", *argv])


def test_command_prints_matrix_and_heatmap(tmp_path, capsys):
    png = tmp_path / "h.png"
    assert disagree.run(_args("-k", "3", "-m", "P RR", "--heatmap", str(png))) == 0
    out = capsys.readouterr().out
    assert "42 ordered pairs" in out
    # P and RR at k = 3 (all 7 vectors): counted by the brute-force test above; here, the table shows it.
    count = disagreement("P RR", k=3).count("P", "RR")
    assert f" {count}" in out and f"{100 * count / 42:.2f}" in out
    assert "equals the exact one" in out  # no exact ties broken at k = 3
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_features_and_zero(capsys):
    assert disagree.run(_args("-k", "2", "-m", "P RR", "--with-zero", "--features", "--no-float")) == 0
    out = capsys.readouterr().out
    assert "4 binary vectors (all-zero included), 12 ordered pairs" in out
    # test_small_case_by_hand: P prefers the vector with more relevant documents in 2 of its 4 disagreements.
    assert re.search(r"P vs RR +P +50\.00 +0\.00 +0\.00", out)
    assert re.search(r"RR vs P +RR +0\.00 +50\.00 +0\.00", out)
    assert "float64" not in out


def test_command_heatmap_without_matplotlib(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    with pytest.raises(TieawareError, match="needs matplotlib"):
        disagree.run(_args("-k", "2", "--heatmap", str(tmp_path / "h.png")))
    assert capsys.readouterr().out == ""


def test_command_bad_measure_prints_nothing(capsys):
    with pytest.raises(TieawareError, match="^measure .*got 'XYZ'$"):
        disagree.run(_args("-k", "2", "-m", "AP XYZ"))
    assert capsys.readouterr().out == ""


def test_command_float_report_lists_pairs_and_changed_counts(k10):
    report = disagree._float_report(k10, "naive", "<", 2)
    assert "6 vector pairs get a different verdict" in report
    assert re.search(r"AP +0011111011 +0111101100 +0 +-1 +-1\.11e-16", report)
    assert re.search(r"AP +RBP\(p=0\.5\) +188510 +18\.00 +188502 +17\.99", report)
    assert "every verdict" in disagree._float_report(k10, "fast", "<=", 2)


def test_docs_matrix_is_what_we_compute(k10):
    # docs/disagreement.md §6 prints the exact matrix over the 1,045,506 pairs without all-zeros.
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "disagreement.md").read_text(encoding="utf-8")
    section = text[text.index("## 6. Comparison with the paper") :]
    table = section[section.index("|             | P") :].split("\n\n")[0]
    rows = [line for line in table.splitlines() if re.match(r"\| (P|AP|DCG|nDCG|RR|ERR|RBP [0-9.]+) +\|", line)]
    names = {"RBP 0.5": "RBP(p=0.5)", "RBP 0.85": "RBP(p=0.85)", "RBP 0.95": "RBP(p=0.95)"}
    order = [names.get(c, c) for c in ["P", "AP", "DCG", "nDCG", "RR", "ERR", "RBP 0.5", "RBP 0.85", "RBP 0.95"]]
    assert len(rows) == len(order)
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        a = names.get(cells[0], cells[0])
        for b, shown in zip(order, cells[1:]):
            assert f"{100 * k10.count(a, b) / (1023 * 1022):.2f}" == (shown if shown != "0" else "0.00"), (a, b)
