"""The ``tieaware`` console command.

Each subcommand lives in its own module under :mod:`tieaware.commands` and
provides ``add_parser(subparsers)`` and ``run(args) -> int``.  Bad input is
reported as one line on stderr with exit code 2; nothing is printed to stdout
before the error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, Optional

from tieaware.model.errors import TieawareError

__all__ = ["main", "SUBCOMMANDS"]

#: Subcommand modules, in the order `tieaware --help` lists them.
SUBCOMMANDS = ("eval", "compare", "rbo", "corr", "prove", "check", "vectors", "conformance", "disagree", "bench")


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser; with *only*, just that subcommand's module is imported (start-up stays fast)."""
    parser = argparse.ArgumentParser(
        prog="tieaware",
        description="Exact tie-aware IR evaluation: expected values over every ordering consistent with tied scores.",
    )
    from tieaware import __version__  # the package's own, so an editable install reports it too

    parser.add_argument("--version", action="version", version=f"tieaware {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"tieaware.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name in OPTIONAL:  # an extra not installed: the command says which, in one line
                _needs(sub, name, exc.name)
                continue
            if exc.name != f"tieaware.commands.{name}":
                raise
            continue  # a subcommand not built yet
        module.add_parser(sub)
    return parser


#: Packages some commands need that ``pip install tieaware`` does not bring: package -> the extra that does.
OPTIONAL = {
    "hypothesis": "check",
    "pytest": "testing",
    "scipy": "stats",
    "matplotlib": "plots",
    "pyarrow": "arrow",
    "dask": "dask",
    "distributed": "dask",
}


def _needs(sub: Any, name: str, package: str) -> None:
    """A stand-in for command *name*, whose module needs *package*: it refuses to run, naming the extra."""
    extra = OPTIONAL[package]
    parser = sub.add_parser(name, help=f"(needs {package}: pip install 'tieaware[{extra}]')", add_help=False, prefix_chars="\x01")
    parser.add_argument("words", nargs=argparse.REMAINDER)

    def refuse(args: argparse.Namespace) -> int:
        raise TieawareError(f"needs {package}, which is not installed: pip install 'tieaware[{extra}]'")

    parser.set_defaults(run=refuse)


def main(argv: Optional[Sequence[str]] = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    first = next((w for w in words if not w.startswith("-")), None)
    command = first if first in SUBCOMMANDS else None
    try:
        return _main(words, command)
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for SIGINT, no traceback
        print(f"tieaware{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return 130


def _main(words: list[str], command: Optional[str]) -> int:
    if command is None and "--version" in words:
        # --version needs no subcommand module (and so none of numpy, sympy or hypothesis).
        build_parser(only="").parse_args(words)
    # `tieaware eval ...` imports only commands/eval.py (and not sympy through the others).
    parser = build_parser(command)
    args = parser.parse_args(words)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except TieawareError as exc:
        print(f"tieaware {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an option that needs an extra (--heatmap: matplotlib, ...)
        if exc.name not in OPTIONAL:
            raise
        extra = OPTIONAL[exc.name]
        print(f"tieaware {args.command}: error: needs {exc.name}, which is not installed: pip install 'tieaware[{extra}]'", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `tieaware eval | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
