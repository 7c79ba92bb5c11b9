"""The leaderboard as text: a plain table, GitHub markdown or LaTeX (``tieaware compare``'s formats).

:func:`render` writes a :class:`tieaware.runs.leaderboard.SystemsComparison`
(read through its attributes: io imports no room above the model); the
cell writers (:func:`cell`, :func:`p_cell`, :func:`flip_cell`,
:func:`robust_cell`) are shared by every text format.
"""

from __future__ import annotations

from typing import Any, Optional

from tieaware.model.exact import to_decimal

__all__ = ["render", "cell", "p_cell", "flip_cell", "robust_cell", "rank_statement", "span_cell", "share_cell", "counts_cell"]


def cell(value: Any, digits: int) -> str:
    """An exact value as a decimal of *digits* digits; "" for None."""
    return "" if value is None else to_decimal(value, digits)


def p_cell(value: Optional[float]) -> str:
    """A p-value: 4 decimals, or 2 significant digits below 1e-4; "" for None."""
    if value is None:
        return ""
    if value == 0:
        return "0"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def flip_cell(r: Any, digits: int) -> str:
    """A pair's flip probability; a Monte Carlo estimate as ≈value [its 95% interval]."""
    if r.flip_probability is None:
        return "-"
    text = to_decimal(r.flip_probability, digits) if not isinstance(r.flip_probability, float) else f"{r.flip_probability:.{digits}f}"
    if r.flip_method == "monte carlo" and r.flip_interval is not None:
        lo, hi = r.flip_interval
        return f"≈{text} [{lo:.2f}, {hi:.2f}]"
    return text


def robust_cell(r: Any) -> str:
    """yes, no or ? (not decided) for a pair's robust flag."""
    return {True: "yes", False: "no", None: "?"}[r.robust]


def render(c: Any, fmt: str, digits: int) -> str:
    """*c* (a SystemsComparison) as ``table``, ``markdown`` or ``latex`` text."""
    from tabulate import tabulate

    tablefmt = {"table": "simple", "markdown": "github", "latex": "latex_raw"}[fmt]
    lines = []
    what = f"{c.test} test, alpha {c.alpha:g}" + (f", {c.correction}" if c.correction != "none" else "") if c.test else "no test"
    if c.test in ("randomization", "bootstrap"):
        what += f", {c.resamples:,} resamples seeded with {c.seed}"
    lines.append(f"{len(c.systems)} systems, {c.queries} queries ({'exact' if c.exact else 'float'}); {what}")
    if fmt != "table":
        lines.append("")
        lines.extend(_summary(c, fmt, digits, tablefmt))
    for m in c.measures:
        lines.append("")
        lines.append(f"{m}: leaderboard" if fmt != "markdown" else f"### {m}: leaderboard")
        body = [
            [s.rank, s.system, cell(s.mean, digits), cell(s.min_mean, digits), cell(s.max_mean, digits),
             f"{s.best_rank}" if s.best_rank == s.worst_rank else f"{s.best_rank}-{s.worst_rank}"]
            for s in c.standings[m]
        ]
        head = ["rank", "system", "mean", "min", "max", "rank range"]
        lines.append(tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True))
        got = c.intervals.get(m)
        if got is not None:
            lines.append("")
            lines.append(f"{m}: {got.ci:g}% intervals" if fmt != "markdown" else f"### {m}: {got.ci:g}% intervals")
            lines.append(tabulate(_system_rows(c, m, got, digits), headers=_INTERVAL_HEAD, tablefmt=tablefmt, disable_numparse=True))
        pairs = c.pairs[m]
        if not pairs:
            continue
        lines.append("")
        lines.append(f"{m}: pairs" if fmt != "markdown" else f"### {m}: pairs")
        head = ["A", "B", "E[A-B]", "min", "max", "order"]
        if c.test:
            head += ["p", "p min", "p max", "bounds"] + (["p adj [min, max]"] if c.correction != "none" else []) + ["verdict", "flip", "robust"]
        body = []
        for r in pairs:
            row = [r.a, r.b, cell(r.expected_difference, digits), cell(r.min_difference, digits), cell(r.max_difference, digits),
                   "fixed" if r.order != "some" else "ties"]
            if c.test:
                row += [p_cell(r.p_value), p_cell(r.p_min), p_cell(r.p_max), r.bounds]
                row += [f"{p_cell(r.p_adjusted)} [{p_cell(r.p_adjusted_min)}, {p_cell(r.p_adjusted_max)}]"] if c.correction != "none" else []
                row += [r.verdict, flip_cell(r, digits), robust_cell(r)]
            body.append(row)
        lines.append(tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True))
        if got is not None:
            lines.append("")
            lines.append(f"{m}: pairs, {got.ci:g}% intervals and effect sizes" if fmt != "markdown" else f"### {m}: pairs, effect sizes")
            head = [h.replace("d_z", "$d_z$") for h in _PAIR_HEAD] if fmt == "latex" else _PAIR_HEAD
            lines.append(tabulate(_pair_rows(c, m, got, digits), headers=head, tablefmt=tablefmt, disable_numparse=True))
    lines.append("")
    lines.append(
        "min/max: over every tie-breaking; rank range: best and worst rank over every tie-breaking of every system; "
        "order: 'ties' when the tie-breaking decides which mean is larger."
    )
    if c.test:
        lines.append(
            "p: the test on the expected per-query values; p min/max: over every joint tie-breaking of the pair "
            "(exact: attained; certified: never too narrow); flip: P(verdict differs from the verdict on expected values), "
            "≈ Monte Carlo with its 95% interval; robust: the same verdict for every tie-breaking (?: not decided)."
        )
    if c.intervals:
        lines.append(INTERVAL_NOTE.format(ci=f"{c.ci:g}", resamples=c.resamples, seed=c.seed))
    lines.extend(c.notes)
    text = "\n".join(lines)
    if fmt == "latex":
        text = text.replace("≈", r"$\approx$")
    return text


def _summary(c: Any, fmt: str, digits: int, tablefmt: str) -> list[str]:
    """ranx-style: one row per system, one column per measure, the mean and the systems it beats."""
    from tabulate import tabulate

    letters = {s: chr(ord("a") + i) if i < 26 else f"s{i + 1}" for i, s in enumerate(c.systems)}
    body = []
    for s in c.systems:
        row = [letters[s], s]
        for m in c.measures:
            st = next(x for x in c.standings[m] if x.system == s)
            beats = []
            for r in c.pairs[m]:
                if r.better == s:
                    other = r.b if r.a == s else r.a
                    beats.append(letters[other] if r.robust else f"({letters[other]})")
            mark = ",".join(beats)
            text = f"{cell(st.mean, digits)}"
            if mark:
                text += f"$^{{{mark}}}$" if fmt == "latex" else f"<sup>{mark}</sup>"
            span = f"{st.best_rank}" if st.best_rank == st.worst_rank else f"{st.best_rank}-{st.worst_rank}"
            row.append(f"{text} [{cell(st.min_mean, digits)}, {cell(st.max_mean, digits)}] #{span}")
        body.append(row)
    head = ["", "system"] + list(c.measures)
    note = (
        "mean [min, max over tie-breakings] #rank range; "
        + (
            f"superscript x: significantly better than system x ({c.test}, alpha {c.alpha:g}"
            + (f", {c.correction}" if c.correction != "none" else "")
            + ") for every tie-breaking; (x): on expected values, but not for every tie-breaking."
            if c.test
            else "no test."
        )
    )
    return [tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True), "", note]


#: What the interval columns mean (text, markdown, LaTeX and HTML).
INTERVAL_NOTE = (
    "intervals: t (Student) and bootstrap (percentile, {resamples:,} paired resamples seeded with {seed}) {ci}% intervals "
    "of the mean (pairs: of the mean difference A-B) on the expected per-query values, and [lowest lower end, highest upper end] "
    "over every tie-breaking (* certified: never too narrow; otherwise attained); rank: by expected mean, its interval over "
    "tie-breakings, over topic resampling (the {ci}% interval of its rank over the resamples), and over both (per resample "
    "the best and worst rank over tie-breakings); d_z: mean(A-B)/sd(A-B); P(A>B): share of queries where A > B, "
    "ties counted half; W/T/L: queries A wins, ties, loses on expected values [ranges over tie-breakings] (E: expected counts over tie-breakings, "
    "where every per-query distribution is known)."
)
_INTERVAL_HEAD = ["system", "rank", "t", "t over ties", "bootstrap", "bootstrap over ties"]
_PAIR_HEAD = ["A", "B", "t", "t over ties", "bootstrap", "bootstrap over ties", "d_z [over ties]", "P(A>B) [over ties]", "W/T/L [over ties]"]


def span_cell(low: float, high: float, digits: int, certified: bool = False) -> str:
    """"[low, high]" with *digits* decimals; a trailing * when the ends are certified bounds, not attained."""
    return f"[{low:.{digits}f}, {high:.{digits}f}]" + ("*" if certified else "")


def rank_statement(standing: Any, interval: Any) -> str:
    """"rank 2, [1, 3] over ties, [1, 5] over topics, [1, 6] over both"."""

    def pair(lo: int, hi: int) -> str:
        return f"[{lo}, {hi}]"

    return (f"rank {standing.rank}, {pair(standing.best_rank, standing.worst_rank)} over ties, "
            f"{pair(*interval.rank_topics)} over topics, {pair(*interval.rank_both)} over both")


def share_cell(share: Any) -> str:
    """An exact share with its range: "5/8 [3/8, 7/8]"."""
    return f"{share.value} [{share.low}, {share.high}]"


def counts_cell(k: Any) -> str:
    """Win/tie/loss counts with their ranges: "2/1/1 [1-3/0-3/0-2]"."""
    ranges = "/".join(f"{lo}-{hi}" if lo != hi else f"{lo}" for lo, hi in (k.wins_range, k.ties_range, k.losses_range))
    text = f"{k.wins}/{k.ties}/{k.losses} [{ranges}]"
    if k.expected is not None:  # the expected counts over tie-breakings, when the distributions are known
        text += " E " + "/".join(f"{float(v):.4g}" for v in k.expected)
    return text


def _system_rows(c: Any, m: str, got: Any, digits: int) -> list[list[str]]:
    rows = []
    for s in c.standings[m]:
        x = got.systems[s.system]
        rows.append([s.system, rank_statement(s, x), span_cell(*x.t.expected, digits), span_cell(x.t.low, x.t.high, digits, not x.t.exact),
                     span_cell(*x.bootstrap.expected, digits), span_cell(x.bootstrap.low, x.bootstrap.high, digits, not x.bootstrap.exact)])
    return rows


def _dz_cell(e: Any, digits: int) -> str:
    return f"{e.value:.{min(digits, 3)}f} [{e.low:.{min(digits, 3)}f}, {e.high:.{min(digits, 3)}f}]" + ("" if e.exact else "*")


def _pair_rows(c: Any, m: str, got: Any, digits: int) -> list[list[str]]:
    rows = []
    for r in c.pairs[m]:
        x = got.pairs[(r.a, r.b)]
        rows.append([r.a, r.b, span_cell(*x.t.expected, digits), span_cell(x.t.low, x.t.high, digits, not x.t.exact),
                     span_cell(*x.bootstrap.expected, digits), span_cell(x.bootstrap.low, x.bootstrap.high, digits, not x.bootstrap.exact),
                     _dz_cell(x.dz, digits), share_cell(x.superiority), counts_cell(x.counts)])
    return rows
