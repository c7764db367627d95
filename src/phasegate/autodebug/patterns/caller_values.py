"""A lost guard's body from what the function's callers compute for the parameter.

A parameter that defaults to None is often given, when it is None, the value its callers
compute for it when they have one: parso's ``_NodesTree`` calls ``tos.add_tree_nodes(prefix,
new_nodes, line_offset, last_line_offset_leaf)`` after ``last_line_offset_leaf =
new_nodes[-1].get_last_leaf()``, and ``add_tree_nodes`` guarded its parameter with
``last_line_offset_leaf = children[-1].get_last_leaf()``: the caller's value, in the callee's
names (``new_nodes`` is what the caller passes as ``children``).

Each call of the function (by its name; a class's by the class's name) that passes the
parameter a local (or an expression) gives the values the caller set that local to before the
call. A value is kept only when it reads another argument of the same call (renamed to the
callee's parameter it is passed as), and nothing else but names the callee's module binds and
builtins that the caller does not bind itself: what the callee has at hand where the guard
goes. A value made of the module's names alone (``Config.VERBOSITY_TEST_CASES``) is the
caller's choice, not computed from what it passes: on the guard yardstick's development half
such values came first where the original guard returns early.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple, TypeGuard

from phasegate.autodebug.patterns.assigned_values import names_known
from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import (
    assignments_of,
    bound_names,
    class_of,
    parameter_names,
)
from phasegate.autodebug.source import enclosing_function, parse

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["caller_value_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: The values given at most, the most often computed first.
_MOST = 2
_WHY = "as its callers compute what they pass for it"


class _Renaming(NamedTuple):
    """The caller's names passed as the callee's parameters (``{new_nodes: children}``), and
    the names both have at hand (the callee's module's, builtins)."""

    names: dict[str, str]
    shared: set[str]


def caller_value_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``<subject> = <value>`` for the values the function's callers compute for the parameter
    ``subject``, in the function's names."""
    tree = _tree_taking(project, path, function, subject)
    if tree is None:
        return []
    values = Counter(_values_for(project, tree, function, subject))
    return [(f"{subject} = {value}", 0.8, _WHY) for value, _ in values.most_common(_MOST)]


def _tree_taking(
    project: Project, path: str, function: _Function, subject: str
) -> ast.Module | None:
    """The function's module parsed, if ``subject`` is one of the function's parameters."""
    taken = subject in parameter_names(function.args)
    return parse(project.read(path) or "") if taken else None


def _values_for(project: Project, tree: ast.Module, function: _Function, subject: str) -> list[str]:
    """Every value a call of the function passes for ``subject``, in the function's names."""
    known = names_known(tree, function)
    calls = _calls_of(project, _called_as(tree, function))
    return [v for caller, call in calls for v in _passed(caller, call, function, subject, known)]


def _called_as(tree: ast.Module, function: _Function) -> str:
    """The name the function is called by: a constructor's is its class's."""
    owner = class_of(tree, function) if function.name == "__init__" else None
    return owner.name if owner is not None else function.name


def _calls_of(project: Project, name: str) -> list[tuple[ast.Module, ast.Call]]:
    """``(tree, call)`` of each call of ``name`` in the project's source files."""
    naming = project.parsed_naming(name, project.source_files)
    return [(tree, call) for _, tree in naming for call in _calls_in(tree, name)]


def _calls_in(tree: ast.Module, name: str) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if _is_call_of(node, name)]


def _is_call_of(node: ast.AST, name: str) -> TypeGuard[ast.Call]:
    return isinstance(node, ast.Call) and called_name(node) == name


def _passed(
    tree: ast.Module, call: ast.Call, function: _Function, subject: str, known: set[str]
) -> list[str]:
    """The values ``call`` (in ``tree``) passes for ``subject``, in the function's names."""
    caller = enclosing_function(tree, call.lineno)
    given = _arguments(call, function)
    passed = given.get(subject)
    if passed is None or caller is None:
        return []
    renaming = _Renaming(_renames(given, subject), known - bound_names(caller, nested=False))
    return _all_renamed(_values_of(caller, passed, call.lineno), renaming)


def _arguments(call: ast.Call, function: _Function) -> dict[str, ast.expr]:
    """``{parameter: the argument passed as it}`` for ``call`` of ``function`` (none when an
    argument is unpacked: ``f(*args)``)."""
    if _unpacks(call):
        return {}
    positional = dict(zip(_positional_names(function), call.args, strict=False))
    return positional | _keywords(call, set(parameter_names(function.args)))


def _unpacks(call: ast.Call) -> bool:
    return any(isinstance(arg, ast.Starred) for arg in call.args)


def _positional_names(function: _Function) -> list[str]:
    """The parameters a call's positional arguments fill (a method's ``self`` aside)."""
    names = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def _keywords(call: ast.Call, names: set[str]) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg in names}


def _renames(given: dict[str, ast.expr], subject: str) -> dict[str, str]:
    """``{the caller's name: the parameter it is passed as}``, the subject's own aside."""
    return {local: name for name, local in _names_given(given).items() if name != subject}


def _names_given(given: dict[str, ast.expr]) -> dict[str, str]:
    """``{parameter: the caller's name}`` for the arguments that are a name alone."""
    return {name: arg.id for name, arg in given.items() if isinstance(arg, ast.Name)}


def _values_of(caller: _Function, passed: ast.expr, line: int) -> list[ast.expr]:
    """The values a local passed was set to before ``line``; an expression passed itself."""
    if not isinstance(passed, ast.Name):
        return [passed]
    return [node.value for node in _before(assignments_of(caller, passed.id), line)]


def _before(assignments: list[ast.Assign], line: int) -> list[ast.Assign]:
    return [node for node in assignments if node.lineno < line]


def _all_renamed(values: list[ast.expr], renaming: _Renaming) -> list[str]:
    return list(filter(None, (_renamed(value, renaming) for value in values)))


def _renamed(value: ast.expr, renaming: _Renaming) -> str | None:
    """``value`` with the caller's names renamed to the callee's, or None when it reads a name
    the callee does not have, or is a constant or a name alone (other sources give those)."""
    if isinstance(value, (ast.Constant, ast.Name)) or not _reads_only(value, renaming):
        return None
    return ast.unparse(_Renamer(renaming.names).visit(_copy(value)))


def _reads_only(value: ast.expr, renaming: _Renaming) -> bool:
    """Whether ``value`` reads another argument of the call, and only names the callee has
    at hand (a value made of the module's names alone is the caller's choice, not one
    computed from what the callee is given)."""
    read = _names_read(value)
    return bool(read & set(renaming.names)) and read <= set(renaming.names) | renaming.shared


def _names_read(value: ast.expr) -> set[str]:
    return {node.id for node in ast.walk(value) if isinstance(node, ast.Name)}


def _copy(value: ast.expr) -> ast.expr:
    """A copy of ``value`` to rename in (the caller's tree is shared)."""
    return ast.parse(ast.unparse(value), mode="eval").body


class _Renamer(ast.NodeTransformer):
    """Renames the names of ``renames``."""

    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.renames.get(node.id, node.id), node.ctx)
