"""What the class around a method gives a value, for the body of a lost ``if x is None:`` guard.

A method's parameter that defaults to None is often given, when it is None, a value the class
shows in two ways, read here from the syntax alone:

* **the class's other methods assign the same name** from the instance alone: a parser's
  ``fail(msg, lineno=None)`` lost ``if lineno is None: lineno = self.stream.current.lineno``,
  which twenty of its other methods assign to their own ``lineno``. Only a value that reads
  nothing its method binds but ``self`` (module-level names and builtins aside) means the
  same where it goes; only one assigned at least twice is the class's habit;
* **the setting the value is passed on as**: ``parse(..., start_symbol=None)`` passes
  ``start_nonterminal=start_symbol`` on while its class declares ``_start_nonterminal``: the
  call's own keyword names the instance's setting it overrides, so ``start_symbol =
  self._start_nonterminal`` (the name, or the name with one leading underscore, as the class
  declares it in its body or sets it on ``self``).

Hand-written: no library answers "what does this class assign to this name", and the other
guard bodies are read the same way (:mod:`.none_guards`, :mod:`.own_settings`).
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import (
    bound_names,
    class_of,
    own_nodes,
    parameter_names,
    place,
)
from phasegate.autodebug.patterns.own_settings import declared, set_on_self

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["class_value_bodies", "class_values_in"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: How often the class's other methods must assign a value for it to count as a habit.
_HABIT = 2


def class_value_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(body, score, why)`` for ``subject``, a parameter of a method of a class of the file:
    the values the class's other methods assign to that name (the two most common), then the
    instance's setting the method passes it on as."""
    source = project.editable_source(path)
    return class_values_in(source.tree, function, subject) if source is not None else []


def class_values_in(
    tree: ast.Module, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """:func:`class_value_bodies` for ``function`` of the module ``tree``."""
    names = parameter_names(function.args)
    cls = class_of(tree, function) if names[:1] == ["self"] and subject in names[1:] else None
    if cls is None:
        return []
    return _assigned_bodies(cls, function, subject) + _passed_on_bodies(cls, function, subject)


def _assigned_bodies(
    cls: ast.ClassDef, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    values: Counter[str] = Counter()
    for method in _other_methods(cls, function):
        values.update(_values_assigned(method, subject))
    common = [(value, count) for value, count in values.most_common(2) if count >= _HABIT]
    return [
        (f"{subject} = {value}", 0.79 - 0.01 * rank, f"as its class's other methods set it ({n})")
        for rank, (value, n) in enumerate(common)
    ]


def _other_methods(cls: ast.ClassDef, function: _Function) -> list[_Function]:
    methods = [statement for statement in cls.body if isinstance(statement, _Function)]
    return [method for method in methods if place(method) != place(function)]


def _values_assigned(method: _Function, subject: str) -> list[str]:
    """What ``method`` assigns to its own ``subject``, where that reads nothing it binds
    but ``self``."""
    local = bound_names(method, nested=False) - {"self"}
    assignments = [node for node in own_nodes(method.body) if isinstance(node, ast.Assign)]
    return [
        ast.unparse(node.value)
        for node in assignments
        if _assigns_only(node, subject) and not _names_read(node.value) & local
    ]


def _assigns_only(node: ast.Assign, subject: str) -> bool:
    return [ast.unparse(target) for target in node.targets] == [subject]


def _names_read(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _passed_on_bodies(
    cls: ast.ClassDef, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    settings = declared(cls) | set_on_self(cls)
    return [
        (f"{subject} = self.{setting}", 0.8, f"the instance's setting it is passed on as (`{k}=`)")
        for k in _keywords_passing(function, subject)
        for setting in (k, f"_{k}")
        if setting in settings - {subject}
    ]


def _keywords_passing(function: _Function, subject: str) -> list[str]:
    """The keywords of the calls in ``function`` that pass ``subject`` itself: ``k=subject``."""
    keywords = [node for node in ast.walk(function) if isinstance(node, ast.keyword)]
    return [k.arg for k in keywords if k.arg and ast.unparse(k.value) == subject]
