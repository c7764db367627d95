"""``raise`` bodies for a lost ``if x is None:`` guard, read from what the code raises nearby.

A guard whose body raised leaves, once deleted, a None that fails further on as something
else (an ``AttributeError`` on it, a ``TypeError`` unpacking it), with no exception a test
waits for in the message. What the guard raised is read from the code around it:

* **the namesakes' None guards**: the ``raise`` of an ``if x is None:`` guard of a function of
  the same name elsewhere in the project (an override of the same method), as
  :mod:`.namesake_raises` reads them (jinja2's ``if self.node is None: raise Impossible()`` in
  another ``as_const``);
* **the exception the docstring names** (``:raises X:``, ``:exc:`X```, a ``Raises:``
  section): the function's, else, for an override without a docstring of its own, its
  namesakes'; raised as the file or the namesakes raise it, else made without arguments;
* **what the namesakes raise**, the most common first (``raise TemplateNotFound(template)``
  in each of jinja2's loaders' ``get_source``);
* **the file's other None guards that raise**, with the other value's name made this one's,
  in the message too (``'anchor is not specified'`` beside ``if tag is None:``).

Each is kept only when every name it reads is there where the guard goes: the function's
own names, those of the functions around it, the module's, the builtins. Which is right is
for the tests to say, as for every candidate.

Hand-written: no library reads guards or docstrings' exceptions from a syntax tree.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import bound_names, functions_in, is_none
from phasegate.autodebug.patterns.kindred_names import module_names
from phasegate.autodebug.patterns.namesake_raises import namesake_raises
from phasegate.autodebug.patterns.none_parameters import namesakes

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["documented_exceptions", "raise_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_BUILTINS = frozenset(dir(builtins))
#: Bodies at most of each source.
_MAX_BODIES = 2
#: ``:raises X:``, ``:raise X:`` and ``:exc:`X``` in a docstring.
_SPHINX = re.compile(r":raises?\s+([\w.]+)\s*:|:exc:`[~!.]*([\w.]+)`")
#: A ``Raises:`` (Google) or ``Raises`` (numpydoc) section's heading.
_SECTION = re.compile(r"^\s*Raises:?\s*$", re.MULTILINE)
#: An entry of such a section: the exception's name first.
_ENTRY = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?::|$)")
#: The name of the exception of a ``raise`` statement as written.
_RAISED = re.compile(r"raise ([\w.]+)")
_GUARDS = "as the function's namesakes raise on a None"
_DOCUMENTED = "the exception its docstring names"
_SIBLINGS = "as the function's namesakes raise"
_RENAMED = "as the file's other None guards raise"


def raise_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(raise ..., score, why)`` of the exceptions a lost guard of ``subject`` in
    ``function`` (of the file at ``path``) likely raised, best sources first."""
    source = project.editable_source(path)
    if source is None:
        return []
    found = _bodies(project, source.tree, path, function, subject)
    return _readable(found, _known(source.tree, function))


def _bodies(
    project: Project, tree: ast.Module, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """Every source's bodies, scored."""
    others = namesakes(project, path, function)
    return [
        *_scored(namesake_raises(project, path, function), 0.75, _GUARDS),
        *_scored(_documented(tree, function, others), 0.745, _DOCUMENTED),
        *_scored(_most_common(_raises_of(others)), 0.74, _SIBLINGS),
        *_scored(_renamed_guard_raises(tree, function, subject), 0.74, _RENAMED),
    ]


def _scored(bodies: list[str], score: float, why: str) -> list[tuple[str, float, str]]:
    return [(body, score, why) for body in bodies]


def _most_common(bodies: list[str | None]) -> list[str]:
    """The bodies written most often, at most :data:`_MAX_BODIES` (None left out)."""
    counted = Counter(bodies).most_common()
    return [body for body, _ in counted if body is not None][:_MAX_BODIES]


def _readable(found: list[tuple[str, float, str]], known: set[str]) -> list[tuple[str, float, str]]:
    """Those of ``found`` whose body reads no name but ``known``."""
    return [entry for entry in found if _reads_only(entry[0], known)]


def _known(tree: ast.Module, function: _Function) -> set[str]:
    """The names a body may read in ``function``: its own, those of the functions it is
    nested in, the module's and the builtins."""
    names = bound_names(function, nested=False) | module_names(tree) | _BUILTINS
    for outer in functions_in(tree):
        names |= bound_names(outer, nested=False) if _holds(outer, function) else set()
    return names


def _holds(outer: _Function, inner: _Function) -> bool:
    return outer is not inner and outer.lineno < inner.lineno <= _end(outer)


def _end(function: ast.stmt) -> int:
    return function.end_lineno or function.lineno


def _reads_only(body: str, known: set[str]) -> bool:
    """Whether the statement ``body`` reads no name but ``known``."""
    return {n.id for n in ast.walk(ast.parse(body)) if isinstance(n, ast.Name)} <= known


# -- the docstring's exceptions ----------------------------------------------------------------


def _documented(tree: ast.Module, function: _Function, others: list[_Function]) -> list[str]:
    """``raise`` of each exception the docstring names, as the file or the namesakes raise it
    (the most common way), else made without arguments."""
    docstring = ast.get_docstring(function) or _namesakes_docstring(others)
    raised = _raises_of([tree, *others])
    bodies = [_raised_as(name, raised) for name in documented_exceptions(docstring)]
    return bodies[:_MAX_BODIES]


def _namesakes_docstring(others: list[_Function]) -> str:
    """The docstrings of the namesakes (an override without one inherits its base's)."""
    return "\n".join(ast.get_docstring(other) or "" for other in others)


def documented_exceptions(docstring: str) -> list[str]:
    """The exceptions a docstring says are raised, each once, in the order named: Sphinx
    fields and roles, and the entries of a Google or numpydoc ``Raises`` section."""
    names = [*_sphinx_names(docstring), *_section_names(docstring)]
    return list(dict.fromkeys(name.rpartition(".")[2] for name in names))


def _sphinx_names(docstring: str) -> list[str]:
    return [field or role for field, role in _SPHINX.findall(docstring)]


def _section_names(docstring: str) -> list[str]:
    """The entries of each ``Raises`` section (the text after each heading)."""
    after = _SECTION.split(docstring)[1:]
    return [name for text in after for name in _section_entries(text.splitlines()[1:])]


def _section_entries(lines: list[str]) -> list[str]:
    """The exceptions of a ``Raises`` section's lines, up to its first blank line: those at
    the indent of the first entry (their descriptions go deeper; numpydoc's underline is
    not one)."""
    entries = _entry_lines(lines)
    return [found.group(1) for found in map(_ENTRY.match, _heads(entries)) if found]


def _heads(entries: list[str]) -> list[str]:
    """The lines at the indent of the first."""
    return [line for line in entries if _indent(line) == _indent(entries[0])]


def _entry_lines(lines: list[str]) -> list[str]:
    """The lines up to the first blank one, an underline (``------``) left out."""
    return [line for line in _until_blank(lines) if line.strip(" -")]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _until_blank(lines: list[str]) -> list[str]:
    blank = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    return lines[:blank]


def _raised_as(name: str, raised: list[str | None]) -> str:
    """The most common of the ``raise`` statements ``raised`` of the exception ``name``, else
    ``raise <name>()``."""
    alike = _most_common(_of_exception(raised, name))
    return alike[0] if alike else f"raise {name}()"


def _of_exception(raised: list[str | None], name: str) -> list[str | None]:
    return [body for body in raised if _exception_name(body) == name]


def _exception_name(body: str | None) -> str:
    """The last part of the name of the exception a ``raise`` statement raises."""
    found = _RAISED.match(body or "")
    return found.group(1).rpartition(".")[2] if found else ""


def _raises_of(scopes: Sequence[ast.AST]) -> list[str | None]:
    """Every ``raise`` of an exception in ``scopes`` (without its ``from``), as written."""
    return [body for scope in scopes for body in _raises_in(scope)]


def _raises_in(scope: ast.AST) -> list[str | None]:
    return [_without_cause(node) for node in ast.walk(scope) if isinstance(node, ast.Raise)]


def _without_cause(node: ast.Raise) -> str | None:
    """``raise <exc>`` of ``raise <exc> from <cause>``; None for a bare ``raise``."""
    return ast.unparse(ast.Raise(exc=node.exc, cause=None)) if node.exc is not None else None


# -- the file's other None guards ----------------------------------------------------------------


def _renamed_guard_raises(tree: ast.Module, function: _Function, subject: str) -> list[str]:
    """The ``raise`` of the file's ``if y is None: raise ...`` guards outside ``function`` that
    name ``y`` (in the message too), with ``y`` made ``subject``'s last name: the file says
    the same of each value it needs."""
    new = subject.rpartition(".")[2]
    guards = _raising_guards(tree)
    return _most_common(
        [_renamed(g.body[0], old, new) for g, old in guards if _outside(g, function)]
    )


def _outside(node: ast.stmt, function: _Function) -> bool:
    return not function.lineno <= node.lineno <= _end(function)


def _raising_guards(tree: ast.Module) -> list[tuple[ast.If, str]]:
    """``(guard, y)`` of each ``if y is None: raise ...`` (``y`` a name or an attribute)."""
    return [(node, name) for node in _ifs(tree) if (name := _raising_guard_of(node))]


def _ifs(tree: ast.Module) -> list[ast.If]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.If)]


def _raising_guard_of(node: ast.If) -> str:
    """``y`` of ``if y is None: raise ...`` or ``if <...>.y is None: raise ...``, else ""."""
    return _tested_name(node.test) if _one_raise(node) else ""


def _one_raise(node: ast.If) -> bool:
    """Whether the ``if``'s whole body is one ``raise``, without ``else``."""
    return not node.orelse and [type(s) for s in node.body] == [ast.Raise]


def _tested_name(test: ast.expr) -> str:
    """``y`` of ``y is None`` or ``<...>.y is None``, else ""."""
    left = _tested(test)
    return left.attr if isinstance(left, ast.Attribute) else getattr(left, "id", "")


def _tested(test: ast.expr) -> ast.expr | None:
    """``x`` of ``x is None``."""
    return test.left if isinstance(test, ast.Compare) and _is_none_test(test) else None


def _is_none_test(test: ast.Compare) -> bool:
    return len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) and is_none(test.comparators[0])


def _renamed(statement: ast.stmt, old: str, new: str) -> str | None:
    """``statement`` with the word ``old`` made ``new`` wherever it is written, if it was."""
    text = ast.unparse(statement)
    renamed = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return renamed if renamed != text else None
