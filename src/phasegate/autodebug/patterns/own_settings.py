"""A parameter whose None means "the default kept elsewhere": on the instance, or in a name.

A method that takes ``catch_exceptions=None`` or ``partial=None`` while its class keeps
``self.catch_exceptions`` or ``self.partial`` (set in ``__init__`` from the constructor's
argument) usually starts with ``if partial is None: partial = self.partial``: the call may
override the setting, and None leaves it. A function nested in another often reads the
default the enclosing one kept as ``default_color`` (or ``color_default``): ``if color is
None: return not default_color`` beside ``return not color``. A parameter annotated as a
class or None (``cls: type[Argument] | None = None``) names the class it defaults to. When
such a guard is lost, nothing else in the function says so; the class, the scope around it,
or the annotation does. This module reads that from the syntax: no library answers "which
attributes does this class set on ``self``".
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import (
    class_of,
    own_nodes,
    parameter_names,
    renamed_text,
)
from phasegate.autodebug.patterns.type_variables import type_variable_bodies

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = [
    "annotated_class_bodies",
    "declared",
    "default_name_bodies",
    "own_setting_bodies",
    "set_on_self",
]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_KEPT_AS = "the default its instance keeps for it"
#: ``type[X] | None``, ``None | type[X]``, ``Optional[type[X]]`` (``typing.Type`` too): ``X``.
_TYPE_OR_NONE = re.compile(
    r"(?:[\w.]*Optional\[[\w.]*[Tt]ype\[(\w+)\]\]"
    r"|[\w.]*[Tt]ype\[(\w+)\]\s*\|\s*None"
    r"|None\s*\|\s*[\w.]*[Tt]ype\[(\w+)\])"
)


def own_setting_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(<subject> = self.<subject>, score, why)`` when ``subject`` is a parameter of a method
    (``self`` first) whose class sets ``self.<subject>`` or declares it in its body; then the
    same with the default the instance keeps for it (``self._verbose``,
    ``self._default_fore``, ``self.default_style``)."""
    cls = _method_class(project, path, function, subject)
    kept = _kept_by(cls, function) if cls is not None else set()
    return [
        (f"{subject} = self.{name}", score, why) for name, score, why in _kept_as(subject, kept)
    ]


def _kept_by(cls: ast.ClassDef, function: _Function) -> set[str]:
    """What the instance holds when ``function`` runs: what its class declares and what its
    methods set on it; nothing of its own in ``__init__``, which runs before they do."""
    return declared(cls) | set_on_self(cls) if function.name != "__init__" else set()


def _method_class(
    project: Project, path: str, function: _Function, subject: str
) -> ast.ClassDef | None:
    """The class ``function`` is a method of (``self`` first), if ``subject`` is a parameter."""
    names = parameter_names(function.args)
    if names[:1] != ["self"] or subject not in names[1:]:
        return None
    return _class_of(project, path, function)


def _kept_as(subject: str, kept: set[str]) -> list[tuple[str, float, str]]:
    """The instance's names of ``kept`` that hold ``subject`` or its default, likeliest
    first."""
    found = [(subject, 0.85, "the instance's own setting of that name")]
    found += [(name, 0.84, _KEPT_AS) for name in _default_names(subject)]
    return [entry for entry in found if entry[0] in kept]


def _default_names(subject: str) -> list[str]:
    """The names an instance keeps the default of ``subject`` under, but its own."""
    return [f"_{subject}", f"default_{subject}", f"_default_{subject}"]


def declared(cls: ast.ClassDef) -> set[str]:
    """The names the class's body assigns or declares (``_start_nonterminal: str``)."""
    targets = [_targets(statement) for statement in cls.body]
    return {target.id for found in targets for target in found if isinstance(target, ast.Name)}


def _targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.AnnAssign):
        return [statement.target]
    return statement.targets if isinstance(statement, ast.Assign) else []


def _class_of(project: Project, path: str, function: _Function) -> ast.ClassDef | None:
    """The class ``function`` is a method of, in the file as it is now."""
    source = project.editable_source(path)
    return class_of(source.tree, function) if source is not None else None


def set_on_self(cls: ast.ClassDef) -> set[str]:
    """The attributes the class's methods set on ``self`` (``self.x = ...``)."""
    return {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def default_name_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """For a parameter ``x`` when the file binds ``default_x`` (or ``x_default``): the
    function's other returns of ``x`` with that name in its place, then ``x = default_x``."""
    source = project.editable_source(path)
    if source is None or subject not in parameter_names(function.args):
        return []
    found: list[tuple[str, float, str]] = []
    for name in sorted(_defaults_named(source.tree, subject)):
        why = f"the default kept as `{name}`"
        found += [
            (renamed_text(ret, subject, name), 0.84, why) for ret in _returns_of(function, subject)
        ]
        found.append((f"{subject} = {name}", 0.83, why))
    return found


def _defaults_named(tree: ast.Module, subject: str) -> set[str]:
    """``default_<subject>`` and ``<subject>_default`` where the file names them (one not
    bound where the guard goes is dropped before it is tried, as any candidate reading a name
    nothing binds)."""
    wanted = {f"default_{subject}", f"{subject}_default"}
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} & wanted


def _returns_of(function: _Function, subject: str) -> list[ast.Return]:
    """The function's own ``return`` statements whose value reads ``subject``."""
    returns = [node for node in own_nodes(function.body) if isinstance(node, ast.Return)]
    return [ret for ret in returns if subject in _names_in(ret)]


def _names_in(node: ast.AST) -> set[str]:
    return {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}


def annotated_class_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``<subject> = X`` for a parameter annotated ``type[X] | None`` (or ``Optional[type[X]]``,
    also written as a string), ``X`` a class the file defines or imports: ``if cls is None: cls
    = Argument`` for ``cls: type[Argument] | None = None``; for a type variable, its bound
    (:mod:`.type_variables`)."""
    found = _TYPE_OR_NONE.fullmatch(_annotation_text(function, subject))
    named = next((group for group in found.groups() if group), None) if found else None
    source = project.editable_source(path) if named is not None else None
    if source is None or named is None:
        return []
    classes = _classes_bound(source.tree)
    if named not in classes:
        return type_variable_bodies(source.tree, subject, named, classes)
    # Above the project's guards of namesakes (0.86 to 0.9): those are other parameters.
    return [(f"{subject} = {named}", 0.92, "the class its annotation names")]


def _annotation_text(function: _Function, name: str) -> str:
    """The annotation of ``function``'s parameter ``name`` as written ("" if none)."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    annotation = next((a.annotation for a in every if a.arg == name), None)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip()
    return ast.unparse(annotation) if annotation is not None else ""


def _classes_bound(tree: ast.Module) -> set[str]:
    """The names the module binds to a class: those it defines and those it imports from a
    module (a name assigned, as a type variable is, is not one)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            found.update(alias.asname or alias.name for alias in node.names)
    return found
