"""The artifacts phasegate writes, as pydantic models: the contract between its parts.

Nothing here imports pytest. Every top-level artifact derives from
:class:`~phasegate.model.base.ArtifactModel`; :data:`ARTIFACTS` lists them for the schema
export (``phasegate schema --out DIR``).
"""

from __future__ import annotations

from phasegate.model.autodebug import (
    AutodebugCounts,
    AutodebugFailure,
    AutodebugReport,
    CandidateAttempt,
    Escalation,
    Repair,
    SuspiciousFunction,
    ValidationStage,
)
from phasegate.model.base import SCHEMA_VERSION, ArtifactModel, Model, schema_major
from phasegate.model.gate import (
    BaseInfo,
    CheckResult,
    CheckStatus,
    ConditionResult,
    Finding,
    GateVerdict,
    Severity,
    ToolInfo,
)
from phasegate.model.metrics import MetricsComparison, MetricsSummary, TaskMetrics
from phasegate.model.refine import (
    FeedbackItem,
    LoopSettings,
    LoopStatus,
    RefinementState,
    RoundRecord,
    RouterAction,
    RouterDecision,
)
from phasegate.model.review import OUTCOMES, ReviewOutcome, ReviewRecord, ReviewStatus
from phasegate.model.run import (
    CollectionError,
    Counts,
    Environment,
    Failure,
    GitInfo,
    Invocation,
    Location,
    MergedShard,
    MergeInfo,
    Outcome,
    PhaseResult,
    RunReport,
    ShardInfo,
    TestRecord,
)
from phasegate.model.workflow import (
    ChildLink,
    InstanceState,
    MemoryUpdate,
    PhaseAcceptance,
    Priority,
    ReworkItem,
    RoleAssignment,
    TaskHistory,
    TaskRecord,
    TaskStatus,
    TaskTransition,
    Transition,
    WorkflowEvent,
    WorkflowInstance,
)

__all__ = [
    "ARTIFACTS",
    "OUTCOMES",
    "SCHEMA_VERSION",
    "ArtifactModel",
    "AutodebugCounts",
    "AutodebugFailure",
    "AutodebugReport",
    "BaseInfo",
    "CandidateAttempt",
    "CheckResult",
    "CheckStatus",
    "ChildLink",
    "CollectionError",
    "ConditionResult",
    "Counts",
    "Environment",
    "Escalation",
    "Failure",
    "FeedbackItem",
    "Finding",
    "GateVerdict",
    "GitInfo",
    "InstanceState",
    "Invocation",
    "Location",
    "LoopSettings",
    "LoopStatus",
    "MemoryUpdate",
    "MergeInfo",
    "MergedShard",
    "MetricsComparison",
    "MetricsSummary",
    "Model",
    "Outcome",
    "PhaseAcceptance",
    "PhaseResult",
    "Priority",
    "RefinementState",
    "Repair",
    "ReviewOutcome",
    "ReviewRecord",
    "ReviewStatus",
    "ReworkItem",
    "RoleAssignment",
    "RoundRecord",
    "RouterAction",
    "RouterDecision",
    "RunReport",
    "Severity",
    "ShardInfo",
    "SuspiciousFunction",
    "TaskHistory",
    "TaskMetrics",
    "TaskRecord",
    "TaskStatus",
    "TaskTransition",
    "TestRecord",
    "ToolInfo",
    "Transition",
    "ValidationStage",
    "WorkflowEvent",
    "WorkflowInstance",
    "schema_major",
]

#: Every top-level artifact model, by the file stem of its exported JSON Schema.
ARTIFACTS: dict[str, type[ArtifactModel]] = {
    model.KIND: model
    for model in (
        RunReport,
        GateVerdict,
        ReviewRecord,
        WorkflowInstance,
        WorkflowEvent,
        TaskRecord,
        TaskHistory,
        RefinementState,
        TaskMetrics,
        MetricsComparison,
        AutodebugReport,
    )
}
