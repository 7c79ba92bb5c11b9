"""The implementation under test, run in a worker process of its own, with the exact values in the checker's.

:func:`tieaware.check.implementation` hands every call to a :class:`Worker`:
a child process forked once (so the implementation, a closure or a lambda,
needs no pickling) that answers many calls over a pipe.  What the
implementation does there cannot change the verdict:

- it ends its process (``os._exit(0)``, ``sys.exit`` in C code, a crash, a
  signal): that input fails with the exit status or signal named, and the
  next call starts a new worker;
- it raises anything, ``KeyboardInterrupt`` and ``SystemExit`` included: the
  implementation's failure on that input (the worker ignores the terminal's
  Ctrl-C, which is the checker's to handle);
- it monkeypatches ``tieaware.fast`` or ``tieaware.reference``: only the
  worker's copies change; the expected values are computed here;
- it gives no answer within *timeout* seconds: the check stops there
  (:class:`Stopped`), since every later input would wait as long;
- it allocates without bound: the worker's data segment is limited to
  *memory* MiB (``RLIMIT_DATA``) above what it holds when started; a
  ``MemoryError``, or the worker killed, is reported as that limit;
- the whole check's calls are bounded by *budget* seconds.

:class:`InProcess` is the same interface without a process (doctests, small
checks of code the caller trusts).

>>> w = Worker(lambda s, l: sum(l) / len(l), timeout=30)
>>> w.call(([2.0, 1.0], [0, 1]), number)
(0.5, None)
>>> w.close()
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import types
from collections.abc import Callable, Iterator
from typing import Any, Optional

from tieaware.check.compare import as_number
from tieaware.model.errors import TieawareError, bad

__all__ = ["Worker", "InProcess", "Stopped", "number", "raised", "failure_text", "kept_tieaware", "MEMORY", "TIMEOUT", "BUDGET", "DEATHS"]

#: Default limit on the worker's memory, MiB above what it holds when it starts.
MEMORY = 4096
#: Default seconds one call may take before the check stops.
TIMEOUT = 30.0
#: Default seconds all calls of one check may take together.
BUDGET = 1800.0
#: After this many worker deaths the check stops (an implementation that dies on every input).
DEATHS = 20

#: What a call returned: (value, None), (None, None) for "no value", or (None, failure text).
Outcome = tuple[Any, Optional[str]]
#: Turns a raw result into (value, None) or (None, "returned ...").
Convert = Callable[[Any], Outcome]


class Stopped(Exception):
    """The check cannot go on: a call gave no answer in time, or the budget is spent, or the worker keeps dying.

    *text* says which; :func:`tieaware.check.implementation` turns it into the verdict.
    """

    def __init__(self, text: str, args: Optional[tuple] = None) -> None:
        super().__init__(text)
        self.text = text
        #: The call's arguments when one call stopped the check.
        self.call_args = args


def number(raw: Any) -> Outcome:
    """A result as a number tieaware compares (:func:`~tieaware.check.compare.as_number`); None is "no value"."""
    if raw is None:  # what norel=skip expects for a query without a relevant document
        return None, None
    try:
        return as_number(raw, "implementation result"), None
    except TieawareError as exc:
        return None, f"returned a non-number: {exc}"


def raised(exc: BaseException) -> str:
    """What the implementation raised, as "Type: message".

    >>> raised(SystemExit(0))
    'SystemExit: 0 (the implementation called sys.exit)'
    >>> raised(KeyboardInterrupt())
    'KeyboardInterrupt:  (raised by the implementation, not the user)'
    """
    if isinstance(exc, SystemExit):
        return f"SystemExit: {exc.code} (the implementation called sys.exit)"
    if isinstance(exc, KeyboardInterrupt):
        return f"KeyboardInterrupt: {exc} (raised by the implementation, not the user)"
    return f"{type(exc).__name__}: {exc}"


def failure_text(exception: str) -> str:
    """A counterexample's exception text as a sentence about the implementation.

    >>> failure_text("ValueError: bad"), failure_text("returned a non-number: x")
    ('the implementation raised ValueError: bad', 'the implementation returned a non-number: x')
    """
    if exception.startswith(("returned ", "ended ", "was killed ", "went over ", "gave no ")):
        return f"the implementation {exception}"
    return f"the implementation raised {exception}"


@contextlib.contextmanager
def kept_tieaware() -> Iterator[list[str]]:
    """Undo, on leaving, every change made meanwhile to the globals of tieaware's loaded modules.

    ``tieaware check`` imports the implementation's module in its own process (to find the
    function); a module that monkeypatches ``tieaware.fast`` or ``tieaware.reference`` when
    imported is undone here, before any expected value is computed.  The names of the changed
    globals are yielded (a list, filled on leaving).

    >>> import tieaware.fast
    >>> with kept_tieaware() as changed:
    ...     tieaware.fast.average_precision = None
    >>> changed, tieaware.fast.average_precision is not None
    (['tieaware.fast.average_precision'], True)
    """
    import sys

    saved = {name: dict(vars(module)) for name, module in list(sys.modules.items()) if name.split(".")[0] == "tieaware" and module is not None}
    changed: list[str] = []
    try:
        yield changed
    finally:
        for name, before in saved.items():
            namespace = vars(sys.modules.get(name) or object())
            if not isinstance(namespace, dict):
                continue
            for key in [k for k in namespace if k not in before]:
                if isinstance(namespace[key], types.ModuleType):
                    continue  # a submodule imported meanwhile (`from tieaware import fast` sets tieaware.fast)
                changed.append(f"{name}.{key}")
                del namespace[key]
            for key, value in before.items():
                if namespace.get(key, _MISSING) is not value:
                    changed.append(f"{name}.{key}")
                    namespace[key] = value


_MISSING = object()


def _timeout(value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise bad("timeout", value, "must be a number of seconds > 0, or None")
    return float(value)


def _memory(value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise bad("memory", value, "must be an int number of MiB >= 1, or None")
    return value


class InProcess:
    """Calls the implementation here, in the checker's process (no isolation: for code the caller trusts)."""

    def __init__(self, impl: Callable[..., Any]) -> None:
        self.impl = impl

    def call(self, args: tuple, convert: Convert) -> Outcome:
        try:
            raw = self.impl(*args)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:  # the user's code failing is a finding
            return None, raised(exc)
        return convert(raw)

    def close(self) -> None:
        pass


class Worker:
    """Calls the implementation in a forked child process that serves call after call (see the module docstring)."""

    def __init__(
        self, impl: Callable[..., Any], *, timeout: Optional[float] = TIMEOUT, memory: Optional[int] = MEMORY, budget: Optional[float] = BUDGET
    ) -> None:
        self.impl = impl
        self.timeout = _timeout(timeout)
        self.memory = _memory(memory)
        self.budget = _timeout(budget)
        self.spent = 0.0
        self.deaths = 0
        self._process: Any = None
        self._conn: Any = None

    def _start(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")  # the implementation is inherited, never pickled
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child, self.impl, self.memory), daemon=True)
        process.start()
        child.close()
        self._process, self._conn = process, parent

    def call(self, args: tuple, convert: Convert) -> Outcome:
        if self.budget is not None and self.spent >= self.budget:
            raise Stopped(f"stopped after {self.spent:.0f} s of the implementation's calls (the budget is {self.budget:g} s)")
        if self._process is None:
            self._start()
        start = time.monotonic()
        try:
            self._conn.send((args, convert))
            wait = self.timeout
            if self.budget is not None:
                wait = self.budget - self.spent if wait is None else min(wait, self.budget - self.spent)
            if not self._conn.poll(wait):
                self._kill()
                if self.timeout is not None and wait >= self.timeout:
                    raise Stopped(f"gave no answer within {self.timeout:g} s (timeout)", args)
                raise Stopped(f"stopped: the implementation's calls took the whole budget of {self.budget:g} s", args)
            kind, value = self._conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            return None, self._died()
        finally:
            self.spent += time.monotonic() - start
        if kind == "ok":
            return value
        if kind == "timeout":  # the adapter's own timeout (a command that never answered)
            self.close()
            raise Stopped(f"gave no answer in time ({value})", args)
        return None, value

    def _died(self) -> str:
        """Why the worker ended, as a failure of the call; the next call starts another."""
        process = self._process
        self._conn.close()
        process.join(5)
        code = process.exitcode
        self._process = self._conn = None
        self.deaths += 1
        if code is None:
            text = "ended its process's connection to the checker"
        elif code >= 0:
            text = f"ended its process with exit status {code} (os._exit, or exit() in C code)"
        elif -code == signal.SIGKILL and self.memory is not None:
            text = f"was killed by SIGKILL (most often the kernel at the worker's memory limit of {self.memory} MiB, or out of memory)"
        else:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            text = f"was killed by {name}"
        if self.deaths >= DEATHS:
            raise Stopped(f"{text}; stopped after the worker ended {self.deaths} times")
        return text

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
            self._conn.close()
            self._process = self._conn = None

    def close(self) -> None:
        """End the worker (it also ends with the checker's process)."""
        if self._process is None:
            return
        try:
            self._conn.send(None)
            self._process.join(2)
        except (OSError, ValueError):
            pass
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        self._conn.close()
        self._process = self._conn = None

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self._kill()
        except Exception:
            pass


def _serve(conn: Any, impl: Callable[..., Any], memory: Optional[int]) -> None:
    """The worker's loop: one call per message until None or the pipe closes."""
    import subprocess

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C is the checker's, not the implementation's
    if memory is not None:
        _limit_memory(memory)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if message is None:
            os._exit(0)
        args, convert = message
        try:
            raw = impl(*args)
            reply = ("ok", convert(raw))
        except MemoryError:
            reply = ("raised", f"went over the worker's memory limit ({memory} MiB): MemoryError" if memory else "raised MemoryError")
        except (subprocess.TimeoutExpired, TimeoutError) as exc:
            reply = ("timeout", str(exc))
        except BaseException as exc:  # KeyboardInterrupt and SystemExit too: the implementation's failure
            reply = ("raised", raised(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # a value pickle cannot carry back
            conn.send(("raised", f"returned a value the checker cannot read back ({type(exc).__name__}: {exc})"))


def _limit_memory(mib: int) -> None:
    """Limit the data segment (heap and anonymous mappings) to what it holds now plus *mib* MiB."""
    try:
        import resource

        held = 0
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    held = int(line.split()[1]) * 1024
        limit = held + mib * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, OSError, ValueError):  # pragma: no cover - not Linux: no limit
        pass
