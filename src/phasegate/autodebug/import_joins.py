"""Whether a lost ``from`` import stands on a line of its own beside a statement of its module.

isort joins the names one module gives into one statement, except where a project tells it
not to: ``force_single_line`` writes one name per statement, and by default an import under
an alias keeps its own line (``combine_as_imports`` is off: ``from ._funcs import asdict as
_asdict`` above ``from ._funcs import astuple as _astuple``). The file shows which it does:
``from`` imports that each take one name, and no statement that takes an aliased name beside
another.

Measured on the installed packages by ``benchmarks/import_placement.py`` (a ``from`` import
of a module the header imports from again; its seed's development half tuned); see
``docs/autodebug.md``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

__all__ = ["stands_alone"]


def stands_alone(
    header: Sequence[ast.Import | ast.ImportFrom], new: ast.ImportFrom, joinable: ast.ImportFrom
) -> bool:
    """Whether ``new`` goes on a line of its own rather than into ``joinable``, a statement of
    the same module among the module's leading imports ``header``."""
    return _one_name_each(header) or (_aliased(new, joinable) and not _combines_aliased(header))


def _from_imports(header: Sequence[ast.Import | ast.ImportFrom]) -> list[ast.ImportFrom]:
    return [stmt for stmt in header if isinstance(stmt, ast.ImportFrom)]


def _one_name_each(header: Sequence[ast.Import | ast.ImportFrom]) -> bool:
    """Whether the header's ``from`` imports, two or more, each take one name."""
    statements = _from_imports(header)
    return len(statements) > 1 and all(len(stmt.names) == 1 for stmt in statements)


def _aliased(*statements: ast.ImportFrom) -> bool:
    """Whether any of ``statements`` imports a name under an alias."""
    return any(alias.asname for stmt in statements for alias in stmt.names)


def _combines_aliased(header: Sequence[ast.Import | ast.ImportFrom]) -> bool:
    """Whether the file writes an aliased name and another in one statement."""
    return any(len(stmt.names) > 1 and _aliased(stmt) for stmt in _from_imports(header))
