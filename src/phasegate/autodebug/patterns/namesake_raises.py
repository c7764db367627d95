"""The ``raise`` of the None guards of a function's namesakes, for a lost guard that raised.

When a test waits for an exception (``DID NOT RAISE``) and a None guard was lost, the guard
raised; :mod:`.lost_guards` offers the ``raise`` statements of the exception the test waits
for, as the function or its file writes them. Many projects raise through a factory instead
(``raise self.make_error("invalid_awareness", ...)``), which names no exception. The
functions of the same name elsewhere in the project (the overrides of the same method) often
guard their own None values the same way: marshmallow's ``NaiveDateTime._deserialize`` raises
``self.make_error("invalid_awareness", ...)`` when ``self.timezone is None``, as
``AwareDateTime._deserialize`` does for ``self.default_timezone``. This module reads those
``raise`` statements, keeping only those that read nothing the namesake binds itself (its
parameters and locals, ``self`` aside), so that the statement means the same where it goes.

Hand-written: no library reads guards from a syntax tree.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import bound_names, is_none
from phasegate.autodebug.patterns.none_parameters import namesakes

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["namesake_raises"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def namesake_raises(project: Project, path: str, function: _Function) -> list[str]:
    """The ``raise`` statements (as written) that the namesakes of ``function`` run when a
    value is None (``if x is None: raise ...``), each once, in the order found."""
    found = [
        ast.unparse(statement)
        for other in namesakes(project, path, function)
        for statement in _none_guard_raises(other)
    ]
    return list(dict.fromkeys(found))


def _none_guard_raises(function: _Function) -> list[ast.Raise]:
    """The ``raise`` that is the whole body of an ``if x is None:`` of the function, when it
    reads none of the function's own names but ``self``."""
    own = bound_names(function, nested=False) - {"self"}
    guards = [n for n in ast.walk(function) if isinstance(n, ast.If) and _is_none_test(n.test)]
    return [
        raised
        for guard in guards
        if (raised := _raise_alone(guard)) and not _reads_any(raised, own)
    ]


def _is_none_test(test: ast.expr) -> bool:
    """``x is None``."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and is_none(test.comparators[0])
    )


def _raise_alone(node: ast.If) -> ast.Raise | None:
    """The ``if``'s body when it is one ``raise`` of an exception."""
    body = node.body[0] if len(node.body) == 1 else None
    return body if isinstance(body, ast.Raise) and body.exc is not None else None


def _reads_any(statement: ast.stmt, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(statement))
