"""The examples in docs/conventions.md run and print what the page says."""

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "conventions.md"


def test_docs_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0
