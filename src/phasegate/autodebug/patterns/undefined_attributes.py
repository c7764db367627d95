"""An attribute name defined nowhere, read in a function the failing tests ran.

A misspelt ``param.VAR_OSITIONAL`` raises an ``AttributeError``; when something catches it (a
``try`` whose handler catches ``AttributeError`` or ``Exception``, or the standard library:
``inspect.signature`` reads ``__signature__`` and falls back when it raises), or when the
object's ``__getattr__`` gives a default for any name (``item.helpp`` is None), the tests see
only a wrong value, and the failure is an assertion that is localized (:mod:`..localize`).
Which class ``param`` is cannot be told from the source, so this module asks instead whether
the name could come from anywhere: a name read in a suspect function that no other place of
the project's Python files spells (code, strings or comments, tests included), that no
built-in type or named tuple has, and that no standard-library module the file imports has
(nor a class or submodule of one) is respelt as the closest name that is defined: for
``self.<name>`` in a class whose names can be known
(:func:`.unknown_attributes.class_names_of`), one of those; else one the project spells or the
imported modules have. Every suspect is read, not only the first few, as a name defined
nowhere is rare (10 of the 17,000 reads in the function bodies of the eleven real projects of
the benchmark have a close respelling, none in five of them, most in code for other platforms
or Python versions). A candidate scores the geometric mean of how close the respelling is and
the suspect's score: it needs both, so a one-letter respelling in a function the failing tests
hardly single out (Ochiai 0.1) scores about 0.3, below a lost guard in the top suspect, while
seed 9's ``.VAR_OSITIONAL``, read in a function the passing tests run too (Ochiai 0.58),
scores 0.73. Nothing here looks for the ``try`` or ``__getattr__`` that hid the error: the
name defined nowhere is the evidence. The tests decide, as for every candidate.
"""

from __future__ import annotations

import ast
import builtins
import math
import re
import types
from collections import Counter, namedtuple
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.distance import Match, closest
from phasegate.autodebug.patterns.base import closeness
from phasegate.autodebug.patterns.functions import defined_at
from phasegate.autodebug.patterns.unknown_attributes import class_names_of
from phasegate.autodebug.source import node_span, replace_span, split_lines
from phasegate.autodebug.stdlib import attribute_names

if TYPE_CHECKING:
    from phasegate.autodebug.project import EditableSource, Project
    from phasegate.model.autodebug import SuspiciousFunction

__all__ = ["undefined_attribute_candidates"]

_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def undefined_attribute_candidates(
    project: Project, suspicious: Sequence[SuspiciousFunction]
) -> list[Candidate]:
    """Each attribute name the suspects read that is defined nowhere, respelt as the closest
    name that is."""
    spelt = _project_identifiers(project)
    by_file: dict[str, list[SuspiciousFunction]] = {}
    for suspect in suspicious:
        by_file.setdefault(suspect.path, []).append(suspect)
    candidates: list[Candidate] = []
    for path, suspects in by_file.items():
        source = project.editable_source(path)
        if source is not None:
            candidates += _respelt(suspects, source, spelt)
    return sorted(candidates, key=lambda c: -c.score)


def _project_identifiers(project: Project) -> Counter[str]:
    """How often each identifier is spelt in the project's Python files, tests included."""
    counts: Counter[str] = Counter()
    for relpath in project.python_files:
        counts.update(project.parsed_once(relpath, project.read(relpath) or "", _identifiers))
    return counts


def _identifiers(text: str) -> Counter[str]:
    return Counter(_IDENTIFIER.findall(text))


def _respelt(
    suspects: list[SuspiciousFunction], source: EditableSource, spelt: Counter[str]
) -> list[Candidate]:
    """Each attribute name the suspects of one file read that is defined nowhere, respelt."""
    imported = _imported_attributes(source.tree)
    defined, typed = {*spelt, *imported}, imported | _builtin_attributes()
    lines = split_lines(source.text)
    candidates = []
    for suspect, function, node in _attribute_reads(suspects, source.tree):
        if spelt[node.attr] > 1 or node.attr in typed:
            continue  # spelt elsewhere too, or an attribute of a built-in or imported type
        match = _closest_defined(node, function, source.tree, defined)
        span = node_span(node, lines)
        if match is not None and span is not None:
            candidates.append(_respelling(suspect, source.text, span, node.attr, match))
    return candidates


def _closest_defined(
    node: ast.Attribute, function: _Function, tree: ast.Module, defined: set[str]
) -> Match | None:
    """The defined name closest to the one ``node`` reads: of the method's class for an
    attribute of ``self`` when the class's names can be known, else of ``defined``."""
    names = class_names_of(function, tree) if _on_self(node, function) else set()
    return next(iter(closest(node.attr, names or defined)), None)


def _attribute_reads(
    suspects: list[SuspiciousFunction], tree: ast.Module
) -> Iterator[tuple[SuspiciousFunction, _Function, ast.Attribute]]:
    """Each attribute read in the body of each suspect function (not in its annotations,
    defaults or decorators, which its calls do not run), with the suspect and its function."""
    for suspect in suspects:
        function = defined_at(tree, suspect.line)
        if function is None:
            continue
        for node in ast.walk(ast.Module(body=function.body, type_ignores=[])):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                yield suspect, function, node


def _on_self(node: ast.Attribute, function: _Function) -> bool:
    """Whether ``node`` reads an attribute of the method's first parameter."""
    params = function.args.posonlyargs + function.args.args
    return bool(params) and isinstance(node.value, ast.Name) and node.value.id == params[0].arg


def _imported_attributes(tree: ast.Module) -> set[str]:
    """The attribute names of the standard-library modules the file imports."""
    return {name for module in _imported_modules(tree) for name in attribute_names(module)}


def _imported_modules(tree: ast.Module) -> Iterator[str]:
    """The modules the file's imports name (absolute ones: a relative one is the project's)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


@cache
def _builtin_attributes() -> frozenset[str]:
    """The attribute names of the built-in types (``str.startswith``, ``type.__mro__``) and
    of every named tuple (``_replace``, ``_fields``: its class is made at run time)."""
    kinds = [*vars(builtins).values(), *vars(types).values(), namedtuple("Any", "")]
    return frozenset(name for kind in kinds if isinstance(kind, type) for name in dir(kind))


def _respelling(
    suspect: SuspiciousFunction,
    text: str,
    span: tuple[int, int, int, int],
    name: str,
    match: Match,
) -> Candidate:
    """The attribute name that ends at ``span`` spelt as ``match``."""
    where = (span[2], span[3] - len(name), span[2], span[3])
    return Candidate(
        "typo",
        f"replace the attribute `.{name}` (nothing defines it) with `.{match.name}` at "
        f"{suspect.path}:{span[2]}",
        [FileEdit(suspect.path, replace_span(text, where, match.name))],
        round(math.sqrt(closeness(match.distance, name) * suspect.score), 4),
    )
