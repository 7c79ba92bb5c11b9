"""The ``tieaware`` console command.

Each subcommand lives in its own module under :mod:`tieaware.commands` and
provides ``add_parser(subparsers)`` and ``run(args) -> int``.  Bad input is
reported as one line on stderr with exit code 2; nothing is printed to stdout
before the error.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any, Optional

from tieaware.model.errors import TieawareError

__all__ = ["main", "SUBCOMMANDS"]

#: Subcommand modules, in the order `tieaware --help` lists them.
SUBCOMMANDS = ("eval", "compare", "rbo", "corr", "ties", "prove", "check", "vectors", "conformance", "disagree", "bench")


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


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: raised in the main thread, so every ``with`` and ``finally`` cleans up, as on Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: Any) -> None:
    # the worker processes this one forked die with it (they would finish their queued work otherwise)
    import multiprocessing

    for child in multiprocessing.active_children():
        child.terminate()
    raise Terminated(signum)


def _on_signals() -> dict:
    """SIGTERM (timeout, kill, Slurm, systemd) and SIGHUP: clean up and exit as on SIGINT; the handlers before."""
    before = {}
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is None:
            continue
        try:
            before[signum] = signal.signal(signum, _terminate)
        except ValueError:  # not the main thread (a command called from a thread): left as it is
            pass
    return before


def main(argv: Optional[Sequence[str]] = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    first = next((w for w in words if not w.startswith("-")), None)
    command = first if first in SUBCOMMANDS else None
    who = f"tieaware{' ' + command if command else ''}"
    if sys.stdout is None:  # started with stdout closed (>&-): nothing could be written
        if sys.stderr is not None:
            print(f"{who}: error: stdout is closed: nothing could be written (run it with stdout open, or > /dev/null)", file=sys.stderr)
        return 2
    before = _on_signals()
    stdout = sys.stdout
    sys.stdout = _Guard(stdout)  # type: ignore[assignment]
    try:
        return _main(words, command)
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for SIGINT, no traceback
        print(f"{who}: interrupted", file=sys.stderr)
        return 130
    except StdoutError as exc:  # --help or a usage message into a full stdout
        print(f"{who}: error: {exc}", file=sys.stderr)
        _silence_stdout()
        return 2
    except Terminated as exc:  # the shell's code for a signal: 128 + its number (143 for SIGTERM)
        print(f"{who}: {signal.Signals(exc.signum).name} received: stopped, temporary files removed", file=sys.stderr)
        return 128 + exc.signum
    finally:
        if isinstance(sys.stdout, _Guard):
            sys.stdout = stdout
        for signum, handler in before.items():
            signal.signal(signum, handler)


class StdoutError(TieawareError):
    """Writing stdout failed (full, as /dev/full is, or failing): one line, not a traceback."""


class _Guard:
    """Raise :class:`StdoutError` for a failed write or flush of *stream* (a broken pipe stays BrokenPipeError)."""

    def __init__(self, stream: Any):
        self._stream = stream

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(f"cannot write to stdout: {exc.strerror or exc}") from None

    def write(self, data: Any) -> Any:
        return self._call("write", data)

    def writelines(self, lines: Any) -> Any:
        return self._call("writelines", lines)

    def flush(self) -> Any:
        return self._call("flush")

    @property
    def buffer(self) -> Any:
        return _Guard(self._stream.buffer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush at exit writes nothing and says nothing."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.__stdout__.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


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
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # a full or failing stdout is known now, not at exit
        return code
    except TieawareError as exc:
        print(f"tieaware {args.command}: error: {exc}", file=sys.stderr)
        if isinstance(exc, StdoutError):
            _silence_stdout()
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
