"""Whether a function a conftest.py defines is what its body says when pytest calls it.

:mod:`.conftest_hooks` reads a hook's body, and the body of a helper of the conftest the hook
hands a parameter to (ee7b1a9). The review of session 17's diff (finding 3) made the calc
project's failing test pass with ``@keep def _numbers(config): ...``, ``keep`` imported
from the change's own package (a wrapper registering a plugin that reports every test passed):
the helper read as its empty body, while pytest called the wrapper. The same helper swapped
after its ``def`` without a binding statement (``globals()["_numbers"] = steady.go``,
``_numbers.__code__ = steady.go.__code__``) was read as honest too.

So a function is read as its body only when nothing can stand in for it:

- it has no decorator, but for a hook's ``hookimpl`` (:func:`hookimpl_spellings`: ``pytest``
  imported as itself, ``from pytest import hookimpl``); a decorated helper is code not read,
  and a decorated hook is a hook bound from elsewhere;
- the module does not rewrite its own names (:func:`rewrites_itself`): it calls no
  ``globals``, ``vars``, ``setattr``..., names no function's ``__code__`` or ``__dict__``, stores
  to no attribute named like one of its functions, and binds none of them ``global`` in a
  function (a binding :mod:`.conftest_hooks` counts as a second one).

Code of the change elsewhere (another module reaching into the conftest's namespace) is not read
here.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable

__all__ = ["global_names", "hookimpl_spellings", "rewrites_itself"]

#: Builtins through which a module rebinds its own names without a binding statement.
_REBINDING_CALLS = frozenset({"globals", "vars", "locals", "exec", "eval", "__import__"})
#: Builtins that set an attribute by a name given as a value.
_SETTERS = frozenset({"setattr", "delattr"})
#: A function's (or a module's) parts that hold what it runs, by attribute or by name.
_INNARDS = frozenset({"__code__", "__dict__", "__globals__", "__wrapped__", "__call__"})


def hookimpl_spellings(tree: ast.Module, bound: Counter[str]) -> frozenset[str]:
    """How the module spells pytest's ``hookimpl`` decorator: ``pytest.hookimpl`` (or under
    the name ``pytest`` is imported as), or a name bound by ``from pytest import hookimpl``;
    each only when that name is bound once."""
    spelled = {
        _spelling(name, origin) for name, origin in _imported_names(tree) if bound[name] == 1
    }
    return frozenset(spelled - {""})


def decorator_spelling(decorator: ast.expr) -> str:
    """``pytest.hookimpl`` for ``@pytest.hookimpl(tryfirst=True)``: the decorator as written,
    without its call."""
    return ast.unparse(decorator.func if isinstance(decorator, ast.Call) else decorator)


def rewrites_itself(tree: ast.Module, functions: Iterable[str]) -> bool:
    """Whether the module may replace one of its ``functions`` without binding its name."""
    names = frozenset(functions)
    return any(_rewrites(node, names) for node in ast.walk(tree))


def global_names(tree: ast.Module) -> list[str]:
    """The names a function of the module declares ``global`` (and may rebind)."""
    return [name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names]


def _imported_names(tree: ast.Module) -> list[tuple[str, str]]:
    """Each name a top-level import binds, with what it is: ``("pt", "pytest")`` for ``import
    pytest as pt``, ``("hookimpl", "pytest.hookimpl")`` for ``from pytest import hookimpl``."""
    return [pair for node in tree.body for pair in _origins(node)]


def _origins(node: ast.stmt) -> list[tuple[str, str]]:
    prefix = _from_prefix(node)
    names = node.names if isinstance(node, (ast.Import, ast.ImportFrom)) else []
    return [(alias.asname or alias.name, prefix + alias.name) for alias in names]


def _from_prefix(node: ast.stmt) -> str:
    """``pytest.`` for ``from pytest import ...``; nothing for an ``import``."""
    if not isinstance(node, ast.ImportFrom):
        return ""
    return "." * node.level + f"{node.module or ''}."


def _spelling(name: str, origin: str) -> str:
    if origin == "pytest":
        return f"{name}.hookimpl"
    return name if origin == "pytest.hookimpl" else ""


def _rewrites(node: ast.AST, names: frozenset[str]) -> bool:
    """A call of :data:`_REBINDING_CALLS`, a ``setattr`` by a name not written out, an
    attribute or a text naming :data:`_INNARDS` or one of the functions ``names``, or a store
    to an attribute named like one of them."""
    named = _named(node, names) or _stored_attribute(node) in names
    return named or _called(node) in _REBINDING_CALLS or _sets_unnamed(node)


def _called(node: ast.AST) -> str:
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""


def _named(node: ast.AST, names: frozenset[str]) -> bool:
    """An attribute or a text naming :data:`_INNARDS`, or a text naming one of ``names``."""
    attribute = node.attr if isinstance(node, ast.Attribute) else ""
    return attribute in _INNARDS or _text(node) in _INNARDS | names


def _text(node: ast.AST) -> str:
    value = node.value if isinstance(node, ast.Constant) else None
    return value if isinstance(value, str) else ""


def _sets_unnamed(node: ast.AST) -> bool:
    """``setattr(obj, name, ...)`` (or ``delattr``) by a name not written out."""
    if _called(node) not in _SETTERS:
        return False
    return not any(_text(name) for name in getattr(node, "args", [])[1:2])


def _stored_attribute(node: ast.AST) -> str:
    """The attribute ``node`` stores to or deletes (``me._numbers = ...``), else ``""``."""
    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
        return node.attr
    return ""
