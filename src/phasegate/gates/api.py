"""The public API of a package, read statically with griffe (for the docs and breaking checks).

griffe reads the source without importing it (``allow_inspection=False``): a gate never runs
the project's code to look at it. griffe skips a module it cannot parse and only logs it, so
the checks make sure every file parses first (through the project's shared syntax trees,
:mod:`phasegate.gates.parsed`): a file that does not parse is a
:class:`~phasegate.gates.protocol.CheckError`, since an API read without it would be wrong. What
griffe returns is recognized too: a module, read from the package asked for (not one found
elsewhere).

griffe merges a module's stub (``mod.pyi`` beside ``mod.py``) into it, and the stub's
``__all__`` then replaces the source's. A stub lags behind its source (a new function is
added to ``mod.py`` and its ``__all__`` first), so the public names are those of either
``__all__``: what the code exports at run time counts, whether the stub caught up or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.gates.protocol import CheckError

if TYPE_CHECKING:
    import griffe

__all__ = ["load_package", "load_packages", "package_name"]


def package_name(package: Path) -> str:
    """The import name of a package folder or single-module file."""
    return package.stem if package.suffix == ".py" else package.name


def load_package(package: Path) -> griffe.Module:
    """The package at ``package`` (a folder or a ``.py`` file), from its folder only."""
    return load_packages([package])[0]


def load_packages(packages: Sequence[Path]) -> list[griffe.Module]:
    """The packages at ``packages`` (folders or ``.py`` files), in that order, loaded together.

    One package may re-export another's names (attrs' ``attrs.field`` is ``attr.field``), and
    griffe resolves such a name only when the other package is in the same collection: so they
    share one, and a package whose names point into one not loaded yet is loaded after it.
    """
    import griffe

    modules = griffe.ModulesCollection()
    lines = griffe.LinesCollection()
    search_paths = list(dict.fromkeys(package.parent for package in packages))
    loaded: dict[Path, griffe.Module] = {}
    waiting: dict[Path, Exception] = dict.fromkeys(packages, RuntimeError("not loaded"))
    while waiting:
        before = len(waiting)
        for package in list(waiting):
            try:
                loaded[package] = _load(package, search_paths, modules, lines)
            except (griffe.AliasResolutionError, griffe.CyclicAliasError) as exc:
                waiting[package] = exc  # it may need a package loaded later in this round
            else:
                del waiting[package]
        if len(waiting) == before:
            stuck, problem = next(iter(waiting.items()))
            raise CheckError(
                f"griffe could not load the package {package_name(stuck)!r} from "
                f"{stuck.parent}: {problem}",
                fix="check that the folder holds an importable package ([tool.phasegate] "
                "packages), and that every package it re-exports names from is listed there",
            ) from problem
    return [loaded[package] for package in packages]


def _load(
    package: Path,
    search_paths: list[Path],
    modules: griffe.ModulesCollection,
    lines: griffe.LinesCollection,
) -> griffe.Module:
    import griffe

    name = package_name(package)
    try:
        loaded = griffe.load(
            name,
            search_paths=search_paths,
            # Not a path relative to the current folder: from a flat layout's root that would
            # be the work tree's package, whichever folder was asked for.
            try_relative_path=False,
            allow_inspection=False,
            resolve_aliases=False,
            modules_collection=modules,
            lines_collection=lines,
        )
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        raise
    except (ImportError, OSError, griffe.GriffeError) as exc:
        raise CheckError(
            f"griffe could not load the package {name!r} from {package.parent}: {exc}",
            fix="check that the folder holds an importable package ([tool.phasegate] packages)",
        ) from exc
    if not isinstance(loaded, griffe.Module):
        raise CheckError(f"griffe loaded {name!r} from {package.parent}, but not as a module")
    _refuse_loaded_elsewhere(loaded, package)
    _export_what_the_source_exports(loaded)
    return loaded


def _refuse_loaded_elsewhere(loaded: griffe.Module, package: Path) -> None:
    """A CheckError unless every file griffe loaded the package from is inside ``package``."""
    found = loaded.filepath
    files = found if isinstance(found, list) else [found]
    target = package.resolve()
    if not files or not all(
        isinstance(file, Path) and file.resolve().is_relative_to(target) for file in files
    ):
        raise CheckError(
            f"griffe loaded {package_name(package)!r} from {found}, not from {package}",
            fix="check that the folder holds an importable package ([tool.phasegate] packages)",
        )


def _stubbed_source(module: griffe.Module) -> Path | None:
    """The module's ``.py`` file when it has an ``__all__`` and a ``.pyi`` stub beside it."""
    filepath = module.filepath
    if not isinstance(filepath, Path) or module.exports is None:
        return None
    return filepath if filepath.suffix == ".py" and filepath.with_suffix(".pyi").is_file() else None


def _export_what_the_source_exports(module: griffe.Module) -> None:
    """Add the names the ``.py`` source's ``__all__`` exports and the stub's does not."""
    import griffe

    filepath = _stubbed_source(module)
    if filepath is not None:
        _add_source_exports(module, filepath)
    for submodule in module.modules.values():
        if isinstance(submodule, griffe.Module):
            _export_what_the_source_exports(submodule)


def _add_source_exports(module: griffe.Module, filepath: Path) -> None:
    import griffe

    try:
        source = griffe.visit(module.name, filepath, filepath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        raise CheckError(f"{filepath} cannot be read for its __all__: {exc}") from exc
    exports = list(module.exports or ())
    known = {str(name) for name in exports}
    extra = [name for name in source.exports or () if str(name) not in known]
    if extra:
        module.exports = [*exports, *extra]
