"""Check results and the gate verdict: what ``.phasegate/gates/<gate>.json`` holds.

A check measures (metrics, findings); the gate judges (conditions stated as failures). A
check that could not run is ``error``, and an error in a required check makes the verdict
``insufficient``: the gate fails closed.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel, Model

__all__ = [
    "BaseInfo",
    "CheckResult",
    "CheckStatus",
    "Comparator",
    "ConditionResult",
    "Finding",
    "GateVerdict",
    "MetricValue",
    "Requirement",
    "Scope",
    "Severity",
    "ToolInfo",
    "Verdict",
]

MetricValue = float | int | bool | str | None
Comparator = Literal["<", "<=", ">", ">=", "==", "!="]
Scope = Literal["new", "overall"]
Requirement = Literal["required", "optional", "in-pull-request"]
Verdict = Literal["sufficient", "insufficient"]


class CheckStatus(str, Enum):
    """How a check ended."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


class Severity(str, Enum):
    """How serious a finding is; SARIF maps high and critical to error, medium to warning."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class Finding(Model):
    """One problem a check found, where it is, and whether it is on new code."""

    rule: str = Field(description="the tool's rule id, e.g. F401 or B602")
    severity: Severity
    message: str
    path: str | None = Field(default=None, description="relative to the project root")
    line: int | None = Field(default=None, description="1-based")
    column: int | None = Field(default=None, description="1-based")
    new: bool = Field(
        default=True, description="on a line changed against the base (true without a base)"
    )


class ToolInfo(Model):
    """The tool behind a check and its version (part of the cache key)."""

    name: str
    version: str


class CheckResult(Model):
    """What one check found, and how the gate judged it."""

    id: str
    title: str = ""
    status: CheckStatus
    requirement: Requirement = "required"
    score: float = Field(ge=0, le=1, description="1 is perfect")
    reasoning: str = Field(description="one sentence a person can act on")
    fix: str | None = Field(default=None, description="for an error: what makes the check runnable")
    findings: list[Finding] = Field(default_factory=list)
    findings_total: int = Field(
        default=0, description="all findings, when the list was cut to its first entries"
    )
    metrics: dict[str, MetricValue] = Field(default_factory=dict, description="on all code")
    new_code_metrics: dict[str, MetricValue] = Field(
        default_factory=dict, description="on the lines changed against the base"
    )
    duration_s: float = Field(ge=0)
    tool: ToolInfo | None = None
    cached: bool = Field(default=False, description="reused from .phasegate/cache/")
    skip_allowed: bool = Field(
        default=False,
        description="the gate allows the check to be skipped (`report github` reads the verdict "
        "again by the same rules)",
    )
    baseline_accepted: int = Field(
        default=0,
        ge=0,
        description="findings the project's baseline file accepted: not counted as new code",
    )


class ConditionResult(Model):
    """One failure condition of the gate, evaluated."""

    check: str
    metric: str
    comparator: Comparator
    threshold: MetricValue
    scope: Scope
    actual: MetricValue = None
    status: Literal["passed", "failed", "error"]
    message: str


class BaseInfo(Model):
    """What "new code" was measured against."""

    ref: str | None = None
    sha: str | None = None
    available: bool = False
    note: str = ""
    changed_files: int = 0
    changed_lines: int = 0


class GateVerdict(ArtifactModel):
    """A gate's binary verdict with every check and condition behind it."""

    KIND: ClassVar[str] = "gate-verdict"

    kind: Literal["gate-verdict"] = "gate-verdict"
    gate: str
    source: str = Field(description="the gate definition file")
    verdict: Verdict
    score: float = Field(ge=0, le=1, description="the mean score of the required checks")
    reasons: list[str] = Field(
        default_factory=list, description="why it is insufficient, one sentence each"
    )
    checks: list[CheckResult] = Field(default_factory=list)
    conditions: list[ConditionResult] = Field(default_factory=list)
    base: BaseInfo = Field(default_factory=BaseInfo)
    run_id: str | None = Field(default=None, description="the run report this verdict read")
    commit: str | None = None
    started_at: datetime
    finished_at: datetime
    duration_s: float = Field(ge=0)
