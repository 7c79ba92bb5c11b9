"""scripts/mutation.py keeps working: its mutants compile and change something, a tiny run prints a score, the tree is left alone.

The full mutation run takes hours (docs/proofs.md, "Mutation testing"), so it
is not part of the test suite; this runs 5 mutants of one small module
against one test file.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "mutation.py"


def _module():
    spec = importlib.util.spec_from_file_location("mutation_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module


mutation = _module()


@pytest.mark.parametrize("path", list(mutation.TARGETS))
def test_every_mutant_compiles_and_changes_the_code(path):
    source = (ROOT / path).read_bytes()
    mutants = mutation.generate(path)
    assert len(mutants) >= 10
    assert len({m.id for m in mutants}) == len(mutants)
    original = ast.dump(ast.parse(source))
    for m in mutants[:: max(1, len(mutants) // 40)]:
        changed = m.apply(source)
        assert ast.dump(ast.parse(changed)) != original, m.id
        assert source[m.start : m.end].decode() == m.before


def test_targets_and_their_tests_exist():
    for path, (tests, theorems) in mutation.TARGETS.items():
        assert (ROOT / path).is_file(), path
        assert all((ROOT / t).is_file() for t in tests), tests
    from tieaware.proofs import THEOREMS

    assert {t for _, theorems in mutation.TARGETS.values() for t in theorems} <= set(THEOREMS)


def test_the_audits_mutants_are_found():
    # each hand-written mutant must still match its file: rewriting the code means rewriting the mutant
    for path, text, replacement, why in mutation.CURATED:
        assert text in (ROOT / path).read_text(), why
        assert any(m.kind == "curated: " + why for m in mutation.generate(path)), why


def test_the_copy_is_what_the_tests_import(tmp_path):
    # every room, fast/ included (package-dir maps it to tieaware.fast), comes from the copy, in subprocesses too
    tree = mutation.make_copy(tmp_path)
    code = "import importlib; print(*(importlib.import_module(m).__file__ for m in ('tieaware.model.names', 'tieaware.fast.rbp', 'tieaware.runs.engine')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=mutation._environment(tmp_path), capture_output=True, text=True, check=True)
    files = done.stdout.split()
    assert files == [str(mutation._installed_path(tmp_path / "site", p)) for p in ("tieaware/model/names.py", "fast/rbp.py", "tieaware/runs/engine.py")]
    assert all(Path(f).resolve().is_relative_to(tree) for f in files)


def test_equivalents_file_reads():
    found = mutation.equivalents()
    assert all(why for why in found.values()), "every equivalent mutant says why"


def test_a_tiny_run_prints_a_score_and_leaves_the_tree_alone(tmp_path):
    target = ROOT / "tieaware" / "model" / "names.py"
    before = target.read_bytes()
    results = tmp_path / "results.jsonl"
    curated = next(m.id for m in mutation.generate("tieaware/model/names.py") if "RBP(p=1/25)" in m.kind)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--files", "tieaware/model/names.py", "--tests", "tests/test_names_roundtrip.py",
         "--sample", "4", "--seed", "3", "--results", str(results), "--cache", str(tmp_path / "cache")],
        capture_output=True, text=True, cwd=tmp_path, timeout=900,
    )
    assert "mutation score: " in done.stdout, done.stdout + done.stderr
    assert done.returncode in (0, 1)
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 4 and all(r["status"] in ("killed", "survived", "timeout") for r in records)
    # the audit's RBP(p=1/25) mutant is killed, by the round-trip test
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--files", "tieaware/model/names.py", "--tests", "tests/test_names_roundtrip.py",
         "--only", curated, "--results", str(results), "--resume", "--no-baseline"],
        capture_output=True, text=True, cwd=tmp_path, timeout=900,
    )
    assert "mutation score: 100.0% (1 of 1 killed" in done.stdout, done.stdout + done.stderr
    assert target.read_bytes() == before
