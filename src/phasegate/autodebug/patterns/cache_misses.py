"""A lost guard's body for a cache lookup that missed: make the value, and keep it.

``lexer = _lexer_cache.get(key)`` is None on a miss; jinja2's ``get_lexer`` guarded it with
``if lexer is None: _lexer_cache[key] = lexer = Lexer(environment)``. The class made is the
one the function is annotated to return (``-> "Lexer"``), or the one the cache is annotated
to hold (``_lexer_cache: t.MutableMapping[t.Tuple, "Lexer"]``), when the module defines it;
it is made with the function's parameters named as its ``__init__``'s required ones (none
other is at hand where the guard goes). The body stores it in the cache under the key looked
up, and, lower, only binds it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, NamedTuple, TypeGuard

from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import assignments_of, functions_named, parameters
from phasegate.autodebug.source import parse

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["cache_miss_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_WHY = "making what the cache holds on a miss"


class _Miss(NamedTuple):
    """The cache looked up, the key, and the value made on a miss (as text)."""

    cache: str
    key: str
    made: str


def cache_miss_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``<cache>[<key>] = <subject> = <Class>(...)``, then ``<subject> = <Class>(...)``, for a
    ``<subject> = <cache>.get(<key>)`` of the function."""
    tree = parse(project.read(path) or "")
    miss = _miss(tree, function, subject) if tree is not None else None
    return _bodies(subject, miss)


def _bodies(subject: str, miss: _Miss | None) -> list[tuple[str, float, str]]:
    if miss is None:
        return []
    stored = f"{miss.cache}[{miss.key}] = {subject} = {miss.made}"
    return [(stored, 0.9, _WHY), (f"{subject} = {miss.made}", 0.78, _WHY)]


def _miss(tree: ast.Module, function: _Function, subject: str) -> _Miss | None:
    """The cache and key of the function's lookup of ``subject``, and what a miss makes."""
    lookup = _lookup(function, subject)
    if lookup is None:
        return None
    cache, key = lookup
    made = _first_made(tree, function, _classes(tree, function, cache))
    return _Miss(ast.unparse(cache), ast.unparse(key), made) if made is not None else None


def _lookup(function: _Function, subject: str) -> tuple[ast.expr, ast.expr] | None:
    """``(cache, key)`` of ``<subject> = <cache>.get(<key>)`` in the function."""
    gets = [node.value for node in assignments_of(function, subject) if _is_get(node.value)]
    return next(filter(None, map(_cache_and_key, gets)), None)


def _is_get(value: ast.expr) -> TypeGuard[ast.Call]:
    """``<x>.get(<key>)``, one argument."""
    return isinstance(value, ast.Call) and called_name(value) == "get" and len(value.args) == 1


def _cache_and_key(call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    func = call.func
    return (func.value, call.args[0]) if isinstance(func, ast.Attribute) else None


def _classes(tree: ast.Module, function: _Function, cache: ast.expr) -> list[str]:
    """The names of the classes the function returns or the cache holds, by annotation."""
    held = [node.annotation for node in _annotations_of(tree, ast.unparse(cache))]
    return list(filter(None, map(_last_type, [function.returns, *held])))


def _annotations_of(tree: ast.Module, target: str) -> list[ast.AnnAssign]:
    return [node for node in ast.walk(tree) if _annotates(node, target)]


def _annotates(node: ast.AST, target: str) -> TypeGuard[ast.AnnAssign]:
    return isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == target


def _last_type(annotation: ast.expr | None) -> str | None:
    """The class an annotation names last (``"Lexer"``, ``Mapping[Tuple, "Lexer"]``)."""
    if isinstance(annotation, ast.Subscript):
        return _last_type(_last_argument(annotation.slice))
    return _type_name(annotation)


def _last_argument(arguments: ast.expr) -> ast.expr:
    return arguments.elts[-1] if isinstance(arguments, ast.Tuple) and arguments.elts else arguments


def _type_name(annotation: ast.expr | None) -> str | None:
    """``Lexer`` of ``Lexer`` or ``"Lexer"``; None for anything else."""
    text = ast.unparse(annotation).strip("'\"") if annotation is not None else ""
    return text if text.isidentifier() else None


def _first_made(tree: ast.Module, function: _Function, names: list[str]) -> str | None:
    return next(filter(None, (_made(tree, function, name) for name in names)), None)


def _made(tree: ast.Module, function: _Function, name: str) -> str | None:
    """``Class(a, b)``: the module's class ``name`` made with the function's parameters its
    ``__init__`` requires; None when the module does not define it or one is not at hand."""
    cls = _classes_defined(tree).get(name)
    required = _required(cls) if cls is not None else None
    return f"{name}({', '.join(required)})" if _at_hand(required, function) else None


def _classes_defined(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _required(cls: ast.ClassDef) -> list[str] | None:
    """The parameters its ``__init__`` requires (none without one)."""
    init = functions_named(cls, "__init__")
    return _required_of(init[0]) if init else []


def _required_of(init: _Function) -> list[str] | None:
    """The positional parameters without a default, ``self`` aside; None when a keyword-only
    one is required too (it is not made so)."""
    if _keyword_required(init):
        return None
    plain = [*init.args.posonlyargs, *init.args.args]
    return [a.arg for a in plain[1 : len(plain) - len(init.args.defaults)]]


def _keyword_required(init: _Function) -> bool:
    return any(default is None for default in init.args.kw_defaults)


def _at_hand(required: list[str] | None, function: _Function) -> TypeGuard[list[str]]:
    """Whether the function has every parameter ``required`` names."""
    return required is not None and set(required) <= parameters(function)
