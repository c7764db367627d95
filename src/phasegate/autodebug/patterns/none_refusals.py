"""None refused by the code itself: ``if not isinstance(value, bytes): raise TypeError(...)``
raising because ``value`` was None.

The failing span is the ``raise``, which holds no None to read, so the readers of
:mod:`.nones` find nothing there. The value is read from the test of the ``if`` the ``raise``
is in: a name or attribute chain it reads that the frame holds None, when the message says
so (``NoneType``, or ``None`` as a word: ``%r`` of the value or of its type). The type the
test asks for, when it is an ``isinstance`` check, is the use's words: its empty value is a
guard's likely body (``value = b''``).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from phasegate.autodebug.live import none_read
from phasegate.autodebug.patterns.functions import parents_of

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame

__all__ = ["none_refused"]

_SAYS_NONE = re.compile(r"\bNone(?:Type)?\b")


def none_refused(failure: LiveFailure, frame: LiveFrame) -> tuple[str, ast.expr, str] | None:
    """``("none-refused", value, type)`` for the value an ``if`` around the failing ``raise``
    tests that was None (``type``: what an ``isinstance`` test asks for, else empty)."""
    test = _raising_test(failure, frame) if _SAYS_NONE.search(str(failure.exc)) else None
    value = none_read(failure, frame, test) if test is not None else None
    return ("none-refused", value, _asked_type(test, value)) if value is not None else None


def _raising_test(failure: LiveFailure, frame: LiveFrame) -> ast.expr | None:
    """The test of the ``if`` around the ``raise`` the frame failed at."""
    raised = failure.node_at(frame, (ast.Raise,))
    tree = failure.tree(frame.filename)
    if not isinstance(raised, ast.Raise) or tree is None:
        return None
    return _enclosing_test(parents_of(tree), raised)


def _enclosing_test(parents: dict[int, ast.AST], node: ast.AST) -> ast.expr | None:
    """The test of the innermost ``if`` whose body holds ``node``."""
    parent = parents.get(id(node))
    while parent is not None and not (isinstance(parent, ast.If) and node in parent.body):
        node, parent = parent, parents.get(id(parent))
    return parent.test if isinstance(parent, ast.If) else None


def _asked_type(test: ast.expr | None, value: ast.expr) -> str:
    """``bytes`` of ``not isinstance(value, bytes)`` (the first of a tuple of types)."""
    call = test.operand if isinstance(test, ast.UnaryOp) else test
    if not _is_isinstance_of(call, value):
        return ""
    asked = call.args[1]  # type: ignore[union-attr]
    first = asked.elts[0] if isinstance(asked, ast.Tuple) and asked.elts else asked
    return ast.unparse(first)


def _is_isinstance_of(call: ast.expr | None, value: ast.expr) -> bool:
    return (
        isinstance(call, ast.Call)
        and ast.unparse(call.func) == "isinstance"
        and len(call.args) == 2
        and ast.unparse(call.args[0]) == ast.unparse(value)
    )
