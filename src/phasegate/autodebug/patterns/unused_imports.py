"""What a lost guard's body called: a name its module imports and reads nowhere any more.

Code deleted with a guard (``if value_proc is None: value_proc = convert_type(type,
default)``) often leaves behind the import it needed, read nowhere else: the one trace of what
the body did. The call is written as the project's other calls of that function write it,
when every argument they pass is a name that is a parameter of the function the guard goes
into, other than the value guarded (``types.convert_type(type, default)`` in another module
gives ``value_proc = convert_type(type, default)`` in ``prompt(text, default, ..., type,
value_proc)``); a class (named with a capital) the project never calls so is made anew with
no arguments (``stream = StringIO()``). A name the module lists as a string (in ``__all__``)
is exported, not unused.
Read from the syntax: a linter's "imported but unused" is this, without the linter's process.
At most two bodies, the calls the project makes most often: a module importing many names it
does not read (a package's ``__init__`` that re-exports without ``__all__``) must leave room
among a guard's bodies for ``return None`` and the others; each file is parsed once for all
such names.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import parameters
from phasegate.autodebug.source import parse

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["unused_import_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_BODIES = 2


def unused_import_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(<subject> = <name>(<arguments>), score, why)`` for the names the module imports
    and no longer reads, with the arguments the project's other calls of them pass (the two
    most common calls of them all), when ``function`` binds them all as parameters."""
    source = project.editable_source(path)
    if source is None or "." in subject:
        return []
    known = parameters(function) - {subject}
    why = "calling what its module imports and no longer uses, as the project calls it"
    unused = _unused_imports(source.tree)
    calls = _calls_of(project, set(unused), known)
    found = [
        (f"{subject} = {name}({arguments})", 0.79, why)
        for (name, arguments), _ in calls.most_common(_MAX_BODIES)
    ]
    return found + _new_instances(unused, {name for name, _ in calls}, subject)


def _new_instances(
    unused: list[str], called: set[str], subject: str
) -> list[tuple[str, float, str]]:
    """``<subject> = <Class>()`` for a class (by its capital) the module imports and no longer
    reads, that the project never calls with arguments it could pass: the deleted guard made
    one (``stream = StringIO()``)."""
    why = "a new instance of the class its module imports and no longer uses"
    classes = [name for name in unused if name[:1].isupper() and name not in called]
    return [(f"{subject} = {name}()", 0.715, why) for name in classes[:_MAX_BODIES]]


def _unused_imports(module: ast.Module) -> list[str]:
    """The names the module's own ``from`` imports bind that nothing in it reads or lists."""
    mentioned = {_mention(node) for node in ast.walk(module)}
    return [name for name in _from_imported(module) if name not in mentioned]


def _from_imported(module: ast.Module) -> list[str]:
    """The names the module's top-level ``from`` imports bind: not ``__future__``'s, nor a
    star's, nor those imported ``as`` themselves (``from .core import Argument as Argument``
    says: exported)."""
    own = [s for s in module.body if isinstance(s, ast.ImportFrom) and s.module != "__future__"]
    return [a.asname or a.name for s in own for a in s.names if a.name not in ("*", a.asname)]


def _mention(node: ast.AST) -> str | None:
    """The name a name node reads or binds, or the text of a string."""
    if isinstance(node, ast.Name):
        return node.id
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _calls_of(project: Project, names: set[str], known: set[str]) -> Counter[tuple[str, str]]:
    """``(name, arguments)`` of the project's calls of ``names`` that pass argument lists of
    ``known`` names only (positional, or keywords of the same names)."""
    found: Counter[tuple[str, str]] = Counter()
    for tree in _trees_naming(project, names):
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        pairs = [(_callee(call) or "", _arguments(call, known)) for call in calls]
        found.update((name, arguments) for name, arguments in pairs if name in names and arguments)
    return found


def _trees_naming(project: Project, names: set[str]) -> Iterator[ast.Module]:
    """Each project file whose text holds one of ``names``, parsed once (a file that does not
    parse is left out)."""
    for relpath in project.source_files if names else ():
        text = project.read(relpath)
        tree = parse(text) if text is not None and any(n in text for n in names) else None
        if tree is not None:
            yield tree


def _callee(call: ast.Call) -> str | None:
    """``f`` of ``f(...)`` or of ``module.f(...)``."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _arguments(call: ast.Call, known: set[str]) -> str:
    """The call's arguments as written, or "" unless each passes one of ``known``."""
    values = [*call.args, *(k.value for k in call.keywords)]
    named = [getattr(v, "id", None) in known for v in values]
    if not named or not all(named):
        return ""
    return ast.unparse(call)[len(ast.unparse(call.func)) + 1 : -1]
