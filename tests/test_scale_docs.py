"""docs/scale.md's Python examples run as doctests, so the page matches behaviour."""

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "scale.md"


def test_scale_page_examples():
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0
