"""docs/uncertainty.md: its examples run, and its hand-derived numbers are what the code prints."""

import doctest
import re
from fractions import Fraction
from pathlib import Path

import pytest

from tieaware.cli import main

DOC = Path(__file__).parent.parent / "docs" / "uncertainty.md"

QRELS = "q1 0 a 1\nq1 0 c 1\nq2 0 x 1\n"
RUN_A = "q1 Q0 a 1 2 A\nq1 Q0 b 2 2 A\nq1 Q0 c 3 1 A\nq2 Q0 x 1 1 A\nq2 Q0 y 2 1 A\n"
RUN_B = "q1 Q0 b 1 3 B\nq1 Q0 a 2 2 B\nq1 Q0 c 3 1 B\nq2 Q0 y 1 2 B\nq2 Q0 x 2 1 B\n"


def test_docs_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8
    assert result.failed == 0


@pytest.fixture
def example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        (tmp_path / name).write_text(text)


def test_the_worked_example_runs_match_the_page(example, capsys):
    """The same files as the page's table; the page shows what the command prints."""
    assert main(["compare", "qrels", "a.run", "b.run", "-m", "AP"]) == 0
    out = capsys.readouterr().out
    page = DOC.read_text()
    block = page.split("$ tieaware compare qrels a.run b.run -m AP\n", 1)[1].split("```", 1)[0]
    assert out == block


def test_the_hand_derivation_agrees_with_the_page():
    """Every bold number of the worked example, re-derived from the per-query values the page gives."""
    page = DOC.read_text()
    a = {"q1": [Fraction(5, 6), Fraction(7, 12)], "q2": [Fraction(1), Fraction(1, 2)]}
    b = {"q1": Fraction(7, 12), "q2": Fraction(1, 2)}
    diffs = [((x - b["q1"]) + (y - b["q2"])) / 2 for x in a["q1"] for y in a["q2"]]
    assert sorted(diffs) == [0, Fraction(1, 8), Fraction(1, 4), Fraction(3, 8)]
    assert sum(diffs) / 4 == Fraction(3, 16) and "**E[D] = 3/16**" in page
    assert sum(1 for d in diffs if d > 0) == 3 and "**P(A > B) = 3/4**" in page
    assert sum((d - Fraction(3, 16)) ** 2 for d in diffs) / 4 == Fraction(5, 256) and "5/256" in page
    assert (sum(a["q1"]) / 2 + sum(a["q2"]) / 2) / 2 == Fraction(35, 48) and "**35/48**" in page
    assert (min(a["q1"]) + min(a["q2"])) / 2 == Fraction(13, 24) and "**13/24**" in page
    assert (max(a["q1"]) + max(a["q2"])) / 2 == Fraction(11, 12) and "**11/12**" in page
    assert re.search(r"\*\*sd = √5/16 ≈ 0\.1398\*\*", page)


def test_eval_spread_numbers_on_the_page(example, capsys):
    import json

    assert main(["eval", "qrels", "a.run", "-m", "AP", "--spread", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["spread"]["AP"]
    assert (s["min_mean"]["exact"], s["max_mean"]["exact"], s["sd_mean"]["exact"]) == ("13/24", "11/12", "sqrt(5)/16")
    assert (s["queries_moved"], s["queries"]) == (2, 2)
    page = DOC.read_text()
    assert "min 0.5417 (13/24),\nmax 0.9167 (11/12), sd 0.1398 (√5/16) and 2/2 queries moved" in page
    assert main(["eval", "-m", "AP", "--spread", "--format", "json"]) == 0  # the bundled sample
    out = json.loads(capsys.readouterr().out)
    s = out["spread"]["AP"]
    sample = f"{s['min_mean']['decimal']} to {s['max_mean']['decimal']} (tie-aware {out['mean']['AP']['tie_aware']['decimal']}, trec_eval {out['mean']['AP']['trec_eval_order']['decimal']})"
    assert sample in " ".join(page.split()), sample
