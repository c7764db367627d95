"""``[tool.phasegate.workflow]``: where workflows come from and how instances behave.

Every key is optional; the defaults follow the seeds phasegate's workflows come from (three
retries with a 5 s delay doubling each time, three review rejections, a day without activity
before an instance is reported stale, an hour without a sign of life before a sweep takes it as
crashed).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from phasegate.settings import Section

__all__ = ["RetryPolicy", "WorkflowSettings"]


class RetryPolicy(Section):
    """How often, and how soon, a phase's exit gate may be tried again after a halt."""

    max_retries: int = Field(
        default=3, ge=0, le=100, description="failed exit-gate attempts allowed after the first"
    )
    retry_delay_s: float = Field(
        default=5.0, ge=0, description="seconds to wait after the first failed attempt"
    )
    backoff_multiplier: float = Field(
        default=2.0, ge=1, description="each further wait is the previous one times this"
    )
    on_max_retries: Literal["fail", "escalate"] = Field(
        default="fail",
        description="when the retries are spent: 'fail' marks the instance FAILED, "
        "'escalate' marks it BLOCKED for a person",
    )


class WorkflowSettings(Section):
    """Every key of ``[tool.phasegate.workflow]``."""

    paths: list[str] = Field(
        default_factory=list,
        description="folders of the project's own workflow files, searched before the "
        "built-in workflows",
    )
    members: list[str] = Field(
        default_factory=list,
        description="the team whose roles are reassessed at every phase boundary "
        "(phase start --member overrides)",
    )
    roles: list[str] = Field(
        default_factory=list,
        description="role names to use instead of the workflow's own (the first one leads)",
    )
    expertise: dict[str, list[str]] = Field(
        default_factory=dict,
        description="member -> phases they lead: they take the first role in those phases",
    )
    complexity_threshold: int = Field(
        default=5, ge=0, description="subtasks above this complexity get a child instance"
    )
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    stale_after_h: float = Field(
        default=24.0, gt=0, description="hours without activity before an instance is stale"
    )
    crash_timeout_min: float = Field(
        default=60.0,
        gt=0,
        description="minutes without a sign of life (an action, a heartbeat) before phase "
        "sweep takes a RUNNING instance or a running task as crashed",
    )
    max_crash_retries: int = Field(
        default=2,
        ge=0,
        le=100,
        description="times phase sweep retries a crashed instance before it fails it",
    )
    memory_store: bool = Field(
        default=True,
        description="write flushed updates to .phasegate/workflows/memory.jsonl; false: "
        "no store, updates stay queued and the sync hook gets None",
    )
    tasks_dir: str | None = Field(
        default=None,
        min_length=1,
        description="folder of the handoff queue, relative to the project root "
        "(default: tasks/ in the artifacts folder)",
    )
    max_task_retries: int = Field(
        default=3, ge=0, description="rejections or failures of a task before it moves to failed/"
    )
