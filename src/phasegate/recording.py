"""Turn the phase reports of a pytest run into test records, counts and a completeness verdict.

The pytest plugin hands over plain :class:`PhaseReport` values (no pytest objects), so this
module is the same whether the run was serial or spread over pytest-xdist workers, and it is
tested without running pytest.

Why plain dicts and not the pydantic models: this is the one path whose cost grows with the
number of tests, and ``benchmarks/overhead.py`` holds it to 5% of a plain pytest run. Building
thousands of models (and even creating the model classes) costs several times that budget;
building the JSON-ready dicts (typed by :mod:`phasegate.documents`) and encoding them with the
standard library's C encoder does not.

Until a feature reads the records, the plugin keeps a test whose three phases plainly passed
(nearly every test) as a :class:`PassedRow`, one tuple, instead of a record's seven
containers: :class:`RecordedTests` holds the run's rows and records and builds the records
only when one is first read, and a run that only records its tests writes the rows straight
to JSON through a template (:func:`encode_passed_row` says why, with the figures) and never
builds their dicts.
:func:`count` and :func:`check_completeness` take rows and records alike.
:class:`phasegate.model.RunReport` stays the contract: ``tests/test_recording.py`` checks that
what is built here validates against it and serializes back to exactly the same JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import NamedTuple, overload

from phasegate.documents import (
    CollectionErrorDocument,
    CountsDocument,
    FailureDocument,
    OutcomeName,
    PhaseDocument,
    RunDocument,
    TestRecordDocument,
)

__all__ = [
    "MAX_SUBTESTS_NAMED",
    "PassedRow",
    "PhaseReport",
    "RecordedTests",
    "TestRow",
    "bound_text",
    "build_record",
    "build_test_records",
    "check_completeness",
    "count",
    "encode_passed_row",
    "encode_report",
    "materialize",
    "passed_record",
    "to_microsecond",
]

#: How many missing or unexpected node ids an incompleteness reason lists before "and N more".
_IDS_SHOWN = 5

_OUTCOMES: tuple[OutcomeName, ...] = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


@dataclass(slots=True)
class PhaseReport:
    """What one pytest phase report says, in plain values.

    Durations are kept to the microsecond: finer digits are noise, and writing them costs time.
    """

    nodeid: str
    when: str  # "setup", "call" or "teardown"
    outcome: str  # "passed", "failed" or "skipped"
    duration_s: float
    location: tuple[str, int | None, str]
    wasxfail: str | None = None
    skip_reason: str | None = None
    failure: FailureDocument | None = None
    markers: Sequence[str] | None = None
    worker: str | None = None
    #: Set on the report of one subtest (``self.subTest(...)`` or the ``subtests`` fixture):
    #: how pytest names it, e.g. ``[message] (i=1)``.
    subtest: str | None = None


#: How many failed subtests a record names before it says how many more failed.
MAX_SUBTESTS_NAMED = 20


def to_microsecond(seconds: float) -> float:
    """``seconds`` rounded to the microsecond (half up), as the report keeps every duration.

    Five times cheaper than ``round(seconds, 6)``, which goes through a decimal string; the
    quotient of a whole number of microseconds by 10**6 is the double nearest that decimal,
    so it is written as the same short text.

    A negative duration is 0: pytest times phases with :func:`time.perf_counter`, which a test
    that freezes the clock (freezegun) fakes from setup to teardown, so pytest can report a
    phase that ended years before it began.
    """
    return int(seconds * 1_000_000 + 0.5) / 1_000_000 if seconds > 0 else 0.0


def bound_text(text: str, limit: int) -> tuple[str, bool]:
    """Keep at most ``limit`` characters of ``text``, from its end; say whether it was cut."""
    if len(text) <= limit:
        return text, False
    marker = "[... cut by phasegate ...]\n"
    return marker + text[-(limit - len(marker)) :], True


def build_test_records(
    phases: Iterable[PhaseReport], markers: Mapping[str, Sequence[str]] | None = None
) -> list[TestRecordDocument]:
    """One test record per node id, in the order the tests first reported.

    ``markers`` gives marker names by node id where the phases do not carry them.
    """
    grouped: dict[str, list[PhaseReport]] = {}
    for phase in phases:
        bucket = grouped.get(phase.nodeid)
        if bucket is None:
            grouped[phase.nodeid] = [phase]
        else:
            bucket.append(phase)
    known_markers = markers or {}
    return [build_record(nodeid, bucket, known_markers) for nodeid, bucket in grouped.items()]


def passed_record(
    nodeid: str,
    location: tuple[str, int | None, str],
    durations: tuple[float, float, float],
    markers: Sequence[str],
) -> TestRecordDocument:
    """The record of a test whose setup, call and teardown passed (none under xfail).

    The same record :func:`build_record` builds from those three phases, built without them.
    ``durations`` are the phases' seconds, already rounded by :func:`to_microsecond`.
    """
    setup_s, call_s, teardown_s = durations
    path, line, domain = location
    return {
        "nodeid": nodeid,
        "outcome": "passed",
        "phases": {
            "setup": {"outcome": "passed", "duration_s": setup_s},
            "call": {"outcome": "passed", "duration_s": call_s},
            "teardown": {"outcome": "passed", "duration_s": teardown_s},
        },
        "duration_s": to_microsecond(setup_s + call_s + teardown_s),
        "location": {"path": path, "line": None if line is None else line + 1, "domain": domain},
        "markers": list(markers),
        "reason": None,
        "failure": None,
        "worker": None,
        "failed_subtests": [],
    }


class PassedRow(NamedTuple):
    """A test whose setup, call and teardown plainly passed, none under xfail.

    The plugin keeps such a test so until a record is asked for; :func:`materialize` turns it
    into the :func:`passed_record` of these values.
    """

    nodeid: str
    #: As pytest gives it: ``(path, 0-based line, domain)``.
    location: tuple[str, int | None, str]
    #: The phases' seconds, rounded by :func:`to_microsecond`.
    setup_s: float
    call_s: float
    teardown_s: float
    markers: Sequence[str]


#: What the list of a run's tests holds before :func:`materialize`: rows and records.
TestRow = PassedRow | TestRecordDocument


def materialize(rows: Iterable[TestRow]) -> list[TestRecordDocument]:
    """The test records of ``rows``: each :class:`PassedRow` built, each record as it is."""
    return [
        passed_record(
            row.nodeid, row.location, (row.setup_s, row.call_s, row.teardown_s), row.markers
        )
        if isinstance(row, PassedRow)
        else row
        for row in rows
    ]


class RecordedTests(Sequence[TestRecordDocument]):
    """A run's tests as records, kept as rows until one of them is first read.

    The recorder puts this in the run document's ``tests``: a feature that reads the records
    (the TDD judge, auto-debug, the gate) gets them built once; a run that only records writes
    the rows without ever building a record (:func:`encode_report`).
    """

    __slots__ = ("_records", "_rows")

    def __init__(self, rows: Sequence[TestRow]) -> None:
        self._rows = rows
        self._records: list[TestRecordDocument] | None = None

    @property
    def rows(self) -> Sequence[TestRow]:
        """The rows and records as recorded; the records instead, once they were built."""
        return self._rows if self._records is None else self._records

    def _built(self) -> list[TestRecordDocument]:
        if self._records is None:
            self._records = materialize(self._rows)
        return self._records

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> TestRecordDocument: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[TestRecordDocument]: ...

    def __getitem__(self, index: int | slice) -> TestRecordDocument | Sequence[TestRecordDocument]:
        return self._built()[index]

    def __iter__(self) -> Iterator[TestRecordDocument]:
        return iter(self._built())


def build_record(
    nodeid: str, bucket: Sequence[PhaseReport], known_markers: Mapping[str, Sequence[str]]
) -> TestRecordDocument:
    """The test record of one test from its phases, in the order they came.

    A subtest's report is not a phase of its own: a failed subtest fails the test, as it
    fails pytest's run, even when the test's own call passed (unittest's ``subTest`` leaves
    the call passed; the ``subtests`` fixture has pytest mark it failed without an exception).
    The first failed subtest's failure is the test's, unless the call raised one itself.
    A test that skips itself after a subtest failed is failed too: pytest counts the failure.
    """
    gathered = _gather(bucket)
    outcome, reason, failure = _judge(gathered)
    path, line, domain = bucket[0].location
    markers = gathered.markers
    return {
        "nodeid": nodeid,
        "outcome": outcome,
        "phases": gathered.phases,
        "duration_s": to_microsecond(gathered.total_s),
        "location": {"path": path, "line": None if line is None else line + 1, "domain": domain},
        "markers": list(markers if markers is not None else known_markers.get(nodeid, ())),
        "reason": reason,
        "failure": failure,
        "worker": gathered.worker,
        "failed_subtests": _subtest_names(gathered.failed_subtests),
    }


@dataclass(slots=True)
class _Gathered:
    """The phases of one test, sorted out: its own phases by name, its failed subtests."""

    phases: dict[str, PhaseDocument] = field(default_factory=dict)
    by_when: dict[str, PhaseReport] = field(default_factory=dict)
    total_s: float = 0.0
    #: Every phase passed, none under xfail: the common case needs no rules.
    plain: bool = True
    markers: Sequence[str] | None = None
    worker: str | None = None
    failed_subtests: list[PhaseReport] = field(default_factory=list)

    def add_phase(self, phase: PhaseReport) -> None:
        self.by_when[phase.when] = phase
        self.phases[phase.when] = {"outcome": phase.outcome, "duration_s": phase.duration_s}
        self.total_s += phase.duration_s
        if phase.outcome != "passed" or phase.wasxfail is not None:
            self.plain = False


def _gather(bucket: Sequence[PhaseReport]) -> _Gathered:
    gathered = _Gathered()
    for phase in bucket:
        if phase.markers is not None:
            gathered.markers = phase.markers
        if phase.worker is not None:
            gathered.worker = phase.worker
        if phase.subtest is None:
            gathered.add_phase(phase)
        elif phase.outcome == "failed" and phase.wasxfail is None:
            gathered.failed_subtests.append(phase)
    return gathered


def _judge(gathered: _Gathered) -> tuple[OutcomeName, str | None, FailureDocument | None]:
    """The test's outcome, the reason it was skipped or xfailed, and its failure."""
    failed_subtests = gathered.failed_subtests
    if gathered.plain and "call" in gathered.by_when and not failed_subtests:
        return "passed", None, None
    outcome, decisive = _outcome(gathered.by_when)
    failure = decisive.failure if decisive is not None else None
    if failed_subtests and outcome in ("passed", "failed", "xpassed", "skipped"):
        if outcome != "failed" or failure is None or failure["exc_type"] == "unknown":
            failure = failed_subtests[0].failure  # pytest's own call failure says less
        return "failed", None, failure
    return outcome, _reason(decisive, outcome), failure


def _subtest_names(failed: Sequence[PhaseReport]) -> list[str]:
    names = [str(phase.subtest) for phase in failed[:MAX_SUBTESTS_NAMED]]
    if len(failed) > MAX_SUBTESTS_NAMED:
        names.append(f"... and {len(failed) - MAX_SUBTESTS_NAMED} more")
    return names


def _outcome(phases: dict[str, PhaseReport]) -> tuple[OutcomeName, PhaseReport | None]:
    """The test's outcome and the phase that decided it, by pytest's own rules."""
    setup, call, teardown = phases.get("setup"), phases.get("call"), phases.get("teardown")
    if setup is not None and setup.outcome != "passed":
        return _not_passed(setup, failed="error")
    if call is not None and call.outcome != "passed":
        return _not_passed(call, failed="failed")
    if teardown is not None and teardown.outcome == "failed":
        return "error", teardown
    if call is not None:
        return ("xpassed" if call.wasxfail is not None else "passed"), call
    # No call phase and nothing failed: the run stopped between setup and call.
    return "error", None


def _not_passed(phase: PhaseReport, *, failed: OutcomeName) -> tuple[OutcomeName, PhaseReport]:
    """A phase that failed (``failed`` names what that makes the test) or skipped."""
    if phase.outcome == "failed":
        return failed, phase
    return ("xfailed" if phase.wasxfail is not None else "skipped"), phase


def _reason(decisive: PhaseReport | None, outcome: str) -> str | None:
    if decisive is None:
        return "the test has no call phase: the run stopped while it was set up"
    if outcome in ("xfailed", "xpassed"):
        return decisive.wasxfail or None
    if outcome == "skipped":
        return decisive.skip_reason
    return None


def count(
    records: Sequence[TestRow],
    *,
    collected: int,
    deselected: int = 0,
    collection_errors: int = 0,
    skipped_at_collection: int = 0,
) -> CountsDocument:
    """Per-test counts; ``collected`` is after deselection. ``records`` may hold rows too."""
    tally = dict.fromkeys(_OUTCOMES, 0)
    for record in records:
        tally["passed" if isinstance(record, PassedRow) else record["outcome"]] += 1
    return {
        "collected": collected,
        "passed": tally["passed"],
        "failed": tally["failed"],
        "errors": tally["error"],
        "skipped": tally["skipped"],
        "xfailed": tally["xfailed"],
        "xpassed": tally["xpassed"],
        "deselected": deselected,
        "collection_errors": collection_errors,
        "skipped_at_collection": skipped_at_collection,
    }


def check_completeness(
    collected_ids: Sequence[str] | None,
    records: Sequence[TestRow],
    *,
    collection_errors: Sequence[CollectionErrorDocument] = (),
    interrupted: str | None = None,
    pytest_failures: int = 0,
) -> list[str]:
    """Why the run's report does not cover exactly the tests collected (empty if it does).

    ``records`` may hold :class:`PassedRow` tuples too. ``pytest_failures`` is how many
    failures pytest itself counted (``session.testsfailed``, what its exit status follows):
    when pytest failed the run and no record shows a failure, the records missed something,
    and the run cannot be judged by them.
    """
    reasons: list[str] = []
    if interrupted:
        reasons.append(interrupted)
    if pytest_failures > 0 and not collection_errors and not _any_failed(records):
        reasons.append(
            f"pytest counted {pytest_failures} failure(s) that no test record shows: "
            f"phasegate did not recognise how they were reported"
        )
    if collection_errors:
        names = ", ".join(error["nodeid"] for error in collection_errors[:_IDS_SHOWN])
        reasons.append(f"{len(collection_errors)} collection error(s): {names}")
    if collected_ids is None:
        reasons.append("the collected tests were never reported, so completeness is unknown")
        return reasons
    return reasons + _unmatched(collected_ids, records)


def _unmatched(collected_ids: Sequence[str], records: Sequence[TestRow]) -> list[str]:
    """Why the tests reported are not exactly the tests collected, once each."""
    reasons: list[str] = []
    reported = [
        record.nodeid if isinstance(record, PassedRow) else record["nodeid"] for record in records
    ]
    reported_set = set(reported)
    expected = set(collected_ids)
    if len(expected) != len(collected_ids):
        reasons.append("the collection lists some node ids more than once")
    missing = [nodeid for nodeid in collected_ids if nodeid not in reported_set]
    unexpected = [nodeid for nodeid in reported if nodeid not in expected]
    if missing:
        reasons.append(f"{len(missing)} collected test(s) have no result: {_ids(missing)}")
    if unexpected:
        reasons.append(
            f"{len(unexpected)} result(s) for tests that were not collected: {_ids(unexpected)}"
        )
    return reasons


def _any_failed(records: Sequence[TestRow]) -> bool:
    return any(
        not isinstance(record, PassedRow) and record["outcome"] in ("failed", "error")
        for record in records
    )


def encode_report(report: RunDocument) -> str:
    """The run report as compact JSON text (one line, UTF-8 safe), ending in a newline.

    The same text as ``json.dumps(report, ensure_ascii=False, separators=(",", ":"))`` writes
    once the tests are records; the tests are written one by one, a :class:`PassedRow` (a
    :class:`RecordedTests` whose records were never read) by :func:`encode_passed_row`.
    """
    parts = []
    for key, value in report.items():
        if key == "tests":
            tests = report["tests"]
            rows = tests.rows if isinstance(tests, RecordedTests) else tests
            text = "[" + ",".join([_encode_test(test) for test in rows]) + "]"
        else:
            text = _encode(value)
        parts.append(f"{_encode_string(key)}:{text}")
    return "{" + ",".join(parts) + "}\n"


def _encode_test(test: TestRow) -> str:
    return encode_passed_row(test) if isinstance(test, PassedRow) else _encode(test)


def encode_passed_row(row: PassedRow) -> str:
    """The JSON text of the :func:`passed_record` of ``row``, written without building it.

    The same text as ``json.dumps(materialize([row])[0])``, written by a template: the key
    names and the values a plain pass always has are constants, and only the node id, the
    location, the four durations and the markers are encoded. Nearly every test of a run is
    written this way, so it is the encoding cost that grows with the suite. Why a template and
    not ``json.dumps`` of the records, measured by ``benchmarks/report_encoding.py`` (figures in
    ``docs/performance.md``): the template takes about 26,000 instructions a test; building the
    records and encoding them with the standard library's C encoder takes 70,000 to 81,000 (it
    escapes each of a record's two dozen keys again for every record, and the record's seven
    containers must be built first). On the 5,000-test suite of ``benchmarks/overhead.py``
    that is +1.5% to +1.9% of a plain run, on top of the +3.3% recording costs with the
    template: past the 5% budget.
    """
    nodeid, (path, line, domain), setup_s, call_s, teardown_s, markers = row
    return (
        f'{{"nodeid":{_encode_string(nodeid)},"outcome":"passed",'
        f'"phases":{{"setup":{{"outcome":"passed","duration_s":{_float(setup_s)}}},'
        f'"call":{{"outcome":"passed","duration_s":{_float(call_s)}}},'
        f'"teardown":{{"outcome":"passed","duration_s":{_float(teardown_s)}}}}},'
        f'"duration_s":{_float(to_microsecond(setup_s + call_s + teardown_s))},'
        f'"location":{{"path":{_encode_string(path)},'
        f'"line":{"null" if line is None else int(line) + 1},'
        f'"domain":{_encode_string(domain)}}},'
        f'"markers":[{",".join([_encode_string(name) for name in markers]) if markers else ""}],'
        '"reason":null,"failure":null,"worker":null,"failed_subtests":[]}'
    )


#: check_circular=False: a report is a tree built here, and the check costs ~10%.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
#: A JSON string literal, escaped as the encoder above escapes it.
_encode_string = encode_basestring
#: A finite float as JSON writes it (durations are never infinite or NaN).
_float = float.__repr__


def _ids(nodeids: Sequence[str]) -> str:
    shown = ", ".join(nodeids[:_IDS_SHOWN])
    extra = len(nodeids) - _IDS_SHOWN
    return shown if extra <= 0 else f"{shown} and {extra} more"
