"""What a None parameter was handed in as, at the call that failed: the caller's argument.

mistune's math plugin calls ``md.block.insert_rule(md.block.block_quote_rules, ...)``; with
``block_quote_rules`` lost in ``BlockParser.__init__``, ``insert_rule`` fails on its parameter
``rules``. A guard of ``rules`` there makes that failure's tests pass, but the None is made
elsewhere, and the run's other failure on ``self.block_quote_rules`` still fails. Reading the
argument the caller passed (``md.block.block_quote_rules``), checked None in the caller's frame,
lets the run see that the two failures are one None (:mod:`phasegate.autodebug.withdrawals`).
"""

from __future__ import annotations

import ast

from phasegate.autodebug.live import LiveFailure, LiveFrame, holds_none

__all__ = ["handed_as"]

_Argument = ast.Name | ast.Attribute


def handed_as(failure: LiveFailure, frame: LiveFrame, subject: str) -> str | None:
    """The name or attribute chain the caller of ``frame`` passed as its parameter
    ``subject``, when the caller's frame holds it None; else None."""
    caller = _caller(failure, frame)
    if caller is None:
        return None
    argument = _argument(failure.node_at(caller, (ast.Call,)), frame, subject)
    held = argument is not None and holds_none(failure, caller, argument)
    return ast.unparse(argument) if argument is not None and held else None


def _caller(failure: LiveFailure, frame: LiveFrame) -> LiveFrame | None:
    """The frame that called ``frame``, if it is the project's."""
    callers = failure.frames[: _index(failure.frames, frame)]
    return callers[-1] if callers and callers[-1].path is not None else None


def _index(frames: list[LiveFrame], frame: LiveFrame) -> int:
    return next((index for index, each in enumerate(frames) if each is frame), 0)


def _argument(call: ast.AST | None, frame: LiveFrame, subject: str) -> _Argument | None:
    """The argument of ``call`` for the parameter ``subject`` of ``frame``'s function: by
    keyword, else by position (past ``self``/``cls`` for a method called on an object)."""
    if not isinstance(call, ast.Call):
        return None
    keyword = _keyword(call, subject)
    found = keyword if keyword is not None else _positional(call, frame, subject)
    return found if isinstance(found, (ast.Name, ast.Attribute)) else None


def _keyword(call: ast.Call, subject: str) -> ast.expr | None:
    return next((each.value for each in call.keywords if each.arg == subject), None)


def _positional(call: ast.Call, frame: LiveFrame, subject: str) -> ast.expr | None:
    code = frame.frame.f_code
    names = list(code.co_varnames[: code.co_argcount])
    if subject not in names:
        return None
    bound = isinstance(call.func, ast.Attribute) and names[0] in ("self", "cls")
    index = names.index(subject) - int(bound)
    return call.args[index] if 0 <= index < len(call.args) else None
