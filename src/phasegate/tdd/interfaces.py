"""Phase 0 adds interfaces only: signatures, classes and constants, and no behaviour.

A source file changed in phase 0 is compared with its content at the last green state, with
:mod:`ast` (so formatting and comments do not count). Every function that is new, or whose
body changed, must be a stub: after an optional docstring, nothing, ``pass``, ``...`` or
``raise NotImplementedError(...)``. New statements outside functions may declare (imports,
assignments, classes, ``if TYPE_CHECKING:`` blocks, docstrings) but not run code (a call, a
loop). Removing a function is not adding an interface either.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["InterfaceProblem", "interface_problems", "is_stub"]

_DECLARATIONS = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.Pass)


@dataclass(frozen=True)
class InterfaceProblem:
    """Something a phase-0 change does beyond declaring interfaces."""

    line: int
    name: str
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.name} {self.problem}"


def is_stub(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function has no behaviour: docstring, ``pass``, ``...`` or NotImplementedError."""
    body = list(function.body)
    if body and _is_docstring(body[0]):
        body = body[1:]
    if not body:
        return True
    if len(body) != 1:
        return False
    only = body[0]
    if isinstance(only, ast.Pass):
        return True
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant):
        return only.value.value is Ellipsis
    if isinstance(only, ast.Raise) and only.exc is not None:
        raised = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def interface_problems(before: bytes | None, after: bytes) -> list[InterfaceProblem]:
    """What the change from ``before`` (``None``: a new file) to ``after`` does beyond stubs."""
    try:
        new_tree = ast.parse(after)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        return [InterfaceProblem(line, "the file", f"does not parse ({exc})")]
    old_tree: ast.Module | None = None
    if before is not None:
        try:
            old_tree = ast.parse(before)
        except (SyntaxError, ValueError):
            old_tree = None  # compared as a new file: everything in it must be declarative
    old_functions = dict(_functions(old_tree.body, "")) if old_tree else {}
    new_functions = dict(_functions(new_tree.body, ""))
    problems: list[InterfaceProblem] = []
    for name, function in new_functions.items():
        old = old_functions.get(name)
        if old is not None and _body(old) == _body(function):
            continue
        if not is_stub(function):
            verb = "changes the body of" if old is not None else "adds"
            problems.append(
                InterfaceProblem(
                    function.lineno, name, f"is not a stub ({verb} a function with behaviour)"
                )
            )
    for name, function in old_functions.items():
        if name not in new_functions:
            problems.append(InterfaceProblem(function.lineno, name, "was removed"))
    old_statements = Counter(_statement_keys(old_tree.body if old_tree else []))
    for statement, scope in _statements(new_tree.body, ""):
        key = ast.dump(statement)
        if old_statements[key] > 0:
            old_statements[key] -= 1
            continue
        if not isinstance(statement, _DECLARATIONS) and not _is_docstring(statement):
            kind = type(statement).__name__.lower()
            problems.append(
                InterfaceProblem(
                    statement.lineno, scope or "module", f"runs code (a new {kind} statement)"
                )
            )
    return sorted(problems, key=lambda problem: problem.line)


def _functions(
    body: list[ast.stmt], prefix: str
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.If):
            yield from _functions(node.body + node.orelse, prefix)


def _statements(body: list[ast.stmt], scope: str) -> Iterator[tuple[ast.stmt, str]]:
    """Statements outside functions; classes and ``if`` blocks are looked into."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.ClassDef):
            yield from _statements(node.body, f"{scope}{node.name}.")
        elif isinstance(node, ast.If):
            yield from _statements(node.body + node.orelse, scope)
        else:
            yield node, scope.rstrip(".")


def _statement_keys(body: list[ast.stmt]) -> Iterator[str]:
    for statement, _scope in _statements(body, ""):
        yield ast.dump(statement)


def _body(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return ast.dump(ast.Module(body=function.body, type_ignores=[]))


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )
