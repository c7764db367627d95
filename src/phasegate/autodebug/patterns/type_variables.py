"""The class a type variable stands for, and how its file casts to it, for a lost None guard.

A parameter annotated ``cls: type[CmdType] | None = None``, where the module sets ``CmdType =
t.TypeVar("CmdType", bound=Command)``, defaults to the bound, ``Command``. A file that checks
its types cannot assign ``Command`` to a ``type[CmdType]``, so where it casts elsewhere
(``t.cast(...)``) the guard casts too: ``cls = t.cast("type[CmdType]", Command)``, spelt as the
file spells its other casts (``t.cast``, ``typing.cast`` or ``cast``; the type as a string
where those write one). A type variable with constraints and no bound names no one class.

Hand-written: read from the module's syntax alone, as the other guard bodies are; no library
answers "what does this module's type variable stand for" without importing the module.
"""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.expressions import called_name

__all__ = ["type_variable_bodies"]


def type_variable_bodies(
    tree: ast.Module, subject: str, variable: str, classes: set[str]
) -> list[tuple[str, float, str]]:
    """``(body, score, why)`` for ``subject`` annotated ``type[variable] | None``, where the
    module binds ``variable`` to a type variable bounded by one of ``classes``: the cast to
    it as the file casts (where it does), then the bound itself."""
    bound = _bound_of(tree, variable)
    if bound is None or bound not in classes:
        return []
    why = f"the bound of the type variable its annotation names (`{variable}`)"
    found = [(f"{subject} = {bound}", 0.91, why)]
    cast = _cast_spelling(tree)
    if cast is not None:
        spelt, quoted = cast
        target = f'"type[{variable}]"' if quoted else f"type[{variable}]"
        found.insert(0, (f"{subject} = {spelt}({target}, {bound})", 0.92, why))
    return found


def _bound_of(tree: ast.Module, variable: str) -> str | None:
    """``B`` of the module's ``<variable> = TypeVar("<variable>", bound=B)`` (``B`` a name,
    or a string naming one), else None."""
    for statement in tree.body:
        call = _assigned_call(statement, variable)
        if call is not None and called_name(call) == "TypeVar":
            return _bound_named(call)
    return None


def _assigned_call(statement: ast.stmt, variable: str) -> ast.Call | None:
    """The call ``statement`` assigns to ``variable`` alone, if it is one."""
    if not isinstance(statement, ast.Assign) or list(map(ast.unparse, statement.targets)) != [
        variable
    ]:
        return None
    return statement.value if isinstance(statement.value, ast.Call) else None


def _bound_named(call: ast.Call) -> str | None:
    """The class ``bound=`` names, written as a name or as a string."""
    bounds = [ast.unparse(k.value).strip("'\" ") for k in call.keywords if k.arg == "bound"]
    return next((bound for bound in bounds if bound.isidentifier()), None)


def _cast_spelling(tree: ast.Module) -> tuple[str, bool] | None:
    """How the module calls ``cast`` (its first such call), and whether most of its casts
    give the type as a string; None if it casts nowhere."""
    casts = sorted(_casts(tree), key=lambda call: (call.lineno, call.col_offset))
    if not casts:
        return None
    quoted = sum(_is_string(call.args[0]) for call in casts)
    return ast.unparse(casts[0].func), 2 * quoted > len(casts)


def _casts(tree: ast.Module) -> list[ast.Call]:
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return [call for call in calls if called_name(call) == "cast" and len(call.args) == 2]


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
