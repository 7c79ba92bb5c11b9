"""Tests that need no peer never vanish with it, and a float64 score matrix keeps its distinct scores apart.

tests/test_trec_measures.py and tests/test_negative_labels.py hold by-hand
tests beside a few that compare with pytrec_eval: without pytrec_eval only
those few skip (a module-level importorskip skipped them all).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fractions import Fraction

import tieaware

ROOT = Path(__file__).resolve().parent.parent

_BLOCKED = """
import sys
sys.modules["pytrec_eval"] = None  # as if not installed: importing it raises ImportError
import pytest
sys.exit(pytest.main(["-q", "-p", "no:randomly", "-p", "no:cacheprovider", *sys.argv[1:]]))
"""


def test_by_hand_tests_run_without_pytrec_eval():
    files = ["tests/test_trec_measures.py::test_by_hand", "tests/test_negative_labels.py::test_the_qrels_keep_the_label"]
    done = subprocess.run([sys.executable, "-c", _BLOCKED, *files], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "2 passed" in done.stdout, done.stdout[-2000:]


def test_peer_tests_skip_one_by_one_without_pytrec_eval():
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED, "tests/test_negative_labels.py", "-rs"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert "passed" in done.stdout and "1 skipped" in done.stdout, done.stdout[-2000:]


def test_float64_scores_that_collide_in_float32_do_not_tie():
    # 1.0 and 1.0 + 1e-12 are one float32 but two float64: the relevant column ranks first alone
    assert tieaware.evaluate_matrix([[1.0, 1.0 + 1e-12]], [[0, 1]], "P@1").mean["P@1"] == Fraction(1)
