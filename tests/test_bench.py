"""`tieaware bench`, its tie-oblivious baseline, and the exact fast paths it led to.

No timing thresholds here: performance is measured by the benchmark, and
these tests check only that the report has its sections and columns, that
the baseline is honest (equal to tieaware on untied orderings), and that the
optimised exact paths give exactly what the plain constructions give.
"""

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from tieaware import fast
from tieaware.benchmarks import measures as bench
from tieaware.cli import main
from tieaware.commands.bench import benchmarks
from tieaware.fast.arith import _harmonic
from tieaware.fast.kernels import ap_group, ap_slot
from tieaware.model.gains import perfect_power, discounted_sum
from tieaware.model.ranking import groups

# -- the command ---------------------------------------------------------------


def test_quick_report_has_every_section_and_ratio_column(capsys):
    assert main(["bench", "--quick", "--only", "measures"]) == 0
    out = capsys.readouterr().out
    for section in (
        "machine: ",
        "cores",
        "python ",
        "### fast vs reference",
        "### tie-aware vs tie-oblivious",
        "### exact evaluation of all measures over the run",
    ):
        assert section in out, section
    for column in ("oblivious ms", "tie-aware ms", "ratio (min)", "ratio (median)", "cold wall s", "cold CPU s", "warm CPU s", "ratio (CPU)"):
        assert column in out, column
    assert "orderings)" in out  # fast vs reference columns name each group size
    assert "input normalisation" in out
    assert "all measures" in out and "target, all measures exact under 2 s: by CPU time" in out
    for name in bench.MEASURES:
        # each measure has a speed-up row, an exact and a float overhead row, and a wall-time row
        rows = [line for line in out.splitlines() if line.strip().startswith(name + " ")]
        assert len(rows) == 4, (name, rows)
    speedups = [line for line in out.splitlines() if line.strip().startswith("P@10 ") and "×" in line]
    assert len(speedups) == 1 and len(speedups[0].split("×")) - 1 == 4  # n = 4..7 in quick mode


def test_unknown_benchmark_is_a_one_line_error(capsys):
    assert main(["bench", "--only", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--only" in captured.err and "'nope'" in captured.err and "measures" in captured.err


def test_benchmarks_are_discovered_by_their_run_function():
    found = benchmarks()
    assert "measures" in found and found["measures"] is bench.run
    assert all(callable(f) for f in found.values())


# -- the synthetic run and the baseline -------------------------------------------


def test_synthetic_run_is_deterministic_and_heavily_tied():
    a, b = bench.synthetic_run(3, 1000), bench.synthetic_run(3, 1000)
    assert a == b
    q = a[0]
    assert len(q.labels) == 1000 and len(set(q.docnos)) == 1000
    assert len(bench.tied(q)) <= 21  # scores 0..20: at most 21 tie groups
    assert 50 <= sum(1 for x in q.labels if x >= 1) <= 150  # about 10% relevant


def test_untied_order_is_trec_eval_order():
    # trec_eval: score descending, then docno descending (docs/conventions.md, Tie order of other tools).
    q = bench.Query(docnos=("a", "b", "c"), scores=(1, 2, 1), labels=(0, 1, 2))
    assert bench.untied(q) == [Fraction(1), Fraction(2), Fraction(0)]


@pytest.mark.parametrize("name", list(bench.MEASURES))
def test_baseline_equals_tieaware_on_untied_orderings(name):
    for q in bench.synthetic_run(2, 300, seed=7):
        o = bench.untied(q)
        assert bench.plain_measure(name, o, exact=True) == bench.MEASURES[name](o, True)
        got, want = bench.plain_measure(name, o, exact=False), bench.MEASURES[name](o, False)
        assert isinstance(got, float) and math.isclose(got, want, rel_tol=1e-12)


def test_baseline_hand_values():
    # By hand: relevant at ranks 1 and 3 of [1, 0, 1]: AP = (1/1 + 2/3)/2 = 5/6, RR = 1.
    assert bench.plain_measure("AP", [1, 0, 1], exact=True) == Fraction(5, 6)
    assert bench.plain_measure("RR", [0, 0, 1], exact=True) == Fraction(1, 3)
    assert bench.plain_measure("P@10", [1, 0, 1], exact=True) == Fraction(2, 10)


# -- the optimised exact paths equal the plain constructions ------------------------


def _plain_log2_sum(coefficients):
    """Σ c_j / log2(j+1) the way sympy builds it, term by term, collected per base."""
    per_base = {}
    for j, c in coefficients.items():
        b, m = perfect_power(j + 1)
        per_base[b] = per_base.get(b, 0) + Fraction(c) / m
    rational = per_base.pop(2, Fraction(0))
    terms = [sympy.Rational(c.numerator, c.denominator) * sympy.log(2) / sympy.log(b) for b, c in per_base.items() if c]
    total = sympy.Add(sympy.Rational(rational.numerator, rational.denominator), *terms)
    return Fraction(int(total.p), int(total.q)) if total.is_Rational else total


coefficient = st.one_of(
    st.sampled_from([Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(0), Fraction(2)]),
    st.fractions(min_value=-5, max_value=5, max_denominator=60),
)


@given(st.dictionaries(st.integers(1, 1500), coefficient, max_size=40))
def test_log2_sum_is_the_canonical_sympy_expression(coefficients):
    got, want = discounted_sum(coefficients, "log2"), _plain_log2_sum(coefficients)
    assert got == want and type(got) is type(want)
    if not isinstance(want, Fraction):
        assert sympy.srepr(got) == sympy.srepr(want)  # same args in the same order
        floats = sum(float(c) / math.log2(j + 1) for j, c in coefficients.items())
        assert math.isclose(float(got), floats, rel_tol=1e-9, abs_tol=1e-9)


def test_log2_sum_over_a_long_tied_ranking():
    r = bench.tied(bench.synthetic_run(1, 1000, seed=3)[0])
    terms = {}
    start = 0
    for g in groups(r):  # expected DCG: each rank gets its group's mean gain
        for j in range(start + 1, start + len(g) + 1):
            terms[j] = sum(g, Fraction(0)) / len(g)
        start += len(g)
    got, want = fast.dcg(r), _plain_log2_sum({j: c for j, c in terms.items() if c})
    assert got == want and sympy.srepr(got) == sympy.srepr(want)


@given(st.integers(1, 400), st.integers(1, 60))
def test_harmonic_is_the_sum_of_reciprocals(first, count):
    assert _harmonic(first, first + count - 1) == sum((Fraction(1, j) for j in range(first, first + count)), Fraction(0))


@given(st.integers(0, 300), st.integers(1, 40), st.data())
def test_grouped_ap_slots_equal_the_per_rank_kernel(t, n, data):
    r = Fraction(data.draw(st.integers(1, n)))
    before = Fraction(data.draw(st.integers(0, t)))
    last = t + data.draw(st.integers(1, n))
    want = sum((ap_slot(j, t, before, r, n) for j in range(t + 1, last + 1)), Fraction(0))
    assert ap_group(t, last, before, r, n) == want
