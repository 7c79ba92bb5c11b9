"""The house: every module sits in a room, imports only the rooms below it, and no import cycle exists.

The rooms, lowest first (README.md, "The house"):

- model: the tied ranking, exact numbers, names (imports nothing else of tieaware);
- fast and reference: the two layers (model only; never each other);
- io: readers and writers (model only); testing: strategies (model, reference);
- proofs: theorems (fast, reference, model, testing);
- runs: whole runs (model, io, and fast's kernels);
- metrics: score batches in numpy or any array-API library (model and fast's kernels only);
- integrations: other tools' interfaces (stateful metric, sentence-transformers, MTEB) over metrics;
- analysis, check, vectors: applications;
- benchmarks, commands and the console entry point on top.

Imports inside functions count: a lazy import is still an arrow.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = {"tieaware": ROOT / "tieaware", "tieaware.fast": ROOT / "fast", "tieaware.reference": ROOT / "reference", "tieaware.proofs": ROOT / "proofs"}

#: room -> the rooms it may import (itself always allowed)
ALLOWED = {
    "model": set(),
    "fast": {"model"},
    "reference": {"model"},
    "io": {"model"},
    "testing": {"model", "reference"},
    "proofs": {"model", "fast", "reference", "testing"},
    "runs": {"model", "io", "fast", "reference"},
    "metrics": {"model", "fast"},  # numpy-only: no io (pandas, pyarrow readers), no runs (sympy)
    "integrations": {"model", "fast", "metrics"},  # other tools' interfaces over the numpy core
    "analysis": {"model", "io", "fast", "reference", "runs"},
    "check": {"model", "io", "fast", "reference", "runs", "testing"},
    "vectors": {"model", "io", "fast", "reference", "runs", "testing", "check"},
    "package": {"model", "io", "runs", "fast", "reference", "proofs", "testing", "check", "vectors"},  # tieaware/__init__.py
    "data": set(),
    "benchmarks": {"model", "io", "fast", "reference", "proofs", "runs", "metrics", "integrations", "testing", "analysis", "check", "vectors", "commands"},
    "commands": {"model", "io", "fast", "reference", "proofs", "runs", "metrics", "integrations", "testing", "analysis", "check", "vectors", "benchmarks"},
}


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for dotted, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([dotted, *parts])
            if not name.startswith(("tieaware.fast", "tieaware.reference", "tieaware.proofs")) and dotted == "tieaware" and folder != FOLDERS["tieaware"]:
                continue
            out[name] = path
    return out


def room(module: str) -> str:
    """The room of a dotted module name.

    >>> room("tieaware.io.columns"), room("tieaware.strategies"), room("tieaware.cli")
    ('io', 'testing', 'commands')
    """
    parts = module.split(".")
    if len(parts) == 1:
        return "package"
    top = parts[1]
    if top in ("strategies",):
        return "testing"  # the public face of tieaware.testing
    if top in ("dask", "ir_measures"):
        return "runs"  # the public faces of tieaware.runs.dask_engine and tieaware.runs.ir_measures_provider
    if top in ("cli", "__main__"):
        return "commands"
    return top


def _imports(path: pathlib.Path, modules: dict[str, pathlib.Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for n in names:
            if n in modules:
                found.add(n)
    return found


MODULES = _modules()
GRAPH = {m: _imports(p, MODULES) - {m} for m, p in MODULES.items()}


def test_every_module_has_a_known_room():
    unknown = sorted(m for m in MODULES if room(m) not in ALLOWED)
    assert not unknown, f"modules outside the rooms the README lists: {unknown}"


def test_tieaware_root_holds_only_the_public_surface():
    # The root keeps the public API, the console entry point, the public strategies, the public Dask engine and the ir_measures provider;
    # everything else is in a room.
    loose = sorted(p.name for p in FOLDERS["tieaware"].glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py", "dask.py", "ir_measures.py", "strategies.py"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_follow_the_rooms(module):
    mine = room(module)
    wrong = sorted(
        target
        for target in GRAPH[module]
        if room(target) != mine and room(target) not in ALLOWED[mine] and target != "tieaware"
    )
    assert not wrong, f"{module} ({mine}) imports {wrong}, above or beside it"


def test_package_imports_only_what_it_must():
    # `import tieaware` is the model's errors, numbers and ranking; the rest is imported on first use.
    eager = {n.module for n in ast.parse((FOLDERS["tieaware"] / "__init__.py").read_text()).body if isinstance(n, ast.ImportFrom)}
    assert {room(m) for m in eager if m} <= {"model"}


def test_no_import_cycle():
    seen: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(u: str) -> None:
        seen[u] = 1
        stack.append(u)
        for v in sorted(GRAPH[u]):
            # a package's own __init__ importing its children is not a cycle of rooms
            if u.startswith(v + ".") or v == "tieaware":
                continue
            if seen.get(v) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(v):] + [v]))
            if v not in seen:
                visit(v)
        stack.pop()
        seen[u] = 2

    for m in sorted(GRAPH):
        if m not in seen:
            visit(m)


def test_readme_house_table_matches_the_folders():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The house", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"\[`(tieaware/[a-z_]+/|fast/|reference/|proofs/|tests/|notebooks/)`\]", section))
    rooms = {f"tieaware/{p.name}/" for p in FOLDERS["tieaware"].iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert rooms | {"fast/", "reference/", "proofs/", "tests/", "notebooks/"} == listed


def test_no_command_imports_another_command():
    # A command parses, calls one function of a room and prints: what two commands share lives in a room
    # (the two-run reader in tieaware.runs.paired_runs) or, for argparse options, in tieaware.commands.options.
    from tieaware.cli import SUBCOMMANDS

    commands = {f"tieaware.commands.{name}" for name in SUBCOMMANDS} & set(GRAPH)
    wrong = sorted((m, t) for m in commands for t in GRAPH[m] if t in commands and t != m)
    assert not wrong, f"commands importing commands: {wrong}"


#: The longest a module may be: one concept a reader can hold in their head (the developers' guide).
MAX_LINES = 900


def test_no_module_over_900_lines():
    long = sorted((len(path.read_text(encoding="utf-8").splitlines()), name) for name, path in MODULES.items())
    over = [(name, n) for n, name in long if n > MAX_LINES]
    assert not over, f"modules over {MAX_LINES} lines (split them by concept): {over}"


def _private_imports(path: pathlib.Path, own: str) -> list[str]:
    """``from tieaware.x import _name`` lines of a module that reach into another module's privates."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module in MODULES and node.module != own:
            found += [f"{node.module}.{a.name} (line {node.lineno})" for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_module_imports_another_modules_underscore_name():
    # Rooms talk through public names: what another module needs is a public, documented name of its module
    # (imports inside functions count).
    wrong = {name: got for name, path in MODULES.items() if (got := _private_imports(path, name))}
    assert not wrong, f"imports of another module's underscore names: {wrong}"
