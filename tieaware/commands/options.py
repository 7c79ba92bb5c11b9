"""Options several commands share (a command never imports another command; they import this)."""

from __future__ import annotations

import argparse

__all__ = ["add_jobs"]


def add_jobs(parser: argparse.ArgumentParser) -> None:
    """``--jobs N``: query shards evaluated by N processes (default: every core this process may use)."""
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="evaluate query shards in N processes (default: the cores available); results are identical for any N",
    )

