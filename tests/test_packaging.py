"""The install maps top-level folders into one package; nothing may be left out or leak."""

import tomllib
from pathlib import Path

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
