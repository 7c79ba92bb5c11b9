"""The README's Dask snippet runs as written, as a script (its local cluster's workers import the script again)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return next(b for b in blocks if "tieaware.dask.evaluate" in b)


def test_the_snippet_has_the_main_guard():
    assert 'if __name__ == "__main__":' in _snippet()


def test_the_snippet_runs_as_a_script(tmp_path):
    pytest.importorskip("distributed")
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]}), tmp_path / "qrels.parquet")
    (tmp_path / "run").mkdir()
    pq.write_table(pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 1.0]}), tmp_path / "run" / "part-0.parquet")
    (tmp_path / "snippet.py").write_text(_snippet())
    done = subprocess.run([sys.executable, "snippet.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("3/4 ") or done.stdout.startswith("0.75 "), done.stdout
