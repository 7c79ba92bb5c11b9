"""`tieaware conformance`: the checker against real libraries, here or in a worker of another Python (small budgets, for CI).

The libraries that need torch, numpy < 2 or pandas < 3 are never installed in CI; their rows in
docs/conformance.md were made in their own environments (``--python LIBRARY=PYTHON``).  Here the
worker protocol is tested with this Python, and each library present is checked in process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tieaware import TieawareError
from tieaware.check.conformance import (
    CONFORMS,
    CONFORMS_AS,
    DIFFERS,
    ENVIRONMENTS,
    LIBRARIES,
    NOT_INSTALLED,
    PEERS,
    Peer,
    _vector,
    check_peer,
    markdown,
    reproducer,
    run_all,
    table,
    tie_rule,
)
from tieaware.cli import main
from tieaware.model.tie_rules import NAMES

BUDGET = dict(max_size=3, max_examples=10)


def _peer(library, call):
    [peer] = [p for p in PEERS if p.library == library and p.call == call]
    return peer


def _row(library, call, python=None):
    return check_peer(_peer(library, call), python, **BUDGET)


def _tie_vector(row):
    [tie] = [f for f in row.result.profile if f.aspect in ("ties", "large groups") and f.severity == "bug"][:1]
    return _vector(tie.counterexample, row.peer.machine_dependent)


# -- peers written here ------------------------------------------------------------------------------------

RIGHT_AP = """
from tieaware import fast, from_scores
def impl(scores, labels):
    return fast.average_precision(from_scores(scores, labels), exact=False)
"""

STABLE_AP = """
def impl(scores, labels):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])   # a stable sort: ties in input order
    hits, total = 0, 0.0
    for rank, i in enumerate(order, start=1):
        if labels[i] >= 1:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0
"""

FLOAT32_AP = """
import struct
from tieaware import fast, from_scores
def impl(scores, labels):
    value = fast.average_precision(from_scores(scores, labels), exact=False)
    return struct.unpack("f", struct.pack("f", value))[0]
"""

SCRAMBLED_AP = """
from tieaware import fast
def impl(scores, labels):   # ties broken by a scrambled key, as an unstable sort on another CPU might
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], (i * 7 + len(scores) * 3 + int(labels[i])) % 5, i))
    return float(fast.average_precision([labels[i] for i in order]))
"""

MISSING = Peer("nosuchlib", "nosuchlib", "map", "AP", "import nosuchlib\ndef impl(s, l):\n    return 0.0\n")


def test_a_library_that_cannot_be_imported_is_not_installed_never_conforms():
    row = check_peer(MISSING, **BUDGET)
    assert row.status == NOT_INSTALLED and row.result is None
    text = table([row])
    assert "not installed" in text and "conforms" not in text


def test_a_right_implementation_conforms_and_its_rule_is_averaged():
    row = check_peer(Peer("mine", "mine", "ap", "AP", RIGHT_AP), **BUDGET)
    assert row.status == CONFORMS and tie_rule(row) == "averaged" and row.result.convention == "AP"


def test_a_stable_sort_is_named_input_order_with_its_vector():
    row = check_peer(Peer("mine", "mine", "ap", "AP", STABLE_AP), **BUDGET)
    assert row.status == DIFFERS and tie_rule(row) == "input (up to 65)"
    assert _tie_vector(row) == "scores [1.0, 1.0], labels [0, 1]: expected 3/4, got 0.5"


def test_a_tie_order_no_named_rule_explains_is_arbitrary_and_reported_machine_independently():
    row = check_peer(Peer("scrambled", "scrambled", "ap", "AP", SCRAMBLED_AP, machine_dependent=True), **BUDGET)
    assert row.status == DIFFERS and tie_rule(row).startswith("arbitrary")
    vector = _tie_vector(row)
    assert "got a tie-broken value" in vector and "got 0." not in vector
    assert "arbitrary" in markdown([row], **BUDGET)


def test_the_markdown_page_counts_and_tabulates_and_sums_up_each_library():
    ok = check_peer(Peer("mine", "mine", "ap", "AP", RIGHT_AP), **BUDGET)
    stable = check_peer(Peer("mine", "mine", "stable ap", "AP", STABLE_AP), **BUDGET)
    page = markdown([ok, stable, check_peer(MISSING, **BUDGET)], **BUDGET)
    assert "3 calls of 1 libraries: 1 conform, 0 conform as another\nconvention, 1 differ, 1 not installed." in page
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    assert rows[0].split("|")[1].strip() == "library"  # a GitHub table: header first
    assert any("mine" in r and "| conforms" in r for r in rows)
    assert any("nosuchlib" in r and "| not installed" in r for r in rows)
    summary = page[page.index("## Each library") :]
    assert "### mine" in summary and "`input (up to 65)`" in summary and "`averaged`" in summary


def test_the_rule_names_are_the_presets_names():
    from tieaware.model import tie_presets, tie_rules

    assert tie_presets.RULES == tie_rules.RULES and all(rule in tie_presets.PRESETS for rule in tie_rules.RULES)


def test_peers_checked_in_parallel_jobs_give_the_rows_one_job_gives():
    """--jobs 2: each check still runs the implementation in its own worker process (no daemonic pool)."""
    peers = [Peer("mine", "mine", "stable ap", "AP", STABLE_AP), Peer("mine", "mine", "ap", "AP", RIGHT_AP)]
    rows = run_all(peers, max_size=2, max_examples=3, jobs=2)
    assert [r.status for r in rows] == [DIFFERS, CONFORMS], [r.note for r in rows]
    assert tie_rule(rows[0]) == "input (up to 65)"


def test_unknown_library_is_refused():
    with pytest.raises(TieawareError, match=r"library is not one of .*got 'trec_eval'"):
        run_all(libraries=["trec_eval"])
    with pytest.raises(TieawareError, match=r"pythons must be a library"):
        run_all(libraries=["TRM"], pythons={"ir_measures/nosuchenv": sys.executable})


def test_every_peer_names_a_known_environment_and_every_library_is_listed():
    assert {p.env for p in PEERS} <= set(ENVIRONMENTS)
    for library in ("torchmetrics", "trectools", "rank_eval", "RecBole", "recpack", "cornac", "recommenders", "TRM", "ir_measures"):
        assert library in LIBRARIES
    assert len(LIBRARIES) >= 24
    providers = {p.call.split(":")[0] for p in PEERS if p.library == "ir_measures"}
    assert {"pytrec_eval", "trectools", "msmarco", "cwl_eval", "gdeval", "judged", "ranx"} <= providers
    heavy = ("torchmetrics", "RecBole", "recpack", "torcheval", "pytorch-ignite", "sentence-transformers", "MTEB")
    assert all(p.env == "torch" for p in PEERS if p.library in heavy)
    assert all(p.env == "own" for p in PEERS if p.library in ("implicit", "catboost", "keras-rs"))  # never in CI


# Where a call names its cutoff: k=5, top_k=5, K=5, top=5, @5, depth=5, AP(5), [5], P_5 ...
_CUTOFF = re.compile(r"(?:\bk=|top_k=\[?|\bK=|top=|@|depth=|\(|\[|_)(\d+)\b")


@pytest.mark.parametrize("peer", [p for p in PEERS if p.statistic is None and not p.measure.startswith(("RBO", "Rprec"))], ids=lambda p: f"{p.library}: {p.call}")
def test_every_peer_is_checked_at_the_cutoff_its_call_uses(peer):
    """The measure string carries the call's own cutoff (recommenders' map(k=5) is AP@5, not AP); depth=1000
    is no cutoff for rankings of the checker's sizes.  In "provider: measure" calls, the measure's."""
    from tieaware.model.names import parse

    call = peer.call.rsplit(": ", 1)[-1]
    cutoffs = {int(x) for x in _CUTOFF.findall(call) if int(x) < 1000}
    measure = parse(peer.measure)
    assert cutoffs == ({measure.k} if measure.k is not None else set()), (peer.call, peer.measure)


# -- the worker: a peer in another Python --------------------------------------------------------------------


def test_a_worker_gives_the_same_row_as_this_process():
    """The worker runs the peer's code in another interpreter (here: this one) and sends floats back exactly."""
    for code in (STABLE_AP, FLOAT32_AP):
        peer = Peer("mine", "mine", "ap", "AP", code)
        here, there = check_peer(peer, **BUDGET), check_peer(peer, sys.executable, **BUDGET)
        assert there.python == sys.executable
        assert (here.status, tie_rule(here), str(here.result.precision)) == (there.status, tie_rule(there), str(there.result.precision))
    assert str(there.result.precision) == "float32" and there.status == CONFORMS


def test_a_worker_reports_a_missing_library_and_errors_as_values():
    assert check_peer(MISSING, sys.executable, **BUDGET).status == NOT_INSTALLED
    raising = Peer("mine", "mine", "ap", "AP", "def impl(s, l):\n    if len(s) > 1:\n        raise ValueError('one document only')\n    return 1.0\n")
    row = check_peer(raising, sys.executable, **BUDGET)
    assert row.status == DIFFERS and any("ValueError: one document only" in (f.counterexample.exception or "") for f in row.result.profile if f.counterexample)


def test_a_library_of_several_environments_takes_a_python_per_environment(monkeypatch):
    import tieaware.check.conformance as conformance

    seen = []
    monkeypatch.setattr(conformance, "check_peer", lambda peer, python, **kw: seen.append((peer.call, python)))
    pythons = {"ir_measures": "/a/python", "ir_measures/pandas2": "/b/python"}
    run_all(libraries=["ir_measures"], pythons=pythons)
    assert ("ranx: AP", "/b/python") in seen and ("pytrec_eval: AP", "/a/python") in seen


def test_cli_python_is_validated(capsys):
    for item, message in (("TRM", "must be LIBRARY=PYTHON"), ("nosuch=/usr/bin/env", "names no library"), ("TRM=/nonexistent/python", "executable Python")):
        assert main(["conformance", "--library", "TRM", "--python", item]) == 2
        assert message in capsys.readouterr().err


# -- the libraries installed in CI ----------------------------------------------------------------------------


@pytest.mark.peers
@pytest.mark.parametrize("call", ["ndcg_score(k=5, ignore_ties=False)", "dcg_score(k=5, ignore_ties=False)"])
def test_sklearn_tie_averaging_conforms(call):
    pytest.importorskip("sklearn")
    row = _row("scikit-learn", call)
    assert row.status == CONFORMS, table([row])
    assert tie_rule(row) == "averaged" and row.version


@pytest.mark.peers
def test_sklearn_ignoring_ties_breaks_ties_in_a_machine_dependent_order():
    pytest.importorskip("sklearn")
    row = _row("scikit-learn", "ndcg_score(k=5, ignore_ties=True)")
    assert row.status == DIFFERS and row.result.convention == "nDCG@5"
    # np.argsort is unstable on AVX-512 CPUs: the rule is what the probes found on this machine (a rule
    # with the largest group it held on, or "arbitrary"), and the vector never shows a CPU's value.
    rule = tie_rule(row)
    assert rule == "arbitrary" or rule.split(" ")[0] in NAMES and "up to" in rule, rule
    assert "depends on the CPU" in _tie_vector(row)


@pytest.mark.peers
def test_sklearn_average_precision_takes_a_tie_group_as_one_threshold():
    pytest.importorskip("sklearn")
    row = _row("scikit-learn", "average_precision_score")
    assert row.status == DIFFERS and tie_rule(row) == "one-threshold (up to 65)"
    assert row.result.convention == "AP"  # without ties, each document is its own threshold: ordinary AP
    # Two tied documents, one relevant: precision at the threshold is 1/2, the tie-aware AP is 3/4.
    assert _tie_vector(row) == "scores [1.0, 1.0], labels [0, 1]: expected 3/4, got 0.5"


@pytest.mark.peers
def test_pytrec_eval_breaks_ties_by_docno_and_is_right_without_ties():
    pytest.importorskip("pytrec_eval")
    row = _row("pytrec_eval", "map")
    assert row.status == DIFFERS and tie_rule(row) == "docno-desc (up to 65)" and row.result.convention == "AP"


@pytest.mark.peers
def test_trm_expected_values_conform_and_its_minimum_divides_by_the_documents_retrieved():
    pytest.importorskip("trm")
    assert _row("TRM", "evaluate map@5 .expected").status == CONFORMS
    low = _row("TRM", "evaluate precision@5 .minimum")
    assert low.status == CONFORMS_AS and low.result.conforms_as == "P(norm=retrieved)@5"
    page = markdown([_row("TRM", "evaluate precision@5 .expected"), low], **BUDGET)
    assert "inconsistent" in page  # P@5's expected value and its minimum are two conventions


@pytest.mark.peers
def test_rbo_package_is_tie_oblivious():
    pytest.importorskip("rbo")
    row = _row("rbo", "RankingSimilarity(S, L).rbo_ext(p=0.9)")
    assert row.status == DIFFERS and tie_rule(row) == "input"


@pytest.mark.peers
def test_cli_prints_the_table_and_writes_markdown(tmp_path, capsys):
    pytest.importorskip("sklearn")
    page = tmp_path / "conformance.md"
    argv = ["conformance", "--library", "scikit-learn", "--max-size", "2", "--max-examples", "5", "--markdown", str(page)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ndcg_score(k=5, ignore_ties=False)" in out and "conforms" in out and "differs" in out
    text = page.read_text()
    assert text.startswith("# Conformance of IR libraries")
    assert "tieaware conformance --library scikit-learn --max-examples 5 --markdown conformance.md" in text


@pytest.mark.peers
def test_sklearn_rows_hold_on_every_cpu_whatever_the_argsort_order(monkeypatch):
    """Simulate an AVX-512 argsort: numpy's argsort with ties reversed in blocks; the verdicts do not move."""
    pytest.importorskip("sklearn")
    import numpy as np

    original = np.argsort

    def other_cpu(a, *args, **kwargs):
        values = np.asarray(a)
        if values.ndim == 2:
            return np.asarray([other_cpu(row) for row in values])
        out = list(original(values, kind="stable"))
        i = 0
        while i < len(out):  # reverse each run of equal values: another valid (unstable) order
            j = i
            while j + 1 < len(out) and values[out[j + 1]] == values[out[i]]:
                j += 1
            out[i : j + 1] = out[i : j + 1][::-1]
            i = j + 1
        return np.asarray(out)

    import os
    import tempfile

    # the implementation runs in a forked worker (which inherits the patch): count its calls on disk
    calls = tempfile.NamedTemporaryFile(prefix="tieaware-argsort-", delete=False).name

    def counted(*a, **k):
        with open(calls, "a") as f:
            f.write("1")
        return other_cpu(*a, **k)

    rows, rules = {}, {}
    try:
        for patched in (False, True):
            if patched:
                monkeypatch.setattr(np, "argsort", counted)
            row = _row("scikit-learn", "ndcg_score(k=5, ignore_ties=True)")
            rows[patched] = (row.status, _tie_vector(row), row.result.convention)
            rules[patched] = tie_rule(row)
        with open(calls) as f:
            assert f.read() and rows[False] == rows[True]
    finally:
        os.unlink(calls)
    # the tie rule is measured, not assumed: reversed blocks then sklearn's [::-1] is input order at every size
    assert rules[True] == "input (up to 65)"


def test_json_floats_round_trip_through_the_worker_protocol():
    """Floats (float32 values included) cross the pipe unchanged: repr is exact in JSON."""
    for x in (0.1, 1 / 3, 0.3333333432674408, 5e-324, 1.7976931348623157e308):
        assert json.loads(json.dumps(x)) == x


# -- non-deterministic implementations, float32 near-ties, reproducers, the Markdown report ---------------------------

SHUFFLED_AP = """
import random
from tieaware import fast
def impl(scores, labels):   # ties shuffled at random on every call, as keras-rs' shuffle_ties=True
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], random.random()))
    return float(fast.average_precision([labels[i] for i in order]))
"""

FLOAT32_SCRAMBLED_AP = """
import struct, zlib
from tieaware import fast
def impl(scores, labels):   # torch-like: float32 scores, then ties in a pseudo-random order fixed by the input
    s = [struct.unpack("f", struct.pack("f", x))[0] for x in scores]
    order = sorted(range(len(s)), key=lambda i: (-s[i], zlib.crc32(repr((list(scores), list(labels), i)).encode())))
    return float(fast.average_precision([labels[i] for i in order]))
"""


def test_a_non_deterministic_implementation_is_recognised_with_the_distribution_of_its_answers():
    from fractions import Fraction

    row = check_peer(Peer("shuffler", "shuffler", "ap", "AP", SHUFFLED_AP), **BUDGET)
    assert row.status == DIFFERS and row.randomness is not None
    r = row.randomness
    assert (r.case.scores, r.case.labels) == ((1.0, 1.0), (0, 1)) and r.expected == Fraction(3, 4)
    assert r.exact == {Fraction(1, 2): Fraction(1, 2), Fraction(1): Fraction(1, 2)}  # the exact distribution
    assert set(r.answers) == {0.5, 1.0} and r.calls == 200 and abs(r.mean - 0.75) < 0.15
    assert tie_rule(row) == "arbitrary (random: differs between calls)"
    text = table([row])
    assert "non-deterministic" in text and "200 calls gave 0.5 x" in text and "1/2 w.p. 1/2" in text


def test_a_deterministic_implementation_is_not_called_random():
    row = check_peer(Peer("mine", "mine", "ap", "AP", STABLE_AP), **BUDGET)
    assert row.randomness is None


def test_float32_near_ties_broken_arbitrarily_are_diagnosed_not_unexplained():
    """Scores [3, 2, 1+2^-30, 1], labels [0, 0, 0, 1]: float32 ties the last two, then an arbitrary order."""
    row = check_peer(Peer("f32", "f32", "ap", "AP", FLOAT32_SCRAMBLED_AP, machine_dependent=True), **BUDGET)
    causes = {f.cause for f in row.result.profile}
    assert "unexplained" not in causes and "float32_scores" in causes, table([row])
    assert all("float32" in f.explanation for f in row.result.profile if f.cause == "float32_scores")


def test_every_row_with_a_finding_links_a_reproducer_that_runs(tmp_path):
    stable = check_peer(Peer("mine", "mine", "stable ap", "AP", STABLE_AP), **BUDGET)
    ok = check_peer(Peer("mine", "mine", "ap", "AP", RIGHT_AP), **BUDGET)
    page = markdown([ok, stable], **BUDGET, date="2026-11-29")
    assert "on 2026-11-29" in page
    rows = [line for line in page.splitlines() if line.startswith("| mine")]
    assert rows[1].rstrip(" |").endswith("[r2](#r2)") and "(#r1)" not in page  # nothing to reproduce for a conforming call
    assert '<a id="r2"></a>' in page and "### r2: mine stable ap" in page
    assert "## Reproducing a library's number (`--tie-break`)" in page  # the presets, with the versions they were confirmed on
    script = reproducer(stable)
    assert "print(impl([1.0, 1.0], [0, 1]))  # input_order: expected 3/4, got 0.5" in script
    path = tmp_path / "repro.py"
    path.write_text(script)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == "0.5"  # what the row says it got


def test_a_reproducer_writes_out_the_helpers_a_qrels_run_call_needs(tmp_path):
    code = (  # P@1 with ties broken by docno ascending, over the dicts
        "def impl(scores, labels):\n    qrels, run = qrels_and_run(scores, labels)\n"
        "    top = min(run[QID], key=lambda d: (-run[QID][d], d))\n    return float(qrels[QID][top] >= 1)\n"
    )
    row = check_peer(Peer("dicts", "dicts", "p1", "P@1", code), **BUDGET)
    script = reproducer(row)
    assert "def docnos(" in script and "def qrels_and_run(" in script and "import tieaware" not in script and "from tieaware" not in script
    assert "# docno_asc: expected" in script
    path = tmp_path / "repro.py"
    path.write_text(script)
    subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True)


@pytest.mark.peers
def test_cli_format_markdown_prints_the_report_with_reproducers(capsys):
    pytest.importorskip("sklearn")
    argv = ["conformance", "--library", "scikit-learn", "--max-size", "2", "--max-examples", "5", "--format", "markdown"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Conformance of IR libraries") and "--format markdown" in out
    assert "## Reproducers" in out and "](#r2)" in out and "from sklearn" not in out.split("## Reproducers")[0]
    assert "import sklearn.metrics as metrics" in out.split("## Reproducers")[1]


@pytest.mark.peers
def test_ir_measures_breaks_ties_two_ways_in_one_call():
    """RR@10 goes to the msmarco provider (docno ascending), RR and P@1 to pytrec_eval (docno descending)."""
    pytest.importorskip("ir_measures")
    pytest.importorskip("pytrec_eval")
    assert tie_rule(_row("ir_measures", "calc_aggregate([RR@10, RR, P@1]): RR@10")) == "docno-asc (up to 65)"
    assert tie_rule(_row("ir_measures", "calc_aggregate([RR@10, RR, P@1]): RR")) == "docno-desc (up to 65)"


@pytest.mark.peers
def test_rs_metrics_takes_ranked_lists_so_ties_keep_input_order():
    pytest.importorskip("rs_metrics")
    row = _row("rs-metrics", "mapr(k=5)")
    assert row.status == DIFFERS and row.result.convention == "AP@5" and tie_rule(row) == "input (up to 65)"
    precision = _row("rs-metrics", "precision(k=5)")
    assert precision.result.convention == "P(norm=retrieved)@5"  # divides by the documents listed, not by k
