"""Re-running tests in a subprocess and reading back what each test did.

The subprocess is pytest itself (``sys.executable -m pytest``, an argument list, never a
shell), with phasegate recording into a private folder (``--gate=record``), so outcomes are
read from a :class:`~phasegate.model.RunReport`, never parsed from printed text. The child
is marked with :data:`CHILD_ENV` so that it never starts auto-debug itself, writes no
bytecode (a ``.pyc`` of a candidate must not outlive it), and runs in its own process group
so that a timeout or Ctrl-C stops it and any workers it started.
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

from phasegate import clock
from phasegate.store import RUN_REPORT_FILE

__all__ = [
    "CHILD_ENV",
    "RERUN_FLOOR_S",
    "RERUN_TIME_FACTOR",
    "RunResult",
    "TestRunner",
    "rerun_limit",
]

#: Set in every re-run; auto-debug stays off where it is set.
CHILD_ENV = "PHASEGATE_AUTODEBUG_CHILD"
#: A re-run may take this many times the time the tests of the run being debugged took...
RERUN_TIME_FACTOR = 10
#: ...and at least this long: start-up and collection are not in the tests' own time.
RERUN_FLOOR_S = 120.0

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


@dataclass
class TestRunner:
    """Runs pytest in ``cwd`` on a selection (or ``base_args``: the original run's arguments)."""

    __test__ = False  # not a pytest test class, despite the name

    cwd: Path
    base_args: list[str]
    scratch: Path
    timeout_s: float
    common_args: list[str] = field(default_factory=list)
    runs: int = 0

    def run(
        self,
        selection: Sequence[str] | None = None,
        *,
        extra_args: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> RunResult:
        """Run the tests of ``selection`` (paths or node ids), or the whole original run."""
        self.runs += 1
        folder = self.scratch / f"run-{os.getpid()}-{self.runs}-{secrets.token_hex(3)}"
        child_env = {**os.environ, CHILD_ENV: "1", "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
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
        output, result.error = self._wait(process)
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

    def _wait(self, process: subprocess.Popen[bytes]) -> tuple[bytes, str | None]:
        """The re-run's output, and why it has none when it took too long (it is stopped
        then, and whenever the wait itself is interrupted)."""
        try:
            output, _ = process.communicate(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _stop(process)
            return b"", f"the re-run took longer than {self.timeout_s:g}s and was stopped"
        except BaseException:
            _stop(process)
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


def rerun_limit(configured_s: float, test_seconds: Sequence[float], collected: int) -> float:
    """How long one re-run may take: :data:`RERUN_TIME_FACTOR` times the own time of the tests
    of the run being debugged (``test_seconds``; those of the ``collected`` that have none are
    priced at their mean), at least :data:`RERUN_FLOOR_S`, at most ``configured_s``.

    A candidate (or the faulty tree itself) that leaves a test waiting forever, a thread
    joined at exit that never ends, then fails within a bound of the suite's own time instead
    of holding auto-debug for the whole ``timeout_s``. A test that hung in the run being
    debugged adds nothing: it ended on Ctrl-C with no time of its own on record."""
    if not test_seconds:
        return configured_s
    estimate = sum(test_seconds) * max(1.0, collected / len(test_seconds))
    return min(configured_s, max(RERUN_FLOOR_S, RERUN_TIME_FACTOR * estimate))


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the child and everything in its process group."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=10)
