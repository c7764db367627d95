"""The hooks a conftest.py binds beyond the functions defined at its top level.

pytest takes a conftest module's hooks from the module's attributes, however they were bound;
integrity read only the functions defined at the top level under a hook's name. The review of
session 16 made the failing test pass unreported, each in one line, by a hook
``pytest_collection_modifyitems`` defined under an ``if`` at module level, assigned
(``pytest_collection_modifyitems = steady.deselect``), imported (``from steady import
pytest_collection_modifyitems``, ``from steady import *``), and by ``pytest_configure`` changing
the run itself (``config.option.keyword = "not mean"`` deselects;
``config.pluginmanager.register(obj)`` adds any object's hooks).

So every name of a hook bound at module level otherwise than by a top-level ``def`` (in a
compound statement, assigned, imported) is a control, but for the hooks that change neither
which tests run nor how they are reported (:data:`HARMLESS`). A hook defined by a top-level
``def`` is read where it stands: the collection and outcome hooks are controls
(``testcode``), any other (``pytest_configure``, ``pytest_sessionstart``,
``pytest_generate_tests``...) only when it reaches the run's options, arguments, plugins or
hooks (registering markers with ``addinivalue_line``, setting an environment variable or
parametrizing are not). A star import is a control of its own here; :mod:`.star_imports`
reads the module it names when the project holds it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

__all__ = ["HARMLESS", "bound_hooks"]

#: Hooks that change neither which tests run nor how they are reported.
HARMLESS = frozenset(
    {
        "pytest_addoption",
        "pytest_report_header",
        "pytest_assertrepr_compare",
        "pytest_make_parametrize_id",
        "pytest_terminal_summary",
        "pytest_plugins",  # a list of modules, read on its own as a control
    }
)
#: What ``pytest_configure`` reaches when it changes the run (``config.<attribute>``).
_RUN_STATE = frozenset(
    {"option", "args", "pluginmanager", "known_args_namespace", "invocation_params", "hook"}
)
_CONFIGURE = "pytest_configure"
_COMPOUND = (ast.If, ast.Try, ast.With, ast.For, ast.While) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)

HookName = Callable[[ast.FunctionDef | ast.AsyncFunctionDef], str]


def bound_hooks(tree: ast.Module, hook_name: HookName) -> dict[str, tuple[int, str]]:
    """Each hook the module binds as a control: name -> (line, the binding statement as text).

    ``hook_name`` tells the hook a function implements (its name, or its ``specname``).
    """
    controls: dict[str, tuple[int, str]] = {}
    for node in _module_level(tree.body):
        top_level = any(node is statement for statement in tree.body)
        for name in _names_bound(node, hook_name, top_level):
            controls.setdefault(name, (node.lineno, ast.dump(node)))
    return controls


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run at import: the top level, and inside its ``if``/``try``/``with``..."""
    for node in body:
        yield node
        if isinstance(node, _COMPOUND):
            for field in ("body", "orelse", "finalbody"):
                yield from _module_level(getattr(node, field, []))
            for handler in getattr(node, "handlers", []):
                yield from _module_level(handler.body)


def _names_bound(node: ast.stmt, hook_name: HookName, top_level: bool) -> list[str]:
    """The hooks ``node`` binds that are controls."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        name = hook_name(node)
        return [name] if _is_control(name) and _changes_the_run(name, node, top_level) else []
    if isinstance(node, ast.ImportFrom):
        return _imported(node)
    targets = node.targets if isinstance(node, ast.Assign) else []
    return [t.id for t in targets if isinstance(t, ast.Name) and _is_control(t.id)]


def _imported(node: ast.ImportFrom) -> list[str]:
    """Hooks imported by name, or a star import (whose names are not read)."""
    if any(alias.name == "*" for alias in node.names):
        return [f"from {'.' * node.level}{node.module or ''} import *"]
    bound = [alias.asname or alias.name for alias in node.names]
    return [name for name in bound if _is_control(name)]


def _is_control(name: str) -> bool:
    return name.startswith("pytest_") and name not in HARMLESS


def _changes_the_run(
    name: str, function: ast.FunctionDef | ast.AsyncFunctionDef, top_level: bool
) -> bool:
    """A hook defined under a compound statement (but ``pytest_configure``); else when the
    function reaches ``config.option`` and such."""
    if name != _CONFIGURE and not top_level:
        return True
    reached = {node.attr for node in ast.walk(function) if isinstance(node, ast.Attribute)}
    return bool(reached & _RUN_STATE)
