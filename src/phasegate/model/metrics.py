"""Metrics of refinement loops (``.phasegate/metrics/``) and their comparison.

One :class:`TaskMetrics` file per loop, rewritten after every round, holds what the design
documents ask to measure: the phase, rounds, quality scores, errors met and resolved within the
loop, auto-debug's iterations per error, the context index's queries (their number, latency
and relevance), the first-time pass rate of the checks, and whether the task was completed
without a person stepping in. :class:`MetricsComparison` is what ``phasegate metrics compare``
reports.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel, Model
from phasegate.model.refine import LoopStatus

__all__ = ["MetricsComparison", "MetricsSummary", "TaskMetrics"]


class TaskMetrics(ArtifactModel):
    """The metrics of one refinement loop."""

    KIND: ClassVar[str] = "task-metrics"

    kind: Literal["task-metrics"] = "task-metrics"
    task: str
    phase: str | None = Field(
        default=None, description="the workflow phase of the latest round (exit gates only)"
    )
    gate: str
    loop: int = Field(ge=1)
    status: LoopStatus
    started_at: datetime
    updated_at: datetime
    duration_s: float = Field(ge=0, description="from the first round to the latest")
    refinement_rounds: int = Field(ge=0)
    quality_scores: list[float] = Field(default_factory=list)
    ema_scores: list[float] = Field(default_factory=list)
    final_ema: float | None = None
    early_stopped: bool = False
    errors_encountered: int = Field(
        default=0, description="distinct problems (failing checks and tests) met in the loop"
    )
    errors_auto_resolved: int = Field(
        default=0,
        description="problems met that a later round of the loop no longer had (resolved "
        "within the loop, before any escalation)",
    )
    debug_iterations: list[int] = Field(
        default_factory=list,
        description="per error auto-debug worked on, over all rounds: the candidates it tried",
    )
    context_queries: int = Field(default=0, description="context-index queries, all rounds")
    avg_context_latency_ms: float | None = Field(
        default=None, description="their mean latency; null without a query"
    )
    context_relevance_scores: list[float] = Field(
        default_factory=list, description="per query, the score of its best answer"
    )
    verification_checks: int = Field(
        default=0, description="required check evaluations over all rounds"
    )
    verification_passes_first_time: int = Field(
        default=0, description="required checks that passed in the first round"
    )
    first_time_pass_rate: float | None = Field(
        default=None, description="required checks passed in round 1 / required checks"
    )
    passed_first_round: bool = False
    completed_without_intervention: bool = Field(
        default=False, description="the loop passed (or stopped early) without escalation"
    )
    escalated_to_human: bool = False


class MetricsSummary(Model):
    """Loops taken together."""

    source: str = Field(description="the file or folder the metrics came from")
    tasks: int
    completed_without_intervention: int
    escalated: int
    in_progress: int
    completion_accuracy: float | None = Field(
        description="completed without intervention / loops that ended"
    )
    mean_rounds: float | None = None
    errors_encountered: int = 0
    errors_auto_resolved: int = 0
    debug_success_rate: float | None = Field(
        default=None, description="errors auto-resolved / errors encountered"
    )
    mean_debug_iterations: float | None = Field(
        default=None, description="auto-debug candidates tried per error, on average"
    )
    context_queries: int = 0
    avg_context_latency_ms: float | None = None
    first_time_pass_rate: float | None = None


class MetricsComparison(ArtifactModel):
    """A baseline and a current set of loops, and how far the current one improved."""

    KIND: ClassVar[str] = "metrics-comparison"

    kind: Literal["metrics-comparison"] = "metrics-comparison"
    baseline: MetricsSummary
    current: MetricsSummary
    improvement_factor: float | None = Field(
        description="current completion accuracy / baseline completion accuracy; null when "
        "the baseline's is 0 or either is unknown"
    )
    note: str = ""
    deltas: dict[str, float | None] = Field(
        default_factory=dict, description="current minus baseline, per metric"
    )
