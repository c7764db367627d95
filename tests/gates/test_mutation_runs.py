"""Mutant runs fail closed: a test command that crashes, hangs, prints nothing or prints garbage
is never taken for a killed (or a surviving) mutant."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from phasegate.gates.mutation_runs import TestRun, run_tests
from phasegate.model.run import Outcome
from tests.factories import record, run_report

#: A stand-in for pytest: copies FAKE_REPORT into --phasegate-dir, prints, exits FAKE_EXIT.
FAKE = """\
import os, shutil, sys, time
if os.environ.get("FAKE_SLEEP"):
    time.sleep(float(os.environ["FAKE_SLEEP"]))
folder = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--phasegate-dir="))
asked = next(a[1:] for a in sys.argv if a.startswith("@"))
with open(os.environ["FAKE_ASKED"], "w") as out:
    out.write(open(asked).read())
report = os.environ.get("FAKE_REPORT")
if report:
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(report, os.path.join(folder, "report.json"))
print(os.environ.get("FAKE_PRINT", ""))
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""

SELECTION = ["tests/test_a.py::test_one", "tests/test_a.py::test_two"]


def fake_run(
    tmp_path: Path,
    *,
    report: str | None = None,
    exit_code: int = 0,
    sleep: float = 0.0,
    printed: str = "",
    timeout_s: float = 30.0,
    command: list[str] | None = None,
) -> TestRun:
    script = tmp_path / "fake_pytest.py"
    script.write_text(FAKE, encoding="utf-8")
    env = {
        **os.environ,
        "FAKE_EXIT": str(exit_code),
        "FAKE_PRINT": printed,
        "FAKE_ASKED": str(tmp_path / "asked.txt"),
    }
    if report is not None:
        (tmp_path / "fake-report.json").write_text(report, encoding="utf-8")
        env["FAKE_REPORT"] = str(tmp_path / "fake-report.json")
    if sleep:
        env["FAKE_SLEEP"] = str(sleep)
    return run_tests(
        command or [sys.executable, str(script)],
        cwd=tmp_path,
        selection=SELECTION,
        scratch=tmp_path / "scratch",
        timeout_s=timeout_s,
        env=env,
        stop_at_first=True,
    )


def report_of(*outcomes: Outcome, exit_status: int | None = None) -> str:
    tests = [record(node, outcome) for node, outcome in zip(SELECTION, outcomes, strict=False)]
    report = run_report(tests)
    if exit_status is not None:
        report = report.model_copy(update={"exit_status": exit_status})
    return report.model_dump_json()


def test_every_test_passing_is_recognized_and_the_selection_is_handed_over(
    tmp_path: Path,
) -> None:
    run = fake_run(tmp_path, report=report_of(Outcome.PASSED, Outcome.PASSED))
    assert run.verdict == "passed"
    assert run.complete
    assert (tmp_path / "asked.txt").read_text(encoding="utf-8").splitlines() == SELECTION


def test_a_failing_test_is_recognized_with_its_id(tmp_path: Path) -> None:
    run = fake_run(tmp_path, report=report_of(Outcome.PASSED, Outcome.FAILED), exit_code=1)
    assert run.verdict == "failed"
    assert run.failing == [SELECTION[1]]


def test_a_command_that_crashes_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path, exit_code=3, printed="Traceback: boom")
    assert run.verdict == "error"
    assert "wrote no report" in run.reason
    assert "boom" in run.reason


def test_a_command_that_prints_nothing_and_exits_0_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path)
    assert run.verdict == "error"
    assert "wrote no report (exit status 0)" in run.reason


def test_a_command_that_writes_garbage_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path, report="{definitely not a report", exit_code=1)
    assert run.verdict == "error"
    assert "does not recognize" in run.reason


def test_a_report_of_another_shape_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path, report='{"tests": [], "failed": 1}', exit_code=1)
    assert run.verdict == "error"


def test_a_command_that_hangs_is_a_timeout_not_a_result(tmp_path: Path) -> None:
    run = fake_run(tmp_path, sleep=30, timeout_s=1.0)
    assert run.verdict == "timeout"
    assert "1s" in run.reason


def test_a_command_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path, command=[str(tmp_path / "no-such-pytest")])
    assert run.verdict == "error"
    assert "could not start" in run.reason


def test_a_report_that_disagrees_with_the_exit_status_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path, report=report_of(Outcome.PASSED, Outcome.PASSED), exit_code=1)
    assert run.verdict == "error"
    assert "exit status 0" in run.reason


def test_failures_with_an_exit_status_that_says_otherwise_are_an_error(tmp_path: Path) -> None:
    garbled = report_of(Outcome.PASSED, Outcome.FAILED, exit_status=0)
    run = fake_run(tmp_path, report=garbled, exit_code=0)
    assert run.verdict == "error"
    assert "tests failed, yet" in run.reason


def test_a_passing_run_missing_a_test_asked_for_is_an_error(tmp_path: Path) -> None:
    run = fake_run(tmp_path, report=report_of(Outcome.PASSED))
    assert run.verdict == "error"
    assert SELECTION[1] in run.reason


@pytest.mark.parametrize("outcome", [Outcome.SKIPPED, Outcome.XFAILED])
def test_a_test_that_no_longer_fails_or_passes_does_not_kill(
    tmp_path: Path, outcome: Outcome
) -> None:
    run = fake_run(tmp_path, report=report_of(Outcome.PASSED, outcome))
    assert run.verdict == "passed"
