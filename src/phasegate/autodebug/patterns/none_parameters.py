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
import functools
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import functions_in, is_none, parameters, parents_of
from phasegate.autodebug.source import parse

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = [
    "FunctionIndex",
    "compared_with_none",
    "function_index",
    "functions_by_name",
    "guarded_by_namesakes",
    "namesakes",
    "namesakes_in",
    "passed_on",
]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: ``{name: the functions of that name that compare a parameter of theirs with None}``
_Guarding = dict[str, list[_Function]]
#: ``{name: (file, function) of each function of that name in the project}``
FunctionIndex = dict[str, list[tuple[str, _Function]]]


def compared_with_none(function: _Function) -> set[str]:
    """The expressions ``function`` compares with None (``x is None``, ``x != None``)."""
    return {
        ast.unparse(node.left)
        for node in ast.walk(function)
        if isinstance(node, ast.Compare) and any(is_none(c) for c in node.comparators)
    }


def guarded_by_namesakes(index: FunctionIndex, path: str, function: _Function) -> set[str]:
    """The parameters of ``function`` that another function of its name in the project (its
    ``index``) compares with None: by name, or in the same place (an override may rename it).
    Every class has its ``__init__``: a special method's namesakes say nothing."""
    names = parameters(function) - {"self", "cls"}
    found: set[str] = set()
    for other in namesakes_in(index, path, function):
        guarded = compared_with_none(other)
        found |= names & parameters(other) & guarded
        found |= {mine for mine, theirs in _in_place(function, other) if theirs in guarded}
    return found


def function_index(project: Project) -> FunctionIndex:
    """Every function of the project's source files by name, read now: each file read once
    and parsed once per text (kept in the ``Project`` until the file changes), so that the
    namesakes of many suspects cost one pass over the project, not one pass each."""
    index: FunctionIndex = {}
    for relpath in project.source_files:
        text = project.read(relpath)
        found = project.parsed_once(relpath, text, functions_by_name) if text is not None else {}
        for name, functions in found.items():
            index.setdefault(name, []).extend((relpath, function) for function in functions)
    return index


def namesakes(project: Project, path: str, function: _Function) -> list[_Function]:
    """The other functions of the project named as ``function`` is, unless it is special."""
    return namesakes_in(function_index(project), path, function)


def namesakes_in(index: FunctionIndex, path: str, function: _Function) -> list[_Function]:
    """The other functions of ``index`` named as ``function`` (at ``path``) is, unless it is
    special."""
    if function.name.startswith("__"):
        return []
    return [
        other
        for relpath, other in index.get(function.name, ())
        if (relpath, other.lineno) != (path, function.lineno)
    ]


def functions_by_name(text: str) -> dict[str, list[_Function]]:
    """``{name: the functions of that name}`` of a file's text (empty if it does not parse)."""
    tree = parse(text)
    found: dict[str, list[_Function]] = {}
    for function in functions_in(tree) if tree is not None else ():
        found.setdefault(function.name, []).append(function)
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
    parents = parents_of(function)
    guarding = _guarding_functions(tree)
    reads = _parameter_reads(function)
    handed_on = {name for name, nodes in reads.items() if nodes}
    return {n for n in handed_on if all(_handed_on(r, parents, guarding) for r in reads[n])}


def _parameter_reads(function: _Function) -> dict[str, list[ast.Name]]:
    """``{parameter: each read of it}``."""
    reads: dict[str, list[ast.Name]] = {name: [] for name in parameters(function)}
    names = [node for node in ast.walk(function) if isinstance(node, ast.Name)]
    for node in names:
        if isinstance(node.ctx, ast.Load) and node.id in reads:
            reads[node.id].append(node)
    return reads


@functools.lru_cache(maxsize=8)
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
    call, landing = _landing(node, parent, parents)
    targets = guarding.get(called_name(call), []) if call is not None else []
    return any(_lands_guarded(f, landing) for f in targets)


def _landing(
    node: ast.Name, parent: ast.AST | None, parents: dict[int, ast.AST]
) -> tuple[ast.Call | None, int | str]:
    """The call ``node`` is given to and where: its keyword, or its position."""
    if isinstance(parent, ast.keyword) and parent.arg is not None:
        call = parents.get(id(parent))
        return (call if isinstance(call, ast.Call) else None), parent.arg
    if isinstance(parent, ast.Call) and node in parent.args:
        return parent, parent.args.index(node)
    return None, 0


def _lands_guarded(function: _Function, landing: int | str) -> bool:
    """Whether the argument given at ``landing`` (a position, ``self``/``cls`` not counted, or
    a keyword) lands in a parameter ``function`` compares with None."""
    if isinstance(landing, str):
        name: str | None = landing
    else:
        positional = _positional(function)
        name = positional[landing] if landing < len(positional) else None
    return name is not None and name in compared_with_none(function)
