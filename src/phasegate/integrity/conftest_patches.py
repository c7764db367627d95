"""What a ``conftest.py`` replaces in the project's own code when pytest imports it.

``import calc`` then ``calc.mean = lambda values: ...`` at the top level of a conftest.py makes
every test run the replacement: the failing test passes and the code stays broken. Such a
statement added or changed is reported, as a collection hook is; so is
``sys.modules["calc"] = ...``, which replaces the whole module for every import that follows
(review s16r). Only names bound to the project's own packages count
(``sys.dont_write_bytecode = True`` is configuration, not a replacement). Patches made inside
fixtures are not read, since that is how tests isolate themselves, nor
``setattr(calc, "mean", ...)`` and the like.
"""

from __future__ import annotations

import ast
from typing import TypeGuard

__all__ = ["replaced_code"]


def replaced_code(tree: ast.Module, first_party: frozenset[str]) -> dict[str, tuple[int, str]]:
    """The dotted names the module's top-level statements replace in the project's code
    (``calc.mean``), each with its statement's line and syntax tree."""
    own = _own_names(tree, first_party)
    return {
        name: (node.lineno, ast.dump(node))
        for node in tree.body
        for name in _names(node, own, first_party)
    }


def _own_names(tree: ast.Module, first_party: frozenset[str]) -> set[str]:
    """The names the module's imports bind to the project's own modules and objects."""
    return {_bound(alias) for node in tree.body for alias in _own_aliases(node, first_party)}


def _own_aliases(node: ast.stmt, first_party: frozenset[str]) -> list[ast.alias]:
    if isinstance(node, ast.Import):
        return [alias for alias in node.names if _top(alias.name) in first_party]
    return node.names if _from_own(node, first_party) else []


def _from_own(node: ast.stmt, first_party: frozenset[str]) -> TypeGuard[ast.ImportFrom]:
    """``from calc import ...`` or a relative import."""
    if not isinstance(node, ast.ImportFrom):
        return False
    return node.level > 0 or _top(node.module or "") in first_party


def _top(module: str) -> str:
    return module.split(".", 1)[0]


def _bound(alias: ast.alias) -> str:
    return alias.asname or _top(alias.name)


def _names(node: ast.stmt, own: set[str], first_party: frozenset[str]) -> list[str]:
    """The attributes of ``own`` names a top-level statement assigns (``calc.mean = ...``,
    augmented or annotated), and the project's modules it puts in ``sys.modules``."""
    targets = node.targets if isinstance(node, ast.Assign) else _target(node)
    return [
        ast.unparse(target)
        for target in targets
        if _root(target) in own or _module_entry(target) in first_party
    ]


def _module_entry(target: ast.expr) -> str:
    """The top package of ``sys.modules["calc.stats"]`` (``calc``); "" for any other target."""
    if not (isinstance(target, ast.Subscript) and ast.unparse(target.value) == "sys.modules"):
        return ""
    key = target.slice
    return _top(key.value) if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""


def _target(node: ast.stmt) -> list[ast.expr]:
    target = getattr(node, "target", None)
    return [target] if isinstance(target, ast.expr) else []


def _root(expr: ast.expr) -> str:
    """The name an attribute chain starts from (``calc`` of ``calc.stats.mean``); "" for
    anything but an attribute chain."""
    if not isinstance(expr, ast.Attribute):
        return ""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else ""
