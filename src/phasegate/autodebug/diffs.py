"""Unified diffs of the files a repair rewrites, in the form ``git apply`` and ``patch`` take.

Written with :mod:`difflib`, adding the "No newline at end of file" marker it leaves out.
"""

from __future__ import annotations

import difflib

__all__ = ["unified_diff"]


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of one file that ``git apply`` and ``patch -p1`` accept."""
    lines = []
    for line in difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    ):
        lines.append(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n")
    return "".join(lines)
