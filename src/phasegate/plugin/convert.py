"""pytest reports -> the plain values of :mod:`phasegate.recording`.

Works on reports from this process and on reports pytest-xdist rebuilt from a worker's data:
both carry the dict the :mod:`~phasegate.plugin.annotator` attached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import Any

import pytest

from phasegate.failures import relative_path
from phasegate.plugin.annotator import REPORT_ATTRIBUTE
from phasegate.recording import (
    PhaseReport,
    bound_text,
    build_record,
    build_test_records,
    passed_record,
    to_microsecond,
)

__all__ = ["collection_error", "phase_report", "records_from_reports"]

_SKIPPED_PREFIX = "Skipped: "
_by_nodeid = attrgetter("nodeid")
#: Attributes a report carries only when there is more to record than a plain pass.
_UNPLAIN = frozenset((REPORT_ATTRIBUTE, "wasxfail", "worker_id"))


def records_from_reports(
    reports: Sequence[pytest.TestReport],
    root: Path,
    traceback_limit: int,
    markers: Mapping[str, Sequence[str]] | None = None,
) -> list[dict[str, Any]]:
    """One test record per node id, as :func:`phasegate.recording.build_test_records` makes.

    In a serial run each test's reports come together, and nearly every test passed its
    three phases: such a test's record is built straight from its reports
    (:func:`~phasegate.recording.passed_record`), about twice as fast as through a
    :class:`PhaseReport` per phase. When a test's reports are split (pytest-xdist interleaves
    the workers' reports), every report goes the general way.
    """
    groups = [(nodeid, list(group)) for nodeid, group in groupby(reports, _by_nodeid)]
    if len({nodeid for nodeid, _group in groups}) != len(groups):
        return build_test_records(
            (phase_report(r, root, traceback_limit) for r in reports), markers
        )
    known = markers or {}
    records: list[dict[str, Any]] = []
    for nodeid, group in groups:
        if _passed_plainly(group):
            setup, call, teardown = group
            durations = (
                to_microsecond(setup.duration),
                to_microsecond(call.duration),
                to_microsecond(teardown.duration),
            )
            records.append(passed_record(nodeid, setup.location, durations, known.get(nodeid, ())))
        else:
            phases = [phase_report(r, root, traceback_limit) for r in group]
            records.append(build_record(nodeid, phases, known))
    return records


def _passed_plainly(group: list[pytest.TestReport]) -> bool:
    """Setup, call and teardown in that order, each passed, none annotated or under xfail."""
    if len(group) != 3:
        return False
    setup, call, teardown = group
    return (
        setup.outcome == call.outcome == teardown.outcome == "passed"
        and setup.when == "setup"
        and call.when == "call"
        and teardown.when == "teardown"
        and _UNPLAIN.isdisjoint(setup.__dict__)
        and _UNPLAIN.isdisjoint(call.__dict__)
        and _UNPLAIN.isdisjoint(teardown.__dict__)
    )


def phase_report(report: pytest.TestReport, root: Path, traceback_limit: int) -> PhaseReport:
    """The plain values of one phase report."""
    # Optional attributes are read from __dict__: getattr() with a default raises and
    # catches AttributeError when they are absent, which is most of the time.
    attributes = report.__dict__
    extra: dict[str, Any] | None = attributes.get(REPORT_ATTRIBUTE)
    outcome = report.outcome
    if extra is None and outcome == "passed":  # the common case, kept short
        return PhaseReport(
            report.nodeid,
            report.when,
            outcome,
            to_microsecond(report.duration),  # a perf_counter difference: never negative
            report.location,
            attributes.get("wasxfail"),
            worker=attributes.get("worker_id"),
        )
    extra = extra or {}
    skip_reason = None
    if outcome == "skipped" and isinstance(report.longrepr, tuple):
        skip_reason = str(report.longrepr[2]).removeprefix(_SKIPPED_PREFIX)
    return PhaseReport(
        report.nodeid,
        report.when,
        outcome,
        to_microsecond(max(report.duration, 0.0)),
        report.location,
        attributes.get("wasxfail"),
        skip_reason,
        _failure(report, extra, root, traceback_limit) if outcome == "failed" else None,
        extra.get("markers"),
        attributes.get("worker_id"),
    )


def collection_error(
    report: pytest.CollectReport, root: Path, traceback_limit: int
) -> dict[str, Any]:
    """A failed collector, shaped like :class:`phasegate.model.CollectionError`."""
    extra: dict[str, Any] = getattr(report, REPORT_ATTRIBUTE, None) or {}
    return {
        "nodeid": report.nodeid or ".",
        "failure": _failure(report, extra, root, traceback_limit),
    }


def _failure(
    report: pytest.TestReport | pytest.CollectReport,
    extra: dict[str, Any],
    root: Path,
    limit: int,
) -> dict[str, Any]:
    text, truncated = bound_text(report.longreprtext, limit)
    known = extra.get("failure")
    if known is not None:
        return {**known, "traceback": text, "traceback_truncated": truncated}
    # No live exception was seen (a strict xpass, a crashed xdist worker): use pytest's text.
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        message, path, line = str(crash.message), relative_path(crash.path, root), crash.lineno
    else:
        lines = text.strip().splitlines()
        message, path, line = (lines[-1] if lines else ""), None, None
    return {
        "phase": "collect" if isinstance(report, pytest.CollectReport) else report.when,
        "exc_type": "XPASS(strict)" if "[XPASS(strict)]" in text else "unknown",
        "message": message,
        "path": path,
        "line": line,
        "traceback": text,
        "traceback_truncated": truncated,
    }
