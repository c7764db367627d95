"""The run report as plain JSON data: the typed shapes its writers build and its readers read.

``.phasegate/report.json`` is built per test on the hot path, where pydantic models cost
several times the recording budget (see :mod:`phasegate.recording`), so the recorder builds
dicts, and the features of the same run (the TDD judge, auto-debug, the terminal summary)
read those dicts. These :class:`~typing.TypedDict` classes give the dicts their keys and
types: plain dicts at run time (nothing here costs a cycle), checked by mypy where they are
built and where they are read. Each mirrors one model of :mod:`phasegate.model.run`, which
stays the contract (``tests/test_documents.py`` holds every key here to the model's fields).

This module imports nothing of phasegate, so the recorder, the plugin, the engines and the
renderers all import it without a cycle. It is imported by every recorded run, so its
annotations are evaluated as the classes are built (no ``from __future__ import annotations``):
as strings, ``TypedDict`` compiles each into a ``ForwardRef``, and importing the module cost 9.0
million instructions instead of 4.1 (callgrind, Python 3.11). A class is used in an annotation
only after it is defined.
"""

from collections.abc import Sequence
from typing import Literal, TypedDict

__all__ = [
    "CollectionErrorDocument",
    "CollectionSkipDocument",
    "CountsDocument",
    "EnvironmentDocument",
    "FailureDocument",
    "GitDocument",
    "InvocationDocument",
    "LocationDocument",
    "MergeDocument",
    "MergedShardDocument",
    "OutcomeName",
    "PhaseDocument",
    "RaisedDocument",
    "RunDocument",
    "ShardDocument",
    "TestRecordDocument",
]

#: How a test ended (:class:`phasegate.model.outcome.Outcome`'s values).
OutcomeName = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]


class PhaseDocument(TypedDict):
    """How one phase of a test ended (``PhaseResult``); ``outcome`` as pytest names it."""

    outcome: str
    duration_s: float


class LocationDocument(TypedDict):
    """Where a test is defined (``Location``); ``line`` is 1-based."""

    path: str
    line: int | None
    domain: str


class RaisedDocument(TypedDict):
    """The live exception of a failure, before pytest's traceback text is added."""

    phase: str
    exc_type: str
    message: str
    path: str | None
    line: int | None


class FailureDocument(RaisedDocument):
    """What went wrong in a failing phase (``Failure``)."""

    traceback: str
    traceback_truncated: bool


class TestRecordDocument(TypedDict):
    """One test of the run and how it ended (``TestRecord``)."""

    nodeid: str
    outcome: OutcomeName
    phases: dict[str, PhaseDocument]
    duration_s: float
    location: LocationDocument
    markers: list[str]
    reason: str | None
    failure: FailureDocument | None
    worker: str | None
    failed_subtests: list[str]


class CountsDocument(TypedDict):
    """How many tests ended each way (``Counts``)."""

    collected: int
    passed: int
    failed: int
    errors: int
    skipped: int
    xfailed: int
    xpassed: int
    deselected: int
    collection_errors: int
    skipped_at_collection: int


class EnvironmentDocument(TypedDict):
    """The interpreter, platform and versions of the run (``Environment``)."""

    python: str
    implementation: str
    platform: str
    pytest: str
    phasegate: str
    plugins: dict[str, str]


class GitDocument(TypedDict):
    """The commit the run tested (``GitInfo``)."""

    sha: str | None
    branch: str | None
    dirty: bool


class InvocationDocument(TypedDict):
    """How pytest was called (``Invocation``)."""

    args: list[str]
    invocation_dir: str
    rootdir: str
    workers: int


class CollectionErrorDocument(TypedDict):
    """A collector that could not be collected (``CollectionError``)."""

    nodeid: str
    failure: FailureDocument


class CollectionSkipDocument(TypedDict):
    """A collector skipped while collected (``CollectionSkip``)."""

    nodeid: str
    reason: str
    path: str | None
    line: int | None


class ShardDocument(TypedDict):
    """Which part of a split suite the run was (``ShardInfo``)."""

    index: int
    total: int
    suite_size: int
    suite_digest: str
    gate: str | None


class MergedShardDocument(TypedDict):
    """One shard that went into a merged report (``MergedShard``)."""

    index: int
    total: int
    run_id: str
    source: str
    collected: int
    duration_s: float


class MergeDocument(TypedDict):
    """Marks a report made from shard reports (``MergeInfo``)."""

    shards: list[MergedShardDocument]
    suite_size: int
    suite_digest: str


class RunDocument(TypedDict):
    """The complete record of one run (``RunReport``), as ``report.json`` holds it.

    ``tests`` is a read-only sequence: the recorder hands the features a sequence that builds
    the records only when one is first read (:class:`phasegate.recording.RecordedTests`).
    """

    schema_version: str
    kind: Literal["run-report"]
    run_id: str
    started_at: str
    finished_at: str
    duration_s: float
    environment: EnvironmentDocument
    git: GitDocument | None
    invocation: InvocationDocument
    exit_status: int
    counts: CountsDocument
    incomplete: bool
    incomplete_reasons: list[str]
    tests: Sequence[TestRecordDocument]
    collection_errors: list[CollectionErrorDocument]
    collection_skips: list[CollectionSkipDocument]
    warnings: list[str]
    shard: ShardDocument | None
    merged: MergeDocument | None
