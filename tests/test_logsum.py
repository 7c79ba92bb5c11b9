"""LogSum: DCG sums as rational vectors over log(2)/log(b), summed and divided without sympy.

Every test compares with the sympy path the vectors replace (tieaware.model.gains.discounted_sum,
tieaware.model.exact.divide, tieaware.runs.evaluate.exact_mean, comparison's subtraction): with ==
where the construction is the same, otherwise with tieaware.model.exactcmp.compare, whose 0 is a
structural proof of equality (N1·D2 − N2·D1 is the zero polynomial in the logs), never a float.
"""

from __future__ import annotations

import io
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tieaware.model.exact import divide
from tieaware.model.exactcmp import compare
from tieaware.model.gains import discounted_sum
from tieaware.model.logsum import LogSum
from tieaware.runs.comparison import minus
from tieaware.runs.evaluate import exact_mean

fractions = st.fractions(min_value=-5, max_value=5, max_denominator=12)
vectors = st.dictionaries(st.integers(1, 40), fractions, max_size=6)
ideals = st.dictionaries(st.integers(1, 8), st.fractions(min_value=0, max_value=4, max_denominator=6), min_size=1, max_size=3).filter(
    lambda d: any(d.values())
)


def old(coefficients: dict) -> object:
    return discounted_sum({j: c for j, c in coefficients.items()}, "log2")


@settings(max_examples=25, deadline=None)
@given(vectors)
def test_a_linear_form_is_discounted_sums_value(coefficients):
    assert LogSum.linear(coefficients).value() == old(coefficients)  # the same canonical sympy construction


@settings(max_examples=6, deadline=None)
@given(st.lists(st.tuples(vectors, ideals), min_size=1, max_size=3), st.lists(st.tuples(vectors, ideals), min_size=1, max_size=3))
def test_means_and_differences_of_quotients_equal_sympys(a, b):
    # nDCG per query is DCG / ideal DCG; a system's mean is their mean, a pair's difference the means' difference
    def means(rows):
        new = LogSum.total(LogSum.linear(d) / LogSum.linear(i) for d, i in rows) / len(rows)
        was = exact_mean([divide(old(d), old(i)) for d, i in rows])
        return new, was

    (new_a, was_a), (new_b, was_b) = means(a), means(b)
    assert compare(new_a.value(), was_a) == 0
    assert compare((new_a - new_b).value(), minus(was_a, was_b)) == 0
    assert (new_a - new_b).sign() == compare(was_a, was_b)
    assert new_a - new_a == 0 and not (new_a - new_a)


def test_a_query_whose_dcg_is_its_ideal_is_one():
    third = LogSum.linear({1: Fraction(1), 2: Fraction(1)})
    assert third / third == 1 and (third / third).value() == Fraction(1)
    # (a + (I − a)) / I: the reduction by the ideal makes the sum rational, as it is
    a = LogSum.linear({2: Fraction(1)})
    assert (a / third + (third - a) / third).value() == Fraction(1)


def test_refused_inputs():
    from tieaware.fast.arith import Formal
    from tieaware.model.errors import TieawareError

    with pytest.raises(TieawareError, match="log2"):
        LogSum.of(Formal.power(Fraction(1, 2), 3))
    with pytest.raises(TieawareError, match="value"):
        LogSum.of(1.5)
    with pytest.raises(ZeroDivisionError):
        LogSum.of(Fraction(1)) / LogSum.of(Fraction(0))


def _random_run(seed: int) -> tuple[str, dict[str, str]]:
    """Three systems on a few queries with graded qrels and heavy ties."""
    rnd = random.Random(seed)
    qrels, runs = [], {s: [] for s in "ABC"}
    for q in range(rnd.randint(1, 4)):
        docs = [f"d{i}" for i in range(rnd.randint(1, 14))]
        for d in rnd.sample(docs, rnd.randint(1, len(docs))):
            qrels.append(f"q{q} 0 {d} {rnd.choice([0, 1, 1, 2, 3])}")
        for lines in runs.values():
            buckets = rnd.choice([1, 2, 3, 8])
            lines.extend(f"q{q} Q0 {d} 0 {rnd.randrange(buckets)} r" for d in docs)
    return "\n".join(qrels) + "\n", {s: "\n".join(v) + "\n" for s, v in runs.items()}


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6))
def test_exact_queries_forms_equal_their_sympy_values(seed):
    from tieaware.io.columns import prepare, read_table
    from tieaware.model.names import parse
    from tieaware.runs.engine import ExactQueries

    qrels, runs = _random_run(seed)
    p = prepare(read_table(io.BytesIO(qrels.encode()), "qrels"), read_table(io.BytesIO(runs["A"].encode()), "run"))
    values = ExactQueries(p)
    for name in ("nDCG", "nDCG@3", "DCG@5", "nDCG(dcg='exp-log2')@4"):
        m = parse(name)
        for i in range(len(p.qids)):
            form, was = values.value(i, m, forms=True), values.value(i, m)
            assert isinstance(form, LogSum) or form == was == 0  # an ideal DCG of 0 gives nDCG 0
            assert compare(form.value() if isinstance(form, LogSum) else form, was) == 0, (name, i)


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 10**6))
def test_compare_systems_means_and_differences_equal_the_per_query_values(seed):
    # the leaderboard's exact means and differences (LogSum vectors) against exact_mean of the per-query values
    from tieaware.fast import best_ordering, worst_ordering
    from tieaware.io.trec import parse_qrels, parse_run, run_ranking
    from tieaware.model.names import parse
    from tieaware.runs.evaluate import compute
    from tieaware.runs.leaderboard import compare_systems

    qrels_text, texts = _random_run(seed)
    qrels = parse_qrels(qrels_text.splitlines())
    runs = {s: parse_run(t.splitlines()) for s, t in texts.items()}
    measures = "nDCG@3"
    out = compare_systems(qrels, runs, measures, test=None)
    queries = sorted(set(qrels) & set.intersection(*(set(r) for r in runs.values())))
    for name in measures.split():
        m = parse(name)
        means = {}
        for s, run in runs.items():
            per = {"expected": [], "worst": [], "best": []}
            for q in queries:
                ranking, ideal = run_ranking(run[q], qrels[q]), list(qrels[q].values())
                per["expected"].append(compute(m, ranking, ideal=ideal))
                per["worst"].append(compute(m, worst_ordering(m, ranking, ideal), ideal=ideal))
                per["best"].append(compute(m, best_ordering(m, ranking, ideal), ideal=ideal))
            means[s] = {k: exact_mean(v) for k, v in per.items()}
        for row in out.standings[name]:
            assert compare(row.mean, means[row.system]["expected"]) == 0
            assert compare(row.min_mean, means[row.system]["worst"]) == 0
            assert compare(row.max_mean, means[row.system]["best"]) == 0
        for r in out.pairs[name]:
            assert compare(r.expected_difference, minus(means[r.a]["expected"], means[r.b]["expected"])) == 0
            assert compare(r.min_difference, minus(means[r.a]["worst"], means[r.b]["best"])) == 0
            assert compare(r.max_difference, minus(means[r.a]["best"], means[r.b]["worst"])) == 0
    # the public result holds Fractions and sympy values (the exactness policy), never the vectors
    import sympy

    values = [v for rows in out.standings.values() for s in rows for v in (s.mean, s.min_mean, s.max_mean)]
    values += [v for rows in out.pairs.values() for p in rows for v in (p.mean_a, p.expected_difference, p.min_difference)]
    assert values and all(isinstance(v, (Fraction, sympy.Basic)) for v in values)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6))
def test_exact_queries_orders_equal_the_sorted_rows(seed):
    # value(order="worst"/"best") reads each tie group's label counts as sub-groups of equal labels; it must
    # equal (==, the same Fraction or LogSum) the value on the rows of each group sorted by label, untied
    from tieaware.io.columns import prepare, read_table
    from tieaware.model.names import parse
    from tieaware.runs.engine import ORDERS, ExactQueries
    from tieaware.runs.board_columns import extreme_view

    qrels, runs = _random_run(seed)
    p = prepare(read_table(io.BytesIO(qrels.encode()), "qrels"), read_table(io.BytesIO(runs["A"].encode()), "run"))
    shared: dict = {}
    values = ExactQueries(p, shared)
    views = {"worst": ExactQueries(extreme_view(p, True)), "best": ExactQueries(extreme_view(p, False))}
    names = ("P@3", "R@5", "F1@2", "AP", "AP@4", "AP(rel=2)", "RR", "RR@2", "RBP(p=0.5)@4", "nDCG", "nDCG@3", "DCG@5", "nDCG(gain=binary,rel=2)@4")
    for name in names:
        m = parse(name)
        for i in range(len(p.qids)):
            for forms in (False, True):
                for order in ORDERS[1:]:
                    assert values.value(i, m, forms=forms, order=order) == views[order].value(i, m, forms=forms), (name, i, order)
                assert values.value(i, m, forms=forms) == ExactQueries(p).value(i, m, forms=forms), (name, i)


@settings(max_examples=20, deadline=None)
@given(st.dictionaries(st.integers(1, 40), st.fractions(-5, 5, max_denominator=50), max_size=6),
       st.dictionaries(st.integers(1, 40), st.fractions(-5, 5, max_denominator=50), min_size=1, max_size=4))
def test_logsum_prints_as_its_sympy_value(dcg, ideal):
    # decimal() and float() come from interval enclosures, without sympy: the digits and the float of the sympy value
    from tieaware.model.exact import to_decimal, to_float

    value = LogSum.linear(dcg) + LogSum.linear(dcg) / LogSum.linear(ideal) if LogSum.linear(ideal) else LogSum.linear(dcg)
    exact = value.value()
    for digits in (0, 4, 12):
        assert to_decimal(value, digits) == to_decimal(exact, digits)
    assert to_float(value) == (float(exact) if isinstance(exact, Fraction) else float(exact.evalf(60)))
    assert value.sign() == compare(exact, 0)


def test_compare_prepared_keeps_the_vectors_and_compare_systems_their_values():
    # nDCG@2 of a tied ranking is irrational: compare_prepared (the command's path) keeps the LogSum,
    # compare_systems returns its sympy value; both are the same number
    import sympy

    from tieaware.io.columns import prepare_dicts
    from tieaware.runs.leaderboard import compare_prepared, compare_systems

    qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"a": 1, "b": 1, "c": 0}}
    runs = {"tied": {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"a": 2, "b": 1, "c": 1}}, "flat": {"q1": {"a": 3, "b": 2, "c": 1}, "q2": {"a": 1, "b": 1, "c": 1}}}
    public = compare_systems(qrels, runs, "nDCG@2", test=None)
    from tieaware.io.inputs import to_qrels, to_run

    q = to_qrels(qrels)
    prepared = {n: prepare_dicts(q, to_run(r), ["q1", "q2"]) for n, r in runs.items()}
    inner = compare_prepared(prepared, "nDCG@2", test=None)
    for got, kept in zip(public.standings["nDCG@2"], inner.standings["nDCG@2"]):
        assert isinstance(kept.mean, LogSum) and isinstance(got.mean, sympy.Basic)
        assert got.mean == kept.mean.value() and compare(got.mean, kept.mean.value()) == 0
    (p,), (k,) = public.pairs["nDCG@2"], inner.pairs["nDCG@2"]
    assert compare(p.expected_difference, k.expected_difference.value()) == 0
    assert public.render("json") == inner.render("json")
