"""Which installed distributions provide given top-level modules, by the standard library's rule.

``importlib.metadata.packages_distributions()`` answers for every module of every installed
distribution: it parses each distribution's metadata for its name and, where a distribution has
no ``top_level.txt``, its whole ``RECORD`` into path objects, most of it for modules nobody asked
about (about half a billion instructions on an environment of 80 distributions). The deps check
asks about the few top-level modules a package imports, so this module answers for those only,
with the standard library's own rule for each distribution: its ``top_level.txt`` or else the
modules its file list holds (``importlib.metadata._top_level_declared`` and
``_top_level_inferred``, which ``packages_distributions`` itself calls on Python 3.11 to 3.13; a
private pair, so where they are absent, as on Python 3.10, the whole public mapping is read
instead). The rule reads a distribution (and its name) only when its ``top_level.txt`` or
``RECORD`` text holds one of the names asked for somewhere: every name the rule gives is in the
one or part of a path the other lists, so a distribution holding none of them cannot provide
one. A distribution without a ``RECORD`` (an egg-info install) is always read by the rule.

Hand-written because no library answers the narrower question; the answers equal the standard
library's mapping for the names asked (tested against it), in the same order.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Collection, Iterable

from packaging.utils import NormalizedName, canonicalize_name

__all__ = ["ModuleProviders"]

#: A distribution's top-level modules by the standard library's rule.
_ModulesOf = Callable[[importlib.metadata.Distribution], Iterable[str]]


class ModuleProviders:
    """The distributions providing the top-level ``modules``, read once from the environment."""

    def __init__(self, modules: Collection[str]) -> None:
        self._modules_of = _stdlib_rule()
        #: Without the standard library's rule: the canonical names of every providing
        #: distribution, from the whole mapping.
        self._providing: set[NormalizedName] | None = None
        if self._modules_of is None:
            self.by_module, self._providing = _from_whole_mapping(modules)
        else:
            self.by_module = _providers(set(modules), self._modules_of)

    def distributions(self, module: str) -> list[str]:
        """The names of the distributions providing ``module``, as packages_distributions()."""
        return self.by_module.get(module, [])

    def installs_modules(self, name: NormalizedName) -> bool:
        """Whether the installed distribution ``name`` provides any top-level module (False when
        it is not installed): a meta-package, such as ``griffe`` installing ``griffelib``,
        provides none."""
        if self._modules_of is None:
            return name in (self._providing or set())
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return False
        return bool(set(self._modules_of(dist)))


def _from_whole_mapping(
    modules: Collection[str],
) -> tuple[dict[str, list[str]], set[NormalizedName]]:
    """The public mapping's answers for ``modules``, and every providing distribution."""
    whole = importlib.metadata.packages_distributions()
    providing = {canonicalize_name(dist) for dists in whole.values() for dist in dists}
    return {name: whole[name] for name in modules if name in whole}, providing


def _stdlib_rule() -> _ModulesOf | None:
    """The standard library's rule for one distribution's modules, where it has the pair."""
    declared = getattr(importlib.metadata, "_top_level_declared", None)
    inferred = getattr(importlib.metadata, "_top_level_inferred", None)
    if not callable(declared) or not callable(inferred):
        return None

    def modules_of(dist: importlib.metadata.Distribution) -> Iterable[str]:
        found: Iterable[str] = declared(dist) or inferred(dist)
        return found

    return modules_of


def _providers(wanted: set[str], modules_of: _ModulesOf) -> dict[str, list[str]]:
    """packages_distributions() for the ``wanted`` modules, distribution by distribution."""
    found: dict[str, list[str]] = {}
    for dist in importlib.metadata.distributions():
        if _may_provide(dist, wanted):
            for module in modules_of(dist):
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
