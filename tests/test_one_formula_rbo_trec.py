"""RBO, Success@k and bpref: a slip in a kernel breaks a theorem AND changes what users get.

fast.rank_biased_overlap looks its kernels up in :mod:`tieaware.fast.rbo_kernels`
when it runs, and fast.success/fast.bpref look theirs up in
:mod:`tieaware.fast.trec_measures`; the theorems of ``tieaware prove`` look
up the same module attributes.  Each case replaces one kernel by a plausible
slip (monkeypatching the module global) and checks that the theorem about it
fails and that the public function returns another value, in exact and in
float mode (for RBO also through ``tieaware rbo``).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tieaware import fast
from tieaware.cli import main
from tieaware.fast import rbo_kernels as K
from tieaware.fast import trec_measures as tm
from tieaware.proofs import THEOREMS

real_K = {name: getattr(K, name) for name in K.__all__}
real_tm = {name: getattr(tm, name) for name in tm.__all__}

# A pair with ties in both rankings, items missing from each, and a group of L straddling depths past s.
S = ["a", ("b", "c"), "d"]
L = ["c", "a", ("y", "b", "z", "w"), "e", ("x", "d")]


def _all_rbo() -> list:
    values = []
    for exact in (True, False):
        for variant in ("w", "a", "b"):
            values.append(fast.rbo_bounds(S, L, "0.8", variant=variant, exact=exact))
        values.append(fast.rbo_expected_bounds(S, L, "0.8", exact=exact))
    return values


def _seen_w_counts_crossing_once(variant, *args):
    coefficient, radicands = real_K["seen_agreement"](variant, *args)
    return (coefficient * Fraction(9, 10), radicands) if variant == "w" else (coefficient, radicands)


def _unseen_max_half(variant, *args):
    terms = real_K["unseen_terms"](variant, *args)
    return terms._replace(max=tuple((c * Fraction(99, 100), r) for c, r in terms.max))


def _third_section_ext_from_l(bound, l, s, x_l, a_s):
    pieces = real_K["third_section"](bound, l, s, x_l, a_s)
    return tuple(p._replace(start=p.start - 1) for p in pieces) if bound == "ext" else pieces


def _series_tail_no_geometric(a, b, start, p):
    _, log, span = real_K["series_tail"](a, b, start, p)
    return a, log, span


RBO_CASES = [
    ("seen_agreement", _seen_w_counts_crossing_once, ["RBO agreement d <= s"]),
    ("unseen_terms", _unseen_max_half, ["RBO agreement s < d <= l", "RBO expected"]),
    ("third_section", _third_section_ext_from_l, ["RBO past l"]),
    ("series_tail", _series_tail_no_geometric, ["RBO series tail"]),
    ("unseen_max", lambda k, active, crossing, c_L: real_K["unseen_max"](k, active, crossing, 1), ["RBO agreement s < d <= l"]),
    ("measurable_squares", lambda t, b, d: (t - 1) + K.ratio((d - t + 1) ** 2, b - t + 2), ["RBO agreement d <= s"]),
]


@pytest.mark.parametrize("kernel, wrong, theorems", RBO_CASES, ids=[c[0] for c in RBO_CASES])
def test_a_slip_in_an_rbo_kernel_breaks_a_theorem_and_the_values(monkeypatch, kernel, wrong, theorems):
    right = _all_rbo()
    monkeypatch.setattr(K, kernel, wrong)
    for name in theorems:
        assert not THEOREMS[name]().proved, f"{name} still proved with a wrong {kernel}"
    assert _all_rbo() != right, f"fast.rbo did not call rbo_kernels.{kernel}"


def _run(path, ranking):
    # One query; a tie group shares a score.
    lines, rank = [], 1
    for i, group in enumerate(ranking):
        for doc in group if isinstance(group, tuple) else (group,):
            lines.append(f"q1 Q0 {doc} {rank} {100 - i} run")
            rank += 1
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("flags", [(), ("--float",)])
def test_a_slip_in_an_rbo_kernel_changes_what_tieaware_rbo_prints(monkeypatch, capsys, tmp_path, flags):
    args = ["rbo", "-p", "0.8", "--bound", "all", "--format", "json", "--digits", "12", *flags, _run(tmp_path / "a", S), _run(tmp_path / "b", L)]
    assert main(args) == 0
    right = capsys.readouterr().out
    monkeypatch.setattr(K, "unseen_terms", _unseen_max_half)
    assert main(args) == 0
    assert capsys.readouterr().out != right


TREC_CASES = [
    ("none_drawn", lambda m, r, n, choose=None: real_tm["none_drawn"](m + 1, r, n + 1) if m < n else real_tm["none_drawn"](m, r, n), "Success@k", "success"),
    ("capped_sum", lambda above, a, big_r: real_tm["capped_sum"](above, a, big_r) + Fraction(1, 2), "Bpref", "bpref"),
]


@pytest.mark.parametrize("kernel, wrong, theorem, function", TREC_CASES, ids=[c[0] for c in TREC_CASES])
def test_a_slip_in_a_trec_kernel_breaks_its_theorem_and_the_values(monkeypatch, kernel, wrong, theorem, function):
    ranking = [[0, 1, 0], 1, [0, None, 0, 1], 0]
    call = {"success": lambda exact: fast.success(ranking, 2, exact=exact), "bpref": lambda exact: fast.bpref(ranking, exact=exact)}[function]
    right = (call(True), call(False))
    monkeypatch.setattr(tm, kernel, wrong)
    assert not THEOREMS[theorem]().proved
    wrong_values = (call(True), call(False))
    assert wrong_values[0] != right[0] and wrong_values[1] != right[1]


def test_the_kernels_are_proved_as_they_are():
    for name in {t for _, _, ts in RBO_CASES for t in ts} | {"Success@k", "Bpref"}:
        assert THEOREMS[name]().proved, name


def test_eval_prints_what_the_trec_kernels_give(monkeypatch, capsys):
    # tieaware eval's Success and Bpref go through fast's kernels in exact mode and in float mode.
    def means(*flags):
        assert main(["eval", "--format", "json", "--digits", "15", "-m", "Success@2 Bpref", *flags]) == 0
        return json.loads(capsys.readouterr().out)["mean"]

    right = (means(), means("--float"))
    monkeypatch.setattr(tm, "none_drawn", TREC_CASES[0][1])
    monkeypatch.setattr(tm, "capped_sum", TREC_CASES[1][1])
    wrong = (means(), means("--float"))
    for i in (0, 1):
        for m in ("Success@2", "Bpref"):
            assert wrong[i][m] != right[i][m], (i, m)
