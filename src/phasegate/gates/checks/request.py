"""request: gate 1 of the SDLC: the request names its goal, its constraints and its stack.

Reads Markdown documents (default ``docs/requirements/{instance}_req.md``, where
``{instance}`` is the workflow instance the gate runs for, any name when run by hand). Each
needs a non-empty section for every part: ``Goal``; ``Constraints``; ``Stack`` (or
``Tech stack``, ``Technology stack``). The format is in ``docs/workflows.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.documents import Section as DocumentSection
from phasegate.gates.documents import (
    document_measurement,
    expand,
    find_section,
    read_sections,
)
from phasegate.gates.protocol import CheckContext, Measurement, MetricSpec
from phasegate.model.gate import Finding, Severity, ToolInfo
from phasegate.settings import Section

__all__ = ["REQUEST_PARTS", "RequestCheck", "RequestOptions"]

#: Each part a request needs, with the headings accepted for it.
REQUEST_PARTS: dict[str, tuple[str, ...]] = {
    "goal": ("goal", "goals"),
    "constraints": ("constraints",),
    "stack": ("stack", "tech stack", "technology stack"),
}


class RequestOptions(Section):
    """Options of the request check."""

    paths: list[str] = Field(
        default_factory=lambda: ["docs/requirements/{instance}_req.md"],
        min_length=1,
        description="globs of the request documents, relative to the project root",
    )


class RequestCheck:
    """Every request document names its goal, its constraints and its stack."""

    id: ClassVar[str] = "request"
    title: ClassVar[str] = "the request names its goal, constraints and stack"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[RequestOptions]] = RequestOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("documents", "request documents found"),
        MetricSpec("missing", "parts missing or empty, over all documents"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="documents", op="<", value=1),
        ConditionSpec(metric="missing", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: RequestOptions) -> Sequence[Path] | None:
        return None  # cheap; and the instance decides which files count

    def measure(self, ctx: CheckContext, options: RequestOptions) -> Measurement:
        root = ctx.project.root
        documents = expand(options.paths, root, ctx.instance)
        findings = [
            finding
            for path in documents
            for finding in _missing_parts(ctx.project.relative(path), read_sections(path))
        ]
        return document_measurement("request", documents, findings, options.paths, ctx.instance)


def _missing_parts(shown: str, sections: list[DocumentSection]) -> list[Finding]:
    """A finding for each part of the request that is missing or empty."""
    findings: list[Finding] = []
    for part, names in REQUEST_PARTS.items():
        section = find_section(sections, names)
        if section is None or not section.text.strip():
            what = "is empty" if section else "is missing"
            findings.append(
                Finding(
                    rule=f"request-{part}",
                    severity=Severity.HIGH,
                    message=f"the {part} section {what}: add '## {names[0].title()}' "
                    "with at least one sentence",
                    path=shown,
                    line=section.line if section else None,
                )
            )
    return findings
