"""`tieaware conformance`: the checker against the real libraries installed (small budgets, for CI)."""

from __future__ import annotations

import pytest

from tieaware import TieawareError
from tieaware.check.cases import float32
from tieaware.check.conformance import NOT_INSTALLED, PEERS, Peer, _cause, _counterexample, check_peer, markdown, run_all, table
from tieaware.check.diagnose import TIE_BROKEN_CAUSES
from tieaware.cli import main

BUDGET = dict(max_size=3, max_examples=10)


def _peer(library, call):
    [peer] = [p for p in PEERS if p.library == library and p.call == call]
    return peer


def _row(library, call):
    return check_peer(_peer(library, call), **BUDGET)


@pytest.mark.peers
@pytest.mark.parametrize("call", ["ndcg_score(k=5, ignore_ties=False)", "dcg_score(k=5, ignore_ties=False)"])
def test_sklearn_tie_averaging_conforms(call):
    pytest.importorskip("sklearn")
    row = _row("scikit-learn", call)
    assert row.status == "conforms", table([row])
    assert row.untied.ok
    assert row.version


@pytest.mark.peers
@pytest.mark.parametrize("call", ["ndcg_score(k=5, ignore_ties=True)", "dcg_score(k=5, ignore_ties=True)"])
def test_sklearn_ignoring_ties_breaks_ties_in_a_machine_dependent_order(call):
    pytest.importorskip("sklearn")
    row = _row("scikit-learn", call)
    assert row.status == "differs"
    assert row.untied.ok
    # np.argsort is unstable on AVX-512 CPUs: only "tie-broken" holds on every machine,
    # and the table says nothing more specific.
    assert row.result.diagnosis.cause in TIE_BROKEN_CAUSES
    assert _cause(row) == "arbitrary_order" and "depends on the CPU" in _counterexample(row)


@pytest.mark.peers
def test_sklearn_average_precision_takes_a_tie_group_as_one_threshold():
    pytest.importorskip("sklearn")
    row = _row("scikit-learn", "average_precision_score")
    assert row.status == "differs"
    assert row.result.diagnosis.cause == "one_threshold"
    assert row.untied.ok  # without ties, each document is its own threshold: ordinary AP
    cex = row.result.counterexample
    # Two tied documents, one relevant: precision at the threshold is 1/2, the tie-aware AP is 3/4.
    assert (list(cex.labels), cex.got) == ([0, 1], 0.5)


@pytest.mark.peers
@pytest.mark.parametrize("library", ["pytrec_eval", "ir_measures"])
def test_trec_eval_family_breaks_ties_by_docno(library):
    pytest.importorskip(library)
    for peer in [p for p in PEERS if p.library == library]:
        row = check_peer(peer, **BUDGET)
        assert row.status == "differs", peer.call
        assert row.result.diagnosis.cause == "docno", (peer.call, table([row]))
        # Right on untied rankings (trec_eval's definitions), except that scores are stored in single
        # precision: distinct doubles float32 cannot tell apart tie, and are then broken by docno.
        if not row.untied.ok:
            assert row.untied.diagnosis.cause == "float32_scores", (peer.call, str(row.untied))
            scores = row.untied.counterexample.case.scores
            assert len(set(scores)) == len(scores) > len({float32(s) for s in scores}), scores


@pytest.mark.peers
def test_rbo_package_is_tie_oblivious():
    pytest.importorskip("rbo")
    row = _row("rbo", "RankingSimilarity(S, L).rbo_ext(p=0.9)")
    assert row.status == "differs"
    assert row.result.diagnosis.cause == "input_order"
    assert row.untied.ok  # bare RBO_EXT, uneven lengths included, is right


@pytest.mark.peers
@pytest.mark.slow
def test_ranx_breaks_ties_by_input_order():
    pytest.importorskip("ranx")  # numba compiles on first use: slow on a fresh install
    row = _row("ranx", "map")
    assert row.status == "differs"
    assert row.result.diagnosis.cause in TIE_BROKEN_CAUSES  # numba's sort order is not promised
    assert _cause(row) == "arbitrary_order"


def _missing():
    raise ImportError("No module named 'nosuchlib'")


MISSING = Peer("nosuchlib", "nosuchlib", "map", "AP", _missing)


def test_a_library_that_cannot_be_imported_is_not_installed_never_conforms():
    row = check_peer(MISSING, **BUDGET)
    assert row.status == NOT_INSTALLED and row.result is None
    text = table([row])
    assert "not installed" in text and "conforms" not in text
    assert "No module named 'nosuchlib'" in text


def test_markdown_page_counts_and_tabulates():
    def right(scores, labels):
        from tieaware import fast, from_scores

        return fast.average_precision(from_scores(scores, labels), exact=False)

    ok = check_peer(Peer("mine", "mine", "ap", "AP", lambda: right), **BUDGET)
    page = markdown([ok, check_peer(MISSING, **BUDGET)], **BUDGET)
    assert "2 calls: 1 conform, 0 differ, 1 not installed." in page
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    assert rows[0].split("|")[1].strip() == "library"  # a GitHub table: header first
    assert any("mine" in r and "| conforms" in r for r in rows)
    assert any("nosuchlib" in r and "| not installed" in r for r in rows)


def test_unknown_library_is_refused():
    with pytest.raises(TieawareError, match=r"library is not one of .*got 'trec_eval'"):
        run_all(libraries=["trec_eval"])


@pytest.mark.peers
def test_cli_prints_the_table_and_writes_markdown(tmp_path, capsys):
    pytest.importorskip("sklearn")
    page = tmp_path / "conformance.md"
    argv = ["conformance", "--library", "scikit-learn", "--max-size", "2", "--max-examples", "5", "--markdown", str(page)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ndcg_score(k=5, ignore_ties=False)" in out and "conforms" in out and "differs" in out
    assert page.read_text().startswith("# Conformance of IR libraries")


def _scrambled_ap(scores, labels):
    """AP after breaking ties by a scrambled key, as an unstable sort on another CPU might: no named rule."""
    from tieaware import fast

    order = sorted(range(len(scores)), key=lambda i: (-scores[i], (i * 7 + len(scores) * 3 + labels[i]) % 5, i))
    return float(fast.average_precision([labels[i] for i in order]))


def test_a_tie_order_no_named_rule_explains_is_diagnosed_as_arbitrary_and_reported_machine_independently():
    row = check_peer(Peer("scrambled", "scrambled", "ap", "AP", lambda: _scrambled_ap, machine_dependent=True), **BUDGET)
    assert row.status == "differs" and row.untied.ok
    assert row.result.diagnosis.cause == "arbitrary_order"
    assert _cause(row) == "arbitrary_order"
    assert "got a tie-broken value" in _counterexample(row) and "got 0." not in _counterexample(row)
    assert "numpy's default `argsort`, which is not stable" in markdown([row], **BUDGET)


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

    calls = []
    rows = {}
    for patched in (False, True):
        if patched:
            monkeypatch.setattr(np, "argsort", lambda *a, **k: calls.append(1) or other_cpu(*a, **k))
        row = _row("scikit-learn", "ndcg_score(k=5, ignore_ties=True)")
        rows[patched] = (row.status, _cause(row), _counterexample(row), row.untied.ok)
    assert calls and rows[False] == rows[True]
