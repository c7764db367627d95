"""phasegate never changes a test's outcome, and its tests check agrees with pytest's own.

Suites as real projects write them: unittest ``subTest``, the ``subtests`` fixture, a clock
frozen by freezegun, a plugin whose failures phasegate cannot see.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests.conftest import read_report

ONLY_TESTS = 'name = "only-tests"\n[checks.tests]\n'


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "only-tests.toml").write_text(ONLY_TESTS)
    return pytester


def check_of(pytester: pytest.Pytester) -> dict[str, Any]:
    verdict = json.loads((pytester.path / ".phasegate/gates/only-tests.json").read_text())
    (check,) = [c for c in verdict["checks"] if c["id"] == "tests"]
    assert isinstance(check, dict)
    return check


UNITTEST_SUBTESTS = """
import unittest

class TestGrouper(unittest.TestCase):
    def test_chunks(self):
        for size in (1, 2, 3):
            with self.subTest(size=size):
                self.assertEqual(size % 2, 1)

    def test_plain(self):
        self.assertTrue(True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_failed_unittest_subtest_fails_the_tests_check(
    project: pytest.Pytester, workers: list[str]
) -> None:
    project.makepyfile(test_grouper=UNITTEST_SUBTESTS)
    plain = project.runpytest_subprocess("-p", "no:cacheprovider", *workers)
    assert plain.ret == pytest.ExitCode.TESTS_FAILED
    result = project.runpytest_subprocess("--gate=only-tests", "-p", "no:cacheprovider", *workers)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*TestGrouper.test_chunks (size=*2*)*", "*INSUFFICIENT*"])
    report = read_report(project)
    tests = {t["nodeid"].rsplit("::", 1)[-1]: t for t in report["tests"]}
    assert tests["test_chunks"]["outcome"] == "failed"
    assert tests["test_chunks"]["failure"]["message"] == "0 != 1"
    assert len(tests["test_chunks"]["failed_subtests"]) == 1
    assert tests["test_plain"]["outcome"] == "passed"
    check = check_of(project)
    assert check["status"] == "failed"
    assert check["metrics"]["failed"] == 1
    assert "test_chunks" in check["reasoning"]


def test_a_failed_subtest_of_the_fixture_is_recorded_with_its_exception(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_fixture="""
        def test_odd(subtests):
            for i in range(3):
                with subtests.test(msg="odd", i=i):
                    assert i % 2 == 0, f"{i} is odd"
        """
    )
    result = project.runpytest("--gate=only-tests")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (test,) = read_report(project)["tests"]
    assert test["outcome"] == "failed"
    assert test["failure"]["exc_type"] == "AssertionError"
    assert test["failure"]["message"].startswith("1 is odd")
    assert test["failed_subtests"] == ["[odd] (i=1)"]


def test_a_test_skipped_after_a_failed_subtest_is_recorded_as_failed(
    project: pytest.Pytester,
) -> None:
    # pytest counts the subtest's failure ("1 failed, 1 skipped"), whatever the test did next.
    project.makepyfile(
        test_later="""
        import pytest

        def test_then_skipped(subtests):
            with subtests.test(msg="first", i=1):
                assert False, "wrong"
            pytest.skip("not today")
        """
    )
    result = project.runpytest("--gate=only-tests")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (test,) = read_report(project)["tests"]
    assert test["outcome"] == "failed"
    assert test["failure"]["message"].startswith("wrong")
    assert test["failed_subtests"] == ["[first] (i=1)"]
    check = check_of(project)
    assert (check["status"], check["metrics"]["failed"]) == ("failed", 1)
    assert "no test record shows" not in check["reasoning"]


def test_failures_pytest_counted_but_phasegate_did_not_see_fail_the_gate(
    project: pytest.Pytester,
) -> None:
    # A plugin that fails the run in a way no test report shows: pytest exits 1, so the
    # tests check must not say "all tests passed".
    project.makeconftest(
        """
        def pytest_runtest_teardown(item):
            item.session.testsfailed += 2
        """
    )
    project.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = project.runpytest("--gate=only-tests")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*INSUFFICIENT*"])
    check = check_of(project)
    assert check["status"] == "failed"
    assert "pytest counted 2 failure(s) that no test record shows" in check["reasoning"]


FROZEN_SUITE = """
import datetime

import pytest
from freezegun import freeze_time


@freeze_time("2018-03-06")
def test_frozen_by_a_decorator():
    assert datetime.date.today() == datetime.date(2018, 3, 6)


@pytest.fixture
def frozen():
    with freeze_time("2012-01-14 03:21:34") as clock:
        yield clock


def test_frozen_from_setup_to_teardown(frozen):
    assert datetime.datetime.now().year == 2012


def test_a_freeze_that_leaks_to_the_end_of_the_session():
    freeze_time("2001-01-01").start()  # never stopped: phasegate's clock must not care
    assert datetime.datetime.now().year == 2001
"""


@pytest.mark.slow
def test_a_frozen_clock_changes_no_outcome_and_no_timing_of_the_run(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_frozen=FROZEN_SUITE)
    before = datetime.now(timezone.utc)
    # A new process: phasegate's models are not loaded yet when the first freeze starts.
    result = project.runpytest_subprocess("--gate=only-tests", "-p", "no:cacheprovider")
    after = datetime.now(timezone.utc)
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    report = read_report(project)
    started = datetime.fromisoformat(report["started_at"].replace("Z", "+00:00"))
    finished = datetime.fromisoformat(report["finished_at"].replace("Z", "+00:00"))
    assert before - timedelta(seconds=1) <= started <= finished <= after + timedelta(seconds=1)
    assert 0 <= report["duration_s"] <= (after - before).total_seconds() + 1
    check = check_of(project)
    assert check["status"] == "passed"
    verdict = json.loads((project.path / ".phasegate/gates/only-tests.json").read_text())
    judged = datetime.fromisoformat(verdict["finished_at"].replace("Z", "+00:00"))
    assert started <= judged <= after + timedelta(seconds=1)
