"""Where tests run: note what only the live test knows, at no cost for a passing test.

The live exception of a failure exists only in the process that ran the test. It is described
once and attached to the report as one plain dict under :data:`REPORT_ATTRIBUTE`:

* in a serial run, by :class:`Annotator` from ``pytest_exception_interact``, which pytest calls
  for failures only (after the report was logged; the recorder holds the same report object);
* on a pytest-xdist worker, by :class:`WorkerAnnotator` from a ``pytest_runtest_makereport``
  wrapper, before the report is serialized to the controller (the dict survives the trip),
  together with the test's markers and, at the end, the number of deselected tests.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TypedDict

import pytest

from phasegate.documents import RaisedDocument
from phasegate.failures import describe_exception

__all__ = [
    "REPORT_ATTRIBUTE",
    "WORKER_OUTPUT_KEY",
    "Annotator",
    "ReportAnnotation",
    "WorkerAnnotator",
]

#: The attribute phasegate adds to pytest reports (a :class:`ReportAnnotation`).
REPORT_ATTRIBUTE = "phasegate"


class ReportAnnotation(TypedDict, total=False):
    """What phasegate attaches to a report: the live exception, the markers (xdist workers)."""

    failure: RaisedDocument
    markers: list[str]


#: The key of phasegate's data in pytest-xdist's ``workeroutput``.
WORKER_OUTPUT_KEY = "phasegate"


class Annotator:
    """Attaches the live exception of each failure (test or collector) to its report."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._root = config.rootpath

    def pytest_exception_interact(
        self,
        node: pytest.Item | pytest.Collector,
        call: pytest.CallInfo[object],
        report: pytest.CollectReport | pytest.TestReport,
    ) -> None:
        if call.excinfo is None:
            return
        data: ReportAnnotation = getattr(report, REPORT_ATTRIBUTE, None) or ReportAnnotation()
        if "failure" in data:
            return  # a worker annotated it already, before the report left
        exc, phase = _raised(call.excinfo.value, report)
        data["failure"] = describe_exception(exc, phase=phase, root=self._root)
        setattr(report, REPORT_ATTRIBUTE, data)


def _raised(
    exc: BaseException, report: pytest.CollectReport | pytest.TestReport
) -> tuple[BaseException, str]:
    """The exception to record and the phase it ended: a collector's is the import's own
    error, which pytest wraps in a ``CollectError``."""
    if not isinstance(report, pytest.CollectReport):
        return exc, report.when
    if isinstance(exc, pytest.Collector.CollectError) and exc.__cause__ is not None:
        return exc.__cause__, "collect"
    return exc, "collect"


class WorkerAnnotator(Annotator):
    """On a pytest-xdist worker: annotate before the report travels, count deselections."""

    def __init__(self, config: pytest.Config) -> None:
        super().__init__(config)
        self._deselected = 0

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "setup":
            markers = sorted({mark.name for mark in item.iter_markers()})
            annotation: ReportAnnotation = {"markers": markers}
            setattr(report, REPORT_ATTRIBUTE, annotation)
        if report.failed and call.excinfo is not None:
            self.pytest_exception_interact(item, call, report)
        return report

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._deselected += len(items)

    def pytest_sessionfinish(self) -> None:
        output = getattr(self._config, "workeroutput", None)
        if output is not None:
            output[WORKER_OUTPUT_KEY] = {"deselected": self._deselected}
