"""Whether a lost ``from`` import stands on a line of its own beside a statement of its module.

isort joins the names one module gives into one statement, but by default an import under an
alias keeps its own line (``combine_as_imports`` is off: ``from ._funcs import asdict as
_asdict`` above ``from ._funcs import astuple as _astuple``). The file shows whether it does:
no statement of it takes an aliased name beside another.

A file whose ``from`` imports each take one name (isort's ``force_single_line``) was tried as
a second sign and dropped: it won on whole statements deleted and lost more on one name
dropped from a statement of two (see ``docs/autodebug.md``).

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
    return _aliased(new, joinable) and not _combines_aliased(header)


def _aliased(*statements: ast.ImportFrom) -> bool:
    """Whether any of ``statements`` imports a name under an alias."""
    return any(alias.asname for stmt in statements for alias in stmt.names)


def _combines_aliased(header: Sequence[ast.Import | ast.ImportFrom]) -> bool:
    """Whether the file writes an aliased name and another in one statement."""
    return any(
        isinstance(stmt, ast.ImportFrom) and len(stmt.names) > 1 and _aliased(stmt)
        for stmt in header
    )
