"""A misspelt submodule in a relative ``from . import a, b``, respelt as the package's own.

``from . import curriied, sandbox`` in a package's ``__init__.py`` fails while the package is
being imported, so by the time the failure is read the package is no longer in
``sys.modules``, and no live module lists what it could have imported. Its submodules are the
project's own files (:attr:`~phasegate.autodebug.project.Project.modules`): a name of the
statement that is none of them is respelt as the closest that is, in that statement only.
Hand-written: no library maps an import statement's names onto a package's files.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.patterns.base import closeness
from phasegate.autodebug.source import rename_names

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["submodule_candidates"]


def submodule_candidates(
    text: str, path: str, statement: ast.Import | ast.ImportFrom, project: Project
) -> list[Candidate]:
    """Each name of a failing relative ``from . import ...`` that is no submodule of its
    package, respelt as the closest that is."""
    if not isinstance(statement, ast.ImportFrom) or statement.module:
        return []
    submodules = _submodules(project, _package(project.package_of(path), statement.level))
    candidates = []
    for alias in statement.names:
        if alias.name not in submodules:
            candidates += _respelt(text, path, statement, alias.name, submodules)
    return candidates


def _package(importer_package: str, level: int) -> str:
    """The package ``from <level dots> import ...`` reads from (the top, for too many dots)."""
    parts = importer_package.split(".")
    return ".".join(parts[: max(0, len(parts) - level + 1)])


def _submodules(project: Project, package: str) -> set[str]:
    """The names of the package's own modules and subpackages."""
    prefix = f"{package}." if package else ""
    names = {n[len(prefix) :].partition(".")[0] for n in project.modules if n.startswith(prefix)}
    return names - {""}


def _respelt(
    text: str, path: str, statement: ast.ImportFrom, wanted: str, submodules: set[str]
) -> list[Candidate]:
    found = []
    for match in closest(wanted, submodules)[:3]:
        new = rename_names(
            text, wanted, match.name, first_line=statement.lineno, last_line=statement.end_lineno
        )
        if new is not None:
            found.append(
                Candidate(
                    "submodule-typo",
                    f"import the submodule `{match.name}` instead of `{wanted}` in "
                    f"{path}:{statement.lineno}",
                    [FileEdit(path, new)],
                    0.9 * closeness(match.distance, wanted),
                    {"meaning": f"the package's submodule `{match.name}`"},
                )
            )
    return found
