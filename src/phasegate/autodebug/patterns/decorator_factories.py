"""A decorator that is its own factory: ``if fn is None: return partial(deco, opt=opt)``.

``@hook`` and ``@hook(many=True)`` are both written with one function whose first parameter
is the function decorated, None when the decorator is called with its options only; it then
returns itself with those options bound: ``functools.partial(hook, many=many, **kwargs)``.
When that guard is lost, the None reaches the decoration (``fn.__hook__ = ...``) and nothing
in the function says what the guard gave; the idiom does. The body is offered only for the
function's first parameter, in a module that imports ``functools`` or its ``partial``, for a
module-level function without ``*args`` (``partial`` would have nothing to bind them to).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import parameter_names

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["factory_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def factory_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(return partial(<function>, <its other parameters>), score, why)`` when ``subject``
    is the first parameter of a module-level ``function`` that may be its own factory."""
    source = project.editable_source(path)
    if source is None or function.col_offset != 0:  # not defined at the module's top level
        return []
    partial = _partial_name(source.tree)
    arguments = _bound_options(function.args, subject)
    if partial is None or arguments is None:
        return []
    body = f"return {partial}({', '.join([function.name, *arguments])})"
    return [(body, 0.8, "a decorator called with its options only returns itself with them")]


#: ``(the module a name is imported from, "" for a module imported, the name)`` -> what
#: makes ``functools.partial`` of the name it binds.
_PARTIAL_IMPORTS: dict[tuple[str | None, str], str] = {
    ("", "functools"): ".partial",
    ("functools", "partial"): "",
}


def _partial_name(module: ast.Module) -> str | None:
    """How the module names ``functools.partial``, if it imports it."""
    imports = [s for s in module.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    for statement in imports:
        source = statement.module if isinstance(statement, ast.ImportFrom) else ""
        for alias in statement.names:
            suffix = _PARTIAL_IMPORTS.get((source, alias.name))
            if suffix is not None:
                return (alias.asname or alias.name) + suffix
    return None


def _bound_options(args: ast.arguments, subject: str) -> list[str] | None:
    """``name=name`` for each parameter after ``subject`` (``**kwargs`` for ``**kwargs``);
    None unless ``subject`` comes first and no ``*args`` follows."""
    names = parameter_names(args)
    if names[:1] != [subject] or args.vararg is not None:
        return None
    kwargs = getattr(args.kwarg, "arg", None)
    return [f"**{name}" if name == kwargs else f"{name}={name}" for name in names[1:]]
