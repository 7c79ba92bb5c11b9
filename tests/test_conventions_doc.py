"""The examples in docs/conventions.md run and print what the page says."""

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "conventions.md"


def test_docs_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0


def test_docs_cite_pages_of_the_repository():
    # The repository stands alone: no citation of a spec file it does not
    # hold, and no path outside it.  (Strings split so this file passes.)
    root = DOC.parent.parent
    banned = ["SPEC " + "§", "/work/" + "shared", "../" + "shared"]
    files = [root / "README.md"] + [
        p for folder in ("docs", "tieaware", "fast", "reference", "proofs", "tests", "notebooks") for p in (root / folder).rglob("*")
        if p.suffix in (".py", ".md", ".ipynb") and "__pycache__" not in p.parts
    ]
    found = [f"{p.relative_to(root)}: {b}" for p in files for b in banned if b in p.read_text(encoding="utf-8")]
    assert not found, found
