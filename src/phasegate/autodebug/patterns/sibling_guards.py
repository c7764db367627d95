"""A lost guard's body copied from the guard of a sibling value in the same function.

mistune's ``BlockParser.__init__`` guards two parameters that default to None the same way:
``if block_quote_rules is None: block_quote_rules = list(self.DEFAULT_RULES)`` and ``if
list_rules is None: list_rules = list(self.DEFAULT_RULES)``; jinja2's ``call_method`` guards
``args`` and ``kwargs`` alike. With one guard lost, the other is its likeliest body: the same
value, with the sibling's name made the lost one's where the value reads it. Only a name that
may be None by its own function's making is given one: a parameter defaulting to None, or a
local. The other guards' bodies that read other names are ``none_guards._analogous_bodies``.
"""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.functions import (
    bound_names,
    is_none,
    own_nodes,
    parameter_defaults,
    parameter_names,
    parameters,
    renamed_text,
)

__all__ = ["sibling_guard_bodies", "sibling_places"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
# Above the class an annotation names (0.92): a sibling's guard in the same function is nearer.
_SCORE = 0.94
# Below the empty values a parameter's use calls for (0.76): a sibling's value unsupported.
_UNSURE = 0.75
_WHY = "as the function guards a sibling value that may be None"


def sibling_guard_bodies(function: _Function, subject: str) -> list[tuple[str, float, str]]:
    """``<subject> = <value>`` for each ``if <other> is None: <other> = <value>`` of the
    function, ``<other>`` made ``<subject>`` in ``<value>``, when ``subject`` may be None."""
    guarded = _guards(function)
    if subject in guarded or not _may_be_none(function, subject):
        return []
    return [
        (
            f"{subject} = {renamed_text(value, other, subject)}",
            _score(function, subject, other),
            _WHY,
        )
        for other, value in _copied(guarded).items()
    ]


def _copied(guarded: dict[str, ast.expr]) -> dict[str, ast.expr]:
    return {other: value for other, value in guarded.items() if not _derived(value, other)}


def _derived(value: ast.expr, other: str) -> bool:
    """Whether ``value`` is made from its name (``orig_dpath`` for ``dpath``,
    ``command.indent`` for ``indent``): its copy is ``none_guards``' analogous body's."""
    parts = [*_attributes(value), *(name for name in _names(value) if name != other)]
    return any(other in part for part in parts)


def _attributes(value: ast.expr) -> list[str]:
    return [node.attr for node in ast.walk(value) if isinstance(node, ast.Attribute)]


def _names(value: ast.expr) -> list[str]:
    return [node.id for node in ast.walk(value) if isinstance(node, ast.Name)]


def _score(function: _Function, subject: str, other: str) -> float:
    """First among the bodies for a sibling annotated as the value is (mistune's two
    ``Optional[List[str]]``); below the empty values its use calls for otherwise (``keep =
    d.keys()`` beside a lost ``drop = []``)."""
    annotations = _annotations(function)
    annotation = annotations.get(subject)
    return _SCORE if annotation is not None and annotation == annotations.get(other) else _UNSURE


def _annotations(function: _Function) -> dict[str, str]:
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return {a.arg: ast.dump(a.annotation) for a in every if a.annotation is not None}


def sibling_places(
    function: _Function, subject: str, why: str, places: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """``places`` (``(line to insert before, line whose indentation to take)``), for a sibling's
    value first among the sibling guards in the order of the signature: right before the first
    guard of a later parameter, else right after the last guard of an earlier one."""
    own = _among_siblings(function, subject) if why == _WHY else None
    return places if own is None else _first(own, places)


def _first(own: tuple[int, int], places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [own, *(place for place in places if place[0] != own[0])]


def _among_siblings(function: _Function, subject: str) -> tuple[int, int] | None:
    order = parameter_names(function.args)
    if subject not in order:
        return None
    guards = _guards_in_order(function, order)
    later = [guard for index, guard in guards if index > order.index(subject)]
    return (later[0].lineno, later[0].lineno) if later else _after_last(guards)


def _guards_in_order(function: _Function, order: list[str]) -> list[tuple[int, ast.stmt]]:
    """``(index in the signature, guard)`` of the guards of parameters in the function's body."""
    named = [(_guarded_name(statement), statement) for statement in function.body]
    return [(order.index(name), statement) for name, statement in named if name in order]


def _after_last(guards: list[tuple[int, ast.stmt]]) -> tuple[int, int] | None:
    if not guards:
        return None
    last = guards[-1][1]
    return (last.end_lineno or last.lineno) + 1, last.lineno


def _guarded_name(statement: ast.stmt) -> str:
    found = _guarded(statement)
    return found[0] if found is not None else ""


def _guards(function: _Function) -> dict[str, ast.expr]:
    """``{name: value}`` of the function's ``if <name> is None: <name> = <value>``."""
    nodes = sorted(own_nodes(function.body), key=lambda node: getattr(node, "lineno", 0))
    return dict(found for found in map(_guarded, nodes) if found is not None)


def _may_be_none(function: _Function, subject: str) -> bool:
    """A parameter defaulting to None, or a name the function binds that is no parameter."""
    if subject in parameters(function):
        return subject in _defaulting_to_none(function)
    return subject in bound_names(function, nested=False)


def _defaulting_to_none(function: _Function) -> set[str]:
    return {name for name, default in parameter_defaults(function) if is_none(default)}


def _guarded(node: ast.AST) -> tuple[str, ast.expr] | None:
    """``(name, value)`` of ``if <name> is None: <name> = <value>``, with no ``else``."""
    if isinstance(node, ast.If) and not node.orelse:
        return _set_alone(node.body, _none_tested(node.test))
    return None


def _set_alone(block: list[ast.stmt], name: str) -> tuple[str, ast.expr] | None:
    """``(name, value)`` of a block that is ``<name> = <value>`` alone."""
    only = block[0]
    if len(block) != 1 or not isinstance(only, ast.Assign):
        return None
    return (name, only.value) if [ast.unparse(t) for t in only.targets] == [name] else None


def _none_tested(test: ast.expr) -> str:
    """``name`` of ``<name> is None`` (else "", which names nothing)."""
    name = getattr(getattr(test, "left", None), "id", None)
    return name if isinstance(name, str) and ast.unparse(test) == f"{name} is None" else ""
