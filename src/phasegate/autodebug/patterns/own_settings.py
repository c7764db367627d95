"""A method's parameter whose None means "the instance's own setting of that name".

A method that takes ``catch_exceptions=None`` or ``partial=None`` while its class keeps
``self.catch_exceptions`` or ``self.partial`` (set in ``__init__`` from the constructor's
argument) usually starts with ``if partial is None: partial = self.partial``: the call may
override the setting, and None leaves it. When that guard is lost, nothing else in the
function says so; the class does. This module reads that from the syntax of the method's
class: no library answers "which attributes does this class set on ``self``".
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import parameter_names

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["own_setting_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def own_setting_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(<subject> = self.<subject>, score, why)`` when ``subject`` is a parameter of a method
    (``self`` first) whose class sets ``self.<subject>``; else nothing."""
    names = parameter_names(function.args)
    if names[:1] != ["self"] or subject not in names[1:]:
        return []
    cls = _class_of(project, path, function)
    if cls is None or subject not in _set_on_self(cls):
        return []
    return [(f"{subject} = self.{subject}", 0.85, "the instance's own setting of that name")]


def _class_of(project: Project, path: str, function: _Function) -> ast.ClassDef | None:
    """The class ``function`` is a method of, in the file as it is now."""
    source = project.editable_source(path)
    classes = [n for n in ast.walk(source.tree) if isinstance(n, ast.ClassDef)] if source else []
    return next((cls for cls in classes if _defines(cls, function)), None)


def _defines(cls: ast.ClassDef, function: _Function) -> bool:
    """Whether ``function`` (by name and line) is one of the methods in ``cls``'s body."""
    return any(
        isinstance(stmt, type(function))
        and (stmt.name, stmt.lineno) == (function.name, function.lineno)
        for stmt in cls.body
    )


def _set_on_self(cls: ast.ClassDef) -> set[str]:
    """The attributes the class's methods set on ``self`` (``self.x = ...``)."""
    return {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
