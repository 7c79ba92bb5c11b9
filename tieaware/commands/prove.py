"""``tieaware prove``: check every symbolic proof that fast's closed forms equal the expectations.

One row per lemma and theorem: its statement, whether it is proved in
general or only up to a stated bound, the time taken, and the outcome; then
how many are general and, for each bounded one, why its bound is needed.
The exit code is 1 if anything failed, so CI can run it.  The table is
printed once everything has been checked.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from typing import TYPE_CHECKING, Any

from tabulate import tabulate

from tieaware.model.errors import bad

if TYPE_CHECKING:
    from tieaware.proofs import Result

__all__ = ["add_parser", "run", "table", "scope_summary"]

_DESCRIPTION = """\
Check, with sympy, that each closed form in tieaware.fast equals the expected
value of its measure under random tie-breaking: the lemmas about one tie group
(exchangeability, the pair lemma, the hypergeometric mean, the first-relevant
recursion, the RBO contribution) and one theorem per measure.  Each derivation
calls fast's own kernels on symbols, so changing a kernel breaks a proof.

A 'general' result holds for symbolic sizes, counts, positions and cutoffs.
A 'bounded(...)' result was checked for every case up to the stated bound,
with everything else symbolic; the summary after the table says why each
bound is needed.  See docs/proofs.md."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "prove",
        help="check the symbolic proofs that fast's closed forms equal the expectations",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="check only these theorems (default: all)")
    parser.add_argument("--latex", action="store_true", help="also print every statement in LaTeX")
    parser.add_argument("--details", action="store_true", help="also print what each proof covered")
    parser.add_argument("--list", action="store_true", help="list the theorems without checking them")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="check the theorems in N forked processes (default: 1; 2 halves the time on an idle 2-core machine)",
    )
    parser.set_defaults(run=run)
    return parser


def table(results: list["Result"], width: int = 64) -> str:
    """The results as a plain-text table, statements wrapped to *width* characters."""
    rows = [
        [r.name, textwrap.fill(r.statement, width), r.scope, f"{r.seconds:.2f}", "proved" if r.proved else "FAILED"]
        for r in results
    ]
    return tabulate(rows, headers=["theorem", "statement", "scope", "seconds", "result"], tablefmt="simple")


def scope_summary(results: list["Result"]) -> list[str]:
    """How many results are general, then one line per bounded one with why its bound is needed."""
    bounded = [r for r in results if not r.general]
    lines = [f"Scope: {len(results) - len(bounded)} general, {len(bounded)} bounded."]
    for r in bounded:
        lines.append(f"  {r.name}: {r.scope}. {r.why or 'Why: docs/proofs.md.'}")
    return lines


def run(args: argparse.Namespace) -> int:
    from tieaware.proofs import THEOREMS  # imported here: `tieaware --help` need not load sympy's proofs

    names = list(args.names) or list(THEOREMS)
    for name in names:
        if name not in THEOREMS:
            raise bad("NAME", name, f"is not a theorem; try one of: {', '.join(THEOREMS)}")
    if args.list:
        print("\n".join(f"{n}\t{THEOREMS[n].scope}" for n in names))
        return 0
    if args.jobs < 1:
        raise bad("--jobs", args.jobs, "must be at least 1")
    from tieaware.proofs import prove_all

    began = time.perf_counter()
    results = prove_all(progress=sys.stderr.isatty(), names=names, jobs=args.jobs)
    total, cpu = time.perf_counter() - began, sum(r.cpu for r in results)
    failed = [r for r in results if not r.proved]
    out = [table(results), "", f"{len(results) - len(failed)} of {len(results)} proved in {total:.1f} s ({cpu:.1f} s CPU, {args.jobs} job{'s' if args.jobs > 1 else ''})."]
    out += scope_summary(results)
    for r in failed:
        out.append(f"FAILED {r.name}: {r.detail}")
    if args.details:
        out.append("")
        out += [f"{r.name}: {r.detail}" for r in results if r.proved]
    if args.latex:
        out.append("")
        out += [f"% {r.name} [{r.scope}]\n$$ {r.latex} $$" for r in results]
    print("\n".join(out))
    return 1 if failed else 0
