"""An expression written as text (a diagnosis's ``expr``, a value in scope, a span of code)
read back as syntax: the expression itself, and the name an attribute chain starts from; and
the name a call calls.
"""

from __future__ import annotations

import ast

from phasegate.autodebug.source import parse

__all__ = ["called_name", "parsed_expression", "root_name"]


def parsed_expression(text: str) -> ast.expr | None:
    """The expression ``text`` starts with, or None if it does not parse or is a statement."""
    tree = parse(text)
    first = tree.body[0] if tree is not None and tree.body else None
    return first.value if isinstance(first, ast.Expr) else None


def root_name(text: str) -> str | None:
    """The name an expression such as ``config.cache.key`` starts from (None if it is not a
    name or a chain of attributes of one)."""
    node = parsed_expression(text)
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def called_name(call: ast.Call) -> str:
    """The name a call calls: ``f`` of ``f(x)`` and of ``obj.f(x)``; empty for anything else
    (``f()(x)``, ``fs[0](x)``)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
