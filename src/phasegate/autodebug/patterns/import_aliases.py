"""Lost imports the index of definitions cannot name: aliases and submodules.

The name pattern (:mod:`.names`) finds a lost import through the definitions of the project
and the standard library. Two kinds of import bind a name that is defined nowhere under it:

* **an alias**: ``from ._funcs import asdict as _asdict`` binds ``_asdict``. It is found as
  another file of the project writes it (the same alias of the same module), or, for a
  private name, as the public definition (or standard-library module) it aliases with one
  leading underscore less (``_asdict`` -> ``asdict``, ``_warnings`` -> ``warnings``), or,
  when the project defines no such name, as the public symbol of the one standard-library
  module that offers it (``_itemgetter`` -> ``from operator import itemgetter as _itemgetter``),
  or as a standard-library module and a name it offers joined by an underscore (``math_log``
  -> ``from math import log as math_log``);
* **a submodule**: ``from . import keys`` binds the module ``pkg.keys``, which is a file,
  not a definition.

Each statement is written as the file writes its imports (relative or absolute), and other
names the file reads and nothing binds join it when they come from the same place, as a
deleted ``from m import a, b`` takes them all. An alias that repeats the name (``from
.exceptions import NoSuchOption as NoSuchOption``, how a package's ``__init__.py`` marks a
re-export) is copied only into a file that writes that form itself; elsewhere the name is
imported plainly.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from phasegate.autodebug.source import parse
from phasegate.autodebug.stdlib import is_stdlib_module, modules_defining, offers

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["absolute_module", "alias_statements"]

#: ``(statement, score, where it comes from)``, as :func:`.names.import_candidates` ranks them.
Statement = tuple[str, float, str]
#: ``{alias: {(absolute module, imported name or None for a module): file that imports it}}``
Aliases = dict[str, dict[tuple[str, str | None], str]]


def alias_statements(
    path: str,
    missing: str,
    unbound: list[str],
    project: Project,
    as_written: Callable[[str], str],
) -> list[Statement]:
    """Imports that bind ``missing`` in ``path`` under an alias, or as a submodule.

    ``as_written`` turns an absolute module name into the way this file would import it.
    """
    own_module = project.module_name(path)
    aliases = _project_aliases(project, skip=path)
    plain = not _reexports(project.read(path) or "")
    found: list[Statement] = []
    for (module, name), where in aliases.get(missing, {}).items():
        if module == own_module:
            continue
        if name is None:
            statement = f"import {module} as {missing}"
        else:
            together = _aliased_with(module, missing, unbound, aliases)
            names = [(name, missing), *together]
            statement = _from(as_written(module), _unaliased(names) if plain else names)
        found.append((statement, 0.89, f"as {where} imports it"))
    if not found:
        found += _public_aliased(missing, own_module, project, as_written)
        found += _module_prefixed(missing)
    found += _submodule_statements(path, missing, unbound, project, as_written)
    return found


def _reexports(text: str) -> bool:
    """Whether the file imports a name under its own name (``from .a import B as B``), the
    form that marks a re-export in a package's ``__init__.py`` (PEP 484); its imports read,
    not its text (``import os.path as path`` and a docstring that shows the form are none)."""
    tree = parse(text)
    return tree is not None and any(
        alias.asname == alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    )


def _unaliased(names: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """``names`` with each alias that repeats its name left out: a re-export's form is not
    copied into a file that re-exports nothing."""
    return [(name, None if alias == name else alias) for name, alias in names]


def _aliased_with(
    module: str, missing: str, unbound: list[str], aliases: Aliases
) -> list[tuple[str, str | None]]:
    """``(name, alias)`` of the other unbound names the project imports from ``module`` under
    an alias: a deleted ``from m import a as _a, b as _b`` takes them all."""
    return [
        (other_name, other)
        for other in unbound
        if other != missing
        for (other_module, other_name) in aliases.get(other, {})
        if other_module == module and other_name is not None
    ]


def _public_aliased(
    missing: str, own_module: str | None, project: Project, as_written: Callable[[str], str]
) -> list[Statement]:
    """For a private name (``_asdict``), the public definition or standard-library module it
    aliases with one leading underscore less."""
    public = missing[1:] if missing.startswith("_") and not missing.startswith("__") else ""
    if not public:
        return []
    found: list[Statement] = []
    for definition in project.index.exact(public)[:2]:
        if definition.module != own_module:
            statement = _from(as_written(definition.module), [(public, missing)])
            found.append((statement, 0.85, f"defined in {definition.path}:{definition.line}"))
    if is_stdlib_module(public):
        found.append((f"import {public} as {missing}", 0.84, "standard library module"))
    elif not project.index.exact(public):
        found += _stdlib_symbol_aliased(public, missing)
    return found


def _stdlib_symbol_aliased(public: str, missing: str) -> list[Statement]:
    """``from <module> import public as missing`` when exactly one standard-library module
    offers ``public``; ranked below the best import of ``missing`` itself."""
    modules = modules_defining(public)
    if len(modules) != 1:
        return []
    return [(_from(modules[0], [(public, missing)]), 0.78, "standard library symbol")]


def _module_prefixed(missing: str) -> list[Statement]:
    """``from <module> import <name> as missing`` for an alias that joins a standard-library
    module and a name it offers with an underscore (``math_log``: ``from math import log as
    math_log``); the first such split only."""
    return [
        (_from(module, [(name, missing)]), 0.78, "standard library symbol")
        for module, name in _underscore_splits(missing)
        if is_stdlib_module(module) and offers(module, name)
    ][:1]


def _underscore_splits(name: str) -> list[tuple[str, str]]:
    """``(before, after)`` for each underscore inside ``name`` (not first, not last)."""
    return [(name[:i], name[i + 1 :]) for i in range(1, len(name) - 1) if name[i] == "_"]


def _submodule_statements(
    path: str,
    missing: str,
    unbound: list[str],
    project: Project,
    as_written: Callable[[str], str],
) -> list[Statement]:
    """``from <package> import <missing>`` for a project submodule named ``missing``, the
    file's own package first."""
    packages = _packages_holding(project, missing, own_package=project.package_of(path))
    found: list[Statement] = []
    for rank, package in enumerate(packages[:2]):
        if f"{package}.{missing}" == project.module_name(path):
            continue
        others = _also_in_package(project, package, [name for name in unbound if name != missing])
        names = [(name, None) for name in sorted({missing, *others}, key=str.lower)]
        where = project.modules[f"{package}.{missing}"]
        found.append((_from(as_written(package), names), 0.875 - 0.01 * rank, f"module {where}"))
    return found


def _packages_holding(project: Project, submodule: str, *, own_package: str) -> list[str]:
    """The project packages with a submodule named ``submodule``, ``own_package`` first."""
    return sorted(
        {
            name.rpartition(".")[0]
            for name in project.modules
            if name.rpartition(".")[2] == submodule and "." in name
        },
        key=lambda package: (package != own_package, package),
    )


def _also_in_package(project: Project, package: str, names: list[str]) -> list[str]:
    """Those of ``names`` that ``package`` holds as a submodule or defines."""
    return [
        name
        for name in names
        if f"{package}.{name}" in project.modules
        or any(d.module == package for d in project.index.exact(name))
    ]


def _from(module: str, names: Sequence[tuple[str, str | None]]) -> str:
    parts = [name if alias is None else f"{name} as {alias}" for name, alias in names]
    return f"from {module} import {', '.join(dict.fromkeys(parts))}"


def _project_aliases(project: Project, *, skip: str) -> Aliases:
    """Every ``as`` import of the project's source files but ``skip``."""
    found: Aliases = {}
    for relpath in project.source_files:
        text = project.read(relpath) if relpath != skip else None
        tree = parse(text) if text is not None and " as " in text else None
        for node in ast.walk(tree) if tree is not None else ():
            for alias, imported in _aliased(project, relpath, node):
                found.setdefault(alias, {})[imported] = relpath
    return found


def _aliased(
    project: Project, relpath: str, node: ast.AST
) -> list[tuple[str, tuple[str, str | None]]]:
    """``(alias, (absolute module, imported name or None))`` of an import's ``as`` names."""
    if isinstance(node, ast.Import):
        return [(a.asname, (a.name, None)) for a in node.names if a.asname]
    if not isinstance(node, ast.ImportFrom):
        return []
    module = absolute_module(project, relpath, node)
    return [(a.asname, (module, a.name)) for a in node.names if a.asname and module]


def absolute_module(project: Project, relpath: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from`` import names, relative ones resolved from ``relpath``."""
    if not node.level:
        return node.module or ""
    parts = project.package_of(relpath).split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join(p for p in [*base, node.module or ""] if p)
