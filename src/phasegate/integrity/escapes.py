"""Assertions a test keeps but has made unable to fail.

:mod:`~phasegate.integrity.testcode` reads the plain forms: a constant asserted, a ``try`` whose
``except AssertionError`` does not re-raise, a ``return`` before the last check. A test body
escapes its assertions in these further ways, each written in one line by a hurried hand:

* ``assert result == 2 or True``: an ``or`` with an operand that cannot be false;
* an assertion under a false constant (``if False:``, ``while 0:``) or in the ``else`` of a true
  one: it never runs;
* ``with contextlib.suppress(AssertionError)`` (or ``Exception``, ``BaseException``) around it,
  or ``with pytest.raises(AssertionError)``, which passes only when the assertion fails;
* a ``try`` whose ``finally`` returns, breaks or continues: the assertion's exception is
  dropped.

Each is found by its shape in the syntax tree; what the test computes is not judged.
"""

from __future__ import annotations

import ast

__all__ = ["CATCHING", "assert_lines", "escaped_asserts", "or_true"]

#: Exceptions whose handler (or ``suppress``, ``raises``) also catches a failed assertion.
CATCHING = {"AssertionError", "Exception", "BaseException"}
_LEAVING = (ast.Return, ast.Break, ast.Continue)


def or_true(test: ast.expr) -> bool:
    """Whether an assertion's test is an ``or`` with a true constant among its operands."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)):
        return False
    return any(map(_true_constant, test.values))


def _true_constant(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and bool(value.value)


def escaped_asserts(function: ast.AST) -> list[int]:
    """Lines of the assertions of ``function`` that never run or whose failure is dropped."""
    return sorted({line for node in ast.walk(function) for line in _escaping(node)})


def _escaping(node: ast.AST) -> list[int]:
    """The assertion lines ``node`` keeps from failing a test: none for most nodes."""
    return [line for escape in _ESCAPES for line in assert_lines(escape(node))]


def _unreached(node: ast.AST) -> list[ast.stmt]:
    """The body of an ``if`` / ``while`` under a false constant, the ``else`` under a true one."""
    test = getattr(node, "test", None)
    if not isinstance(node, (ast.If, ast.While)) or not isinstance(test, ast.Constant):
        return []
    return {True: node.orelse, False: node.body}[bool(test.value)]


def _suppressed(node: ast.AST) -> list[ast.stmt]:
    """The body of a ``with`` that suppresses (or expects) a failed assertion."""
    if isinstance(node, (ast.With, ast.AsyncWith)) and any(map(_catches, node.items)):
        return node.body
    return []


def _finally_dropped(node: ast.AST) -> list[ast.stmt]:
    """The body of a ``try`` whose ``finally`` returns, breaks or continues."""
    if isinstance(node, ast.Try) and _leaves(node.finalbody):
        return node.body
    return []


_ESCAPES = (_unreached, _suppressed, _finally_dropped)


def _catches(item: ast.withitem) -> bool:
    """``contextlib.suppress(AssertionError)`` or ``pytest.raises(AssertionError)``, any
    spelling of the callee, with an exception that catches a failed assertion."""
    call = item.context_expr
    if not isinstance(call, ast.Call):
        return False
    return _last_name(call.func) in {"suppress", "raises"} and bool(_caught(call.args) & CATCHING)


def _caught(args: list[ast.expr]) -> set[str]:
    """The last names of the exceptions given, a tuple of them (``raises((A, B))``) opened."""
    return {_last_name(one) for arg in args for one in _opened(arg)}


def _opened(arg: ast.expr) -> list[ast.expr]:
    return arg.elts if isinstance(arg, ast.Tuple) else [arg]


def _last_name(expr: ast.expr) -> str:
    return ast.unparse(expr).rsplit(".", 1)[-1]


def _leaves(finalbody: list[ast.stmt]) -> bool:
    """Whether a ``finally`` block returns, breaks or continues, dropping any exception."""
    return any(isinstance(node, _LEAVING) for s in finalbody for node in ast.walk(s))


def assert_lines(statements: list[ast.stmt]) -> list[int]:
    """The lines of the ``assert`` statements in ``statements``, nested ones included."""
    return [n.lineno for s in statements for n in ast.walk(s) if isinstance(n, ast.Assert)]
