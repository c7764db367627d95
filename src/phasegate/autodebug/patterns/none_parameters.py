"""Which parameters of a suspicious function a lost ``if x is None:`` guard may have tested.

:mod:`.lost_guards` guards, in the functions the ranking suspects, the parameters nothing
there tests against None any more. Two facts of the project sort them:

* **its namesakes guard it**: another function of the same name in the project (an override
  of the same method, ``UUID._serialize`` beside ``Dict._serialize``) compares that parameter
  with None. The project says the value may be None there, so a guard lost here is as likely
  as one of a parameter whose default is None;
* **it is only passed on**: every read of the parameter stores it whole (``self.x = x``) or
  hands it to a function of the same file that compares the matching parameter with None
  (``self._normalize(validate)``). A None there is by design, handled where it goes, and a
  guard here would only hide it: such a parameter is not guarded.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import functions_in, parameters

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["compared_with_none", "guarded_by_namesakes", "passed_on"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: ``{name: the functions of that name that compare a parameter of theirs with None}``
_Guarding = dict[str, list[_Function]]


def compared_with_none(function: _Function) -> set[str]:
    """The expressions ``function`` compares with None (``x is None``, ``x != None``)."""
    return {
        ast.unparse(node.left)
        for node in ast.walk(function)
        if isinstance(node, ast.Compare)
        and any(isinstance(c, ast.Constant) and c.value is None for c in node.comparators)
    }


def guarded_by_namesakes(project: Project, path: str, function: _Function) -> set[str]:
    """The parameters of ``function`` that another function of its name in the project
    compares with None: by name, or in the same place (an override may rename it). Every
    class has its ``__init__``: a special method's namesakes say nothing."""
    if function.name.startswith("__"):
        return set()
    names = parameters(function) - {"self", "cls"}
    found: set[str] = set()
    for relpath, tree in project.parsed_naming(function.name, project.source_files):
        for other in functions_in(tree):
            if other.name != function.name or (relpath, other.lineno) == (path, function.lineno):
                continue
            guarded = compared_with_none(other)
            found |= names & parameters(other) & guarded
            found |= {mine for mine, theirs in _in_place(function, other) if theirs in guarded}
    return found


def _in_place(function: _Function, other: _Function) -> list[tuple[str, str]]:
    """``(parameter of function, parameter of other)`` in the same place, ``self``/``cls``
    not counted."""
    return list(zip(_positional(function), _positional(other), strict=False))


def _positional(function: _Function) -> list[str]:
    """The names of ``function``'s positional parameters, ``self``/``cls`` not counted."""
    named = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    return [name for name in named if name not in {"self", "cls"}]


def passed_on(tree: ast.Module, function: _Function) -> set[str]:
    """The parameters of ``function`` whose every read stores them whole in an attribute or
    hands them to a function of ``tree`` that compares the matching parameter with None."""
    walked = ast.walk(function)
    parents = {id(child): node for node in walked for child in ast.iter_child_nodes(node)}
    reads: dict[str, list[ast.Name]] = {name: [] for name in parameters(function)}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in reads:
            reads[node.id].append(node)
    guarding = _guarding_functions(tree)
    return {
        name
        for name, nodes in reads.items()
        if nodes and all(_handed_on(node, parents, guarding) for node in nodes)
    }


def _guarding_functions(tree: ast.Module) -> _Guarding:
    """``{name: functions of that name}`` for the functions of ``tree`` that compare a
    parameter of theirs with None."""
    found: _Guarding = {}
    for function in functions_in(tree):
        if parameters(function) & compared_with_none(function):
            found.setdefault(function.name, []).append(function)
    return found


def _handed_on(node: ast.Name, parents: dict[int, ast.AST], guarding: _Guarding) -> bool:
    """Whether this read stores the value whole in an attribute, or passes it to a function
    that compares the parameter it lands in with None."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Assign):
        return parent.value is node and all(isinstance(t, ast.Attribute) for t in parent.targets)
    if isinstance(parent, ast.keyword) and parent.arg is not None:
        call = parents.get(id(parent))
        landing: int | str = parent.arg
    elif isinstance(parent, ast.Call) and node in parent.args:
        call, landing = parent, parent.args.index(node)
    else:
        return False
    targets = guarding.get(_called_name(call), []) if isinstance(call, ast.Call) else []
    return any(_lands_guarded(f, landing) for f in targets)


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _lands_guarded(function: _Function, landing: int | str) -> bool:
    """Whether the argument given at ``landing`` (a position, ``self``/``cls`` not counted, or
    a keyword) lands in a parameter ``function`` compares with None."""
    if isinstance(landing, str):
        name: str | None = landing
    else:
        positional = _positional(function)
        name = positional[landing] if landing < len(positional) else None
    return name is not None and name in compared_with_none(function)
