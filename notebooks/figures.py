"""How the teaching notebooks show a figure: checked for a reader first, with alt text.

``show(fig, alt)`` is the only way the notebooks display a figure.  It refuses
a figure a student could not read, then shows it as an image that carries
*alt* as its alternative text, and closes it.

What it refuses (``FigureProblem``, naming the axes):

- a plot with no title (neither the axes' own nor the figure's);
- an axis without a label (a label on an axis it shares, or the figure's
  ``supxlabel``/``supylabel``, counts);
- an axes with more than one series (a line, a bar or histogram container,
  a scatter, a shaded span, ...) where a series has no label, or a label
  that no legend shows.  A series drawn only to repeat one that is labelled
  (the second grey line of a pair) says so with ``label="_nolegend_"``;
- an empty or short alt text (under 40 characters: describe what the figure
  shows and what to read off it, not "a plot").

How the alt text reaches a reader: the output is HTML, ``<img alt="...">``,
which screen readers read and Jupyter, nbconvert and most notebook viewers
render; its ``text/plain`` form is the alt text itself (what a terminal or
a text-only viewer shows); the PNG is attached too, with the alt text in its
metadata.  Closing the figure keeps the inline backend from showing it a
second time, without alt text.

This file is teaching support, not part of the tieaware package.  The
solutions in ``solutions/`` import it from this folder.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

__all__ = ["FigureProblem", "problems", "show"]

MIN_ALT = 40


class FigureProblem(ValueError):
    """A figure a student could not read: what is missing, and where."""


def _series(ax: Any) -> list[Any]:
    """The data series of one axes: containers whole, then the artists outside any container."""
    in_containers = set()
    out = []
    for container in ax.containers:
        out.append(container)
        for child in container.get_children():
            in_containers.add(id(child))
            if hasattr(child, "get_children"):
                in_containers.update(id(grandchild) for grandchild in child.get_children())
    for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.images]:
        if id(artist) not in in_containers:
            out.append(artist)
    return out


def _label(artist: Any) -> str:
    """A series' label; a histogram's container is unlabelled and carries it on its first bar."""
    label = artist.get_label() or ""
    if label.startswith("_") and label != "_nolegend_" and hasattr(artist, "patches") and artist.patches:
        first = artist.patches[0].get_label() or ""
        if not first.startswith("_"):
            return first
    return label


def _legend_labels(fig: Any, ax: Any) -> set[str]:
    legends = [ax.get_legend(), *fig.legends]
    return {text.get_text() for legend in legends if legend is not None for text in legend.get_texts()}


def _has_label(fig: Any, ax: Any, which: str) -> bool:
    if (ax.get_xlabel() if which == "x" else ax.get_ylabel()).strip():
        return True
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    for sibling in shared.get_siblings(ax):
        if (sibling.get_xlabel() if which == "x" else sibling.get_ylabel()).strip():
            return True
    sup = fig.get_supxlabel() if which == "x" else fig.get_supylabel()
    return bool(sup.strip())


def problems(fig: Any) -> list[str]:
    """Everything ``show`` would refuse in *fig*, one line each (an empty list: readable)."""
    out = []
    plotted = [ax for ax in fig.axes if ax.get_visible() and ax.axison and _series(ax)]
    if not plotted:
        out.append("the figure plots nothing")
    suptitle = fig.get_suptitle().strip()
    for number, ax in enumerate(plotted, start=1):
        where = f"axes {number}" + (f" ({ax.get_title()!r})" if ax.get_title() else "")
        if not (ax.get_title().strip() or suptitle):
            out.append(f"{where}: no title (set the axes' title or the figure's suptitle)")
        for which in "xy":
            if not _has_label(fig, ax, which):
                out.append(f"{where}: the {which} axis has no label")
        series = _series(ax)
        if len(series) > 1:
            shown = _legend_labels(fig, ax)
            for artist in series:
                label = _label(artist)
                if label == "_nolegend_":
                    continue  # drawn on purpose to repeat a labelled series
                if label.startswith("_"):
                    out.append(f"{where}: a {type(artist).__name__} has no label, among {len(series)} series")
                elif label not in shown:
                    out.append(f"{where}: the series {label!r} is in no legend")
    return out


def show(fig: Any, alt: str) -> None:
    """Check *fig* (``problems``), display it with *alt* as its alternative text, and close it.

    Raises FigureProblem when the figure or the alt text would leave a reader guessing.
    """
    import matplotlib.pyplot as plt
    from IPython.display import display

    found = problems(fig)
    alt = " ".join(str(alt).split())
    if len(alt) < MIN_ALT:
        found.append(f"alt text {alt!r} is shorter than {MIN_ALT} characters: say what the figure shows")
    if found:
        plt.close(fig)
        raise FigureProblem("this figure is not ready for a reader:\n- " + "\n- ".join(found))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    tag = f'<img src="data:image/png;base64,{png}" alt="{html.escape(alt, quote=True)}"/>'
    display(
        {"text/html": tag, "image/png": png, "text/plain": f"[figure] {alt}"},
        raw=True,
        metadata={"image/png": {"alt": alt}, "text/html": {"alt": alt}},
    )
