"""Failures no pattern repairs: a failed assertion, and any other exception.

An assertion states what the code should do; changing the code until it holds is a design
decision, not a repair. These failures are localized instead: the report ranks the
functions most likely at fault (:mod:`phasegate.autodebug.localize`). The one repair tried
then is a lost None guard put back in those functions (:mod:`.lost_guards`), because a None
that flows on shows as exactly such a failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.patterns.base import diagnose, short
from phasegate.autodebug.patterns.expected_texts import none_stood_for

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure
    from phasegate.autodebug.project import Project

__all__ = ["AssertionPattern", "OtherPattern", "none_parameters"]

#: The most parameters recorded as None, innermost frames first.
_MOST = 20


def none_parameters(failure: LiveFailure) -> list[dict[str, str | int]]:
    """``{path, line, name}`` of each parameter that is None in a frame of a project file
    (``line``: the line the frame was running), innermost frames first."""
    found: list[dict[str, str | int]] = []
    for frame in reversed(failure.frames):
        if frame.path is None:
            continue
        code = frame.frame.f_code
        count = code.co_argcount + code.co_kwonlyargcount
        values = frame.frame.f_locals
        for name in code.co_varnames[:count]:
            if name in values and values[name] is None:
                found.append({"path": frame.path, "line": frame.line, "name": name})
    return found[:_MOST]


class AssertionPattern:
    """A failed ``assert`` (or ``pytest.fail``-free ``AssertionError``): localized, not repaired."""

    name = "assertion"
    error_class = "assertion"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        if not isinstance(failure.exc, AssertionError):
            return None
        # Where the test was when a library (unittest's assertRaises) raised: what it called.
        frame = failure.project_frame
        facts: dict[str, object] = {}
        if frame is not None:
            facts["project_frame"] = {"path": frame.path, "line": frame.line}
            facts["none_stood_for"] = none_stood_for(failure)
        return diagnose(self, failure, failure.innermost, kind="assertion", facts=facts)

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        return []

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        where = f" at {diagnosis.path}:{diagnosis.line}" if diagnosis.path else ""
        first = diagnosis.message.strip().splitlines()[0] if diagnosis.message.strip() else ""
        detail = f" ({first[:120]})" if first else ""
        never = "an assertion is not repaired unless a lost None guard explains it"
        return f"{short(diagnosis.exc_type)}{where}{detail}: {never}"


class OtherPattern:
    """Every other exception: recorded with its place, localized, escalated.

    The parameters that were None in the project's frames are kept (``none_parameters``):
    a None that flowed on from a lost guard may be among them (:mod:`.lost_guards`).
    """

    name = "other"
    error_class = "other"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        frame = failure.project_frame or failure.innermost
        facts = {"none_parameters": none_parameters(failure)}
        return diagnose(self, failure, frame, kind=short(type(failure.exc).__name__), facts=facts)

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        return []

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        where = f" at {diagnosis.path}:{diagnosis.line}" if diagnosis.path else ""
        message = (
            diagnosis.message.strip().splitlines()[0][:120] if diagnosis.message.strip() else ""
        )
        return f"{short(diagnosis.exc_type)}{where}: {message}; no pattern of auto-debug covers it"
