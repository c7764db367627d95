"""The auto-debug report: per failure its class, the explanation, what was tried, and the outcome.

``.phasegate/autodebug.json`` holds an :class:`AutodebugReport`, written by
``pytest --autodebug``. A failure here is one root cause: several tests failing on the same
typo are one :class:`AutodebugFailure` listing them all.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel, Model

__all__ = [
    "AutodebugCounts",
    "AutodebugFailure",
    "AutodebugOutcome",
    "AutodebugReport",
    "CandidateAttempt",
    "ContextFigures",
    "Escalation",
    "Repair",
    "SuspiciousFunction",
    "ValidationStage",
]

AutodebugOutcome = Literal[
    "repaired", "escalated", "localized", "fixed-by-another-repair", "not-attempted"
]


class ValidationStage(Model):
    """One re-run of the tests with a candidate applied."""

    stage: Literal["targets", "suite"] = Field(
        description="'targets': the failing tests and their modules; 'suite': the whole run"
    )
    passed: bool
    tests: int = Field(default=0, description="tests that reported a result in this re-run")
    still_failing: list[str] = Field(
        default_factory=list, description="the failing tests this candidate did not fix"
    )
    new_failures: list[str] = Field(
        default_factory=list, description="tests (or collectors) that passed before and fail now"
    )
    detail: str = Field(default="", description="one sentence on the result")
    duration_s: float = Field(default=0.0, ge=0)


class CandidateAttempt(Model):
    """A candidate repair and what validating it showed."""

    rank: int = Field(ge=1, description="1 for the candidate tried first")
    kind: str = Field(description="the repair, e.g. typo, missing-import, missing-colon")
    description: str
    score: float
    files: list[str] = Field(description="files the candidate rewrites, relative to the root")
    diff: str = Field(description="the candidate as a unified diff")
    status: Literal["kept", "rejected", "error"]
    reason: str = Field(description="why it was kept or rejected")
    stages: list[ValidationStage] = Field(default_factory=list)
    duration_s: float = Field(default=0.0, ge=0)


class Repair(Model):
    """The repair that was kept: validated, then applied or written as a diff."""

    files: list[str]
    diff: str
    diff_file: str = Field(description="the diff's file, relative to the artifacts folder")
    applied: bool = Field(description="true in apply mode: the working tree holds the repair")


class Escalation(Model):
    """Why auto-debug stopped; the attempts list what it tried."""

    reason: str
    tried: int = Field(ge=0, description="candidates validated")


class SuspiciousFunction(Model):
    """A function ranked by Ochiai over per-test coverage: covered by the failing tests, and
    seldom by passing ones."""

    path: str
    function: str = Field(description="qualified name inside its module")
    line: int = Field(description="1-based line of the definition")
    score: float = Field(ge=0, le=1, description="Ochiai suspiciousness")
    failed_covering: int = Field(ge=0, description="failing tests that run it")
    passed_covering: int = Field(ge=0, description="passing tests that run it")


class AutodebugFailure(Model):
    """One root cause, the tests it failed, and what auto-debug did about it."""

    id: str = Field(description="stable within the report, e.g. 01-name")
    error_class: str = Field(
        description="syntax, name, attribute, import, type, none, assertion, other, or a "
        "third-party pattern's class"
    )
    pattern: str = Field(description="the pattern that classified it")
    kind: str = Field(description="the pattern's finer kind, e.g. undefined, missing-colon")
    tests: list[str] = Field(description="node ids of the tests (or collectors) that failed")
    exc_type: str
    message: str
    path: str | None = Field(default=None, description="the fault's file, relative to the root")
    line: int | None = None
    explanation: str = Field(description="one line a person reads")
    cpython_suggestion: str | None = Field(
        default=None, description="what CPython's own 'did you mean' suggested, if anything"
    )
    outcome: AutodebugOutcome
    attempts: list[CandidateAttempt] = Field(default_factory=list)
    repair: Repair | None = None
    escalation: Escalation | None = None
    suspicious: list[SuspiciousFunction] = Field(default_factory=list)
    # Free-form on purpose: each pattern's own facts, a third party's too; the pattern that
    # wrote them reads them (the built-in ones through their TypedDicts).
    facts: dict[str, object] = Field(
        default_factory=dict, description="what the pattern read from the live failure"
    )
    duration_s: float = Field(default=0.0, ge=0, description="time spent on this failure")


class AutodebugCounts(Model):
    """How the failures ended."""

    failures: int = 0
    repaired: int = 0
    escalated: int = 0
    localized: int = 0
    fixed_by_another_repair: int = 0
    not_attempted: int = 0
    candidates_tried: int = 0


class ContextFigures(Model):
    """What the context index (TF-IDF, or keywords) was asked during the run."""

    queries: int = Field(ge=0, description="queries for a missing name's definition")
    avg_latency_ms: float | None = Field(default=None, description="mean time per query")
    relevance_scores: list[float] = Field(
        default_factory=list, description="per query, the score of its best answer"
    )


class AutodebugReport(ArtifactModel):
    """The outcome of one ``pytest --autodebug`` run."""

    KIND: ClassVar[str] = "autodebug-report"

    kind: Literal["autodebug-report"] = "autodebug-report"
    run_id: str | None = Field(default=None, description="the run report's run_id")
    mode: Literal["suggest", "apply"]
    started_at: datetime
    finished_at: datetime
    duration_s: float = Field(ge=0)
    index: str | None = Field(
        default=None, description="the context index used for missing imports (tfidf, keyword)"
    )
    context: ContextFigures | None = Field(
        default=None, description="the context index's queries; null when it was not built"
    )
    test_files: list[str] = Field(
        default_factory=list, description="the globs of files auto-debug never edits"
    )
    counts: AutodebugCounts
    failures: list[AutodebugFailure] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
