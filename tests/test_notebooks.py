"""The teaching notebooks and their solutions run top to bottom in CI.

Notebooks are committed with outputs stripped (so diffs stay readable and
nothing stale is shown); this test executes each notebook and each solution
in a fresh kernel, with matplotlib's inline backend as a student sees it,
and fails on any cell error.  It also checks what a lecturer relies on:

- each notebook states its level, prerequisites and notation at the top,
  says what the reader will learn, closes with exercises, and uses only the
  public API (no ``tieaware.<...>._private`` names);
- each has a solutions notebook in ``notebooks/solutions/`` with a section
  for every exercise;
- every figure is shown through ``notebooks/figures.py``'s ``show``, which
  refuses a figure without a title, axis labels, or a legend naming each of
  several series, and attaches alt text: an image output without alt text
  fails here;
- the README lists every notebook with its level and topic.

``.ci/run`` runs this file in a venv that has only the ``[notebooks]`` extra.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
SOLUTIONS = sorted((FOLDER / "solutions").glob("*.ipynb"))
LEVELS = ("introductory", "intermediate", "advanced")


def _read(path):
    return nbformat.read(path, as_version=4)


def _exercises(nb) -> list[int]:
    """The numbers of the exercises: the numbered list of the last cell."""
    return [int(n) for n in re.findall(r"^(\d+)\. ", nb.cells[-1].source, re.M)]


def _level(nb) -> str:
    found = re.search(r"\*\*Level:\*\*\s*(\w+)", nb.cells[0].source)
    return found.group(1) if found else ""


def test_there_are_notebooks_and_solutions():
    assert len(NOTEBOOKS) >= 1
    assert [p.name for p in SOLUTIONS] == [p.name for p in NOTEBOOKS], "one solutions notebook per notebook, same file name"


def _code_is_clean(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, "commit notebooks with outputs stripped"
            assert cell.execution_count is None, "commit notebooks with execution counts cleared"
            # private helpers: a name starting with an underscore after `tieaware.`
            assert not re.search(r"tieaware(\.\w+)*\._", cell.source), cell.source
            # figures go through figures.show (title, labels, legend, alt text), never plt.show
            assert "plt.show(" not in cell.source, "show figures with figures.show(fig, alt=...)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_structure_and_public_api(path):
    nb = _read(path)
    top = nb.cells[0].source
    assert "What you will learn" in top
    assert _level(nb) in LEVELS, "the first cell says **Level:** introductory, intermediate or advanced"
    assert "**Prerequisites:**" in top
    assert any("Notation" in c.source for c in nb.cells[:3] if c.cell_type == "markdown"), "define the notation at the top"
    assert "Exercises" in nb.cells[-1].source
    assert len(_exercises(nb)) >= 2
    assert f"solutions/{path.name}" in nb.cells[-1].source, "the exercises say where their solutions are"
    _code_is_clean(nb)


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: "solutions-" + p.stem)
def test_solutions_answer_every_exercise(path):
    nb = _read(path)
    notebook = FOLDER / path.name
    assert nb.cells[0].source.startswith("# Solutions: ")
    assert f"(../{path.name})" in nb.cells[0].source, "the solutions link their notebook"
    headings = [int(n) for c in nb.cells if c.cell_type == "markdown" for n in re.findall(r"^## Exercise (\d+)\b", c.source, re.M)]
    assert headings == _exercises(_read(notebook)), "one '## Exercise N' section per exercise, in order"
    _code_is_clean(nb)


def test_readme_lists_every_notebook_with_level_and_topic():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        line = next((x for x in readme.splitlines() if f"(notebooks/{path.name})" in x), None)
        assert line is not None, f"README.md does not list {path.name}"
        assert _level(_read(path)) in line, f"README.md's line for {path.name} does not give its level"
        assert f"(notebooks/solutions/{path.name})" in line, f"README.md's line for {path.name} does not link its solutions"
        cells = [cell.strip() for cell in line.split("|")]
        assert any(len(cell) > 60 and not cell.startswith("[") for cell in cells), f"README.md's line for {path.name} gives no topic"


def _figures():
    spec = importlib.util.spec_from_file_location("figures", FOLDER / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_figures_refuses_what_a_reader_cannot_read():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = _figures()
    fig, ax = plt.subplots()
    ax.hist([1, 2, 2, 3])
    ax.axvline(2, color="red")
    found = " | ".join(figures.problems(fig))
    for missing in ("no title", "x axis has no label", "y axis has no label", "BarContainer has no label", "Line2D has no label"):
        assert missing in found
    ax.set(title="t", xlabel="x", ylabel="count")
    ax.containers[0].set_label("values")
    ax.lines[0].set_label("mean")
    assert "is in no legend" in " | ".join(figures.problems(fig))
    ax.legend()
    assert figures.problems(fig) == []
    ax.axvline(3, color="red", label="_nolegend_")  # a repeat of a labelled series, on purpose
    assert figures.problems(fig) == []
    with pytest.raises(figures.FigureProblem, match="alt text"):
        figures.show(fig, alt="a plot")
    plt.close("all")

    # a label on a shared axis, or the figure's suptitle, counts for every axes
    fig, axes = plt.subplots(1, 2, sharey=True)
    for a in axes:
        a.bar([1, 2], [3, 4])
        a.set_xlabel("rank")
    axes[0].set_ylabel("value")
    fig.suptitle("two panels")
    assert figures.problems(fig) == []
    plt.close("all")


def _execute(path):
    nb = _read(path)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=lambda p: ("solutions-" if p.parent.name == "solutions" else "") + p.stem)
def test_runs_top_to_bottom(path, monkeypatch):
    # The kernel's own matplotlib backend (inline), as a student has it: a figure shown without
    # figures.show would appear as an image without alt text, and fail below.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = _execute(path)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, [f"{e.ename}: {e.evalue}" for e in errors]
    for output in outputs:
        images = [kind for kind in output.get("data", {}) if kind.startswith("image/")]
        for kind in images:
            alt = output.get("metadata", {}).get(kind, {}).get("alt", "")
            assert len(alt) >= 40, f"an image without alt text (show figures with figures.show): {alt!r}"
            assert 'alt="' in output["data"].get("text/html", ""), "the HTML form carries the alt text"
