"""Generate a realistic TREC run and its qrels: realistic.run.gz and realistic.qrels.gz, beside this file.

A run of the size trec_eval is used on, with what makes tie handling and
score reading matter, for comparing ``tieaware eval`` with trec_eval 9.0.8
(tests/test_trec_equivalence.py):

- 32 queries in the run, 31 of them with 1,000 documents and one with 137
  (so P_200 ... P_1000 reach beyond the ranking); qids 90..123, which sort
  differently as strings ("100" < "90") and as numbers;
- scores on four scales, as real systems print them: BM25-like (about 5..35),
  log-probabilities (negative), probabilities (1e-3 down to about 1e-8, which
  ``repr`` writes with an exponent) and a neural score around 0; every score
  is the ``repr`` of a double, so most have 16-17 significant digits;
- **genuine ties**: runs of documents with the very same score, and in some
  queries a block of 40-200 documents tied at one fallback score at the tail;
- **near-ties**: scores 1-3 units in the last place (ulps) below their
  neighbour, so their texts differ only in the 16th-17th significant digit;
- **one double, two texts**: some scores are rounded to 6 decimals (as a
  system that prints ``%.6f`` would) and, within a tie, one member is written
  as ``repr`` (``12.345678``) and another as ``%.17g`` (``12.345677999999999``):
  the same double, so trec_eval (which reads with ``atof``) ties them, while
  their decimal values differ, so tieaware's exact tie groups do not;
- graded qrels 0..3, more often relevant near the top; most of the top 100
  judged, few below; unjudged documents everywhere; 10..60 judged documents
  per query that the run did not retrieve; one query with no relevant
  document; two judged queries absent from the run (trec_eval's ``-c``
  counts them as 0) and one run query without qrels (skipped);
- docnos of three collections (``FBIS3-12345``, ``FT931-1234``,
  ``LA010189-0001``), whose ``strcmp`` order breaks trec_eval's ties.

Run lines are in descending score order with the members of a tie in random
order (not trec_eval's docno order), the rank column 1..n in file order.
Only ``random.Random(seed).random()`` and correctly rounded IEEE arithmetic
(+, -, *, /, ``math.nextafter``) make the numbers, so the output is the same
on every platform and Python version (3.9+); no libm function is used.

Regenerate the inputs (committed; a test checks that they are unchanged)::

    python tests/data/trec_eval/make_realistic.py

Record trec_eval's output on them (realistic*.out, committed) with the binary
that ``tieaware.trec_eval_binary`` finds (scripts/build_trec_eval.sh builds
trec_eval 9.0.8); trec_eval reads no gzip, so the inputs are decompressed to
a temporary directory and trec_eval runs there as::

    trec_eval [-c] [-q] realistic.qrels realistic.run

    python tests/data/trec_eval/make_realistic.py --record
"""

from __future__ import annotations

import argparse
import gzip
import math
import random
import sys
import tempfile
from pathlib import Path

__all__ = ["SEED", "OPTIONS", "make", "output_name", "main"]

SEED = 908  # trec_eval 9.0.8
HERE = Path(__file__).resolve().parent
RUN_ID = "realistic908"
DOCS = 1000
SHORT_QUERY = 117  # retrieves only 137 documents
NO_RELEVANT = 101  # every judged document has label 0
ABSENT = (95, 112)  # judged, not in the run
QIDS = range(90, 124)  # ABSENT included: 32 queries in the run
UNJUDGED_QID = "unjudged"  # in the run, not in the qrels
#: trec_eval's options recorded: without and with -c and -q; nothing else (the default measure set).
OPTIONS: tuple[tuple[str, ...], ...] = ((), ("-q",), ("-c",), ("-c", "-q"))


def output_name(options: tuple[str, ...]) -> str:
    """The recorded file of trec_eval's output with *options*, e.g. ``realistic.c.q.out``."""
    return "realistic" + "".join("." + o.lstrip("-") for o in options) + ".out"


def _int(rng: random.Random, lo: int, hi: int) -> int:
    """A uniform int in lo..hi from rng.random() alone (stable across versions)."""
    return lo + int(rng.random() * (hi - lo + 1))


def _docno(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        return f"FBIS{_int(rng, 3, 4)}-{_int(rng, 1, 99999)}"
    if kind < 0.7:
        return f"FT9{_int(rng, 11, 44)}-{_int(rng, 1, 9999)}"
    return f"LA{_int(rng, 1, 12):02d}{_int(rng, 1, 28):02d}{_int(rng, 89, 90)}-{_int(rng, 1, 300):04d}"


def _docnos(rng: random.Random, count: int) -> list[str]:
    seen: dict[str, None] = {}
    while len(seen) < count:
        seen[_docno(rng)] = None
    return list(seen)


def _scores(rng: random.Random, scale: int, count: int) -> list[tuple[float, bool]]:
    """*count* descending scores as (double, rounded to 6 decimals?), with ties and near-ties."""
    if scale == 0:  # BM25-like
        s, step, mult = 25.0 + 10.0 * rng.random(), 0.06, False
    elif scale == 1:  # log-probability
        s, step, mult = -3.0 - 4.0 * rng.random(), 0.05, False
    elif scale == 2:  # probability
        s, step, mult = 1e-3 * (0.5 + rng.random()), 0.036, True
    else:  # neural, around 0
        s, step, mult = 8.0 * rng.random(), 0.03, False
    rounded = scale != 2 and rng.random() < 0.5  # this system prints %.6f in places
    out: list[tuple[float, bool]] = []
    while len(out) < count:
        u = rng.random()
        if out and u < 0.12:  # a genuine tie with the previous document
            out.append(out[-1])
            continue
        if out and u < 0.17:  # a near-tie: 1-3 ulps below the previous score
            x = out[-1][0]
            for _ in range(_int(rng, 1, 3)):
                x = math.nextafter(x, -math.inf)
            out.append((x, False))
            continue
        gap = rng.random() * rng.random()
        s = s * (1.0 - step * gap) if mult else s - step * 4.0 * gap
        if rounded and rng.random() < 0.3:
            # %.6f-rounded, as a system printing 6 decimals would, but never above the previous score
            x = float(f"{s:.6f}")
            if out and x > out[-1][0]:
                x = out[-1][0]
            out.append((x, True))
        else:
            out.append((s, False))
    if rng.random() < 0.4:  # a fallback score shared by a block at the tail
        block = _int(rng, 40, 200)
        floor = out[count - block - 1][0]
        tail = floor - 1.0 if not mult else floor * 0.5
        out[count - block :] = [(tail, False)] * block
    return out


def _text(x: float, rounded: bool, rng: random.Random) -> str:
    """The score text: repr, or for a %.6f-rounded score sometimes %.17g (another decimal, the same double)."""
    if rounded and rng.random() < 0.5:
        long = f"{x:.17g}"
        assert float(long) == x
        return long
    return repr(x)


def _label(rng: random.Random, rank: int, no_relevant: bool) -> int:
    quality = 0.55 / (1.0 + rank / 40.0)  # P(relevant) falls with rank
    if no_relevant or rng.random() >= quality:
        return 0
    v = rng.random()
    return 3 if v < 0.15 else 2 if v < 0.45 else 1


def _judged(rng: random.Random, rank: int) -> bool:
    return rng.random() < (0.9 if rank <= 100 else 0.3 if rank <= 300 else 0.08)


def make(seed: int = SEED) -> tuple[str, str]:
    """The text of (qrels, run) for *seed*."""
    rng = random.Random(seed)
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    for number in QIDS:
        qid = str(number)
        count = 137 if number == SHORT_QUERY else DOCS
        docs = _docnos(rng, count + 60)
        retrieved, unretrieved = docs[:count], docs[count : count + _int(rng, 10, 60)]
        scores = _scores(rng, number % 4, count)
        judged: dict[str, int] = {}
        for rank, docno in enumerate(retrieved, start=1):
            if _judged(rng, rank):
                judged[docno] = _label(rng, rank, number == NO_RELEVANT)
        for docno in unretrieved:
            judged[docno] = _label(rng, _int(rng, 1, 400), number == NO_RELEVANT)
        qrels_lines += [f"{qid} 0 {d} {judged[d]}" for d in sorted(judged)]
        if number in ABSENT:
            continue
        # Within each tie (equal doubles) the documents are shuffled, so file order is not docno order.
        lines = [(x, rng.random(), docno, _text(x, r, rng)) for docno, (x, r) in zip(retrieved, scores)]
        lines.sort(key=lambda t: (-t[0], t[1]))
        run_lines += [f"{qid} Q0 {d} {i} {text} {RUN_ID}" for i, (_, _, d, text) in enumerate(lines, start=1)]
    run_lines.append(f"{UNJUDGED_QID} Q0 FT911-1 1 1.5 {RUN_ID}")
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


def _write_gz(path: Path, text: str) -> None:
    # mtime=0 and no file name in the header: the same text gives the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(text.encode("ascii"))


def inputs(directory: Path = HERE) -> tuple[Path, Path]:
    """The paths of (qrels, run) in *directory*."""
    return directory / "realistic.qrels.gz", directory / "realistic.run.gz"


def _record(directory: Path) -> None:
    from tieaware.testing.trec_eval_binary import require, run, version

    exe = require()
    qrels_gz, run_gz = inputs(directory)
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run_file = Path(tmp) / "realistic.qrels", Path(tmp) / "realistic.run"
        qrels.write_bytes(gzip.decompress(qrels_gz.read_bytes()))
        run_file.write_bytes(gzip.decompress(run_gz.read_bytes()))
        for options in OPTIONS:
            (directory / output_name(options)).write_text(run(qrels, run_file, options, binary=exe))
    print(f"recorded {len(OPTIONS)} outputs of {version(exe)} in {directory}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="directory to write to (default: beside this file)")
    parser.add_argument("--record", action="store_true", help="also record trec_eval's output on the files")
    args = parser.parse_args(argv)
    qrels_text, run_text = make()
    qrels_gz, run_gz = inputs(args.out)
    _write_gz(qrels_gz, qrels_text)
    _write_gz(run_gz, run_text)
    print(f"wrote {qrels_gz} and {run_gz}")
    if args.record:
        _record(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
