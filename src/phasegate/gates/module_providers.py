"""Which installed distributions provide given top-level modules, by Python 3.11's rule.

``importlib.metadata.packages_distributions()`` answers for every module of every installed
distribution: it parses each distribution's metadata for its name and, where a distribution has
no ``top_level.txt``, its whole ``RECORD`` into path objects, most of it for modules nobody asked
about (about half a billion instructions on an environment of 80 distributions). The deps check
asks about the few top-level modules a package imports, so this module answers for those only.

Its rule for one distribution is that of Python 3.11's ``packages_distributions()``: the names
its ``top_level.txt`` lists when it lists any, else the first part of each ``.py`` file its file
list (``RECORD``, or an egg-info install's ``SOURCES.txt``) holds, a single file's name without
``.py``. It is written here, the same on every supported Python, because the standard library's
rule is not the same on all of them: Python 3.10 reads only ``top_level.txt`` (so a
distribution built without one, as hatchling, flit or poetry-core build, would provide nothing
and look like a meta-package), and Python 3.12 also infers names from other files; its
per-distribution steps are private.

The rule reads a distribution (and its name) only when its ``top_level.txt`` or ``RECORD`` text
holds one of the names asked for somewhere: every name the rule gives is in the one or part of a
path the other lists, so a distribution holding none of them cannot provide one. A distribution
without a ``RECORD`` (an egg-info install) is always read by the rule.

Hand-written because no library answers the narrower question; the answers equal Python 3.11's
mapping for the names asked (tested against it there), in the same order.
"""

from __future__ import annotations

import importlib.metadata
import inspect
from collections.abc import Collection

from packaging.utils import NormalizedName

__all__ = ["ModuleProviders"]


class ModuleProviders:
    """The distributions providing the top-level ``modules``, read once from the environment."""

    def __init__(self, modules: Collection[str]) -> None:
        self.by_module = _providers(set(modules))

    def distributions(self, module: str) -> list[str]:
        """The names of the distributions providing ``module``, in ``sys.path`` order."""
        return self.by_module.get(module, [])

    def installs_modules(self, name: NormalizedName) -> bool:
        """Whether the installed distribution ``name`` provides any top-level module (False when
        it is not installed): a meta-package, such as ``griffe`` installing ``griffelib``,
        provides none. Wider than the mapping's rule: a compiled module counts too, since
        taking a distribution for a meta-package counts its requirements as declared."""
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return False
        return bool(_declared_modules(dist) or _importable_modules(dist))


def _top_level_modules(dist: importlib.metadata.Distribution) -> Collection[str]:
    """The top-level modules ``dist`` provides, by Python 3.11's rule (see the module docstring):
    its ``top_level.txt`` names, else the modules its ``.py`` files make."""
    return _declared_modules(dist) or _inferred_modules(dist)


def _declared_modules(dist: importlib.metadata.Distribution) -> list[str]:
    """The names ``top_level.txt`` lists, none when it is missing or blank."""
    return (dist.read_text("top_level.txt") or "").split()


def _inferred_modules(dist: importlib.metadata.Distribution) -> set[str]:
    """The first part of each ``.py`` file the distribution lists; a lone file's name."""
    return {
        path.parts[0] if len(path.parts) > 1 else path.stem
        for path in dist.files or ()
        if path.suffix == ".py"
    }


#: Folders of a distribution's file list that hold no module of it.
_NOT_MODULES = ("..", "__pycache__")
_METADATA_FOLDERS = (".dist-info", ".egg-info", ".data")


def _importable_modules(dist: importlib.metadata.Distribution) -> set[str]:
    """The top-level names of the files ``dist`` lists that Python imports, a compiled
    extension module (``.so``, ``.pyd``) as well as a ``.py`` file, and the package folders
    holding one; a script, a data file or the metadata folder is none."""
    names: set[str] = set()
    for path in dist.files or ():
        top, module = path.parts[0], inspect.getmodulename(path.name)
        if module is None or top in _NOT_MODULES or top.endswith(_METADATA_FOLDERS):
            continue
        names.add(top if len(path.parts) > 1 else module)
    return names


def _providers(wanted: set[str]) -> dict[str, list[str]]:
    """3.11's packages_distributions() for the ``wanted`` modules, distribution by distribution."""
    found: dict[str, list[str]] = {}
    for dist in importlib.metadata.distributions():
        if _may_provide(dist, wanted):
            for module in _top_level_modules(dist):
                if module in wanted:
                    found.setdefault(module, []).append(dist.metadata["Name"])
    return found


def _may_provide(dist: importlib.metadata.Distribution, wanted: set[str]) -> bool:
    """False only when the distribution cannot provide a wanted module by the rule: each name
    the rule gives is in its ``top_level.txt`` or, without one, part of a path its ``RECORD``
    lists."""
    listed = (dist.read_text("top_level.txt") or "").strip() or dist.read_text("RECORD")
    if not listed:
        return True  # an egg-info install: its file list is read another way
    return any(name in listed for name in wanted)
