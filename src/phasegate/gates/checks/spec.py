"""spec: gate 2 of the SDLC: acceptance criteria, bound test scenarios, a security section.

Reads Markdown specifications (default ``docs/specs/{instance}_spec.md``). Each needs:

* ``## Acceptance criteria`` with at least one list item;
* ``## Test scenarios`` naming at least one feature file (a path ending ``.feature``,
  relative to the project root), each of which exists and has every step bound to a step
  definition (looked up as the ``scenarios`` check does);
* ``## Security`` with at least one sentence (what was considered, even "no new input").

The format is in ``docs/workflows.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.gates.bindings import find_bindings
from phasegate.gates.checks.scenarios import binding_findings, testpaths
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

__all__ = ["SpecCheck", "SpecOptions"]

_FEATURE = re.compile(r"[\w./-]+\.feature\b")


class SpecOptions(Section):
    """Options of the spec check."""

    paths: list[str] = Field(
        default_factory=lambda: ["docs/specs/{instance}_spec.md"],
        min_length=1,
        description="globs of the specifications, relative to the project root",
    )
    tests: list[str] = Field(
        default_factory=list,
        description="test paths that bind the scenarios (default: pytest's testpaths)",
    )


class SpecCheck:
    """Every specification has acceptance criteria, bound scenarios and a security section."""

    id: ClassVar[str] = "spec"
    title: ClassVar[str] = "the spec has acceptance criteria, bound scenarios and security"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[SpecOptions]] = SpecOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("documents", "specifications found"),
        MetricSpec("missing", "parts missing, and scenario steps unbound"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="documents", op="<", value=1),
        ConditionSpec(metric="missing", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: SpecOptions) -> Sequence[Path] | None:
        return None

    def measure(self, ctx: CheckContext, options: SpecOptions) -> Measurement:
        root = ctx.project.root
        documents = expand(options.paths, root, ctx.instance)
        findings: list[Finding] = []
        for path in documents:
            findings += self._problems(path, ctx, options)
        return document_measurement("spec", documents, findings, options.paths, ctx.instance)

    def _problems(self, path: Path, ctx: CheckContext, options: SpecOptions) -> list[Finding]:
        shown = ctx.project.relative(path)
        sections = read_sections(path)
        found = [
            Finding(rule=rule, severity=Severity.HIGH, message=message, path=shown, line=line)
            for rule, message, line in _section_problems(sections)
        ]
        scenarios = find_section(sections, ("test scenarios", "scenarios"))
        named = sorted(set(_FEATURE.findall(scenarios.text))) if scenarios else []
        if named:
            found += _feature_problems(named, shown, ctx, options)
        return found


def _section_problems(sections: list[DocumentSection]) -> list[tuple[str, str, int | None]]:
    """What the acceptance criteria, security and test scenarios sections lack: rule,
    message and line."""
    criteria = find_section(sections, ("acceptance criteria",))
    security = find_section(sections, ("security", "security implications"))
    scenarios = find_section(sections, ("test scenarios", "scenarios"))
    required = (
        (
            "spec-acceptance-criteria",
            "'## Acceptance criteria' needs at least one list item",
            criteria,
            criteria is not None and bool(criteria.items),
        ),
        (
            "spec-security",
            "'## Security' needs at least one sentence on what was considered",
            security,
            security is not None and bool(security.text.strip()),
        ),
        (
            "spec-test-scenarios",
            "'## Test scenarios' must name at least one feature file (e.g. features/login.feature)",
            scenarios,
            scenarios is not None and bool(_FEATURE.findall(scenarios.text)),
        ),
    )
    return [
        (rule, message, section.line if section else None)
        for rule, message, section, present in required
        if not present
    ]


def _feature_problems(
    named: list[str], shown: str, ctx: CheckContext, options: SpecOptions
) -> list[Finding]:
    """Feature files the spec names that do not exist, and their scenarios without steps."""
    features = [(ctx.project.root / name).resolve() for name in named]
    found = [
        Finding(
            rule="spec-test-scenarios",
            severity=Severity.HIGH,
            message=f"the feature file {name} does not exist",
            path=shown,
        )
        for name, feature in zip(named, features, strict=True)
        if not feature.is_file()
    ]
    present = [feature for feature in features if feature.is_file()]
    if present:
        tests = options.tests or testpaths(ctx)
        bindings = find_bindings(ctx.project.root, present, tests, timeout_s=ctx.timeout_s)
        found += binding_findings(bindings, ctx)[0]
    return found
