"""A copy of the project's package placed where the tests import it first.

pytest puts a test file's folder first on ``sys.path`` (its default ``prepend`` import mode), so
a ``tests/calc/__init__.py`` holding a corrected copy of ``src/calc`` is what ``import calc``
finds: the failing test passes and the code stays broken (review s16r, finding 31: integrity
silent; only coverage, which measured nothing of the real package, failed). A Python file the
change adds that is a package or module of a first-party name, outside the project's own package
folders, is reported, unless the folder holding it is itself a package (has an ``__init__.py``):
then the copy is ``tests.calc``, pytest puts the first folder above without an ``__init__.py``
on ``sys.path``, and ``import calc`` still finds the project's package. But not when pytest's
``pythonpath`` setting (as the work tree sets it, in the file pytest reads) names the folder
holding it ahead of the folder the project's package imports from (or without it): that folder
itself is then first on ``sys.path`` (review s17r). pytest inserts the entries so that the
first listed is first: with ``pythonpath = ["src", "tests"]`` ``import calc`` finds ``src/calc``,
and an honest test subpackage ``tests/calc/`` is no copy (review s17d, finding 10).
"""

from __future__ import annotations

import configparser
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from phasegate import tomlfile
from phasegate.integrity.settings_readers import file_read_by
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["shadow_tricks"]


def shadow_tricks(sources: ChangedSources, packages: Sequence[str]) -> list[Trick]:
    """``packages``: the project's package folders (or modules), relative to the root."""
    names = {PurePosixPath(package).stem: package for package in packages}
    order = _pythonpath(sources)
    return [
        _trick(path, names[name])
        for path in sources.paths
        if (name := _module_name(path)) in names
        and _added_outside(sources, path, packages, _Homes(names[name], order))
    ]


@dataclass(frozen=True)
class _Homes:
    """The project's package (or module) a copy is named like, and pytest's ``pythonpath``."""

    package: str
    order: tuple[str, ...]

    def ahead(self, folder: str) -> bool:
        """Whether ``pythonpath`` puts ``folder`` on ``sys.path`` before the package's own
        folder (or names ``folder`` and not the package's folder)."""
        home = str(PurePosixPath(self.package).parent)
        if folder not in self.order:
            return False
        return home not in self.order or self.order.index(folder) < self.order.index(home)


def _module_name(path: str) -> str:
    """The import name a ``.py`` file defines at its folder (a package's for ``__init__.py``)."""
    file = PurePosixPath(path)
    if file.suffix != ".py":
        return ""
    return file.parent.name if file.name == "__init__.py" else file.stem


def _added_outside(
    sources: ChangedSources, path: str, packages: Sequence[str], homes: _Homes
) -> bool:
    inside = any(PurePosixPath(path).is_relative_to(package) for package in packages)
    found = homes.ahead(_folder_of(path)) or not _in_a_package(sources, path)
    return not inside and sources.base_text(path) is None and found


def _folder_of(path: str) -> str:
    """The folder on ``sys.path`` from which the module (or the package) imports by its name."""
    file = PurePosixPath(path)
    module = file.parent if file.name == "__init__.py" else file
    return str(module.parent)


def _in_a_package(sources: ChangedSources, path: str) -> bool:
    """Whether the folder holding the module (or the package folder) has an ``__init__.py``."""
    return sources.head_text(str(PurePosixPath(_folder_of(path)) / "__init__.py")) is not None


def _pythonpath(sources: ChangedSources) -> tuple[str, ...]:
    """The folders pytest's ``pythonpath`` setting puts on ``sys.path``, relative to the root,
    the first on ``sys.path`` first."""
    name = file_read_by("pytest", sources.head_text)
    entries = _entries_in(name, sources.head_text(name) or "") if name else []
    return tuple(str(PurePosixPath(entry)) for entry in entries)


def _entries_in(name: str, text: str) -> list[str]:
    return _toml_pythonpath(text) if name.endswith(".toml") else _ini_pythonpath(text)


def _toml_pythonpath(text: str) -> list[str]:
    """``pythonpath`` of ``[tool.pytest.ini_options]``, ``[tool.pytest]`` or ``[pytest]``."""
    try:
        data = tomlfile.loads(text)
    except tomlfile.TOMLDecodeError:
        return []  # the configuration check reports the file
    tables = (
        tomlfile.table_in(data, "tool", "pytest", "ini_options"),
        tomlfile.table_in(data, "tool", "pytest"),
        tomlfile.table_in(data, "pytest"),
    )
    return _listed(next((table["pythonpath"] for table in tables if "pythonpath" in table), []))


def _listed(value: object) -> list[str]:
    """A TOML setting's entries: a list's items, or a string's words."""
    if isinstance(value, str):
        return value.split()
    return [str(entry) for entry in value] if isinstance(value, list) else []


def _ini_pythonpath(text: str) -> list[str]:
    """``pythonpath`` of ``[pytest]`` or ``[tool:pytest]``, separated by whitespace."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []  # the configuration check reports the file
    sections = (name for name in ("pytest", "tool:pytest") if parser.has_section(name))
    return next((parser[name].get("pythonpath", "").split() for name in sections), [])


def _trick(path: str, package: str) -> Trick:
    name = PurePosixPath(package).stem
    message = (
        f"a copy of {name} added outside {package}: tests that import {name} from beside it run "
        "the copy, not the project's code"
    )
    return Trick("evidence", "patches-subject", path, None, message)
