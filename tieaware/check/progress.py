"""A tqdm progress bar on stderr, or the bare iterable when none is wanted."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Optional, TypeVar

__all__ = ["bar"]

T = TypeVar("T")


def bar(items: Iterable[T], show: bool, desc: str, total: Optional[int] = None) -> Iterator[T]:
    """*items* wrapped in a tqdm bar on stderr when *show*; tqdm stays quiet when stderr is no terminal.

    >>> list(bar([1, 2], False, "cases"))
    [1, 2]
    """
    if not show:
        return iter(items)
    from tqdm import tqdm

    # disable=None: silent when stderr is not a terminal, so logs and CI stay clean.
    return iter(tqdm(items, desc=desc, total=total, file=sys.stderr, disable=None, leave=False))
