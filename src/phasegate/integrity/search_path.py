"""The folders pytest's settings put first on ``sys.path``, as the work tree has them.

:mod:`.shadows` asks where ``import calc`` looks before the project's own package. pytest's
``pythonpath`` setting (in the file pytest reads) inserts its entries so that the first listed
is first on ``sys.path`` (review s17r, and review s17d finding 10 for the order). The review of
session 17's diff (finding 5) put the test folder first without that key: ``addopts = "-o
'pythonpath=tests src'"`` overrides it (``-o``/``--override-ini``, the last one of a key wins,
as in pytest), so the override is read here in place of the key; :mod:`.settings_files`
reads the overrides of the other keys the configuration rules compare the same way.
"""

from __future__ import annotations

import ast
import configparser
import posixpath
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import PurePosixPath
from typing import TypeGuard

from phasegate import tomlfile
from phasegate.integrity.settings_readers import file_read_by
from phasegate.integrity.sources import ChangedSources

__all__ = ["OVERRIDE_OPTIONS", "Inserted", "inserted", "override_value", "overrides", "pythonpath"]

#: pytest's options that override an ini key (``-o key=value``).
OVERRIDE_OPTIONS = frozenset({"-o", "--override-ini"})
_PYTHONPATH = "pythonpath"


def pythonpath(sources: ChangedSources) -> tuple[str, ...]:
    """The folders pytest's ``pythonpath`` setting (or its override in ``addopts``) puts on
    ``sys.path``, relative to the root, the first on ``sys.path`` first."""
    name = file_read_by("pytest", sources.head_text)
    settings = _pytest_settings(name, sources.head_text(name) or "") if name else {}
    override = _overridden(settings.get("addopts"), _PYTHONPATH)
    entries = override if override is not None else _listed(settings.get(_PYTHONPATH))
    return tuple(str(PurePosixPath(entry)) for entry in entries)


def override_value(word: str, following: str) -> str:
    """``key=value`` when ``word`` (with the word after it) overrides an ini key: ``-o
    key=value``, ``-okey=value``, ``--override-ini=key=value``; else ``""``."""
    option, _, attached = word.partition("=")
    if option in OVERRIDE_OPTIONS:
        return attached or following
    return word[2:] if word.startswith("-o") else ""


def _pytest_settings(name: str, text: str) -> Mapping[str, object]:
    return _toml_settings(text) if name.endswith(".toml") else _ini_settings(text)


def _toml_settings(text: str) -> Mapping[str, object]:
    """``[tool.pytest.ini_options]`` over ``[tool.pytest]`` over ``[pytest]``."""
    try:
        data = tomlfile.loads(text)
    except tomlfile.TOMLDecodeError:
        return {}  # the configuration check reports the file
    tables = (
        tomlfile.table_in(data, "pytest"),
        tomlfile.table_in(data, "tool", "pytest"),
        tomlfile.table_in(data, "tool", "pytest", "ini_options"),
    )
    return {key: value for table in tables for key, value in table.items()}


def _ini_settings(text: str) -> Mapping[str, object]:
    """``[pytest]`` or ``[tool:pytest]``."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}  # the configuration check reports the file
    sections = (name for name in ("pytest", "tool:pytest") if parser.has_section(name))
    return next((dict(parser[name]) for name in sections), {})


def _listed(value: object) -> list[str]:
    """A setting's entries: a list's items, or a string's words."""
    if isinstance(value, str):
        return value.split()
    return [str(entry) for entry in value] if isinstance(value, list) else []


def _overridden(addopts: object, key: str) -> list[str] | None:
    """The entries the last ``-o key=...`` of ``addopts`` sets, else None."""
    value = overrides(addopts).get(key)
    return None if value is None else value.split()


def overrides(addopts: object) -> dict[str, str]:
    """The ini keys ``-o key=value`` in ``addopts`` (a string or a TOML list) sets, the last
    one of a key winning, as in pytest."""
    pairs = [override_value(word, after) for word, after in pairwise([*_words(addopts), ""])]
    split = (pair.partition("=") for pair in pairs if "=" in pair)
    return {key.strip(): value for key, _, value in split}


def _words(addopts: object) -> list[str]:
    """``addopts`` as pytest splits it: a TOML list's items, or a string split as a shell does."""
    if isinstance(addopts, list):
        return [str(word) for word in addopts]
    try:
        return shlex.split(str(addopts or ""))
    except ValueError:
        return str(addopts).split()


@dataclass(frozen=True)
class Inserted:
    """The folders conftest.py files insert into ``sys.path`` (ahead of pytest's own), and
    whether one inserts a folder not read here."""

    folders: frozenset[str]
    unknown: bool


def inserted(sources: ChangedSources) -> Inserted:
    """What the work tree's conftest.py files insert into ``sys.path``."""
    found = [
        folder
        for path in sources.conftest_paths
        for folder in _inserted_by(path, sources.head_text(path))
    ]
    return Inserted(frozenset(folder for folder in found if folder), "" in found)


def _inserted_by(path: str, text: str | None) -> list[str]:
    """Each folder a conftest.py inserts into ``sys.path``, relative to the root (``""`` for
    one not read: a whole ``sys.path`` or a slice of it assigned, an expression not followed)."""
    try:
        tree = ast.parse(text or "")
    except (SyntaxError, ValueError):
        return []  # the evidence rules report a conftest.py that does not parse
    return [_folder(value, path) for value in _insertions(tree)]


def _insertions(tree: ast.Module) -> list[ast.expr | None]:
    """What ``sys.path.insert(i, value)`` inserts, and None for an assignment to ``sys.path``
    (or a slice of it)."""
    nodes = list(ast.walk(tree))
    spellings = _sys_path_spellings(nodes)
    values = [_inserted_value(node) for node in nodes if _inserts(node, spellings)]
    return [*values, *(None for node in nodes if _stores_to(node, spellings))]


def _sys_path_spellings(nodes: list[ast.AST]) -> frozenset[str]:
    """How the module writes ``sys.path``: ``sys.path``, ``s.path`` for ``import sys as s``,
    ``path`` for ``from sys import path``."""
    aliases = [
        (node, alias)
        for node in nodes
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    return frozenset(_spelling(node, alias) for node, alias in aliases) - {""}


def _spelling(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    if isinstance(node, ast.Import):
        return _module_spelling(alias)
    return (alias.asname or "path") if (node.module, alias.name) == ("sys", "path") else ""


def _module_spelling(alias: ast.alias) -> str:
    return f"{alias.asname or 'sys'}.path" if alias.name == "sys" else ""


def _inserted_value(call: ast.Call) -> ast.expr | None:
    return call.args[1] if len(call.args) > 1 else None


def _inserts(node: ast.AST, spellings: frozenset[str]) -> TypeGuard[ast.Call]:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "insert" and _is(func.value, spellings)


def _stores_to(node: ast.AST, spellings: frozenset[str]) -> bool:
    """An assignment to ``sys.path`` or to a slice of it."""
    target = node.value if isinstance(node, ast.Subscript) else node
    stored = not isinstance(getattr(node, "ctx", ast.Load()), ast.Load)
    return stored and _is(target, spellings)


def _is(node: ast.AST, spellings: frozenset[str]) -> bool:
    return isinstance(node, ast.Attribute | ast.Name) and ast.unparse(node) in spellings


def _folder(value: ast.expr | None, conftest: str) -> str:
    """The folder ``value`` names, relative to the root, or ``""`` when it is not read (or is
    outside the root)."""
    found = _path_of(value, conftest) if value is not None else None
    folder = posixpath.normpath(found) if found is not None else ""
    return "" if folder.startswith(("..", "/")) else folder


def _path_of(node: ast.expr, conftest: str) -> str | None:
    """The path ``node`` computes from ``__file__`` or a literal, relative to the root."""
    start = _start(node, conftest)
    if start is not None:
        return start
    step = _step(node)
    return _through(step, conftest) if step else None


def _start(node: ast.expr, conftest: str) -> str | None:
    """``__file__`` (the conftest's own path) or a literal text, else None."""
    if isinstance(node, ast.Name) and node.id == "__file__":
        return conftest
    return _literal(node)


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _through(step: tuple[str, ast.expr, list[ast.expr]], conftest: str) -> str | None:
    name, inner, more = step
    base = _path_of(inner, conftest)
    return None if base is None else _applied(name, base, more)


def _step(node: ast.expr) -> tuple[str, ast.expr, list[ast.expr]] | None:
    """One step of a path expression: its name, what it applies to, and its other operands."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return "/", node.left, [node.right]
    if isinstance(node, ast.Attribute):
        return node.attr, node.value, []
    return _call_step(node) if isinstance(node, ast.Call) else None


def _call_step(call: ast.Call) -> tuple[str, ast.expr, list[ast.expr]] | None:
    """``f(x, *more)`` applies ``f`` to ``x``; ``x.f()`` applies ``f`` to ``x``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if call.args:
        return name, call.args[0], list(call.args[1:])
    return (name, func.value, []) if isinstance(func, ast.Attribute) else None


def _applied(name: str, path: str, more: list[ast.expr]) -> str | None:
    if name in _SAME_PATH:
        return path
    if name in _PARENT:
        return posixpath.dirname(path)
    return _joined(path, more) if name in _JOIN else None


def _joined(path: str, more: list[ast.expr]) -> str | None:
    """``path`` joined with ``more`` when each is a literal text, else None."""
    texts = [text for text in map(_literal, more) if text is not None]
    return posixpath.join(path, *texts) if len(texts) == len(more) else None


#: Calls and attributes that keep the path they are given (made absolute, a ``Path``, text).
_SAME_PATH = frozenset(
    {"str", "fspath", "Path", "PurePath", "abspath", "realpath", "normpath", "resolve",
     "absolute", "expanduser"}
)  # fmt: skip
_PARENT = frozenset({"dirname", "parent"})
_JOIN = frozenset({"/", "join", "joinpath"})
