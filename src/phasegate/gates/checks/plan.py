"""plan: gate 3 of the SDLC: tasks under an hour, acyclic dependencies, a retry budget each.

Reads TOML plans (default ``docs/plans/{instance}_plan.toml``)::

    retry_budget = 2            # retries allowed per task, unless a task says otherwise

    [[tasks]]
    id = "T1"
    title = "parse the request"
    estimate_min = 30           # minutes; must be under max_estimate_min (60)
    depends_on = []
    retries = 3                 # this task's own budget
    priority = "HIGH"           # optional: its priority in the handoff queue (default MEDIUM)
    files = ["src/app/parse.py"]   # optional: the files it touches (phase spawn measures them)

Dependencies are checked with the standard library's ``graphlib`` (a cycle is reported with
its members); a dependency naming no task is an error too.
"""

from __future__ import annotations

import graphlib
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field, ValidationError

from phasegate import tomlfile
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.documents import document_measurement, expand
from phasegate.gates.protocol import CheckContext, Measurement, MetricSpec
from phasegate.model.gate import Finding, Severity, ToolInfo
from phasegate.settings import Section, describe_errors

__all__ = ["PlanCheck", "PlanDocument", "PlanOptions", "PlanTask", "plan_problems"]


class PlanTask(Section):
    """``[[tasks]]`` of a plan."""

    id: str = Field(min_length=1)
    title: str = ""
    estimate_min: float = Field(gt=0, description="minutes the task should take")
    depends_on: list[str] = Field(default_factory=list)
    retries: int | None = Field(default=None, ge=0, description="this task's retry budget")
    priority: Literal["CRITICAL", "HIGH", "MEDIUM", "LOW"] = Field(
        default="MEDIUM", description="its priority in the handoff queue"
    )
    files: list[str] = Field(
        default_factory=list, description="the files it touches, relative to the project root"
    )


class PlanDocument(Section):
    """A whole plan file."""

    retry_budget: int | None = Field(default=None, ge=0)
    tasks: list[PlanTask] = Field(min_length=1)


class PlanOptions(Section):
    """Options of the plan check."""

    paths: list[str] = Field(
        default_factory=lambda: ["docs/plans/{instance}_plan.toml"],
        min_length=1,
        description="globs of the plan files, relative to the project root",
    )
    max_estimate_min: float = Field(
        default=60, gt=0, description="a task's estimate must be under this"
    )


class PlanCheck:
    """Every plan's tasks are atomic, ordered without cycles, and have a retry budget."""

    id: ClassVar[str] = "plan"
    title: ClassVar[str] = "the plan's tasks are under an hour, acyclic and budgeted"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[PlanOptions]] = PlanOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("documents", "plan files found"),
        MetricSpec("missing", "problems found: oversized, cyclic, unknown or unbudgeted"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="documents", op="<", value=1),
        ConditionSpec(metric="missing", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: PlanOptions) -> Sequence[Path] | None:
        return None

    def measure(self, ctx: CheckContext, options: PlanOptions) -> Measurement:
        documents = expand(options.paths, ctx.project.root, ctx.instance)
        findings: list[Finding] = []
        for path in documents:
            findings += self._problems(path, ctx.project.relative(path), options)
        return document_measurement("plan", documents, findings, options.paths, ctx.instance)

    def _problems(self, path: Path, shown: str, options: PlanOptions) -> list[Finding]:
        def finding(rule: str, message: str) -> Finding:
            return Finding(rule=rule, severity=Severity.HIGH, message=message, path=shown)

        try:
            plan = PlanDocument.model_validate(tomlfile.loads(path.read_text(encoding="utf-8")))
        except tomlfile.TOMLDecodeError as exc:
            return [finding("plan-format", f"not valid TOML: {exc}")]
        except ValidationError as exc:
            return [
                finding("plan-format", line)
                for line in describe_errors(
                    exc, model=PlanDocument, where=shown, table=""
                ).splitlines()
            ]
        return [finding(rule, message) for rule, message in plan_problems(plan, options)]


def plan_problems(plan: PlanDocument, options: PlanOptions) -> list[tuple[str, str]]:
    """``(rule, message)`` per problem: oversized, cyclic, unknown or unbudgeted tasks."""
    ids = [task.id for task in plan.tasks]
    found: list[tuple[str, str]] = []
    for task in plan.tasks:
        found += _task_problems(task, ids, plan.retry_budget is not None, options)
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        found.append(("plan-format", f"task ids listed twice: {', '.join(twice)}"))
    cycle = _dependency_cycle(plan, ids)
    if cycle:
        found.append(("plan-cycle", f"the dependencies form a cycle: {cycle}"))
    return found


def _dependency_cycle(plan: PlanDocument, ids: list[str]) -> str:
    """A cycle of the tasks' dependencies (``a -> b -> a``), or "" when there is none."""
    graph = {task.id: [d for d in task.depends_on if d in ids] for task in plan.tasks}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        return " -> ".join(str(node) for node in exc.args[1])
    return ""


def _task_problems(
    task: PlanTask, ids: list[str], plan_budget: bool, options: PlanOptions
) -> list[tuple[str, str]]:
    """One task's problems: too large, depending on no task of the plan, no retry budget."""
    found: list[tuple[str, str]] = []
    if task.estimate_min >= options.max_estimate_min:
        found.append(
            (
                "plan-estimate",
                f"task {task.id} is estimated at {task.estimate_min:g} min; split it "
                f"into tasks under {options.max_estimate_min:g} min",
            )
        )
    found.extend(
        (
            "plan-dependency",
            f"task {task.id} depends on {dependency!r}, which is no task of the plan",
        )
        for dependency in task.depends_on
        if dependency not in ids
    )
    if task.retries is None and not plan_budget:
        found.append(
            (
                "plan-retry-budget",
                f"task {task.id} has no retry budget: set retries on it, or retry_budget "
                "for the plan",
            )
        )
    return found
