#!/usr/bin/env python3
"""How often the paper's RBO^a departs from the true average over tie-breakings, on the official test rows.

The official implementation (julian-urbano/sigir2024-rbo) ships ``rbo/test.csv``:
10,000 pairs of tied rankings with the 12 values its code prints.  That file
is CC BY-SA, so it is not part of this repository: pass the path of your own
copy.

    python scripts/rbo_official_csv.py path/to/rbo/test.csv

For every row it computes, exactly (p read as the exact decimal in the file),
the paper's RBO^a (``tieaware.fast.rbo_bounds(variant="a")``, what the
official code prints) and the average of bare RBO over every tie-breaking of
both rankings (``tieaware.fast.rbo_expected_bounds``, equal to the
enumerating reference), and counts the rows where MAX and EXT differ, with the
largest difference.  MIN never differs; RES differs exactly when MAX does.
It also checks that our paper-formula floats match the file's a-columns.
docs/rbo.md records one run.
"""

from __future__ import annotations

import argparse
import csv
import sys
from fractions import Fraction

from tieaware.model.exact import to_float
from tieaware.fast import rbo_bounds, rbo_expected_bounds
from tieaware.model.rbo_input import from_string


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="the official rbo/test.csv (not shipped: CC BY-SA)")
    parser.add_argument("--limit", type=int, default=None, help="read only the first N rows")
    args = parser.parse_args(argv)
    try:
        handle = open(args.csv, newline="", encoding="utf-8")
    except OSError as exc:
        print(f"rbo_official_csv: error: cannot read {args.csv!r}: {exc.strerror}", file=sys.stderr)
        return 2
    rows = differs_max = differs_ext = differs_min = 0
    largest = {"max": Fraction(0), "ext": Fraction(0)}
    worst_official = 0.0
    with handle:
        for row in csv.DictReader(handle):
            if args.limit is not None and rows >= args.limit:
                break
            rows += 1
            x, y, p = from_string(row["x"]), from_string(row["y"]), Fraction(row["p"])
            paper = rbo_bounds(x, y, p, variant="a")
            average = rbo_expected_bounds(x, y, p)
            differs_min += paper.min != average.min
            for bound in ("max", "ext"):
                gap = getattr(average, bound) - getattr(paper, bound)
                if gap:
                    largest[bound] = max(largest[bound], abs(gap))
            differs_max += paper.max != average.max
            differs_ext += paper.ext != average.ext
            for bound in ("ext", "max"):
                worst_official = max(worst_official, abs(to_float(getattr(paper, bound)) - float(row[f"a.{bound}"])))
    print(f"rows: {rows:,}")
    print(f"paper's a-MIN differs from the average: {differs_min:,} rows")
    print(f"paper's a-MAX differs from the average: {differs_max:,} rows, by up to {float(largest['max']):.4f}")
    print(f"paper's a-EXT differs from the average: {differs_ext:,} rows, by up to {float(largest['ext']):.4f}")
    print(f"our paper-formula a-MAX/a-EXT vs the file's columns: largest gap {worst_official:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
