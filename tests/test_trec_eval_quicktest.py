"""trec_eval 9.0.8's own test suite, whole: every command of its ``make quicktest`` through tieaware.

``tieaware eval --format trec --tie-break trec_eval`` with the options of
each of the 11 commands of trec_eval's Makefile (``quicktest``: the default
measures, ``-m all_trec`` with ``-q``, ``-c``, ``-M``, ``-l``, the measures
with parameters, ``-Z``, and the three relevance formats ``-R prefs``,
``-R qrels_prefs``, ``-R qrels_jg``) must print what trec_eval printed, line
for line: 2,357 lines.

Golden values from outside: the binary's output, recorded in
tests/data/trec_eval/quicktest/expected.json.gz (``python
tests/test_trec_eval_quicktest.py --record`` rewrites it with the binary
that tieaware.testing.trec_eval_binary finds, and checks it against
trec_eval's own expected files when given their folder); the live binary
too when one is installed (scripts/build_trec_eval.sh).  The inputs are
trec_eval's test files (tests/data/trec_eval/README.md says where from).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sys
from pathlib import Path

import pytest

from tieaware.cli import main
from tieaware.testing import trec_eval_binary

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
EXPECTED = DATA / "quicktest" / "expected.json.gz"
#: Where each input file is stored (gzip-compressed).
INPUTS = {
    "qrels.test": DATA / "options" / "qrels.test.gz",
    "results.test": DATA / "options" / "results.test.gz",
    "results.trunc": DATA / "options" / "results.trunc.gz",
    "qrels.rel_level": DATA / "options" / "qrels.rel_level.gz",
    "zscores_file": DATA / "options" / "zscores_file.gz",
    "prefs.test": DATA / "quicktest" / "prefs.test.gz",
    "prefs.results.test": DATA / "quicktest" / "prefs.results.test.gz",
    "qrels.123": DATA / "quicktest" / "qrels.123.gz",
}
#: trec_eval 9.0.8's Makefile, target quicktest: (its expected output file, the command's arguments).
COMMANDS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m",
        "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5",
        "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test",
    ]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
]  # fmt: skip
#: The lines of trec_eval's expected outputs together.
TOTAL_LINES = 2357


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quicktest")
    out = {}
    for name, stored in INPUTS.items():
        out[name] = folder / name
        out[name].write_bytes(gzip.decompress(stored.read_bytes()))
    return out


@pytest.fixture(scope="module")
def expected():
    return json.loads(gzip.decompress(EXPECTED.read_bytes()))


def _paths(arguments: list[str], inputs: dict[str, Path]) -> list[str]:
    return [str(inputs[a]) if a in inputs else a for a in arguments]


def _tieaware(arguments: list[str], inputs: dict[str, Path]) -> str:
    """tieaware eval with the command's arguments: QRELS and RUN first (tieaware's positional order)."""
    files = [a for a in arguments if a in inputs and a != "zscores_file"]
    options = [a for a in arguments if a not in files]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["eval", *_paths(files, inputs), "--format", "trec", "--tie-break", "trec_eval", *_paths(options, inputs)])
    assert code == 0
    return out.getvalue()


def _same_lines(ours: str, theirs: str, label: str) -> int:
    a, b = ours.splitlines(), theirs.splitlines()
    diff = [(i + 1, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    assert not diff and len(a) == len(b), f"{label}: {len(a)} vs {len(b)} lines; first differences {diff[:3]}"
    return len(a)


def test_the_recorded_outputs_are_the_whole_quicktest(expected):
    assert list(expected) == [name for name, _ in COMMANDS]
    assert sum(len(text.splitlines()) for text in expected.values()) == TOTAL_LINES


@pytest.mark.parametrize("name, arguments", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_quicktest_command(inputs, expected, name, arguments):
    _same_lines(_tieaware(arguments, inputs), expected[name], f"trec_eval {' '.join(arguments)}")


@pytest.mark.parametrize("name, arguments", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_live_binary(inputs, expected, name, arguments):
    binary = trec_eval_binary.locate()
    if binary is None:
        pytest.skip("no trec_eval binary: scripts/build_trec_eval.sh builds one")
    # the installed binary prints the recording, which tieaware prints (test_quicktest_command)
    _same_lines(_run_binary(binary, arguments, inputs), expected[name], f"live trec_eval against the recording, {name}")


def _generated(seed: int, kind: str) -> tuple[str, str, list[str]]:
    """A small random case: preferences (several users, sub-groups) or judgment groups (-1 labels), a run with
    tied scores, unjudged and unretrieved documents, and a random option (-M, -c, -J, -l 2)."""
    import random

    rng = random.Random(seed)
    judged, run = [], []
    for q in range(rng.randint(1, 3)):
        docs = [f"d{i}" for i in range(rng.randint(2, 9))]
        for g in range(rng.randint(1, 3)):
            worth = {d: rng.choice([0, 0, 1, 2, 3]) for d in docs}  # one hidden order per user: sub-groups agree
            for s in range(rng.choice([1, 1, 2, 3]) if kind == "prefs" else 1):
                for d in rng.sample(docs, rng.randint(1, len(docs))):
                    level = worth[d] if kind == "prefs" else rng.choice([-1, 0, 1, 2, 3])
                    judged.append(f"q{q} u{g} s{s} {d} {level}" if kind == "prefs" else f"q{q} u{g} {d} {level}")
        for i, d in enumerate(rng.sample(docs + ["x1", "x2", "x3"], rng.randint(1, len(docs) + 2))):
            run.append(f"q{q} Q0 {d} {i + 1} {rng.choice([1, 2, 2.5, 3, 4])} r")
    measures = ["-m", "all_prefs"] if kind == "prefs" else ["-m", "qrels_jg", "-m", "P_avgjg.1,2,3,5"]
    extra = rng.choice([[], ["-M", "3"], ["-c"]] + ([["-J"], ["-l", "2"]] if kind == "qrels_jg" else []))
    return "\n".join(judged) + "\n", "\n".join(run) + "\n", ["-q", "-R", kind, *measures, *extra]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["prefs", "qrels_jg"])
def test_live_binary_on_generated_ties(tmp_path, kind, seed):
    # beyond the quicktest: ties (broken by docno ascending for preferences, descending for judgment groups),
    # sub-groups, -1 labels, -M, -c, -J, -l, against the installed binary
    binary = trec_eval_binary.locate()
    if binary is None:
        pytest.skip("no trec_eval binary: scripts/build_trec_eval.sh builds one")
    judged, run, options = _generated(seed, kind)
    (tmp_path / "judged").write_text(judged)
    (tmp_path / "run").write_text(run)
    files = {"judged": tmp_path / "judged", "run": tmp_path / "run"}
    theirs = _run_binary(binary, [*options, "judged", "run"], files)
    _same_lines(_tieaware([*options, "judged", "run"], files), theirs, f"live trec_eval {' '.join(options)}, seed {seed}")


def _run_binary(binary: str, arguments: list[str], inputs: dict[str, Path]) -> str:
    import subprocess

    done = subprocess.run([binary, *_paths(arguments, inputs)], capture_output=True, text=True, check=True)
    return done.stdout


def _record(trec_eval_tests: "str | None") -> None:
    """Rewrite the recording with the installed binary; compare with trec_eval's own test/out.* when given."""
    import tempfile

    binary = trec_eval_binary.require()
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {}
        for name, stored in INPUTS.items():
            inputs[name] = Path(tmp) / name
            inputs[name].write_bytes(gzip.decompress(stored.read_bytes()))
        recorded = {name: _run_binary(binary, arguments, inputs) for name, arguments in COMMANDS}
    if trec_eval_tests:
        for name, text in recorded.items():
            theirs = (Path(trec_eval_tests) / name).read_text()
            print(f"{name}: {'same as' if text == theirs else 'DIFFERS from'} trec_eval's test/{name}")
    EXPECTED.write_bytes(gzip.compress(json.dumps(recorded, indent=0).encode(), mtime=0))
    print(f"wrote {EXPECTED}: {sum(len(t.splitlines()) for t in recorded.values())} lines")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"]:
        sys.exit("usage: python tests/test_trec_eval_quicktest.py --record [TREC_EVAL_TEST_FOLDER]")
    _record(sys.argv[2] if len(sys.argv) > 2 else None)
