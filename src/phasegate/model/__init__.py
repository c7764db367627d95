"""The artifacts phasegate writes, as pydantic models: the contract between its parts.

Nothing here imports pytest. Every top-level artifact derives from
:class:`~phasegate.model.base.ArtifactModel`; :data:`ARTIFACTS` lists them for the schema
export (``phasegate schema --out DIR``).

The names are loaded on first use: building a pydantic model costs a few milliseconds, and
a run that records tests only needs the run report's, not the workflow's, TDD's or
auto-debug's. ``dir()`` lists only the names loaded so far (``__all__`` lists them all), so
that a tool scanning every module's names does not load them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from phasegate.model.autodebug import (
        AutodebugCounts,
        AutodebugFailure,
        AutodebugReport,
        CandidateAttempt,
        ContextFigures,
        Escalation,
        Repair,
        SuspiciousFunction,
        ValidationStage,
    )
    from phasegate.model.base import SCHEMA_VERSION, ArtifactModel, Model, schema_major
    from phasegate.model.baseline import Baseline, BaselineEntry
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
    from phasegate.model.loops import (
        DesignItem,
        DesignLoop,
        Draft,
        LoopTurn,
        PlanLoop,
    )
    from phasegate.model.metrics import MetricsComparison, MetricsSummary, TaskMetrics
    from phasegate.model.outcome import Outcome
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
        CollectionSkip,
        Counts,
        Environment,
        Failure,
        GitInfo,
        Invocation,
        Location,
        MergedShard,
        MergeInfo,
        PhaseResult,
        RunReport,
        ShardInfo,
        TestRecord,
    )
    from phasegate.model.tdd import (
        AcceptEntry,
        FailureClass,
        LedgerLine,
        LedgerTest,
        Observation,
        ReviewEntry,
        RollbackEntry,
        RunEntry,
        TddState,
        Violation,
    )
    from phasegate.model.workflow import (
        ChildLink,
        GateRecord,
        HandoffMessage,
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

    ARTIFACTS: dict[str, type[ArtifactModel]]

__all__ = [
    "ARTIFACTS",
    "OUTCOMES",
    "SCHEMA_VERSION",
    "AcceptEntry",
    "ArtifactModel",
    "AutodebugCounts",
    "AutodebugFailure",
    "AutodebugReport",
    "BaseInfo",
    "Baseline",
    "BaselineEntry",
    "CandidateAttempt",
    "CheckResult",
    "CheckStatus",
    "ChildLink",
    "CollectionError",
    "CollectionSkip",
    "ConditionResult",
    "ContextFigures",
    "Counts",
    "DesignItem",
    "DesignLoop",
    "Draft",
    "Environment",
    "Escalation",
    "Failure",
    "FailureClass",
    "FeedbackItem",
    "Finding",
    "GateRecord",
    "GateVerdict",
    "GitInfo",
    "HandoffMessage",
    "InstanceState",
    "Invocation",
    "LedgerLine",
    "LedgerTest",
    "Location",
    "LoopSettings",
    "LoopStatus",
    "LoopTurn",
    "MemoryUpdate",
    "MergeInfo",
    "MergedShard",
    "MetricsComparison",
    "MetricsSummary",
    "Model",
    "Observation",
    "Outcome",
    "PhaseAcceptance",
    "PhaseResult",
    "PlanLoop",
    "Priority",
    "RefinementState",
    "Repair",
    "ReviewEntry",
    "ReviewOutcome",
    "ReviewRecord",
    "ReviewStatus",
    "ReworkItem",
    "RoleAssignment",
    "RollbackEntry",
    "RoundRecord",
    "RouterAction",
    "RouterDecision",
    "RunEntry",
    "RunReport",
    "Severity",
    "ShardInfo",
    "SuspiciousFunction",
    "TaskHistory",
    "TaskMetrics",
    "TaskRecord",
    "TaskStatus",
    "TaskTransition",
    "TddState",
    "TestRecord",
    "ToolInfo",
    "Transition",
    "ValidationStage",
    "Violation",
    "WorkflowEvent",
    "WorkflowInstance",
    "schema_major",
]

#: The submodule of each name in ``__all__``, for loading it on first use.
_WHERE: dict[str, str] = {
    "AutodebugCounts": "autodebug",
    "AutodebugFailure": "autodebug",
    "AutodebugReport": "autodebug",
    "CandidateAttempt": "autodebug",
    "ContextFigures": "autodebug",
    "Escalation": "autodebug",
    "Repair": "autodebug",
    "SuspiciousFunction": "autodebug",
    "ValidationStage": "autodebug",
    "ArtifactModel": "base",
    "Baseline": "baseline",
    "BaselineEntry": "baseline",
    "Model": "base",
    "SCHEMA_VERSION": "base",
    "schema_major": "base",
    "BaseInfo": "gate",
    "CheckResult": "gate",
    "CheckStatus": "gate",
    "ConditionResult": "gate",
    "Finding": "gate",
    "GateVerdict": "gate",
    "Severity": "gate",
    "ToolInfo": "gate",
    "MetricsComparison": "metrics",
    "MetricsSummary": "metrics",
    "TaskMetrics": "metrics",
    "FeedbackItem": "refine",
    "LoopSettings": "refine",
    "LoopStatus": "refine",
    "RefinementState": "refine",
    "RoundRecord": "refine",
    "RouterAction": "refine",
    "RouterDecision": "refine",
    "OUTCOMES": "review",
    "ReviewOutcome": "review",
    "ReviewRecord": "review",
    "ReviewStatus": "review",
    "CollectionError": "run",
    "CollectionSkip": "run",
    "Counts": "run",
    "Environment": "run",
    "Failure": "run",
    "GitInfo": "run",
    "Invocation": "run",
    "Location": "run",
    "MergeInfo": "run",
    "MergedShard": "run",
    "Outcome": "outcome",
    "PhaseResult": "run",
    "RunReport": "run",
    "ShardInfo": "run",
    "TestRecord": "run",
    "AcceptEntry": "tdd",
    "FailureClass": "tdd",
    "LedgerLine": "tdd",
    "LedgerTest": "tdd",
    "Observation": "tdd",
    "ReviewEntry": "tdd",
    "RollbackEntry": "tdd",
    "RunEntry": "tdd",
    "TddState": "tdd",
    "Violation": "tdd",
    "DesignItem": "loops",
    "DesignLoop": "loops",
    "Draft": "loops",
    "LoopTurn": "loops",
    "PlanLoop": "loops",
    "ChildLink": "workflow",
    "GateRecord": "workflow",
    "HandoffMessage": "workflow",
    "InstanceState": "workflow",
    "MemoryUpdate": "workflow",
    "PhaseAcceptance": "workflow",
    "Priority": "workflow",
    "ReworkItem": "workflow",
    "RoleAssignment": "workflow",
    "TaskHistory": "workflow",
    "TaskRecord": "workflow",
    "TaskStatus": "workflow",
    "TaskTransition": "workflow",
    "Transition": "workflow",
    "WorkflowEvent": "workflow",
    "WorkflowInstance": "workflow",
}

#: Every top-level artifact model, by the file stem of its exported JSON Schema.
_ARTIFACT_NAMES = (
    "RunReport",
    "GateVerdict",
    "Baseline",
    "ReviewRecord",
    "WorkflowInstance",
    "WorkflowEvent",
    "TaskRecord",
    "TaskHistory",
    "HandoffMessage",
    "RefinementState",
    "TaskMetrics",
    "MetricsComparison",
    "AutodebugReport",
    "RunEntry",
    "ReviewEntry",
    "RollbackEntry",
    "AcceptEntry",
    "TddState",
    "Observation",
)


def __getattr__(name: str) -> object:
    """Load ``name`` from its submodule (and ``ARTIFACTS``) on first use."""
    value: object
    if name == "ARTIFACTS":
        models: list[type[ArtifactModel]] = [
            getattr(importlib.import_module(f"{__name__}.{_WHERE[artifact]}"), artifact)
            for artifact in _ARTIFACT_NAMES
        ]
        value = {model.KIND: model for model in models}
    elif name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # Only what is loaded: tools that scan every module (freezegun's freeze_time reads each
    # name dir() lists) must not load the models, least of all while a test fakes datetime.
    return sorted(globals())
