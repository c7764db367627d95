"""Where a None seen far from its guard was made: the functions a lost guard goes back into.

A deleted guard leaves the None where it was made or taken in, and it fails further on. The
direct path guards the value where it failed; this module names the places upstream:

* **a parameter defaulting to None, handed on unguarded**: the None read as ``node.args``
  (or handed down as ``children_group.last_line_offset_leaf``) came in as a parameter of that
  name defaulting to None, which a function of the project hands on to a call without
  testing it (jinja2's ``Extension.call_method(name, args=None, kwargs=None, ...)`` building
  ``nodes.Call(..., args, kwargs, ...)``). A function that still guards another parameter so
  (``if kwargs is None: kwargs = []``) lost this one likeliest, and comes first;
* **a lookup that can miss, returned whole**: ``self.lexer`` read None is what the property
  ``lexer`` returns, ``get_lexer(self)``, whose ``lexer = _lexer_cache.get(key)`` is returned
  with no test of a miss (likewise a local set from such a function). The guard goes right
  after the lookup (its bodies: :mod:`.cache_misses`).

Each place is given as ``(path, text, function, value, line)``; the guards are made and
ranked as every guard of the direct path, and the tests decide.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, NamedTuple, TypeGuard

from phasegate.autodebug.patterns.expressions import called_name, parsed_expression, root_name
from phasegate.autodebug.patterns.functions import (
    assignments_of,
    class_of,
    defined_at,
    functions_in,
    functions_named,
    is_none,
    own_nodes,
    parameter_defaults,
    parameters,
)
from phasegate.autodebug.patterns.none_parameters import compared_with_none
from phasegate.autodebug.patterns.none_sources import calls_one_of
from phasegate.autodebug.source import enclosing_function

if TYPE_CHECKING:
    from phasegate.autodebug.diagnosis import Diagnosis
    from phasegate.autodebug.project import EditableSource, Project

__all__ = ["MadeHere", "made_here"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: The functions taking a None-default parameter looked into at most.
_MOST = 2
#: Calls whose result may be None on a miss.
_LOOKUPS = frozenset({"get", "pop"})


class MadeHere(NamedTuple):
    """A value that may have been None where it was made: its file, function, name, and the
    line it is handed on or returned at."""

    path: str
    text: str
    function: _Function
    subject: str
    line: int


class _Failing(NamedTuple):
    """The value seen None: the tree and function it failed in, itself, and what set it."""

    tree: ast.Module
    function: _Function
    subject: ast.expr
    setter: ast.expr | None


def made_here(diagnosis: Diagnosis, project: Project) -> list[MadeHere]:
    """The places upstream of the failing value where its None may have been let through."""
    failing = _failing(diagnosis, project)
    if failing is None:
        return _callee_places(diagnosis, project)
    return _parameter_places(project, _attribute_names(failing)) + _lookups(project, failing)


def _failing(diagnosis: Diagnosis, project: Project) -> _Failing | None:
    source = project.editable_source(diagnosis.path)
    subject = _subject(diagnosis)
    if source is None or subject is None:
        return None
    return _failing_in(source, subject, _line(diagnosis))


def _line(diagnosis: Diagnosis) -> int:
    return diagnosis.line or 0


def _subject(diagnosis: Diagnosis) -> ast.expr | None:
    """The failing value, a name or a chain of attributes of one."""
    text = str(diagnosis.facts.get("expr") or "")
    return parsed_expression(text) if root_name(text) else None


def _failing_in(source: EditableSource, subject: ast.expr, line: int) -> _Failing | None:
    function = enclosing_function(source.tree, line)
    if function is None:
        return None
    setter = _setter_value(function, ast.unparse(subject), line)
    return _Failing(source.tree, function, subject, setter)


def _setter_value(function: _Function, subject: str, line: int) -> ast.expr | None:
    """The value of the last ``<subject> = <value>`` of the function before ``line``."""
    before = _before(assignments_of(function, subject), line)
    return before[-1].value if before else None


def _before(assignments: list[ast.Assign], line: int) -> list[ast.Assign]:
    return [node for node in assignments if node.lineno < line]


def _arguments(value: ast.expr | None) -> list[ast.expr]:
    """The arguments of the call ``value`` is, if it is one."""
    if not isinstance(value, ast.Call):
        return []
    return [*value.args, *(keyword.value for keyword in value.keywords)]


def _attribute_names(failing: _Failing) -> list[str]:
    """The last names of the attributes the None was read as: the failing value, and the
    arguments of the call that set it (``args`` of ``node.args``), not those of ``self``."""
    expressions = [failing.subject, *_arguments(failing.setter)]
    return [e.attr for e in expressions if _attribute_of_another(e)]


def _attribute_of_another(node: ast.expr) -> TypeGuard[ast.Attribute]:
    return isinstance(node, ast.Attribute) and ast.unparse(node.value) not in ("self", "cls")


# -- a parameter defaulting to None, handed on -------------------------------------------------


def _parameter_places(project: Project, names: list[str]) -> list[MadeHere]:
    """The functions taking a parameter of one of ``names`` that defaults to None and that
    they hand on unguarded; those guarding another such parameter first."""
    found = [place for name in dict.fromkeys(names) for place in _taking(project, name)]
    found.sort(key=lambda place: not _guards_another(place.function, place.subject))
    return found[:_MOST]


def _taking(project: Project, name: str) -> list[MadeHere]:
    files = _editable_naming(project, name)
    return [
        MadeHere(r, text, f, name, line)
        for r, text, tree in files
        for f, line in _handing_on(tree, name)
    ]


def _editable_naming(project: Project, name: str) -> list[tuple[str, str, ast.Module]]:
    """``(path, text, tree)`` of the files auto-debug may edit whose text holds ``name``."""
    naming = project.parsed_naming(name, project.source_files)
    return [(r, _text(project, r), tree) for r, tree in naming if project.editable(r)]


def _text(project: Project, relpath: str) -> str:
    return project.read(relpath) or ""


def _handing_on(tree: ast.Module, name: str) -> list[tuple[_Function, int]]:
    return [found for function in functions_in(tree) for found in _handing(function, name)]


def _handing(function: _Function, name: str) -> list[tuple[_Function, int]]:
    """``(function, line of the first call it hands ``name`` to)`` when ``name`` is its
    parameter defaulting to None and it never tests it against None."""
    if not _unguarded_none_default(function, name):
        return []
    return [(function, line) for line in _first_line(_calls_handing(function, name))]


def _first_line(calls: list[ast.Call]) -> list[int]:
    """The line of the first of ``calls``, if any."""
    return [min(call.lineno for call in calls)] if calls else []


def _unguarded_none_default(function: _Function, name: str) -> bool:
    default = dict(parameter_defaults(function)).get(name)
    return is_none(default) and name not in compared_with_none(function)


def _calls_handing(function: _Function, name: str) -> list[ast.Call]:
    return [node for node in ast.walk(function) if _hands(node, name)]


def _hands(node: ast.AST, name: str) -> TypeGuard[ast.Call]:
    """Whether ``node`` is a call given the name ``name`` as an argument."""
    return isinstance(node, ast.Call) and name in _names(_arguments(node))


def _names(expressions: list[ast.expr]) -> set[str]:
    return {e.id for e in expressions if isinstance(e, ast.Name)}


def _guards_another(function: _Function, subject: str) -> bool:
    """Whether the function still tests another parameter defaulting to None against None."""
    nones = {name for name, default in parameter_defaults(function) if is_none(default)}
    return bool((nones - {subject}) & compared_with_none(function))


# -- a lookup that can miss, returned whole ----------------------------------------------------


def _called_for(failing: _Failing) -> list[str]:
    """The functions whose result the value is: the call that set it, or what the property
    ``self.<name>`` of the function's class returns."""
    setter = failing.setter
    values: list[ast.expr] = (
        [setter] if isinstance(setter, ast.Call) else _property_returns(failing)
    )
    return _call_names(values)


def _call_names(values: list[ast.expr]) -> list[str]:
    return [called_name(value) for value in values if isinstance(value, ast.Call)]


def _property_returns(failing: _Failing) -> list[ast.expr]:
    """What the methods named as the failing ``self.<name>`` return (a property's value)."""
    return [value for getter in _getters(failing) for value in _returned(getter)]


def _getters(failing: _Failing) -> list[_Function]:
    name = _self_attribute(failing.subject)
    if name is None:
        return []
    owner = class_of(failing.tree, failing.function)
    return functions_named(owner, name) if owner is not None else []


def _self_attribute(node: ast.expr) -> str | None:
    """``x`` of ``self.x``."""
    return node.attr if _of_self(node) else None


def _of_self(node: ast.expr) -> TypeGuard[ast.Attribute]:
    return isinstance(node, ast.Attribute) and ast.unparse(node.value) == "self"


def _returns(function: _Function) -> list[ast.Return]:
    """The function's own ``return`` statements, not those of the functions nested in it."""
    return [node for node in own_nodes(function.body) if isinstance(node, ast.Return)]


def _returned(function: _Function) -> list[ast.expr]:
    return [node.value for node in _returns(function) if node.value is not None]


def _lookups(project: Project, failing: _Failing) -> list[MadeHere]:
    """The lookups that can miss returned whole by the functions the value came from."""
    return [place for name in _called_for(failing) for place in _lookup_places(project, name)]


def _lookup_places(project: Project, name: str) -> list[MadeHere]:
    """In each function named ``name``, the local it returns whole that a lookup set and
    nothing tests against None."""
    files = _editable_naming(project, name)
    return [MadeHere(r, text, *m) for r, text, tree in files for m in _missed_in(tree, name)]


def _missed_in(tree: ast.Module, name: str) -> list[tuple[_Function, str, int]]:
    return [(f, *m) for f in functions_named(tree, name) for m in _missed(f)]


def _missed(function: _Function) -> list[tuple[str, int]]:
    """``(local, line of its return)`` for each local returned whole, set from a lookup that
    can miss, and never tested against None."""
    return [(n, line) for n, line in _returned_names(function) if _unchecked(function, n)]


def _returned_names(function: _Function) -> list[tuple[str, int]]:
    return [(r.value.id, r.lineno) for r in _returns(function) if isinstance(r.value, ast.Name)]


def _unchecked(function: _Function, name: str) -> bool:
    """Whether ``name`` is set from a lookup that can miss and never tested against None."""
    return name not in compared_with_none(function) and _looked_up(function, name)


def _looked_up(function: _Function, name: str) -> bool:
    """Whether the function sets ``name`` from a lookup that can miss (``d.get(k)``)."""
    return any(calls_one_of(node.value, _LOOKUPS) for node in assignments_of(function, name))


# -- a call's None, returned whole by the function called ------------------------------------


def _callee_places(diagnosis: Diagnosis, project: Project) -> list[MadeHere]:
    """For a None that is a call's result (``a, b = self.get_source(...)``), the locals the
    function the call ran (read live) returns whole, set from calls alone and never tested:
    the loader's ``rv = self.load_func(template)`` returned as it came."""
    called = _called_at(diagnosis)
    if called is None:
        return []
    return _returning_places(project.editable_source(called[0]), called[1])


def _called_at(diagnosis: Diagnosis) -> tuple[str, int] | None:
    """``(path, line of the def)`` of the project function whose result was the None."""
    source = diagnosis.facts.get("source")
    return _call_place(source) if isinstance(source, dict) else None


def _call_place(source: dict[str, object]) -> tuple[str, int] | None:
    if source.get("how") != "call":
        return None
    return _place(source.get("path"), source.get("line"))


def _place(path: object, line: object) -> tuple[str, int] | None:
    return (path, line) if isinstance(path, str) and isinstance(line, int) else None


def _returning_places(found: EditableSource | None, line: int) -> list[MadeHere]:
    if found is None:
        return []
    return [MadeHere(found.path, found.text, *r) for r in _results_of(_defined(found.tree, line))]


def _defined(tree: ast.Module, line: int) -> list[_Function]:
    function = defined_at(tree, line)
    return [function] if function is not None else []


def _results_of(functions: list[_Function]) -> list[tuple[_Function, str, int]]:
    return [(f, *found) for f in functions for found in _returned_results(f)]


def _returned_results(function: _Function) -> list[tuple[str, int]]:
    """``(local, line of its return)`` for each local (not a parameter) returned whole, set
    only from calls, and never tested against None."""
    named = _returned_names(function)
    return [(n, line) for n, line in named if _set_by_calls_alone(function, n)]


def _set_by_calls_alone(function: _Function, name: str) -> bool:
    assigned = [node.value for node in assignments_of(function, name)]
    return _untested_local(function, name) and _all_calls(assigned)


def _untested_local(function: _Function, name: str) -> bool:
    return name not in compared_with_none(function) | parameters(function)


def _all_calls(values: list[ast.expr]) -> bool:
    return bool(values) and all(isinstance(value, ast.Call) for value in values)
