"""What the project assigns to a name elsewhere, for the body of a lost ``if x is None:``.

A value given a default when it is None is often given the same value where it is set
elsewhere: ``encoding = self.apparent_encoding`` in another method, ``path = ''`` in
another function of the file. Each ``<x> = <value>`` of the project (``self.x = <value>``
for an attribute) is a body, when the value reads only what is there where the guard goes:
the function's parameters, the names its module binds, builtins. Of the None guards of the
installed packages the real-code benchmark never draws from, about one in eleven assigns a
value the project assigns to the same name elsewhere (``benchmarks/guard_bodies.py``).
"""

from __future__ import annotations

import ast
import builtins

from phasegate.autodebug.patterns.functions import is_none, parameters
from phasegate.autodebug.patterns.kindred_names import module_names

__all__ = ["names_known", "reads_only", "values_assigned"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_BUILTINS = frozenset(dir(builtins))


def values_assigned(node: ast.AST, subject: str) -> list[str]:
    """The value ``node`` assigns to ``subject`` alone (not None, not read from it)."""
    value = _value_for(node, subject)
    return [ast.unparse(value)] if value is not None and not _reads(value, subject) else []


def _value_for(node: ast.AST, subject: str) -> ast.expr | None:
    """``<value>`` of ``<subject> = <value>``, its value not None."""
    if not isinstance(node, ast.Assign) or [ast.unparse(t) for t in node.targets] != [subject]:
        return None
    return None if is_none(node.value) else node.value


def _reads(value: ast.expr, subject: str) -> bool:
    root = subject.partition(".")[0] if not subject.startswith("self.") else subject
    return any(ast.unparse(n) == root for n in ast.walk(value) if isinstance(n, ast.expr))


def names_known(tree: ast.Module, function: _Function) -> set[str]:
    """The names a guard's body may read at the top of ``function`` of ``tree``."""
    return parameters(function) | module_names(tree) | _BUILTINS


def reads_only(value: str, known: set[str]) -> bool:
    """Whether the expression ``value`` reads no name but ``known``."""
    node = ast.parse(value, mode="eval")
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} <= known
