"""The auto-debug section at the end of a pytest run, as styled lines.

``-q`` shows one line; the default shows one line per failure and where its diff is; ``-v``
adds every candidate tried and why it was kept or rejected, and the suspicious functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from phasegate.model.autodebug import AutodebugFailure, AutodebugReport, Repair, SuspiciousFunction
from phasegate.report.terminal import Line

__all__ = ["autodebug_lines", "summary_phrase"]

_MARKUP = {
    "repaired": {"green": True},
    "fixed-by-another-repair": {"green": True},
    "localized": {"yellow": True},
    "escalated": {"red": True},
    "not-attempted": {"yellow": True},
}


def summary_phrase(report: AutodebugReport) -> str:
    """``3 failure(s): 2 repaired, 1 escalated``."""
    counts = report.counts
    parts = [
        f"{value} {name}"
        for name, value in (
            ("repaired", counts.repaired),
            ("fixed by another repair", counts.fixed_by_another_repair),
            ("localized", counts.localized),
            ("escalated", counts.escalated),
            ("not attempted", counts.not_attempted),
        )
        if value
    ]
    return f"{counts.failures} failure(s)" + (": " + ", ".join(parts) if parts else "")


def autodebug_lines(
    report: AutodebugReport | None,
    report_path: str | None,
    errors: Sequence[str],
    notices: Sequence[str],
    *,
    verbosity: int,
) -> list[Line]:
    """The lines of the section (empty when there is nothing to say)."""
    lines = _message_lines(errors, [*notices, *(report.warnings if report else ())])
    if report is None:
        return lines
    folder = str(PurePath(report_path).parent) if report_path else None
    if verbosity >= 0:
        for failure in report.failures:
            lines.extend(_failure_lines(failure, folder, verbosity))
    where = f"; report {report_path}" if report_path else ""
    lines.append((f"autodebug ({report.mode}): {summary_phrase(report)}{where}", {"bold": True}))
    return lines


def _message_lines(errors: Sequence[str], warnings: Sequence[str]) -> list[Line]:
    """The errors in red, then the warnings in yellow."""
    lines: list[Line] = [(f"error: {message}", {"red": True, "bold": True}) for message in errors]
    lines += [(f"warning: {message}", {"yellow": True}) for message in warnings]
    return lines


def _repair_line(repair: Repair, folder: str | None) -> str:
    state = "applied"
    if not repair.applied:
        state = "not applied (git apply it, or run pytest --autodebug=apply)"
    where = f"{folder}/{repair.diff_file}" if folder else repair.diff_file
    return f"    diff: {where}, {state}"


def _failure_lines(failure: AutodebugFailure, folder: str | None, verbosity: int) -> list[Line]:
    markup = _MARKUP.get(failure.outcome, {})
    lines: list[Line] = [(f"{failure.id} {failure.outcome}: {failure.explanation}", markup)]
    lines.append((_tests_line(failure.tests, verbosity), {}))
    if failure.repair is not None:
        lines.append((_repair_line(failure.repair, folder), {}))
    if failure.escalation is not None:
        lines.append((f"    escalated: {failure.escalation.reason}", {}))
    if verbosity > 0:
        lines.extend(
            (f"    tried {a.rank}: {a.description}: {a.status}, {a.reason}", {})
            for a in failure.attempts
        )
    if failure.suspicious:
        lines.append((_suspicious_line(failure.suspicious, verbosity), {}))
    return lines


def _tests_line(tests: Sequence[str], verbosity: int) -> str:
    """The failing tests: the first three, unless verbose."""
    shown = tests if verbosity > 0 else tests[:3]
    more = f" and {len(tests) - len(shown)} more" if len(shown) < len(tests) else ""
    return f"    tests: {', '.join(shown)}{more}"


def _suspicious_line(suspicious: Sequence[SuspiciousFunction], verbosity: int) -> str:
    """The most suspicious lines: the first three, unless verbose."""
    shown = suspicious if verbosity > 0 else suspicious[:3]
    names = ", ".join(f"{s.path}:{s.line} {s.function} ({s.score:.2f})" for s in shown)
    return f"    suspicious: {names}"
