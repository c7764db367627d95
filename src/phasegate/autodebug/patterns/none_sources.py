"""Values that may be None by what their own file does with them, for the lost-guard search.

:mod:`.lost_guards` guards again, in the functions the ranking suspects, the values that may
be None and that nothing there tests any more. Besides an attribute set to a literal None and
a local set from ``d.get(k)`` or ``re.match(...)``, a file shows that a value may be None in
two more ways, read here from the syntax alone:

* an attribute of ``self`` that a method of its class sets from a parameter whose default is
  None: ``self.default_timezone = default_timezone`` in ``__init__(..., default_timezone=None)``,
  or ``self._included, self._excluded = included, excluded``;
* a local set from a call of a function of the same file that can return None: one that
  returns None (``return None``, a bare ``return``) beside a value, or whose return annotation
  allows None (``-> V | None``, ``Optional[V]``): ``rv = self.find_object(object_type)``.

Hand-written: no library reads these shapes from a syntax tree.
"""

from __future__ import annotations

import ast
import functools

from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import (
    functions_in,
    is_none,
    own_nodes,
    parameter_defaults,
)

__all__ = [
    "attributes_set_from_none_defaults",
    "calls_one_of",
    "functions_returning_none",
    "is_self_attribute",
    "stored_from_none_defaults",
]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def attributes_set_from_none_defaults(owner: ast.ClassDef) -> set[str]:
    """``self.x`` for each attribute a method of ``owner`` sets from one of its parameters
    whose default is None."""
    return {name for method in functions_in(owner) for name in _set_from_none_defaults(method)}


def _set_from_none_defaults(method: _Function) -> set[str]:
    """``self.x`` of each ``self.x = p`` of the method, ``p`` a parameter whose default is
    None."""
    return set(stored_from_none_defaults(method))


def stored_from_none_defaults(method: _Function) -> dict[str, str]:
    """``{self.x: p}`` for each ``self.x = p`` of the method, ``p`` a parameter whose default
    is None."""
    optional = {name for name, default in parameter_defaults(method) if is_none(default)}
    return {
        ast.unparse(target): value.id
        for target, value in _assigned_pairs(method)
        if is_self_attribute(target) and isinstance(value, ast.Name) and value.id in optional
    }


def _assigned_pairs(function: _Function) -> list[tuple[ast.expr, ast.expr]]:
    """``(target, value)`` of each assignment in the function's own scope, a tuple assigned
    from a tuple of as many values taken element by element."""
    pairs: list[tuple[ast.expr, ast.expr]] = []
    for node in own_nodes(function.body):
        if isinstance(node, ast.Assign):
            pairs += [pair for target in node.targets for pair in _paired(target, node.value)]
    return pairs


def _paired(target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        if len(target.elts) == len(value.elts):
            return list(zip(target.elts, value.elts, strict=True))
        return []
    return [(target, value)]


def is_self_attribute(node: ast.expr) -> bool:
    """``self.x``."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


@functools.lru_cache(maxsize=8)
def functions_returning_none(tree: ast.Module) -> frozenset[str]:
    """The names of the functions of ``tree`` that can return None: their return annotation
    allows it, or they return None in one place and a value in another (read once per tree:
    the lost-guard search asks it for each suspect of a file)."""
    return frozenset(f.name for f in functions_in(tree) if _annotated_none(f) or _returns_both(f))


def _annotated_none(function: _Function) -> bool:
    """``-> V | None`` or ``-> Optional[V]`` (also written as a string)."""
    annotation = function.returns
    if annotation is None:
        return False
    text = ast.unparse(annotation).strip("'\"")  # an annotation written as a string, unquoted
    parts = [part.strip() for part in text.split("|")]
    return "Optional[" in text or (len(parts) > 1 and "None" in parts)


def _returns_both(function: _Function) -> bool:
    """Whether the function returns None (``return None``, bare ``return``) in one place and
    something else in another."""
    returns = [node for node in own_nodes(function.body) if isinstance(node, ast.Return)]
    nothing = [node for node in returns if node.value is None or is_none(node.value)]
    return bool(nothing) and len(nothing) < len(returns)


def calls_one_of(call: ast.expr, names: set[str] | frozenset[str]) -> bool:
    """Whether ``call`` calls a function of one of ``names`` (``f(x)`` or ``obj.f(x)``)."""
    return isinstance(call, ast.Call) and called_name(call) in names
