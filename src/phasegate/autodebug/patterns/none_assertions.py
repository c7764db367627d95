"""None caught by an ``assert`` in the code under test: ``assert text is not None`` failing in
a project function a test called, because the guard that gave ``text`` a value before it was
lost.

The assertion names the value the code needs; the frame holds it None. Where that value was
set with others by one assignment (``href, href_pos = parse(src)``, then ``assert href_pos is
not None``), the guard the code lost is more likely of the first of them that is None too (the
value the others come with), so that one is the value guarded.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, TypeGuard

from phasegate.autodebug.live import holds_none, none_read
from phasegate.autodebug.patterns.functions import functions_in, own_nodes

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame

__all__ = ["none_asserted"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def none_asserted(failure: LiveFailure) -> tuple[LiveFrame, ast.Assert, ast.expr] | None:
    """The frame, the failing ``assert`` and the value to guard, when an assertion of a
    project function that a project frame called failed on a value the frame holds None."""
    frame = _called_project_frame(failure)
    asserted = failure.node_at(frame, (ast.Assert,)) if frame is not None else None
    if frame is None or not isinstance(asserted, ast.Assert):
        return None
    value = none_read(failure, frame, asserted.test)
    return (frame, asserted, _first_set_with(failure, frame, value)) if value else None


def _called_project_frame(failure: LiveFailure) -> LiveFrame | None:
    """The frame that raised, when it is a project function's and another project frame (a
    test) called it."""
    frames = [frame for frame in failure.frames if frame.path is not None]
    innermost = failure.innermost
    return innermost if len(frames) > 1 and frames[-1] is innermost else None


def _first_set_with(failure: LiveFailure, frame: LiveFrame, value: ast.expr) -> ast.expr:
    """The first target that is None of the last assignment before the assertion that set
    ``value`` among others; ``value`` itself when it was set alone (or not here)."""
    targets = _targets_set_with(failure, frame, value)
    return next((t for t in targets if holds_none(failure, frame, t)), value)


def _targets_set_with(failure: LiveFailure, frame: LiveFrame, value: ast.expr) -> list[ast.expr]:
    tree = failure.tree(frame.filename)
    function = _holding(tree, frame.line) if tree is not None else None
    return _last_unpacking(function, value, frame.line) if function is not None else []


def _last_unpacking(function: _Function, value: ast.expr, line: int) -> list[ast.expr]:
    """The targets of the function's last ``a, b = ...`` before ``line`` setting ``value``."""
    sets = [n for n in own_nodes(function.body) if _unpacks_into(n, value)]
    before = [n for n in sets if n.lineno < line]
    return _unpacked(before[-1]) if before else []


def _holding(tree: ast.Module, line: int) -> _Function | None:
    """The innermost function whose lines hold ``line``."""
    holding = [f for f in functions_in(tree) if f.lineno <= line <= (f.end_lineno or 0)]
    return max(holding, key=lambda f: f.lineno, default=None)


def _unpacks_into(node: ast.AST, value: ast.expr) -> TypeGuard[ast.Assign]:
    """``a, b = ...`` with ``value`` among the names it sets."""
    wanted = ast.unparse(value)
    return isinstance(node, ast.Assign) and any(ast.unparse(t) == wanted for t in _unpacked(node))


def _unpacked(node: ast.AST) -> list[ast.expr]:
    targets = node.targets if isinstance(node, ast.Assign) and len(node.targets) == 1 else []
    return list(targets[0].elts) if targets and isinstance(targets[0], ast.Tuple) else []
