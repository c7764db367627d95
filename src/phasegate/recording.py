"""Turn the phase reports of a pytest run into test records, counts and a completeness verdict.

The pytest plugin hands over plain :class:`PhaseReport` values (no pytest objects), so this
module is the same whether the run was serial or spread over pytest-xdist workers, and it is
tested without running pytest.

Why plain dicts and not the pydantic models: this is the one path whose cost grows with the
number of tests, and ``benchmarks/overhead.py`` holds it to 5% of a plain pytest run. Building
thousands of models (and even creating the model classes) costs several times that budget;
building the JSON-ready dicts and encoding them with the standard library's C encoder does not
(a plainly passed test's record, nearly every record, goes through a faster template:
:func:`encode_record` says why).

Until a feature reads the records, the plugin keeps such a test as a :data:`PassedRow`, one
tuple, instead of a record's seven containers: a run that only records its tests writes the
rows straight to JSON (:func:`encode_report`) and never builds their dicts;
:func:`materialize` builds them for whoever reads the records. :func:`count` and
:func:`check_completeness` take rows and records alike.
:class:`phasegate.model.RunReport` stays the contract: ``tests/test_recording.py`` checks that
what is built here validates against it and serializes back to exactly the same JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any

__all__ = [
    "MAX_SUBTESTS_NAMED",
    "PassedRecord",
    "PassedRow",
    "PhaseReport",
    "TestRow",
    "bound_text",
    "build_record",
    "build_test_records",
    "check_completeness",
    "count",
    "encode_record",
    "encode_report",
    "materialize",
    "passed_record",
    "to_microsecond",
]

#: How many missing or unexpected node ids an incompleteness reason lists before "and N more".
_IDS_SHOWN = 5

_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


@dataclass(slots=True)
class PhaseReport:
    """What one pytest phase report says, in plain values.

    ``failure`` is a dict shaped like :class:`phasegate.model.run.Failure`. Durations are
    kept to the microsecond: finer digits are noise, and writing them costs time.
    """

    nodeid: str
    when: str  # "setup", "call" or "teardown"
    outcome: str  # "passed", "failed" or "skipped"
    duration_s: float
    location: tuple[str, int | None, str]
    wasxfail: str | None = None
    skip_reason: str | None = None
    failure: dict[str, Any] | None = None
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
) -> list[dict[str, Any]]:
    """One ``TestRecord``-shaped dict per node id, in the order the tests first reported.

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


class PassedRecord(dict[str, Any]):
    """The record of a test whose three phases plainly passed, as :func:`passed_record` builds it.

    A dict like every other record to whatever reads it; the type only tells
    :func:`encode_record` that the record has that function's shape, so that it can be written
    through a template (records are not reshaped after they are built: the features read them).
    """

    __slots__ = ()


def passed_record(
    nodeid: str,
    location: tuple[str, int | None, str],
    durations: tuple[float, float, float],
    markers: Sequence[str],
) -> PassedRecord:
    """The record of a test whose setup, call and teardown passed (none under xfail).

    The same dict :func:`build_record` builds from those three phases, built without them:
    nearly every test of a run takes this path, so it is the cost that grows with the suite.
    ``durations`` are the phases' seconds, already rounded by :func:`to_microsecond`.
    """
    setup_s, call_s, teardown_s = durations
    path, line, domain = location
    return PassedRecord(
        nodeid=nodeid,
        outcome="passed",
        phases={
            "setup": {"outcome": "passed", "duration_s": setup_s},
            "call": {"outcome": "passed", "duration_s": call_s},
            "teardown": {"outcome": "passed", "duration_s": teardown_s},
        },
        duration_s=to_microsecond(setup_s + call_s + teardown_s),
        location={"path": path, "line": None if line is None else line + 1, "domain": domain},
        markers=list(markers),
        reason=None,
        failure=None,
        worker=None,
        failed_subtests=[],
    )


#: A test whose setup, call and teardown plainly passed, none under xfail, as the plugin keeps
#: it until a record is asked for: ``(nodeid, location, setup_s, call_s, teardown_s, markers)``,
#: the durations rounded by :func:`to_microsecond`, ``location`` as pytest gives it (0-based
#: line). :func:`materialize` turns it into the :func:`passed_record` of those values.
PassedRow = tuple[str, tuple[str, int | None, str], float, float, float, Sequence[str]]
#: What the list of a run's tests holds before :func:`materialize`: rows and records.
TestRow = PassedRow | dict[str, Any]


def materialize(rows: Iterable[TestRow]) -> list[dict[str, Any]]:
    """The test records of ``rows``: each :data:`PassedRow` built, each record as it is."""
    return [
        passed_record(row[0], row[1], (row[2], row[3], row[4]), row[5])
        if isinstance(row, tuple)
        else row
        for row in rows
    ]


def build_record(
    nodeid: str, bucket: Sequence[PhaseReport], known_markers: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """The ``TestRecord``-shaped dict of one test from its phases, in the order they came.

    A subtest's report is not a phase of its own: a failed subtest fails the test, as it
    fails pytest's run, even when the test's own call passed (unittest's ``subTest`` leaves
    the call passed; the ``subtests`` fixture has pytest mark it failed without an exception).
    The first failed subtest's failure is the test's, unless the call raised one itself.
    A test that skips itself after a subtest failed is failed too: pytest counts the failure.
    """
    phases: dict[str, dict[str, Any]] = {}
    by_when: dict[str, PhaseReport] = {}
    total = 0.0
    plain = True  # every phase passed, none under xfail: the common case needs no rules
    markers: Sequence[str] | None = None
    worker = None
    failed_subtests: list[PhaseReport] = []
    for phase in bucket:
        if phase.markers is not None:
            markers = phase.markers
        if phase.worker is not None:
            worker = phase.worker
        if phase.subtest is not None:
            if phase.outcome == "failed" and phase.wasxfail is None:
                failed_subtests.append(phase)
            continue
        by_when[phase.when] = phase
        phases[phase.when] = {"outcome": phase.outcome, "duration_s": phase.duration_s}
        total += phase.duration_s
        if phase.outcome != "passed" or phase.wasxfail is not None:
            plain = False
    if plain and "call" in by_when and not failed_subtests:
        outcome, reason, failure = "passed", None, None
    else:
        outcome, decisive = _outcome(by_when)
        reason = _reason(decisive, outcome)
        failure = decisive.failure if decisive is not None else None
        if failed_subtests and outcome in ("passed", "failed", "xpassed", "skipped"):
            if outcome != "failed" or failure is None or failure.get("exc_type") == "unknown":
                failure = failed_subtests[0].failure  # pytest's own call failure says less
            outcome, reason = "failed", None
    path, line, domain = bucket[0].location
    return {
        "nodeid": nodeid,
        "outcome": outcome,
        "phases": phases,
        "duration_s": to_microsecond(total),
        "location": {"path": path, "line": None if line is None else line + 1, "domain": domain},
        "markers": list(markers if markers is not None else known_markers.get(nodeid, ())),
        "reason": reason,
        "failure": failure,
        "worker": worker,
        "failed_subtests": _subtest_names(failed_subtests),
    }


def _subtest_names(failed: Sequence[PhaseReport]) -> list[str]:
    names = [str(phase.subtest) for phase in failed[:MAX_SUBTESTS_NAMED]]
    if len(failed) > MAX_SUBTESTS_NAMED:
        names.append(f"... and {len(failed) - MAX_SUBTESTS_NAMED} more")
    return names


def _outcome(phases: dict[str, PhaseReport]) -> tuple[str, PhaseReport | None]:
    """The test's outcome and the phase that decided it, by pytest's own rules."""
    setup, call, teardown = phases.get("setup"), phases.get("call"), phases.get("teardown")
    if setup is not None and setup.outcome == "failed":
        return "error", setup
    if setup is not None and setup.outcome == "skipped":
        return ("xfailed" if setup.wasxfail is not None else "skipped"), setup
    if call is not None:
        if call.outcome == "failed":
            return "failed", call
        if call.outcome == "skipped":
            return ("xfailed" if call.wasxfail is not None else "skipped"), call
        if teardown is not None and teardown.outcome == "failed":
            return "error", teardown
        return ("xpassed" if call.wasxfail is not None else "passed"), call
    if teardown is not None and teardown.outcome == "failed":
        return "error", teardown
    # No call phase and nothing failed: the run stopped between setup and call.
    return "error", None


def _reason(decisive: PhaseReport | None, outcome: str) -> str | None:
    if decisive is None:
        return "the test has no call phase: the run stopped while it was set up"
    if outcome in ("xfailed", "xpassed"):
        return decisive.wasxfail or None
    if outcome == "skipped":
        return decisive.skip_reason
    return None


def count(
    records: Sequence[TestRow] | Sequence[Mapping[str, Any]],
    *,
    collected: int,
    deselected: int = 0,
    collection_errors: int = 0,
    skipped_at_collection: int = 0,
) -> dict[str, int]:
    """Per-test counts (a ``Counts``-shaped dict); ``collected`` is after deselection.

    ``records`` may hold :data:`PassedRow` tuples too.
    """
    tally = dict.fromkeys(_OUTCOMES, 0)
    for record in records:
        tally["passed" if isinstance(record, tuple) else record["outcome"]] += 1
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
    records: Sequence[TestRow] | Sequence[Mapping[str, Any]],
    *,
    collection_errors: Sequence[Mapping[str, Any]] = (),
    interrupted: str | None = None,
    pytest_failures: int = 0,
) -> list[str]:
    """Why the run's report does not cover exactly the tests collected (empty if it does).

    ``records`` may hold :data:`PassedRow` tuples too. ``pytest_failures`` is how many
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
    reported = [record[0] if isinstance(record, tuple) else record["nodeid"] for record in records]
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


def _any_failed(records: Sequence[TestRow] | Sequence[Mapping[str, Any]]) -> bool:
    return any(
        not isinstance(record, tuple) and record["outcome"] in ("failed", "error")
        for record in records
    )


def encode_report(report: Mapping[str, Any]) -> str:
    """The run report as compact JSON text (one line, UTF-8 safe), ending in a newline.

    The same text as ``json.dumps(report, ensure_ascii=False, separators=(",", ":"))`` writes
    once the tests are :func:`materialize`-d; the tests are written one by one, a
    :data:`PassedRow` by :func:`encode_passed_row`, a record by :func:`encode_record`.
    """
    parts = []
    for key, value in report.items():
        if key == "tests":
            text = (
                "["
                + ",".join(
                    [
                        encode_passed_row(test) if isinstance(test, tuple) else encode_record(test)
                        for test in value
                    ]
                )
                + "]"
            )
        else:
            text = _encode(value)
        parts.append(f"{_encode_string(key)}:{text}")
    return "{" + ",".join(parts) + "}\n"


def encode_record(record: Mapping[str, Any]) -> str:
    """One test record as compact JSON text, the same text as :func:`json.dumps` writes.

    Written by hand for a :class:`PassedRecord`, the record of nearly every test of a run: the
    standard library's C encoder escapes each of a record's two dozen keys again for every
    record, about 52,000 instructions per record; this template writes the keys as constants
    and takes about 37,000, a quarter of them writing the four durations. That is 0.5% of a
    plain run of the 5,000-test suite of ``benchmarks/overhead.py``, which holds recording to
    5%. The template reads every value from the record; only the keys and their order are
    fixed, and a record whose key count differs goes to the general encoder.
    """
    if type(record) is not PassedRecord or len(record) != _PASSED_KEYS:
        return _encode(record)
    phases = record["phases"]
    setup, call, teardown = phases["setup"], phases["call"], phases["teardown"]
    location = record["location"]
    line = location["line"]
    reason, failure, worker = record["reason"], record["failure"], record["worker"]
    return (
        f'{{"nodeid":{_encode_string(record["nodeid"])},'
        f'"outcome":{_encode_string(record["outcome"])},'
        f'"phases":{{"setup":{{"outcome":{_encode_string(setup["outcome"])},'
        f'"duration_s":{_float(setup["duration_s"])}}},'
        f'"call":{{"outcome":{_encode_string(call["outcome"])},'
        f'"duration_s":{_float(call["duration_s"])}}},'
        f'"teardown":{{"outcome":{_encode_string(teardown["outcome"])},'
        f'"duration_s":{_float(teardown["duration_s"])}}}}},'
        f'"duration_s":{_float(record["duration_s"])},'
        f'"location":{{"path":{_encode_string(location["path"])},'
        f'"line":{"null" if line is None else int(line)},'
        f'"domain":{_encode_string(location["domain"])}}},'
        f'"markers":[{",".join([_encode_string(name) for name in record["markers"]])}],'
        f'"reason":{"null" if reason is None else _encode(reason)},'
        f'"failure":{"null" if failure is None else _encode(failure)},'
        f'"worker":{"null" if worker is None else _encode(worker)},'
        f'"failed_subtests":{_encode(record["failed_subtests"])}}}'
    )


def encode_passed_row(row: PassedRow) -> str:
    """The JSON text of the :func:`passed_record` of ``row``, written without building it.

    The same text as ``encode_record(materialize([row])[0])``; the template of
    :func:`encode_record` with the values that a plain pass always has written as constants.
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
_PASSED_KEYS = 10


def _ids(nodeids: Sequence[str]) -> str:
    shown = ", ".join(nodeids[:_IDS_SHOWN])
    extra = len(nodeids) - _IDS_SHOWN
    return shown if extra <= 0 else f"{shown} and {extra} more"
