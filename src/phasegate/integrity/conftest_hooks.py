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
parametrizing are not). The :data:`HARMLESS` hooks are read so wherever they are defined: the
review of the session's diff registered a plugin from ``pytest_addoption(parser,
pluginmanager)`` and deselected from ``pytest_report_header``. Reaching the run includes the
``pluginmanager`` parameter and handing any parameter (but ``parser``) to a call
(``steady.setup(config)``). Assignments are read in tuples, annotated, as ``for`` and ``with``
targets; every binding of a name is kept (pytest reads the last one). A star import is a
control of its own here; :mod:`.star_imports` reads the module it names when the project
holds it.

The review of session 17 read these rules on honest hooks and made them narrower where they
were wrong, and wider where a body went unread: a hook that only reads an option
(``if config.option.verbose > 1``, compared or tested: :mod:`.option_reads`) does not change
the run, and a parameter handed to a function the conftest defines (once) is followed into that
function's body (``_numbers(metafunc)``; only when nothing can stand in for it:
:mod:`.function_bodies`); a :data:`HARMLESS` hook imported or assigned from elsewhere is a
control, since its body is not read.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from phasegate.integrity.function_bodies import (
    decorator_spelling,
    global_names,
    hookimpl_spellings,
    rewrites_itself,
)
from phasegate.integrity.option_reads import only_read, trusted_builtins

__all__ = ["HARMLESS", "add_binding", "bound_hooks", "module_level"]

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
#: Of :data:`_RUN_STATE`, what a hook may read (compare, test) without changing the run.
_READABLE = frozenset({"option", "args", "known_args_namespace", "invocation_params"})
_CONFIGURE = "pytest_configure"
_PLUGIN_MANAGER = "pluginmanager"
_COMPOUND = (ast.If, ast.Try, ast.With, ast.For, ast.While) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)

HookName = Callable[[ast.FunctionDef | ast.AsyncFunctionDef], str]
Function = ast.FunctionDef | ast.AsyncFunctionDef
#: The functions a conftest defines at its top level and binds nowhere else, by name.
Functions = dict[str, Function]


@dataclass(frozen=True)
class _Module:
    """What a hook's body is read with: the conftest's own functions it may hand a parameter
    to, the builtins the conftest cannot have rebound (:func:`.trusted_builtins`), how it
    spells ``hookimpl``, and whether it may replace its functions unseen
    (:func:`.rewrites_itself`)."""

    functions: Functions
    trusted: frozenset[str]
    hookimpl: frozenset[str]
    rewritten: bool

    def as_written(self, function: Function) -> bool:
        """Whether pytest calls ``function`` as its body says: not rewritten, no decorator but
        ``hookimpl``."""
        spellings = (decorator_spelling(node) for node in function.decorator_list)
        return not self.rewritten and all(spelling in self.hookimpl for spelling in spellings)


def bound_hooks(tree: ast.Module, hook_name: HookName) -> dict[str, tuple[int, str]]:
    """Each hook the module binds as a control: name -> (line, the binding statements as text).

    ``hook_name`` tells the hook a function implements (its name, or its ``specname``). Every
    binding of a name is kept, the first one's line with all of their texts: pytest reads the
    last, so one appended after an honest ``def`` changes the control.
    """
    controls: dict[str, tuple[int, str]] = {}
    local = _module(tree)
    for node in module_level(tree.body):
        top_level = any(node is statement for statement in tree.body)
        for name in _names_bound(node, hook_name, top_level, local):
            add_binding(controls, name, node.lineno, ast.dump(node))
    return controls


def add_binding(controls: dict[str, tuple[int, str]], name: str, line: int, text: str) -> None:
    """One more binding of ``name``: at the first binding's line, the texts concatenated."""
    first, before = controls.get(name, (line, ""))
    controls[name] = (first, before + text)


def module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run at import: the top level, and inside its ``if``/``try``/``with``..."""
    for node in body:
        yield node
        if isinstance(node, _COMPOUND):
            for field in ("body", "orelse", "finalbody"):
                yield from module_level(getattr(node, field, []))
            for handler in getattr(node, "handlers", []):
                yield from module_level(handler.body)


def _module(tree: ast.Module) -> _Module:
    bound = Counter([*_all_bindings(tree), *global_names(tree)])
    rewritten = rewrites_itself(tree, (node.name for node in _top_level_functions(tree)))
    local = _Module({}, trusted_builtins(tree), hookimpl_spellings(tree, bound), rewritten)
    return replace(local, functions=_local_functions(tree, bound, local))


def _local_functions(tree: ast.Module, bound: Counter[str], module: _Module) -> Functions:
    """The top-level functions of ``tree`` read as their body (:func:`_plain`); none under a
    star import."""
    if bound["*"]:
        return {}
    return {node.name: node for node in _top_level_functions(tree) if _plain(node, bound, module)}


def _plain(function: Function, bound: Counter[str], module: _Module) -> bool:
    """Bound once at module level (``global`` in a function counts), without a decorator, as
    written (:meth:`_Module.as_written`)."""
    return not function.decorator_list and bound[function.name] == 1 and module.as_written(function)


def _all_bindings(tree: ast.Module) -> list[str]:
    return [name for node in module_level(tree.body) for name in _bindings(node)]


def _top_level_functions(tree: ast.Module) -> list[Function]:
    return [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _bindings(node: ast.stmt) -> list[str]:
    """The names a module-level statement binds (``*`` for a star import)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return _stored_names(_targets(node))


def _names_bound(node: ast.stmt, hook_name: HookName, top_level: bool, local: _Module) -> list[str]:
    """The hooks ``node`` binds that are controls."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        name = hook_name(node)
        return [name] if _defines_a_control(name, node, top_level, local) else []
    if isinstance(node, ast.ImportFrom):
        return _imported(node)
    return [name for name in _stored_names(_targets(node)) if _bound_unread(name)]


def _targets(node: ast.stmt) -> list[ast.expr]:
    """What a statement assigns to: ``=``, annotated, augmented, ``for`` and ``with`` targets."""
    targets: list[ast.expr | None] = [
        *getattr(node, "targets", []),
        getattr(node, "target", None),
        *(item.optional_vars for item in getattr(node, "items", [])),
    ]
    return [target for target in targets if target is not None]


def _stored_names(targets: list[ast.expr]) -> list[str]:
    """The names bound by ``targets``, inside tuples and lists too."""
    stored = (node for target in targets for node in ast.walk(target))
    return [node.id for node in stored if isinstance(node, ast.Name) and _stores(node)]


def _stores(node: ast.Name) -> bool:
    return isinstance(node.ctx, ast.Store)


def _imported(node: ast.ImportFrom) -> list[str]:
    """Hooks imported by name, or a star import (whose names are not read)."""
    if any(alias.name == "*" for alias in node.names):
        return [f"from {'.' * node.level}{node.module or ''} import *"]
    bound = [alias.asname or alias.name for alias in node.names]
    return [name for name in bound if _bound_unread(name)]


def _is_control(name: str) -> bool:
    return name.startswith("pytest_") and name not in HARMLESS


def _bound_unread(name: str) -> bool:
    """Whether a hook bound from elsewhere (its body unread) is a control: any hook, the
    harmless ones too, since they are harmless only as their body shows."""
    return name.startswith("pytest_") and name != "pytest_plugins"


def _defines_a_control(name: str, function: Function, top_level: bool, local: _Module) -> bool:
    """Any hook defined under a compound statement; a top-level one, ``pytest_configure`` or a
    harmless one when it changes the run."""
    if not local.as_written(function):
        return _bound_unread(name)
    read_as_written = top_level or name in HARMLESS or name == _CONFIGURE
    if not read_as_written:
        return _is_control(name)
    return name.startswith("pytest_") and _changes_the_run(function, local, frozenset())


def _changes_the_run(function: Function, local: _Module, seen: frozenset[str]) -> bool:
    """Whether a hook reaches ``config.option`` and such, uses the plugin manager it is given,
    or hands one of its parameters to other code (which can do either)."""
    return _reaches_run_state(function, local.trusted) or _hands_on_a_parameter(
        function, local, seen | {function.name}
    )


def _reaches_run_state(function: Function, trusted: frozenset[str]) -> bool:
    """``config.option`` and such (but for a value only read), or the ``pluginmanager``
    parameter itself."""
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    return any(_changes_state(node, parents, trusted) for node in ast.walk(function))


def _changes_state(node: ast.AST, parents: dict[ast.AST, ast.AST], trusted: frozenset[str]) -> bool:
    reached = _reached(node)
    if reached not in _RUN_STATE:
        return False
    return reached not in _READABLE or not only_read(node, parents, trusted)


def _reached(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) and node.id == _PLUGIN_MANAGER else ""


def _hands_on_a_parameter(function: Function, local: _Module, seen: frozenset[str]) -> bool:
    """A call that receives a parameter of the hook itself (``steady.setup(config)``); the
    ``parser`` of ``pytest_addoption`` only adds options."""
    names = _parameters(function) - {"parser"}
    calls = (node for node in ast.walk(function) if isinstance(node, ast.Call))
    return any(_hands_to(call, names, local, seen) for call in calls)


def _hands_to(call: ast.Call, names: set[str], local: _Module, seen: frozenset[str]) -> bool:
    """Whether ``call`` receives one of ``names`` and the code it calls may change the run: a
    function of the module is read as the hook is, any other code may."""
    if not _receives(call, names):
        return False
    helper = local.functions.get(call.func.id) if isinstance(call.func, ast.Name) else None
    if helper is None:
        return True
    return helper.name not in seen and _changes_the_run(helper, local, seen)


def _receives(call: ast.Call, names: set[str]) -> bool:
    return any(isinstance(value, ast.Name) and value.id in names for value in _call_arguments(call))


def _parameters(function: Function) -> set[str]:
    arguments = function.args
    return {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}


def _call_arguments(call: ast.Call) -> list[ast.expr]:
    values = [*call.args, *(keyword.value for keyword in call.keywords)]
    return [value.value if isinstance(value, ast.Starred) else value for value in values]
