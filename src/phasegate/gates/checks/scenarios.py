"""scenarios: every step of every feature file is bound to a step definition.

Feature files (default ``features/``) are parsed with pytest-bdd's own parser and every
scenario's steps are looked up the way pytest-bdd looks them up when the scenario runs
(step type, parsers, conftest and module scoping), by collecting the project's tests
(``pytest --collect-only``, nothing runs) with phasegate's probe plugin: see
:mod:`phasegate.gates.bindings`. A step nothing parses, a scenario no test binds, a feature
file that does not parse and a test module that cannot be collected are findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.gates.bindings import Bindings, ScenarioReport, find_bindings
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.settings import Section
from phasegate.tomlfile import table_in

__all__ = ["ScenariosCheck", "ScenariosOptions", "binding_findings", "testpaths"]


class ScenariosOptions(Section):
    """Options of the scenarios check."""

    features: list[str] = Field(
        default_factory=lambda: ["features"],
        min_length=1,
        description="feature files or folders of them, relative to the project root",
    )
    tests: list[str] = Field(
        default_factory=list,
        description="test paths that bind the scenarios (default: pytest's testpaths)",
    )


class ScenariosCheck:
    """Fails when a feature file has a step no step definition binds."""

    id: ClassVar[str] = "scenarios"
    title: ClassVar[str] = "every feature step is bound"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[ScenariosOptions]] = ScenariosOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("scenarios", "scenarios in the feature files"),
        MetricSpec("steps", "steps in those scenarios"),
        MetricSpec("unbound_steps", "steps no step definition parses"),
        MetricSpec("unbound_scenarios", "scenarios no test binds"),
        MetricSpec("errors", "feature files that do not parse, test modules that do not collect"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="scenarios", op="<", value=1),
        ConditionSpec(metric="unbound_steps", op=">", value=0),
        ConditionSpec(metric="unbound_scenarios", op=">", value=0),
        ConditionSpec(metric="errors", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return ToolInfo(name="pytest-bdd", version=version("pytest-bdd"))
        except PackageNotFoundError as exc:
            raise CheckError(
                "the scenarios check needs pytest-bdd, which is not installed",
                fix="pip install 'pytest-phasegate[bdd]'",
            ) from exc

    def cache_inputs(self, ctx: CheckContext, options: ScenariosOptions) -> Sequence[Path] | None:
        features = _feature_files(ctx.project.root, options.features)
        return [*features, *ctx.project.python_files]

    def measure(self, ctx: CheckContext, options: ScenariosOptions) -> Measurement:
        root = ctx.project.root
        features = _feature_files(root, options.features)
        if not features:
            raise CheckError(
                f"no feature file found at {', '.join(options.features)}",
                fix="write one, or point the check's features option at them",
            )
        tests = options.tests or testpaths(ctx)
        bindings = find_bindings(root, features, tests, timeout_s=ctx.timeout_s)
        findings, metrics = binding_findings(bindings, ctx)
        unbound = metrics["unbound_steps"]
        if findings:
            first = findings[0]
            summary = (
                f"{unbound} unbound step(s) in {metrics['scenarios']} scenario(s); first "
                f"{first.path}:{first.line}: {first.message}"
            )
        else:
            summary = (
                f"all {metrics['steps']} steps of {metrics['scenarios']} scenarios in "
                f"{len(features)} feature file(s) are bound"
            )
        return Measurement(
            summary=summary,
            score=1.0 if not findings else 0.0,
            metrics=dict(metrics),
            new_code_metrics=dict(metrics),
            findings=findings,
        )


def binding_findings(
    bindings: Bindings, ctx: CheckContext
) -> tuple[list[Finding], dict[str, MetricValue]]:
    """Findings and metrics of a probe's result (shared with the spec check)."""
    findings: list[Finding] = []
    counts = {"scenarios": 0, "steps": 0, "unbound_steps": 0, "unbound_scenarios": 0}
    errors = 0
    for feature in bindings.features:
        shown = ctx.project.relative(feature.path)
        if feature.error is not None:
            errors += 1
            findings.append(
                Finding(rule="feature-parse", severity=Severity.HIGH, message=feature.error,
                        path=shown)
            )  # fmt: skip
            continue
        for scenario in feature.scenarios:
            findings += _scenario_findings(scenario, shown, counts)
    for error in bindings.collection_errors:
        errors += 1
        findings.append(Finding(rule="collection-error", severity=Severity.HIGH, message=error))
    metrics: dict[str, MetricValue] = {**counts, "errors": errors}
    return findings, metrics


def _scenario_findings(
    scenario: ScenarioReport, shown: str, counts: dict[str, int]
) -> list[Finding]:
    """A scenario bound to no test, or each of its steps without a definition; the scenario
    and its steps are added to ``counts``."""
    counts["scenarios"] += 1
    counts["steps"] += len(scenario.steps)
    if not scenario.tests:
        counts["unbound_scenarios"] += 1
        return [
            Finding(
                rule="scenario-unbound",
                severity=Severity.HIGH,
                message=f'scenario "{scenario.name}" is bound to no test: call '
                "scenarios() or @scenario for it in a test module",
                path=shown,
                line=scenario.line,
            )
        ]
    unbound = [step for step in scenario.steps if not step.bound]
    counts["unbound_steps"] += len(unbound)
    return [
        Finding(
            rule="step-unbound",
            severity=Severity.HIGH,
            message=f'step "{step.text}" of scenario "{scenario.name}" has no step definition',
            path=shown,
            line=step.line,
        )
        for step in unbound
    ]


def _feature_files(root: Path, paths: Sequence[str]) -> list[Path]:
    files: set[Path] = set()
    for entry in paths:
        path = (root / entry).resolve()
        if path.is_dir():
            files.update(path.rglob("*.feature"))
        elif path.is_file():
            files.add(path)
    return sorted(files)


def testpaths(ctx: CheckContext) -> list[str]:
    """Where pytest finds the project's tests: its ``testpaths`` setting, else the root."""
    ini = table_in(ctx.project.pyproject, "tool", "pytest", "ini_options")
    paths = ini.get("testpaths")
    return [str(p) for p in paths] if isinstance(paths, list) and paths else ["."]
