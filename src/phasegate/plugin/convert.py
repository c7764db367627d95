"""pytest reports -> the plain values of :mod:`phasegate.recording`.

Works on reports from this process and on reports pytest-xdist rebuilt from a worker's data:
both carry the dict the :mod:`~phasegate.plugin.annotator` attached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from operator import attrgetter
from pathlib import Path

import pytest

from phasegate.documents import CollectionErrorDocument, CollectionSkipDocument, FailureDocument
from phasegate.failures import relative_path
from phasegate.plugin.annotator import REPORT_ATTRIBUTE, ReportAnnotation
from phasegate.recording import (
    PassedRow,
    PhaseReport,
    TestRow,
    bound_text,
    build_record,
    build_test_records,
    to_microsecond,
)

__all__ = ["PHASES", "collection_error", "collection_skip", "phase_report", "rows_from_reports"]

_SKIPPED_PREFIX = "Skipped: "
#: The phases a test report may have; pytest-xdist reports a worker that died with ``"???"``.
PHASES = frozenset(("setup", "call", "teardown"))
_by_nodeid = attrgetter("nodeid")
#: Attributes a report carries only when there is more to record than a plain pass.
_UNPLAIN = frozenset((REPORT_ATTRIBUTE, "wasxfail", "worker_id", "context"))


def rows_from_reports(
    reports: Sequence[pytest.TestReport],
    root: Path,
    traceback_limit: int,
    markers: Mapping[str, Sequence[str]] | None = None,
) -> list[TestRow]:
    """One entry per node id: what :func:`phasegate.recording.build_test_records` makes, as rows.

    In a serial run each test's reports come together, and nearly every test passed its
    three phases: such a test is kept as a :class:`~phasegate.recording.PassedRow`, one tuple
    read straight from its reports, which :func:`~phasegate.recording.materialize` turns into
    the same record the general way builds, if anything reads it. Every other test is built
    through a :class:`PhaseReport` per phase, as is every report when a test's reports are
    split (pytest-xdist interleaves the workers' reports).
    """
    groups = [(nodeid, list(group)) for nodeid, group in groupby(reports, _by_nodeid)]
    if len({nodeid for nodeid, _group in groups}) != len(groups):
        return list(
            build_test_records((phase_report(r, root, traceback_limit) for r in reports), markers)
        )
    known = markers or {}
    rows: list[TestRow] = []
    for nodeid, group in groups:
        if _passed_plainly(group):
            setup, call, teardown = group
            rows.append(
                PassedRow(
                    nodeid,
                    setup.location,
                    to_microsecond(setup.duration),
                    to_microsecond(call.duration),
                    to_microsecond(teardown.duration),
                    known.get(nodeid, ()),
                )
            )
        else:
            phases = [phase_report(r, root, traceback_limit) for r in group]
            rows.append(build_record(nodeid, phases, known))
    return rows


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
    extra: ReportAnnotation | None = attributes.get(REPORT_ATTRIBUTE)
    outcome = report.outcome
    if extra is None and outcome == "passed" and "context" not in attributes:  # the common case
        return PhaseReport(
            report.nodeid,
            report.when,
            outcome,
            to_microsecond(report.duration),
            report.location,
            attributes.get("wasxfail"),
            worker=attributes.get("worker_id"),
        )
    return _full_phase_report(report, extra or ReportAnnotation(), root, traceback_limit)


def _full_phase_report(
    report: pytest.TestReport, extra: ReportAnnotation, root: Path, traceback_limit: int
) -> PhaseReport:
    """A phase that did not plainly pass, or carries more than its outcome: its skip reason,
    failure, markers, worker and subtest."""
    attributes = report.__dict__
    outcome = report.outcome
    subtest = _subtest_name(attributes.get("context"))
    skip_reason = None
    if outcome == "skipped" and isinstance(report.longrepr, tuple):
        skip_reason = str(report.longrepr[2]).removeprefix(_SKIPPED_PREFIX)
    # A worker that died mid-test has no phase: its report stands for the test's call (the
    # recorder marks the run incomplete for it).
    when = report.when if report.when in PHASES else "call"
    return PhaseReport(
        report.nodeid,
        when,
        outcome,
        to_microsecond(report.duration),
        report.location,
        attributes.get("wasxfail"),
        skip_reason,
        _failure(report, extra, root, traceback_limit) if outcome == "failed" else None,
        extra.get("markers"),
        attributes.get("worker_id"),
        subtest,
    )


def _subtest_name(context: object) -> str | None:
    """How pytest names a subtest (``[msg] (i=1)``), when the report is a subtest's.

    pytest's ``SubtestReport`` (and pytest-subtests' ``SubTestReport`` before pytest 9) carry
    a ``context`` with the subtest's ``msg`` and ``kwargs``; other reports have none.
    """
    if context is None or not hasattr(context, "kwargs") or not hasattr(context, "msg"):
        return None
    parts = []
    if context.msg is not None:
        parts.append(f"[{context.msg}]")
    if context.kwargs:
        parts.append("(" + ", ".join(f"{k}={v}" for k, v in context.kwargs.items()) + ")")
    return " ".join(parts) or "(<subtest>)"


def collection_error(
    report: pytest.CollectReport, root: Path, traceback_limit: int
) -> CollectionErrorDocument:
    """A failed collector, shaped like :class:`phasegate.model.CollectionError`."""
    extra: ReportAnnotation = getattr(report, REPORT_ATTRIBUTE, None) or ReportAnnotation()
    return {
        "nodeid": report.nodeid or ".",
        "failure": _failure(report, extra, root, traceback_limit),
    }


def collection_skip(report: pytest.CollectReport, root: Path) -> CollectionSkipDocument:
    """A collector skipped while collected, shaped like :class:`phasegate.model.CollectionSkip`.

    pytest keeps a skip's ``(path, line, message)`` as the report's ``longrepr`` tuple, the line
    being where the skip was raised in the collected file.
    """
    path: str | None = None
    line: int | None = None
    reason = report.longreprtext.strip()
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        where, lineno, message = longrepr
        path, reason = relative_path(str(where), root), str(message)
        line = lineno if isinstance(lineno, int) else None  # the crash line: 1-based
    return {
        "nodeid": report.nodeid or ".",
        "reason": reason.removeprefix(_SKIPPED_PREFIX) or "no reason given",
        "path": path,
        "line": line,
    }


def _failure(
    report: pytest.TestReport | pytest.CollectReport,
    extra: ReportAnnotation,
    root: Path,
    limit: int,
) -> FailureDocument:
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
    phase = "collect" if isinstance(report, pytest.CollectReport) else report.when
    return {
        "phase": phase if phase in PHASES or phase == "collect" else "call",
        "exc_type": "XPASS(strict)" if "[XPASS(strict)]" in text else "unknown",
        "message": message,
        "path": path,
        "line": line,
        "traceback": text,
        "traceback_truncated": truncated,
    }
