"""What a function's syntax tree says about it, read alike by every pattern.

The functions a module defines and the one defined at a line; a function's parameters and
their defaults, the nodes of its own scope (not those of the functions and classes nested in
it), its first statement after the docstring; whether a node is the literal ``None``. The
repairs of a call, of a lost ``return`` and of a lost guard all read these; one copy keeps
them counting the same way.

Hand-written: :mod:`inspect` reads live functions, not syntax trees, and :mod:`ast` has no
such helpers.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from typing import TypeGuard

__all__ = [
    "assignments_of",
    "bound_names",
    "defined_at",
    "first_statement",
    "functions_in",
    "functions_named",
    "is_docstring",
    "is_none",
    "own_nodes",
    "parameter_defaults",
    "parameter_names",
    "parameters",
    "parents_of",
    "renamed_text",
]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def functions_in(tree: ast.AST) -> Iterator[_Function]:
    """Every function defined in ``tree``, methods and nested ones too, in walk order."""
    return (node for node in ast.walk(tree) if isinstance(node, _Function))


def defined_at(tree: ast.AST, line: int | None) -> _Function | None:
    """The function whose header (or one of whose decorators) is at ``line``."""
    return next((f for f in functions_in(tree) if line in _start_lines(f)), None)


def _start_lines(function: _Function) -> list[int]:
    """The lines a function's definition starts on: its header's and its decorators'."""
    return [function.lineno, *(d.lineno for d in function.decorator_list)]


def parameter_names(args: ast.arguments) -> list[str]:
    """The names of a function's (or lambda's) parameters, in the order they are written."""
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return [a.arg for a in [*named, args.vararg, args.kwarg] if a is not None]


def parameters(function: _Function) -> set[str]:
    """The names of ``function``'s parameters."""
    return set(parameter_names(function.args))


def parameter_defaults(function: _Function) -> list[tuple[str, ast.expr]]:
    """``(parameter, default)`` of each parameter that has a default, in order."""
    args = function.args
    plain = [*args.posonlyargs, *args.args]
    pairs = list(
        zip([a.arg for a in plain[len(plain) - len(args.defaults) :]], args.defaults, strict=True)
    )
    pairs += [
        (a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    return pairs


def own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a function's body, those of the functions and classes nested in it aside."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def bound_names(function: _Function, *, nested: bool) -> set[str]:
    """The names ``function`` binds: its parameters and the names it assigns, and, when
    ``nested``, those the functions and classes nested in it assign too."""
    nodes = ast.walk(function) if nested else own_nodes(function.body)
    return parameters(function) | {
        node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


def is_docstring(statement: ast.stmt) -> bool:
    """Whether ``statement`` is a string on its own (a docstring, when it comes first)."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def first_statement(function: _Function) -> ast.stmt:
    """The first statement after the docstring (the docstring if it is all there is)."""
    first = function.body[0]
    return function.body[1] if is_docstring(first) and len(function.body) > 1 else first


def is_none(node: ast.AST | None) -> bool:
    """Whether ``node`` is the literal ``None``."""
    return isinstance(node, ast.Constant) and node.value is None


def parents_of(tree: ast.AST) -> dict[int, ast.AST]:
    """``{id(node): its parent}`` for every node under ``tree``."""
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def place(statement: ast.stmt) -> tuple[str | None, int]:
    """A statement's name (for a definition) and line: the same method in two parses of a text."""
    return getattr(statement, "name", None), statement.lineno


def class_of(tree: ast.Module, function: _Function) -> ast.ClassDef | None:
    """The class of ``tree`` whose body defines ``function`` (by :func:`place`: ``function``
    may come from another parse of the same text)."""
    classes = (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef))
    return next((c for c in classes if place(function) in map(place, c.body)), None)


def functions_named(scope: ast.AST, name: str) -> list[_Function]:
    """The functions (and methods) defined in ``scope`` named ``name``."""
    return [function for function in functions_in(scope) if function.name == name]


def assignments_of(function: _Function, name: str) -> list[ast.Assign]:
    """The statements of ``function`` that assign ``name`` alone (``name = <value>``), in
    order; not those of the functions and classes nested in it (another scope's name)."""
    found = [node for node in own_nodes(function.body) if _assigns_alone(node, name)]
    return sorted(found, key=lambda node: node.lineno)


def _assigns_alone(node: ast.AST, name: str) -> TypeGuard[ast.Assign]:
    return isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]


def renamed_text(node: ast.AST, old: str, new: str) -> str:
    """The source of ``node`` with each name ``old`` made ``new`` (``node`` left as it is)."""
    copied = copy.deepcopy(node)
    for name in ast.walk(copied):
        if isinstance(name, ast.Name) and name.id == old:
            name.id = new
    return ast.unparse(copied)
