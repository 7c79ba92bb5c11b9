"""``tieaware.calc_aggregate`` with ir_measures' names for trec_eval's other families, against trec_eval itself.

Golden values from outside: trec_eval 9.0.8's ``-m all_trec`` output on its
own test files (usnistgov/trec_eval, tag v9.0.8, ``test/qrels.test`` and
``test/results.test``), recorded in tests/data/trec_eval/options/recorded.json.gz
(case ``test.a``; tests/data/trec_eval/README.md says how it was made).
With ``tie_break="trec_eval"`` calc_aggregate computes ir_measures' (and
trec_eval's) own numbers: each name below must print as trec_eval's line,
to its 4 decimals.  ir_measures aggregates NumQ, NumRel, NumRet and
NumRelRet by the sum (its SumAgg), as trec_eval's summary does.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import tieaware

DATA = Path(__file__).parent / "data" / "trec_eval" / "options"

#: ir_measures' name -> trec_eval's line name in -m all_trec.
NAMES = {
    "SetP": "set_P",
    "SetR": "set_recall",
    "SetF": "set_F",
    "SetAP": "set_map",
    "SetP(relative=True)": "set_relative_P",
    "IPrec@0.0": "iprec_at_recall_0.00",
    "IPrec@0.5": "iprec_at_recall_0.50",
    "IPrec@1.0": "iprec_at_recall_1.00",
    "infAP": "infAP",
    "NumQ": "num_q",
    "NumRel": "num_rel",
    "NumRet": "num_ret",
    "NumRelRet": "num_rel_ret",
}


def _read(name, columns):
    out = {}
    with gzip.open(DATA / name, "rt") as f:
        for line in f:
            parts = line.split()
            if columns == "qrels":
                out.setdefault(parts[0], {})[parts[2]] = int(parts[3])
            else:
                out.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    return out


@pytest.fixture(scope="module")
def trec_eval_lines():
    recorded = json.loads(gzip.open(DATA / "recorded.json.gz").read())["test.a"]
    return {line.split("\t")[0].rstrip(): line.split("\t")[2] for line in recorded.splitlines() if "\tall\t" in line}


def test_ir_measures_names_give_trec_eval_values(trec_eval_lines):
    qrels, run = _read("qrels.test.gz", "qrels"), _read("results.test.gz", "run")
    got = tieaware.calc_aggregate(list(NAMES), qrels, run, tie_break="trec_eval")
    for name, line in NAMES.items():
        value = got[name]
        text = trec_eval_lines[line]
        if line.startswith("num_"):
            assert value == int(text), name
        else:
            assert f"{float(value):.4f}" == text, (name, value, text)
    # tie-aware (the default): the counts and set measures are tie-invariant, so they are trec_eval's too
    tied = tieaware.calc_aggregate([n for n in NAMES if not n.startswith(("IPrec", "infAP"))], qrels, run)
    for name, value in tied.items():
        assert value == got[name], name
