"""The public API of a package, read statically with griffe (for the docs and breaking checks).

griffe reads the source without importing it (``allow_inspection=False``): a gate never runs
the project's code to look at it. griffe skips a module it cannot parse and only logs it, so
every file is parsed first and a file that does not parse is a
:class:`~phasegate.gates.protocol.CheckError`: an API read without it would be wrong. What
griffe returns is recognized too: a module, read from the package asked for (not one found
elsewhere).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.gates.protocol import CheckError

if TYPE_CHECKING:
    import griffe

__all__ = ["load_package", "package_name", "require_parseable"]


def package_name(package: Path) -> str:
    """The import name of a package folder or single-module file."""
    return package.stem if package.suffix == ".py" else package.name


def require_parseable(files: Iterable[Path], *, what: str) -> None:
    """Raise a CheckError naming the first file that does not parse."""
    for path in files:
        try:
            ast.parse(path.read_bytes(), filename=str(path))
        except (OSError, SyntaxError, ValueError) as exc:
            raise CheckError(
                f"{path} cannot be read or parsed, so {what} is unknown: {exc}",
                fix="make the file parse (see the syntax check)",
            ) from exc


def load_package(package: Path) -> griffe.Module:
    """The package at ``package`` (a folder or a ``.py`` file), from its folder only."""
    import griffe

    name = package_name(package)
    try:
        loaded = griffe.load(
            name,
            search_paths=[package.parent],
            # Not a path relative to the current folder: from a flat layout's root that would
            # be the work tree's package, whichever folder was asked for.
            try_relative_path=False,
            allow_inspection=False,
            resolve_aliases=False,
        )
    except (ImportError, OSError, griffe.GriffeError) as exc:
        raise CheckError(
            f"griffe could not load the package {name!r} from {package.parent}: {exc}",
            fix="check that the folder holds an importable package ([tool.phasegate] packages)",
        ) from exc
    if not isinstance(loaded, griffe.Module):
        raise CheckError(f"griffe loaded {name!r} from {package.parent}, but not as a module")
    found = loaded.filepath
    files = found if isinstance(found, list) else [found]
    target = package.resolve()
    if not files or not all(
        isinstance(file, Path) and (file.resolve() == target or target in file.resolve().parents)
        for file in files
    ):
        raise CheckError(
            f"griffe loaded {name!r} from {found}, not from {package}",
            fix="check that the folder holds an importable package ([tool.phasegate] packages)",
        )
    return loaded
