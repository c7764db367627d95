"""Unit tests of the engine that turns phase reports into records, counts and completeness."""

from __future__ import annotations

import json
from typing import Any

import pytest

from phasegate.model import SCHEMA_VERSION, RunReport
from phasegate.recording import (
    PassedRow,
    PhaseReport,
    RecordedTests,
    bound_text,
    build_test_records,
    check_completeness,
    count,
    encode_passed_row,
    encode_report,
    materialize,
    passed_record,
    to_microsecond,
)
from phasegate.versioning import SCHEMA_VERSION as LIGHT_SCHEMA_VERSION

LOCATION = ("tests/test_x.py", 9, "test_x")


def phase(nodeid: str, when: str, outcome: str, **extra: Any) -> PhaseReport:
    return PhaseReport(nodeid, when, outcome, 0.25, LOCATION, **extra)


def failure(phase_name: str) -> dict[str, Any]:
    return {
        "phase": phase_name,
        "exc_type": "ValueError",
        "message": "bad",
        "path": "src/x.py",
        "line": 3,
        "traceback": "Traceback ...",
        "traceback_truncated": False,
    }


def outcome_of(*phases: PhaseReport) -> str:
    (record,) = build_test_records(phases)
    return str(record["outcome"])


def test_a_passing_test_has_three_phases_and_their_total_duration() -> None:
    (record,) = build_test_records([phase("t", w, "passed") for w in ("setup", "call", "teardown")])
    assert record["outcome"] == "passed"
    assert set(record["phases"]) == {"setup", "call", "teardown"}
    assert record["duration_s"] == 0.75
    assert record["location"]["line"] == 10  # pytest's 0-based line made 1-based
    assert record["failure"] is None


def test_outcomes_follow_pytests_rules() -> None:
    assert outcome_of(phase("t", "setup", "failed", failure=failure("setup"))) == "error"
    assert outcome_of(phase("t", "setup", "skipped", skip_reason="no")) == "skipped"
    assert outcome_of(phase("t", "setup", "skipped", wasxfail="bug")) == "xfailed"
    assert outcome_of(phase("t", "call", "skipped", wasxfail="bug")) == "xfailed"
    assert outcome_of(phase("t", "call", "passed", wasxfail="bug")) == "xpassed"
    assert outcome_of(phase("t", "call", "failed", failure=failure("call"))) == "failed"
    passed_then_teardown_failed = (
        phase("t", "call", "passed"),
        phase("t", "teardown", "failed", failure=failure("teardown")),
    )
    assert outcome_of(*passed_then_teardown_failed) == "error"
    failed_then_teardown_failed = (
        phase("t", "call", "failed", failure=failure("call")),
        phase("t", "teardown", "failed", failure=failure("teardown")),
    )
    assert outcome_of(*failed_then_teardown_failed) == "failed"


def test_the_deciding_phase_gives_the_failure_and_reason() -> None:
    (record,) = build_test_records(
        [
            phase("t", "call", "failed", failure=failure("call")),
            phase("t", "teardown", "failed", failure=failure("teardown")),
        ]
    )
    assert record["failure"]["phase"] == "call"
    (skipped,) = build_test_records([phase("s", "setup", "skipped", skip_reason="no network")])
    assert skipped["reason"] == "no network"


def test_a_test_cut_off_before_its_call_is_an_error_with_a_reason() -> None:
    (record,) = build_test_records([phase("t", "setup", "passed")])
    assert record["outcome"] == "error"
    assert "no call phase" in record["reason"]


def test_markers_and_worker_come_from_the_phases_or_the_items() -> None:
    (record,) = build_test_records(
        [
            phase("t", "setup", "passed", markers=("slow",), worker="gw1"),
            phase("t", "call", "passed", worker="gw1"),
        ]
    )
    assert record["markers"] == ["slow"]
    assert record["worker"] == "gw1"
    (serial,) = build_test_records([phase("u", "call", "passed")], {"u": ["db", "slow"]})
    assert serial["markers"] == ["db", "slow"]


def test_counts_add_up_per_test() -> None:
    records = build_test_records(
        [
            phase("a", "call", "passed"),
            phase("b", "call", "failed", failure=failure("call")),
            phase("b", "teardown", "failed", failure=failure("teardown")),
            phase("c", "setup", "skipped"),
        ]
    )
    counts = count(records, collected=3, deselected=2)
    assert (counts["passed"], counts["failed"], counts["errors"], counts["skipped"]) == (1, 1, 0, 1)
    assert counts["deselected"] == 2


def test_complete_run_has_no_reasons() -> None:
    records = build_test_records([phase("a", "call", "passed"), phase("b", "call", "passed")])
    assert check_completeness(["a", "b"], records) == []


def test_missing_and_unexpected_results_are_named() -> None:
    records = build_test_records([phase("a", "call", "passed"), phase("z", "call", "passed")])
    reasons = check_completeness(["a", "b", "c"], records)
    assert reasons == [
        "2 collected test(s) have no result: b, c",
        "1 result(s) for tests that were not collected: z",
    ]


def test_long_lists_of_missing_ids_are_cut() -> None:
    ids = [f"t{i}" for i in range(8)]
    (reason,) = check_completeness(ids, [])
    assert reason.endswith("t0, t1, t2, t3, t4 and 3 more")


def test_interruption_and_collection_errors_make_a_run_incomplete() -> None:
    error = {"nodeid": "tests/test_bad.py", "failure": failure("collect")}
    reasons = check_completeness([], [], collection_errors=[error], interrupted="stopped")
    assert reasons == ["stopped", "1 collection error(s): tests/test_bad.py"]


def test_unknown_collection_is_incomplete() -> None:
    assert check_completeness(None, []) == [
        "the collected tests were never reported, so completeness is unknown"
    ]


def test_bound_text_keeps_the_end() -> None:
    text = "x" * 50 + "THE END"
    kept, cut = bound_text(text, 40)
    assert cut
    assert len(kept) == 40
    assert kept.endswith("THE END")
    assert bound_text("short", 40) == ("short", False)


def test_recording_and_the_models_share_one_schema_version() -> None:
    assert LIGHT_SCHEMA_VERSION == SCHEMA_VERSION


def test_what_recording_builds_is_exactly_what_the_model_writes() -> None:
    """The hand-built dicts must validate and serialize back unchanged: nothing added/lost."""
    records = build_test_records(
        [
            phase("a", "setup", "passed", markers=("m",), worker="gw0"),
            phase("a", "call", "failed", failure=failure("call")),
            phase("a", "teardown", "passed"),
            phase("b", "setup", "skipped", skip_reason="no"),
            phase("c", "call", "passed", wasxfail="known"),
        ]
    )
    records.append(passed_record("d", LOCATION, (0.1, 0.2, 0.3), ["slow"]))
    data = {
        "schema_version": SCHEMA_VERSION,
        "kind": "run-report",
        "run_id": "20261122T000000Z-00000000",
        "started_at": "2026-11-22T00:00:00.000001Z",
        "finished_at": "2026-11-22T00:00:01.000001Z",
        "duration_s": 1.0,
        "environment": {
            "python": "3.11.7",
            "implementation": "cpython",
            "platform": "Linux",
            "pytest": "9.1.1",
            "phasegate": "0.1.0",
            "plugins": {"pytest-xdist": "3.8.0"},
        },
        "git": {"sha": "a" * 40, "branch": "main", "dirty": False},
        "invocation": {"args": ["--gate"], "invocation_dir": "/p", "rootdir": "/p", "workers": 1},
        "exit_status": 1,
        "counts": count(records, collected=3, skipped_at_collection=1),
        "incomplete": False,
        "incomplete_reasons": [],
        "tests": records,
        "collection_errors": [{"nodeid": "t.py", "failure": failure("collect")}],
        "collection_skips": [
            {"nodeid": "s.py", "reason": "could not import 'numpy'", "path": "s.py", "line": 3}
        ],
        "warnings": [],
        "shard": None,
        "merged": None,
    }
    text = encode_report(data)
    assert text == json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    model = RunReport.model_validate_json(text)
    assert json.loads(model.model_dump_json()) == json.loads(text)


def test_a_plain_pass_is_recorded_the_same_by_the_short_way() -> None:
    durations = (0.000123, 0.5, 1.000001)
    phases = [
        PhaseReport("t", when, "passed", seconds, LOCATION)
        for when, seconds in zip(("setup", "call", "teardown"), durations, strict=True)
    ]
    (general,) = build_test_records(phases, {"t": ["slow"]})
    short = passed_record("t", LOCATION, durations, ["slow"])
    assert short == general
    assert json.dumps(short) == json.dumps(general)  # the keys in the same order too


@pytest.mark.parametrize(
    ("nodeid", "location", "durations", "markers"),
    [
        ("tests/test_x.py::test_x", LOCATION, (0.000123, 0.5, 1.000001), ("slow",)),
        ('t.py::test["quote\\back\nline"]', ("t.py", None, "test"), (0.0, 1e-06, 5e-05), ()),
        ("t.py::test[é✓]", ("ü/t.py", 0, "tést"), (123.456789, 2.0, 1e-05), ["a", "b\tc"]),
    ],
)
def test_a_passed_row_is_written_as_its_record_would_be(
    nodeid: str,
    location: tuple[str, int | None, str],
    durations: tuple[float, float, float],
    markers: tuple[str, ...],
) -> None:
    row = PassedRow(nodeid, location, *durations, markers)
    (record,) = materialize([row])
    assert record == passed_record(nodeid, location, durations, markers)
    assert record["markers"] == list(markers)
    assert encode_passed_row(row) == json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def test_rows_and_records_count_and_complete_alike() -> None:
    records = build_test_records(
        [phase("a", "call", "failed", failure=failure("call")), phase("b", "call", "passed")]
    )
    rows = [*records, PassedRow("c", LOCATION, 0.1, 0.2, 0.3, ())]
    materialized = materialize(rows)
    assert materialized[:2] == records  # records are kept as they are, not copied
    assert materialized[0] is records[0]
    assert count(rows, collected=3) == count(materialized, collected=3)
    assert count(rows, collected=3)["passed"] == 2
    assert check_completeness(["a", "b", "c", "d"], rows) == check_completeness(
        ["a", "b", "c", "d"], materialized
    )
    assert check_completeness(["a", "c"], rows) == [
        "1 result(s) for tests that were not collected: b"
    ]
    tests = RecordedTests(rows)
    report: Any = {"kind": "run-report", "tests": tests, "warnings": []}
    unread = encode_report(report)
    assert unread == encode_report({**report, "tests": materialized})
    assert json.loads(unread)["tests"] == materialized


def test_recorded_tests_are_built_only_when_one_is_read() -> None:
    records = build_test_records([phase("a", "call", "failed", failure=failure("call"))])
    rows = [*records, PassedRow("b", LOCATION, 0.1, 0.2, 0.3, ("slow",))]
    tests = RecordedTests(rows)
    assert len(tests) == 2
    assert tests.rows is rows  # counting them built nothing
    assert tests[1]["markers"] == ["slow"]
    assert tests.rows == materialize(rows)
    assert [test["nodeid"] for test in tests] == ["a", "b"]
    assert [test["nodeid"] for test in tests[:1]] == ["a"]


def test_a_record_changed_after_it_was_read_is_written_as_it_now_is() -> None:
    tests = RecordedTests([PassedRow("t", LOCATION, 0.1, 0.2, 0.3, ())])
    report: Any = {"kind": "run-report", "tests": tests}
    (unread,) = json.loads(encode_report(report))["tests"]
    tests[0]["reason"] = "a feature changed it"
    (written,) = json.loads(encode_report(report))["tests"]
    assert written == {**unread, "reason": "a feature changed it"}


def test_durations_are_kept_to_the_microsecond_and_written_short() -> None:
    assert to_microsecond(0.0001234567) == 0.000123
    assert to_microsecond(0.0000005) == 0.000001  # half up
    assert to_microsecond(2.9999996) == 3.0
    assert to_microsecond(0.0) == 0.0
    for micros in (1, 7, 123, 99_999, 1_000_001, 123_456_789):
        assert json.dumps(to_microsecond(micros / 1_000_000 + 1e-9)) == repr(micros / 1_000_000)


def test_a_failed_subtest_fails_a_test_whose_call_passed() -> None:
    subtest_failure = {**failure("call"), "message": "1 != 0"}
    (record,) = build_test_records(
        [
            phase("t", "setup", "passed"),
            phase("t", "call", "passed", subtest="(i=0)"),
            phase("t", "call", "failed", subtest="(i=1)", failure=subtest_failure),
            phase("t", "call", "failed", subtest="(i=2)", failure=failure("call")),
            phase("t", "call", "passed"),  # unittest leaves the test's own call passed
            phase("t", "teardown", "passed"),
        ]
    )
    assert record["outcome"] == "failed"
    assert record["failure"] == subtest_failure  # the first failed subtest's
    assert record["failed_subtests"] == ["(i=1)", "(i=2)"]
    assert record["phases"]["call"] == {"outcome": "passed", "duration_s": 0.25}
    assert count([record], collected=1)["failed"] == 1


def test_a_failed_subtest_replaces_the_failure_pytest_gave_without_an_exception() -> None:
    # The subtests fixture: pytest marks the call failed ("contains 1 failed subtest").
    unknown = {**failure("call"), "exc_type": "unknown", "message": "contains 1 failed subtest"}
    (record,) = build_test_records(
        [
            phase("t", "call", "failed", subtest="[odd] (i=1)", failure=failure("call")),
            phase("t", "call", "failed", failure=unknown),
        ]
    )
    assert (record["outcome"], record["failure"]) == ("failed", failure("call"))
    assert record["failed_subtests"] == ["[odd] (i=1)"]


def test_passed_and_expected_subtest_failures_leave_a_test_passed() -> None:
    (record,) = build_test_records(
        [
            phase("t", "call", "passed", subtest="(i=0)"),
            phase("t", "call", "skipped", subtest="(i=1)", wasxfail="known"),
            phase("t", "call", "passed"),
        ]
    )
    assert (record["outcome"], record["failed_subtests"]) == ("passed", [])


def test_many_failed_subtests_are_named_up_to_a_bound() -> None:
    phases = [
        phase("t", "call", "failed", subtest=f"(i={i})", failure=failure("call")) for i in range(25)
    ]
    (record,) = build_test_records([*phases, phase("t", "call", "passed")])
    assert len(record["failed_subtests"]) == 21
    assert record["failed_subtests"][-1] == "... and 5 more"


def test_failures_pytest_counted_and_no_record_shows_make_the_run_incomplete() -> None:
    records = build_test_records([phase("a", "call", "passed")])
    assert check_completeness(["a"], records, pytest_failures=0) == []
    assert check_completeness(["a"], records, pytest_failures=4) == [
        "pytest counted 4 failure(s) that no test record shows: "
        "phasegate did not recognise how they were reported"
    ]
    failed = build_test_records([phase("a", "call", "failed", failure=failure("call"))])
    assert check_completeness(["a"], failed, pytest_failures=4) == []


def test_a_negative_duration_from_a_frozen_clock_is_kept_as_zero() -> None:
    assert to_microsecond(-1326506543.714745) == 0.0
    assert to_microsecond(-0.0000004) == 0.0
