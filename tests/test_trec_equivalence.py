"""`tieaware eval --format trec` equals trec_eval 9.0.8's output on a realistic run, line for line.

The run (tests/data/trec_eval/realistic.run.gz, written by make_realistic.py
beside it; its docstring lists what it holds) is the size trec_eval is used
on: 32 queries of up to 1,000 documents, graded qrels 0..3, unjudged
documents, 17-digit ``repr`` scores with genuine ties, near-ties 1-3 ulps
apart, and scores that are one double written two ways.

- **(a) recorded**: with ``--tie-break trec_eval``, tieaware's output equals
  trec_eval 9.0.8's recorded output (realistic*.out, the command in
  make_realistic.py's docstring) line for line, with and without ``-q`` and
  ``-c``, in exact mode and with ``--float``.  Both print trec_eval's default
  measure set, every line of it (``runid``, ``gm_map`` and the 11
  ``iprec_at_recall_*`` levels included).
- **(b) live**: the same against the trec_eval binary, when one is installed
  (tieaware.testing.trec_eval_binary; scripts/build_trec_eval.sh builds it), and the
  binary's output equals the recording.
- **(c) tie-aware**: the default (tie-aware) values of float mode equal exact
  mode to 1e-12 on this run, per query and in the mean, for every measure
  family the float engine computes.

trec_eval 9.0.8 keeps scores in a C ``float``, so near-ties beyond float32
precision are broken by docno there (docs/eval.md, "trec_eval's order");
this run has many, and (a) fails if tieaware compared doubles instead.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import importlib.util
import io
import math
import struct
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tieaware.testing import trec_eval_binary
from tieaware.cli import main
from tieaware.io.columns import prepare, read_table
from tieaware.runs.evaluate import evaluate_prepared
from tieaware.model.exact import to_float

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"

#: The lines trec_eval prints by default that tieaware does not compute.
#: trec_eval's lines that tieaware computed only later: compared like every other line now.
NEWER = frozenset({"runid", "gm_map"} | {f"iprec_at_recall_{level / 10:.2f}" for level in range(11)})

#: Tie-aware float vs exact, (c): every family the float engine evaluates, several cutoffs.
FLOAT_VS_EXACT = (
    "AP Rprec Bpref RR P@5 P@10 P@100 P@1000 R@10 R@1000 F1@10 AP@10 AP@100 RR@10 Success@5 "
    "Judged@10 nDCG nDCG@10 nDCG@20 nDCG(dcg='exp-log2')@10 DCG@10 RBP ERR@20"
)


def _generator():
    spec = importlib.util.spec_from_file_location("make_realistic", DATA / "make_realistic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()
QRELS, RUN = GEN.inputs(DATA)
CASES = [pytest.param(opts, id="".join(opts) or "default") for opts in GEN.OPTIONS]


@functools.lru_cache(maxsize=None)  # (a) and (b) compare the same outputs: each is made once
def _tieaware(options: tuple[str, ...], *extra: str) -> str:
    """``tieaware eval --format trec OPTIONS EXTRA`` on the committed (gzipped) inputs."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", str(QRELS), str(RUN), "--format", "trec", *options, *extra]) == 0
    return out.getvalue()


def _name(line: str) -> str:
    return line.split("\t")[0].rstrip()


def _computed(trec_output: str) -> list[str]:
    """trec_eval's lines: tieaware computes every one of them."""
    return trec_output.splitlines()


def _same_lines(ours: str, theirs: str, label: str) -> None:
    a, b = ours.splitlines(), _computed(theirs)
    diff = [(i + 1, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    assert not diff and len(a) == len(b), f"{label}: {len(a)} vs {len(b)} lines; first differences {diff[:3]}"


def _recorded(options: tuple[str, ...]) -> str:
    return (DATA / GEN.output_name(options)).read_text()


# -- the data ------------------------------------------------------------------------------


def test_inputs_are_what_the_generator_writes():
    qrels_text, run_text = GEN.make()
    assert gzip.decompress(QRELS.read_bytes()).decode("ascii") == qrels_text
    assert gzip.decompress(RUN.read_bytes()).decode("ascii") == run_text
    committed = sum(p.stat().st_size for p in DATA.glob("realistic*"))
    assert committed < 2_000_000


def _float32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def test_the_run_holds_what_makes_the_comparison_hard():
    run: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in gzip.decompress(RUN.read_bytes()).decode("ascii").splitlines():
        qid, _, docno, _, score, _ = line.split()
        run[qid].append((docno, score))
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in gzip.decompress(QRELS.read_bytes()).decode("ascii").splitlines():
        qid, _, docno, label = line.split()
        qrels[qid][docno] = int(label)
    sizes = Counter(len(docs) for q, docs in run.items() if q in qrels)
    assert sizes[1000] >= 30 and sum(sizes.values()) == 32
    assert {v for judged in qrels.values() for v in judged.values()} == {0, 1, 2, 3}
    assert set(qrels) - set(run) and set(run) - set(qrels)  # -c matters; a query is skipped
    seen = Counter()
    for qid, docs in run.items():
        judged = qrels.get(qid, {})
        seen["unjudged"] += sum(1 for d, _ in docs if d not in judged)
        seen["17 digits"] += sum(1 for _, s in docs if len(s.lstrip("-").split("e")[0].replace(".", "").lstrip("0")) == 17)
        texts: dict[float, set[str]] = defaultdict(set)
        for _, s in docs:
            texts[float(s)].add(s)
        seen["ties"] += sum(1 for _, s in docs) - len({s for _, s in docs})
        seen["one double, two texts"] += sum(1 for t in texts.values() if len(t) > 1)
        doubles = sorted(texts)
        seen["near-ties"] += sum(1 for a, b in zip(doubles, doubles[1:]) if b - a <= 3 * math.ulp(b))
        seen["one float32, two doubles"] += len(doubles) - len({_float32(x) for x in doubles})
        tied_labels = defaultdict(set)
        for d, s in docs:
            tied_labels[_float32(float(s))].add(judged.get(d, 0) >= 1)
        seen["ties of relevant and not"] += sum(1 for v in tied_labels.values() if len(v) == 2)
    assert all(seen[k] >= 50 for k in ("unjudged", "17 digits", "ties", "near-ties", "one float32, two doubles")), seen
    assert seen["one double, two texts"] >= 20 and seen["ties of relevant and not"] >= 20, seen


def test_the_recording_is_trec_eval_9_0_8_default_output():
    summary = _recorded(())
    assert summary.splitlines()[0].split("\t") == ["runid                 ", "all", "realistic908"]
    newer = [_name(line) for line in summary.splitlines() if _name(line) in NEWER]
    assert sorted(newer) == sorted(NEWER) and len(newer) == 13  # compared in (a) and (b) like the rest
    per_query = [line for line in _recorded(("-q",)).splitlines() if line.split("\t")[1] != "all"]
    assert {_name(line) for line in per_query} & NEWER == NEWER - {"runid", "gm_map"}


# -- (a) the recorded output ----------------------------------------------------------------


@pytest.mark.parametrize("mode", [(), ("--float",)], ids=["exact", "float"])
@pytest.mark.parametrize("options", CASES)
def test_recorded_trec_eval_output(options, mode):
    ours = _tieaware(options, "--tie-break", "trec_eval", *mode)
    _same_lines(ours, _recorded(options), f"recorded trec_eval {' '.join(options)} {' '.join(mode)}")


def test_the_comparison_sees_the_tie_break():
    # Tie-aware values differ from trec_eval's on this run: the comparison above is not vacuous.
    ours = _tieaware((), "--float").splitlines()
    assert ours != _computed(_recorded(()))
    assert len(ours) == len(_computed(_recorded(())))


# -- (b) the live binary --------------------------------------------------------------------


@pytest.fixture(scope="module")
def plain_inputs(tmp_path_factory):
    """The inputs decompressed: trec_eval reads no gzip."""
    tmp = tmp_path_factory.mktemp("realistic")
    qrels, run = tmp / "realistic.qrels", tmp / "realistic.run"
    qrels.write_bytes(gzip.decompress(QRELS.read_bytes()))
    run.write_bytes(gzip.decompress(RUN.read_bytes()))
    return qrels, run


@pytest.mark.peers
@pytest.mark.skipif(trec_eval_binary.locate() is None, reason="no trec_eval binary (scripts/build_trec_eval.sh builds one)")
@pytest.mark.parametrize("mode", [(), ("--float",)], ids=["exact", "float"])
@pytest.mark.parametrize("options", CASES)
def test_live_trec_eval_binary(plain_inputs, options, mode):
    theirs = trec_eval_binary.run(*plain_inputs, options)
    assert theirs == _recorded(options), "the recording is not this binary's output: re-record it"
    ours = _tieaware(options, "--tie-break", "trec_eval", *mode)  # on the same data, gzipped
    _same_lines(ours, theirs, f"trec_eval binary {' '.join(options)} {' '.join(mode)}")


# -- (c) tie-aware float mode equals exact mode ---------------------------------------------


def _near(exact: object, fast: float) -> bool:
    return abs(to_float(exact) - fast) <= 1e-12


def test_float_mode_equals_exact_mode():
    prepared = prepare(read_table(QRELS, "qrels"), read_table(RUN, "run"))  # as `tieaware eval` reads files
    exact = evaluate_prepared(prepared, FLOAT_VS_EXACT, exact=True)
    fast = evaluate_prepared(prepared, FLOAT_VS_EXACT, exact=False)
    assert sorted(exact.per_query) == sorted(fast.per_query) and len(exact.per_query) == 32
    far = []
    for qid, values in exact.per_query.items():
        assert values.keys() == fast.per_query[qid].keys()
        far += [(qid, m, v, fast.per_query[qid][m]) for m, v in values.items() if not _near(v, fast.per_query[qid][m])]
    far += [("mean", m, v, fast.mean[m]) for m, v in exact.mean.items() if not _near(v, fast.mean[m])]
    assert not far, far[:5]
