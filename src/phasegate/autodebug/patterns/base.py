"""What a pattern is, and the helpers the built-in patterns share.

A pattern has three jobs, done in two processes:

* :meth:`Pattern.classify`, where the test ran: recognise the live failure and keep the facts
  a repair needs as plain data in a :class:`~phasegate.autodebug.diagnosis.Diagnosis`;
* :meth:`Pattern.propose`, where artifacts are written: turn the diagnosis and the files as
  they are now into ranked :class:`~phasegate.autodebug.diagnosis.Candidate` repairs;
* :meth:`Pattern.explain`: one line a person reads, for the repair kept (or the best one).

Third-party packages add patterns through the ``phasegate_autodebug_patterns`` hook
(:mod:`phasegate.hookspecs`); theirs are asked before the built-in ones.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, TypedDict, runtime_checkable

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.source import node_span
from phasegate.failures import exception_type_name

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = [
    "CulpritFacts",
    "Pattern",
    "best_per_edit",
    "closeness",
    "culprit_sentence",
    "definition_is_misspelt",
    "diagnose",
    "lines_apart",
    "short",
    "test_is_culprit",
]


@runtime_checkable
class Pattern(Protocol):
    """A family of failures auto-debug recognises, and how it repairs them."""

    #: Unique among the patterns in use, e.g. ``"name"`` or ``"my_package.flaky_sleep"``.
    name: str
    #: The class in the report: one of ``ERROR_CLASSES`` or a third party's own.
    error_class: str

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        """The diagnosis of ``failure`` if this pattern recognises it, else None."""
        ...

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        """Candidate repairs for ``diagnosis`` against the project's current files."""
        ...

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        """One line on what went wrong, naming ``candidate``'s repair if there is one."""
        ...


class CulpritFacts(TypedDict):
    """A name the test asks for (``asked``) that the project spells otherwise (``defined``)."""

    asked: str
    defined: str


def short(exc_type: str) -> str:
    """``NameError`` for ``builtins.NameError`` and ``pkg.errors.Oops`` alike stays readable."""
    return exc_type.rpartition(".")[2]


def best_per_edit(candidates: list[Candidate]) -> list[Candidate]:
    """The best-scored candidate of each new text, the best first (of equal scores, the
    first given)."""
    unique: dict[str, Candidate] = {}
    for candidate in sorted(candidates, key=lambda c: -c.score):
        unique.setdefault(candidate.edits[0].text, candidate)
    return list(unique.values())


def closeness(distance: float, name: str) -> float:
    """1 for an exact match, falling towards 0 as the distance nears the name's length."""
    return max(0.0, 1.0 - distance / (len(name) + 1))


def lines_apart(definition_line: int, use_line: int) -> str:
    """``3 lines above``, ``1 line below``, ``on the same line``."""
    delta = use_line - definition_line
    if delta == 0:
        return "on the same line"
    count = abs(delta)
    return f"{count} line{'s' if count != 1 else ''} {'above' if delta > 0 else 'below'}"


def diagnose(
    pattern: Pattern,
    failure: LiveFailure,
    frame: LiveFrame | None,
    *,
    kind: str,
    facts: Mapping[str, object],
    node: ast.AST | None = None,
) -> Diagnosis:
    """A diagnosis at ``node`` (when known) or at the frame's failing span; ``facts`` (a
    pattern's TypedDict, or a plain dict) are kept as a plain dict."""
    exc = failure.exc
    diagnosis = Diagnosis(
        pattern=pattern.name,
        error_class=pattern.error_class,
        kind=kind,
        exc_type=exception_type_name(exc),
        message=str(exc)[:500],
        facts=dict(facts),
    )
    if frame is not None and frame.path is not None:
        _place(diagnosis, frame, node)
    return diagnosis


def _place(diagnosis: Diagnosis, frame: LiveFrame, node: ast.AST | None) -> None:
    """Put ``diagnosis`` at ``node``'s span in the frame's file, else at the frame's own."""
    diagnosis.path = frame.path
    diagnosis.line = frame.line
    span = None
    if node is not None:
        import linecache

        span = node_span(node, linecache.getlines(frame.filename))
    if span is not None:
        diagnosis.line, diagnosis.col, diagnosis.end_line, diagnosis.end_col = span
    elif frame.col is not None:
        diagnosis.col, diagnosis.end_line, diagnosis.end_col = (
            frame.col,
            frame.end_line,
            frame.end_col,
        )


def definition_is_misspelt(
    project: Project, asked: str, defined: str, *, asked_uses: int, definitions: int
) -> bool:
    """Whether the definition ``defined`` is likelier the typo than the use ``asked``.

    The tests decide first: they spell names as the code is meant to. Without them, one
    definition against several uses of the other spelling points at the definition.
    """
    tests = project.test_vocabulary
    if tests[asked] != tests[defined]:
        return tests[asked] > tests[defined]
    return definitions == 1 and asked_uses >= 2


def test_is_culprit(
    project: Project, asked: str, defined: str, *, definition: tuple[str, int, int]
) -> bool:
    """Whether a test asking for ``asked`` is likelier wrong than the definition ``defined``.

    Contract first: a public name or parameter is not renamed to fit a test when the rest of
    the project (other code, other tests, the docs) spells it as defined more often than as
    the test does. ``definition`` is ``(path, first line, last line)`` of the definition,
    whose own uses do not count; the failing use counts once less.
    """
    counts = project.spelling_counts((asked, defined), skip=definition)
    return counts[defined] > max(0, counts[asked] - 1)


def culprit_sentence(culprit: CulpritFacts, what: str) -> str:
    """Why the code was left alone when a test spells a name otherwise than the code does."""
    return (
        f"the test is the likely culprit: it asks for `{culprit['asked']}`, while the code, "
        f"the other tests and the docs spell the {what} `{culprit['defined']}`; the code is "
        "left as it is"
    )
