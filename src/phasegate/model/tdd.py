"""The TDD ledger, the cycle state derived from it, and the observation log.

``.phasegate/tdd/ledger.jsonl`` is append-only; each line is one entry, told apart by
``kind``: a judged pytest run (:class:`RunEntry`), a cross-review (:class:`ReviewEntry`), a
rollback (:class:`RollbackEntry`) or an accepted test (:class:`AcceptEntry`).
``.phasegate/tdd/state.json`` (:class:`TddState`) is derived from the ledger and can always be
rebuilt from it. ``.phasegate/tdd/log.jsonl`` holds :class:`Observation` lines.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, RootModel

from phasegate.model.base import ArtifactModel, Model
from phasegate.model.outcome import Outcome

__all__ = [
    "FINISHED_STATUSES",
    "AcceptEntry",
    "AcceptedFiles",
    "ComplexityFigures",
    "CycleState",
    "CycleStatus",
    "FailureClass",
    "FileHashes",
    "GreenState",
    "LedgerCollectionError",
    "LedgerGit",
    "LedgerLine",
    "LedgerMark",
    "LedgerTest",
    "Observation",
    "PendingRollback",
    "RequestedPhase",
    "ReviewEntry",
    "ReviewRecord",
    "ReviewStatus",
    "RollbackEntry",
    "RunEntry",
    "RunSummary",
    "StatusCode",
    "TddPhase",
    "TddState",
    "Violation",
]

TddPhase = Literal["phase0", "red", "green", "refactor"]
RequestedPhase = Literal["phase0", "red", "green", "refactor", "auto"]
#: RC red complete, GC green complete, RTC / RIC refactor complete for tests / implementation,
#: P0C phase 0 complete, TI test issue, TA test adjusted (a red cycle's tests changed).
StatusCode = Literal["RC", "GC", "RTC", "RIC", "P0C", "TI", "TA"]
ReviewStatus = Literal["approved", "changes_requested"]
CycleStatus = Literal["red", "green", "refactored", "closed"]
#: A cycle that passed green (and maybe a refactor) and that no later red has closed yet.
FINISHED_STATUSES: frozenset[CycleStatus] = frozenset({"green", "refactored"})


class _Part(Model):
    """A part of a TDD artifact. Validators are built on first use, not at import: every
    ``import phasegate.model`` (a ``pytest --gate`` run without ``--tdd``, too) would pay
    otherwise."""

    model_config = ConfigDict(defer_build=True)


class _Artifact(ArtifactModel):
    """A TDD artifact, built on first use like :class:`_Part`."""

    model_config = ConfigDict(defer_build=True)


class FailureClass(str, Enum):
    """Why a test did not pass, as the RED rule sees it."""

    ASSERTION = "assertion"
    NOT_IMPLEMENTED = "not-implemented"
    MISSING_SYMBOL = "missing-symbol"
    EXCEPTION = "exception"
    FIXTURE_ERROR = "fixture-error"
    TEARDOWN_ERROR = "teardown-error"
    COLLECTION_ERROR = "collection-error"
    SYNTAX_ERROR = "syntax-error"
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"


class FileHashes(_Part):
    """SHA-256 of each test and source file, by path relative to the project root."""

    source: dict[str, str] = Field(default_factory=dict)
    tests: dict[str, str] = Field(default_factory=dict)


class LedgerGit(_Part):
    """The commit a run tested (every field optional: ledger lines leave out nulls)."""

    sha: str | None = None
    branch: str | None = None
    dirty: bool = False


class LedgerTest(_Part):
    """One selected test of a run: how it ended and, if it failed, its failure class."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite the name

    nodeid: str
    outcome: Outcome
    failure_class: FailureClass | None = None
    right_reason: bool | None = Field(
        default=None, description="for a failure: whether it counts as a right-reason red"
    )
    detail: str | None = Field(
        default=None, description="for a failure: the exception and why it is classed so"
    )


class LedgerCollectionError(_Part):
    """A file that could not be collected."""

    nodeid: str
    failure_class: FailureClass
    detail: str


class Violation(_Part):
    """One rule the run broke, with what to do about it."""

    rule: str = Field(description="a stable id, e.g. green-changed-tests")
    message: str
    tests: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)


class ComplexityFigures(_Part):
    """radon's cyclomatic complexity over the source's functions and methods."""

    max: int = 0
    mean: float = 0.0
    total: int = 0
    blocks: int = 0
    worst: str | None = Field(default=None, description="path:name of the most complex block")


class _Entry(_Artifact):
    """A ledger line: it names the line before it, so the ledger is a chain."""

    previous: str | None = Field(
        default=None,
        description="SHA-256 of the ledger line before this one, as written (64 zeros for the "
        "first line); null in ledgers written before the chain",
    )


class RunEntry(_Entry):
    """One pytest run under ``--tdd``, judged."""

    KIND: ClassVar[str] = "tdd-run"

    kind: Literal["tdd-run"] = "tdd-run"
    run_id: str = Field(description="the run id of the run report")
    time: datetime
    requested: RequestedPhase
    phase: TddPhase = Field(description="the phase judged (inferred for auto)")
    starting_point: bool = Field(
        default=False, description="a green with no cycle: the state the ledger starts from"
    )
    cycles: list[str] = Field(default_factory=list, description="the cycles the run was for")
    cycle_tests: list[str] = Field(
        default_factory=list, description="the tests of the cycle, for a red"
    )
    closes: list[str] = Field(
        default_factory=list, description="cycles this run closed (a red starting a new one)"
    )
    command: list[str]
    actor: str | None = None
    git: LedgerGit | None = None
    tree: str | None = Field(
        default=None,
        description="the git tree id of the work tree at the run (untracked files that are not "
        "ignored included), kept reachable by refs/phasegate/tdd/<run_id>; null outside git",
    )
    content_hash: str = Field(description="SHA-256 over every test and source file's hash")
    files: FileHashes
    tests: list[LedgerTest] = Field(default_factory=list)
    collection_errors: list[LedgerCollectionError] = Field(default_factory=list)
    verdict: Literal["passed", "failed"]
    status: list[StatusCode] = Field(default_factory=list)
    violations: list[Violation] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    complexity: dict[str, ComplexityFigures] = Field(
        default_factory=dict, description="for a refactor: 'green' and 'now'"
    )


class ReviewEntry(_Entry):
    """A cross-review of one cycle (the workflow's review outcome, per cycle)."""

    KIND: ClassVar[str] = "tdd-review"

    kind: Literal["tdd-review"] = "tdd-review"
    time: datetime
    cycle: str
    status: ReviewStatus
    reviewer: str = Field(min_length=1)
    note: str = ""
    round: int = Field(default=0, ge=0)


class RollbackEntry(_Entry):
    """Files restored to the last green state after a refactor regression."""

    KIND: ClassVar[str] = "tdd-rollback"

    kind: Literal["tdd-rollback"] = "tdd-rollback"
    time: datetime
    failed_run: str = Field(description="the refactor run that regressed")
    green_run: str = Field(description="the run whose state was restored")
    restored: list[str] = Field(default_factory=list, description="files written back")
    removed: list[str] = Field(default_factory=list, description="files absent at green")
    backup: dict[str, str] = Field(
        default_factory=dict,
        description="the replaced content of each file, as a hash in tdd/objects/",
    )


class AcceptEntry(_Entry):
    """Tests accepted without a red (renamed tests, characterization tests), with the reason."""

    KIND: ClassVar[str] = "tdd-accept"

    kind: Literal["tdd-accept"] = "tdd-accept"
    time: datetime
    tests: list[str] = Field(min_length=1)
    reason: str = Field(min_length=1)
    by: str = Field(min_length=1)


class LedgerLine(
    RootModel[
        Annotated[RunEntry | ReviewEntry | RollbackEntry | AcceptEntry, Field(discriminator="kind")]
    ]
):
    """Any line of the ledger."""


# -- the derived state ---------------------------------------------------------------------


class LedgerMark(_Part):
    """How much of the ledger a cached state covers, to tell when it must be rebuilt."""

    size: int = Field(ge=0)
    mtime_ns: int
    tail_sha256: str = Field(description="of the last bytes covered")
    entries: int = Field(ge=0)


class ReviewRecord(_Part):
    """A review as the cycle keeps it."""

    status: ReviewStatus
    reviewer: str
    time: datetime
    round: int = 0


class CycleState(_Part):
    """One cycle, as the ledger tells it."""

    id: str
    status: CycleStatus
    tests: list[str] = Field(default_factory=list)
    opened_run: str
    red_run: str | None = None
    green_run: str | None = None
    last_run: str | None = None
    round: int = Field(default=0, description="0 until green; +1 per changes requested")
    reviews: list[ReviewRecord] = Field(default_factory=list)
    closed_by: str | None = None


class GreenState(_Part):
    """The last state in which everything the run selected passed."""

    run_id: str
    phase: TddPhase
    time: datetime
    passed: list[str] = Field(default_factory=list)
    others: dict[str, str] = Field(
        default_factory=dict, description="tests present but not passed, with their outcome"
    )
    files: FileHashes


class AcceptedFiles(_Part):
    """The files of the last run whose verdict passed (or of the state a rollback restored)."""

    run_id: str
    files: FileHashes


class PendingRollback(_Part):
    """A refactor that regressed and what the files were then."""

    failed_run: str
    files: FileHashes
    broken: list[str] = Field(default_factory=list)


class RunSummary(_Part):
    """The last judged run."""

    run_id: str
    time: datetime
    phase: TddPhase
    verdict: Literal["passed", "failed"]
    cycles: list[str] = Field(default_factory=list)
    status: list[StatusCode] = Field(default_factory=list)
    violations: list[str] = Field(default_factory=list, description="the rule ids")


class TddState(_Artifact):
    """Everything the rules need to know about the past, derived from the ledger."""

    KIND: ClassVar[str] = "tdd-state"

    kind: Literal["tdd-state"] = "tdd-state"
    ledger: LedgerMark | None = None
    runs: int = 0
    cycles: dict[str, CycleState] = Field(default_factory=dict)
    green: GreenState | None = None
    accepted: AcceptedFiles | None = None
    seen_red: list[str] = Field(
        default_factory=list, description="tests seen failing in a red that passed the rule"
    )
    accepted_tests: dict[str, str] = Field(
        default_factory=dict, description="tests accepted without a red, with the reason"
    )
    pending_rollback: PendingRollback | None = None
    last_run: RunSummary | None = None


# -- the observation log -------------------------------------------------------------------


class Observation(_Artifact):
    """One line of a cycle's session log: round, actor, status, content."""

    KIND: ClassVar[str] = "tdd-observation"

    kind: Literal["tdd-observation"] = "tdd-observation"
    time: datetime
    session: str = Field(description="the cycle the observation belongs to ('-' for none)")
    round: int = Field(ge=0)
    actor: str = Field(min_length=1)
    status: str = Field(min_length=1)
    content: str
    run_id: str | None = Field(default=None, description="the ledger run it reports, if any")
    confirmed: bool | None = Field(
        default=None,
        description="for a status code an actor claims: whether the ledger has it for the cycle",
    )
