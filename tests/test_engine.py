"""The vectorised float engine (tieaware.runs.engine) equals the exact layer on every query, to 1e-12."""

import io
import random
from fractions import Fraction

import numpy as np
import pytest

from tieaware.model.errors import TieawareError

from tieaware.runs import engine
from tieaware.io.columns import prepare, prepare_dicts, read_table
from tieaware.runs.evaluate import evaluate, evaluate_prepared
from tieaware.model.exact import to_float
from tieaware.model.names import parse
from tieaware.io.trec import parse_qrels, parse_run

MEASURES = (
    "P@1 P@5 P@30 R@5 R@30 F1@10 AP AP@5 AP@40 RR RR@3 RR@40 nDCG nDCG@5 nDCG@40 DCG DCG@10 "
    "RBP(p=0.5) RBP(p=0.9)@10 nDCG(dcg='exp-log2')@10 P(rel=2)@5 AP(rel=2) RR(rel=2)@10 R(rel=2)@20 ERR@1 ERR@5 ERR@20 ERR ERR@100"
)


def _random_files(seed: int) -> tuple[str, str]:
    """A random run with heavy ties, unjudged documents, queries missing on either side."""
    rnd = random.Random(seed)
    qrels, run = [], []
    for q in range(rnd.randint(1, 6)):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rnd.randint(1, 45))]
        buckets = rnd.choice([1, 2, 3, 8, 50])
        for d in docs:
            score = rnd.randrange(buckets)
            text = rnd.choice([str(score), f"{score}.0", f"{score}e0"])  # equal values, different texts
            run.append(f"{qid} Q0 {d} 0 {text} r")
        judged = rnd.sample(docs, rnd.randint(0, len(docs))) + [f"x{i}" for i in range(rnd.randint(0, 4))]
        if not judged and rnd.random() < 0.5:
            continue  # a run query without qrels
        for d in judged or ["x"]:
            qrels.append(f"{qid} 0 {d} {rnd.choice([0, 0, 1, 1, 2, 3])}")
    qrels.append("qz 0 a 1")  # a judged query absent from the run
    rnd.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@pytest.mark.parametrize("seed", range(16))
def test_engine_equals_exact_layer_on_every_query(seed):
    qrels_text, run_text = _random_files(seed)
    qrels, run = parse_qrels(qrels_text.splitlines()), parse_run(run_text.splitlines())
    try:
        exact = evaluate(qrels, run, MEASURES)
    except Exception as exc:  # no query in common: both paths refuse
        with pytest.raises(type(exc)):
            evaluate(qrels, run, MEASURES, exact=False)
        return
    prepared = prepare(read_table(io.BytesIO(qrels_text.encode()), "qrels"), read_table(io.BytesIO(run_text.encode()), "run"))
    from_dicts = prepare_dicts(qrels, run, exact.queries)
    for p in (prepared, from_dicts):
        cache: dict = {}
        for m in exact.measures:
            got = engine.values(p, m, cache)
            assert got is not None, m
            want = [to_float(exact.per_query[q][str(m)]) for q in p.qids]
            assert np.allclose(got, want, rtol=0, atol=1e-12), (str(m), got, want)
    # and through the public paths, with tie_break too
    for tie_break in (None, "trec_eval"):
        want = evaluate(qrels, run, MEASURES, tie_break=tie_break)
        for got in (evaluate(qrels, run, MEASURES, exact=False, tie_break=tie_break),
                    evaluate_prepared(prepared, MEASURES, exact=False, tie_break=tie_break)):
            assert got.queries == want.queries
            for q in want.queries:
                for m, v in want.per_query[q].items():
                    assert abs(got.per_query[q][m] - to_float(v)) <= 1e-12, (q, m)


def test_err_on_a_large_group_of_several_grades_is_vectorised():
    # a tie group holding relevant members of two grades, past the 64 slots the binomial series once
    # allowed: its subset means are folded member by member (kernels.subset_mean_step) like any other
    size = 70
    judged = {f"d{i}": Fraction(i % 3) for i in range(size)}
    qrels = {"q1": judged}
    run = {"q1": [(d, Fraction(1)) for d in judged]}
    p = prepare_dicts(qrels, run, ["q1"])
    want = evaluate(qrels, run, "ERR ERR@64")
    for m in ("ERR", "ERR@64"):
        got = engine.values(p, parse(m))
        assert got is not None, m
        assert abs(got[0] - to_float(want.per_query["q1"][m])) <= 1e-12, m


def test_unsupported_measures_fall_back_per_query():
    # ERR on fractional labels is left to the per-query path, which names them as exact mode does
    judged = {"a": Fraction(3, 2), "b": Fraction(1), "c": Fraction(0)}
    qrels = {"q1": judged}
    run = {"q1": [(d, Fraction(1)) for d in judged]}
    p = prepare_dicts(qrels, run, ["q1"])
    assert engine.values(p, parse("ERR")) is None
    assert engine.values(p, parse("AP")) is not None
    for exact in (True, False):
        with pytest.raises(TieawareError, match="whole-number labels for ERR"):
            evaluate(qrels, run, "ERR AP", exact=exact)


def test_err_on_one_large_single_grade_group_is_vectorised():
    # every relevant member of the group has one grade, any size
    judged = {f"d{i}": Fraction(2 if i % 7 == 0 else 0) for i in range(300)}
    judged["x"] = Fraction(3)  # g_max 3, not retrieved
    qrels = {"q1": judged, "q2": {"a": Fraction(1), "b": Fraction(0), "c": Fraction(1)}}
    run = {"q1": [(d, Fraction(1)) for d in judged if d != "x"], "q2": [("a", Fraction(1)), ("b", Fraction(1)), ("c", Fraction(0))]}
    p = prepare_dicts(qrels, run, ["q1", "q2"])
    want = evaluate(qrels, run, "ERR ERR@250")
    for m in ("ERR", "ERR@250"):
        got = engine.values(p, parse(m))
        assert got is not None, m
        for i, q in enumerate(("q1", "q2")):
            assert abs(got[i] - to_float(want.per_query[q][m])) <= 1e-12, (m, q)


def test_float_ties_are_exact_ties():
    # 0.1 and 0.10000000000000001 are one double but two scores: never a tie, in float mode either.
    qrels_text = "q1 0 a 1\n"
    run_text = "q1 Q0 a 1 0.1 r\nq1 Q0 b 2 0.10000000000000001 r\nq1 Q0 c 3 1e-1 r\n"
    p = prepare(read_table(io.BytesIO(qrels_text.encode()), "qrels"), read_table(io.BytesIO(run_text.encode()), "run"))
    assert p.group_sizes().tolist() == [1, 2]  # b alone (the larger exact value), then a and c tied
    assert engine.values(p, parse("P@1"))[0] == 0.0
    assert evaluate(parse_qrels([qrels_text.strip()]), parse_run(run_text.splitlines()), "P@1").mean["P@1"] == Fraction(0)


@pytest.mark.parametrize("seed", range(8))
def test_exact_group_summaries_equal_compute_exactly(seed):
    qrels_text, run_text = _random_files(100 + seed)
    qrels, run = parse_qrels(qrels_text.splitlines()), parse_run(run_text.splitlines())
    measures = "P@5 R@30 F1@10 AP AP@5 RR RR@3 nDCG nDCG@5 DCG@10 RBP(p=0.5) nDCG(dcg='exp-log2')@10 AP(rel=2) ERR@5"
    try:
        want = evaluate(qrels, run, measures)
    except Exception:
        return
    prepared = prepare(read_table(io.BytesIO(qrels_text.encode()), "qrels"), read_table(io.BytesIO(run_text.encode()), "run"))
    for tie_break in (None, "trec_eval"):
        want = evaluate(qrels, run, measures, tie_break=tie_break)
        got = evaluate_prepared(prepared, measures, tie_break=tie_break)
        assert got.per_query == want.per_query
        assert got.mean == want.mean


def test_chunked_engine_equals_one_piece(monkeypatch):
    qrels_text, run_text = _random_files(7)
    prepared = prepare(read_table(io.BytesIO(qrels_text.encode()), "qrels"), read_table(io.BytesIO(run_text.encode()), "run"))
    whole = {t: evaluate_prepared(prepared, MEASURES, exact=False, tie_break=t) for t in (None, "trec_eval")}
    monkeypatch.setattr(engine, "CHUNK_ROWS", 7)
    assert len(engine.chunks(prepared)) > 1
    for tie_break, want in whole.items():
        got = evaluate_prepared(prepared, MEASURES, exact=False, tie_break=tie_break)
        for q in want.queries:
            for m, v in want.per_query[q].items():
                assert got.per_query[q][m] == pytest.approx(v, abs=1e-15), (q, m)


def test_measures_added_to_compute_fall_back_in_float_mode():
    # measures the engine does not know (h14a's Rprec, Success@k) go through compute() per query
    from tieaware.io.trec import read_sample

    qrels, run = read_sample()
    got = evaluate(qrels, run, "Rprec Success@5 AP", exact=False)
    want = evaluate(qrels, run, "Rprec Success@5 AP")
    for q in want.queries:
        for m, v in want.per_query[q].items():
            assert got.per_query[q][m] == pytest.approx(to_float(v), abs=1e-12), (q, m)


def test_exact_path_keeps_int_labels_exact():
    # prepare_dicts may be handed int labels (a library caller's dicts): the exact whole-run path must not
    # divide two ints into a float (nDCG's ideal once came out as 1.0*log(2)/log(3) + 2.0).
    import sympy

    from tieaware.model.names import parse
    from tieaware.runs.engine import ExactQueries

    qrels = {"q1": {"a": 1, "b": 2}}
    run = {"q1": [("a", Fraction(1)), ("b", Fraction(1, 2)), ("c", Fraction(1, 2))]}
    values = ExactQueries(prepare_dicts(qrels, run, ("q1",)))
    for name in ("nDCG", "nDCG@2", "DCG", "AP", "P@2"):
        value = values.value(0, parse(name))
        assert isinstance(value, Fraction) or not sympy.sympify(value).atoms(sympy.Float), (name, value)
    from tieaware import fast

    assert sympy.simplify(values.value(0, parse("nDCG")) - fast.ndcg([1, [2, 0]])) == 0


def test_err_with_one_very_long_query_beside_short_ones():
    # 1,500 ranked documents in one query and a single document in seven others: ERR's running
    # log-survival is then summed one query at a time (the padded table would be mostly padding);
    # every query must equal the exact layer's ERR
    rnd = random.Random(5)
    qrels = {"long": {f"d{i}": Fraction(rnd.choice([0, 0, 0, 1, 2, 3])) for i in range(1500)}}
    run = {"long": [(f"d{i}", Fraction(1500 - i)) for i in range(1500)]}
    for q in range(7):
        qrels[f"s{q}"] = {"a": Fraction(q % 4)}
        run[f"s{q}"] = [("a", Fraction(1))]
    p = prepare_dicts(qrels, run, list(run))
    counts = np.diff(np.append(p.query_start, p.rows))
    assert int(counts.max()) * len(counts) > 4 * p.rows + 1024  # the one-query-at-a-time path
    want = evaluate(qrels, run, "ERR ERR@20")
    for m in want.measures:
        got = engine.values(p, m)
        assert np.allclose(got, [to_float(want.per_query[q][str(m)]) for q in p.qids], rtol=0, atol=1e-12), str(m)


CONVENTION_MEASURES = (
    "nDCG(gain=binary,norel=skip)@10 AP(norel=skip,norm=capped)@10 AP(norm=k)@5 AP(norm=capped)@40 "
    "P(norm=retrieved)@30 nDCG(gain=binary,rel=2)@5 DCG(gain=binary)@10 RR(norel=1)@3 R(norel=nan)@5 "
    "ERR(norel=skip)@5 nDCG(norel=1) AP(rel=2,norel=skip)"
)


@pytest.mark.parametrize("seed", range(16))
def test_engine_evaluates_other_libraries_conventions_as_the_exact_layer(seed):
    # norm=capped|k|retrieved, gain=binary and norel=1|nan|skip in array form (recommender libraries'
    # conventions, docs/conventions.md), on every query; a skipped query is None on both paths
    import math

    qrels_text, run_text = _random_files(seed)
    qrels, run = parse_qrels(qrels_text.splitlines()), parse_run(run_text.splitlines())
    try:
        exact = evaluate(qrels, run, CONVENTION_MEASURES)
    except Exception:
        return
    prepared = prepare(read_table(io.BytesIO(qrels_text.encode()), "qrels"), read_table(io.BytesIO(run_text.encode()), "run"))
    cache: dict = {}
    for m in exact.measures:
        got = engine.values(prepared, m, cache)
        assert got is not None, m
        for q, v in zip(prepared.qids, list(got)):
            want = exact.per_query[q][str(m)]
            if want is None:
                assert v is None, (str(m), q)
            elif m.norel == "nan" and str(want) == "nan":
                assert math.isnan(v), (str(m), q)
            else:
                assert abs(v - to_float(want)) <= 1e-12, (str(m), q, v, want)
    got = evaluate_prepared(prepared, CONVENTION_MEASURES, exact=False)
    for m in exact.measures:
        want_mean = exact.mean[str(m)]
        if want_mean is None or str(want_mean) == "nan":
            continue
        assert got.mean[str(m)] == pytest.approx(to_float(want_mean), abs=1e-12), str(m)


def test_engine_leaves_ap_by_hits_and_g_max_per_query():
    p = prepare_dicts({"q1": {"a": Fraction(1)}}, {"q1": [("a", Fraction(1))]}, ["q1"])
    assert engine.values(p, parse("AP(norm=hits)@5")) is None
    assert engine.values(p, parse("ERR(g_max=4)@5")) is None


def test_err_on_a_group_of_thousands_matches_the_hypergeometric_sum():
    # One tie group of 2,000 members (6 of grade 1, 6 of grade 2, the rest 0, g_max 2), cut at 300: the engine's
    # folded subset means against E[Π (1 - R)] over a random m-subset of a member's others written out as
    # the multivariate hypergeometric sum, its weights ratios of exact binomials (math.comb, rounded once):
    # ERR = Σ_i c_i Σ_x R_i/(n·x)·E_{x-1}.
    import math

    n, c, top = 2000, {1: 6, 2: 6}, 300
    labels = [1] * c[1] + [2] * c[2] + [0] * (n - c[1] - c[2])
    judged = {f"d{i}": Fraction(x) for i, x in enumerate(labels)}
    p = prepare_dicts({"q1": judged}, {"q1": [(d, Fraction(1)) for d in judged]}, ["q1"])
    keep = {g: 1 - (2**g - 1) / 4 for g in c}
    terms = {}
    for g in c:
        others = {h: c[h] - (h == g) for h in c}
        plain = n - 1 - sum(others.values())
        for x in range(1, top + 1):
            m, ways = x - 1, math.comb(n - 1, x - 1)
            mean = math.fsum(
                math.comb(others[1], j1) * math.comb(others[2], j2) * math.comb(plain, m - j1 - j2) / ways * keep[1] ** j1 * keep[2] ** j2
                for j1 in range(min(others[1], m) + 1) for j2 in range(min(others[2], m - j1) + 1)
            )  # fmt: skip
            terms[g, x] = c[g] * (1 - keep[g]) / (n * x) * mean
    for k in (top, 50):
        want = math.fsum(v for (g, x), v in terms.items() if x <= k)
        got = engine.values(p, parse(f"ERR@{k}"))[0]
        assert got == pytest.approx(want, rel=1e-13, abs=0), k


def test_engine_rbp_near_p_one_equals_exact_layer():
    # RBP at p = 0.9999 and 0.999999999 on tied runs: the engine's power gap (1 - p taken from
    # the exact p) matches the exact layer to 1e-15 relative; p**t - p**end in doubles lost ~3e-8.
    qrels = parse_qrels(["q1 0 d1 1", "q1 0 d3 1", "q2 0 e2 1", "q2 0 e4 1", "q2 0 e5 1"])
    run = parse_run(["q1 Q0 d1 1 2.0 r", "q1 Q0 d2 2 2.0 r", "q1 Q0 d3 3 1.0 r", "q2 Q0 e1 1 3 r",
                     "q2 Q0 e2 2 2 r", "q2 Q0 e3 3 2 r", "q2 Q0 e4 4 2 r", "q2 Q0 e5 5 1 r"])
    measures = "RBP(p=0.9999) RBP(p=0.999999999) RBP(p=0.9999)@2"
    want, got = evaluate(qrels, run, measures), evaluate(qrels, run, measures, exact=False)
    for q in want.queries:
        for m, v in want.per_query[q].items():
            assert got.per_query[q][m] == pytest.approx(to_float(v), rel=1e-15, abs=0), (q, m)
