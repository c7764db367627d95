"""The plugin's conversion of pytest reports: the short way for plain passes agrees."""

from __future__ import annotations

import pytest

from phasegate.plugin.convert import phase_report, rows_from_reports
from phasegate.recording import PassedRow, build_test_records, materialize

SUITE = """
import pytest

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown")

@pytest.fixture
def broken_setup():
    raise RuntimeError("setup")

def test_pass():
    pass

@pytest.mark.slow
def test_marked():
    pass

def test_fail():
    assert 1 == 2

def test_skip():
    pytest.skip("not here")

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.xfail(reason="fixed")
def test_xpass():
    pass

def test_setup_error(broken_setup):
    pass

def test_teardown_error(broken_teardown):
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n
"""


def logged_reports(pytester: pytest.Pytester) -> list[pytest.TestReport]:
    pytester.makepyfile(test_mixed=SUITE)
    pytester.makeini("[pytest]\nmarkers =\n    slow: a marker to record\n")
    recorder = pytester.inline_run("-p", "no:phasegate", "-p", "no:cacheprovider")
    return [call.report for call in recorder.getcalls("pytest_runtest_logreport")]


def test_the_short_way_builds_the_records_the_long_way_builds(pytester: pytest.Pytester) -> None:
    reports = logged_reports(pytester)
    markers = {report.nodeid: ["slow"] for report in reports if "marked" in report.nodeid}
    root = pytester.path
    expected = build_test_records((phase_report(r, root, 4000) for r in reports), markers)
    rows = rows_from_reports(reports, root, 4000, markers)
    assert sum(isinstance(row, PassedRow) for row in rows) == 4  # the plain passes stay rows
    records = materialize(rows)
    assert records == expected
    outcomes = {record["nodeid"].split("::")[1]: record["outcome"] for record in records}
    assert outcomes == {
        "test_pass": "passed",
        "test_marked": "passed",
        "test_fail": "failed",
        "test_skip": "skipped",
        "test_xfail": "xfailed",
        "test_xpass": "xpassed",
        "test_setup_error": "error",
        "test_teardown_error": "error",
        "test_param[1]": "passed",
        "test_param[2]": "passed",
    }
    assert next(r for r in records if r["nodeid"].endswith("test_marked"))["markers"] == ["slow"]


def test_reports_of_a_test_split_apart_are_still_one_record(pytester: pytest.Pytester) -> None:
    # pytest-xdist interleaves the workers' reports: a test's phases need not be neighbours.
    reports = logged_reports(pytester)
    interleaved = reports[1::2] + reports[0::2]
    root = pytester.path
    records = materialize(rows_from_reports(interleaved, root, 4000))
    assert records == build_test_records(phase_report(r, root, 4000) for r in interleaved)
    assert len(records) == len({r.nodeid for r in reports}) == 10
