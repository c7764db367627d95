"""Re-running tests in a subprocess and reading back what each test did.

The subprocess is pytest itself (``sys.executable -m pytest``, an argument list, never a
shell), with phasegate recording into a private folder (``--gate=record``), so outcomes are
read from a :class:`~phasegate.model.RunReport`, never parsed from printed text. The child
is marked with :data:`CHILD_ENV` so that it never starts auto-debug itself, writes no
bytecode (a ``.pyc`` of a candidate must not outlive it), and runs in its own process group
so that a timeout or Ctrl-C stops it and any workers it started (and, on Linux, what its
tests started in a session of their own: :mod:`~phasegate.autodebug.leftovers`).

How long a re-run may take is :func:`rerun_limit`: ``timeout_s`` as the project sets it, or,
left unset, a bound of the debugged run's own test time (at most
:data:`DEFAULT_TIMEOUT_S`); a stopped re-run says which bound stopped it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from phasegate import clock
from phasegate.autodebug.leftovers import RUN_MARK_ENV, new_mark, stop_leftovers
from phasegate.store import RUN_REPORT_FILE

__all__ = [
    "CHILD_ENV",
    "DEFAULT_TIMEOUT_S",
    "RERUN_FLOOR_S",
    "RERUN_TIME_FACTOR",
    "RerunLimit",
    "RunResult",
    "TestRunner",
    "full_limit",
    "rerun_limit",
    "suite_estimate",
]

#: Set in every re-run; auto-debug stays off where it is set.
CHILD_ENV = "PHASEGATE_AUTODEBUG_CHILD"
#: A re-run may take this many times the time the tests of the run being debugged took...
RERUN_TIME_FACTOR = 10
#: ...and at least this long: start-up and collection are not in the tests' own time.
RERUN_FLOOR_S = 120.0
#: The longest a re-run may take when the project sets no ``timeout_s``.
DEFAULT_TIMEOUT_S = 600.0
_SET_IT = "set timeout_s in [tool.phasegate.autodebug] to allow longer"

_FAILED = ("failed", "error")


@dataclass
class RunResult:
    """What one re-run reported: each test's outcome, collection errors, and failures."""

    outcomes: dict[str, str] = field(default_factory=dict)
    collection_errors: dict[str, str] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    exit_status: int | None = None
    duration_s: float = 0.0
    error: str | None = None

    @property
    def failed(self) -> list[str]:
        """Tests that failed or errored."""
        return [nodeid for nodeid, outcome in self.outcomes.items() if outcome in _FAILED]


class RerunLimit(NamedTuple):
    """How long a re-run may take, and where that bound came from (said when it stops one)."""

    seconds: float
    source: str = ""


@dataclass
class TestRunner:
    """Runs pytest in ``cwd`` on a selection (or ``base_args``: the original run's arguments).

    A re-run longer than ``timeout_s`` is stopped; ``timeout_source`` says where that bound
    came from, in the reason the re-run gives.
    """

    __test__ = False  # not a pytest test class, despite the name

    cwd: Path
    base_args: list[str]
    scratch: Path
    timeout_s: float
    common_args: list[str] = field(default_factory=list)
    runs: int = 0
    timeout_source: str = ""

    def run(
        self,
        selection: Sequence[str] | None = None,
        *,
        extra_args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        limit: RerunLimit | None = None,
    ) -> RunResult:
        """Run the tests of ``selection`` (paths or node ids), or the whole original run,
        within ``limit`` (this runner's own when not given)."""
        self.runs += 1
        folder = self.scratch / f"run-{os.getpid()}-{self.runs}-{secrets.token_hex(3)}"
        mark = new_mark()
        child_env = {
            **os.environ,
            CHILD_ENV: "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            RUN_MARK_ENV: mark,
            **(env or {}),
        }
        started = clock.perf_counter()
        result = RunResult()
        process = subprocess.Popen(
            self._command(selection, extra_args, folder),
            cwd=self.cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        output, result.error = self._wait(
            process, limit or RerunLimit(self.timeout_s, self.timeout_source), mark
        )
        result.duration_s = clock.perf_counter() - started
        result.exit_status = process.returncode
        try:
            if result.error is None:
                self._read(folder / RUN_REPORT_FILE, result, output)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return result

    def _command(
        self, selection: Sequence[str] | None, extra_args: Sequence[str], folder: Path
    ) -> list[str]:
        """The pytest command of one re-run, recording into ``folder``."""
        return [
            sys.executable,
            "-m",
            "pytest",
            *(self.base_args if selection is None else selection),
            *self.common_args,
            *extra_args,
            "-p",
            "no:cacheprovider",
            "--gate=record",
            f"--phasegate-dir={folder}",
            "-q",
            "--tb=no",
            "-o",
            "console_output_style=classic",
        ]

    @staticmethod
    def _wait(
        process: subprocess.Popen[bytes], limit: RerunLimit, mark: str
    ) -> tuple[bytes, str | None]:
        """The re-run's output, and why it has none when it took longer than ``limit`` (it
        is stopped then, and whenever the wait itself is interrupted, with what it left)."""
        try:
            output, _ = process.communicate(timeout=limit.seconds)
        except subprocess.TimeoutExpired:
            left = _stop(process, mark)
            why = f" ({limit.source})" if limit.source else ""
            return b"", (
                f"the re-run took longer than {limit.seconds:g}s{why} and was stopped"
                + _outlived(left)
            )
        except BaseException:
            _stop(process, mark)
            raise
        return output, None

    @staticmethod
    def _read(report_path: Path, result: RunResult, output: bytes) -> None:
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            tail = output.decode("utf-8", errors="replace").strip().splitlines()[-5:]
            result.error = (
                f"the re-run wrote no report (pytest exit {result.exit_status}): "
                + " | ".join(tail)
            )
            return
        for test in report.get("tests", []):
            result.outcomes[test["nodeid"]] = test["outcome"]
            failure = test.get("failure")
            if failure:
                result.failures[test["nodeid"]] = f"{failure['exc_type']}: {failure['message']}"[
                    :300
                ]
        for error in report.get("collection_errors", []):
            failure = error.get("failure") or {}
            result.collection_errors[error["nodeid"]] = (
                f"{failure.get('exc_type')}: {failure.get('message')}"[:300]
            )


def rerun_limit(
    configured_s: float | None, tests: Sequence[tuple[str, float]], collected: int
) -> RerunLimit:
    """How long one re-run may take: ``configured_s`` (the project's ``timeout_s``) as it is;
    left unset, :data:`RERUN_TIME_FACTOR` times what the tests of the run being debugged
    would take when they pass (:func:`suite_estimate`), at least :data:`RERUN_FLOOR_S`, at
    most :data:`DEFAULT_TIMEOUT_S`.

    A candidate (or the faulty tree itself) that leaves a test waiting forever, a thread
    joined at exit that never ends, then fails within a bound of the suite's own time instead
    of holding auto-debug for the whole timeout. A project whose honest re-run needs longer
    (a repaired session fixture that builds something slow, where the fault made it fail at
    once) sets ``timeout_s``."""
    estimate = suite_estimate(tests, collected)
    if configured_s is not None or estimate is None:
        return full_limit(configured_s)
    return _own_time_limit(estimate)


def full_limit(configured_s: float | None) -> RerunLimit:
    """``timeout_s`` as the project sets it, else its default (:data:`DEFAULT_TIMEOUT_S`):
    never a bound of the run's own time."""
    if configured_s is None:
        return RerunLimit(DEFAULT_TIMEOUT_S, f"the default timeout_s; {_SET_IT}")
    return RerunLimit(configured_s, "timeout_s in [tool.phasegate.autodebug]")


def _own_time_limit(estimate: float) -> RerunLimit:
    """:data:`RERUN_TIME_FACTOR` times ``estimate``, within :data:`RERUN_FLOOR_S` and
    :data:`DEFAULT_TIMEOUT_S`, saying so."""
    own = f"{RERUN_TIME_FACTOR} times the {estimate:.3g}s the tests of the run being debugged"
    if RERUN_TIME_FACTOR * estimate >= DEFAULT_TIMEOUT_S:
        return full_limit(None)
    if RERUN_TIME_FACTOR * estimate <= RERUN_FLOOR_S:
        return RerunLimit(
            RERUN_FLOOR_S, f"the least a re-run is given, over {own} would take; {_SET_IT}"
        )
    return RerunLimit(RERUN_TIME_FACTOR * estimate, f"{own} would take; {_SET_IT}")


def suite_estimate(tests: Sequence[tuple[str, float]], collected: int) -> float | None:
    """What the ``collected`` tests would take when they pass, from the run being debugged
    (each test's outcome and own time): a test that failed or errored is priced at least at
    the mean of those that passed (it may have stopped at once, before its slow part), and
    a test with no result at the mean of those that have one. None when no test passed, or
    fewer passed than failed: such a run's time says little of a repaired one's.

    A test that hung in the run being debugged adds nothing: it ended on Ctrl-C with no time
    of its own on record."""
    passed = [seconds for outcome, seconds in tests if outcome == "passed"]
    if len(passed) < max(1, sum(outcome in _FAILED for outcome, _seconds in tests)):
        return None
    priced = _priced(tests, sum(passed) / len(passed))
    return priced * max(1.0, collected / len(tests))


def _priced(tests: Sequence[tuple[str, float]], mean_passed: float) -> float:
    """The tests' own time, a failed or errored test's at least ``mean_passed``."""
    return sum(
        max(seconds, mean_passed) if outcome in _FAILED else seconds for outcome, seconds in tests
    )


def _outlived(left: list[str]) -> str:
    """What a stopped re-run left that had to be stopped on its own, in a clause."""
    if not left:
        return ""
    shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
    return (
        f"; {len(left)} process(es) its tests started in a session of their own outlived it "
        f"and were stopped: {shown}"
    )


def _stop(process: subprocess.Popen[bytes], mark: str) -> list[str]:
    """Stop the child and everything in its process group, then what it started elsewhere
    (each as ``pid command``)."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=10)
    return stop_leftovers(mark)
