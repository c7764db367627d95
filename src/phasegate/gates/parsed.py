"""One parse of each Python file, shared by every check that reads syntax trees.

The deps check walks the imports of the package source, and the docs and breaking checks
refuse to read an API from a file that does not parse: each used to parse the same files
again. (The syntax check compiles every file from its source, which is cheaper than building
a tree, and gives the same messages: see :mod:`phasegate.gates.checks.syntax`.) A
:class:`SyntaxTrees` belongs to the :class:`~phasegate.gates.project.GateProject` the
checks share, so within one run each file is read and parsed once, whichever check asks first
(the checks run in threads; a lock keeps two of them from parsing the same file at once).

A file that cannot be read or parsed is remembered as :class:`Unparseable`, with the message,
line and column the parser gave, so every check reports the same reason.

:func:`ending_name` is the one reading of "the name an expression ends in" that the checks,
the integrity engine and the TDD rules share (``pytest.raises`` -> ``raises``).
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from phasegate.gates.protocol import CheckError

__all__ = ["SyntaxTrees", "Unparseable", "ending_name"]


@dataclass(frozen=True)
class Unparseable:
    """Why a file has no syntax tree."""

    message: str
    line: int | None = None
    column: int | None = None


class SyntaxTrees:
    """The syntax trees of a project's files, parsed on first use."""

    def __init__(self) -> None:
        self._trees: dict[Path, ast.Module | Unparseable] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> ast.Module | Unparseable:
        """The tree of ``path``, or why there is none."""
        with self._lock:
            found = self._trees.get(path)
            if found is None:
                found = self._trees[path] = _parse(path)
            return found

    def tree(self, path: Path, *, what: str) -> ast.Module:
        """The tree of ``path``; a CheckError saying ``what`` is unknown when it has none."""
        found = self.get(path)
        if isinstance(found, Unparseable):
            place = f" (line {found.line})" if found.line else ""
            raise CheckError(
                f"{path} cannot be read or parsed, so {what} is unknown: {found.message}{place}",
                fix="make the file parse (see the syntax check)",
            )
        return found

    def require(self, files: Iterable[Path], *, what: str) -> None:
        """A CheckError naming the first of ``files`` that does not parse."""
        for path in files:
            self.tree(path, what=what)


def _parse(path: Path) -> ast.Module | Unparseable:
    try:
        source = path.read_bytes()
    except OSError as exc:
        return Unparseable(f"cannot be read: {exc.strerror or exc}")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        return Unparseable(f"{type(exc).__name__}: {exc.msg}", exc.lineno, exc.offset)
    except ValueError as exc:  # null bytes in the source
        return Unparseable(f"ValueError: {exc}")
    return tree


def ending_name(expr: ast.expr) -> str | None:
    """The name a bare name or an attribute access ends in (``obj.run`` -> ``run``); ``None``
    for any other expression (a call, a subscript...)."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None
