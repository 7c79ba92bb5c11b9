"""The leaderboard as one self-contained HTML page (``tieaware compare --format html``).

Inline CSS and SVG only: no script, no font, no image and no link outside
the file, so it opens offline and the same everywhere.  Per measure:

- the **leaderboard**: one row per system (``<tbody>`` of the table with
  class ``leaderboard``), its mean, its range over tie-breakings, the rank
  statement ("rank 2, [1, 3] over ties, [1, 5] over topics, [1, 6] over
  both") and, with intervals, a bar per system: the range of the mean over
  tie-breakings, the confidence interval at the expected values and its
  reach over every tie-breaking, on one axis for all systems;
- the **pairs**: the test, its p-value bounds, the intervals of the mean
  difference, Cohen's d_z, P(A > B) per query and win/tie/loss counts;
- a **per-query spread plot**: each query's expected value and its range
  over tie-breakings, per system (at most :data:`QUERIES_PLOTTED` queries,
  evenly spaced in the order of the first system's expected value);

then the method notes.  The page reads a
:class:`tieaware.runs.leaderboard.SystemsComparison` through its attributes.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from tieaware.io.board_text import INTERVAL_NOTE, cell, counts_cell, flip_cell, p_cell, rank_statement, robust_cell, share_cell
from tieaware.model.exact import to_float

__all__ = ["page", "QUERIES_PLOTTED"]

#: Most queries drawn in a per-query spread plot (more are thinned evenly: the page stays small).
QUERIES_PLOTTED = 200
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1400px; color: #222222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-variant-numeric: tabular-nums; }
th, td { padding: .25em .6em; border-bottom: 1px solid #e4e4e4; text-align: right; vertical-align: middle; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
th { background: #f4f4f4; text-align: center; } td.name, td.text { text-align: left; }
td.bar { padding: 0 .3em; } .note { color: #555555; font-size: .92em; max-width: 70em; }
.sig { font-weight: 600; } .fragile { color: #a33; } svg text { font: 11px system-ui, sans-serif; fill: #333333; }
.legend span { display: inline-block; margin-right: 1.2em; } .swatch { display: inline-block; width: 1.6em; height: .7em; margin-right: .3em; vertical-align: middle; }
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def page(c: Any, digits: int = 4) -> str:
    """The whole page as one string."""
    what = f"{c.test} test, alpha {c.alpha:g}" + (f", {c.correction}" if c.correction != "none" else "") if c.test else "no test"
    if c.ci is not None:
        what += f"; {c.ci:g}% intervals ({c.resamples:,} bootstrap resamples, seed {c.seed})"
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>tieaware leaderboard</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
        "<h1>Leaderboard over every tie-breaking</h1>",
        f'<p class="summary">{len(c.systems)} systems, {c.queries} queries ({"exact" if c.exact else "float"}); {_e(what)}'
        + (f"; baselines: {_e(', '.join(c.baselines))}" if c.baselines else "")
        + (f"; {len(c.skipped)} queries in only some runs skipped" if c.skipped else "") + ".</p>",
    ]
    for m in c.measures:
        parts.append(f'<section class="measure" data-measure="{_e(m)}">')
        parts.append(f"<h2>{_e(m)}</h2>")
        parts.extend(_leaderboard(c, m, digits))
        parts.extend(_pairs(c, m, digits))
        parts.extend(_spread(c, m))
        parts.append("</section>")
    parts.extend(_notes(c))
    parts.extend(["</body>", "</html>"])
    return "\n".join(parts)


def _leaderboard(c: Any, m: str, digits: int) -> list[str]:
    got = c.intervals.get(m)
    rows = c.standings[m]
    lows, highs = [], []
    for s in rows:
        lows.append(to_float(s.min_mean))
        highs.append(to_float(s.max_mean))
        if got is not None:
            x = got.systems[s.system]
            lows += [x.t.low, x.bootstrap.low]
            highs += [x.t.high, x.bootstrap.high]
    finite = [v for v in lows + highs if math.isfinite(v)]
    axis = (min(finite), max(finite)) if finite else (0.0, 1.0)
    head = ["rank", "system", "mean", "mean, tie range" + (" and t interval" if got is not None else ""), "min", "max", "rank intervals"]
    if got is not None:
        head += [f"{got.ci:g}% t", "t over ties", f"{got.ci:g}% bootstrap", "bootstrap over ties"]
    out = ["<h3>Leaderboard</h3>", '<div class="scroll">', f'<table class="leaderboard" data-measure="{_e(m)}">',
           "<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    for s in rows:
        x = got.systems[s.system] if got is not None else None
        statement = rank_statement(s, x) if x is not None else (
            f"rank {s.rank}, [{s.best_rank}, {s.worst_rank}] over ties")
        cells = [f"<td>{s.rank}</td>", f'<td class="name">{_e(s.system)}</td>', f"<td>{cell(s.mean, digits)}</td>",
                 f'<td class="bar">{_bar(s, x, axis)}</td>', f"<td>{cell(s.min_mean, digits)}</td>", f"<td>{cell(s.max_mean, digits)}</td>",
                 f'<td class="text">{_e(statement)}</td>']
        if x is not None:
            cells += [f"<td>{_span(*x.t.expected, digits)}</td>", f"<td>{_span(x.t.low, x.t.high, digits, x.t.exact)}</td>",
                      f"<td>{_span(*x.bootstrap.expected, digits)}</td>",
                      f"<td>{_span(x.bootstrap.low, x.bootstrap.high, digits, x.bootstrap.exact)}</td>"]
        out.append(f'<tr data-system="{_e(s.system)}">' + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table>", "</div>", _legend(got is not None, axis, digits)]
    return out


def _span(lo: float, hi: float, digits: int, exact: bool = True) -> str:
    text = f"[{lo:.{digits}f}, {hi:.{digits}f}]"
    return _e(text) + ("" if exact else '<span title="certified bound: never too narrow, not attained">*</span>')


_BAR_W, _BAR_H = 260, 18


def _x(value: float, axis: tuple[float, float]) -> float:
    lo, hi = axis
    if not math.isfinite(value):
        return 0.0 if value < 0 else float(_BAR_W)
    return 6 + (value - lo) / ((hi - lo) or 1.0) * (_BAR_W - 12)


def _bar(s: Any, x: Any, axis: tuple[float, float]) -> str:
    """One system's SVG: ties range (thick, pale), CI over ties (thin line), CI at expected (dark), mean (dot)."""
    y = _BAR_H / 2
    items = []
    if x is not None:
        items.append(f'<line x1="{_x(x.t.low, axis):.1f}" x2="{_x(x.t.high, axis):.1f}" y1="{y}" y2="{y}" stroke="#999" stroke-width="1"/>')
        items.append(f'<line x1="{_x(x.t.expected[0], axis):.1f}" x2="{_x(x.t.expected[1], axis):.1f}" y1="{y}" y2="{y}" '
                     f'stroke="#1f4e79" stroke-width="3"/>')
    items.append(f'<line x1="{_x(to_float(s.min_mean), axis):.1f}" x2="{_x(to_float(s.max_mean), axis):.1f}" y1="{y}" y2="{y}" '
                 f'stroke="#6baed6" stroke-opacity="0.55" stroke-width="9"/>')
    items.append(f'<circle cx="{_x(to_float(s.mean), axis):.1f}" cy="{y}" r="3.5" fill="#08306b"/>')
    return (f'<svg width="{_BAR_W}" height="{_BAR_H}" viewBox="0 0 {_BAR_W} {_BAR_H}" role="img" '
            f'aria-label="{_e(s.system)}">' + "".join(items) + "</svg>")


def _legend(intervals: bool, axis: tuple[float, float], digits: int) -> str:
    spans = ['<span><span class="swatch" style="background:#6baed6;opacity:.55"></span>mean over tie-breakings (min to max)</span>',
             '<span><span class="swatch" style="background:#08306b;width:.7em;border-radius:50%"></span>expected mean</span>']
    if intervals:
        spans += ['<span><span class="swatch" style="background:#1f4e79;height:.25em"></span>t interval at the expected values</span>',
                  '<span><span class="swatch" style="background:#999999;height:.1em"></span>its reach over every tie-breaking</span>']
    return (f'<p class="legend note">{"".join(spans)} Axis: {axis[0]:.{digits}f} to {axis[1]:.{digits}f}.</p>')


def _pairs(c: Any, m: str, digits: int) -> list[str]:
    pairs = c.pairs[m]
    if not pairs:
        return []
    got = c.intervals.get(m)
    head = ["A", "B", "E[A−B]", "min", "max", "order"]
    if c.test:
        head += ["p", "p min", "p max", "bounds"] + (["p adj [min, max]"] if c.correction != "none" else []) + ["verdict", "flip", "robust"]
    if got is not None:
        head += [f"{got.ci:g}% t", "t over ties", f"{got.ci:g}% bootstrap", "bootstrap over ties", "d_z [over ties]",
                 "P(A>B) [over ties]", "W/T/L [over ties]"]
    out = ["<h3>Pairs</h3>", '<div class="scroll">', f'<table class="pairs" data-measure="{_e(m)}">',
           "<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    for r in pairs:
        cells = [f'<td class="name">{_e(r.a)}</td>', f'<td class="name">{_e(r.b)}</td>', f"<td>{cell(r.expected_difference, digits)}</td>",
                 f"<td>{cell(r.min_difference, digits)}</td>", f"<td>{cell(r.max_difference, digits)}</td>",
                 f'<td class="text">{"fixed" if r.order != "some" else "ties"}</td>']
        if c.test:
            cells += [f"<td>{p_cell(r.p_value)}</td>", f"<td>{p_cell(r.p_min)}</td>", f"<td>{p_cell(r.p_max)}</td>", f"<td>{r.bounds}</td>"]
            if c.correction != "none":
                cells.append(f"<td>{p_cell(r.p_adjusted)} [{p_cell(r.p_adjusted_min)}, {p_cell(r.p_adjusted_max)}]</td>")
            klass = "sig" if r.better is not None and r.robust else "sig fragile" if r.better is not None else "text"
            cells += [f'<td class="{klass}">{_e(r.verdict)}</td>', f"<td>{_e(flip_cell(r, digits))}</td>", f"<td>{robust_cell(r)}</td>"]
        if got is not None:
            x = got.pairs[(r.a, r.b)]
            d = min(digits, 3)
            cells += [f"<td>{_span(*x.t.expected, digits)}</td>", f"<td>{_span(x.t.low, x.t.high, digits, x.t.exact)}</td>",
                      f"<td>{_span(*x.bootstrap.expected, digits)}</td>",
                      f"<td>{_span(x.bootstrap.low, x.bootstrap.high, digits, x.bootstrap.exact)}</td>",
                      f"<td>{x.dz.value:.{d}f} {_span(x.dz.low, x.dz.high, d, x.dz.exact)}</td>",
                      f"<td>{_e(share_cell(x.superiority))}</td>", f"<td>{_e(counts_cell(x.counts))}</td>"]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table>", "</div>"]
    return out


_PLOT_W, _PLOT_H, _PAD = 1100, 260, 36


def _spread(c: Any, m: str) -> list[str]:
    """Per query and system: the range over tie-breakings (a vertical line) and the expected value (a dot)."""
    values = c.per_query.get(m)
    if not values:
        return []
    names = list(c.systems)
    n = len(c.query_ids)
    first = np.asarray(values[names[0]][0], dtype=np.float64)
    order = np.argsort(first, kind="stable")
    shown = order if n <= QUERIES_PLOTTED else order[np.linspace(0, n - 1, QUERIES_PLOTTED).round().astype(int)]
    lo = min(float(np.min(values[s][1])) for s in names)
    hi = max(float(np.max(values[s][2])) for s in names)
    span = (hi - lo) or 1.0
    k = len(shown)
    step = (_PLOT_W - 2 * _PAD) / max(1, k)
    offset = step / (len(names) + 1)

    def y(v: float) -> float:
        return _PLOT_H - _PAD + 4 - (v - lo) / span * (_PLOT_H - 2 * _PAD)

    items = [f'<line x1="{_PAD}" x2="{_PAD}" y1="{y(lo):.1f}" y2="{y(hi):.1f}" stroke="#888"/>',
             f'<text x="{_PAD - 4}" y="{y(lo):.1f}" text-anchor="end">{lo:.2f}</text>',
             f'<text x="{_PAD - 4}" y="{y(hi) + 8:.1f}" text-anchor="end">{hi:.2f}</text>']
    for j, s in enumerate(names):
        e, w, b = (np.asarray(v, dtype=np.float64) for v in values[s])
        color = _COLORS[j % len(_COLORS)]
        for i, q in enumerate(shown.tolist()):
            x = _PAD + i * step + (j + 1) * offset
            if b[q] > w[q]:
                items.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y(w[q]):.1f}" y2="{y(b[q]):.1f}" stroke="{color}" stroke-opacity="0.6"/>')
            items.append(f'<circle cx="{x:.1f}" cy="{y(e[q]):.1f}" r="1.8" fill="{color}"/>')
    legend = "".join(f'<span><span class="swatch" style="background:{_COLORS[j % len(_COLORS)]}"></span>{_e(s)}</span>'
                     for j, s in enumerate(names))
    thinned = "" if n <= QUERIES_PLOTTED else f" ({k} of {n} queries shown, evenly spaced)"
    return ["<h3>Per-query spread</h3>",
            f'<svg class="spread" width="{_PLOT_W}" height="{_PLOT_H}" viewBox="0 0 {_PLOT_W} {_PLOT_H}" role="img" '
            f'aria-label="per-query values of {_e(m)}">' + "".join(items) + "</svg>",
            f'<p class="legend note">{legend}<br>Queries in order of {_e(names[0])}\'s expected value{thinned}; '
            "dot: the expected (tie-aware) value; line: its range over every ordering of the query's ties.</p>"]


def _notes(c: Any) -> list[str]:
    notes = [
        "Each run's tied documents can be ordered in many ways; every value here is the expectation over those orderings "
        "(each equally likely, queries and runs independent), with its smallest and largest value over every tie-breaking.",
        "min/max: the mean over every tie-breaking of the system (or of both systems of a pair). Rank intervals: the best and "
        "worst rank over every tie-breaking of every system (attained).",
    ]
    if c.test:
        notes.append("p: the test on the expected per-query values; p min/max: over every joint tie-breaking of the pair "
                     "(exact: attained; certified: never too narrow); flip: the probability that a random tie-breaking's verdict "
                     "differs from the verdict on expected values; robust: the same verdict for every tie-breaking.")
    if c.intervals:
        notes.append(INTERVAL_NOTE.format(ci=f"{c.ci:g}", resamples=c.resamples, seed=c.seed))
        notes.append("The t interval's lower end is concave and its upper end convex in the per-query values, so their extremes "
                     "over tie-breakings are at the per-query extremes (enumerated, or bounded through chords and then marked *); "
                     "every bootstrap mean grows with each query's value, so the bootstrap's reach is attained by every query "
                     "at its smallest and at its largest. The rank interval over both: in each resample the best and the worst "
                     "rank over tie-breakings; one tie-breaking attains each end in every resample at once.")
    notes += [_e(n) for n in c.notes]
    return ["<h2>Method notes</h2>"] + [f'<p class="note">{n}</p>' for n in notes] + [
        '<p class="note">Made by tieaware compare. The page is self-contained: inline styles and SVG, nothing loaded from elsewhere.</p>']

