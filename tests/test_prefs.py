"""trec_eval's preference formats and measures (-R prefs, qrels_prefs, qrels_jg): readers, model, fast == reference.

The quicktest's output under --tie-break trec_eval is tests/test_trec_eval_quicktest.py; here:

- the readers: each format, and one-line errors naming file and line;
- the model: transitive closure across sub-groups, what trec_eval refuses;
- tie-aware values: fast's closed forms == the reference's enumeration, exactly, on every small case
  (exhaustive) and on hypothesis's (tieaware.strategies.preference_cases); hand-computed values;
- the command: -R's options and errors; tie-aware values equal trec_eval's where the run has no ties.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import itertools
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given

from tieaware import fast, reference
from tieaware.cli import main
from tieaware.io.prefs import parse_prefs, parse_qrels_jg, parse_qrels_prefs, read_relevance, relevance_measures
from tieaware.model.errors import TieawareError
from tieaware.model.prefs import preference_query
from tieaware.runs.prefs import evaluate_relevance
from tieaware.strategies import preference_cases

F = Fraction
DATA = Path(__file__).resolve().parent / "data" / "trec_eval"


# -- readers ------------------------------------------------------------------------------------


def test_each_format_reads_its_columns():
    (j,) = parse_prefs(["q1 u1 s1 d1 0.5"])["q1"]
    assert (j.jg, j.jsg, j.docno, j.level, j.trec_level) == ("u1", "s1", "d1", F(1, 2), 0.5)
    (j,) = parse_qrels_prefs(["q1 7 d1 2"])["q1"]
    assert (j.jg, j.jsg, j.level) == ("7", "0", F(2))
    (j,) = parse_qrels_jg(["q1 u d1 2.9"])["q1"]
    assert (j.level, j.trec_level) == (F(29, 10), 2)  # trec_eval's atol
    assert parse_prefs(["q1 u s d 0.1"])["q1"][0].trec_level != 0.1  # a C float


@pytest.mark.parametrize(
    "parse, line, message",
    [
        (parse_prefs, "q1 u s d", "f:1: expected 5 columns (qid jg jsg docno level), got 4"),
        (parse_prefs, "q1 u s d x", "f:1: level must be a decimal number"),
        (parse_qrels_prefs, "q1 0 d 1 extra", "f:1: expected 4 columns (qid iter docno label), got 5"),
        (parse_qrels_jg, "q1 u d", "f:1: expected 4 columns (qid jg docno label), got 3"),
        (parse_qrels_jg, "q1 u d nan", "f:1: label must be a decimal number"),
        (parse_prefs, "q1 u s d\x00x 1", "f:1: a NUL byte"),
    ],
)
def test_malformed_lines_name_file_and_line(parse, line, message):
    with pytest.raises(TieawareError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse([line], "f")


def test_errors_count_lines_from_one_and_name_the_duplicate():
    with pytest.raises(TieawareError, match=r"^f:3: duplicate judgement of docno 'd' for query 'q' in judgment group 'u' \(first on line 1\)$"):
        parse_qrels_jg(["q u d 1", "", "q u d 0"], "f")
    assert len(parse_qrels_jg(["q u d 1", "q v d 0"])["q"]) == 2  # another jg may judge it again


def test_read_relevance_files(tmp_path):
    path = tmp_path / "p.gz"
    path.write_bytes(gzip.compress(b"q1 u s a 1\nq1 u s b 0\n"))
    assert [j.docno for j in read_relevance(path, "prefs")["q1"]] == ["a", "b"]
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(TieawareError, match="empty: no judgement in the file"):
        read_relevance(tmp_path / "empty", "qrels_jg")
    with pytest.raises(TieawareError, match="-R must be one of"):
        read_relevance(path, "trec")


def test_measure_names():
    assert relevance_measures(["all_prefs"], "prefs").prefs[0] == "prefs_num_prefs_poss"
    assert len(relevance_measures(["prefs"], "qrels_prefs").prefs) == 6
    asked = relevance_measures(["Rprec_mult_avgjg.0.5,0.25", "map_avgjg"], "qrels_jg")
    assert asked.names() == ["map_avgjg", "Rprec_mult_avgjg_0.25", "Rprec_mult_avgjg_0.50"]
    for bad, kind in (("P_avgjg.5,5", "qrels_jg"), ("P_avgjg.0", "qrels_jg"), ("map_avgjg", "prefs"), ("prefs_simp.3", "prefs")):
        with pytest.raises(TieawareError):
            relevance_measures([bad], kind)


# -- the model ----------------------------------------------------------------------------------


def test_sub_groups_close_transitively():
    # trec_eval's get_prefs.c example: 1>2, 1>3, 2>3 in one sub-group, 2>4 in another: also 1>4, not 3 vs 4
    lines = [("u", "s1", "1", 3), ("u", "s1", "2", 2), ("u", "s1", "3", 1), ("u", "s2", "2", 5), ("u", "s2", "4", 4)]
    (jg,) = preference_query(lines).groups
    assert jg.relation and set(jg.prefs) == {("1", "2"), ("1", "3"), ("2", "3"), ("2", "4"), ("1", "4")}


def test_classes_count_every_pair_of_levels():
    # get_prefs.c: 6 documents at 3, 2, 0, 6, 0, 2 state 13 preferences
    lines = [("u", "s", d, lv) for d, lv in zip("123456", (3, 2, 0, 6, 0, 2))]
    (jg,) = preference_query(lines).groups
    assert not jg.relation and len(jg.prefs) == 13
    assert (jg.relevant, jg.nonrelevant) == (("4", "1", "2", "6"), ("3", "5"))


@pytest.mark.parametrize(
    "lines, message",
    [
        ([("u", "s1", "a", 2), ("u", "s1", "b", 1), ("u", "s2", "b", 2), ("u", "s2", "a", 1)], "contradict"),
        ([("u", "s1", "a", 1), ("u", "s2", "a", 0), ("u", "s2", "b", 2)], "level 0 in one sub-group and above 0"),
        ([("u", "s", "a", 1), ("u", "s", "a", 1)], "listed twice in sub-group"),
    ],
)
def test_what_trec_eval_refuses_is_refused(lines, message):
    with pytest.raises(TieawareError, match=message):
        preference_query(lines, "q9")


def test_contradicting_users_are_fine():
    q = preference_query([("u1", "s", "a", 1), ("u1", "s", "b", 0), ("u2", "s", "b", 1), ("u2", "s", "a", 0)])
    assert [g.prefs for g in q.groups] == [(("a", "b"),), (("b", "a"),)]


# -- tie-aware values ---------------------------------------------------------------------------


def test_hand_computed_values():
    # u1: a > b > c; a and c tied above b, and d (unjudged) below
    q = preference_query([("u1", "s", "a", F(2)), ("u1", "s", "b", F(1)), ("u1", "s", "c", F(0))])
    v = fast.prefs_measures(q, [["a", "c"], ["b"], ["d"]])
    # a>b fulfilled; a>c half the orderings; b>c never (c above b)
    assert v["prefs_num_prefs_ful"] == F(3, 2) and v["prefs_simp"] == F(1, 2)
    # R = 2 >= N = 1: one non-relevant success per relevant one added, 2 retrieved: (3/2 + 2) / (3 + 2)
    assert v["prefs_avgjg_Rnonrel"] == F(7, 10)
    # b unretrieved: a>b is implied, not counted by _ret; a>c alone
    v = fast.prefs_measures(q, [["a", "c"]])
    assert v["prefs_simp_ret"] == F(1, 2) and v["prefs_simp_imp"] == F(1, 2) and v["prefs_simp"] == F(1, 2)
    assert v["prefs_pair_ret"] == F(1, 2) and v["prefs_num_prefs_ful_ret"] == F(1, 2)


def _weak_orders(items):
    """Every ranking with ties of *items* (ordered set partitions)."""
    items = list(items)
    if not items:
        yield []
        return
    for size in range(1, len(items) + 1):
        for first in itertools.combinations(items, size):
            rest = [x for x in items if x not in first]
            for tail in _weak_orders(rest):
                yield [list(first), *tail]


def _agree(lines, ranking):
    try:
        q = preference_query(lines)
    except TieawareError:
        return 0
    try:
        got = fast.prefs_measures(q, ranking)
    except TieawareError:
        got = None  # the relation jg's kept set depends on the ordering: refused, the reference still computes it
    want = reference.prefs_measures(q, ranking)
    assert got is None or got == want, (lines, ranking)
    return 1


def test_fast_equals_reference_on_every_small_class_case():
    rankings = [r for k in range(4) for sub in itertools.combinations("abcx", k) for r in _weak_orders(sub)] + list(_weak_orders("abcx"))
    checked = 0
    for levels in itertools.product((None, 0, 1, 2), repeat=3):
        lines = [("u", "s", d, F(lv)) for d, lv in zip("abc", levels) if lv is not None]
        if lines:
            checked += sum(_agree(lines, r) for r in rankings)
    assert checked == 63 * len(rankings)


def test_fast_equals_reference_on_every_small_two_user_and_sub_group_case():
    rankings = list(_weak_orders("abc")) + [[["a", "x"]], [["b"], ["x", "c"]]]
    checked = 0
    for first, second in itertools.product(itertools.product((None, 0, 1), repeat=3), repeat=2):
        if sum(x is not None for x in second) < 2:
            continue  # a second sub-group or jg of one document states no preference
        for two in (("u", "s2"), ("v", "s")):  # a second sub-group of one jg, or a second jg
            lines = [("u", "s", d, F(lv)) for d, lv in zip("abc", first) if lv is not None]
            lines += [(*two[:1], two[1], d, F(lv)) for d, lv in zip("abc", second) if lv is not None]
            if lines:
                checked += sum(_agree(lines, r) for r in rankings)
    assert checked > 5000


@given(preference_cases())
def test_fast_equals_reference_hypothesis(case):
    lines, ranking = case
    _agree(lines, ranking)


def test_float_mode_is_close():
    q = preference_query([("u", "s", d, F(lv)) for d, lv in zip("abcd", (2, 1, 0, 0))])
    exact = fast.prefs_measures(q, [["a", "c"], ["b", "d"]])
    floats = fast.prefs_measures(q, [["a", "c"], ["b", "d"]], exact=False)
    assert all(isinstance(floats[m], float) and abs(floats[m] - exact[m]) < 1e-12 for m in exact)


def test_straddling_non_relevant_ties_in_sub_group_jgs():
    # two sub-groups, 1 relevant, 2 non-relevant tied: which one is kept depends on the ordering, each half the time
    lines = [("u", "s1", "r", F(1)), ("u", "s1", "n1", F(0)), ("u", "s2", "r", F(1)), ("u", "s2", "n2", F(0)), ("u", "s2", "o", F(2))]
    q = preference_query(lines)
    for ranking in ([["r"], ["n1", "n2"]], [["n1", "o", "n2"], ["r"]], [["n1", "r", "n2", "o"]]):
        assert fast.prefs_measures(q, ranking) == reference.prefs_measures(q, ranking), ranking
    # some orderings keep no preference (0/0 zeroes trec_eval's query) and others do: refused, the reference computes it
    # (u0 keeps d0 or d3 with d2: d2 > d3 is a preference, d0 is in none)
    lines = [("u0", "s0", "d0", F(0)), ("u0", "s1", "d3", F(0)), ("u0", "s1", "d2", F(1))]
    lines += [("u1", "s0", d, F(lv)) for d, lv in (("d3", 0), ("d5", 3), ("d2", 0), ("d1", 0), ("d0", 0))]
    ranking = [["d2"], ["d1", "d0", "d3"]]
    q = preference_query(lines)
    with pytest.raises(TieawareError, match="some orderings keep no preference"):
        fast.prefs_measures(q, ranking)
    assert reference.prefs_measures(q, ranking)["prefs_avgjg_Rnonrel"] == F(1, 4)
    # ... unless another jg's 0/0 zeroes the query in every ordering: then it is 0
    q = preference_query(lines + [("u2", "s0", "d9", F(0))])
    assert fast.prefs_measures(q, ranking) == reference.prefs_measures(q, ranking)


def test_judgment_groups_average_the_ordinary_measures():
    judged = parse_qrels_jg(["q u1 a 1", "q u1 b 0", "q u2 b 1"])
    run = {"q": [("a", F(2)), ("b", F(2)), ("c", F(1))]}
    asked = relevance_measures(["map_avgjg", "P_avgjg.1,2"], "qrels_jg")
    v = evaluate_relevance(judged, run, "qrels_jg", asked)["q"]
    # u1: a relevant, tied with b: AP (1 + 1/2)/2 = 3/4, P@1 1/2; u2: b relevant: the same
    assert v == {"map_avgjg": F(3, 4), "P_avgjg_1": F(1, 2), "P_avgjg_2": F(1, 2)}
    trec = evaluate_relevance(judged, run, "qrels_jg", asked, tie_break="trec_eval")["q"]
    assert trec == {"map_avgjg": 0.75, "P_avgjg_1": 0.5, "P_avgjg_2": 0.5}  # b then a (docno descending) for each user
    ref = evaluate_relevance(judged, run, "qrels_jg", asked, layer="reference")["q"]
    assert ref == v


# -- the command --------------------------------------------------------------------------------


def _eval(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["eval", *map(str, argv)])
    return code, out.getvalue()


@pytest.fixture
def prefs_files(tmp_path):
    for name in ("prefs.test", "prefs.results.test"):
        (tmp_path / name).write_bytes(gzip.decompress((DATA / "quicktest" / f"{name}.gz").read_bytes()))
    return tmp_path / "prefs.test", tmp_path / "prefs.results.test"


def test_untied_run_prints_trec_eval_numbers_tie_aware_too(prefs_files):
    # prefs.results.test has no tied scores: the tie-aware values print trec_eval's digits
    _, tied = _eval(*prefs_files, "--format", "trec", "-q", "-R", "prefs", "-m", "all_prefs")
    _, trec = _eval(*prefs_files, "--format", "trec", "-q", "-R", "prefs", "--tie-break", "trec_eval")
    assert tied == trec and len(tied.splitlines()) == 352


def test_ties_change_the_tie_aware_value(tmp_path):
    (tmp_path / "p").write_text("q u s a 1\nq u s b 0\n")
    (tmp_path / "r").write_text("q Q0 a 1 5 run\nq Q0 b 2 5 run\n")
    _, tied = _eval(tmp_path / "p", tmp_path / "r", "--format", "trec", "-R", "prefs", "-m", "prefs_simp")
    _, trec = _eval(tmp_path / "p", tmp_path / "r", "--format", "trec", "-R", "prefs", "-m", "prefs_simp", "--tie-break", "trec_eval")
    assert tied == "prefs_simp            \tall\t0.5000\n" and trec == "prefs_simp            \tall\t1.0000\n"
    _, summed = _eval(tmp_path / "p", tmp_path / "r", "--format", "trec", "-R", "prefs", "-m", "prefs_num_prefs_ful", "-m", "runid num_q")
    assert summed.splitlines() == ["runid                 \tall\trun", "num_q                 \tall\t1", "prefs_num_prefs_ful   \tall\t0.5000"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--format", "table"], "-R needs --format trec"),
        (["--format", "trec", "-M", "5"], "-M with -R prefs is computed under --tie-break trec_eval only"),
        (["--format", "trec", "-m", "map"], "-m map is not a measure of -R prefs"),
    ],
)
def test_command_errors(prefs_files, capsys, extra, message):
    assert main(["eval", *map(str, prefs_files), "-R", "prefs", *extra]) != 0
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_malformed_prefs_file_one_line(tmp_path, capsys):
    (tmp_path / "p").write_text("q u s a 1\nq u s b\n")
    (tmp_path / "r").write_text("q Q0 a 1 5 run\n")
    assert main(["eval", str(tmp_path / "p"), str(tmp_path / "r"), "--format", "trec", "-R", "prefs"]) != 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'p'}:2: expected 5 columns" in err and err.count("\n") == 1
