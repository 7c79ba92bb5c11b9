"""The install maps top-level folders into one package; nothing may be left out or leak; the metadata a published package has.

A LICENSE in the repository and the wheel (PEP 639), pytest and hypothesis behind extras so `pip install
tieaware` stays small, `tieaware --version` without the heavy imports, `eval --help` listing every measure.
"""

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"tieaware": "tieaware", "reference": "tieaware.reference", "fast": "tieaware.fast", "proofs": "tieaware.proofs"}


def _config():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_listed():
    listed = set(_config()["packages"])
    for folder, package in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            assert ".".join((package, *parts)) in listed, init


def test_only_the_tieaware_name_is_installed():
    config = _config()
    assert all(name == "tieaware" or name.startswith("tieaware.") for name in config["packages"])
    assert set(config["package-dir"]) == set(FOLDERS.values())


# -- published-package metadata -------------------------------------------------------------------


def _project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_license_file_and_metadata_in_the_current_form():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Permission is hereby granted, free of charge" in text
    project = _project()
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]  # PEP 639
    # PEP 639: a license expression replaces the License :: classifiers
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    assert "Typing :: Typed" in project["classifiers"] and (ROOT / "tieaware" / "py.typed").exists()
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in project["classifiers"])
    assert "information retrieval" in project["keywords"] and "trec_eval" in project["keywords"]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert requires == ["setuptools>=77"]  # the first setuptools that writes License-Expression


def test_pytest_and_hypothesis_are_extras_not_dependencies():
    project = _project()
    names = lambda reqs: {r.split(">")[0].split("[")[0].strip().lower() for r in reqs}  # noqa: E731
    assert not names(project["dependencies"]) & {"pytest", "hypothesis"}
    extras = project["optional-dependencies"]
    assert names(extras["check"]) == {"hypothesis"}
    assert extras["testing"] == ["tieaware[check]", "pytest>=8"]
    assert "testing" in extras["test"][0]  # the README's second command still installs what the suite needs


def test_the_wheel_carries_the_license(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip("no package index to build the wheel with: " + done.stderr.strip()[-200:])
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("tieaware-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = z.read(metadata).decode()
        (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert z.read(license_file).decode().startswith("MIT License")
    assert "License-Expression: MIT" in text and "License-File: LICENSE" in text
    assert "Requires-Dist: hypothesis" in text and 'extra == "check"' in text
    requires = [line for line in text.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert not [r for r in requires if "pytest" in r or "hypothesis" in r], requires


_WITHOUT = '''
import importlib.abc, runpy, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("hypothesis", "pytest", "_pytest"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
sys.argv = ["tieaware", *sys.argv[1:]]
runpy.run_module("tieaware", run_name="__main__")
'''


def _without_extras(*argv: str, cwd=None):
    """Run `tieaware ARGV` as if pip had installed tieaware without its extras (no hypothesis, no pytest)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return subprocess.run([sys.executable, "-c", _WITHOUT, *argv], capture_output=True, text=True, timeout=600, cwd=cwd, env=env)


def test_evaluation_needs_neither_hypothesis_nor_pytest(tmp_path):
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\n")
    for argv in (["eval", "-m", "AP"], ["compare", "q", "r", "r", "-m", "AP"], ["rbo", "r", "r"], ["--version"], ["--help"], ["eval", "q", "r", "--float"]):
        done = _without_extras(*argv, cwd=tmp_path)
        assert done.returncode == 0 and done.stderr == "", (argv, done.stderr)


@pytest.mark.parametrize("argv", [["check", "m:f", "AP"], ["conformance"], ["vectors", "--out", "x"], ["check", "--help"]])
def test_commands_needing_an_extra_say_which_in_one_line(argv):
    done = _without_extras(*argv)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"tieaware {argv[0]}: error: needs hypothesis, which is not installed: pip install 'tieaware[check]'\n"


def test_the_python_modules_needing_an_extra_name_it():
    code = _WITHOUT.split("sys.argv")[0] + '''
for name, extra in (("tieaware.check", "check"), ("tieaware.strategies", "testing")):
    try:
        __import__(name)
    except ModuleNotFoundError as exc:
        assert exc.name == "hypothesis" and f"pip install 'tieaware[{extra}]'" in str(exc), exc
    else:
        raise AssertionError(name)
from tieaware import vectors
assert list(vectors.iter_cases("precision"))
try:
    vectors.pytest_cases("precision")
except ModuleNotFoundError as exc:
    assert "pip install 'tieaware[testing]'" in str(exc)
else:
    raise AssertionError("pytest_cases")
'''
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_version_imports_none_of_the_heavy_packages():
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "tieaware", "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("tieaware ")
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert not imported & {"sympy", "hypothesis", "numpy", "mpmath", "pytest", "tabulate", "tqdm"}, sorted(imported)


def test_eval_help_lists_every_measure_names_knows():
    from tieaware.model.names import MEASURES, forms

    done = subprocess.run([sys.executable, "-m", "tieaware", "eval", "--help"], capture_output=True, text=True, timeout=120)
    words = set(done.stdout.split())
    listed = [f for f in forms() if not f.startswith("RBO")]  # RBO compares two rankings: tieaware rbo
    assert len(listed) == len(MEASURES) - 1 and set(listed) <= words, set(listed) - words
