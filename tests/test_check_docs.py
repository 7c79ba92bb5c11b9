"""The RBP and ERR examples in docs/check.md run and print what the page says."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "check.md"


def _blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_formula_examples_print_what_the_page_says():
    examples = [b for b in _blocks() if "print(formula(" in b]
    assert len(examples) == 2  # RBP, then ERR (which reuses the RBP block's imports)
    namespace: dict = {}
    for block in examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), namespace)
        promised = [line[2:] for line in block.splitlines() if line.startswith("# ")]
        assert out.getvalue().splitlines() == promised
