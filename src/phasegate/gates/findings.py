"""Findings shared by every check: where they are, whether they are new, how many there are."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from phasegate.gates.newcode import NewCode
from phasegate.gates.project import GateProject
from phasegate.model.gate import Finding, Severity

__all__ = ["count_at_least", "locate", "score_from_count"]

_SEVERITY_ORDER = [Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL]


def locate(
    project: GateProject,
    new_code: NewCode,
    *,
    rule: str,
    severity: Severity,
    message: str,
    path: str | Path | None,
    line: int | None = None,
    column: int | None = None,
) -> Finding:
    """A finding with its path made relative to the project and its new-code flag set.

    A finding the project's baseline accepts is not new (:mod:`phasegate.gates.baseline`).
    """
    relative = project.relative(path) if path is not None else None
    return Finding(
        rule=rule,
        severity=severity,
        message=message,
        path=relative,
        line=line,
        column=column,
        new=new_code.is_new_finding(rule, relative, line),
    )


def count_at_least(findings: Iterable[Finding], threshold: Severity, *, new: bool) -> int:
    """How many findings are at ``threshold`` or worse (only new ones when ``new``)."""
    floor = _SEVERITY_ORDER.index(threshold)
    return sum(
        1
        for finding in findings
        if _SEVERITY_ORDER.index(finding.severity) >= floor and (finding.new or not new)
    )


def score_from_count(count: int, *, scale: int = 10) -> float:
    """1.0 for none, falling towards 0 as ``count`` grows (0.5 at ``scale``)."""
    return round(scale / (scale + count), 4)
