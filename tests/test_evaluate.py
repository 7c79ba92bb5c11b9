"""evaluate() and compute(): per-query values, exact means, conventions, peers."""

import math
from fractions import Fraction

import pytest
import sympy

from tieaware import TieawareError, fast, reference
from tieaware.runs.evaluate import compute, evaluate, exact_mean, measure_list
from tieaware.model.names import parse
from tieaware.io.trec import parse_qrels, parse_run, read_sample, run_ranking, trec_eval_ranking

F = Fraction

# A hand-checked example.  q1 ranks a (3), then b and c tied (2.0 == 2), then d (1).
# Labels: a=1, b=0, c=2, d unjudged=0; x is judged relevant but not retrieved.
# q2 ties a (1) and b (unjudged) at 0.5 == 0.50.  q3 has qrels but no run
# (skipped, as trec_eval without -c); q9 is in the run without qrels (skipped).
QRELS = parse_qrels(["q1 0 a 1", "q1 0 b 0", "q1 0 c 2", "q1 0 x 1", "q2 0 a 1", "q3 0 z 1"])
RUN = parse_run(
    [
        "q1 Q0 a 1 3 r",
        "q1 Q0 b 2 2.0 r",
        "q1 Q0 c 3 2 r",
        "q1 Q0 d 4 1 r",
        "q2 Q0 a 1 0.5 r",
        "q2 Q0 b 2 0.50 r",
        "q9 Q0 a 1 1 r",
    ]
)
MEASURES = "P@2 R@2 F1@2 AP RR nDCG@1 P(rel=2)@2 R(rel=2)@2"

# Worked by hand.  Tie-aware: each of the 2 orderings of every tie is equally likely.
# trec_eval: ties by docno descending, so q1 -> a, c, b, d = [1, 2, 0, 0]; q2 -> b, a = [0, 1].
# q1, num_rel(rel=1) = |{a, c, x}| = 3, num_rel(rel=2) = |{c}| = 1.
#   P@2: rank 1 relevant, rank 2 is c with prob 1/2 -> (1 + 1/2)/2 = 3/4;   trec 2/2 = 1
#   R@2: (3/2)/3 = 1/2;                                                       trec 2/3
#   F1@2: 2·(3/2)/(2+3) = 3/5;                                                 trec 2·2/5 = 4/5
#   AP: a,b,c,d -> (1 + 2/3)/3 = 5/9; a,c,b,d -> (1 + 1)/3 = 2/3; mean 11/18;  trec 2/3
#   RR: 1;                                                                     trec 1
#   nDCG@1: ideal [2,1,1,0] -> IDCG@1 = 2; DCG@1 = 1 -> 1/2;                   trec 1/2
#   P(rel=2)@2: c at rank 2 with prob 1/2 -> (1/2)/2 = 1/4;                   trec 1/2
#   R(rel=2)@2: (1/2)/1 = 1/2;                                                trec 1
# q2, num_rel = 1 (a), nobody has label 2.
#   P@2: 1/2 (trec 1/2); R@2: 1 (trec 1); F1@2: 2·1/(2+1) = 2/3 (trec 2/3)
#   AP: a,b -> 1; b,a -> 1/2; mean 3/4;           trec 1/2
#   RR: same as AP here: 3/4;                     trec 1/2
#   nDCG@1: IDCG@1 = 1, DCG@1 = 1/2 -> 1/2;       trec 0
#   P(rel=2)@2 = 0, R(rel=2)@2 = 0 (num_rel 0)    trec 0, 0
HAND = {
    "q1": {"P@2": F(3, 4), "R@2": F(1, 2), "F1@2": F(3, 5), "AP": F(11, 18), "RR": F(1), "nDCG@1": F(1, 2),
           "P(rel=2)@2": F(1, 4), "R(rel=2)@2": F(1, 2)},
    "q2": {"P@2": F(1, 2), "R@2": F(1), "F1@2": F(2, 3), "AP": F(3, 4), "RR": F(3, 4), "nDCG@1": F(1, 2),
           "P(rel=2)@2": F(0), "R(rel=2)@2": F(0)},
}
HAND_TREC = {
    "q1": {"P@2": F(1), "R@2": F(2, 3), "F1@2": F(4, 5), "AP": F(2, 3), "RR": F(1), "nDCG@1": F(1, 2),
           "P(rel=2)@2": F(1, 2), "R(rel=2)@2": F(1)},
    "q2": {"P@2": F(1, 2), "R@2": F(1), "F1@2": F(2, 3), "AP": F(1, 2), "RR": F(1, 2), "nDCG@1": F(0),
           "P(rel=2)@2": F(0), "R(rel=2)@2": F(0)},
}
# Means over q1, q2, by hand: P@2 (3/4+1/2)/2 = 5/8, MAP (11/18+3/4)/2 = 49/72, MRR 7/8,
# F1@2 (3/5+2/3)/2 = 19/30; trec order: P@2 3/4, MAP 7/12, MRR 3/4, F1@2 11/15, nDCG@1 1/4.
HAND_MEANS = {"P@2": F(5, 8), "R@2": F(3, 4), "F1@2": F(19, 30), "AP": F(49, 72), "RR": F(7, 8), "nDCG@1": F(1, 2),
              "P(rel=2)@2": F(1, 8), "R(rel=2)@2": F(1, 4)}
HAND_TREC_MEANS = {"P@2": F(3, 4), "R@2": F(5, 6), "F1@2": F(11, 15), "AP": F(7, 12), "RR": F(3, 4),
                   "nDCG@1": F(1, 4), "P(rel=2)@2": F(1, 4), "R(rel=2)@2": F(1, 2)}


@pytest.mark.parametrize("layer", ["fast", "reference"])
def test_hand_example(layer):
    ev = evaluate(QRELS, RUN, MEASURES, layer=layer)
    assert ev.queries == ("q1", "q2")
    assert ev.skipped_qrels == ("q3",) and ev.skipped_run == ("q9",)
    assert ev.per_query == HAND
    assert ev.mean == HAND_MEANS
    assert all(type(v) is Fraction for v in ev.mean.values())


def test_hand_example_in_trec_eval_order():
    ev = evaluate(QRELS, RUN, MEASURES, tie_break="trec_eval")
    assert ev.per_query == HAND_TREC
    assert ev.mean == HAND_TREC_MEANS


def test_symbolic_ndcg_and_its_exact_mean():
    ev = evaluate(QRELS, RUN, "nDCG")
    L = sympy.log(2) / sympy.log(3)  # 1/log2(3), the discount of rank 2
    # q1: DCG = 1 + (0+2)/2·(1/log2 3 + 1/log2 4) = 3/2 + L; IDCG of [2,1,1,0] = 2 + L + 1/2.
    # q2: DCG = (1/2)(1 + L); IDCG = 1.
    q1, q2 = (3 / sympy.Integer(2) + L) / (5 / sympy.Integer(2) + L), (1 + L) / 2
    assert sympy.simplify(ev.per_query["q1"]["nDCG"] - q1) == 0
    assert sympy.simplify(ev.per_query["q2"]["nDCG"] - q2) == 0
    assert sympy.simplify(ev.mean["nDCG"] - (q1 + q2) / 2) == 0
    # trec_eval order on q2 is b, a: DCG = L.
    trec = evaluate(QRELS, RUN, "nDCG", tie_break="trec_eval")
    assert sympy.simplify(trec.per_query["q2"]["nDCG"] - L) == 0


def test_float_mode_agrees_with_exact():
    exact = evaluate(QRELS, RUN, MEASURES + " nDCG")
    approx = evaluate(QRELS, RUN, MEASURES + " nDCG", exact=False)
    for m, value in approx.mean.items():
        assert type(value) is float
        assert value == pytest.approx(float(exact.mean[m].evalf(30)) if m == "nDCG" else float(exact.mean[m]), abs=1e-12)


def test_sample_fast_equals_reference_on_small_cutoffs():
    # The reference enumerates whole orderings, so keep it to the smallest sample query.
    qrels, run = read_sample()
    small = {"q3": run["q3"]}
    from tieaware.reference import ordering_limit

    with ordering_limit(10**7):
        ref = evaluate(qrels, small, "P@5 AP RR", layer="reference")
    assert ref.per_query == evaluate(qrels, small, "P@5 AP RR").per_query


# -- compute ----------------------------------------------------------------------

RANKING = [2, [0, 1, 0], 1]
IDEAL = [2, 1, 1, 1, 0]  # one judged relevant doc not retrieved


@pytest.mark.parametrize(
    "name, direct",
    [
        ("P@3", lambda L: L.precision(RANKING, 3)),
        ("P(rel=2)@3", lambda L: L.precision(RANKING, 3, rel=2)),
        ("R@3", lambda L: L.recall(RANKING, 3, 4)),
        ("R(rel=2)@3", lambda L: L.recall(RANKING, 3, 1, rel=2)),
        ("F1@3", lambda L: L.f1(RANKING, 3, 4)),
        ("AP", lambda L: L.average_precision(RANKING, None, 4)),
        ("AP@2", lambda L: L.average_precision(RANKING, 2, 4)),
        ("RR@1", lambda L: L.reciprocal_rank(RANKING, 1)),
        ("RR(rel=2)", lambda L: L.reciprocal_rank(RANKING, rel=2)),
        ("nDCG@3", lambda L: L.ndcg(RANKING, 3, IDEAL)),
        ("nDCG(dcg='exp-log2')", lambda L: L.ndcg(RANKING, None, IDEAL, gain="exp2")),
        ("DCG@2", lambda L: L.dcg(RANKING, 2)),
    ],
)
@pytest.mark.parametrize("layer", ["fast", "reference"])
def test_compute_dispatches_to_the_layer(name, direct, layer):
    module = fast if layer == "fast" else reference
    assert compute(parse(name), RANKING, ideal=IDEAL, layer=layer) == direct(module)
    assert compute(name, RANKING, ideal=IDEAL, layer=layer, exact=False) == pytest.approx(
        float(sympy.sympify(direct(module))), abs=1e-12
    )


def test_compute_num_rel_overrides_ideal():
    # AP of [1, 0] with 3 relevant in all: 1/3, by hand.
    assert compute("AP", [1, 0], num_rel=3, ideal=[1]) == F(1, 3)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: compute("RBO", [1]), "measure cannot be computed on one run ranking (RBO compares two rankings; use `tieaware rbo`), got 'RBO'"),
        (lambda: compute("AP", [1], layer="slow"), "layer must be one of ('fast', 'reference'), got 'slow'"),
        (lambda: compute("AP", [1], exact="yes"), "exact must be True or False, got 'yes'"),
        (lambda: compute("AP", [1], ideal=[1, "x"]), "ideal[1] must be a finite decimal or p/q number, got 'x'"),
        (lambda: compute("Q@3", [1]), "measure is not a known measure"),
        (lambda: evaluate(QRELS, RUN, "AP RBO"), "measure cannot be computed on one run ranking"),
        (lambda: evaluate(QRELS, RUN, "AP", layer="slow"), "layer must be one of ('fast', 'reference'), got 'slow'"),
        (lambda: evaluate(QRELS, RUN, "AP", tie_break="random"), "tie_break must be None (tie-aware) or a rule or library preset: input, reverse-input, docno-asc, docno-desc, pessimistic, optimistic, trec_eval, pytrec_eval, ir_measures.pytrec_eval, ir_measures.msmarco, ir_measures.trectools, mteb, sentence-transformers, pytorch-ignite, got 'random'"),
        (lambda: evaluate(QRELS, RUN, 5), "measures must be a string such as 'AP nDCG@10' or a list of measures, got 5"),
        (lambda: evaluate(QRELS, RUN, []), "measures names no measure, got []"),
        (lambda: evaluate(QRELS, {"q9": RUN["q9"]}, "AP"), "run has no query that appears in the qrels (3 judged queries), got ['q9']"),
        (lambda: exact_mean([]), "values must not be empty, got []"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(TieawareError) as info:
        call()
    assert str(info.value).startswith(message)


def test_reference_limit_error_names_the_query():
    run = {"q1": [(f"d{i}", F(1)) for i in range(12)]}
    qrels = {"q1": {f"d{i}": F(i % 2) for i in range(12)}}
    with pytest.raises(TieawareError, match=r"^query 'q1': ranking has 924 orderings"):
        from tieaware.reference import ordering_limit

        with ordering_limit(100):
            evaluate(qrels, run, "AP", layer="reference")


def test_measure_list_forms():
    assert [str(m) for m in measure_list("map P_5 AP")] == ["AP", "P@5"]
    assert measure_list(parse("AP")) == (parse("AP"),)
    assert [str(m) for m in measure_list(["RR@10", parse("nDCG@10")])] == ["RR@10", "nDCG@10"]


def test_exact_mean_kinds():
    assert exact_mean([F(1, 2), 1]) == F(3, 4)
    assert exact_mean([0.5, 0.25]) == 0.375
    L = sympy.log(2) / sympy.log(3)
    assert exact_mean([L, 1 - L]) == F(1, 2)  # a symbolic sum that cancels comes back as a Fraction
    assert type(exact_mean([L, 1 - L])) is Fraction


# -- peers --------------------------------------------------------------------------

TREC_NAMES = {"P@5": "P_5", "P@10": "P_10", "R@10": "recall_10", "AP": "map", "RR": "recip_rank",
              "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg"}


def _floats(qrels, run):
    return (
        {q: {d: int(v) for d, v in docs.items()} for q, docs in qrels.items()},
        {q: {d: float(s) for d, s in docs} for q, docs in run.items()},
    )


@pytest.mark.peers
@pytest.mark.parametrize("data", ["hand", "sample"])
def test_trec_eval_order_matches_pytrec_eval(data):
    # pytrec_eval is trec_eval's C code: on the untied ranking in trec_eval's
    # order our (tie-oblivious) values must be trec_eval's, per query.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = (QRELS, RUN) if data == "hand" else read_sample()
    ours = evaluate(qrels, run, " ".join(TREC_NAMES), tie_break="trec_eval", exact=True)
    q, r = _floats(qrels, run)
    theirs = pytrec_eval.RelevanceEvaluator(q, set(TREC_NAMES.values())).evaluate(r)
    assert sorted(theirs) == list(ours.queries)
    for qid in ours.queries:
        for m, t in TREC_NAMES.items():
            value = ours.per_query[qid][m]
            value = float(value) if isinstance(value, Fraction) else float(value.evalf(30))
            assert value == pytest.approx(theirs[qid][t], abs=1e-12), (qid, m)


@pytest.mark.peers
def test_tie_aware_ndcg_matches_sklearn():
    # scikit-learn's ndcg_score(ignore_ties=False) averages DCG over tied
    # scores: the tie-aware value.  Judged docs that were not retrieved are
    # appended below every retrieved score so that sklearn's ideal sees them;
    # at cutoff 10 (every sample query retrieves >= 15 docs) they never enter its DCG.
    metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = read_sample()
    ours = evaluate(qrels, run, "nDCG@10")
    for qid, docs in run.items():
        retrieved = {d for d, _ in docs}
        low = min(s for _, s in docs) - 1
        y_score = [float(s) for _, s in docs] + [float(low)] * sum(1 for d in qrels[qid] if d not in retrieved)
        y_true = [float(qrels[qid].get(d, 0)) for d, _ in docs] + [float(v) for d, v in qrels[qid].items() if d not in retrieved]
        theirs = metrics.ndcg_score([y_true], [y_score], k=10, ignore_ties=False)
        assert float(ours.per_query[qid]["nDCG@10"].evalf(30)) == pytest.approx(theirs, abs=1e-12), qid


def test_tie_free_run_gives_trec_eval_values():
    # Without ties both columns must agree exactly.
    qrels, run = read_sample()
    untied = {q: [(d, F(-i)) for i, d in enumerate(d for d, _ in docs)] for q, docs in run.items()}
    a = evaluate(qrels, untied, "P@5 AP RR nDCG@10")
    b = evaluate(qrels, untied, "P@5 AP RR nDCG@10", tie_break="trec_eval")
    assert a.per_query == b.per_query and a.mean == b.mean
    for q, docs in untied.items():
        assert run_ranking(docs, qrels[q]) == trec_eval_ranking(docs, qrels[q])


def test_rbp_and_err_by_name():
    from fractions import Fraction as F

    from tieaware.runs.evaluate import compute

    # RBP(p=1/2) of [[1, 0], 1]: orderings 101 -> (1/2)(1 + 1/4) = 5/8, 011 -> (1/2)(1/2 + 1/4) = 3/8.
    assert compute("RBP(p=0.5)", [[1, 0], 1]) == F(1, 2)
    assert compute("RBP(p=0.5)@1", [[1, 0], 1]) == F(1, 4)  # rank 1 relevant in half the orderings
    # ERR with g_max from the judged labels: ideal max 2 -> R(1) = 1/4, R(2) = 3/4.
    # [2, 1]: 3/4 + (1/2)(1/4)(1/4) = 25/32.
    assert compute("ERR", [2, 1], ideal=[2, 1, 0]) == F(25, 32)
    # Without ideal, g_max is the ranking's best label: [1]: R(1) = 1/2.
    assert compute("ERR@5", [1]) == F(1, 2)
    for layer in ("fast", "reference"):
        assert compute("RBP(p=0.8,rel=2)@3", [[2, 0, 1], 2], layer=layer) == compute(
            "RBP(p=0.8,rel=2)@3", [[2, 0, 1], 2], layer="reference"
        )


def test_rbp_name_prints_like_ir_measures():
    from tieaware.model.names import parse

    assert str(parse("RBP(p=0.8)")) == "RBP(p=0.8)"
    assert str(parse("RBP(p=1/3)")) == "RBP(p=1/3)"
