"""A lost import of a name the project does not define: as the project's other files import it.

The name pattern (:mod:`.names`) finds a lost import through the definitions of the project
and the standard library; a name another package defines (jinja2's ``from markupsafe import
Markup``) is in neither. When the project's other files import that very name, plainly, from
a module outside the file itself, the import they write is proposed, the module most of them
name first.

A name that is also a module (``abc``, which jinja2 binds with ``from collections import
abc`` in six files and with ``import abc`` in none) is imported as the project binds it: the
other files' ``from`` import ranks above ``import abc`` where more of them write it than
import the module of that name.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.import_aliases import Statement, absolute_module

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["imported_elsewhere", "imported_elsewhere_first"]


def imported_elsewhere(
    path: str,
    missing: str,
    project: Project,
    as_written: Callable[[str], str],
    score: float = 0.86,
) -> list[Statement]:
    """``from <module> import missing`` as the project's other files write it, the module most
    of them import it from first (at most two)."""
    return [
        (f"from {as_written(module)} import {missing}", score, f"as {count} other files import it")
        for module, count in _modules_counted(path, missing, project).most_common(2)
    ]


def imported_elsewhere_first(
    path: str, missing: str, project: Project, as_written: Callable[[str], str]
) -> list[Statement]:
    """:func:`imported_elsewhere`'s imports, ranked above ``import missing`` (0.9), where
    more of the project's other files import ``missing`` from a module than import a module
    named ``missing``; else none."""
    binding = sum(_modules_counted(path, missing, project).values())
    if binding <= _plain_imports(path, missing, project):
        return []
    return imported_elsewhere(path, missing, project, as_written, score=0.91)


def _plain_imports(path: str, missing: str, project: Project) -> int:
    """How many of the project's other files ``import missing`` under its own name."""
    return sum(
        any(_imports_plainly(node, missing) for node in ast.walk(tree))
        for _relpath, tree in _other_files(path, missing, project)
    )


def _imports_plainly(node: ast.AST, missing: str) -> bool:
    return isinstance(node, ast.Import) and any(
        alias.name == missing and alias.asname is None for alias in node.names
    )


def _modules_counted(path: str, missing: str, project: Project) -> Counter[str]:
    """How many of the project's other files import ``missing`` from each module but
    ``path``'s own."""
    own = project.module_name(path)
    counts = Counter(
        module
        for relpath, tree in _other_files(path, missing, project)
        for module in _modules_giving(project, relpath, tree, missing)
    )
    counts.pop(own or "", None)
    counts.pop("", None)  # a relative import that reaches out of the project
    return counts


def _other_files(path: str, missing: str, project: Project) -> list[tuple[str, ast.Module]]:
    """The project's source files but ``path`` whose text holds ``missing``, parsed."""
    found = project.parsed_naming(missing, project.source_files)
    return [(relpath, tree) for relpath, tree in found if relpath != path]


def _modules_giving(project: Project, relpath: str, tree: ast.Module, missing: str) -> set[str]:
    """The absolute modules ``tree`` imports ``missing`` from under its own name."""
    return {
        absolute_module(project, relpath, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and _binds_plainly(node, missing)
    }


def _binds_plainly(node: ast.ImportFrom, missing: str) -> bool:
    return any(alias.name == missing and alias.asname is None for alias in node.names)
