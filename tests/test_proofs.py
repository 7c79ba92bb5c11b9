"""Every symbolic proof holds with fast's real kernels, and ``tieaware prove`` says so (exit 0).

The proofs themselves are checked in tests/test_proof_checker.py: there each
theorem is handed deliberately wrong kernels and must reject every one.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from tieaware.cli import main
from tieaware.proofs import GENERAL, THEOREMS, Result, Theorem, prove_all
from tieaware.proofs.theorem import theorem
from tieaware.proofs import rbo as rbo_proofs
from tieaware.proofs import rbo_scan
from tieaware.reference.rank_biased_overlap import rbo as reference_rbo


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return {r.name: r for r in prove_all()}


@pytest.mark.parametrize("name", list(THEOREMS))
def test_theorem_is_proved(results, name):
    r = results[name]
    assert r.proved, r.detail
    assert r.detail  # every proof says what it covered


def test_every_family_has_its_theorems():
    expected = {
        "exchangeability", "pair", "hypergeometric mean", "first relevant (recursion)", "RBO contribution",
        "P@k", "R@k", "F1@k", "AP slot", "AP@k", "RR group", "RR@k", "DCG slot", "DCG@k", "nDCG@k",
        "RBO^a agreement", "RBO agreement d <= s", "RBO agreement s < d <= l", "RBO past l", "RBO series tail",
        "RBO scan", "RBO expected", "RBO^a MIN", "RBO^a MAX, EXT vs E", "Success@k", "Bpref",
        "Var P@k", "Var DCG@k", "Var RR", "Var AP",
        "AP harmonic sum", "RBP group", "RBP@k", "exact arithmetic",
        "P(norm=retrieved)@k", "AP(norm=capped)@k", "hits pmf", "AP(norm=hits)@k",
    }  # fmt: skip
    assert expected <= set(THEOREMS)


@pytest.mark.parametrize("name", list(THEOREMS))
def test_scope_and_latex(name):
    t = THEOREMS[name]
    assert isinstance(t, Theorem)
    assert t.scope == GENERAL or re.fullmatch(r"bounded\(.+\)", t.scope), t.scope
    assert t.latex and ("=" in t.latex or r"\neq" in t.latex)


def test_lemma_scopes_are_honest():
    # The general results are the ones sympy proves for symbolic sizes; loops over ranks are bounded.
    for name in ("exchangeability", "pair", "hypergeometric mean", "first relevant (recursion)", "first relevant weights",
                 "P@k", "R@k", "F1@k", "AP slot", "AP harmonic sum", "AP@k", "RR group", "RR@k", "DCG slot", "DCG@k", "nDCG@k",
                 "RBO contribution", "RBO^a agreement", "RBO agreement d <= s", "RBO agreement s < d <= l", "RBO past l",
                 "RBO series tail", "RBO expected", "RBO^a MIN", "RBO^a MAX, EXT vs E", "Success@k", "Bpref",
                 "RBP group", "RBP@k", "Var P@k", "Var DCG@k", "Var RR"):  # fmt: skip
        assert THEOREMS[name].scope == GENERAL, name
    for name in ("exact arithmetic", "RBO scan", "Var AP"):
        assert THEOREMS[name].scope.startswith("bounded("), name


def test_result_carries_everything(results):
    r = results["pair"]
    assert (r.name, r.scope, r.proved) == ("pair", GENERAL, True)
    assert r.seconds >= 0 and "r" in r.statement
    assert r.latex == THEOREMS["pair"].latex == sympy.latex(THEOREMS["pair"].formula())


def test_cli_prove_exits_zero(capsys):
    assert main(["prove"]) == 0
    out = capsys.readouterr().out
    for name in THEOREMS:
        assert name in out
    assert "FAILED" not in out
    assert f"{len(THEOREMS)} of {len(THEOREMS)} proved" in out


def test_cli_prove_latex_and_selection(capsys):
    assert main(["prove", "pair", "RBO contribution", "--latex"]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 proved" in out
    assert r"$$ \frac{{\binom{n - 2}{r - 2}}}{{\binom{n}{r}}} = \frac{r \left(r - 1\right)}{n \left(n - 1\right)} $$" in out


def _docs_rows() -> dict[str, list[str]]:
    text = (Path(__file__).parent.parent / "docs" / "proofs.md").read_text(encoding="utf-8")
    section = text.split("## What is proved", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


def test_docs_table_lists_every_theorem_with_its_scope():
    # docs/proofs.md's table is the documentation of the scopes: one row per theorem, the registered
    # scope verbatim, and for a bounded one the reason its bound is needed.
    rows = _docs_rows()
    assert set(rows) == set(THEOREMS)
    for name, (_, statement, scope, seconds, why) in rows.items():
        assert scope == f"`{THEOREMS[name].scope}`", name
        assert statement and float(seconds) >= 0
        if THEOREMS[name].scope != GENERAL:
            assert len(why) > 20, f"{name}: a bounded scope needs its reason in docs/proofs.md"


def test_cli_prove_prints_the_scope_summary(capsys):
    assert main(["prove", "pair", "AP@k", "--details"]) == 0
    out = capsys.readouterr().out
    bounded = [n for n in ("pair", "AP@k") if THEOREMS[n].scope != GENERAL]
    assert f"Scope: {2 - len(bounded)} general, {len(bounded)} bounded." in out
    for name in bounded:
        assert f"  {name}: {THEOREMS[name].scope}." in out
    assert "pair: " in out.split("Scope:", 1)[1]  # --details: what the proof covered


def test_every_bounded_theorem_says_why_in_the_tools_output(capsys):
    # tieaware prove prints each bounded theorem's reason itself, not a pointer to the docs
    bounded = [n for n, t in THEOREMS.items() if t.scope != GENERAL]
    assert all(len(THEOREMS[n].why) > 40 for n in bounded), [n for n in bounded if len(THEOREMS[n].why) <= 40]
    name = "hits pmf"
    assert main(["prove", name]) == 0
    out = capsys.readouterr().out
    assert f"  {name}: {THEOREMS[name].scope}. {THEOREMS[name].why}" in out and "Why: docs/proofs.md" not in out


def test_cli_prove_in_two_processes_gives_the_same_table(capsys):
    names = ["pair", "RBO contribution", "Success@k"]
    assert main(["prove", *names, "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 proved" in out and "2 jobs" in out
    table = out.split("\n\n", 1)[0].splitlines()[2:]
    assert [line.split()[0] for line in table if line[:1] != " "] == ["pair", "RBO", "Success@k"]  # registration order kept
    assert main(["prove", "pair", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_a_scope_is_general_or_bounded():
    with pytest.raises(ValueError, match="neither GENERAL nor bounded"):
        theorem("nameless", "1 = 1", "somewhat", lambda: sympy.Eq(1, 1))(lambda: "")


def test_cli_prove_list(capsys):
    assert main(["prove", "--list"]) == 0
    assert capsys.readouterr().out.count("\n") == len(THEOREMS)


def test_cli_prove_unknown_theorem(capsys):
    assert main(["prove", "P@q"]) == 2
    err = capsys.readouterr().err
    assert "NAME" in err and "P@q" in err


def test_cli_prove_fails_on_a_wrong_kernel(monkeypatch, capsys):
    # The exit code is what CI sees: a failing theorem must make it non-zero.
    broken = Theorem("broken", "1 = 2", GENERAL, lambda: rbo_proofs.same(1, 2, "one and two"), lambda: sympy.Eq(1, 2, evaluate=False))
    monkeypatch.setitem(THEOREMS, "broken", broken)
    assert main(["prove", "broken"]) == 1
    assert "FAILED broken" in capsys.readouterr().out


# -- the proofs' own RBO definitions agree with the reference layer ------------------------


def _definition_value(S, L, variant, bound, p):
    s, l = (sum(len(g) if isinstance(g, tuple) else 1 for g in x) for x in (S, L))
    if s > l:
        S, L, s, l = L, S, l, s
    shared = {x for g in S for x in (g if isinstance(g, tuple) else (g,))} & {x for g in L for x in (g if isinstance(g, tuple) else (g,))}
    f = l + s - len(shared)
    return rbo_scan.series_value(rbo_scan.defined_coefficients(S, L, variant)[bound], f + 1, p)


def test_rbo_definitions_match_the_reference_layer():
    # tieaware.reference.rank_biased_overlap (another engineer's transcription): w and b are the paper's formulas,
    # its a is the average of bare RBO over tie-breakings, the proofs' "e".  Small tied pairs, every bound.
    p = Fraction(1, 2)
    pairs = rbo_scan.canonical_pairs(2)[::3] + [(["a", ("b", "c")], ["c", ("x", "a"), "b"])]
    for S, L in pairs:
        for mine, theirs in (("w", "w"), ("b", "b"), ("e", "a")):
            for bound in ("min", "max", "ext", "res"):
                want = reference_rbo(S, L, p, variant=theirs, bound=bound)
                got = _definition_value(S, L, mine, bound, p)
                assert sympy.simplify(sympy.sympify(want) - got) == 0, (S, L, mine, bound, want, got)


def test_rbo_definition_uneven_lengths_golden():
    # docs/rbo.md (Other implementations): S=[a], L=[a, b], p=0.9 has RBO_EXT exactly 1 (dlukes/rbo's 0.88 is wrong).
    assert _definition_value(["a"], ["a", "b"], "a", "ext", Fraction(9, 10)) == 1


def test_rbo_definition_figure_2_f():
    # The paper's Figure 2: f = l + s - X_l = 15; MAX's overlap past l = 13 grows by 2 per depth, (2d - l - s + X_l)/d,
    # and reaches d at f (Eq. 23): 13/14 at depth 14, then 1.
    S, L = rbo_proofs.FIGURE_2
    coefficients = rbo_scan.defined_coefficients(S, L, "a")["max"]
    assert len(coefficients) == 17
    assert coefficients[13] == {1: Fraction(13, 14)} and coefficients[14] == coefficients[15] == {1: 1}
