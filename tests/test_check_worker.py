"""The implementation under test runs in a worker process: it cannot end, interrupt, patch or exhaust the checker."""

from __future__ import annotations

import os
import sys
import time
from decimal import Decimal
from fractions import Fraction

import pytest

from tieaware import fast, from_scores
from tieaware.check import implementation, spread
from tieaware.check.worker import InProcess, Worker, number
from tieaware.cli import main


def _exact_ap(scores, labels):
    return fast.average_precision(from_scores(scores, labels))


def _os_exit(scores, labels):
    os._exit(0)


def _interrupts(scores, labels):
    raise KeyboardInterrupt


def _patches_tieaware(scores, labels):
    import tieaware.fast
    import tieaware.reference

    zero = lambda *args, **kwargs: Fraction(0)  # noqa: E731
    for module in (tieaware.fast, tieaware.reference):
        for name in dir(module):
            if not name.startswith("_") and callable(getattr(module, name)):
                setattr(module, name, zero)
    return 0.0


def _decimal_ap(scores, labels):
    value = _exact_ap(scores, labels)
    return Decimal(value.numerator) / Decimal(value.denominator)


def _allocates(scores, labels):
    hog = []
    while True:
        hog.append(bytearray(64 << 20))


def test_os_exit_is_a_failure_naming_the_exit():
    result = implementation(_os_exit, "AP", max_size=1, max_examples=0)
    assert not result.ok and result.cause == "raises"
    assert result.counterexample.exception.startswith("ended its process with exit status 0")
    assert "the implementation ended its process with exit status 0" in str(result.profile[0].explanation)


def test_cli_os_exit_exits_1_and_says_so(tmp_path, monkeypatch, capsys):
    (tmp_path / "exiting_fast.py").write_text("import os\ndef ap(scores, labels):\n    os._exit(0)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "exiting_fast:ap", "AP", "--max-examples", "0", "--max-size", "1"]) == 1
    assert "exit status 0" in capsys.readouterr().out


def test_monkeypatching_tieaware_in_the_implementation_cannot_change_the_verdict():
    before = fast.average_precision
    result = implementation(_patches_tieaware, "AP", max_size=2, max_examples=0)
    assert not result.ok and result.cause != "raises"
    assert fast.average_precision is before  # only the worker's copy was patched
    assert result.counterexample.expected == fast.average_precision(from_scores(result.counterexample.scores, result.counterexample.labels))


def test_keyboard_interrupt_from_the_implementation_is_its_failure_not_exit_130(tmp_path, monkeypatch, capsys):
    result = implementation(_interrupts, "AP", max_size=1, max_examples=0)
    assert not result.ok and result.counterexample.exception.startswith("KeyboardInterrupt")
    (tmp_path / "interrupting.py").write_text("def ap(scores, labels):\n    raise KeyboardInterrupt\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "interrupting:ap", "AP", "--max-examples", "0", "--max-size", "1"]) == 1
    assert "KeyboardInterrupt" in capsys.readouterr().out


def test_a_correct_decimal_result_is_accepted():
    result = implementation(_decimal_ap, "AP", max_size=3, max_examples=20)
    assert result.ok, str(result)


def test_an_exact_decimal_is_compared_exactly_and_a_wrong_one_is_not_garbled():
    worker = InProcess(lambda s, l: Decimal("0.5"))
    assert worker.call(([1.0], [1]), number) == (Decimal("0.5"), None)
    result = implementation(lambda s, l: Decimal("0.25"), "P@1", max_size=1, max_examples=0)
    assert not result.ok and result.counterexample.got == Decimal("0.25")
    assert "non-number" not in str(result) and "raised returned" not in str(result)


def test_a_command_that_never_answers_stops_the_check_after_the_first_timeout(tmp_path, capsys):
    script = tmp_path / "hangs_on_ties.py"
    # answers the two untied documents of the preflight, then never again
    script.write_text("import sys, time\nn = len(open(sys.argv[1]).readlines())\nif n != 2: time.sleep(600)\nprint(0.5)\n")
    start = time.monotonic()
    code = main(["check", f"{sys.executable} {script} {{run}}", "AP", "--adapter", "command", "--timeout", "2"])
    elapsed = time.monotonic() - start
    out = capsys.readouterr().out
    assert code == 1 and elapsed < 30, (code, elapsed)
    assert "no answer" in out and "stopped" in out


def test_a_hanging_function_stops_the_check_at_the_first_timeout():
    start = time.monotonic()
    result = implementation(lambda s, l: time.sleep(600), "AP", max_size=3, max_examples=50, timeout=0.5)
    assert time.monotonic() - start < 20
    assert not result.ok and result.cause == "stopped" and result.cases == 1


def test_the_whole_check_is_bounded_by_the_budget():
    def slow(scores, labels):
        time.sleep(0.05)
        return _exact_ap(scores, labels)

    start = time.monotonic()
    result = implementation(slow, "AP", max_size=4, max_examples=0, budget=1.0)
    assert time.monotonic() - start < 15
    assert not result.ok and result.cause == "stopped" and "budget" in result.profile[0].explanation


def test_an_implementation_allocating_without_bound_meets_the_worker_memory_limit():
    result = implementation(_allocates, "AP", max_size=1, max_examples=0, memory=256, timeout=60)
    assert not result.ok
    text = result.counterexample.exception
    assert "memory limit (256 MiB)" in text or "memory limit of 256 MiB" in text, text


def test_cli_memory_option(tmp_path, monkeypatch, capsys):
    (tmp_path / "hog.py").write_text("def ap(scores, labels):\n    x = []\n    while True:\n        x.append(bytearray(1 << 26))\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "hog:ap", "AP", "--max-examples", "0", "--max-size", "1", "--memory", "200"]) == 1
    assert "memory limit" in capsys.readouterr().out


def test_the_worker_serves_many_calls_in_one_process():
    pids = set()

    def pid(scores, labels):
        return float(os.getpid())

    worker = Worker(pid)
    try:
        for _ in range(50):
            value, error = worker.call(([1.0], [1]), number)
            assert error is None
            pids.add(value)
    finally:
        worker.close()
    assert len(pids) == 1 and os.getpid() not in pids


def test_spread_and_rbo_checks_run_in_the_worker_too():
    result = spread(_os_exit, "P@1", "min", max_size=1, max_examples=0)
    assert not result.ok and "exit status 0" in result.counterexample.exception
    rbo = implementation(lambda S, L: os._exit(3), "RBO(p=0.9, variant=a, bound=ext)", max_examples=0)
    assert not rbo.ok and "exit status 3" in rbo.counterexample.exception


def test_cli_a_module_patching_tieaware_when_imported_is_undone(tmp_path, monkeypatch, capsys):
    (tmp_path / "patching_at_import.py").write_text(
        "import tieaware.fast, tieaware.reference\n"
        "from fractions import Fraction\n"
        "zero = lambda *a, **k: Fraction(0)\n"
        "for m in (tieaware.fast, tieaware.reference):\n"
        "    for n in dir(m):\n"
        "        if not n.startswith('_') and callable(getattr(m, n)):\n"
        "            setattr(m, n, zero)\n"
        "def ap(scores, labels):\n"
        "    return 0.0\n"
    )
    monkeypatch.chdir(tmp_path)
    before = fast.average_precision
    assert main(["check", "patching_at_import:ap", "AP", "--max-examples", "0", "--max-size", "2"]) == 1
    captured = capsys.readouterr()
    assert "DIFFERS" in captured.out and "undone" in captured.err
    assert fast.average_precision is before


def _enumerating_ap(scores, labels):
    """AP@5 by listing every ordering of each tie group: memory grows as n! (a group of 10 is 3.6 million tuples)."""
    from itertools import permutations

    groups = {}
    for s, x in zip(scores, labels):
        groups.setdefault(s, []).append(x)
    total = 0.0
    for s in sorted(groups, reverse=True):
        every = list(permutations(groups[s]))  # the runaway allocation
        total += len(every)
    return total * 0.0


def test_an_implementation_enumerating_tie_groups_meets_the_worker_limit_not_the_checker():
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = implementation(_enumerating_ap, "AP@5", max_size=2, max_examples=0, memory=200, timeout=60)
    assert not result.ok
    failures = [f.counterexample.exception for f in result.profile if f.counterexample is not None and f.counterexample.exception]
    assert any("memory limit" in text for text in failures), failures
    # the checker's own process grew by far less than the worker's limit (kB)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 150_000


def test_cli_importing_tieaware_in_the_implementation_is_no_change(tmp_path):
    """A fresh process: the module's `from tieaware import fast` sets tieaware.fast, a submodule, not a patch."""
    import subprocess

    (tmp_path / "plain_import.py").write_text(
        "from tieaware import fast, from_scores\ndef ap(scores, labels):\n    return fast.average_precision(from_scores(scores, labels))\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "tieaware", "check", "plain_import:ap", "AP", "--max-examples", "0", "--max-size", "2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "undone" not in done.stderr and "conforms" in done.stdout
