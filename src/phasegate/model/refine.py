"""The refinement loop across gate runs: ``.phasegate/refinement.json``.

Each gate run is a *round* of a *loop* for one task (by default the gate and the branch).
A round keeps its quality score (the gate's score), the exponential moving average of the
scores so far, what failed, and the router's next action. Feedback accumulates across rounds:
every problem met (a failing check, a failing test) is kept with the rounds it was seen in and
the round it was resolved in. A loop ends when the gate is sufficient with a score at or above
the threshold (``passed``), when the moving average reaches the early-stop level
(``early_stopped``), or after the last allowed round (``escalated``).
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel, Model

__all__ = [
    "FeedbackItem",
    "LoopSettings",
    "LoopStatus",
    "RefinementState",
    "RoundRecord",
    "RouterAction",
    "RouterDecision",
]


class RouterAction(str, Enum):
    """What the router says to do next."""

    PROCEED = "proceed"
    ROUTE_TO_DEBUG = "route_to_debug"
    RETRY_WITH_FEEDBACK = "retry_with_feedback"
    ADD_STEP = "add_step"
    TRUNCATE_FROM = "truncate_from"
    ESCALATE = "escalate"


class RouterDecision(Model):
    """The next action, why, and what it is about."""

    action: RouterAction
    reason: str = Field(description="one sentence a person or an agent can act on")
    target: str | None = Field(
        default=None,
        description="what the action is about: a test node id, a check id, or a round",
    )
    details: list[str] = Field(default_factory=list, description="supporting facts, one each")


class LoopStatus(str, Enum):
    """Where a refinement loop stands."""

    REFINING = "refining"
    PASSED = "passed"
    EARLY_STOPPED = "early_stopped"
    ESCALATED = "escalated"
    ABANDONED = "abandoned"


class LoopSettings(Model):
    """The settings a loop ran under (from ``[tool.phasegate.refine]``)."""

    threshold: float = Field(ge=0, le=1)
    alpha: float = Field(gt=0, le=1)
    early_stop: float = Field(ge=0, le=1)
    max_rounds: int = Field(ge=1)


class RoundRecord(Model):
    """One gate run, seen as a round of the loop."""

    round: int = Field(ge=1)
    run_id: str | None = None
    commit: str | None = None
    recorded_at: datetime
    verdict: Literal["sufficient", "insufficient"]
    score: float = Field(ge=0, le=1)
    ema: float = Field(ge=0, le=1, description="moving average of the scores up to this round")
    checks_run: int = Field(default=0, description="required checks evaluated")
    checks_passed: int = Field(default=0, description="required checks that passed")
    failing_checks: list[str] = Field(default_factory=list)
    failing_tests: list[str] = Field(default_factory=list, description="the first ones")
    failing_tests_total: int = 0
    reasons: list[str] = Field(default_factory=list, description="the verdict's reasons")
    decision: RouterDecision | None = None
    phase: str | None = Field(
        default=None, description="the workflow phase the gate ran for (an exit gate), if any"
    )
    debug_iterations: list[int] = Field(
        default_factory=list,
        description="per failure auto-debug worked on in this run: the candidates it tried",
    )
    context_queries: int = Field(default=0, description="context-index queries in this run")
    context_latency_ms: float | None = Field(default=None, description="their mean latency")
    context_relevance: list[float] = Field(
        default_factory=list, description="per query, the score of its best answer"
    )


class FeedbackItem(Model):
    """One problem met during the loop, and what became of it."""

    key: str = Field(description="check:<id>, test:<node id> or collect:<node id>")
    text: str = Field(description="the latest description of the problem")
    first_round: int
    last_round: int
    rounds_seen: int = 1
    resolved_round: int | None = Field(
        default=None, description="the first round it was gone in; null while it is open"
    )


class RefinementState(ArtifactModel):
    """The loop in progress (or the last one, once it ended)."""

    KIND: ClassVar[str] = "refinement"

    kind: Literal["refinement"] = "refinement"
    task: str = Field(description="what the loop refines; by default '<gate>@<branch>'")
    gate: str
    loop: int = Field(default=1, ge=1, description="how many loops this task has had")
    status: LoopStatus = LoopStatus.REFINING
    settings: LoopSettings
    started_at: datetime
    updated_at: datetime
    rounds: list[RoundRecord] = Field(default_factory=list)
    feedback: list[FeedbackItem] = Field(default_factory=list)
    feedback_dropped: int = Field(
        default=0, description="problems not kept because the feedback list was full"
    )
    ema: float | None = None
    next_action: RouterDecision | None = None
