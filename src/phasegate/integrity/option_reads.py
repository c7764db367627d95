"""Whether a conftest.py hook only reads the run's options, arguments or invocation.

A hook that reaches ``config.option`` (or ``.args``, ``.known_args_namespace``,
``.invocation_params``) can deselect tests or load plugins, so integrity reports it
(:mod:`.conftest_hooks`), but for a value it only reads: compared, tested, put in an f-string.
The review of session 17's diff (finding 12) found honest hooks still reported because the value
went on to a call: ``logging.basicConfig(level=config.option.log_level or "INFO")``,
``os.environ.setdefault("X", str(config.option.verbose))``, ``getattr(config.option,
"numprocesses", None)`` in an ``if``, ``VERBOSE = config.option.verbose``,
``f"{len(config.args)} paths"``. Two more shapes are reads here:

- the value of one of pytest's own options that are a number, a text or a flag
  (:data:`SCALAR_OPTIONS`, by ``config.option.verbose`` or ``getattr(config.option,
  "verbose")``), wherever it goes: the option keeps its own value, no code it is handed to
  can change it;
- any value handed to a builtin that makes a number or a text of it (``str``, ``len``...,
  :data:`CONVERTING`), when the module cannot have rebound that builtin: it binds no name of
  them anywhere, imports nothing by ``*`` and does not name ``builtins``.

The namespace itself, a list option (``deselect``, ``ignore``, ``args``) or an option the
project defines, handed to any other code stays a control: that code can change it. Code the
change adds elsewhere that replaces the builtins themselves is not read here (nor is any other
code of the change that runs in the tests' process).
"""

from __future__ import annotations

import ast
from typing import TypeGuard

__all__ = ["CONVERTING", "SCALAR_OPTIONS", "only_read", "trusted_builtins"]

#: pytest's own options (and pytest-xdist's, pytest-timeout's) whose value is a number, a text
#: or a flag, by their ``dest``.
SCALAR_OPTIONS = frozenset(
    {"verbose", "quiet", "log_level", "log_cli_level", "log_file", "log_file_level",
     "log_format", "log_date_format", "log_cli_format", "log_cli_date_format", "capture",
     "tbstyle", "showlocals", "color", "code_highlight", "maxfail", "basetemp", "rootdir",
     "confcutdir", "keyword", "markexpr", "numprocesses", "maxprocesses", "dist", "durations",
     "durations_min", "strict_markers", "runxfail", "collectonly", "usepdb", "last_failed",
     "failedfirst", "newfirst", "stepwise", "reportchars", "disable_warnings", "fulltrace",
     "showcapture", "importmode", "doctestmodules", "noconftest", "traceconfig", "timeout"}
)  # fmt: skip
#: Builtins that make a number or a text of what they are given, changing nothing.
CONVERTING = frozenset({"str", "repr", "len", "int", "float", "bool"})
_GETATTR = "getattr"
#: The fields that name what a node binds, the first one set: ``import x as y`` binds ``y``.
_NAMING_FIELDS = ("asname", "name", "arg")
#: The run's state a value is read from by an option's name.
_NAMESPACES = frozenset({"option", "known_args_namespace"})
#: Where a read value is only read: compared, turned into text, or tested (as the ``test`` of
#: these; ``and``/``or``/``not`` between it and them).
_COMPARING = (ast.Compare, ast.FormattedValue)
_TESTING = (ast.If, ast.IfExp, ast.While, ast.Assert)
_COMBINING = (ast.BoolOp, ast.UnaryOp)

Parents = dict[ast.AST, ast.AST]


def trusted_builtins(tree: ast.Module) -> frozenset[str]:
    """Of :data:`CONVERTING` and ``getattr``, the builtins ``tree`` cannot have rebound."""
    bound = {_bound_name(node) for node in ast.walk(tree)}
    rebinds_all = "*" in bound or "builtins" in ast.dump(tree)
    return frozenset() if rebinds_all else (CONVERTING | {_GETATTR}) - bound


def only_read(node: ast.AST, parents: Parents, trusted: frozenset[str]) -> bool:
    """Whether ``config.option`` (``node``, and the attributes read from it) is only read: a
    scalar option's value, or a value compared, tested, or converted by a ``trusted`` builtin;
    not stored to, handed to other code or called."""
    top = _climbed(node, parents, (ast.Attribute,))
    if not isinstance(getattr(top, "ctx", None), ast.Load):
        return False
    value, option = _option_value(node, top, parents, trusted)
    if option in SCALAR_OPTIONS:
        return True
    value = _climbed(value, parents, _COMBINING)
    return _reads(parents.get(value), value, trusted)


def _bound_name(node: ast.AST) -> str:
    """The name a node binds (a name stored to, an import's, a parameter's, a function's, an
    ``except``'s...), else ``""``; a keyword argument's name counts too, to be safe."""
    if isinstance(node, ast.Name):
        return "" if isinstance(node.ctx, ast.Load) else node.id
    field = next((field for field in _NAMING_FIELDS if getattr(node, field, None)), None)
    return str(getattr(node, field)) if field else ""


def _climbed(node: ast.AST, parents: Parents, kinds: tuple[type, ...]) -> ast.AST:
    """The outermost node of ``kinds`` that ``node`` is inside, without any other between."""
    while isinstance(parents.get(node), kinds):
        node = parents[node]
    return node


def _option_value(
    node: ast.AST, top: ast.AST, parents: Parents, trusted: frozenset[str]
) -> tuple[ast.AST, str]:
    """The expression holding one option's value (``config.option.verbose``,
    ``getattr(config.option, "verbose")``) and the option's name, else ``top`` and ``""``."""
    if getattr(node, "attr", "") not in _NAMESPACES:
        return top, ""
    parent = parents.get(node)
    if parent is top:
        return top, str(getattr(top, "attr", ""))
    return _getattr_value(parent, node, trusted) if top is node else (top, "")


def _getattr_value(
    call: ast.AST | None, node: ast.AST, trusted: frozenset[str]
) -> tuple[ast.AST, str]:
    """``getattr(node, "name", ...)`` and the literal name it reads, else ``node`` and ``""``."""
    if not _calls(call, trusted & {_GETATTR}) or call.args[:1] != [node]:
        return node, ""
    return call, _literal_text(call.args[1:2])


def _literal_text(values: list[ast.expr]) -> str:
    """The text of the first of ``values`` when it is a literal text, else ``""``."""
    value = values[0].value if values and isinstance(values[0], ast.Constant) else None
    return value if isinstance(value, str) else ""


def _calls(node: ast.AST | None, names: frozenset[str]) -> TypeGuard[ast.Call]:
    """Whether ``node`` calls one of the builtins ``names`` by its name."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _reads(user: ast.AST | None, value: ast.AST, trusted: frozenset[str]) -> bool:
    """Whether ``user`` compares ``value``, makes text or a number of it, or tests it."""
    tested = isinstance(user, _TESTING) and getattr(user, "test", None) is value
    return tested or isinstance(user, _COMPARING) or _converts(user, value, trusted)


def _converts(user: ast.AST | None, value: ast.AST, trusted: frozenset[str]) -> bool:
    """Whether ``user`` is a trusted builtin making a number or a text of ``value``."""
    return _calls(user, trusted & CONVERTING) and any(arg is value for arg in user.args)
