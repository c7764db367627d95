"""None spread into a call or a display: ``f(**None)``, ``f(*None)``, ``[*None]``, ``{**None}``.

CPython says so without quoting ``'NoneType'`` (``dict() argument after ** must be a mapping,
not NoneType``; ``Value after * must be an iterable, not NoneType``), so the readers of
:mod:`.nones` that look for the quoted word pass it by. The value spread is read from the
failing span: the one of its ``*``/``**`` operands seen None, else the only one.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from phasegate.autodebug.live import resolve_expr

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame

__all__ = ["none_spread"]

#: CPython's words for a None after ``*`` or ``**``; ``{**None}`` says ``'NoneType' object is
#: not a mapping``.
_SPREAD = re.compile(
    r"after (\*\*?) must be an? (?:mapping|iterable), not NoneType|"
    r"'NoneType' object is not a (mapping)"
)


def none_spread(
    failure: LiveFailure, frame: LiveFrame, node: ast.expr
) -> tuple[str, ast.expr, str] | None:
    """``("none-argument", value, "*" or "**")`` for the value spread that was None."""
    said = _SPREAD.search(str(failure.exc))
    if said is None:
        return None
    stars = "**" if said[2] else said[1]
    spread = _spread_operands(node, stars)
    value = _the_none(failure, frame, spread)
    return ("none-argument", value, stars) if value is not None else None


def _spread_operands(node: ast.expr, stars: str) -> list[ast.expr]:
    """What ``node`` spreads with ``stars``: a call's ``*args``/``**kwargs``, a list's, tuple's
    or set's ``*items``, a dict's ``**items``."""
    if stars == "**":
        return _double_starred(node)
    items = node.args if isinstance(node, ast.Call) else getattr(node, "elts", [])
    return [item.value for item in items if isinstance(item, ast.Starred)]


def _double_starred(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Dict):
        return [value for key, value in zip(node.keys, node.values, strict=True) if key is None]
    return _keyword_spreads(node) if isinstance(node, ast.Call) else []


def _keyword_spreads(call: ast.Call) -> list[ast.expr]:
    return [keyword.value for keyword in call.keywords if keyword.arg is None]


def _the_none(failure: LiveFailure, frame: LiveFrame, operands: list[ast.expr]) -> ast.expr | None:
    """The operand seen None; else the only one whose value cannot be read back."""
    known = [(operand, _seen_none(failure, frame, operand)) for operand in operands]
    return next((operand for operand, none in known if none), None) or _only_unread(known)


def _seen_none(failure: LiveFailure, frame: LiveFrame, node: ast.expr) -> bool | None:
    """Whether ``node`` was None; None when its value cannot be read without running code."""
    ok, value = resolve_expr(failure, frame, node)
    return (value is None) if ok else None


def _only_unread(known: list[tuple[ast.expr, bool | None]]) -> ast.expr | None:
    unread = [operand for operand, none in known if none is None]
    return unread[0] if len(unread) == 1 else None
