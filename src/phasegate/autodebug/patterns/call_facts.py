"""What a failing call and its callee say, as typed plain data (:class:`CallFacts`).

The type pattern (:mod:`.typeerrors`) builds these facts where the test ran, from the call's
shape and the callee's signature; its repairs (:mod:`.call_repairs`, :mod:`.missing_args`,
:mod:`.argument_fit`) read them back in the process that writes artifacts. They are
TypedDicts, so they stay the plain JSON dicts a
:class:`~phasegate.autodebug.diagnosis.Diagnosis` carries across pytest-xdist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict, cast

from phasegate.autodebug.patterns.base import CulpritFacts

if TYPE_CHECKING:
    from phasegate.autodebug.diagnosis import Diagnosis

__all__ = [
    "CALL_KINDS",
    "CallFacts",
    "CalleeFacts",
    "OperandFacts",
    "ParameterFacts",
    "ScopeValue",
    "call_facts",
    "operand_facts",
]

#: The kinds of a call that does not fit its callee, in the order they are told apart.
CALL_KINDS = ("unexpected-keyword", "too-many-arguments", "missing-argument")


class CalleeFacts(TypedDict):
    """The function called: as the call writes it, and where it is defined (if in the project)."""

    text: str
    name: str | None
    path: str | None
    line: int | None


class ParameterFacts(TypedDict):
    """One parameter of the callee: its name, its kind's name, what its default and
    annotation say."""

    name: str
    kind: str
    default: bool
    default_type: str | None
    annotation: str | None


class ScopeValue(TypedDict):
    """A value the failing call could have passed, and its type's name."""

    name: str
    type: str


class _CallFactsFound(TypedDict, total=False):
    test_culprit: CulpritFacts  # set by a repair that leaves the code alone


class CallFacts(_CallFactsFound):
    """How a call does not fit its callee's signature."""

    callee: CalleeFacts
    params: list[ParameterFacts]
    positional: int  # positional arguments passed
    accepts: int  # positional parameters the callee has
    keywords: list[str]
    unexpected: list[str]
    extra: int
    missing: list[str]
    in_scope: list[str]
    scope: list[ScopeValue]
    keyword_names: list[str]


class OperandFacts(TypedDict):
    """Two operands of types the operator is not defined for."""

    op: str
    left_type: str
    right_type: str
    left: str
    right: str


def call_facts(diagnosis: Diagnosis) -> CallFacts:
    """The facts of a diagnosis of one of :data:`CALL_KINDS`."""
    return cast("CallFacts", diagnosis.facts)


def operand_facts(diagnosis: Diagnosis) -> OperandFacts:
    """The facts of an ``operand-types`` diagnosis."""
    return cast("OperandFacts", diagnosis.facts)
