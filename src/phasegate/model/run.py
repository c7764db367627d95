"""The run report: one record per test and a summary of the whole pytest run.

``.phasegate/report.json`` holds a :class:`RunReport`. Counts are per test, so they always
add up to ``collected``: a test whose call failed and whose teardown also failed counts once,
as ``failed`` (pytest's own summary line counts it twice, as a failure and an error).
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel, Model
from phasegate.model.outcome import Outcome

__all__ = [
    "CollectionError",
    "CollectionSkip",
    "Counts",
    "Environment",
    "Failure",
    "GitInfo",
    "Invocation",
    "Location",
    "MergeInfo",
    "MergedShard",
    "Outcome",
    "PhaseName",
    "PhaseOutcome",
    "PhaseResult",
    "RunReport",
    "ShardInfo",
    "TestRecord",
]

PhaseName = Literal["setup", "call", "teardown"]
PhaseOutcome = Literal["passed", "failed", "skipped"]


class PhaseResult(Model):
    """How one phase (setup, call or teardown) of a test ended."""

    outcome: PhaseOutcome
    duration_s: float = Field(ge=0)


class Location(Model):
    """Where a test is defined; ``path`` is relative to the rootdir, with ``/`` separators."""

    path: str
    line: int | None = Field(default=None, description="1-based line of the test definition")
    domain: str = Field(description="the test's name as pytest shows it, e.g. TestX.test_y")


class Failure(Model):
    """What went wrong in a failing phase, taken from the live exception."""

    phase: Literal["setup", "call", "teardown", "collect"]
    exc_type: str = Field(description="the exception's class; qualified unless a builtin")
    message: str = Field(description="str() of the exception, bounded")
    path: str | None = Field(
        default=None, description="file of the frame that raised, relative to the rootdir"
    )
    line: int | None = Field(default=None, description="1-based line of the raising frame")
    traceback: str = Field(default="", description="the end of pytest's failure text")
    traceback_truncated: bool = False


class TestRecord(Model):
    """One test of the run and how it ended."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite the name

    nodeid: str
    outcome: Outcome
    phases: dict[PhaseName, PhaseResult]
    duration_s: float = Field(ge=0, description="setup + call + teardown")
    location: Location
    markers: list[str] = Field(default_factory=list)
    reason: str | None = Field(default=None, description="why it was skipped or xfailed")
    failure: Failure | None = None
    worker: str | None = Field(default=None, description="the pytest-xdist worker that ran it")
    failed_subtests: list[str] = Field(
        default_factory=list,
        description="the subtests that failed (unittest's subTest or the subtests fixture), "
        "as pytest names them; any of them fails the test",
    )


class CollectionError(Model):
    """A file or collector that could not be collected."""

    nodeid: str
    failure: Failure


class CollectionSkip(Model):
    """A file or collector skipped while it was collected (a module-level ``importorskip``).

    Its tests were never collected, so no count of tests can hold them: pytest counts each
    such collector as one skip, and so does the tests check.
    """

    nodeid: str
    reason: str = Field(description="the skip's message, e.g. could not import 'numpy'")
    path: str | None = Field(default=None, description="file of the skip, relative to the rootdir")
    line: int | None = Field(default=None, description="1-based line of the skip")


class Counts(Model):
    """How many tests ended each way; ``collected`` is after deselection.

    ``deselected``, ``collection_errors`` and ``skipped_at_collection`` count what is outside
    ``collected``: tests deselected (``-k``, ``-m``, ``--deselect``, a hook), and collectors that
    failed or were skipped while collected.
    """

    collected: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    xpassed: int = 0
    deselected: int = 0
    collection_errors: int = 0
    skipped_at_collection: int = Field(
        default=0, description="files or collectors skipped while collected (one each)"
    )


class Environment(Model):
    """The interpreter, platform and plugin versions the run used."""

    python: str
    implementation: str
    platform: str
    pytest: str
    phasegate: str
    plugins: dict[str, str] = Field(
        default_factory=dict, description="pytest plugin distributions and their versions"
    )


class GitInfo(Model):
    """The commit the run tested; ``dirty``: a tracked file changed, or one not ignored is new."""

    sha: str | None
    branch: str | None
    dirty: bool


class Invocation(Model):
    """How pytest was called."""

    args: list[str]
    invocation_dir: str
    rootdir: str
    workers: int = Field(default=0, description="pytest-xdist workers; 0 for a serial run")


class ShardInfo(Model):
    """Which part of a suite split across CI jobs this run was (``--shard=K/N``).

    phasegate chose the run's tests itself: every ``N``-th of the suite's node ids in sorted
    order, starting at the ``K``-th. ``suite_size`` and ``suite_digest`` describe the whole
    suite as this shard collected it, so that ``phasegate merge`` can prove the shards of one
    suite add up to all of it.
    """

    index: int = Field(ge=1, description="K, from 1")
    total: int = Field(ge=1, description="N")
    suite_size: int = Field(ge=0, description="tests of the whole suite before the split")
    suite_digest: str = Field(description="sha256 of the suite's sorted node ids")
    gate: str | None = Field(default=None, description="the gate the merged run is judged by")


class MergedShard(Model):
    """One shard that went into a merged report."""

    index: int
    total: int
    run_id: str
    source: str = Field(description="the folder the shard's artifacts were read from")
    collected: int
    duration_s: float


class MergeInfo(Model):
    """Marks a report that ``phasegate merge`` made from shard reports."""

    shards: list[MergedShard]
    suite_size: int
    suite_digest: str


class RunReport(ArtifactModel):
    """The complete record of one ``pytest --gate`` run."""

    KIND: ClassVar[str] = "run-report"

    kind: Literal["run-report"] = "run-report"
    run_id: str
    started_at: datetime
    finished_at: datetime
    duration_s: float = Field(ge=0)
    environment: Environment
    git: GitInfo | None = Field(default=None, description="null outside a git work tree")
    invocation: Invocation
    exit_status: int = Field(description="the exit status pytest returned")
    counts: Counts
    incomplete: bool = Field(
        description="true when the tests reported differ from the tests collected"
    )
    incomplete_reasons: list[str] = Field(default_factory=list)
    tests: list[TestRecord] = Field(default_factory=list)
    collection_errors: list[CollectionError] = Field(default_factory=list)
    collection_skips: list[CollectionSkip] = Field(
        default_factory=list, description="collectors skipped while collected, with their reasons"
    )
    warnings: list[str] = Field(
        default_factory=list, description="what phasegate noticed about its own artifacts"
    )
    shard: ShardInfo | None = Field(default=None, description="set when this run is a shard")
    merged: MergeInfo | None = Field(
        default=None, description="set when this report merges shard reports"
    )
