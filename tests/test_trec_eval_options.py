"""`tieaware eval --format trec --tie-break trec_eval` equals trec_eval 9.0.8 with every option, line for line.

trec_eval's options and measure families: the default set, ``-m all_trec``,
``-q``, ``-c``, ``-n``, ``-M``, ``-J``, ``-l``, ``-N``, ``-Z``, ``-m
relstring.20`` and the ``-m`` forms with parameters (``iprec_at_recall..10,.20``,
``utility.2,-1,0,0``, ``ndcg.1=3,2=9,4=4.5``, ...).  The inputs:

- **trec_eval's own test files** (usnistgov/trec_eval, tag v9.0.8, commit
  d95ca64, directory ``test/``: qrels.test, results.test, results.trunc,
  qrels.rel_level, zscores_file), compressed under
  tests/data/trec_eval/options/, with the options of trec_eval's
  ``make quicktest`` and more.  results.trunc's lines carry text after the
  run id ("STANDARD more junk at"), which trec_eval skips and tieaware's
  reader refuses (a run line has 6 columns): it is stored cut to its first
  6 columns, which trec_eval reads to the same output (out.test.aqc);
- the **bundled sample**;
- a **generated run** (:func:`generate`, seeded: graded qrels with -2 labels,
  unjudged and unretrieved documents, 17-digit scores, ties and near-ties,
  1,000 documents per query): 5 queries here with every option set
  (``-m all_trec`` in float mode, the default measures exact too), and
  1,000 queries in the long test (``-c -q -m all_trec``), which runs only
  in the long-run profile (``HYPOTHESIS_PROFILE=thorough python -m pytest``):
  it takes minutes, and CI's budget is 30.

Golden values from outside: trec_eval 9.0.8's output recorded in
tests/data/trec_eval/options/recorded.json.gz (``python
tests/test_trec_eval_options.py --record`` rewrites it with the binary that
tieaware.testing.trec_eval_binary finds; scripts/build_trec_eval.sh builds
one); the live binary too when installed.  The 1,000-query output is
recorded as its summary lines, its first queries' lines and the SHA-256 of
the whole.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import random
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from tieaware.cli import main
from tieaware.testing import trec_eval_binary

DATA = Path(__file__).resolve().parent / "data" / "trec_eval" / "options"
RECORDED = DATA / "recorded.json.gz"

ALL = ["-m", "all_trec"]
#: trec_eval's `make quicktest` (its Makefile, v9.0.8), less the -R prefs / qrels_jg lines.
PARAMS = [
    "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35",
    "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
]  # fmt: skip
#: (case, qrels, run, trec_eval's options, passed unchanged to tieaware too)
CASES = [
    ("test", "qrels.test", "results.test", []),
    ("test.a", "qrels.test", "results.test", ALL),
    ("test.aq", "qrels.test", "results.test", [*ALL, "-q"]),
    ("test.aqc", "qrels.test", "results.trunc", [*ALL, "-q", "-c"]),
    ("test.aqcM", "qrels.test", "results.trunc", [*ALL, "-q", "-c", "-M100"]),
    ("test.aql", "qrels.rel_level", "results.test", [*ALL, "-mrelstring.20", "-q", "-l2"]),
    ("test.meas_params", "qrels.test", "results.test", ["-q", *PARAMS]),
    ("test.aqZ", "qrels.test", "results.test", ["-q", *ALL, "-Z", "zscores_file"]),
    ("test.c", "qrels.test", "results.test", ["-c"]),
    ("test.q", "qrels.test", "results.test", ["-q"]),
    ("test.nq", "qrels.test", "results.test", ["-n", "-q", *ALL]),
    ("test.M100", "qrels.test", "results.test", [*ALL, "-M", "100"]),
    ("test.J", "qrels.test", "results.test", [*ALL, "-q", "-J"]),
    ("test.l2", "qrels.rel_level", "results.test", [*ALL, "-l", "2"]),
    ("test.NJM", "qrels.test", "results.test", [*ALL, "-J", "-M", "50", "-c", "-N", "1000", "-m", "utility.2,-1,0,1"]),
    ("test.set", "qrels.test", "results.test", ["-q", "-m", "set"]),
    ("sample", "sample.qrels", "sample.run", []),
    ("sample.aq", "sample.qrels", "sample.run", [*ALL, "-q"]),
    ("sample.c", "sample.qrels", "sample.run", [*ALL, "-c"]),
    ("sample.nq", "sample.qrels", "sample.run", ["-n", "-q"]),
    ("sample.M100", "sample.qrels", "sample.run", [*ALL, "-M", "100"]),
    ("sample.J", "sample.qrels", "sample.run", [*ALL, "-J"]),
    ("sample.l2", "sample.qrels", "sample.run", [*ALL, "-l", "2"]),
    ("gen", "gen.qrels", "gen.run", []),
    ("gen.aq", "gen.qrels", "gen.run", [*ALL, "-q"]),
    ("gen.c", "gen.qrels", "gen.run", [*ALL, "-c"]),
    ("gen.nq", "gen.qrels", "gen.run", ["-n", "-q"]),
    ("gen.M100", "gen.qrels", "gen.run", [*ALL, "-M", "100"]),
    ("gen.J", "gen.qrels", "gen.run", [*ALL, "-J"]),
    ("gen.l2", "gen.qrels", "gen.run", [*ALL, "-l", "2"]),
]  # fmt: skip
#: The 1,000 x 1,000 run: one evaluation, its lines recorded in part (summary, first queries) and hashed whole.
BIG = ("big", "big.qrels", "big.run", ["-c", "-q", *ALL])
BIG_QUERIES_KEPT = 3
#: Queries of the generated run in the cases above: 5 keep every kind of line (the string order of
#: query ids, junk and unretrieved judged documents, ties, near-ties, 1,000 documents) at a quarter
#: of 20 queries' time in exact mode, ~4 s a case with -m all_trec (CI's budget is counted).
GEN_QUERIES = 5


def generate(seed: int, queries: int, docs: int = 1000) -> tuple[str, str]:
    """Qrels and run text: graded labels with -2 (junk, not judged), unjudged and unretrieved
    documents, 17-significant-digit scores, exact ties (5%) and near-ties a few ulps apart (2%)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for i in range(queries):
        qid = str(1 + i * 7 % 1009) if i % 2 else f"t{i}"  # "1" < "15" < "8" < "t0" as strings
        for d in range(docs):
            if rng.random() < 0.3:  # about 30% of the retrieved documents judged
                qrels.append(f"{qid} 0 d{i}-{d} {rng.choice((-2, 0, 0, 0, 1, 1, 2, 3))}")
        for j in range(rng.randint(0, 20)):  # judged, never retrieved
            qrels.append(f"{qid} 0 u{i}-{j} {rng.choice((-2, 0, 1, 2))}")
        score = rng.uniform(-5, 40)
        for d in range(docs):
            r = rng.random()
            if r < 0.05:
                pass  # the previous document's score: a tie
            elif r < 0.07:
                score -= abs(score) * 2.3e-16  # a near-tie: one or two ulps below
            else:
                score -= rng.expovariate(30.0)
            run.append(f"{qid} Q0 d{i}-{d} {d + 1} {score:.17g} gen{seed}")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _inputs(tmp: Path, big: bool = False) -> dict[str, Path]:
    out = {}
    for path in DATA.glob("*.gz"):
        if path.name != RECORDED.name:
            out[path.name[:-3]] = tmp / path.name[:-3]
            out[path.name[:-3]].write_bytes(gzip.decompress(path.read_bytes()))
    data = files("tieaware") / "data"
    out["sample.qrels"], out["sample.run"] = Path(str(data / "sample.qrels")), Path(str(data / "sample.run"))
    for name, queries in (("gen", GEN_QUERIES),) + ((("big", 1000),) if big else ()):
        qrels, run = generate(25, queries)
        (tmp / f"{name}.qrels").write_text(qrels)
        (tmp / f"{name}.run").write_text(run)
        out[f"{name}.qrels"], out[f"{name}.run"] = tmp / f"{name}.qrels", tmp / f"{name}.run"
    return out


def _arguments(inputs: dict[str, Path], options: list[str]) -> list[str]:
    """The options with -Z's file named by its path."""
    return [str(inputs[o]) if o in inputs else o for o in options]


def _tieaware(inputs: dict[str, Path], qrels: str, run: str, options: list[str], *mode: str) -> str:
    argv = ["eval", str(inputs[qrels]), str(inputs[run]), "--format", "trec", "--tie-break", "trec_eval", *mode]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, *_arguments(inputs, options)]) == 0
    return out.getvalue()


def _same_lines(ours: str, theirs: str, label: str) -> None:
    a, b = ours.splitlines(), theirs.splitlines()
    diff = [(i + 1, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    assert not diff and len(a) == len(b), f"{label}: {len(a)} vs {len(b)} lines; first differences {diff[:3]}"


def _digest(output: str) -> dict:
    """A long output recorded small: its summary lines, its first queries' lines, its SHA-256."""
    lines = output.splitlines()
    queries = sorted({line.split("\t")[1] for line in lines} - {"all"})[:BIG_QUERIES_KEPT]
    return {
        "lines": len(lines),
        "sha256": hashlib.sha256(output.encode()).hexdigest(),
        "kept": "\n".join(line for line in lines if line.split("\t")[1] in {"all", *queries}),
    }


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return _inputs(tmp_path_factory.mktemp("trec_eval_options"))


@pytest.fixture(scope="module")
def recorded():
    return json.loads(gzip.decompress(RECORDED.read_bytes()))


#: The generated run's -m all_trec cases compare --float: exact all_trec on 1,000-document
#: queries takes ~3 CPU seconds a query (building ndcg_rel and Rndcg as sums of thousands of
#: logarithms; printing them is interval arithmetic, milliseconds): five cases of five queries,
#: about a CPU minute more, and CI's time is counted.  Exact mode is compared on every other
#: case, this run's default measures included (gen, gen.nq).
FLOAT_ONLY = {"gen.aq", "gen.c", "gen.M100", "gen.J", "gen.l2"}


@pytest.mark.parametrize("case, qrels, run, options", CASES, ids=[c[0] for c in CASES])
def test_recorded_trec_eval_output(inputs, recorded, case, qrels, run, options):
    mode = ("--float",) if case in FLOAT_ONLY else ()
    _same_lines(_tieaware(inputs, qrels, run, options, *mode), recorded[case], f"recorded trec_eval, {case} {mode}")


@pytest.mark.parametrize("case", ["test.aq", "sample.aq", "gen", "gen.nq"])
def test_float_mode_too(inputs, recorded, case):
    _, qrels, run, options = next(c for c in CASES if c[0] == case)
    _same_lines(_tieaware(inputs, qrels, run, options, "--float"), recorded[case], f"recorded trec_eval, {case}, --float")


def test_the_recording_covers_every_family(recorded):
    # every family of -m all_trec has lines in the recording, so each is compared above
    names = {line.split("\t")[0].rstrip() for line in recorded["test.aql"].splitlines()}
    families = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                "infAP", "gm_bpref", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "set_P",
                "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "relstring_20"}  # fmt: skip
    prefixes = ("iprec_at_recall_", "P_", "recall_", "Rprec_mult_", "ndcg_cut_", "map_cut_", "relative_P_", "success_")
    assert families <= names and all(any(n.startswith(p) for n in names) for p in prefixes)
    assert any(line.startswith("Z") for line in recorded["test.aqZ"].splitlines())
    qrels, run = generate(25, 3)
    assert " -2\n" in qrels and " 0 u" in qrels  # the generated run has junk labels and unretrieved judged documents
    assert all(len(line.split()[4].replace("-", "").replace(".", "").lstrip("0")) >= 16 for line in run.splitlines()[:50])


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("HYPOTHESIS_PROFILE") != "thorough",
    reason="the 1,000 x 1,000 run takes minutes: HYPOTHESIS_PROFILE=thorough python -m pytest runs it",
)
def test_recorded_trec_eval_output_1000_queries(tmp_path, recorded):
    found = _inputs(tmp_path, big=True)
    case, qrels, run, options = BIG
    ours = _digest(_tieaware(found, qrels, run, options, "--float"))
    theirs = recorded[case]
    _same_lines(ours["kept"], theirs["kept"], "recorded trec_eval, 1,000 x 1,000")
    assert (ours["lines"], ours["sha256"]) == (theirs["lines"], theirs["sha256"])


@pytest.mark.peers
@pytest.mark.skipif(trec_eval_binary.locate() is None, reason="no trec_eval binary (scripts/build_trec_eval.sh builds one)")
@pytest.mark.parametrize("case, qrels, run, options", CASES, ids=[c[0] for c in CASES])
def test_live_trec_eval_binary(inputs, recorded, case, qrels, run, options):
    # tieaware == the recording is tested above; binary == the recording closes the loop without
    # evaluating every case a second time (CI's time is counted)
    theirs = trec_eval_binary.run(inputs[qrels], inputs[run], _arguments(inputs, options))
    _same_lines(recorded[case], theirs, f"trec_eval binary, {case}: the recording is not this binary's output, re-record it")


def _record() -> None:
    import tempfile

    exe = trec_eval_binary.require()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        found = _inputs(Path(tmp), big=True)
        for case, qrels, run, options in CASES + [BIG]:
            text = trec_eval_binary.run(found[qrels], found[run], _arguments(found, options), binary=exe)
            out[case] = _digest(text) if case == BIG[0] else text
    RECORDED.write_bytes(gzip.compress(json.dumps(out, indent=0, sort_keys=True).encode(), mtime=0))
    print(f"recorded {len(out)} outputs of {trec_eval_binary.version(exe)} in {RECORDED}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        _record()
    else:
        sys.exit("usage: python tests/test_trec_eval_options.py --record")
