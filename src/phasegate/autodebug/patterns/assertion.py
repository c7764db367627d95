"""Failures auto-debug does not repair: a failed assertion, and any other exception.

An assertion states what the code should do; changing the code until it holds is a design
decision, not a repair. These failures are localized instead: the report ranks the
functions most likely at fault (:mod:`phasegate.autodebug.localize`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.patterns.base import diagnose, short

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure
    from phasegate.autodebug.project import Project

__all__ = ["AssertionPattern", "OtherPattern"]


class AssertionPattern:
    """A failed ``assert`` (or ``pytest.fail``-free ``AssertionError``): localized, not repaired."""

    name = "assertion"
    error_class = "assertion"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        if not isinstance(failure.exc, AssertionError):
            return None
        return diagnose(self, failure, failure.innermost, kind="assertion", facts={})

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        return []

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        where = f" at {diagnosis.path}:{diagnosis.line}" if diagnosis.path else ""
        first = diagnosis.message.strip().splitlines()[0] if diagnosis.message.strip() else ""
        detail = f" ({first[:120]})" if first else ""
        never = "an assertion is never repaired automatically"
        return f"{short(diagnosis.exc_type)}{where}{detail}: {never}"


class OtherPattern:
    """Every other exception: recorded with its place, localized, escalated."""

    name = "other"
    error_class = "other"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        frame = failure.project_frame or failure.innermost
        return diagnose(self, failure, frame, kind=short(type(failure.exc).__name__), facts={})

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        return []

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        where = f" at {diagnosis.path}:{diagnosis.line}" if diagnosis.path else ""
        message = (
            diagnosis.message.strip().splitlines()[0][:120] if diagnosis.message.strip() else ""
        )
        return f"{short(diagnosis.exc_type)}{where}: {message}; no pattern of auto-debug covers it"
