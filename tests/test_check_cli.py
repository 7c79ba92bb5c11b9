"""`tieaware check MODULE:FUNCTION MEASURE`: verdict on stdout, exit 0 / 1 / 2."""

from __future__ import annotations

import pytest

from tieaware.cli import main

MODULE = '''
from tieaware import fast, from_scores

def stable_ap(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    hits, total = 0, 0.0
    for rank, i in enumerate(order, start=1):
        if labels[i] >= 1:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0

def tie_aware_ap(scores, labels):
    return fast.average_precision(from_scores(scores, labels), exact=False)

not_a_function = 3

def numeric_qid_ap(qrels, run):
    assert list(run) == ["1"] and list(qrels) == ["1"], "the query id is the one given with --qid"
    docs = run["1"]
    ranking = from_scores(list(docs.values()), [qrels["1"][d] for d in docs])
    judged_relevant = sum(1 for x in qrels["1"].values() if x >= 1)  # unretrieved ones too
    return fast.average_precision(ranking, num_rel=judged_relevant, exact=False)

def listed_order_rbo(S, L):
    from tieaware.reference.rank_biased_overlap import rbo
    return float(rbo(S, L, "0.9", variant="a", bound="ext"))
'''

FAST = ["--max-size", "3", "--max-examples", "10"]


@pytest.fixture
def module(tmp_path, monkeypatch):
    (tmp_path / "mymetrics.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "mymetrics.py"


def test_conforming_code_exits_0(module, capsys):
    assert main(["check", "mymetrics:tie_aware_ap", "AP", *FAST]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mymetrics:tie_aware_ap: AP: conforms")


def test_differing_code_exits_1_with_counterexample_and_cause(module, capsys):
    assert main(["check", "mymetrics:stable_ap", "map", *FAST]) == 1
    out = capsys.readouterr().out
    assert "AP: DIFFERS" in out
    assert "scores   [1.0, 1.0]" in out and "labels   [0, 1]" in out
    assert "expected 3/4" in out and "cause    input order" in out


def test_a_file_path_works_too(module, capsys):
    assert main(["check", f"{module}:tie_aware_ap", "AP", *FAST]) == 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check", "mymetrics", "AP"], "target must be MODULE:FUNCTION"),
        (["check", "mymetrics:nope", "AP"], "names no function 'nope'"),
        (["check", "mymetrics:not_a_function", "AP"], "names something that is not callable"),
        (["check", "no_such_module_xyz:f", "AP"], "names a module that cannot be imported"),
        (["check", "./missing.py:f", "AP"], "names the file './missing.py', which does not exist"),
        (["check", "mymetrics:tie_aware_ap", "XYZ"], "measure is not a known measure"),
        (["check", "mymetrics:tie_aware_ap", "AP", "--labels", "a,b"], "--labels must be comma-separated ints"),
        (["check", "mymetrics:tie_aware_ap", "AP", "--max-size", "-2"], "max_size must be an int >= 1, got -2"),
    ],
)
def test_bad_input_exits_2_with_one_line(module, capsys, argv, message):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err and captured.err.count("\n") == 1


def test_rbo_through_the_untied_adapter(module, capsys):
    argv = ["check", "mymetrics:listed_order_rbo", "RBO(p=0.9, variant=a, bound=ext)", "--adapter", "rbo-untied", *FAST]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "S        ['a']" in out and "L        [['a', 'b']]" in out and "cause    input order" in out


def test_untied_flag_checks_untied_inputs_only(module, capsys):
    assert main(["check", "mymetrics:stable_ap", "AP", "--untied", *FAST]) == 0
    assert "AP: conforms" in capsys.readouterr().out


def test_qid_option_names_the_query_for_the_qrels_run_adapter(module, capsys):
    argv = ["check", "mymetrics:numeric_qid_ap", "AP", "--adapter", "qrels-run", "--qid", "1", *FAST]
    assert main(argv) == 0, capsys.readouterr()
    assert "AP: conforms" in capsys.readouterr().out


def test_a_bad_qid_is_an_input_error(module, capsys):
    assert main(["check", "mymetrics:numeric_qid_ap", "AP", "--adapter", "qrels-run", "--qid", "a b"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "qid must be a non-empty string" in captured.err


def test_json_format_prints_the_stable_fields(module, capsys):
    import json

    assert main(["check", "mymetrics:stable_ap", "AP", *FAST, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["target"] == "mymetrics:stable_ap" and data["ok"] is False and data["cause"] == "input_order"
    assert data["convention"] == "AP" and data["conforms_as"] is None and data["precision"]["kind"] == "float64"
    assert data["counterexample"]["labels"] == [0, 1] and data["profile"]


def test_declared_domains_on_the_command_line(module, capsys):
    assert main(["check", "mymetrics:tie_aware_ap", "AP", *FAST, "--labels", "binary", "--scores", "positive,integer", "--max-docs", "12"]) == 0
    assert main(["check", "mymetrics:tie_aware_ap", "AP", *FAST, "--labels", "0,1"]) == 0
    capsys.readouterr()
    assert main(["check", "mymetrics:tie_aware_ap", "AP", "--scores", "round"]) == 2
    assert "scores" in capsys.readouterr().err


def test_labels_0_1_on_the_command_line_never_probe_another_label(module, capsys):
    """Every label the implementation is called with is recorded: with --labels 0,1 only 0 and 1, at the default budget."""
    (module.parent / "recording.py").write_text(
        "from tieaware import fast, from_scores\n"
        "def ndcg(scores, labels):\n"
        "    with open('seen.txt', 'a') as seen:\n"  # the implementation runs in a worker process: record on disk
        "        seen.write(' '.join(map(str, labels)) + '\\n')\n"
        "    return fast.ndcg(from_scores(scores, labels), 5, exact=False)\n"
    )
    import sys

    sys.modules.pop("recording", None)
    assert main(["check", "recording:ndcg", "nDCG@5", "--labels", "0,1"]) == 0
    assert set((module.parent / "seen.txt").read_text().split()) == {"0", "1"}
    capsys.readouterr()


def test_spread_on_the_command_line(module, capsys):
    (module.parent / "spreads.py").write_text(
        "from tieaware import fast, from_scores\n"
        "def worst_ap(s, l):\n    return float(fast.worst('AP', from_scores(s, l)))\n"
    )
    assert main(["check", "spreads:worst_ap", "AP", "--spread", "min", *FAST]) == 0
    assert main(["check", "spreads:worst_ap", "AP", "--spread", "max", *FAST]) == 1
    assert "min and max swapped" in capsys.readouterr().out
