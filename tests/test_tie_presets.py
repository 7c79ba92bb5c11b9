"""--tie-break presets reproduce each library's number exactly, on runs where docno order and input order differ."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

import tieaware
from tieaware.cli import main
from tieaware.io.tie_break import broken_docnos, single
from tieaware.io.trec import trec_eval_order
from tieaware.model.errors import TieawareError
from tieaware.model.tie_presets import NAMES, PRESETS, RULES, preset


def _run(seed: int, queries: int = 6):
    """Qrels and run dicts: tie groups of 2 to 40 documents whose docnos are shuffled against their input order,
    and scores that differ only beyond float32's precision."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(1, queries + 1):
        n = rng.choice([3, 4, 9, 17, 40])
        names = list(dict.fromkeys(f"d{rng.randrange(10**5):05d}" for _ in range(n)))
        rng.shuffle(names)
        levels = [3.0, 2.0, 1.0 + 2**-30, 1.0, 0.5]
        run[str(q)] = {d: rng.choice(levels) for d in names}
        qrels[str(q)] = {d: rng.choice([0, 0, 0, 1, 2]) for d in names if rng.random() < 0.8}
        qrels[str(q)].setdefault(names[-1], 1)
    return qrels, run


def _by_hand(qrels, run, rule, scores):
    """The preset's order, written out again the plain way (a cmp-free reading of the rule)."""
    out = {}
    for q, docs in run.items():
        items = list(docs.items())
        key = (lambda s: single(s)) if scores == "float32" else (lambda s: s)
        pos = {d: i for i, (d, _) in enumerate(items)}
        label = lambda d: max(qrels[q].get(d, 0), 0)  # noqa: E731
        second = {
            "input": lambda d: (pos[d],),
            "reverse-input": lambda d: (-pos[d],),
            "docno-asc": lambda d: tuple(d.encode()),
            "docno-desc": lambda d: tuple(-b for b in d.encode()) + (1,),  # a longer docno is larger: (1,) after the bytes
            "pessimistic": lambda d: (label(d), pos[d]),
            "optimistic": lambda d: (-label(d), pos[d]),
        }[rule]
        out[q] = [d for d, _ in sorted(items, key=lambda e: (-key(e[1]), second(e[0])))]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_preset_orders_as_its_rule_says(name):
    p = preset(name)
    for seed in range(3):
        qrels, run = _run(seed)
        want = _by_hand(qrels, run, p.rule, p.scores)
        for q, docs in run.items():
            assert broken_docnos(list(docs.items()), {d: Fraction(x) for d, x in qrels[q].items()}, name) == want[q]


def test_docno_desc_on_float32_scores_is_trec_eval_order():
    for seed in range(5):
        _, run = _run(seed)
        for docs in run.values():
            items = [(d, Fraction(s)) for d, s in docs.items()]
            assert broken_docnos(items, {}, "docno-desc") != [] and PRESETS["trec_eval"].rule == "docno-desc"
            generic = sorted(items, key=lambda e: e[0], reverse=True)
            generic.sort(key=lambda e: single(e[1]), reverse=True)
            assert [d for d, _ in generic] == trec_eval_order(items)


@pytest.mark.parametrize("name", NAMES)
def test_every_path_gives_the_same_number(name):
    """Dicts exact, the float engine, and the column reader in two processes: one value per preset."""
    qrels, run = _run(11, queries=5)
    measures = "RR P@3 AP nDCG@10"
    exact = tieaware.evaluate(qrels, run, measures, tie_break=name)
    floats = tieaware.evaluate(qrels, run, measures, tie_break=name, exact=False)
    columns = tieaware.evaluate(qrels, run, measures, tie_break=name, jobs=2)
    for m in exact.mean:
        assert columns.mean[m] == exact.mean[m]
        assert floats.mean[m] == pytest.approx(float(exact.mean[m]), abs=1e-12)
        for q in exact.per_query:
            assert columns.per_query[q][m] == exact.per_query[q][m]


def test_the_rules_differ_where_docno_and_input_order_differ():
    qrels = {"1": {"c": 1, "a": 0, "d": 0, "b": 0}}
    run = {"1": {"c": 1.0, "a": 1.0, "d": 1.0, "b": 1.0}}  # input order c a d b
    rr = {r: tieaware.evaluate(qrels, run, "RR", tie_break=r).mean["RR"] for r in RULES}
    assert rr == {
        "input": 1, "reverse-input": Fraction(1, 4), "docno-asc": Fraction(1, 3), "docno-desc": Fraction(1, 2),
        "optimistic": 1, "pessimistic": Fraction(1, 4),
    }  # fmt: skip


def test_a_bad_preset_names_every_choice():
    with pytest.raises(TieawareError, match="tie_break must be None .*mteb, sentence-transformers"):
        tieaware.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, "RR", tie_break="galago")


# -- the peers, run here: the preset gives the library's own number ------------------------------------


def test_pytrec_eval_preset_is_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for seed in range(4):
        qrels, run = _run(seed)
        got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P_3", "map", "ndcg_cut_10"}).evaluate(run)
        ours = tieaware.evaluate(qrels, run, "RR P@3 AP nDCG@10", tie_break="pytrec_eval", exact=False)
        for q, values in got.items():
            for theirs, m in (("recip_rank", "RR"), ("P_3", "P@3"), ("map", "AP"), ("ndcg_cut_10", "nDCG@10")):
                assert ours.per_query[q][m] == pytest.approx(values[theirs], abs=1e-9), (seed, q, m)


@pytest.mark.parametrize(
    "provider, measure, preset_name",
    [("pytrec_eval", "RR", "ir_measures.pytrec_eval"), ("msmarco", "RR@10", "ir_measures.msmarco"), ("trectools", "RR", "ir_measures.trectools")],
)
def test_ir_measures_providers_presets(provider, measure, preset_name):
    ir_measures = pytest.importorskip("ir_measures")
    try:
        module = getattr(ir_measures, provider)
        module.iter_calc([ir_measures.parse_measure(measure)], {"1": {"a": 1}}, {"1": {"a": 1.0}})
    except Exception as exc:  # a provider whose own library is missing
        pytest.skip(f"ir_measures' {provider} provider unavailable: {exc}")
    for seed in range(4):
        qrels, run = _run(seed)
        theirs = {r.query_id: r.value for r in module.iter_calc([ir_measures.parse_measure(measure)], qrels, run)}
        ours = tieaware.evaluate(qrels, run, measure, tie_break=preset_name)
        for q, v in theirs.items():
            assert float(ours.per_query[q][measure]) == pytest.approx(v, abs=1e-9), (seed, q)


# -- the command line: the library's number beside the tie-aware value and its range ------------------


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 c 1\nq1 0 a 0\nq1 0 d 0\nq1 0 b 0\nq2 0 b 1\nq2 0 a 0\n")
    (tmp_path / "r.txt").write_text("q1 Q0 c 1 1.0 r\nq1 Q0 a 2 1.0 r\nq1 Q0 d 3 1.0 r\nq1 Q0 b 4 1.0 r\nq2 Q0 c 1 2.0 r\nq2 Q0 b 2 1.0 r\nq2 Q0 a 3 1.0 r\n")
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt")


def test_cli_eval_tie_break_table_shows_the_library_value_the_tie_aware_value_and_its_range(files, capsys):
    assert main(["eval", *files, "-m", "RR", "--tie-break", "sentence-transformers"]) == 0
    out = capsys.readouterr().out
    head, row = [line.split() for line in out.splitlines()[1:4:2]]
    assert head[:7] == ["measure", "tie-aware", "exact", "sentence-transformers", "order", "difference", "min"]
    # q1: c a d b tied, docno ascending puts c third; q2: c above, then a, b: b third
    assert row[:4] == ["RR", "0.4688", "15/32", "0.3333"] and row[5:7] == ["0.2917", "0.7500"]
    assert "sentence-transformers 6.2.0" in out


def test_cli_eval_tie_break_json_and_trec_layout(files, capsys):
    assert main(["eval", *files, "-m", "RR", "--tie-break", "mteb", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tie_break"] == "mteb" and data["mean"]["RR"]["tie_break_order"]["exact"] == "1/2"
    assert data["spread"]["RR"]["min_mean"]["exact"] == "7/24"
    assert main(["eval", *files, "-m", "RR", "--tie-break", "input", "--format", "trec"]) == 0
    assert capsys.readouterr().out.split() == ["recip_rank", "all", "0.7500"]


def test_cli_eval_rejects_an_unknown_preset(files, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", *files, "--tie-break", "galago"])
    assert exit_.value.code == 2


def test_cli_compare_tie_break_puts_each_runs_library_number_beside_the_comparison(files, tmp_path, capsys):
    qrels, run_a = files
    run_b = tmp_path / "b.txt"
    run_b.write_text("q1 Q0 c 1 3.0 r\nq1 Q0 a 2 1.0 r\nq2 Q0 a 3 1.0 r\nq2 Q0 b 2 1.0 r\n")
    assert main(["compare", qrels, run_a, str(run_b), "-m", "RR", "--tie-break", "sentence-transformers", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    broken = data["measures"]["RR"]["tie_break"]
    assert data["tie_break"] == "sentence-transformers"
    # A: q1 c third (docno ascending), q2 b third; B: q1 c alone on top, q2 a before b
    assert (broken["mean_a"]["exact"], broken["mean_b"]["exact"], broken["difference"]["exact"]) == ("1/3", "3/4", "-5/12")
    assert data["measures"]["RR"]["mean_a"]["exact"] == "15/32"  # the tie-aware comparison is unchanged
    assert main(["compare", qrels, run_a, str(run_b), "-m", "RR", "--tie-break", "mteb"]) == 0
    out = capsys.readouterr().out
    assert "A (mteb)" in out and "A-B (mteb)" in out


def test_cli_compare_tie_break_is_for_two_runs(files, tmp_path, capsys):
    qrels, run_a = files
    assert main(["compare", qrels, run_a, run_a, run_a, "--tie-break", "mteb"]) == 2
    assert "--tie-break applies to two runs" in capsys.readouterr().err
