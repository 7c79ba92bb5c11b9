"""``tieaware vectors --out DIR``: write the certified test vectors, one JSON file per measure family.

The files are Wycheproof-style (``algorithm``, ``schema``, ``numberOfTests``,
``notes``, ``testGroups[].tests[]``); every expected value is exact, computed
by enumeration and cross-checked against the closed forms.  The same corpus
ships inside the package (``tieaware.vectors``).  All files are built before
any is written, so an error leaves no partial corpus.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from tieaware.vectors.generate import FAMILIES, generate

__all__ = ["add_parser", "run"]

_EPILOG = """\
examples:
  tieaware vectors --out vectors/
  tieaware vectors --out vectors/ --family ndcg --family average_precision

Load them from Python with tieaware.vectors.load(family) or iter_cases(family);
see docs/vectors.md."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "vectors",
        help="write certified test vectors (Wycheproof-style JSON) for tie-aware measures",
        description="Write certified test vectors for tie-aware measures, one Wycheproof-style JSON file per family.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="directory to write FAMILY.json files into")
    parser.add_argument(
        "--family",
        action="append",
        choices=sorted(FAMILIES),
        help="a family to write (repeatable; default: all)",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    paths = generate(args.out, args.family, progress=True)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            count = json.load(f)["numberOfTests"]
        print(f"{path}\t{count} tests\t{os.path.getsize(path)} bytes")
    return 0
