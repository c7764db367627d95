"""The order a project keeps among its imports, learnt from its own modules.

A module whose imports follow no sorting rule still has an order its author keeps from one
module to the next: ``import os`` right after ``import sys``, the standard library before
the package's own modules. :class:`ImportPrecedence` counts, over the leading imports of
the project's files, how many put one import before another, and places a restored import
where it agrees with most of those counts about its neighbours.

Auto-debug does not use it: measured by ``benchmarks/import_placement.py`` (every one-line
import of the unsorted headers of the installed packages deleted and put back, packages split
by seed), it won on the development half and lost on the report half, so auto-debug keeps the
file's own rule (:func:`phasegate.autodebug.source.insert_import` without a precedence). It
stays for that benchmark, which measures it against the file's own rule.

Hand-written: isort and ruff sort imports by fixed rules; none learns a project's own order.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence

__all__ = ["ImportPrecedence", "import_identity"]

ImportNode = ast.Import | ast.ImportFrom


def import_identity(stmt: ImportNode) -> str:
    """What an import reads, as the project's modules repeat it: ``import os``, ``from .x``
    (the names a ``from`` import takes vary from module to module; its module does not)."""
    if isinstance(stmt, ast.ImportFrom):
        return f"from {'.' * stmt.level}{stmt.module or ''}"
    return "import " + ", ".join(alias.name for alias in stmt.names)


class ImportPrecedence:
    """How many of the project's files put one import before another."""

    def __init__(self) -> None:
        self._before: Counter[tuple[str, str]] = Counter()

    def learn(self, header: Sequence[ImportNode], weight: int = 1) -> None:
        """Count the order of one file's leading imports (a negative ``weight`` takes back a
        file counted before)."""
        order = list(dict.fromkeys(import_identity(stmt) for stmt in header))
        for index, first in enumerate(order):
            for second in order[index + 1 :]:
                self._before[first, second] += weight

    def lean(self, first: str, second: str) -> int:
        """How many more files put ``first`` before ``second`` than after it."""
        return self._before[first, second] - self._before[second, first]

    def line_for(self, header: Sequence[ImportNode], new: ImportNode, fallback: int) -> int:
        """The line ``new`` goes before among ``header`` (a module's leading imports): the
        place between two imports that agrees with most of the project's counts about the
        imports above and below it; ``fallback`` when the project never orders ``new`` against
        any of them, or when ``fallback`` agrees as well as any place does."""
        wanted = import_identity(new)
        leans = [(stmt.lineno, self.lean(import_identity(stmt), wanted)) for stmt in header]
        if not any(lean for _line, lean in leans):
            return fallback
        scores = {line: _agreement(leans, line) for line in _places(header)}
        return _best_place(scores, fallback)


def _places(header: Sequence[ImportNode]) -> list[int]:
    """The lines an import may go before: each import's first line, and the line after each
    run of adjacent imports (the end of a block, before a blank line or what follows)."""
    places = {stmt.lineno for stmt in header}
    for stmt, following in zip(header, [*header[1:], None], strict=True):
        end = (stmt.end_lineno or stmt.lineno) + 1
        if following is None or following.lineno != end:
            places.add(end)
    return sorted(places)


def _best_place(scores: dict[int, int], fallback: int) -> int:
    """The place of the highest score: ``fallback`` if it has it, else the nearest to it."""
    best = max(scores.values())
    if scores.get(fallback) == best:
        return fallback
    tied = [line for line, score in scores.items() if score == best]
    return min(tied, key=lambda line: (abs(line - fallback), line))


def _agreement(leans: list[tuple[int, int]], line: int) -> int:
    """How many of the project's counts a new import put before ``line`` agrees with: those
    that put each import above it first, and each import below it after."""
    return sum(lean if above < line else -lean for above, lean in leans)
