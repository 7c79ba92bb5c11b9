"""Generate the bundled sample: sample.qrels and sample.run, beside this file.

The sample is a toy retrieval run whose scores are *coarse*: each document's
score is an integer in-degree bucket 0..5 (think "how many pages link here",
bucketed), so many documents share a score and ties are everywhere.  This is
the situation where trec_eval's tie-breaking (by docno) silently changes the
numbers, and `tieaware eval` with no files shows by how much.

- 5 queries, q1..q5, each retrieving 15..40 documents from a pool of 400.
- Buckets are skewed towards low in-degree (weights 30:25:18:12:9:6).
- Graded labels 0..2: higher buckets are more often relevant and more often
  highly relevant, so the score is informative but far from perfect.
- About 85% of retrieved documents are judged (the rest are unjudged and so
  non-relevant), and each query has 1..3 judged relevant documents that the
  run did not retrieve, so num_rel exceeds the relevant documents retrieved.

Run lines are written in trec_eval's order (score descending, docno
descending) with that rank in the rank column; qrels lines are sorted by
query and docno.  Only ``random.Random(seed).random()`` is used, whose
sequence is stable across Python versions, so the output is reproducible.

Regenerate (the output is committed; tests check it is unchanged)::

    python tieaware/data/make_sample.py          # writes beside this file
    python tieaware/data/make_sample.py --out DIR
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

__all__ = ["SEED", "make_sample", "main"]

SEED = 2008  # the year of McSherry & Najork's tie-aware measures
QUERIES = 5
POOL = 400
BUCKET_WEIGHTS = (30, 25, 18, 12, 9, 6)  # in-degree buckets 0..5


def _int(rng: random.Random, lo: int, hi: int) -> int:
    """A uniform int in lo..hi from rng.random() alone (stable across versions)."""
    return lo + int(rng.random() * (hi - lo + 1))


def _bucket(rng: random.Random) -> int:
    x = rng.random() * sum(BUCKET_WEIGHTS)
    for bucket, weight in enumerate(BUCKET_WEIGHTS):
        if x < weight:
            return bucket
        x -= weight
    return len(BUCKET_WEIGHTS) - 1


def _label(rng: random.Random, bucket: int) -> int:
    if rng.random() >= 0.10 + 0.12 * bucket:
        return 0
    return 2 if rng.random() < 0.25 + 0.10 * bucket else 1


def _distinct_docs(rng: random.Random, count: int, exclude: set[str]) -> list[str]:
    docs: list[str] = []
    while len(docs) < count:
        docno = f"doc{_int(rng, 0, POOL - 1):03d}"
        if docno not in exclude and docno not in docs:
            docs.append(docno)
    return docs


def make_sample(seed: int = SEED) -> tuple[str, str]:
    """The text of (sample.qrels, sample.run) for *seed*."""
    rng = random.Random(seed)
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    for q in range(1, QUERIES + 1):
        qid = f"q{q}"
        retrieved = _distinct_docs(rng, _int(rng, 15, 40), set())
        judged: dict[str, int] = {}
        scored: list[tuple[int, str]] = []
        for docno in retrieved:
            bucket = _bucket(rng)
            scored.append((bucket, docno))
            label = _label(rng, bucket)
            if rng.random() < 0.85:
                judged[docno] = label
        for docno in _distinct_docs(rng, _int(rng, 1, 3), set(retrieved)):
            judged[docno] = 1 + _int(rng, 0, 1)  # relevant but not retrieved
        # trec_eval's order: score descending, then docno descending.
        scored.sort(reverse=True)
        run_lines += [f"{qid} Q0 {docno} {rank} {bucket} indegree" for rank, (bucket, docno) in enumerate(scored, 1)]
        qrels_lines += [f"{qid} 0 {docno} {judged[docno]}" for docno in sorted(judged)]
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write tieaware's bundled sample.qrels and sample.run.")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="output folder")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    args = parser.parse_args(argv)
    qrels, run = make_sample(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sample.qrels").write_text(qrels, encoding="utf-8")
    (args.out / "sample.run").write_text(run, encoding="utf-8")
    print(f"wrote {args.out / 'sample.qrels'} and {args.out / 'sample.run'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
