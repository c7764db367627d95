"""The artifacts phasegate writes, as pydantic models: the contract between its parts.

Nothing here imports pytest. Every top-level artifact derives from
:class:`~phasegate.model.base.ArtifactModel`; :data:`ARTIFACTS` lists them for the schema
export (``phasegate schema --out DIR``).
"""

from __future__ import annotations

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

__all__ = [
    "ARTIFACTS",
    "SCHEMA_VERSION",
    "AcceptEntry",
    "ArtifactModel",
    "CollectionError",
    "Counts",
    "Environment",
    "Failure",
    "FailureClass",
    "GitInfo",
    "Invocation",
    "LedgerLine",
    "LedgerTest",
    "Location",
    "Model",
    "Observation",
    "Outcome",
    "PhaseResult",
    "ReviewEntry",
    "RollbackEntry",
    "RunEntry",
    "RunReport",
    "TddState",
    "TestRecord",
    "Violation",
    "schema_major",
]

#: Every top-level artifact model, by the file stem of its exported JSON Schema.
ARTIFACTS: dict[str, type[ArtifactModel]] = {
    RunReport.KIND: RunReport,
    RunEntry.KIND: RunEntry,
    ReviewEntry.KIND: ReviewEntry,
    RollbackEntry.KIND: RollbackEntry,
    AcceptEntry.KIND: AcceptEntry,
    TddState.KIND: TddState,
    Observation.KIND: Observation,
}
