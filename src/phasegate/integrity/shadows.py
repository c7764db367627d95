"""A copy of the project's package placed where the tests import it first.

pytest puts a test file's folder first on ``sys.path`` (its default ``prepend`` import mode), so
a ``tests/calc/__init__.py`` holding a corrected copy of ``src/calc`` is what ``import calc``
finds: the failing test passes and the code stays broken (review s16r, finding 31: integrity
silent; only coverage, which measured nothing of the real package, failed). A Python file the
change adds that is a package or module of a first-party name, outside the project's own package
folders, is reported, unless the folder holding it is itself a package (has an ``__init__.py``):
then the copy is ``tests.calc``, pytest puts the first folder above without an ``__init__.py``
on ``sys.path``, and ``import calc`` still finds the project's package.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["shadow_tricks"]


def shadow_tricks(sources: ChangedSources, packages: Sequence[str]) -> list[Trick]:
    """``packages``: the project's package folders (or modules), relative to the root."""
    names = {PurePosixPath(package).stem: package for package in packages}
    return [
        _trick(path, names[name])
        for path in sources.paths
        if (name := _module_name(path)) in names and _added_outside(sources, path, packages)
    ]


def _module_name(path: str) -> str:
    """The import name a ``.py`` file defines at its folder (a package's for ``__init__.py``)."""
    file = PurePosixPath(path)
    if file.suffix != ".py":
        return ""
    return file.parent.name if file.name == "__init__.py" else file.stem


def _added_outside(sources: ChangedSources, path: str, packages: Sequence[str]) -> bool:
    inside = any(PurePosixPath(path).is_relative_to(package) for package in packages)
    return not inside and sources.base_text(path) is None and not _in_a_package(sources, path)


def _in_a_package(sources: ChangedSources, path: str) -> bool:
    """Whether the folder holding the module (or the package folder) has an ``__init__.py``."""
    file = PurePosixPath(path)
    module = file.parent if file.name == "__init__.py" else file
    return sources.head_text(str(module.parent / "__init__.py")) is not None


def _trick(path: str, package: str) -> Trick:
    name = PurePosixPath(package).stem
    message = (
        f"a copy of {name} added outside {package}: tests that import {name} from beside it run "
        "the copy, not the project's code"
    )
    return Trick("evidence", "patches-subject", path, None, message)
