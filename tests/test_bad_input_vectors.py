"""Vectors: a typo in a filter is refused (it would select no test and skip a user's suite silently); a repeated family is written once."""

from __future__ import annotations

import json
import os

import pytest

from tieaware import TieawareError, vectors
from tieaware.cli import main


@pytest.mark.parametrize(
    "filters, message",
    [
        ({"measure": "AP@1O"}, r"measure must be one of the family's measures \['AP', .*got 'AP@1O'"),
        ({"flags": {"Tide"}}, r"flags names flags the family does not use \('Tide'\); its flags are \[.*'Tied'"),
        ({"flags_excluded": ["EmptyRankng"]}, r"flags_excluded names flags the family does not use \('EmptyRankng'\)"),
        ({"flags": "Tied"}, r"flags must be a collection of flags, e.g. \{'Tied'\}, got 'Tied'"),
        ({"result": "vaild"}, r"result must be one of \['valid', 'invalid', 'acceptable'\] or None"),
    ],
)
@pytest.mark.parametrize("api", [vectors.iter_cases, vectors.pytest_cases])
def test_unknown_filter_values_are_refused_at_the_call(api, filters, message):
    with pytest.raises(TieawareError, match=message):
        api("average_precision", **filters)


def test_known_filter_values_still_select_cases():
    assert len(vectors.pytest_cases("average_precision", measure="AP", flags={"Tied"}, flags_excluded={"EmptyRanking"})) > 10
    assert {c.result for c in vectors.iter_cases("recall", result="invalid")} == {"invalid"}


def test_cli_a_repeated_family_is_written_once(tmp_path, capsys):
    out = tmp_path / "v"
    assert main(["vectors", "--out", str(out), "--family", "precision", "--family", "precision"]) == 0
    assert os.listdir(out) == ["precision.json"]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(out / "precision.json"))
    assert json.loads((out / "precision.json").read_text())["numberOfTests"] == vectors.load("precision")["numberOfTests"]
