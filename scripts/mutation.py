#!/usr/bin/env python3
"""Mutation testing: small changes to the code that prints users' numbers, and whether a test or proof notices.

Each *mutant* is one small change to one file of :data:`TARGETS` (fast's
closed forms and kernels, the whole-run engines, the readers, exact printing,
measure names): an operator swapped (``+``/``-``, ``*``/``/``, ``<``/``<=``,
``and``/``or``, ``min``/``max``...), a constant one off (``15`` -> ``16``,
``0.8`` -> ``0.9``), a sign or ``not`` dropped, a branch dropped or forced
(``if c:`` -> ``if False:``; ``True`` where there is an ``else``), plus the hand-written mutants of
:data:`CURATED` (bugs an audit found that no test caught).  A mutant is
*killed* when the tests that cover its file (the mapping in :data:`TARGETS`),
or the theorems of ``tieaware prove`` that check it, fail, time out or
crash; it *survives* when they all pass.  The score is killed / (mutants
less those listed as equivalent in ``scripts/mutation_equivalent.txt``,
where each says why no test can tell it from the original).

The working tree is never changed: each job copies the tree to a temporary
folder, lays out the installed package names over the copy
(``tieaware.fast`` -> ``fast/``, as pyproject's package-dir does), runs each
mutant's tests there with ``PYTHONPATH`` pointing at the copy, and restores
the file after each mutant.

    python scripts/mutation.py --list                    # the mutants, no run
    python scripts/mutation.py --sample 40 --seed 1      # a quick run of 40 mutants
    python scripts/mutation.py --jobs 2 --budget 3600    # every mutant, at most an hour
    python scripts/mutation.py --files tieaware/model/names.py --resume
    python scripts/mutation.py --only 'tieaware/model/names.py::_show::...'

Results go, one JSON line per mutant, to ``--results`` (default
``mutation_results.jsonl``); ``--resume`` skips the mutants already there
whose file has not changed since.  Each file's traced baseline (which
tests run which line; minutes for the RBO and trec selections) is kept in
``.mutation_cache/`` while the file and its tests are unchanged.  The script prints the score and every
survivor, and exits 1 when a survivor is left (0 otherwise).
docs/proofs.md ("Mutation testing") records a full run.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import copy
import hashlib
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator, Optional

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT_FILE = Path(__file__).resolve().parent / "mutation_equivalent.txt"

#: Where each installed package lives in the tree (pyproject.toml's package-dir).
PACKAGE_DIRS = {"tieaware": "tieaware", "tieaware.fast": "fast", "tieaware.reference": "reference", "tieaware.proofs": "proofs"}

# Test selections: a mutant runs its file's tests (pytest -x) and then its theorems.
_NAMES = ["tests/test_names_roundtrip.py", "tests/test_bad_input_names.py"]
_PRINT = ["tests/test_exact_print.py", "tests/test_trec_output.py", "tests/test_cli_eval.py"]
_READ = ["tests/test_score_parser.py", "tests/test_reader_paths.py", "tests/test_columns_fast_paths.py", "tests/test_trec.py", "tests/test_bad_input_trec.py", "tests/test_inputs.py"]
_RBO = ["tests/test_rbo_exact_kernels.py", "tests/test_rbo_kernels.py", "tests/test_rbo_golden.py", "tests/test_rbo_exact_value.py", "tests/test_rbo_differential.py"]
_TREC = ["tests/test_trec_measures.py", "tests/test_trec_spread.py"]
_EXACT = ["tests/test_exactness.py", "tests/test_exactcmp.py", "tests/test_exact_print.py"]
_ENGINE = ["tests/test_one_formula.py", "tests/test_engine.py", "tests/test_evaluate.py"]
# tests/test_differential.py (fast against reference on drawn rankings) is left out: its traced baseline does not
# finish on a loaded 2-core machine; a survivor of these is run against it alone (--only ID --tests tests/test_differential.py)
_FAST = ["tests/test_golden_paper.py", "tests/test_golden_tutorial.py", "tests/test_rbp_err.py"]
_BOARD = ["tests/test_significance.py", "tests/test_compare_systems_cli.py"]
_FAMILIES = ["tests/test_trec_eval_measures.py", "tests/test_one_formula_rbo_trec.py"]
_CORR = ["tests/test_correlation_golden.py", "tests/test_correlation_differential.py", "tests/test_correlation_input.py"]

#: file -> (test files, theorems of ``tieaware prove``).  Files under test, in the order the script reports them.
TARGETS: dict[str, tuple[list[str], list[str]]] = {
    "tieaware/model/names.py": (_NAMES, []),
    "tieaware/model/exact.py": (_EXACT + ["tests/test_bad_input.py"], []),
    "tieaware/io/exact_print.py": (_PRINT, []),
    "tieaware/io/text.py": (_READ, []),
    "tieaware/io/blocks.py": (_READ + ["tests/test_trec_equivalence.py"], []),
    "tieaware/io/columns.py": (_READ + ["tests/test_evaluate.py", "tests/test_trec_equivalence.py"], []),
    "tieaware/io/trec.py": (_READ, []),
    "fast/rbo_kernels.py": (_RBO, ["RBO contribution", "RBO^a agreement", "RBO agreement d <= s", "RBO agreement s < d <= l",
                                   "RBO past l", "RBO series tail", "RBO expected", "RBO^a MIN", "RBO^a MAX, EXT vs E", "RBO scan"]),
    "fast/rank_biased_overlap.py": (_RBO, ["RBO scan", "RBO^a MAX, EXT vs E"]),
    "fast/rbo_exact.py": (_RBO, ["RBO scan"]),
    "fast/trec_measures.py": (_TREC + ["tests/test_bad_input.py"], ["Success@k", "Bpref"]),
    "fast/arith.py": (["tests/test_one_formula.py", *_FAST], ["exact arithmetic", "AP harmonic sum", "AP@k", "DCG@k", "nDCG@k", "RBP@k"]),
    "fast/kernels.py": (["tests/test_one_formula.py", *_FAST], ["exchangeability", "pair", "hypergeometric mean", "first relevant (recursion)", "first relevant weights", "exact arithmetic", "AP slot", "AP harmonic sum", "AP@k", "RR group", "RR@k", "DCG slot", "DCG@k", "nDCG@k", "P@k", "R@k", "F1@k",
                                                         "hits pmf", "Var RBP", "ERR subset mean", "ERR group"]),
    "fast/measures.py": (["tests/test_one_formula.py", *_FAST], ["P@k", "R@k", "F1@k", "AP@k", "RR@k", "DCG@k", "nDCG@k", "P(norm=retrieved)@k", "AP(norm=capped)@k", "AP(norm=hits)@k"]),
    "fast/rbp.py": (["tests/test_one_formula.py", *_FAST], ["RBP group", "RBP@k"]),
    "fast/err.py": (["tests/test_one_formula.py", *_FAST], ["ERR subset mean", "ERR group"]),
    "tieaware/runs/engine.py": (_ENGINE + ["tests/test_trec_equivalence.py"], []),
    "tieaware/runs/spread_engine.py": (["tests/test_spread_engine.py", "tests/test_eval_spread.py"], []),
    # the newer code: significance, the leaderboard (split by concept), trec_eval's families, correlation, streams, Dask
    "tieaware/runs/significance.py": (_BOARD, []),
    "tieaware/runs/leaderboard.py": (_BOARD, []),
    "tieaware/runs/board_columns.py": (_BOARD, []),
    "tieaware/runs/board_pairs.py": (_BOARD, []),
    "tieaware/runs/board_draws.py": (_BOARD, []),
    "tieaware/runs/standings.py": (_BOARD, []),
    "tieaware/io/board_text.py": (_BOARD, []),
    "tieaware/io/board_json.py": (_BOARD, []),
    "fast/trec_eval_measures.py": (_FAMILIES, ["set measures", "binG", "infAP", "G", "ndcg_rel", "Rndcg"]),
    "fast/interpolated.py": (_FAMILIES, ["iprec"]),
    "fast/truncation.py": (_FAMILIES, ["-M mixture"]),
    "fast/correlation.py": (_CORR, ["τ_a = E[τ]", "E[τ_AP]", "Var τ", "Var τ_AP", "τ, τ_AP extremes"]),
    "fast/corr_kernels.py": (_CORR, ["τ_a = E[τ]", "E[τ_AP]", "Var τ", "Var τ_AP", "τ, τ_AP extremes"]),
    "tieaware/io/stream.py": (["tests/test_stream_ranges.py", "tests/test_bad_input_streams.py", "tests/test_scale_stream.py"], []),
    "tieaware/io/matrix.py": (["tests/test_scale_inputs.py"], []),
    "tieaware/runs/dask_engine.py": (["tests/test_scale_dask.py"], []),
    "tieaware/check/convention.py": (["tests/test_check_conventions.py", "tests/test_conventions.py"], []),
}

#: Hand-written mutants: (file, text in it, replacement, why).  The audit's survivors, kept so they stay killed.
CURATED: list[tuple[str, str, str, str]] = [
    ("tieaware/runs/engine.py", "return _rbp(g, m.k, m.rbp_p, m.rel)", "return _rbp(g, m.k, Fraction(9, 10), m.rel)", "the float engine's RBP p fixed at 0.9"),
    ("tieaware/runs/spread_engine.py", "var = _rbp(g, m.k, m.rbp_p, m.rel)", "var = _rbp(g, m.k, Fraction(9, 10), m.rel)", "the spread engine's RBP p fixed at 0.9"),
    ("tieaware/model/names.py", "RBP_P = Fraction(4, 5)", "RBP_P = Fraction(9, 10)", "the default RBP p 0.8 -> 0.9 everywhere"),
    ("tieaware/io/columns.py", "(ndigits <= 15)", "(ndigits <= 17)", "the decimal fast path widened to 17 digits"),
    ("tieaware/io/columns.py", "(ndigits <= 15)", "(ndigits <= 16)", "the decimal fast path widened to 16 digits"),
    ("tieaware/io/exact_print.py", "return -value if sign else value", "return value", "interval ends lose their sign"),
    ("tieaware/model/names.py", "return _terminating(value) or str(value)", "return str(value)", "RBP(p=0.04) printed as RBP(p=1/25)"),
]

_SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift, ast.RShift: ast.LShift, ast.BitXor: ast.BitOr}
_SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_SWAP_AUG = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr}


@dataclass
class Mutant:
    """One change: the file, where, what it was and what it becomes."""

    id: str
    file: str
    line: int
    kind: str
    before: str
    after: str
    start: int = field(repr=False, default=0)  # byte offsets in the file
    end: int = field(repr=False, default=0)

    @property
    def end_line(self) -> int:
        return self.line + self.before.count("\n")

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.after.encode("utf-8") + source[self.end :]


# -- generating mutants ---------------------------------------------------------------------


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Generator(ast.NodeVisitor):
    """Walks one module and proposes (node span, replacement text, kind) changes."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.starts = [0]
        for line in source.split(b"\n"):
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.scope: list[str] = []
        self.found: list[tuple[str, int, int, int, str, str]] = []  # (qualname, line, start, end, kind, replacement)

    # spans ---------------------------------------------------------------
    def _span(self, node: ast.AST) -> tuple[int, int]:
        return self.starts[node.lineno - 1] + node.col_offset, self.starts[node.end_lineno - 1] + node.end_col_offset

    def _text(self, node: ast.AST) -> str:
        a, b = self._span(node)
        return self.source[a:b].decode("utf-8")

    def _add(self, node: ast.AST, kind: str, replacement: str) -> None:
        a, b = self._span(node)
        self.found.append((".".join(self.scope) or "<module>", node.lineno, a, b, kind, replacement))

    def _replace(self, node: ast.AST, new: ast.AST, kind: str) -> None:
        self._add(node, kind, "(" + ast.unparse(new) + ")")

    # what is not mutated --------------------------------------------------
    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstrings
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        return  # the message of an error; the condition that raises it is mutated

    def visit_Assert(self, node: ast.Assert) -> None:
        return

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # f-strings: messages and labels

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        for stmt in node.body:
            self.visit(stmt)  # not the decorators (cache sizes) nor the annotations
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if isinstance(test, ast.Compare) and ast.unparse(test) in ("__name__ == '__main__'",) or ast.unparse(test) == "TYPE_CHECKING":
            return
        self._add(test, "branch dropped", "False")
        if node.orelse:
            self._add(test, "branch forced", "True")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._add(node.test, "branch dropped", "False")
        self._add(node.test, "branch forced", "True")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        if not (isinstance(node.test, ast.Constant)):
            self._add(node.test, "loop dropped", "False")
        self.generic_visit(node)

    # operators ------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> None:
        swap = _SWAP_BIN.get(type(node.op))
        if swap is not None:
            new = copy.copy(node)
            new.op = swap()
            self._replace(node, new, "operator")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            swap = _SWAP_CMP.get(type(op))
            if swap is not None:
                new = copy.copy(node)
                new.ops = list(node.ops)
                new.ops[i] = swap()
                self._replace(node, new, "comparison")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        new = copy.copy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self._replace(node, new, "and/or")
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, (ast.Not, ast.USub, ast.Invert)):
            self._add(node, "sign or not dropped", "(" + ast.unparse(node.operand) + ")")
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return  # -1: the sign mutant above is enough
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        swap = _SWAP_AUG.get(type(node.op))
        if swap is not None:
            new = copy.copy(node)
            new.op = swap()
            self._add(node, "operator", ast.unparse(new))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            self._add(node.func, "min/max", "max" if node.func.id == "min" else "min")
        self.generic_visit(node)

    def visit_Break(self, node: ast.Break) -> None:
        self._add(node, "break/continue", "continue")

    def visit_Continue(self, node: ast.Continue) -> None:
        self._add(node, "break/continue", "break")

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if isinstance(v, bool):
            self._add(node, "constant", repr(not v))
        elif isinstance(v, int):
            self._add(node, "constant", repr(0 if v == 1 else v + 1))
        elif isinstance(v, float):
            self._add(node, "constant", repr(v * 1.125 if v else 1.0))


def _shape(text: str) -> Optional[str]:
    """The syntax tree of a code fragment (an expression or statements), or None when it does not parse alone."""
    import textwrap

    try:
        return ast.dump(ast.parse(textwrap.dedent(text).strip(), mode="exec"))
    except SyntaxError:
        try:
            return ast.dump(ast.parse("(" + text + ")", mode="eval"))
        except SyntaxError:
            return None


def generate(path: str, source: Optional[bytes] = None) -> list[Mutant]:
    """Every mutant of *path* (relative to the tree): generated, then :data:`CURATED`."""
    source = (ROOT / path).read_bytes() if source is None else source
    gen = _Generator(source)
    gen.visit(ast.parse(source))
    raw = list(gen.found)
    for file, text, replacement, why in CURATED:
        if file != path:
            continue
        at = source.find(text.encode("utf-8"))
        if at < 0:
            raw.append(("<curated>", 0, -1, -1, "curated (stale: text not found)", why))
            continue
        line = source[:at].count(b"\n") + 1
        raw.append(("<curated>", line, at, at + len(text.encode("utf-8")), "curated: " + why, replacement))
    mutants, seen_ids, seen = [], {}, set()
    for scope, line, a, b, kind, replacement in raw:
        if a < 0:
            print(f"warning: curated mutant of {path} is stale: {replacement}", file=sys.stderr)
            continue
        before = source[a:b].decode("utf-8")
        # a generated replacement is a whole expression or statement in place of another: compare those alone
        new = _shape(replacement)
        if new is None or new == _shape(before) or (a, b, new) in seen:
            continue  # no change, or the same change as another mutant
        seen.add((a, b, new))
        base = f"{path}::{scope}::{kind}: {_short(before)!r} -> {_short(replacement)!r}"
        n = seen_ids.get(base, 0)
        seen_ids[base] = n + 1
        mutants.append(Mutant(base if n == 0 else f"{base} #{n + 1}", path, line, kind, before, replacement, a, b))
    return mutants


# -- the copy of the tree --------------------------------------------------------------------

#: A pytest plugin, written beside the copy: which lines of the target files each test runs.
#: With coverage.py installed it measures them (its C tracer, one dynamic context per test, named
#: by the test's node id as pytest-cov's --cov-context=test does); without it, a line tracer in
#: Python (the same answer, many times slower: the whole of test_differential.py does not finish).
TRACER = '''
import json, os, sys, threading, time

_FILES = set(os.environ["MUTATION_TRACE_FILES"].split(os.pathsep))
_REAL = {os.path.realpath(f): f for f in _FILES}
_hits = {}
_context = ["<collect>"]
_seconds = {}
_theorems = []

try:
    import coverage
except ImportError:
    coverage = None

if coverage is not None:
    _cov = coverage.Coverage(data_file=None, include=sorted(_FILES | set(_REAL)), config_file=False)
    _cov.start()
    _cov.switch_context("<collect>")
else:
    def _local(frame, event, arg):
        if event == "line":
            _hits.setdefault(_context[0], set()).add((frame.f_code.co_filename, frame.f_lineno))
        return _local

    def _global(frame, event, arg):
        if frame.f_code.co_filename in _FILES:
            _hits.setdefault(_context[0], set()).add((frame.f_code.co_filename, frame.f_lineno))
            return _local
        return None

    sys.settrace(_global)
    threading.settrace(_global)


def pytest_runtest_setup(item):
    _context[0] = item.nodeid
    if coverage is not None:
        _cov.switch_context(item.nodeid)


def pytest_runtest_logreport(report):
    _seconds[report.nodeid] = _seconds.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    out = {}
    if coverage is not None:
        _cov.stop()
        data = _cov.get_data()
        for measured in data.measured_files():
            name = _REAL.get(os.path.realpath(measured), measured)
            for line, contexts in data.contexts_by_lineno(measured).items():
                out.setdefault(name, {}).setdefault(str(line), []).extend(c or "<collect>" for c in contexts)
    else:
        sys.settrace(None)
        for context, hits in _hits.items():
            for name, line in hits:
                out.setdefault(name, {}).setdefault(str(line), []).append(context)
    with open(os.environ["MUTATION_TRACE_OUT"], "w") as f:
        json.dump({"lines": out, "seconds": _seconds, "tracer": "coverage.py " + coverage.__version__ if coverage else "settrace"}, f)
'''


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".git", "__pycache__", ".pytest_cache", ".hypothesis", "build", "dist") or n.endswith(".egg-info")}


def _installed_path(site: Path, path: str) -> Path:
    """Where Python sees *path* of the tree when the copy is imported: site/tieaware/..., fast/x.py as site/tieaware/fast/x.py."""
    for name, folder in sorted(PACKAGE_DIRS.items(), key=lambda kv: -len(kv[1])):
        if path.startswith(folder + "/"):
            return site.joinpath(*name.split("."), path[len(folder) + 1 :])
    raise ValueError(f"{path} is not in a package")


def make_copy(into: Path) -> Path:
    """A copy of the tree in *into*/tree and the package names laid over it in *into*/site."""
    tree = into / "tree"
    shutil.copytree(ROOT, tree, ignore=_ignore, symlinks=True)
    site = into / "site"
    pkg = site / "tieaware"
    pkg.mkdir(parents=True)
    for entry in (tree / "tieaware").iterdir():
        (pkg / entry.name).symlink_to(entry)
    for name, folder in PACKAGE_DIRS.items():
        if name != "tieaware":
            (pkg / name.split(".")[1]).symlink_to(tree / folder)
    (site / "_mutation_trace.py").write_text(TRACER)
    return tree


def _environment(into: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(into / "site") + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a same-size mutant in the same second must not reuse a stale .pyc
    # no current folder on sys.path: the copy's tieaware/ would be found there, and tieaware.fast then
    # through the editable install, in the working tree (subprocesses of the tests inherit this too)
    env["PYTHONSAFEPATH"] = "1"
    env.setdefault("HYPOTHESIS_PROFILE", "ci")
    return env


#: A mutant's time limit: TIMEOUT_FACTOR x what its selected tests took unmutated, twice its theorems, plus TIMEOUT_SLACK
#: seconds (pytest's start-up, and the load of a shared machine); at most its file's limit (2 x the baseline + 60 s).
TIMEOUT_FACTOR, TIMEOUT_SLACK = 5.0, 90.0

_PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-o", "addopts="]


def _run(command: list[str], tree: Path, env: dict[str, str], timeout: float) -> tuple[str, str]:
    """('passed' | 'failed' | 'unselected' | 'timeout', last lines of output)."""
    try:
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=max(timeout, 1), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-6:])
    if done.returncode == 0:
        return "passed", tail
    if done.returncode in (4, 5) and command[:len(_PYTEST)] == _PYTEST:
        return "unselected", tail  # a node id pytest cannot find (or none collected): run the whole files instead
    return "failed", tail


class Worker:
    """One job: its own copy of the tree, one mutant at a time.

    The first run of a file's tests (unmutated, which must pass) records
    which tests run which of its lines; a mutant then runs only the tests
    that run the lines it changes, fastest first (the whole selection for
    lines run at import or while collecting, such as module constants).
    The file's theorems run after them.
    """

    def __init__(self, base: Path, index: int, tests: Optional[list[str]] = None, fixed_timeout: bool = False) -> None:
        self.into = base / f"job{index}"
        self.tree = make_copy(self.into)
        self.env = _environment(self.into)
        self.tests = tests
        self.fixed_timeout = fixed_timeout
        self.theorems: Optional[list[str]] = None

    def selection(self, file: str) -> tuple[list[str], list[str]]:
        tests, theorems = TARGETS[file]
        chosen = (self.tests, []) if self.tests else (tests, theorems)
        return chosen if self.theorems is None else (chosen[0], self.theorems)

    def baseline(self, files: list[str], timeout: float) -> tuple[str, float, str, dict[str, dict]]:
        """Run the tests of *files* (one selection) with the line tracer, then their theorems: (status, seconds, output, coverage per file)."""
        tests = self.selection(files[0])[0]
        theorems = list(dict.fromkeys(t for f in files for t in self.selection(f)[1]))
        out = self.into / "trace.json"
        installed = {str(_installed_path(self.into / "site", f)): f for f in files}
        env = dict(self.env, MUTATION_TRACE_FILES=os.pathsep.join(installed), MUTATION_TRACE_OUT=str(out))
        began = time.monotonic()
        status, tail = _run([*_PYTEST, "-p", "_mutation_trace", *tests], self.tree, env, timeout)
        proving = time.monotonic()
        if status == "passed" and theorems:
            status, tail = _run([sys.executable, "-m", "tieaware", "prove", *theorems], self.tree, self.env, timeout)
        seconds = time.monotonic() - began
        traced = json.loads(out.read_text()) if out.exists() else {"lines": {}, "seconds": {}}
        coverage = {f: {"lines": {int(k): v for k, v in traced["lines"].get(name, {}).items()}, "seconds": traced["seconds"],
                        "theorem_seconds": time.monotonic() - proving, "tracer": traced.get("tracer", "settrace")}
                    for name, f in installed.items()}
        return status, seconds, tail, coverage

    def run(self, mutant: Mutant, timeout: float, coverage: Optional[dict]) -> tuple[str, float, str]:
        target = self.tree / mutant.file
        original = target.read_bytes()
        changed = mutant.apply(original)
        try:
            compile(changed, mutant.file, "exec")
        except SyntaxError as exc:
            return "invalid", 0.0, str(exc)
        tests, theorems = self.selection(mutant.file)
        nodes = None
        if coverage is not None:
            contexts = {c for line in range(mutant.line, mutant.end_line + 1) for c in coverage["lines"].get(line, [])}
            if "<collect>" not in contexts:
                nodes = sorted(contexts, key=lambda n: coverage["seconds"].get(n, 0.0))
        if nodes == []:
            return "survived", 0.0, "no selected test runs this line"
        if nodes and not self.fixed_timeout:
            # the tests chosen for this mutant, not the whole selection: a few times what they took unmutated
            timeout = min(timeout, TIMEOUT_FACTOR * sum(coverage["seconds"].get(n, 1.0) for n in nodes)
                          + 2 * coverage.get("theorem_seconds", 0.0) + TIMEOUT_SLACK)
        target.write_bytes(changed)
        began = time.monotonic()
        try:
            status, tail = _run([*_PYTEST, *(nodes or tests)], self.tree, self.env, timeout)
            if status == "unselected":
                status, tail = _run([*_PYTEST, *tests], self.tree, self.env, timeout - (time.monotonic() - began))
            if status == "passed" and theorems:
                status, tail = _run([sys.executable, "-m", "tieaware", "prove", *theorems], self.tree, self.env, timeout - (time.monotonic() - began))
            return status, time.monotonic() - began, tail
        finally:
            target.write_bytes(original)


# -- results -------------------------------------------------------------------------------


def _cache_path(folder: Path, file: str, selection: tuple[list[str], list[str]]) -> Path:
    """Where the traced baseline of *file* is kept: keyed by the file, its tests' text and its theorems."""
    digest = hashlib.sha256()
    for part in [file, *selection[0], "tests/conftest.py"]:
        digest.update(part.encode() + b"\0" + (ROOT / part).read_bytes() + b"\0")
    digest.update(repr(selection[1]).encode())
    return folder / f"{file.replace('/', '_')}-{digest.hexdigest()[:16]}.json"


def file_hash(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()[:16]


def equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, str]:
    """id -> why, from the equivalents file: an id line, then indented lines saying why."""
    found: dict[str, str] = {}
    current = None
    if not path.exists():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace():
            if current is None:
                raise SystemExit(f"{path}: a reason before any mutant id: {line!r}")
            found[current] = (found[current] + " " + line.strip()).strip()
        else:
            current = line.strip()
            found[current] = ""
    return found


def summary(records: list[dict], equivalent: dict[str, str]) -> tuple[int, int, int, list[dict]]:
    """(killed, counted, equivalent, survivors): counted excludes the equivalent mutants."""
    survivors = [r for r in records if r["status"] == "survived" and r["id"] not in equivalent]
    eq = sum(1 for r in records if r["status"] == "survived" and r["id"] in equivalent)
    killed = sum(1 for r in records if r["status"] in ("killed", "timeout"))  # "invalid" (does not compile) counts nowhere
    return killed, killed + len(survivors), eq, survivors


# -- main ----------------------------------------------------------------------------------


def select(args: argparse.Namespace) -> list[Mutant]:
    scopes: dict[str, Optional[set[str]]] = {}
    for entry in args.files or list(TARGETS):  # FILE or FILE::function,function
        file, _, functions = entry.partition("::")
        scopes[file] = set(functions.split(",")) if functions else None
    unknown = [f for f in scopes if f not in TARGETS]
    if unknown:
        raise SystemExit(f"--files: {unknown} not in TARGETS; known: {list(TARGETS)}")
    mutants = [m for f, only in scopes.items() for m in generate(f)
               if only is None or m.kind.startswith("curated") or m.id.split("::")[1].split(".")[0] in only]
    if args.only:
        wanted = set(args.only)
        mutants = [m for m in mutants if m.id in wanted]
        missing = wanted - {m.id for m in mutants}
        if missing:
            raise SystemExit(f"--only: no such mutant {sorted(missing)[0]!r}")
    if args.sample is not None:
        rng = random.Random(args.seed)
        mutants = rng.sample(mutants, min(args.sample, len(mutants)))
    if args.per_file is not None:  # stratified: N of each file, drawn alone, plus every curated mutant
        rng = random.Random(args.seed)
        chosen = []
        for file in scopes:
            own = [m for m in mutants if m.file == file]
            curated = [m for m in own if m.kind.startswith("curated")]
            rest = [m for m in own if not m.kind.startswith("curated")]
            picked = {m.id for m in rng.sample(rest, min(args.per_file, len(rest)))} | {m.id for m in curated}
            chosen += [m for m in own if m.id in picked]
        mutants = chosen
    return mutants


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", nargs="+", metavar="FILE", help="only these files of TARGETS (paths as in the tree); FILE::f,g only the mutants inside its functions (or classes) f and g, and its curated ones")
    parser.add_argument("--sample", type=int, metavar="N", help="a random sample of N mutants")
    parser.add_argument("--per-file", type=int, metavar="N", help="a stratified sample: N random mutants of each file, and all its curated ones")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--only", nargs="+", metavar="ID", help="only the mutants with these ids")
    parser.add_argument("--tests", nargs="+", metavar="TEST", help="run these tests for every mutant instead of TARGETS' selection (no theorems)")
    parser.add_argument("--theorems", nargs="*", metavar="NAME", help="run these theorems for every mutant instead of TARGETS' (none with no names)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run in parallel, each job in its own copy of the tree")
    parser.add_argument("--budget", type=float, default=None, metavar="SECONDS", help="start no mutant after this long")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="per mutant (default 3x its file's baseline + 30 s)")
    parser.add_argument("--results", type=Path, default=Path("mutation_results.jsonl"), help="one JSON line per mutant (default mutation_results.jsonl)")
    parser.add_argument("--resume", action="store_true", help="skip mutants already in --results whose file is unchanged")
    parser.add_argument("--cache", type=Path, default=ROOT / ".mutation_cache", help="traced baselines, reused while a file and its tests are unchanged")
    parser.add_argument("--fresh", action="store_true", help="trace every baseline again, ignoring --cache")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--no-baseline", action="store_true", help="skip running each file's tests unmutated first (every mutant then runs all of them)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # remove the temporary copies when stopped

    mutants = select(args)
    if args.list:
        for m in mutants:
            print(f"{m.file}:{m.line}\t{m.id}")
        counts = {f: sum(1 for m in mutants if m.file == f) for f in dict.fromkeys(m.file for m in mutants)}
        print(f"{len(mutants)} mutants: " + ", ".join(f"{f} {n}" for f, n in counts.items()))
        return 0

    hashes = {f: file_hash(f) for f in TARGETS}
    done: dict[str, dict] = {}
    if args.resume and args.results.exists():
        for line in args.results.read_text().splitlines():
            r = json.loads(line)
            if r.get("hash") == hashes.get(r["file"]):
                done[r["id"]] = r
    todo = [m for m in mutants if m.id not in done]
    equivalent = equivalents()
    print(f"{len(mutants)} mutants over {len({m.file for m in mutants})} files; {len(todo)} to run, {args.jobs} job(s)", flush=True)

    records = [done[m.id] for m in mutants if m.id in done]
    lock = threading.Lock()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tieaware-mutation-") as base:
        workers = [Worker(Path(base), i, args.tests, args.timeout is not None) for i in range(max(1, min(args.jobs, len(todo) or 1)))]
        for w in workers:
            w.theorems = args.theorems
        free = list(workers)
        timeouts: dict[str, float] = {}
        coverage: dict[str, Optional[dict]] = {}
        files = list(dict.fromkeys(m.file for m in todo))
        if args.timeout is not None or args.no_baseline:
            timeouts = {file: args.timeout or 600.0 for file in files}
            coverage = {file: None for file in files}
        else:  # each file's tests unmutated, in parallel: they must pass; they set the timeout and which tests run which line
            if importlib.util.find_spec("coverage") is None:
                print("coverage.py is not installed: the baselines use a line tracer in Python, many times slower "
                      "(pip install -e '.[mutation]')", file=sys.stderr, flush=True)

            def baseline(group: list[str]) -> None:
                paths = {f: _cache_path(args.cache, f, workers[0].selection(f)) for f in group}
                if all(p.exists() for p in paths.values()) and not args.fresh:
                    for f, p in paths.items():
                        seconds, lines = json.loads(p.read_text())
                        lines["lines"] = {int(k): v for k, v in lines["lines"].items()}
                        timeouts[f], coverage[f] = 2 * seconds + 60, lines
                        print(f"baseline {f}: {seconds:.1f} s (cached in {p})", flush=True)
                    return
                with lock:
                    worker = free.pop()
                try:
                    status, seconds, tail, traced = worker.baseline(group, 3600)
                finally:
                    with lock:
                        free.append(worker)
                if status != "passed":
                    raise SystemExit(f"the unmutated tests of {group} do not pass ({status}):\n{tail}")
                for f, lines in traced.items():
                    if not lines["lines"]:
                        raise SystemExit(f"the tests of {f} never ran its copy: they import another tieaware")
                    paths[f].parent.mkdir(parents=True, exist_ok=True)
                    paths[f].write_text(json.dumps([seconds, lines]))
                    timeouts[f], coverage[f] = 2 * seconds + 60, lines
                print(f"baseline {' '.join(group)}: {seconds:.1f} s", flush=True)

            groups: dict[tuple[str, ...], list[str]] = {}
            for f in files:  # files with the same tests share one traced run
                groups.setdefault(tuple(workers[0].selection(f)[0]), []).append(f)
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(workers)) as pool:
                list(pool.map(baseline, groups.values()))

        def one(m: Mutant) -> Optional[dict]:
            if args.budget is not None and time.monotonic() - began > args.budget:
                return None
            with lock:
                worker = free.pop()
            try:
                status, seconds, tail = worker.run(m, timeouts[m.file], coverage[m.file])
            finally:
                with lock:
                    free.append(worker)
            record = {**{k: v for k, v in asdict(m).items() if k not in ("start", "end")}, "hash": hashes[m.file],
                      "status": {"failed": "killed", "passed": "survived"}.get(status, status), "seconds": round(seconds, 1), "output": tail}
            with lock:
                with args.results.open("a") as out:
                    out.write(json.dumps(record) + "\n")
                mark = {"killed": ".", "timeout": "T", "survived": "S", "invalid": "!"}[record["status"]]
                print(mark if mark != "S" else f"\nSURVIVED {m.id}", end="" if mark != "S" else "\n", flush=True)
            return record

        with concurrent.futures.ThreadPoolExecutor(max_workers=len(workers)) as pool:
            for record in pool.map(one, todo):
                if record is not None:
                    records.append(record)
    print()
    killed, counted, eq, survivors = summary(records, equivalent)
    skipped = len(mutants) - len(records)
    score = 100.0 * killed / counted if counted else 100.0
    print(f"mutation score: {score:.1f}% ({killed} of {counted} killed; {eq} equivalent, not counted"
          + (f"; {skipped} not run within the budget" if skipped else "") + f") in {time.monotonic() - began:.0f} s")
    for r in survivors:
        print(f"survivor: {r['file']}:{r['line']}  {r['id']}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
