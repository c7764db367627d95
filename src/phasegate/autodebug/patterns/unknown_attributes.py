"""An attribute of ``self`` that nothing in its class defines, read in a suspicious function.

A misspelt ``self.fucns`` raises an ``AttributeError``; when the code catches it (``try: ...
except AttributeError: return fallback``, a ``__name__`` property that falls back to the
class's name), the tests see only a wrong value, and the failure is an assertion that is
localized (:mod:`..localize`). This module reads the most suspicious methods for such reads:
``self.<name>`` where no class of the module that the class is or derives from defines
``<name>`` (a method, a class attribute, a ``__slots__`` entry, or ``self.<name> = ...`` in
any of its methods), and proposes the closest name it does define. A class with a base from
elsewhere (other than ``object``) or a ``__getattr__`` is not judged: it may define any name.
The tests decide, as for every candidate.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.patterns.base import closeness
from phasegate.autodebug.patterns.functions import defined_at
from phasegate.autodebug.source import (
    Span,
    node_span,
    replace_span,
    split_lines,
    top_level_names,
)

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project
    from phasegate.model.autodebug import SuspiciousFunction

__all__ = ["class_names_of", "unknown_attribute_candidates"]

#: The suspects looked into, best first.
_FUNCTIONS = 3
#: Methods with which a class may have any attribute.
_DYNAMIC = frozenset({"__getattr__", "__getattribute__"})


def unknown_attribute_candidates(
    project: Project, suspicious: Sequence[SuspiciousFunction]
) -> list[Candidate]:
    """Each unknown ``self.<name>`` of the top suspects respelt as the closest known name."""
    candidates: list[Candidate] = []
    for suspect in [s for s in suspicious if project.editable(s.path)][:_FUNCTIONS]:
        source = project.editable_source(suspect.path)
        if source is not None:
            candidates += _respelt(suspect, source.text, source.tree)
    return sorted(candidates, key=lambda c: -c.score)


def _respelt(suspect: SuspiciousFunction, text: str, tree: ast.Module) -> list[Candidate]:
    """Each ``self.<name>`` the suspect method reads that its class does not define, respelt."""
    method = defined_at(tree, suspect.line)
    if method is None:
        return []
    known = class_names_of(method, tree)  # empty: nothing is close to a name in it
    lines = split_lines(text)
    return [
        candidate
        for node, name in _self_reads(method)
        if name not in known
        for candidate in _respelling(suspect, text, node_span(node, lines), name, known)
    ]


def _respelling(
    suspect: SuspiciousFunction, text: str, span: Span | None, name: str, known: set[str]
) -> list[Candidate]:
    """``self.<name>`` at ``span`` spelt as the closest known name, if one is close."""
    match = next(iter(closest(name, sorted(known))), None)
    if span is None or match is None:
        return []
    where = (span[2], span[3] - len(name), span[2], span[3])
    return [
        Candidate(
            "typo",
            f"replace `self.{name}` (nothing in its class defines it) with "
            f"`self.{match.name}` at {suspect.path}:{span[2]}",
            [FileEdit(suspect.path, replace_span(text, where, match.name))],
            round(suspect.score * closeness(match.distance, name), 4),
        )
    ]


def _self_reads(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
) -> Iterator[tuple[ast.Attribute, str]]:
    """``self.<name>`` read in the method, by the name of its first parameter (a static
    method has no ``self``)."""
    params = method.args.posonlyargs + method.args.args
    if not params or _is_static(method):
        return
    self_name = params[0].arg
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id == self_name
        ):
            yield node, node.attr


def _is_static(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``@staticmethod`` decorates the method."""
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)


def class_names_of(method: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module) -> set[str]:
    """Every name the class whose body defines ``method`` knows; empty for a function that is
    no method, and where the names cannot be known."""
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    owner = next((c for c in classes.values() if method in c.body), None)
    return _known(owner, classes) if owner is not None else set()


def _known(owner: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> set[str]:
    """Every name the class and its bases define; empty when that cannot be known (a base
    that is not a class of the module or ``object``, a ``__getattr__``)."""
    known = _defined_by(owner)
    if known & _DYNAMIC:
        return set()
    known |= set(dir(object))
    for base in owner.bases:
        name = getattr(base, "id", None)
        inherited = _known(classes.pop(name), classes) if name in classes else set()
        if name != "object" and not inherited:
            return set()
        known |= inherited
    return known


def _defined_by(owner: ast.ClassDef) -> set[str]:
    """The names the class body defines (``__slots__`` entries too) and its methods set on
    ``self``."""
    names = top_level_names(owner.body)
    stored = (n for n in ast.walk(owner) if isinstance(n, ast.Attribute))
    names |= {n.attr for n in stored if isinstance(n.ctx, (ast.Store, ast.Del))}
    return names | _slots(owner)


def _slots(owner: ast.ClassDef) -> set[str]:
    """The names the class's ``__slots__`` lists."""
    assignments = [s for s in owner.body if isinstance(s, (ast.Assign, ast.AnnAssign))]
    listed = next((s.value for s in assignments if "__slots__" in top_level_names([s])), None)
    nodes = ast.walk(listed) if listed is not None else ()
    return {c.value for c in nodes if isinstance(c, ast.Constant) and isinstance(c.value, str)}
