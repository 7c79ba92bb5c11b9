"""compare_systems(...).dataframe() against PyTerrier's own pt.Experiment on untied runs (the shape and the numbers).

On runs without ties every tie-aware value is the ordinary one, so the
PyTerrier-shaped frame (``name, measure, value, +, -, p-value, corrected
p-value``) must hold what ``pt.Experiment(..., baseline=0, correction=...)``
reports in its wide columns (``map``, ``map +``, ``map -``, ``map p-value``,
``map p-value corrected``).  Skips where pyterrier is not installed (CI
venv A requires it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tieaware.runs.leaderboard import compare_systems

pt = pytest.importorskip("pyterrier")


def untied(seed: int, queries: int = 12, docs: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        scores = rng.permutation(docs).astype(float)  # distinct scores: no ties
        rows += [{"qid": f"q{q}", "docno": f"d{d}", "score": scores[d]} for d in range(docs)]
    frame = pd.DataFrame(rows)
    frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    return frame


@pytest.mark.parametrize("correction", ["bonferroni", "holm"])
def test_the_frame_holds_pt_experiments_numbers(correction):
    rng = np.random.default_rng(7)
    qrels = pd.DataFrame([{"qid": f"q{q}", "docno": f"d{d}", "label": 1} for q in range(12)
                          for d in rng.choice(8, size=int(rng.integers(1, 4)), replace=False).tolist()])
    topics = pd.DataFrame({"qid": [f"q{q}" for q in range(12)], "query": ["x"] * 12})
    systems = {"base": untied(1), "s1": untied(2), "s2": untied(3)}
    theirs = pt.Experiment(list(systems.values()), topics, qrels, eval_metrics=["map"], names=list(systems),
                           baseline=0, correction=correction)
    ours = compare_systems(qrels, {n: f[["qid", "docno", "score"]] for n, f in systems.items()}, "AP", test="t",
                           baseline="base", correction=correction, exact=False).dataframe()
    assert list(ours.columns[:7]) == ["name", "measure", "value", "+", "-", "p-value", "corrected p-value"]
    for row in theirs.itertuples(index=False):
        mine = ours[ours.name == row.name].iloc[0]
        assert mine["value"] == pytest.approx(getattr(row, "map"), abs=1e-12)
        if row.name == "base":
            assert pd.isna(mine["+"]) and pd.isna(mine["p-value"])
            continue
        wide = dict(zip(theirs.columns, row))
        assert (mine["+"], mine["-"]) == (wide["map +"], wide["map -"])
        assert mine["p-value"] == pytest.approx(wide["map p-value"], rel=1e-9)
        assert mine["corrected p-value"] == pytest.approx(wide["map p-value corrected"], rel=1e-9)
