"""Findings as GitHub workflow commands (``::error file=...,line=...::message``).

GitHub shows at most 10 annotations of each level (error, warning, notice) per step and 50
per job, and drops the rest silently. So phasegate chooses: findings on changed lines first,
then by severity, at most 10 errors and 10 warnings, and at most 9 notices, keeping the tenth
notice to say how many findings were left out and where they all are.

Escaping follows the runner's own rules: in the message, ``%``, CR and LF become ``%25``,
``%0D`` and ``%0A``; in property values, ``:`` and ``,`` become ``%3A`` and ``%2C`` as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from phasegate.model.gate import Finding, GateVerdict, Severity
from phasegate.report.limits import ANNOTATIONS_PER_JOB, ANNOTATIONS_PER_LEVEL

__all__ = ["Annotations", "escape_data", "escape_property", "render_annotations"]

_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
}
_ORDER = {Severity.CRITICAL: 0, Severity.HIGH: 1, Severity.MEDIUM: 2, Severity.LOW: 3}
_MAX_MESSAGE = 2000


@dataclass
class Annotations:
    """The workflow command lines, and how many findings they left out."""

    lines: list[str] = field(default_factory=list)
    shown: int = 0
    left_out: int = 0


def escape_data(value: str) -> str:
    """Escape a workflow command's message."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a workflow command's property value."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render_annotations(
    verdict: GateVerdict,
    *,
    path_prefix: str = "",
    per_level: int = ANNOTATIONS_PER_LEVEL,
    per_job: int = ANNOTATIONS_PER_JOB,
    where_all: str = "the job summary and the verdict file",
) -> Annotations:
    """One workflow command per finding that GitHub will show, and a note for the rest."""
    prefix = path_prefix.strip("/")
    pairs = [(check.id, f) for check in verdict.checks for f in check.findings]
    pairs.sort(key=lambda pair: (not pair[1].new, _ORDER[pair[1].severity]))
    total = sum(max(c.findings_total, len(c.findings)) for c in verdict.checks)
    out = Annotations()
    for check_id, finding in _within_caps(pairs, per_level, per_job):
        out.lines.append(_command(_LEVEL[finding.severity], check_id, finding, prefix))
        out.shown += 1
    out.left_out = total - out.shown
    if out.left_out > 0:
        note = (
            f"phasegate showed {out.shown} of {total} findings as annotations (GitHub shows at "
            f"most {per_level} of each level per step); the other {out.left_out} are in "
            f"{where_all}"
        )
        out.lines.append(f"::notice title=phasegate::{escape_data(note)}")
    return out


def _within_caps(
    pairs: list[tuple[str, Finding]], per_level: int, per_job: int
) -> list[tuple[str, Finding]]:
    """The findings GitHub will show, in order: ``per_level`` of each level and ``per_job``
    in all, each less the one notice kept for the note on the rest."""
    caps = {"error": per_level, "warning": per_level, "notice": per_level - 1}
    budget = per_job - 1
    shown: list[tuple[str, Finding]] = []
    for check_id, finding in pairs:
        level = _LEVEL[finding.severity]
        if caps[level] > 0 and budget > 0:
            caps[level] -= 1
            budget -= 1
            shown.append((check_id, finding))
    return shown


def _command(level: str, check_id: str, finding: Finding, prefix: str) -> str:
    props: list[str] = []
    path = finding.path
    if path and not path.startswith("/"):
        full = f"{prefix}/{path}" if prefix else path
        props.append(f"file={escape_property(full)}")
        if finding.line:
            props.append(f"line={finding.line}")
            if finding.column:
                props.append(f"col={finding.column}")
    new = " (new code)" if finding.new else ""
    props.append(f"title={escape_property(f'phasegate {check_id}: {finding.rule}{new}')}")
    message = finding.message[:_MAX_MESSAGE]
    return f"::{level} {','.join(props)}::{escape_data(message)}"
