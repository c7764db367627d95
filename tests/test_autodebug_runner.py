"""The re-runs of auto-debug: a test run that hangs ends as a failed re-run within its limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.runner import RERUN_FLOOR_S, TestRunner, rerun_limit

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
        cwd=tmp_path, base_args=["test_hangs.py"], scratch=tmp_path / "scratch", timeout_s=10.0
    )

    result = runner.run()

    # The test passed and the run was then waiting for the thread, not still starting up.
    assert (tmp_path / "test-ran").read_text() == "the test itself ended"
    assert result.error == "the re-run took longer than 10s and was stopped"
    assert result.outcomes == {}
    assert not (tmp_path / "scratch").exists() or not any((tmp_path / "scratch").iterdir())


def test_a_re_run_may_take_ten_times_the_own_time_of_the_tests_it_debugs() -> None:
    assert rerun_limit(600.0, [30.0, 10.0], collected=2) == 400.0


def test_a_re_run_of_a_quick_suite_still_has_time_to_start_and_collect() -> None:
    assert rerun_limit(600.0, [0.2, 0.1, 0.0001], collected=3) == RERUN_FLOOR_S


def test_tests_that_did_not_run_are_priced_at_the_mean_of_those_that_did() -> None:
    # `-x` stopped after 3 of 30 tests: the other 27 would take as long each.
    assert rerun_limit(600.0, [10.0, 5.0, 6.0], collected=30) == 600.0
    assert rerun_limit(9000.0, [10.0, 5.0, 6.0], collected=30) == 2100.0


def test_the_configured_timeout_is_the_limit_without_a_run_on_record() -> None:
    assert rerun_limit(600.0, [], collected=0) == 600.0


@pytest.mark.parametrize("configured", [60.0, 100.0])
def test_a_configured_timeout_below_the_floor_still_caps_the_re_run(configured: float) -> None:
    assert rerun_limit(configured, [30.0], collected=1) == configured


def test_the_plugin_takes_the_limit_from_the_run_it_debugs() -> None:
    from typing import cast

    from phasegate.documents import RunDocument
    from phasegate.plugin.autodebug import _rerun_limit

    document = {"tests": [{"duration_s": 30.0}, {"duration_s": 10.0}], "counts": {"collected": 2}}
    assert _rerun_limit(600.0, cast(RunDocument, document)) == 400.0
    assert _rerun_limit(600.0, None) == 600.0
