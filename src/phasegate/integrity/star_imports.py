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
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import PurePosixPath

__all__ = ["importers", "resolved"]

Controls = dict[str, tuple[int, str]]
TextOf = Callable[[str], str | None]
ReadControls = Callable[[ast.Module], Controls]

_PREFIX, _SUFFIX = "from ", " import *"


def resolved(path: str, controls: Controls, text_of: TextOf, read: ReadControls) -> Controls:
    """``controls`` of the conftest at ``path``, each star import replaced by what it binds."""
    out: Controls = {}
    for name, (line, digest) in controls.items():
        tree = _module_tree(path, name, text_of)
        imported = {name: ("", "")} if tree is None else read(tree)
        for bound, (_, dump) in imported.items():
            out[bound] = (line, out.get(bound, (line, ""))[1] + digest + dump)
    return out


def importers(conftests: list[str], changed: list[str], text_of: TextOf) -> list[str]:
    """The conftest.py files of ``conftests``, unchanged, whose star imports may name one of
    the ``changed`` files."""
    touched = set(changed)
    return [
        path
        for path in conftests
        if path not in touched and touched & set(_star_candidates(path, text_of(path)))
    ]


def _star_candidates(path: str, text: str | None) -> list[str]:
    """Every file a star import of the conftest at ``path`` may name."""
    tree = _parsed(text) if text is not None and _SUFFIX in text else None
    if tree is None:
        return []
    stars = (node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom))
    modules = [
        "." * node.level + (node.module or "")
        for node in stars
        if any(alias.name == "*" for alias in node.names)
    ]
    return [candidate for module in modules for candidate in _candidates(path, module)]


def _module_tree(path: str, name: str, text_of: TextOf) -> ast.Module | None:
    """The parsed module a star-import control names, if the revision holds it."""
    if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
        return None
    module = name[len(_PREFIX) : -len(_SUFFIX)]
    texts = (text_of(candidate) for candidate in _candidates(path, module))
    text = next((text for text in texts if text is not None), None)
    return None if text is None else _parsed(text)


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


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None
