"""``AttributeError`` on an object that is not None: a misspelt attribute or method.

The live exception carries the object and the name (``exc.obj``, ``exc.name``; CPython sets
them on what a ``__getattr__`` raises too, and the access is then looked for in the frames out
from it), so the attributes it really has are listed with ``dir()`` and where each comes from:
the instance's own ``__dict__``, a class in its MRO (with the method's file and line), or a
module.
Candidates: spell the access like the attribute that exists, or rename a misspelt definition
(``def totl`` when callers ask for ``total``), the only choice when the access is in a test.
An ``AttributeError`` on None belongs to :mod:`~phasegate.autodebug.patterns.nones`.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.live import instance_dict, project_path
from phasegate.autodebug.patterns.base import (
    CulpritFacts,
    closeness,
    culprit_sentence,
    definition_is_misspelt,
    diagnose,
    short,
    test_is_culprit,
)
from phasegate.autodebug.source import count_names, rename_names, replace_span, segment

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = ["AttributeFacts", "AttributeMatch", "AttributePattern", "attribute_facts"]

_MISSING = object()


class AttributeMatch(TypedDict):
    """An attribute the object has, close to the one asked for: how close, where it comes
    from (``instance``, ``class`` or ``module``) and the project file that defines it."""

    name: str
    distance: float
    origin: str
    defined_in: str | None


class _AttributeFactsFound(TypedDict, total=False):
    test_culprit: CulpritFacts  # set by a repair that leaves the code alone


class AttributeFacts(_AttributeFactsFound):
    """The attribute asked for, what kind of object (``object``) of which type lacks it, and
    the attributes it has that are close."""

    name: str
    object: str
    type: str
    matches: list[AttributeMatch]


def attribute_facts(diagnosis: Diagnosis) -> AttributeFacts:
    """The facts of a diagnosis of the attribute pattern."""
    return cast("AttributeFacts", diagnosis.facts)


class AttributePattern:
    """An attribute the object does not have."""

    name = "attribute"
    error_class = "attribute"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        exc = failure.exc
        if not isinstance(exc, AttributeError):
            return None
        name = getattr(exc, "name", None)
        obj = getattr(exc, "obj", _MISSING)
        if not isinstance(name, str) or obj is _MISSING or obj is None:
            return None
        frame, node, prefix = _access(failure, name)
        facts = _attribute_facts(obj, name, prefix, failure)
        return diagnose(self, failure, frame, kind="typo", facts=facts, node=node)

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        name = attribute_facts(diagnosis)["name"]
        candidates: list[Candidate] = []
        use_text = project.read_editable(diagnosis.path)
        span = _attr_span(use_text, diagnosis, name) if use_text is not None else None
        use = (use_text, span) if use_text is not None and span is not None else None
        for match in attribute_facts(diagnosis)["matches"]:
            score = 0.95 * closeness(match["distance"], name)
            candidates += _respelt_use(diagnosis, use, match, score)
            candidates += _renamed_definition(diagnosis, project, use_text, span, match, score)
        return sorted(candidates, key=lambda c: -c.score)

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        facts = attribute_facts(diagnosis)
        what = (
            f"module `{facts.get('type')}`"
            if facts.get("object") == "module"
            else f"`{facts.get('type')}` {facts.get('object')}"
        )
        head = f"{short(diagnosis.exc_type)}: {what} has no attribute `{facts.get('name')}`"
        culprit = facts.get("test_culprit")
        if candidate is None and culprit:
            return f"{head}; {culprit_sentence(culprit, 'attribute')}"
        if candidate is None:
            return f"{head}, and none of its attributes is close to that name"
        other, origin = candidate.detail["replacement"], str(candidate.detail["origin"])
        described = {
            "instance": f"an attribute set on `{facts.get('type')}` objects",
            "class": f"defined by class `{facts.get('type')}`",
            "module": f"defined in module `{facts.get('type')}`",
        }.get(origin, origin)
        if candidate.kind == "rename-definition":
            return f"{head}; `{other}` ({described}) looks like its misspelt definition: rename it"
        return f"{head}; did you mean `{other}` ({described})?"


def _access(failure: LiveFailure, name: str) -> tuple[LiveFrame | None, ast.Attribute | None, str]:
    """The frame that asked for ``name``, the attribute as written there and its mangling
    prefix: the innermost frame, or, when it does not write the attribute (a ``__getattr__``
    raised the error), the nearest project frame out from it that does."""
    innermost = failure.innermost
    outer = [f for f in reversed(failure.frames[:-1]) if f.path is not None]
    for frame in [innermost, *outer] if innermost is not None else []:
        node, prefix = _as_written(failure.node_at(frame, (ast.Attribute,)), name)
        if node is not None:
            return frame, node, prefix
    return innermost, None, ""


def _as_written(node: ast.AST | None, name: str) -> tuple[ast.Attribute | None, str]:
    """The attribute at the failing span if it is the one that failed, and the prefix name
    mangling added to it (``self.__x`` in class ``C`` is ``_C__x``)."""
    if not isinstance(node, ast.Attribute):
        return None, ""
    if node.attr == name:
        return node, ""
    if _mangles(node.attr, name):
        return node, name[: len(name) - len(node.attr)]
    return None, ""


def _attribute_facts(obj: object, name: str, prefix: str, failure: LiveFailure) -> AttributeFacts:
    kind_of = (
        "module" if inspect.ismodule(obj) else "class" if isinstance(obj, type) else "instance"
    )
    owner = obj if kind_of != "instance" else type(obj)
    matches = _unmangled(_matches(obj, name, kind_of, failure), prefix)
    return {
        "name": name[len(prefix) :],
        "object": kind_of,
        "type": getattr(owner, "__name__", type(owner).__name__),
        "matches": matches,
    }


def _unmangled(matches: list[AttributeMatch], prefix: str) -> list[AttributeMatch]:
    """With a mangling ``prefix`` (``_C``), the private matches as the code writes them
    (``_C__x`` as ``__x``); the others cannot be what a private name was meant to be."""
    if not prefix:
        return matches
    return [
        {**m, "name": m["name"][len(prefix) :]}
        for m in matches
        if m["name"].startswith(f"{prefix}__")
    ]


def _respelt_use(
    diagnosis: Diagnosis,
    use: tuple[str, tuple[int, int, int, int]] | None,
    match: AttributeMatch,
    score: float,
) -> list[Candidate]:
    """The access spelt as the attribute that exists."""
    if use is None or diagnosis.path is None:
        return []
    use_text, span = use
    name, other = attribute_facts(diagnosis)["name"], match["name"]
    return [
        Candidate(
            "typo",
            f"replace `.{name}` with `.{other}` at {diagnosis.path}:{span[0]}",
            [FileEdit(diagnosis.path, replace_span(use_text, span, other))],
            score,
            {"name": name, "replacement": other, "origin": match["origin"]},
        )
    ]


def _renamed_definition(
    diagnosis: Diagnosis,
    project: Project,
    use_text: str | None,
    span: tuple[int, int, int, int] | None,
    match: AttributeMatch,
    score: float,
) -> list[Candidate]:
    """The definition of the close attribute renamed as asked, unless a test is the culprit."""
    facts = attribute_facts(diagnosis)
    name, other, defined_in = facts["name"], match["name"], match.get("defined_in")
    text = project.read_editable(defined_in)
    if defined_in is None or text is None:
        return []
    role: Literal["name", "attribute"] = "name" if facts["object"] == "module" else "attribute"
    renamed = rename_names(text, other, name, role=role)
    if renamed is None or (
        span is None and _contract_holds(diagnosis, project, defined_in, text, other)
    ):
        return []
    # The access is in a test (or the tests and the code's usage say so): the
    # definition is the typo.
    elsewhere = use_text if defined_in != diagnosis.path else None
    prefer = span is None or _definition_misspelt(project, (name, other), text, elsewhere, role)
    return [
        Candidate(
            "rename-definition",
            f"rename `{other}` to `{name}` in {defined_in}",
            [FileEdit(defined_in, renamed)],
            score * (1.02 if prefer else 0.8),
            {"name": name, "replacement": other, "origin": match["origin"]},
        )
    ]


def _definition_misspelt(
    project: Project,
    names: tuple[str, str],
    definition_text: str,
    access_text: str | None,
    role: Literal["name", "attribute"],
) -> bool:
    """Whether the definition of ``other`` is likelier the typo than the uses of ``name``
    (``names``), counted in the defining file and in the failing access's, if it is another."""
    name, other = names
    asked = count_names(definition_text, name, role=role)
    if access_text is not None:
        asked += count_names(access_text, name, role=role)
    definitions = count_names(definition_text, other, role=role)
    return definition_is_misspelt(project, name, other, asked_uses=asked, definitions=definitions)


def _contract_holds(
    diagnosis: Diagnosis, project: Project, path: str, text: str, defined: str
) -> bool:
    """Whether a public attribute asked for otherwise by a test keeps its name (contract first):
    the code, the other tests or the docs use its spelling more than the test's."""
    asked = attribute_facts(diagnosis)["name"]
    if defined.startswith("_"):
        return False
    lines = [
        number + 1
        for number, line in enumerate(text.splitlines())
        if re.match(rf"\s*(async\s+)?(def|class)\s+{re.escape(defined)}\b", line)
        or re.match(rf"\s*(self\.)?{re.escape(defined)}\s*(:[^=]*)?=", line)
    ]
    if len(lines) != 1:
        return False
    if not test_is_culprit(project, asked, defined, definition=(path, lines[0], lines[0])):
        return False
    attribute_facts(diagnosis)["test_culprit"] = {"asked": asked, "defined": defined}
    return True


def _mangles(written: str, name: str) -> bool:
    """Whether ``name`` is the private ``written`` (``__x``) as Python mangles it (``_C__x``)."""
    return (
        written.startswith("__")
        and not written.endswith("__")
        and name.endswith(written)
        and name.startswith("_")
        and not name.startswith("__")
    )


def _matches(obj: object, name: str, kind_of: str, failure: LiveFailure) -> list[AttributeMatch]:
    try:
        names = [n for n in dir(obj) if not n.startswith("__")]
    except Exception:  # noqa: BLE001 - a broken __dir__ means there is nothing to suggest
        return []
    own = instance_dict(obj) if kind_of == "instance" else {}
    found: list[AttributeMatch] = []
    for match in closest(name, names)[:6]:
        origin, filename = _origin(obj, match.name, kind_of, own)
        found.append(
            {
                "name": match.name,
                "distance": match.distance,
                "origin": origin,
                "defined_in": project_path(filename, failure.root) if filename else None,
            }
        )
    return found


def _origin(obj: object, name: str, kind_of: str, own: dict[str, object]) -> tuple[str, str | None]:
    """Where ``name`` comes from, and the file that defines it."""
    if kind_of == "module":
        return "module", getattr(obj, "__file__", None)
    cls = obj if isinstance(obj, type) else type(obj)
    if name in own:
        return "instance", _source_file(cls)
    return "class", _class_attribute_file(cls, name)


def _class_attribute_file(cls: type, name: str) -> str | None:
    """The file of the first class in ``cls``'s MRO that defines ``name``: the file of its
    function's code (a method, a property's getter), else of the class (of ``cls`` when
    none defines it)."""
    klass = next((k for k in cls.__mro__ if name in vars(k)), None)
    if klass is None:
        return _source_file(cls)
    value = vars(klass)[name]
    function = getattr(value, "__func__", getattr(value, "fget", value))
    code = getattr(function, "__code__", None)
    return code.co_filename if code is not None else _source_file(klass)


def _source_file(cls: type) -> str | None:
    try:
        return inspect.getsourcefile(cls)
    except (TypeError, OSError):
        return None


def _attr_span(text: str, diagnosis: Diagnosis, name: str) -> tuple[int, int, int, int] | None:
    """The span of the attribute's name inside the access ``value.name``."""
    span = diagnosis.span()
    if span is None:
        return None
    _line, _col, end_line, end_col = span
    candidate = (end_line, end_col - len(name), end_line, end_col)
    if candidate[1] >= 0 and segment(text, candidate) == name:
        return candidate
    return None
