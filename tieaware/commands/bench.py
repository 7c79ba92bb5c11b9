"""``tieaware bench``: run the benchmarks and print their reports.

Every module in :mod:`tieaware.benchmarks` that defines
``run(quick: bool = False) -> str`` is a benchmark; they are found with
:mod:`pkgutil`, so a new benchmark module needs no change here.  The report
ends with the machine it ran on, since timings mean nothing without it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

from tieaware.model.errors import bad

__all__ = ["add_parser", "run", "benchmarks", "machine"]

_DESCRIPTION = """\
Run the benchmarks and print their reports: fast vs reference, tie-aware vs
tie-oblivious cost per measure, and the wall time of exact evaluation of a
synthetic run of 50 queries x 1,000 documents with heavy ties.  Figures are
ratios measured side by side in one run; see docs/benchmarks.md."""

_EPILOG = """\
examples:
  tieaware bench                   # every benchmark, full (a few minutes)
  tieaware bench --quick           # a rough smoke run, well under a minute
  tieaware bench --only measures   # one benchmark module"""


def benchmarks() -> dict[str, Callable[..., str]]:
    """{name: run} for each module of :mod:`tieaware.benchmarks` with a ``run`` function.

    >>> "measures" in benchmarks()
    True
    """
    import tieaware.benchmarks as package

    found = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        run_ = getattr(module, "run", None)
        if callable(run_):
            found[info.name] = run_
    return found


def machine() -> str:
    """One line naming the machine: cores, CPU, load, Python, sympy.

    >>> machine().startswith("machine: ")
    True
    """
    import sympy

    cpu = platform.processor() or platform.machine()
    # Other work on the machine slows every timing; say how busy it was.
    load = f"; load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (
        f"machine: {os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}{load}; "
        f"python {platform.python_version()} ({platform.python_implementation()}); sympy {sympy.__version__}"
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tieaware bench`` on the ``tieaware`` command's subparsers."""
    parser = subparsers.add_parser(
        "bench",
        help="run the benchmarks (speed of fast vs reference, cost of ties, exact wall time)",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="a smaller, rougher run that finishes in seconds")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only this benchmark module (repeatable), e.g. measures or rbo",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmarks in name order, printing each report as it is done."""
    available = benchmarks()
    chosen = args.only or list(available)
    for name in chosen:
        if name not in available:
            raise bad("--only", name, f"must be one of {sorted(available)}")
    print(f"tieaware bench{' --quick' if args.quick else ''}: {', '.join(chosen)}")
    print(machine())
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for name in chosen:
        start = time.perf_counter()
        report = available[name](quick=args.quick)
        print()
        print(report)
        print(f"({name}: {time.perf_counter() - start:.1f} s)")
        sys.stdout.flush()
    return 0
