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
and an honest test subpackage ``tests/calc/`` is no copy (review s17d, finding 10). The
setting is read by :mod:`.search_path`, its override in ``addopts`` (``-o pythonpath=...``) too,
and so is a conftest.py inserting a folder into ``sys.path`` (``sys.path.insert(0,
str(Path(__file__).parent))``): that folder counts as first, and any folder when the inserted
one is not read (review s17d, finding 5). Other code inserting into ``sys.path`` (a test module,
a ``.pth`` file, ``PYTHONPATH``) is not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from phasegate.integrity.search_path import Inserted, inserted, pythonpath
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["shadow_tricks"]


def shadow_tricks(sources: ChangedSources, packages: Sequence[str]) -> list[Trick]:
    """``packages``: the project's package folders (or modules), relative to the root."""
    names = {PurePosixPath(package).stem: package for package in packages}
    order = pythonpath(sources)
    first = inserted(sources)
    return [
        _trick(path, names[name])
        for path in sources.paths
        if (name := _module_name(path)) in names
        and _added_outside(sources, path, packages, _Homes(names[name], order, first))
    ]


@dataclass(frozen=True)
class _Homes:
    """The project's package (or module) a copy is named like, and pytest's ``pythonpath``."""

    package: str
    order: tuple[str, ...]
    inserted: Inserted

    def ahead(self, folder: str) -> bool:
        """Whether a conftest.py inserts ``folder`` into ``sys.path`` (or a folder not read),
        or ``pythonpath`` puts it before the package's own folder."""
        return self.inserted.unknown or folder in self.inserted.folders or self._before(folder)

    def _before(self, folder: str) -> bool:
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


def _trick(path: str, package: str) -> Trick:
    name = PurePosixPath(package).stem
    message = (
        f"a copy of {name} added outside {package}: tests that import {name} from beside it run "
        "the copy, not the project's code"
    )
    return Trick("evidence", "patches-subject", path, None, message)
