"""Measure names: case-insensitive as in ir_measures, nearest-name suggestions, parameters checked at parse time."""

from __future__ import annotations

import re

import pytest

from tieaware.cli import main
from tieaware.model.errors import TieawareError
from tieaware.model.names import parse, parse_list


@pytest.mark.parametrize(
    "spelling, canonical",
    [("p@5", "P@5"), ("mrr", "RR"), ("MAP", "AP"), ("map", "AP"), ("ndcg@10", "nDCG@10"), ("Ndcg_Cut_10", "nDCG@10"),
     ("rbp(p=0.5)", "RBP(p=0.5)"), ("err@20", "ERR@20"), ("f1@3", "F1@3"), ("p_5", "P@5")],
)
def test_names_are_case_insensitive(spelling, canonical):
    assert str(parse(spelling)) == canonical


def test_a_list_in_any_case_means_the_same_measures():
    assert parse_list("p@5 mrr map ndcg@10") == parse_list("P@5 RR AP nDCG@10")


@pytest.mark.parametrize("typo, suggestion", [("nDGC@10", "nDCG"), ("recip_rnk", "recip_rank"), ("MPR", "MRR")])
def test_an_unknown_name_suggests_the_nearest(typo, suggestion):
    with pytest.raises(TieawareError, match=f"did you mean '{suggestion}'") as info:
        parse(typo)
    assert repr(typo) in str(info.value)


def test_nothing_close_suggests_nothing():
    with pytest.raises(TieawareError) as info:
        parse("zzzzzz@3")
    assert "did you mean" not in str(info.value)


@pytest.mark.parametrize("measure", ["RBP(p=1.5)", "RBP(p=0)", "RBP(p=1)", "RBO(p=-0.1)"])
def test_p_outside_0_1_is_refused_when_parsed(measure):
    with pytest.raises(TieawareError, match=r"needs p strictly between 0 and 1") as info:
        parse(measure)
    assert repr(measure) in str(info.value)



@pytest.mark.parametrize("measure", ["ERR(g_max=0)@20", "ERR(g_max=-1)@20", "ERR(g_max=2.5)@20"])
def test_g_max_below_1_or_not_an_int_is_refused_when_parsed(measure):
    with pytest.raises(TieawareError, match=r"needs g_max an int >= 1") as info:
        parse(measure)
    assert repr(measure) in str(info.value)


@pytest.mark.parametrize("measure, takes", [("AP(norm=retrieved)@5", "AP takes norm="), ("P(norm=hits)@5", "P takes norm="), ("nDCG(norm=k)@5", "nDCG takes")])
def test_a_norm_another_measure_takes_is_refused(measure, takes):
    # P(norm=retrieved)@k and AP(norm=capped)@k are each their own measure's convention only (docs/conventions.md)
    with pytest.raises(TieawareError, match=re.escape(takes)) as info:
        parse(measure)
    assert repr(measure) in str(info.value)


@pytest.mark.parametrize(
    "measure, why",
    [
        ("nDCG(gain=binary,dcg=exp-log2)@10", "has gain=binary and dcg='exp-log2': choose one gain"),
        ("DCG(dcg=exp-log2,gain=binary)", "has gain=binary and dcg='exp-log2': choose one gain"),
        ("nDCG(rel=2)@10", "takes rel only with gain=binary"),
        ("AP(norm=capped)", "needs a cutoff with norm=capped"),
        ("AP(norm=k)", "needs a cutoff with norm=k"),
    ],
)
def test_parameters_that_contradict_each_other_are_refused(measure, why):
    with pytest.raises(TieawareError, match=re.escape(why)) as info:
        parse(measure)
    assert repr(measure) in str(info.value)

def test_cli_bad_p_names_the_measure_not_a_query(capsys):
    code = main(["eval", "-m", "AP RBP(p=1.5)"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip() == (
        "tieaware eval: error: measure needs p strictly between 0 and 1 (p=1.5), got 'RBP(p=1.5)'"
    )
    assert "query" not in err and len(err.strip().splitlines()) == 1


def test_cli_unknown_name_suggests(capsys):
    code = main(["eval", "-m", "nDGC@10"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "did you mean 'nDCG'?" in err and len(err.strip().splitlines()) == 1


def test_cli_lower_case_names_evaluate(capsys):
    assert main(["eval", "-m", "p@5 map", "--float"]) == 0
    out, _ = capsys.readouterr()
    assert "P@5" in out and "AP" in out


@pytest.mark.parametrize(
    "measure, message",
    [
        ("P(rel=0)@5", "needs rel > 0"),
        ("AP(rel=-1)", "needs rel > 0"),
        ("P@0", "needs a cutoff @k with k an int >= 1"),
        ("nDCG@x", "needs a cutoff @k with k an int >= 1"),
        ("nDCG(dcg=exp)@10", "has dcg='exp'"),
        ("RBO(variant=c)", "has variant='c'"),
        ("RBO(bound=top)", "has bound='top'"),
        ("Rprec@5", "takes no cutoff"),
        ("Bpref@5", "takes no cutoff"),
        ("Judged(rel=2)@5", "has parameter 'rel=2'; Judged takes none"),
        ("Success", "needs a cutoff, e.g. Success@10"),
        ("bpref(p=0.5)", "has parameter 'p=0.5'; Bpref takes ['norel', 'rel']"),
    ],
)
def test_parameters_are_checked_when_parsed(measure, message):
    with pytest.raises(TieawareError, match="^measure ") as info:
        parse(measure)
    assert message in str(info.value) and repr(measure) in str(info.value)


@pytest.mark.parametrize("measure", ["P(rel=0)@5", "Rprec@5", "Judged(rel=2)@5", "nDCG(dcg=exp)@10"])
def test_cli_bad_parameter_is_one_line_exit_2(capsys, measure):
    code = main(["eval", "-m", f"AP {measure}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("tieaware eval: error: measure ") and repr(measure) in err
    assert "query" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("spelling, canonical", [("bpref", "Bpref"), ("BPREF(rel=2)", "Bpref(rel=2)"), ("judged@10", "Judged@10"),
                                                 ("rprec", "Rprec"), ("success_5", "Success@5"), ("SUCCESS@1", "Success@1")])
def test_new_measure_names(spelling, canonical):
    assert str(parse(spelling)) == canonical
