"""What a ``from x import *`` in conftest.py binds, when ``x`` is a module of the project.

pytest takes a conftest module's hooks from its attributes, so a star import binds every hook
the imported module defines (``__all__`` aside); integrity reported any star import as a
control, and sharing fixtures by ``from fixtures import *`` is common and honest. A module of
the project that the revision holds is read instead: the star import stands for the controls
that module binds (its hooks, ``collect_ignore``, the code it replaces, its own star imports),
each at the import's line, and for nothing when it binds none. A module that cannot be found
in the revision (a third-party package, the standard library) or that does not parse stays a
control of its own: what it binds is unknown.

Where the module is looked for: a relative import from the conftest's folder (one level up per
extra dot); an absolute one in the conftest's folder, each folder above it, and ``src/``
(the folders pytest's default ``prepend`` import mode and a ``src`` layout put on
``sys.path``).

A change may edit the imported module alone (review s17r): :func:`importers` names the
conftest.py files whose star imports reach a changed file, so that they are read with it.

The review of session 17's diff (finding 4) made an unchanged conftest's honest hook an outcome
rewrite by editing only the module it came from, imported by name (``from helpers import
pytest_runtest_makereport``) or through a second star import (``helpers/__init__.py`` doing
``from .hooks import *``). So the modules of the project are followed through star and named
imports alike, up to :data:`DEPTH` modules deep: a hook imported by name stands for the import
and what the module binds under that name (followed the same way), and :func:`importers` names
the conftest.py files whose imports of either kind reach a changed file. A hook bound otherwise
from a module (``pytest_runtest_makereport = helpers.pytest_runtest_makereport``) is judged by
its statement alone.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["DEPTH", "importers", "resolved"]

#: How many modules deep imports are followed from a conftest.py.
DEPTH = 4

Controls = dict[str, tuple[int, str]]
TextOf = Callable[[str], str | None]
ReadControls = Callable[[ast.Module], Controls]

_PREFIX, _SUFFIX = "from ", " import *"


def resolved(
    path: str, controls: Controls, text_of: TextOf, read: ReadControls, depth: int = DEPTH
) -> Controls:
    """``controls`` of the module at ``path``, each star import replaced by what it binds, and
    each hook imported by name from the project with what its module binds under that name."""
    named = _named_imports(_parsed(text_of(path)))
    out: Controls = {}
    for name, (line, digest) in controls.items():
        for bound, dump in _followed(path, name, named, _Reader(text_of, read, depth)).items():
            out[bound] = (line, out.get(bound, (line, ""))[1] + digest + dump)
    return out


def importers(conftests: list[str], changed: list[str], text_of: TextOf) -> list[str]:
    """The conftest.py files of ``conftests``, unchanged, whose imports from the project's
    modules (star or named, :data:`DEPTH` modules deep) may reach one of the ``changed`` files."""
    touched = set(changed)
    return [
        path
        for path in conftests
        if path not in touched and touched & _reached(path, text_of, DEPTH)
    ]


@dataclass(frozen=True)
class _Reader:
    """How an imported module is found and read, and how many modules deeper to follow."""

    text_of: TextOf
    read: ReadControls
    depth: int


def _imported_controls(reader: _Reader, path: str, module: str) -> Controls | None:
    """What ``module`` imported at ``path`` binds, its imports followed; None when the revision
    does not hold it, it does not parse, or it is too deep."""
    found = _module_file(path, module, reader.text_of) if reader.depth else ""
    tree = _parsed(reader.text_of(found)) if found else None
    if tree is None:
        return None
    return resolved(found, reader.read(tree), reader.text_of, reader.read, reader.depth - 1)


def _followed(
    path: str, name: str, named: dict[str, tuple[str, str]], reader: _Reader
) -> dict[str, str]:
    """What one control stands for, by name, with the text added to its digest."""
    star = _star_module(name)
    if star is not None:
        return _star_bound(name, _imported_controls(reader, path, star))
    if name not in named:
        return {name: ""}
    module, original = named[name]
    return {name: (_imported_controls(reader, path, module) or {}).get(original, (0, ""))[1]}


def _star_module(name: str) -> str | None:
    """The module a star-import control (``from x import *``) names, else None."""
    if name.startswith(_PREFIX) and name.endswith(_SUFFIX):
        return name[len(_PREFIX) : -len(_SUFFIX)]
    return None


def _star_bound(name: str, imported: Controls | None) -> dict[str, str]:
    """What a star import binds: the module's controls, or itself when the module is unknown."""
    if imported is None:
        return {name: ""}
    return {bound: dump for bound, (_, dump) in imported.items()}


def _named_imports(tree: ast.Module | None) -> dict[str, tuple[str, str]]:
    """Each name a ``from x import name`` binds: the module (with its dots) and the name."""
    return {
        alias.asname or alias.name: (_module_of(node), alias.name)
        for node in _from_imports(tree)
        for alias in node.names
    }


def _from_imports(tree: ast.Module | None) -> list[ast.ImportFrom]:
    nodes = ast.walk(tree) if tree else ()
    return [node for node in nodes if isinstance(node, ast.ImportFrom)]


def _module_of(node: ast.ImportFrom) -> str:
    return "." * node.level + (node.module or "")


def _reached(path: str, text_of: TextOf, depth: int) -> set[str]:
    """The files of the project the module at ``path`` may import from, ``depth`` modules
    deep (``from x import ...`` only)."""
    modules = [_module_of(node) for node in _from_imports(_parsed(text_of(path)))]
    files = {file for module in modules for file in _candidates(path, module)}
    return files.union(*_deeper(files, text_of, depth - 1))


def _deeper(files: set[str], text_of: TextOf, depth: int) -> list[set[str]]:
    if not depth:
        return []
    return [_reached(file, text_of, depth) for file in _held(files, text_of)]


def _held(files: set[str], text_of: TextOf) -> list[str]:
    return [file for file in sorted(files) if text_of(file) is not None]


def _module_file(path: str, module: str, text_of: TextOf) -> str:
    """The file the revision holds for ``module`` imported at ``path``, else ``""``."""
    return next((file for file in _candidates(path, module) if text_of(file) is not None), "")


def _candidates(path: str, module: str) -> list[str]:
    """The files ``module`` may be, imported from the conftest at ``path``."""
    name = module.lstrip(".")
    if not name:
        return []
    relative = "/".join(name.split("."))
    files = [f"{relative}.py", f"{relative}/__init__.py"]
    return [str(folder / file) for folder in _folders(path, module) for file in files]


def _folders(path: str, module: str) -> list[PurePosixPath]:
    """The folders searched: relative to the conftest's, or each folder up to the root."""
    here = PurePosixPath(path).parent
    upward = [here, *here.parents]
    dots = len(module) - len(module.lstrip("."))
    if dots:
        return upward[dots - 1 : dots]
    return [*upward, PurePosixPath("src")]


def _parsed(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None
