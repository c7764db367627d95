"""Where a None came from, traced through the code from the expression that was None.

Read where the test ran, from the live frame and the syntax around it, never by running the
user's code. The origin decides the repair (:mod:`.none_repairs`): ``call`` (a project
function that can end without ``return``), ``decorator`` (one that returns nothing, so the
decorated name is None), ``inplace`` (``x = x.sort()``), ``literal`` and ``attribute`` (set to
None), ``parameter`` (a default of None) and ``dict-get`` (``d.get(key)``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict

from phasegate.autodebug.live import project_path, resolve_expr
from phasegate.autodebug.patterns.functions import (
    functions_in,
    is_none,
    own_nodes,
    parameter_defaults,
)
from phasegate.autodebug.patterns.none_repairs import INPLACE_METHODS
from phasegate.autodebug.source import enclosing_function, node_span

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame

__all__ = ["CalledFunction", "NoneOrigin", "always_none", "origin"]


class CalledFunction(TypedDict):
    """A project function called, as the call writes it, and where its code is."""

    callee: str
    path: str | None
    line: int
    function: str


class NoneOrigin(TypedDict, total=False):
    """Where a None came from; empty when it cannot be traced.

    ``how`` says which of the other keys are set: ``call`` and ``decorator`` those of
    :class:`CalledFunction`; ``inplace`` ``path``, ``line``, ``method`` and ``target``;
    ``literal`` and ``attribute`` ``path``, ``line``, ``span`` and ``name``; ``parameter``
    ``path``, ``function_line`` and ``name``; ``dict-get`` ``path``, ``line``, ``span`` and
    ``value_type``.
    """

    how: str
    callee: str
    path: str | None
    line: int
    function: str
    function_line: int
    span: list[int] | None
    name: str
    method: str
    target: str
    value_type: str | None


def _called(how: str, called: CalledFunction) -> NoneOrigin:
    return {
        "how": how,
        "callee": called["callee"],
        "path": called["path"],
        "line": called["line"],
        "function": called["function"],
    }


def _function_at(
    tree: ast.Module, frame: LiveFrame
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return enclosing_function(tree, frame.line) if frame.function != "<module>" else None


def _callee_facts(failure: LiveFailure, frame: LiveFrame, func: ast.expr) -> CalledFunction | None:
    ok, callee = resolve_expr(failure, frame, func)
    if not ok and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        ok, callee = _method_of_class_called(failure, frame, func.value.func, func.attr)
    target = getattr(callee, "__func__", callee) if ok else None
    code = getattr(target, "__code__", None)
    if code is None:
        return None
    return {
        "callee": ast.unparse(func),
        "path": project_path(code.co_filename, failure.root),
        "line": code.co_firstlineno,
        "function": code.co_name,
    }


def _method_of_class_called(
    failure: LiveFailure, frame: LiveFrame, made_by: ast.expr, method: str
) -> tuple[bool, object]:
    """``Tokenizer(text).vocabulary()``: the method looked up on the class called, as
    ``(found, method)``."""
    made, cls = resolve_expr(failure, frame, made_by)
    if not (made and isinstance(cls, type)):
        return False, None
    import inspect

    try:
        return True, inspect.getattr_static(cls, method)
    except AttributeError:
        return False, None


def origin(failure: LiveFailure, frame: LiveFrame, expr: ast.expr) -> NoneOrigin:
    """Where the None ``expr`` evaluated to came from, or ``{}`` when it cannot be traced."""
    tree = failure.tree(frame.filename)
    if tree is None:
        return {}
    if isinstance(expr, ast.Call):
        return _call_origin(failure, frame, expr)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return _attribute_origin(failure, frame, expr)
    if isinstance(expr, ast.Name):
        return _name_origin(failure, frame, expr.id, tree)
    return {}


def _call_origin(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> NoneOrigin:
    """A call's None: ``mapping.get(key)``, or a project function's result."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "get":
        return _get_origin(failure, frame, call)
    facts = _callee_facts(failure, frame, call.func)
    return _called("call", facts) if facts and facts["path"] else {}


def _name_origin(failure: LiveFailure, frame: LiveFrame, name: str, tree: ast.Module) -> NoneOrigin:
    """A name's None: its parameter's default, its decorator, or what it was last assigned."""
    found = failure.lookup(frame, name)
    scope: ast.AST | None = _function_at(tree, frame) if found and found[0] == "local" else tree
    if scope is None:
        return {}
    declared = _declared_origin(failure, frame, name, scope)
    if declared:
        return declared
    assignment = _last_assignment(scope, name, frame.line)
    if assignment is None:
        return {}
    return _assigned_origin(failure, frame, name, assignment)


def _declared_origin(
    failure: LiveFailure, frame: LiveFrame, name: str, scope: ast.AST
) -> NoneOrigin:
    """A parameter whose default is None, or a module-level name its decorator made None."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and _none_default(scope, name):
        return {"how": "parameter", "name": name, "path": frame.path, "function_line": scope.lineno}
    if isinstance(scope, ast.Module):
        return _decorator_origin(failure, frame, name, scope)
    return {}


def _assigned_origin(
    failure: LiveFailure, frame: LiveFrame, name: str, assignment: ast.Assign | ast.AnnAssign
) -> NoneOrigin:
    """What the assignment that gave ``name`` its None assigned: None itself, a project
    function's result, an in-place method's result, or ``mapping.get(key)``."""
    value = assignment.value
    if value is not None and is_none(value):
        span = node_span(value, failure_lines(failure, frame))
        return {
            "how": "literal",
            "path": frame.path,
            "line": assignment.lineno,
            "span": list(span) if span else None,
            "name": name,
        }
    if isinstance(value, ast.Call):
        return _assigned_call_origin(failure, frame, name, value, assignment.lineno)
    return {}


def _assigned_call_origin(
    failure: LiveFailure, frame: LiveFrame, name: str, value: ast.Call, line: int
) -> NoneOrigin:
    """The origin of a None assigned from a call: a project function, an in-place method
    (``items = items.sort()``) or ``mapping.get(key)``."""
    facts = _callee_facts(failure, frame, value.func)
    if facts and facts["path"]:
        return _called("call", facts)
    method = value.func.attr if isinstance(value.func, ast.Attribute) else None
    if method in INPLACE_METHODS:
        return {
            "how": "inplace",
            "path": frame.path,
            "line": line,
            "method": method,
            "target": name,
        }
    if method == "get" and len(value.args) == 1:
        return _get_origin(failure, frame, value)
    return {}


def _decorator_origin(
    failure: LiveFailure, frame: LiveFrame, name: str, module: ast.Module
) -> NoneOrigin:
    """A module-level name that is None because its decorator returns nothing.

    The decorated definition is in this module, or in the module it was imported from
    (followed through re-exports, as ``from .shapes import f`` in a package's ``__init__``).
    """
    return _decorated(failure, frame.frame.f_globals, name, module, depth=0)


def _decorated(
    failure: LiveFailure,
    namespace: Mapping[str, object],
    name: str,
    tree: ast.Module | None,
    depth: int,
) -> NoneOrigin:
    if tree is None or depth > 5:
        return {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return _decorator_origin_of(failure, namespace, stmt)
        alias = _imported_as(stmt, name)
        if isinstance(stmt, ast.ImportFrom) and alias is not None:
            return _decorated_where_defined(failure, namespace, stmt, alias, depth)
    return {}


def _decorator_origin_of(
    failure: LiveFailure,
    namespace: Mapping[str, object],
    function: ast.FunctionDef | ast.AsyncFunctionDef,
) -> NoneOrigin:
    """The first of the function's decorators that the project defines."""
    for decorator in function.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        value = namespace.get(func.id) if isinstance(func, ast.Name) else None
        code = getattr(value, "__code__", None)
        path = project_path(code.co_filename, failure.root) if code else None
        if code is not None and path is not None:
            return {
                "how": "decorator",
                "callee": ast.unparse(func),
                "path": path,
                "line": code.co_firstlineno,
                "function": code.co_name,
            }
    return {}


def _imported_as(stmt: ast.stmt, name: str) -> ast.alias | None:
    """The name of a ``from`` import that binds ``name``."""
    if not isinstance(stmt, ast.ImportFrom):
        return None
    return next((alias for alias in stmt.names if (alias.asname or alias.name) == name), None)


def _decorated_where_defined(
    failure: LiveFailure,
    namespace: Mapping[str, object],
    stmt: ast.ImportFrom,
    alias: ast.alias,
    depth: int,
) -> NoneOrigin:
    """The decorator origin of ``alias``, followed into the module it is imported from."""
    import importlib.util
    import sys

    package = namespace.get("__package__")
    try:
        module_name = importlib.util.resolve_name(
            "." * stmt.level + (stmt.module or ""), package if isinstance(package, str) else None
        )
    except (ImportError, ValueError):
        return {}
    source = sys.modules.get(module_name)
    filename = getattr(source, "__file__", None)
    if source is None or filename is None:
        return {}
    return _decorated(failure, vars(source), alias.name, failure.tree(filename), depth + 1)


def always_none(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> NoneOrigin:
    """Where a project function called here gets its None from, if it can return nothing else."""
    facts = _callee_facts(failure, frame, call.func)
    if not facts or not facts["path"]:
        return {}
    tree = failure.tree(str(failure.root / facts["path"]))
    function = _defined(tree, facts["function"], facts["line"]) if tree is not None else None
    if function is None:
        return {}
    return _only_none_returned(function, facts)


def _defined(
    tree: ast.Module, name: str, line: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function ``name`` whose code starts at ``line`` (its header, or a decorator)."""
    return next(
        (
            node
            for node in functions_in(tree)
            if node.name == name
            and node.lineno <= line <= (node.body[0].lineno if node.body else node.lineno)
        ),
        None,
    )


def _only_none_returned(
    function: ast.FunctionDef | ast.AsyncFunctionDef, facts: CalledFunction
) -> NoneOrigin:
    """The function's origin of None when it returns nothing else: no value at all, or a
    name it bound to an in-place method's result."""
    nodes = own_nodes(function.body)
    if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in nodes):
        return {}
    returns = [node for node in nodes if isinstance(node, ast.Return)]
    values = [r.value for r in returns if r.value is not None and not is_none(r.value)]
    if not values:
        return _called("call", facts)
    return _inplace_result_returned(function, returns, values, facts["path"])


def _inplace_result_returned(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    returns: list[ast.Return],
    values: list[ast.expr],
    path: str | None,
) -> NoneOrigin:
    """The in-place origin when every ``return`` gives one name, last bound to an in-place
    method's result (``items = items.sort()``); ``{}`` otherwise."""
    name = _sole_name_returned(returns, values)
    if name is None:
        return {}
    assignment = _last_assignment(function, name, returns[-1].lineno)
    method = _inplace_method(assignment.value) if assignment is not None else None
    if assignment is None or method is None:
        return {}
    return {
        "how": "inplace",
        "path": path,
        "line": assignment.lineno,
        "method": method,
        "target": name,
    }


def _sole_name_returned(returns: list[ast.Return], values: list[ast.expr]) -> str | None:
    """The one name every ``return`` gives (``values``: what they give that is not None)."""
    names = {v.id for v in values if isinstance(v, ast.Name)}
    return next(iter(names)) if len(names) == 1 and len(values) == len(returns) else None


def _inplace_method(value: ast.expr | None) -> str | None:
    """``sort`` for ``items.sort()``: the in-place method a value is the result of."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr if value.func.attr in INPLACE_METHODS else None
    return None


def _get_origin(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> NoneOrigin:
    """``mapping.get(key)`` gave None; note the type the mapping's values have, if one."""
    span = node_span(call, failure_lines(failure, frame))
    found: NoneOrigin = {
        "how": "dict-get",
        "path": frame.path,
        "line": call.lineno,
        "span": list(span) if span else None,
    }
    if isinstance(call.func, ast.Attribute):
        ok, mapping = resolve_expr(failure, frame, call.func.value)
        if ok and isinstance(mapping, dict) and mapping:
            types = {type(v).__name__ for v in mapping.values()}
            found["value_type"] = types.pop() if len(types) == 1 else None
    return found


def failure_lines(failure: LiveFailure, frame: LiveFrame) -> list[str]:
    """The source lines of the frame's file, as the AST sees them."""
    import linecache

    del failure
    return linecache.getlines(frame.filename)


def _none_default(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    return any(arg == name and is_none(default) for arg, default in parameter_defaults(function))


def _last_assignment(scope: ast.AST, name: str, before: int) -> ast.Assign | ast.AnnAssign | None:
    """The last assignment (with a value) to ``name`` in ``scope`` above line ``before``."""
    assignments = [
        node
        for node in ast.walk(scope)
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        and node.lineno < before
        and any(isinstance(t, ast.Name) and t.id == name for t in _assigned_targets(node))
    ]
    return max(assignments, key=lambda node: node.lineno, default=None)


def _assigned_targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    """The targets an assignment binds; none for an annotation without a value."""
    if isinstance(node, ast.Assign):
        return node.targets
    return [node.target] if node.value is not None else []


def _attribute_origin(failure: LiveFailure, frame: LiveFrame, expr: ast.Attribute) -> NoneOrigin:
    """``self.items`` is None: find ``self.items = None`` in the class's file."""
    ok, base = resolve_expr(failure, frame, expr.value)
    found = _class_source(failure, type(base)) if ok else None
    if found is None:
        return {}
    filename, path, tree = found
    assignment = next(
        (node for node in ast.walk(tree) if _sets_to_none(node, expr.attr)),
        None,
    )
    if not isinstance(assignment, ast.Assign):
        return {}
    import linecache

    span = node_span(assignment.value, linecache.getlines(filename))
    return {
        "how": "attribute",
        "name": expr.attr,
        "path": path,
        "line": assignment.lineno,
        "span": list(span) if span else None,
    }


def _class_source(failure: LiveFailure, cls: type) -> tuple[str, str, ast.Module] | None:
    """The file a class is defined in, its project path and its tree (None outside the
    project)."""
    import inspect

    try:
        filename = inspect.getsourcefile(cls)
    except (TypeError, OSError):
        return None
    path = project_path(filename, failure.root) if filename else None
    tree = failure.tree(filename) if filename else None
    if path is None or tree is None or filename is None:
        return None
    return filename, path, tree


def _sets_to_none(node: ast.AST, attribute: str) -> bool:
    """Whether ``node`` is ``<something>.<attribute> = None``."""
    return (
        isinstance(node, ast.Assign)
        and is_none(node.value)
        and any(isinstance(t, ast.Attribute) and t.attr == attribute for t in node.targets)
    )
