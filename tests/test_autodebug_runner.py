"""The re-runs of auto-debug: a test run that hangs ends as a failed re-run within its limit."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest

from phasegate.autodebug.runner import (
    DEFAULT_TIMEOUT_S,
    RERUN_FLOOR_S,
    RerunLimit,
    TestRunner,
    full_limit,
    rerun_limit,
    suite_estimate,
)

HANGS_AT_EXIT = """\
import pathlib
import threading


def test_leaves_a_thread_waiting_forever():
    # A non-daemon thread is joined when the interpreter exits: the run never ends, as
    # more-itertools' callback_iter left a worker of its ThreadPoolExecutor waiting.
    threading.Thread(target=threading.Event().wait).start()
    pathlib.Path("test-ran").write_text("the test itself ended")
"""


def test_a_re_run_that_hangs_is_stopped_at_its_limit_and_reported(tmp_path: Path) -> None:
    (tmp_path / "test_hangs.py").write_text(HANGS_AT_EXIT, encoding="utf-8")
    runner = TestRunner(
        cwd=tmp_path,
        base_args=["test_hangs.py"],
        scratch=tmp_path / "scratch",
        timeout_s=10.0,
        timeout_source="where the 10s came from",
    )

    result = runner.run()

    # The test passed and the run was then waiting for the thread, not still starting up.
    assert (tmp_path / "test-ran").read_text() == "the test itself ended"
    assert result.error == (
        "the re-run took longer than 10s (where the 10s came from) and was stopped"
    )
    assert result.outcomes == {}
    assert not (tmp_path / "scratch").exists() or not any((tmp_path / "scratch").iterdir())


STARTS_A_SERVER_AND_HANGS = """\
import pathlib
import subprocess
import sys
import threading


def test_starts_a_helper_in_a_session_of_its_own_then_waits_forever():
    helper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
    )
    pathlib.Path("helper.pid").write_text(str(helper.pid))
    threading.Event().wait()
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):
        status = Path(f"/proc/{pid}/status").read_text()
        return "\nState:\tZ" not in status
    return True


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")
def test_a_process_a_test_started_in_its_own_session_is_stopped_with_the_re_run(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_server.py").write_text(STARTS_A_SERVER_AND_HANGS, encoding="utf-8")
    runner = TestRunner(
        cwd=tmp_path, base_args=["test_server.py"], scratch=tmp_path / "scratch", timeout_s=10.0
    )
    result = runner.run()
    pid = int((tmp_path / "helper.pid").read_text())  # the test had started its helper
    try:
        # Killing the re-run's process group does not reach another session: it is found by
        # the mark in its environment, stopped, and named.
        assert result.error is not None
        assert result.error.startswith("the re-run took longer than 10s and was stopped; ")
        assert (
            f"1 process(es) its tests started in a session of their own outlived it and were "
            f"stopped: {pid} {sys.executable} -c import time; time.sleep(600)" in result.error
        )
        assert not _running(pid)
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_re_run_may_take_ten_times_the_own_time_of_the_tests_it_debugs() -> None:
    limit = rerun_limit(None, [("passed", 30.0), ("passed", 10.0)], collected=2)
    assert limit.seconds == 400.0
    assert limit.source.startswith("10 times the 40s the tests of the run being debugged")
    assert "set timeout_s in [tool.phasegate.autodebug] to allow longer" in limit.source


def test_a_re_run_of_a_quick_suite_still_has_time_to_start_and_collect() -> None:
    tests = [("passed", 0.2), ("passed", 0.1), ("passed", 0.0001)]
    limit = rerun_limit(None, tests, collected=3)
    assert limit.seconds == RERUN_FLOOR_S
    assert limit.source.startswith("the least a re-run is given, over 10 times the 0.3s")


def test_tests_that_did_not_run_are_priced_at_the_mean_of_those_that_did() -> None:
    # `-x` stopped after 3 of 30 tests: the other 27 would take as long each.
    tests = [("passed", 10.0), ("passed", 5.0), ("passed", 6.0)]
    assert suite_estimate(tests, collected=30) == 210.0
    limit = rerun_limit(None, tests, collected=30)
    assert limit == full_limit(None)
    assert limit.seconds == DEFAULT_TIMEOUT_S
    assert limit.source.startswith("the default timeout_s")


def test_a_failed_test_is_priced_at_least_at_the_mean_of_the_passed_ones() -> None:
    # It may have stopped at once, before its slow part; one slower than that keeps its time.
    assert suite_estimate([("passed", 4.0), ("passed", 2.0), ("failed", 0.01)], 3) == 9.0
    assert suite_estimate([("passed", 4.0), ("passed", 2.0), ("error", 5.0)], 3) == 11.0
    assert suite_estimate([("passed", 4.0), ("skipped", 0.0)], 2) == 4.0


@pytest.mark.parametrize(
    "tests",
    [
        # A session fixture that fails at once makes every test error in its set-up: repaired,
        # it does its slow work, which no time of this run shows.
        [("error", 0.001), ("error", 0.001)],
        [("passed", 0.001), ("failed", 0.001), ("error", 0.001)],
        [("skipped", 0.0)],
        [],
    ],
)
def test_a_run_with_fewer_tests_passed_than_failed_gives_no_bound_below_the_default(
    tests: list[tuple[str, float]],
) -> None:
    assert suite_estimate(tests, collected=len(tests)) is None
    assert rerun_limit(None, tests, collected=len(tests)).seconds == DEFAULT_TIMEOUT_S


@pytest.mark.parametrize("configured", [30.0, 60.0, 900.0, 9000.0])
def test_a_timeout_the_project_sets_is_the_limit_as_it_is(configured: float) -> None:
    # Above the bound of the run's own time (400 s) and below its floor alike.
    limit = rerun_limit(configured, [("passed", 30.0), ("passed", 10.0)], collected=2)
    assert limit == RerunLimit(configured, "timeout_s in [tool.phasegate.autodebug]")


def test_timeout_s_is_unset_unless_the_project_sets_it() -> None:
    from phasegate.autodebug.settings import AutodebugSettings

    assert AutodebugSettings().timeout_s is None
    assert AutodebugSettings(timeout_s=900.0).timeout_s == 900.0


def test_the_plugin_takes_the_limit_from_the_run_it_debugs() -> None:
    from typing import cast

    from phasegate.documents import RunDocument
    from phasegate.plugin.autodebug import _rerun_limit

    document = {
        "tests": [
            {"outcome": "passed", "duration_s": 20.0},
            {"outcome": "passed", "duration_s": 10.0},
            {"outcome": "failed", "duration_s": 0.5},
        ],
        "counts": {"collected": 3},
    }
    # The failed test is priced at the passed tests' mean: 10 x (20 + 10 + 15) s.
    assert _rerun_limit(None, cast(RunDocument, document)).seconds == 450.0
    document["tests"] = document["tests"][:2]  # type: ignore[index]
    document["counts"] = {"collected": 2}
    assert _rerun_limit(None, cast(RunDocument, document)).seconds == 300.0
    assert _rerun_limit(900.0, cast(RunDocument, document)).seconds == 900.0
    assert _rerun_limit(None, None) == full_limit(None)
