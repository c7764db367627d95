"""The names a module's code reads that nothing binds: a candidate that adds one only moves
the failure to a ``NameError``.

A repair synthesized from what the project does elsewhere (a None guard's body copied from
another function, ``if r is None: r = n``) can read a name that is bound there and not here.
Validating it costs a re-run of the tests and one of the few candidates a failure may try, for
a certain ``NameError``; such a candidate is therefore never offered. Only names the edit
*adds* count: what the file already read unbound (a name a plugin injects) is not the
candidate's doing.

Built on the standard library's :mod:`symtable`, which resolves every scope as the compiler
does (a class body's names are not visible in its methods, a comprehension's are its own);
a module with a star import binds names no table shows, and is not judged.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from collections.abc import Iterator

__all__ = ["added_unbound", "unbound_names"]

#: Names every module has without binding them.
_MODULE_NAMES = frozenset(
    {
        "__name__",
        "__file__",
        "__doc__",
        "__spec__",
        "__loader__",
        "__package__",
        "__path__",
        "__builtins__",
        "__annotations__",
        "__dict__",
        "__cached__",
    }
)


def unbound_names(text: str, filename: str = "<module>") -> set[str] | None:
    """The names read somewhere in ``text`` that no scope binds (nor the builtins), or None
    when that cannot be told (the text does not compile, or it has a star import)."""
    top = _module_table(text, filename)
    if top is None:
        return None
    bound = _bound_in_module(top)
    found = {
        symbol.get_name()
        for table in _every_table(top)
        for symbol in table.get_symbols()
        if _reads_unbound(symbol, table is top, bound)
    }
    return {name for name in found if name not in _MODULE_NAMES and not hasattr(builtins, name)}


def _module_table(text: str, filename: str) -> symtable.SymbolTable | None:
    """The module's symbol table, or None if it does not compile or has a star import."""
    try:
        tree = ast.parse(text, filename)
        top = symtable.symtable(text, filename, "exec")
    except (SyntaxError, ValueError):
        return None
    return None if _has_star_import(tree) else top


def _has_star_import(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in ast.walk(tree)
    )


def _bound_in_module(top: symtable.SymbolTable) -> set[str]:
    """The names the module itself binds: assigned, imported, a function or a class."""
    return {
        symbol.get_name()
        for symbol in top.get_symbols()
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()
    }


def _every_table(top: symtable.SymbolTable) -> Iterator[symtable.SymbolTable]:
    """The module's table and every table nested in it."""
    tables = [top]
    while tables:
        table = tables.pop()
        yield table
        tables.extend(table.get_children())


def _reads_unbound(symbol: symtable.Symbol, at_module: bool, bound: set[str]) -> bool:
    """Whether ``symbol`` is a read of a name the module does not bind: a module-level read,
    or a read inside a function that resolves to the module."""
    if not symbol.is_referenced() or symbol.get_name() in bound:
        return False
    if symbol.is_assigned() or symbol.is_imported():
        return False
    return at_module or symbol.is_global()


def added_unbound(before: str, after: str, filename: str = "<module>") -> set[str]:
    """The unbound names ``after`` reads that ``before`` did not (empty when either cannot be
    told: a candidate is then judged by the tests alone)."""
    new = unbound_names(after, filename)
    old = unbound_names(before, filename) if new else None
    if new is None or old is None:
        return set()
    return new - old
