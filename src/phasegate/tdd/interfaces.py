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
    return len(body) == 1 and _is_placeholder(body[0])


def _is_placeholder(statement: ast.stmt) -> bool:
    """``pass``, ``...``, or ``raise NotImplementedError``: a statement that does nothing."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return statement.value.value is Ellipsis
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def interface_problems(before: bytes | None, after: bytes) -> list[InterfaceProblem]:
    """What the change from ``before`` (``None``: a new file) to ``after`` does beyond stubs."""
    try:
        new_tree = ast.parse(after)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        return [InterfaceProblem(line, "the file", f"does not parse ({exc})")]
    old_body = _old_body(before)
    problems = [
        *_function_problems(dict(_functions(old_body, "")), dict(_functions(new_tree.body, ""))),
        *_statement_problems(old_body, new_tree.body),
    ]
    return sorted(problems, key=lambda problem: problem.line)


def _old_body(before: bytes | None) -> list[ast.stmt]:
    """The statements of the file before; none for a new file or one that did not parse
    (compared as a new file: everything in it must be declarative)."""
    if before is None:
        return []
    try:
        return ast.parse(before).body
    except (SyntaxError, ValueError):
        return []


_Functions = dict[str, ast.FunctionDef | ast.AsyncFunctionDef]


def _function_problems(old: _Functions, new: _Functions) -> list[InterfaceProblem]:
    """Functions added or changed with behaviour, and functions removed."""
    problems: list[InterfaceProblem] = []
    for name, function in new.items():
        was = old.get(name)
        if (was is None or _body(was) != _body(function)) and not is_stub(function):
            verb = "changes the body of" if was is not None else "adds"
            problem = f"is not a stub ({verb} a function with behaviour)"
            problems.append(InterfaceProblem(function.lineno, name, problem))
    problems += [
        InterfaceProblem(function.lineno, name, "was removed")
        for name, function in old.items()
        if name not in new
    ]
    return problems


def _statement_problems(old: list[ast.stmt], new: list[ast.stmt]) -> list[InterfaceProblem]:
    """New statements outside functions that run code rather than declare something."""
    old_statements = Counter(_statement_keys(old))
    problems: list[InterfaceProblem] = []
    for statement, scope in _statements(new, ""):
        key = ast.dump(statement)
        if old_statements[key] > 0:
            old_statements[key] -= 1
        elif not isinstance(statement, _DECLARATIONS) and not _is_docstring(statement):
            kind = type(statement).__name__.lower()
            problem = f"runs code (a new {kind} statement)"
            problems.append(InterfaceProblem(statement.lineno, scope or "module", problem))
    return problems


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
