"""Run every docstring example in the installed package under pytest.

Collected through the import system (not --doctest-modules on file paths),
so the layers are imported as tieaware.reference / tieaware.fast, exactly as
a user imports them.
"""

import doctest
import importlib
import pkgutil

import pytest

import tieaware


def _modules():
    names = ["tieaware"]
    for sub in ("tieaware", "tieaware.reference", "tieaware.fast", "tieaware.proofs"):
        try:
            pkg = importlib.import_module(sub)
        except ModuleNotFoundError:
            continue
        names.append(sub)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, sub + ".")]
    return sorted(set(names))


MODULES = _modules()


def test_every_layer_is_collected():
    for layer in ("tieaware.reference", "tieaware.fast"):
        assert layer in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
