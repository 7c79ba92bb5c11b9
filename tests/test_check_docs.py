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


def test_the_profile_example_prints_what_the_page_says():
    from tieaware.check import implementation

    text = DOC.read_text(encoding="utf-8")
    [code] = [b for b in _blocks() if b.startswith("def map_at_5(")]
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    shown = text.split("$ tieaware check recbole_like:map_at_5 AP@5\n", 1)[1].split("```", 1)[0].splitlines()
    result = implementation(namespace["map_at_5"], "AP@5")
    assert [f"recbole_like:map_at_5: {line}" if i == 0 else line for i, line in enumerate(str(result).splitlines())] == shown
