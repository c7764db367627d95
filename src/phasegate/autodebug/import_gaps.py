"""Where a lost import was a block of its own: the blank lines it left behind.

A module's imports stand in blocks with one blank line between them (isort's sections, or a
file's own grouping). Deleting the whole line of an import that was a block by itself leaves
one blank line too many: two between two blocks, two above the first import (one at the top
of a file), three or more below the last one before the code. Where a file's header shows
exactly one such run, that is where the import goes back.

Measured on the installed packages by ``benchmarks/import_placement.py`` (its seed's
development half tuned, its report half reported); see ``docs/autodebug.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

__all__ = ["vacated_lines"]

# The blank lines PEP 8 puts before a top-level definition: a run after the imports longer
# than this is one that lost something.
_BLANKS_BEFORE_CODE = 2


def vacated_lines(spans: Sequence[tuple[int, int]], lines: Sequence[str]) -> list[int]:
    """The lines a lost one-import block would go before, given the first and last lines
    (1-based) of each of a module's leading imports and the module's ``lines``: one for each
    run of blank lines in or around them that is one too long."""
    if not spans:
        return []
    return [
        *_between(spans, lines),
        *_above(spans[0][0], lines),
        *_below(spans[-1][1], lines),
    ]


def _blank(lines: Sequence[str], index: int) -> bool:
    """Whether the line of 0-based ``index`` holds nothing but white space."""
    return not lines[index].strip()


def _between(spans: Sequence[tuple[int, int]], lines: Sequence[str]) -> list[int]:
    """Runs of two or more blank lines between two imports: after the first blank line."""
    return [
        end + 2
        for (_start, end), (following, _end) in pairwise(spans)
        if following - end - 1 >= 2 and all(_blank(lines, i) for i in range(end, following - 1))
    ]


def _above(first: int, lines: Sequence[str]) -> list[int]:
    """A run of blank lines right above the first import: at the top of the file (one is
    enough), or two or more below a docstring or comment; after the first blank line."""
    top = first - 1  # the number of lines above the first import
    while top > 0 and _blank(lines, top - 1):
        top -= 1
    run = first - 1 - top
    if top == 0 and run >= 1:
        return [1]
    return [top + 2] if run >= 2 else []


def _below(last: int, lines: Sequence[str]) -> list[int]:
    """A run of more blank lines than PEP 8's two after the last import, before the code:
    after the first blank line."""
    end = last
    while end < len(lines) and _blank(lines, end):
        end += 1
    return [last + 2] if end < len(lines) and end - last > _BLANKS_BEFORE_CODE else []
