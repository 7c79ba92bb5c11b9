"""``tieaware disagree``: exact disagreement between measures over every binary vector (Jones et al. 2015).

Prints the disagreement matrix in percent of ordered pairs of distinct
vectors, then the raw counts, then every pair of vectors on which the
paper's float64 + 2**-53 verdict differs from the exact one.  ``--heatmap``
also writes the percent matrix as a PNG (needs matplotlib).

The whole output is built before anything is printed, so an error prints
only the one-line message on stderr.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tabulate import tabulate

from tieaware.analysis.disagreement import (
    DEFAULT_MEASURES,
    EPSILON,
    FEATURES,
    IMPLEMENTATIONS,
    Disagreement,
    disagreement,
    float_verdicts,
)
from tieaware.model.errors import TieawareError
from tieaware.model.exactcmp import Undecided

__all__ = ["add_parser", "run", "heatmap"]

_EPILOG = """\
measures: P R F1 AP RR DCG nDCG ERR RBP(p=VALUE); aliases MAP MRR NDCG.
  Binary vectors, depth k for every measure; R is the total relevant count
  (recall, F1, AP, and nDCG's ideal); ERR uses g_max = 1, so R(1) = 1/2.

examples:
  tieaware disagree                       # k = 10, R = 10, the default measures
  tieaware disagree -k 6 -m 'AP DCG RBP(p=0.5)'
  tieaware disagree --heatmap disagreement.png
  tieaware disagree --with-zero --features   # percentages as Jones et al. print them, and Table 4

See docs/disagreement.md."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "disagree",
        help="exact disagreement between measures over every binary relevance vector",
        description="Count, exactly, how often pairs of measures disagree about which of two binary "
        "relevance vectors of length k is better (Jones et al., SIGIR 2015).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-k", type=int, default=10, help="vector length and measure depth (default 10)")
    parser.add_argument("-R", type=int, default=None, help="total relevant documents, >= k (default: k)")
    parser.add_argument("-m", "--measures", default=DEFAULT_MEASURES, help=f"measures (default: {DEFAULT_MEASURES!r})")
    parser.add_argument("--heatmap", metavar="PNG", help="also write the percent matrix as a heatmap PNG")
    parser.add_argument("--digits", type=int, default=2, help="decimals for percentages (default 2)")
    parser.add_argument(
        "--with-zero",
        action="store_true",
        help="also enumerate the all-zero vector (2**k vectors): same counts, more pairs; the paper's percentages",
    )
    parser.add_argument(
        "--features",
        action="store_true",
        help="also print, per pair of measures, which one prefers more relevant documents, the earlier first "
        "relevant, the earlier first irrelevant (the paper's Table 4)",
    )
    parser.add_argument("--no-float", action="store_true", help="skip the float64 + epsilon comparison")
    parser.add_argument(
        "--float-impl",
        choices=IMPLEMENTATIONS,
        default="naive",
        help="float64 scores from textbook loops (naive, the default) or tieaware.fast's float mode",
    )
    parser.add_argument(
        "--float-equal",
        choices=("<", "<="),
        default="<",
        help="floats a, b are equal when |a - b| < 2**-53 (the default) or <= 2**-53",
    )
    parser.set_defaults(run=run)
    return parser


def _matrix(result: Disagreement, digits: int) -> str:
    rows = [[a] + [f"{float(result.percent(a, b)):.{digits}f}" for b in result.measures] for a in result.measures]
    return tabulate(rows, headers=["%"] + list(result.measures), disable_numparse=True)


def _counts(result: Disagreement) -> str:
    rows = [[a] + [result.count(a, b) for b in result.measures] for a in result.measures]
    return tabulate(rows, headers=["pairs"] + list(result.measures))


def _float_report(result: Disagreement, impl: str, equal: str, digits: int) -> str:
    differences, floats = float_verdicts(result, implementation=impl, inclusive=equal == "<=")
    setting = f"float64 ({impl}), equal when |a - b| {equal} 2**-53 ({EPSILON:.3e})"
    if not differences:
        return f"{setting}: every verdict on all {result.pairs // 2} vector pairs equals the exact one, for every measure."
    rows = [[d.measure, d.a, d.b, d.exact, d.float, f"{d.difference:.3e}"] for d in differences]
    out = [
        f"{setting}: {len(differences)} vector pairs get a different verdict:",
        tabulate(rows, headers=["measure", "A", "B", "exact sign", "float sign", "float A-B"]),
        "",
        "Disagreement counts that change in float:",
    ]
    changed = [
        [a, b, result.count(a, b), f"{float(result.percent(a, b)):.{digits}f}", floats.count(a, b), f"{float(floats.percent(a, b)):.{digits}f}"]
        for i, a in enumerate(result.measures)
        for b in result.measures[i + 1 :]
        if result.count(a, b) != floats.count(a, b)
    ]
    out.append(tabulate(changed, headers=["measure", "measure", "exact pairs", "exact %", "float pairs", "float %"], disable_numparse=True))
    return "\n".join(out)


def _features(result: Disagreement, digits: int) -> str:
    rows = []
    for i, a in enumerate(result.measures):
        for b in result.measures[i + 1 :]:
            if result.count(a, b) == 0:
                continue
            for first, second in ((a, b), (b, a)):
                cells = [f"{float(result.feature_percent(first, second, f)):.{digits}f}" for f in FEATURES]
                rows.append([f"{first} vs {second}", first, *cells])
    head = ["pair", "prefers", *FEATURES]
    return "% of disagreeing pairs in which a measure strictly prefers the vector with the feature:\n" + tabulate(
        rows, headers=head, disable_numparse=True
    )


def heatmap(result: Disagreement, path: str) -> None:
    """Write the percent matrix to *path* as a PNG; TieawareError when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TieawareError(
            f"--heatmap {path!r} needs matplotlib, which is not installed; pip install matplotlib"
        ) from None
    names = list(result.measures)
    data = [[float(result.percent(a, b)) for b in names] for a in names]
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * len(names), 0.8 + 0.7 * len(names)))
    image = ax.imshow(data, cmap="viridis")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    for i, row in enumerate(data):
        for j, value in enumerate(row):
            ax.text(j, i, f"{value:.1f}", ha="center", va="center", color="white" if value < 30 else "black", fontsize=8)
    ax.set_title(f"Disagreement (%), k = {result.k}, R = {result.R}")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise TieawareError(f"--heatmap cannot write {path!r}: {exc}") from None
    finally:
        plt.close(fig)


def run(args: argparse.Namespace) -> int:
    if isinstance(args.digits, bool) or args.digits < 0:
        raise TieawareError(f"--digits must be an int >= 0, got {args.digits!r}")
    if args.k == 1 and not args.with_zero:  # before the work: one vector, no pair, no percentage
        raise TieawareError("-k must be >= 2 unless --with-zero is given: -k 1 gives one vector and no pair, got 1")
    if args.heatmap:
        try:
            import matplotlib  # noqa: F401  fail before the long computation
        except ImportError:
            raise TieawareError(f"--heatmap {args.heatmap!r} needs matplotlib, which is not installed; pip install matplotlib") from None
    started = time.perf_counter()
    try:
        result = disagreement(args.measures, args.k, args.R, include_zero=args.with_zero, progress=True)
    except Undecided as exc:
        raise TieawareError(f"exact order undecided, so no counts are reported: {exc}") from None
    parts = [
        f"k = {result.k}, R = {result.R}: {len(result.vectors)} binary vectors"
        + (" (all-zero included)" if args.with_zero else "")
        + f", {result.pairs} ordered pairs of distinct vectors",
        "",
        "Disagreement (% of ordered pairs; a tie disagrees with a strict preference):",
        _matrix(result, args.digits),
        "",
        "Disagreeing ordered pairs:",
        _counts(result),
    ]
    if args.features:
        parts += ["", _features(result, args.digits)]
    if not args.no_float:
        parts += ["", _float_report(result, args.float_impl, args.float_equal, args.digits)]
    if args.heatmap:
        heatmap(result, args.heatmap)
        parts += ["", f"heatmap written to {args.heatmap}"]
    parts += ["", f"computed exactly in {time.perf_counter() - started:.1f} s"]
    print("\n".join(parts))
    return 0
