"""docs/correlation.md: its Python examples run, and its command example prints what the page shows."""

import doctest
from pathlib import Path

from tieaware.cli import main

DOC = Path(__file__).parent.parent / "docs" / "correlation.md"
# The table the page's example was run on (it says so under the output).
RESULTS = "system\tAP\tP@10\tnDCG@10\nbm25\t0.31\t0.50\t0.45\nlm\t0.29\t0.5\t0.47\ndfr\t0.30\t0.4\t0.45\ntfidf\t0.22\t0.30\t0.31\n"


def test_docs_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8
    assert result.failed == 0


def test_the_command_example_prints_what_the_page_shows(tmp_path, capsys, monkeypatch):
    text = DOC.read_text(encoding="utf-8")
    command = "$ tieaware corr --systems results.tsv --spread\n"
    shown = text.split(command, 1)[1].split("```", 1)[0]
    (tmp_path / "results.tsv").write_text(RESULTS)
    monkeypatch.chdir(tmp_path)
    assert main(["corr", "--systems", "results.tsv", "--spread"]) == 0
    assert capsys.readouterr().out == shown
