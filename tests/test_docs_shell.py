"""Every shell example in README.md and docs/*.md runs, and prints what the page shows.

A shell example is a fenced block (no language, ``console``, ``bash``,
``sh`` or ``shell``) whose first line is a command: ``$ tieaware ...``
followed by the output the page promises (compared line for line; a line
``...`` stands for any number of lines), or bare commands (``tieaware ...``,
``python ...``), which must exit 0.  Usage synopses (``tieaware eval
[QRELS RUN] ...``) and printed results without a command are not examples.

Commands run through bash in the repository root, with this interpreter's
``bin`` first on PATH, stdout and stderr together (an error example shows
stderr).  An HTML comment on the line before the block says more:

- ``<!-- shell: in docs/examples/rbo -->`` runs the block in that folder
  (docs/examples holds the small files the examples read);
- ``<!-- shell: needs rbo -->`` / ``needs trec_eval`` skips it, with the
  reason, unless the rbo package is installed / a trec_eval binary is found;
- ``<!-- shell: not run, REASON -->`` skips it with REASON (it takes minutes,
  or writes into the repository); the reason names the test that covers it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from tieaware.cli import SUBCOMMANDS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<marker><!--\s*shell:\s*(?P<note>.*?)\s*-->\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)^```", re.M | re.S)
SHELL = {"", "console", "bash", "sh", "shell"}


@dataclass
class Example:
    page: str
    line: int
    commands: list[tuple[str, Optional[list[str]]]]  # (command, promised output or None)
    note: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _is_command(line: str) -> bool:
    words = line.split()
    if not words:
        return False
    if words[0] == "tieaware":
        return len(words) == 1 or words[1] in SUBCOMMANDS or words[1].startswith("-")
    return words[0] in ("python", "pip")


def _synopsis(line: str) -> bool:
    """A usage line: [OPTION] or an upper-case placeholder in brackets."""
    return re.search(r"\[(-|[A-Z])", line) is not None


def _examples() -> list[Example]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group("lang") not in SHELL:
                continue
            lines = m.group("body").rstrip("\n").split("\n")
            first = lines[0]
            prompt = first.startswith("$ ")
            if not prompt and not (_is_command(first) and not _synopsis(first)):
                continue  # a synopsis, or printed results
            line = text.count("\n", 0, m.start("body")) + 1
            commands: list[tuple[str, Optional[list[str]]]] = []
            if prompt:
                for raw in lines:
                    if raw.startswith("$ "):
                        commands.append((raw[2:], []))
                    else:
                        commands[-1][1].append(raw)  # type: ignore[union-attr]
            else:
                commands = [(raw, None) for raw in lines if raw.strip()]
            found.append(Example(str(page.relative_to(ROOT)), line, commands, m.group("note") or ""))
    return found


EXAMPLES = _examples()


def _skip_reason(note: str) -> Optional[str]:
    if note.startswith("not run"):
        return note
    if note == "needs rbo" and importlib.util.find_spec("rbo") is None:
        return "needs the rbo package (pip install 'tieaware[rbo-peer]')"
    if note == "needs trec_eval":
        from tieaware.testing.trec_eval_binary import locate

        if locate() is None:
            return "needs a trec_eval binary (scripts/build_trec_eval.sh builds one)"
    return None


def _matches(promised: list[str], got: list[str]) -> bool:
    """Line for line; a promised line '...' matches any number of lines."""
    if not promised:
        return not got
    if promised[0] == "...":
        return any(_matches(promised[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and promised[0].rstrip() == got[0].rstrip() and _matches(promised[1:], got[1:])


def test_the_examples_are_found():
    pages = {e.page for e in EXAMPLES}
    assert {"README.md", "docs/eval.md", "docs/rbo.md", "docs/check.md", "docs/uncertainty.md"} <= pages, pages
    for e in EXAMPLES:  # every marker is one the runner knows
        assert e.note == "" or e.note.startswith(("not run, ", "in docs/examples", "needs ")), e.id


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_shell_example(example: Example, tmp_path):
    reason = _skip_reason(example.note)
    if reason is not None:
        pytest.skip(reason)
    cwd = ROOT / example.note[3:] if example.note.startswith("in ") else ROOT
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["COLUMNS"] = "80"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # nothing left in docs/examples
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(tmp_path / ".hypothesis")
    for command, promised in example.commands:
        done = subprocess.run(
            ["bash", "-c", "exec 2>&1; " + command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
        )
        got = done.stdout.rstrip("\n").split("\n") if done.stdout.strip() else []
        if promised is None:
            assert done.returncode == 0, f"{example.id}: {command!r} exited {done.returncode}:\n{done.stdout}"
        else:
            assert _matches(promised, got), (
                f"{example.id}: {command!r} printed\n" + "\n".join(got) + "\n\nbut the page shows\n" + "\n".join(promised)
            )
