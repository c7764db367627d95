"""Where an attribute seen None came in: the parameter a method of its class stores in it.

``self.context_settings.items()`` fails in ``make_context`` because ``__init__`` lost ``if
context_settings is None: context_settings = {}`` before ``self.context_settings =
context_settings``: the attribute is set from a parameter that defaults to None, and nothing
there tests it any more. The guard goes where the parameter comes in, before it is stored, as
well as where the attribute fails (the lost-guard search does the same from a suspect's
reads, :func:`..lost_guards._stored_unguarded`; this is the same step for a None read as
such, where the failing statement names the attribute).
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from phasegate.autodebug.patterns.functions import class_of, first_statement, own_nodes, place
from phasegate.autodebug.patterns.none_parameters import compared_with_none
from phasegate.autodebug.patterns.none_sources import stored_from_none_defaults

__all__ = ["Store", "stores_of"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


class Store(NamedTuple):
    """``self.x = p`` in ``method``, at ``line``: ``p`` defaults to None and is not tested."""

    method: _Function
    parameter: str
    line: int


def stores_of(tree: ast.Module, function: _Function, subject: str) -> list[Store]:
    """For ``self.x`` read in ``function``: each store of a parameter defaulting to None in it
    by another method of the class, whose method no longer tests the parameter."""
    owner = class_of(tree, function)
    methods = [m for m in owner.body if isinstance(m, _Function)] if owner is not None else []
    found = [_store(method, subject) for method in methods if place(method) != place(function)]
    return [store for store in found if store is not None]


def _store(method: _Function, subject: str) -> Store | None:
    """The store of ``subject`` from an untested parameter defaulting to None in ``method``."""
    parameter = stored_from_none_defaults(method).get(subject)
    if parameter is None or parameter in compared_with_none(method):
        return None
    return Store(method, parameter, _line_storing(method, subject))


def _line_storing(method: _Function, subject: str) -> int:
    """The line of the method's first assignment to ``subject`` (its top if it assigns it
    only as part of a tuple)."""
    assignments = [n for n in own_nodes(method.body) if isinstance(n, ast.Assign)]
    stores = (n.lineno for n in assignments if subject in map(ast.unparse, n.targets))
    return next(stores, first_statement(method).lineno)
