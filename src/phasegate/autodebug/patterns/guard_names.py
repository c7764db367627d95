"""A guard's body copied from another function, in the names of the function it goes into.

The project's own guards of a value are the likeliest bodies of a lost one (see
:mod:`.none_guards`), but a body often reads a local of the function it was found in:
``if r is None: r = n`` where that function set ``n = len(pool)``. Where the guard goes, the
same value has another name (``size = len(items)``). Each name the body reads that its own
function set by an assignment, and that the target function does not bind, is renamed to the
target's local set by an expression of the same shape (the same calls and attributes, any
names). A name with no such counterpart is left as it is (the engine drops a candidate that
reads a name nothing binds, :mod:`..unbound`).

Hand-written: the match is auto-debug's own (the shape of two assignments), no library does it.
"""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.functions import bound_names, own_nodes, parameters
from phasegate.autodebug.source import enclosing_function

__all__ = ["cannot_go_at", "in_target_names", "names_read", "reads_before_set"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def in_target_names(body: list[ast.stmt], tree: ast.Module, target: _Function) -> str:
    """``body`` (statements of ``tree``) as source, its borrowed locals renamed for ``target``."""
    text = "\n".join(ast.unparse(statement) for statement in body)
    source = enclosing_function(tree, body[0].lineno) if body else None
    if source is None or source is target:
        return text
    renames = _renames(body, _assignments(source, body[0].lineno), target)
    return _renamed(text, renames) if renames else text


def _renamed(text: str, renames: dict[str, str]) -> str:
    """``text`` with each name of ``renames`` read or set under its new name."""
    copied = ast.parse(text)
    for node in ast.walk(copied):
        if isinstance(node, ast.Name) and node.id in renames:
            node.id = renames[node.id]
    return "\n".join(ast.unparse(statement) for statement in copied.body)


def _renames(body: list[ast.stmt], theirs: dict[str, str], target: _Function) -> dict[str, str]:
    """``{their local: ours}`` for each local the body reads that its own function set
    (``theirs``: name to shape) and ``target`` does not bind, where ``target`` sets a local
    of the same shape."""
    ours_bound = bound_names(target, nested=True)
    ours_by_shape = _locals_by_shape(target)
    borrowed = [name for name in names_read(body) if name not in ours_bound and name in theirs]
    return {name: ours_by_shape[theirs[name]] for name in borrowed if theirs[name] in ours_by_shape}


def _locals_by_shape(function: _Function) -> dict[str, str]:
    """``{shape: name}`` of the function's ``name = <expression>``, the first of each shape."""
    by_shape: dict[str, str] = {}
    for name, shape in _assignments(function, function.end_lineno or function.lineno).items():
        by_shape.setdefault(shape, name)
    return by_shape


def names_read(statements: list[ast.stmt]) -> list[str]:
    """The names ``statements`` read, in the order they are walked."""
    return [
        node.id
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    ]


def reads_before_set(body: str, function: _Function, line: int) -> bool:
    """Whether ``body``, put before line ``line`` of ``function``, reads a local the function
    sets only further down (it would fail on an ``UnboundLocalError``)."""
    read = set(names_read(ast.parse(body).body))
    first_set: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            first_set[node.id] = min(first_set.get(node.id, node.lineno), node.lineno)
    own = parameters(function)
    return any(name in first_set and name not in own and first_set[name] >= line for name in read)


def cannot_go_at(body: str, function: _Function, line: int) -> bool:
    """Whether ``body`` cannot be put before line ``line`` of ``function``: it reads a local
    set only further down, or leaves a loop (``continue``, ``break``) that line is not in."""
    return reads_before_set(body, function, line) or (_jumps(body) and not _in_loop(function, line))


def _jumps(body: str) -> bool:
    """Whether ``body`` has a ``continue`` or a ``break`` (a guard's body is a statement or
    two: one with a loop of its own is not told apart)."""
    return any(isinstance(n, (ast.Continue, ast.Break)) for n in own_nodes(ast.parse(body).body))


def _in_loop(function: _Function, line: int) -> bool:
    """Whether ``line`` is in the body of a loop of ``function`` itself (not its ``else:``,
    where ``continue`` and ``break`` do not compile)."""
    loops = [
        n for n in own_nodes(function.body) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))
    ]
    return any(loop.body[0].lineno <= line <= (loop.body[-1].end_lineno or 0) for loop in loops)


def _assignments(function: _Function, before: int) -> dict[str, str]:
    """``{name: shape}`` of the function's ``name = <expression>`` before line ``before``."""
    found: dict[str, str] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and node.lineno < before
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            found.setdefault(node.targets[0].id, _shape(node.value))
    return found


def _shape(expression: ast.expr) -> str:
    """The expression with every name read made the same: ``len(pool)`` is ``len(items)``,
    but the function called keeps its name."""
    copied = ast.parse(ast.unparse(expression), mode="eval")
    called = {id(node.func) for node in ast.walk(copied) if isinstance(node, ast.Call)}
    for node in ast.walk(copied):
        if isinstance(node, ast.Name) and id(node) not in called:
            node.id = "_"
    return ast.dump(copied)
