"""`--tie-break trec_eval` prints trec_eval's digits: its doubles' rounding halves and its -nan.

The expected lines were recorded with trec_eval 9.0.8 (usnistgov/trec_eval,
tag v9.0.8, built by scripts/build_trec_eval.sh; it reports "version 9.0.7")
on the inputs below; the doubles of ``test_doubles_are_trec_eval_s`` with the
same source built with its ``%6.4f`` printing changed to ``%.17g``.  When a
binary is installed (tieaware.testing.trec_eval_binary), the live tests run it
on the same inputs and on seeded random ones.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from tieaware.cli import main
from tieaware.io.trec_doubles import NONPOOL, query_doubles
from tieaware.io.trec_format import near_half
from tieaware.model.names import parse
from tieaware.testing import trec_eval_binary as teb

# The reproducer: 14 relevant documents, ranks 1-11 of 50 relevant: set_F = 11/32.
SET_F_QRELS = "".join(f"1 0 d{i} 1\n" for i in range(1, 15))
SET_F_RUN = "".join(f"1 Q0 {'d' if r <= 11 else 'x'}{r} {r} {100 - r} t\n" for r in range(1, 51))
SET_F_TREC_EVAL = "set_F                 \tall\t0.3437\n"  # its double: 0.34374999999999994

# AP = 71/160 = 0.44375: 8 relevant, ranks 2-6 of 6; trec_eval's sum gives 0.44375000000000003.
MAP_QRELS = "".join(f"7 0 r{i} 1\n" for i in range(1, 9)) + "7 0 n1 0\n"
MAP_RUN = "".join(f"7 Q0 {d} {k + 1} {10 - k} t\n" for k, d in enumerate(["n1", "r1", "r2", "r3", "r4", "r5"]))
MAP_TREC_EVAL = "map                   \t7\t0.4438\nmap                   \tall\t0.4438\ngm_map                \tall\t0.4438\n"

# -J -M 2: query 2 keeps no judged document among its first two.
EMPTY_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 2\n"
EMPTY_RUN = "1 Q0 a 1 3 t\n1 Q0 z 2 2 t\n2 Q0 y 1 5 t\n2 Q0 x 2 4 t\n2 Q0 c 3 1 t\n"
_LEVELS = ["0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00"]


def _block(qid: str, first: str, rest: str, avg: str, ap: str) -> str:
    lines = [f"map                   \t{qid}\t{ap}"]
    lines += [f"iprec_at_recall_{lvl}  \t{qid}\t{first if lvl == '0.00' else rest}" for lvl in _LEVELS]
    lines.append(f"11pt_avg              \t{qid}\t{avg}")
    return "\n".join(lines) + "\n"


EMPTY_TREC_EVAL = (
    _block("1", "1.0000", "1.0000", "1.0000", "1.0000")
    + _block("2", "  -nan", "0.0000", "  -nan", "0.0000")
    + _block("all", "  -nan", "0.5000", "  -nan", "0.5000")
)
EMPTY_ARGS = ("-q", "-J", "-M", "2", "-m", "iprec_at_recall", "-m", "11pt_avg", "-m", "map")


def _files(tmp_path, qrels: str, run: str):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels)
    r.write_text(run)
    return str(q), str(r)


def _eval(capsys, *argv):
    code = main(["eval", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_set_f_prints_trec_eval_s_double(tmp_path, capsys):
    q, r = _files(tmp_path, SET_F_QRELS, SET_F_RUN)
    out, _ = _eval(capsys, q, r, "-m", "set_F", "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == SET_F_TREC_EVAL
    tied, _ = _eval(capsys, q, r, "-m", "set_F", "--format", "trec", "-j", "1")
    assert tied == "set_F                 \tall\t0.3438\n"  # tie-aware: 11/32 correctly rounded (half to even)


def test_map_and_gm_map_print_trec_eval_s_sum(tmp_path, capsys):
    q, r = _files(tmp_path, MAP_QRELS, MAP_RUN)
    out, _ = _eval(capsys, q, r, "-q", "-m", "map", "-m", "gm_map", "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == MAP_TREC_EVAL


def test_runid_path_prints_trec_eval_s_double_too(tmp_path, capsys):
    q, r = _files(tmp_path, SET_F_QRELS, SET_F_RUN)
    out, _ = _eval(capsys, q, r, "-m", "set_F", "-m", "runid", "--format", "trec", "--tie-break", "trec_eval")
    assert out == "runid                 \tall\tt\n" + SET_F_TREC_EVAL


def test_empty_query_prints_nan_as_trec_eval(tmp_path, capsys):
    q, r = _files(tmp_path, EMPTY_QRELS, EMPTY_RUN)
    out, _ = _eval(capsys, q, r, *EMPTY_ARGS, "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == EMPTY_TREC_EVAL


def test_empty_query_tie_aware_says_what_it_did(tmp_path, capsys):
    q, r = _files(tmp_path, EMPTY_QRELS, EMPTY_RUN)
    out, err = _eval(capsys, q, r, *EMPTY_ARGS, "--format", "trec", "-j", "1")
    assert "-nan" not in out and out.endswith("11pt_avg              \tall\t0.5000\n")
    notes = [line for line in err.splitlines() if "-nan" in line]
    assert len(notes) == 1 and "(2)" in notes[0] and "counts as 0" in notes[0]


def test_doubles_are_trec_eval_s():
    # recorded from trec_eval 9.0.8 printing %.17g
    assert query_doubles([1] * 11 + [NONPOOL] * 39, [0, 14], [parse("SetF")])["SetF"] == 0.34374999999999994
    assert query_doubles([0, 1, 1, 1, 1, 1], [1, 8], [parse("AP")])["AP"] == 0.44375000000000003
    nan = query_doubles([], [1, 1, 1], [parse("IPrecAvg"), parse("IPrec@0")])
    assert all(math.isnan(v) and math.copysign(1, v) < 0 for v in nan.values())


def test_near_half():
    assert near_half(float(Fraction(11, 32)), 4) and near_half(0.34374999999999994, 4)
    assert not near_half(0.3437, 4) and not near_half(math.nan, 4)


# -- the live binary ----------------------------------------------------------------------

binary = pytest.mark.skipif(teb.locate() is None, reason="no trec_eval binary (scripts/build_trec_eval.sh builds one)")


@binary
@pytest.mark.parametrize(
    "qrels, run, argv",
    [
        (SET_F_QRELS, SET_F_RUN, ("-m", "set_F")),
        (MAP_QRELS, MAP_RUN, ("-q", "-m", "map", "-m", "gm_map")),
        (EMPTY_QRELS, EMPTY_RUN, EMPTY_ARGS),
    ],
)
def test_recorded_cases_against_the_binary(tmp_path, capsys, qrels, run, argv):
    q, r = _files(tmp_path, qrels, run)
    expected = teb.run(q, r, argv)
    out, _ = _eval(capsys, q, r, *argv, "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == expected


def _random_case(rng: random.Random) -> tuple[str, str]:
    qrels, run = [], []
    for qi in range(rng.randint(1, 3)):
        docs = [f"d{j}" for j in range(rng.randint(1, 25))]
        for d in rng.sample(docs, rng.randint(1, len(docs))):
            qrels.append(f"q{qi} 0 {d} {rng.choice([0, 1, 1, 2, 3, -1])}")
        qrels.append(f"q{qi} 0 zz{qi} 1")
        for k, d in enumerate(rng.sample(docs, rng.randint(1, len(docs)))):
            score = rng.choice([1, 2, 3, 5.5]) if rng.random() < 0.5 else rng.randint(0, 100)
            run.append(f"q{qi} Q0 {d} {k} {score} t")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@binary
@pytest.mark.parametrize("seed", range(8))
def test_random_runs_against_the_binary(tmp_path, capsys, seed):
    rng = random.Random(seed)
    qrels, run = _random_case(rng)
    q, r = _files(tmp_path, qrels, run)
    extra = [[], ["-J"], ["-M", "3"], ["-M", "0"], ["-l", "2"], ["-c"], ["-J", "-M", "2"], []][seed]
    measures = ["-m", "all_trec"] if seed % 2 == 0 else ["-m", "ndcg.1=3.5,2=9", "-m", "G.1=0.5,2=2.7", "-m", "set_F.0.5", "-m", "11pt_avg.0.25,0.5,0.05"]
    argv = ["-q", *extra, *measures]
    expected = teb.run(q, r, argv)
    out, _ = _eval(capsys, q, r, *argv, "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == expected


def test_table_trec_eval_order_column_prints_trec_eval_s_digits(tmp_path, capsys):
    q, r = _files(tmp_path, SET_F_QRELS, SET_F_RUN)
    out, _ = _eval(capsys, q, r, "-m", "set_F", "-j", "1")
    row = next(line for line in out.splitlines() if line.startswith("SetF"))
    assert row.split()[1:4] == ["0.3438", "11/32", "0.3437"]  # tie-aware correctly rounded; trec_eval's digits
    assert "trec_eval's own digits" in out
    q, r = _files(tmp_path, MAP_QRELS, MAP_RUN)
    out, _ = _eval(capsys, q, r, "-m", "AP", "-q", "-j", "1")
    assert [line.split()[4] for line in out.splitlines() if " AP " in line] == ["0.4438", "0.4438"]


def test_table_reads_stdin_once_for_the_second_pass(tmp_path, capsys, monkeypatch):
    import io
    import sys

    q, _ = _files(tmp_path, SET_F_QRELS, SET_F_RUN)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SET_F_RUN.encode())))
    out, _ = _eval(capsys, q, "-", "-m", "set_F", "-j", "1")
    assert next(line for line in out.splitlines() if line.startswith("SetF")).split()[3] == "0.3437"


# -- labels as trec_eval reads them (atol): 1.5 is 1, 1e3 is 1 ------------------------------------

ATOL_QRELS = "1 0 a 1.5\n1 0 b 1e3\n1 0 c 2\n1 0 d 0\n"
ATOL_RUN = "1 Q0 x 1 9 t\n1 Q0 a 2 8 t\n1 Q0 b 3 7 t\n1 Q0 c 4 6 t\n"
ATOL_TREC_EVAL = "map                   \tall\t0.6389\nndcg                  \tall\t0.6363\n"  # trec_eval -m ndcg -m map


def test_trec_eval_reads_labels_with_atol(tmp_path, capsys):
    q, r = _files(tmp_path, ATOL_QRELS, ATOL_RUN)
    out, err = _eval(capsys, q, r, "-m", "ndcg", "-m", "map", "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == ATOL_TREC_EVAL and err == ""
    out, err = _eval(capsys, q, r, "-m", "ndcg", "-m", "map", "-m", "runid", "--format", "trec", "--tie-break", "trec_eval")
    assert out == "runid                 \tall\tt\n" + ATOL_TREC_EVAL


def test_tie_aware_keeps_the_exact_label_and_warns_once(tmp_path, capsys):
    q, r = _files(tmp_path, ATOL_QRELS, ATOL_RUN)
    out, err = _eval(capsys, q, r, "-m", "ndcg", "-m", "map", "--format", "trec", "-j", "1")
    assert out == "map                   \tall\t0.6389\nndcg                  \tall\t0.5008\n"  # gains 3/2, 1000, 2
    assert len(err.splitlines()) == 1 and f"{q}:1: label '1.5'" in err and "atol" in err
    out, err = _eval(capsys, q, r, "-m", "nDCG", "-j", "1")
    assert next(line for line in out.splitlines() if line.startswith("nDCG")).split()[1:4] == ["0.5008", "irrational", "0.6363"]
    assert len(err.splitlines()) == 1 and "trec_eval order column" in err


@binary
def test_atol_labels_against_the_binary(tmp_path, capsys):
    q, r = _files(tmp_path, ATOL_QRELS, ATOL_RUN)
    out, _ = _eval(capsys, q, r, "-q", "-m", "all_trec", "--format", "trec", "--tie-break", "trec_eval", "-j", "1")
    assert out == teb.run(q, r, ["-q", "-m", "all_trec"])
