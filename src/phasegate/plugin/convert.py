"""pytest reports -> the plain values of :mod:`phasegate.recording`.

Works on reports from this process and on reports pytest-xdist rebuilt from a worker's data:
both carry the dict the :mod:`~phasegate.plugin.annotator` attached.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from phasegate.failures import relative_path
from phasegate.plugin.annotator import REPORT_ATTRIBUTE
from phasegate.recording import PhaseReport, bound_text

__all__ = ["collection_error", "phase_report"]

_SKIPPED_PREFIX = "Skipped: "


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
            round(report.duration, 6),  # a perf_counter difference: never negative
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
        round(max(report.duration, 0.0), 6),
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
