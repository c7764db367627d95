"""What a ``conftest.py`` replaces in the project's own code when pytest imports it.

``import calc`` then ``calc.mean = lambda values: ...`` at the top level of a conftest.py makes
every test run the replacement: the failing test passes and the code stays broken. Such a
statement added or changed is reported, as a collection hook is; so is
``sys.modules["calc"] = ...``, which replaces the whole module for every import that follows
(review s16r). Statements under a module-level ``if``/``try``/``with`` run at import too, and
``sys.modules`` is read however the imports spell it (``import sys as s``, ``from sys import
modules``: review of the session's diff, finding 8). Only names bound to the project's own
packages count
(``sys.dont_write_bytecode = True`` is configuration, not a replacement). Patches made inside
fixtures are not read, since that is how tests isolate themselves, nor
``setattr(calc, "mean", ...)`` and the like.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TypeGuard

from phasegate.integrity.conftest_hooks import module_level

__all__ = ["replaced_code"]


@dataclass(frozen=True)
class _Names:
    """What the module's imports bind: names of the project's code, and ``sys.modules``."""

    own: set[str]
    first_party: frozenset[str]
    #: How the module spells ``sys.modules`` (``sys.modules``, ``s.modules``, ``modules``).
    modules: set[str]


def replaced_code(tree: ast.Module, first_party: frozenset[str]) -> dict[str, tuple[int, str]]:
    """The dotted names the module's statements run at import replace in the project's code
    (``calc.mean``), each with its statement's line and syntax tree. Statements under a
    module-level ``if``/``try``/``with`` run at import too."""
    statements = list(module_level(tree.body))
    names = _Names(_own_names(statements, first_party), first_party, _modules(statements))
    return {
        name: (node.lineno, ast.dump(node)) for node in statements for name in _names(node, names)
    }


def _own_names(statements: list[ast.stmt], first_party: frozenset[str]) -> set[str]:
    """The names the module's imports bind to the project's own modules and objects."""
    return {_bound(alias) for node in statements for alias in _own_aliases(node, first_party)}


def _modules(statements: list[ast.stmt]) -> set[str]:
    """``sys.modules`` as the module's imports spell it."""
    spelled = {"sys.modules"}
    for node in statements:
        spelled |= _sys_modules_bound(node)
    return spelled


def _sys_modules_bound(node: ast.stmt) -> set[str]:
    """``import sys as s`` binds ``s.modules``; ``from sys import modules`` binds ``modules``."""
    if isinstance(node, ast.Import):
        return {f"{name}.modules" for name in _bound_as(node, "sys")}
    if isinstance(node, ast.ImportFrom) and node.module == "sys":
        return _bound_as(node, "modules")
    return set()


def _bound_as(node: ast.Import | ast.ImportFrom, name: str) -> set[str]:
    """The names an import binds ``name`` to."""
    return {alias.asname or alias.name for alias in node.names if alias.name == name}


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


def _names(node: ast.stmt, names: _Names) -> list[str]:
    """The attributes of the project's names a statement assigns (``calc.mean = ...``,
    augmented or annotated), and the project's modules it puts in ``sys.modules``."""
    targets = node.targets if isinstance(node, ast.Assign) else _target(node)
    replaced = [ast.unparse(target) for target in targets if _root(target) in names.own]
    return replaced + _module_entries(targets, names)


def _module_entries(targets: list[ast.expr], names: _Names) -> list[str]:
    """``sys.modules["calc"]``, one per target that puts a project's module there."""
    entries = [_module_entry(target, names.modules) for target in targets]
    return [f"sys.modules[{key!r}]" for key in entries if _top(key) in names.first_party]


def _module_entry(target: ast.expr, modules: set[str]) -> str:
    """The key of ``sys.modules["calc.stats"]`` (however ``sys.modules`` is spelled); "" for any
    other target."""
    if not (isinstance(target, ast.Subscript) and ast.unparse(target.value) in modules):
        return ""
    key = target.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""


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
