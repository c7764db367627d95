"""Workflow instances, their events, and the tasks of the handoff queue.

``.phasegate/workflows/<id>.json`` holds one :class:`WorkflowInstance`: where a piece of work
stands in its workflow (EDRR, SDLC, the golden path or a project's own), who holds which role,
what every transition was, by whom and why, every exit gate's verdict (:class:`GateRecord`),
and the design and plan loops of its phases. ``.phasegate/events.jsonl`` holds one
:class:`WorkflowEvent` per line. The handoff queue keeps one :class:`TaskRecord` per task file,
one :class:`TaskHistory` per task, and one :class:`HandoffMessage` per message in the worker's
and the supervisor's inboxes.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import ClassVar, Literal

from pydantic import Field, JsonValue

from phasegate.model.base import ArtifactModel, Model
from phasegate.model.loops import DesignLoop, PlanLoop

__all__ = [
    "MESSAGE_TYPES",
    "ChildLink",
    "GateRecord",
    "HandoffMessage",
    "InstanceState",
    "MemoryUpdate",
    "MessageType",
    "PhaseAcceptance",
    "Priority",
    "ReworkItem",
    "RoleAssignment",
    "TaskHistory",
    "TaskRecord",
    "TaskStatus",
    "TaskTransition",
    "Transition",
    "WorkflowEvent",
    "WorkflowInstance",
]


class InstanceState(str, Enum):
    """The life of an instance: CREATED -> RUNNING <-> BLOCKED, ending COMPLETE or FAILED."""

    CREATED = "CREATED"
    RUNNING = "RUNNING"
    BLOCKED = "BLOCKED"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


class Transition(Model):
    """One thing that happened to an instance, by whom and why (its history)."""

    at: datetime
    action: str = Field(
        description="start, advance, halt, wait, rewind, repeat, escalate, resume, review, "
        "fail, complete, spawn, integrate, fallback, output, design, plan, crash-retry"
    )
    by: str = ""
    from_phase: str | None = None
    to_phase: str | None = None
    state: InstanceState
    reason: str = ""
    details: list[str] = Field(default_factory=list, description="a halt's diagnosis, one each")


class RoleAssignment(Model):
    """The role map decided at one phase boundary."""

    phase: str
    at: datetime
    roles: dict[str, list[str]] = Field(description="role -> the members holding it")


class MemoryUpdate(Model):
    """An update queued during a phase, written to the memory store when the phase completes."""

    key: str
    value: JsonValue = None
    phase: str
    queued_at: datetime
    by: str = ""


class ReworkItem(Model):
    """Work a review asked to change, kept and due in the next cycle of its phase."""

    phase: str
    reviewer: str
    note: str = ""
    recorded_at: datetime
    cycle: int = Field(description="the cycle of the phase the review was recorded in")
    resolved_at: datetime | None = None


class PhaseAcceptance(Model):
    """A phase outcome kept by a review (approved, or changes requested)."""

    phase: str
    cycle: int
    status: Literal["approved", "changes_requested"]
    reviewer: str
    recorded_at: datetime
    commit: str | None = None


class ChildLink(Model):
    """A child instance spawned for a subtask, and how it came back."""

    instance_id: str
    subtask: str
    complexity: int = Field(description="measured: radon cyclomatic complexity of its files")
    files: list[str] = Field(default_factory=list, description="the files the subtask touches")
    status: Literal["spawned", "integrated", "fallen_back"] = "spawned"
    error: str = Field(default="", description="why the child failed, when it fell back")


class GateRecord(Model):
    """One verdict of a gate run for an instance (an exit gate) or for a task, kept for good."""

    gate: str
    at: datetime
    phase: str | None = None
    cycle: int | None = None
    attempt: int = Field(ge=1, description="the how-many-th run of this gate for its owner")
    sufficient: bool
    score: float | None = None
    reasons: list[str] = Field(default_factory=list)
    verdict_path: str = Field(
        description="the copy of the verdict kept for this run, relative to the artifacts folder"
    )


class WorkflowInstance(ArtifactModel):
    """One piece of work moving through a workflow."""

    KIND: ClassVar[str] = "workflow-instance"

    kind: Literal["workflow-instance"] = "workflow-instance"
    id: str
    workflow: str = Field(description="the workflow definition's name")
    definition_source: str = Field(default="", description="the definition file used at start")
    title: str = ""
    state: InstanceState = InstanceState.CREATED
    phase: str | None = Field(default=None, description="the current phase (None before start)")
    phase_index: int = -1
    cycle: int = Field(default=1, description="how many times the current phase was entered")
    created_at: datetime
    updated_at: datetime = Field(description="the last activity, for stale detection")
    owner: str = Field(default="", description="who works on it now (start, heartbeat)")
    heartbeat_at: datetime | None = Field(
        default=None, description="the owner's last sign of life (phase heartbeat)"
    )
    crash_retries: int = Field(
        default=0, description="times a sweep found it idle past the crash timeout and retried"
    )
    members: list[str] = Field(default_factory=list)
    roles: dict[str, list[str]] = Field(default_factory=dict, description="the role map now")
    role_history: list[RoleAssignment] = Field(default_factory=list)
    history: list[Transition] = Field(default_factory=list)
    attempts: int = Field(default=0, description="failed exit-gate attempts in this phase")
    retry_not_before: datetime | None = Field(
        default=None, description="the retry policy's backoff: no new attempt before this time"
    )
    rejections: dict[str, int] = Field(
        default_factory=dict, description="review rejections so far, per reviewed phase"
    )
    rewinds: int = Field(default=0, description="explicit rewinds so far")
    escalations: int = Field(default=0, description="times the instance was marked BLOCKED")
    accepted: list[PhaseAcceptance] = Field(default_factory=list)
    rework: list[ReworkItem] = Field(default_factory=list)
    memory_queue: list[MemoryUpdate] = Field(default_factory=list)
    discarded_updates: list[MemoryUpdate] = Field(
        default_factory=list, description="updates of phase passes a review rejected (kept)"
    )
    blocked_reason: str = ""
    failure_reason: str = ""
    diagnosis: list[str] = Field(default_factory=list, description="why the last advance halted")
    parent: str | None = None
    subtask: str = ""
    children: list[ChildLink] = Field(default_factory=list)
    context: dict[str, JsonValue] = Field(
        default_factory=dict, description="the outputs of the phases so far, by key"
    )
    gate_results: list[GateRecord] = Field(
        default_factory=list, description="every exit-gate verdict, in order, each kept"
    )
    design_loops: dict[str, DesignLoop] = Field(
        default_factory=dict, description="the design loop of each phase that has one"
    )
    plan_loops: dict[str, PlanLoop] = Field(
        default_factory=dict, description="the plan loop of each phase that has one"
    )
    tasks: list[str] = Field(
        default_factory=list, description="the handoff-queue tasks generated from its plan"
    )

    def last(self, action: str) -> Transition | None:
        """The latest transition with this action, if any."""
        for entry in reversed(self.history):
            if entry.action == action:
                return entry
        return None


class WorkflowEvent(ArtifactModel):
    """One event, named ``workflow.{workflow}.{instance}.{event}``."""

    KIND: ClassVar[str] = "workflow-event"

    kind: Literal["workflow-event"] = "workflow-event"
    name: str
    workflow: str
    instance_id: str
    event: str
    phase: str | None = None
    state: InstanceState
    at: datetime
    by: str = ""
    # Free-form on purpose: what each event carries is its emitter's, read by its observers.
    data: dict[str, object] = Field(default_factory=dict)


class Priority(str, Enum):
    """Pickup order of the handoff queue: CRITICAL first, LOW last."""

    CRITICAL = "CRITICAL"
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"

    @property
    def rank(self) -> int:
        """0 for CRITICAL up to 3 for LOW."""
        return list(Priority).index(self)


class TaskStatus(str, Enum):
    """The folder a task file is in is its status."""

    QUEUE = "queue"
    RUNNING = "running"
    REVIEW = "review"
    COMPLETED = "completed"
    REJECTED = "rejected"
    FAILED = "failed"


class TaskRecord(ArtifactModel):
    """One task file of the handoff queue."""

    KIND: ClassVar[str] = "task"

    kind: Literal["task"] = "task"
    id: str
    title: str
    priority: Priority = Priority.MEDIUM
    created_at: datetime
    parent: str | None = Field(default=None, description="the request or instance it came from")
    body: str = ""
    retries: int = 0
    max_retries: int | None = Field(
        default=None, description="this task's retry budget (from its plan); else the queue's"
    )
    depends_on: list[str] = Field(
        default_factory=list, description="tasks that must be completed before it is claimed"
    )
    instance: str | None = Field(default=None, description="the workflow instance it serves")
    plan_task: str | None = Field(default=None, description="its id in the plan it came from")
    estimate_min: float | None = None
    claimed_by: str | None = None
    claimed_at: datetime | None = None
    feedback: str = Field(default="", description="the latest rejection's or failure's reason")


class TaskTransition(Model):
    """One move of a task between folders."""

    at: datetime
    from_status: TaskStatus | None
    to_status: TaskStatus
    by: str = ""
    note: str = ""


class TaskHistory(ArtifactModel):
    """``tasks/history/<id>.json``: the lineage of one task."""

    KIND: ClassVar[str] = "task-history"

    kind: Literal["task-history"] = "task-history"
    id: str
    parent: str | None = None
    retries: int = 0
    status: TaskStatus
    transitions: list[TaskTransition] = Field(default_factory=list)
    heartbeat_at: datetime | None = Field(
        default=None, description="the worker's last sign of life (task heartbeat)"
    )
    heartbeat_by: str | None = None
    gate_results: list[GateRecord] = Field(
        default_factory=list, description="every gate run for the task, each kept"
    )


#: The five message types of the handoff's inboxes.
MESSAGE_TYPES = (
    "TASK_ASSIGNED",
    "TASK_SUBMITTED",
    "TASK_REJECTED",
    "TASK_APPROVED",
    "CLARIFICATION_REQUEST",
)

MessageType = Literal[
    "TASK_ASSIGNED",
    "TASK_SUBMITTED",
    "TASK_REJECTED",
    "TASK_APPROVED",
    "CLARIFICATION_REQUEST",
]


class HandoffMessage(ArtifactModel):
    """``comms/<box>/inbox/<file>.json``: one message between supervisor and worker."""

    KIND: ClassVar[str] = "handoff-message"

    kind: Literal["handoff-message"] = "handoff-message"
    id: str
    type: MessageType
    box: Literal["worker", "supervisor"] = Field(description="whose inbox it is in")
    task: str
    sender: str
    to: str = Field(default="", description="the worker it is for, when one is known")
    at: datetime
    body: str = ""
