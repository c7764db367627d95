"""How far the tests are, for ``phasegate gate run``, which shows it while pytest runs.

``gate run`` keeps pytest's own output in a log file; without this, a long suite would run in
silence. Registered by the gate feature in the process that records (a serial run, or the
pytest-xdist controller) when ``PHASEGATE_PROGRESS_FILE`` is set. A test counts as done when
its teardown is reported, and as failed when any of its reports failed (a subtest too). An
event is written at most every :data:`INTERVAL_S` seconds, and once more at the end.

Two more events make ``gate run`` a thin front end that loads neither the gate nor pydantic:
the gate's own name and the artifacts folder once it is loaded and planned (:func:`gate_event`,
a gate file names its gate), and at the end what the command prints (:func:`verdict_event`: the
failing tests and the gate's table, rendered here, where the verdict and the run report already
are in memory).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import pytest

from phasegate import clock
from phasegate.gates.progress import append_event, tests_event

if TYPE_CHECKING:
    from phasegate.model.gate import GateVerdict
    from phasegate.model.run import RunReport

__all__ = [
    "INTERVAL_S",
    "SHOWN_FAILURES",
    "GateEvent",
    "TestProgress",
    "VerdictEvent",
    "VerdictLines",
    "gate_event",
    "verdict_event",
]

#: The shortest time between two test progress events.
INTERVAL_S = 0.5
#: How many failing tests ``gate run`` names before it says how many more there are.
SHOWN_FAILURES = 20


class GateEvent(TypedDict):
    """The gate was loaded and planned: its name, and the artifacts folder the run writes to."""

    gate: str
    artifacts: str


class VerdictLines(TypedDict):
    """The verdict, and the lines ``gate run`` prints for it."""

    gate: str
    insufficient: bool
    lines: list[str]


class VerdictEvent(TypedDict):
    """The run was judged: what ``gate run`` prints at the end."""

    verdict: VerdictLines


def gate_event(name: str, artifacts: Path) -> GateEvent:
    """The gate was loaded and planned: its own name and the run's artifacts folder.

    ``gate run`` keeps pytest's output in that folder, in a log named after the gate; it reads
    neither the settings nor the gate itself.
    """
    return {"gate": name, "artifacts": str(artifacts)}


def verdict_event(verdict: GateVerdict, verdict_path: str, report: RunReport) -> VerdictEvent:
    """What ``gate run`` prints at the end: the failing tests, then the gate's table."""
    from phasegate.report.terminal import gate_lines

    table = [text for text, _markup in gate_lines(verdict, verdict_path, verbosity=0)]
    return {
        "verdict": {
            "gate": verdict.gate,
            "insufficient": verdict.verdict == "insufficient",
            "lines": [*_failing_lines(report), *table],
        }
    }


def _failing_lines(report: RunReport) -> list[str]:
    """A line per failing test, the first :data:`SHOWN_FAILURES` of them: its outcome, node id
    and the first line of its exception."""
    from phasegate.model.run import Outcome

    failing = [t for t in report.tests if t.outcome in (Outcome.FAILED, Outcome.ERROR)]
    lines = []
    for test in failing[:SHOWN_FAILURES]:
        detail = f"{test.failure.exc_type}: {test.failure.message}" if test.failure else ""
        first_line = detail.splitlines()[0] if detail else ""
        lines.append(f"  {test.outcome.value.upper()} {test.nodeid} - {first_line}")
    if len(failing) > SHOWN_FAILURES:
        lines.append(f"  ... and {len(failing) - SHOWN_FAILURES} more (see the report)")
    return lines


class TestProgress:
    """Counts collected, ended and failed tests; appends the counts to the progress file."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self, path: Path) -> None:
        self._path: Path | None = path
        self._collected = 0
        self._done = 0
        self._failed: set[str] = set()
        self._written_at = clock.monotonic()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._collected = len(session.items)
        self._write()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        if not self._collected:
            self._collected = len(ids)
            self._write()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self._failed.add(report.nodeid)
        if report.when == "teardown":
            self._done += 1
            if clock.monotonic() - self._written_at >= INTERVAL_S:
                self._write()

    def pytest_sessionfinish(self) -> None:
        self._write()

    def _write(self) -> None:
        self._written_at = clock.monotonic()
        if self._path is None:
            return
        try:
            append_event(self._path, tests_event(self._collected, self._done, len(self._failed)))
        except OSError:
            self._path = None  # only a display's feed: the run goes on without it
