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
from phasegate.model.run import (
    CollectionError,
    Counts,
    Environment,
    Failure,
    GitInfo,
    Invocation,
    Location,
    Outcome,
    PhaseResult,
    RunReport,
    TestRecord,
)

__all__ = [
    "ARTIFACTS",
    "SCHEMA_VERSION",
    "ArtifactModel",
    "AutodebugCounts",
    "AutodebugFailure",
    "AutodebugReport",
    "CandidateAttempt",
    "CollectionError",
    "Counts",
    "Environment",
    "Escalation",
    "Failure",
    "GitInfo",
    "Invocation",
    "Location",
    "Model",
    "Outcome",
    "PhaseResult",
    "Repair",
    "RunReport",
    "SuspiciousFunction",
    "TestRecord",
    "ValidationStage",
    "schema_major",
]

#: Every top-level artifact model, by the file stem of its exported JSON Schema.
ARTIFACTS: dict[str, type[ArtifactModel]] = {
    RunReport.KIND: RunReport,
    AutodebugReport.KIND: AutodebugReport,
}
