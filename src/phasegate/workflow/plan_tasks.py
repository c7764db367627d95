"""From the approved plan to EXECUTE tasks: one handoff-queue task per task of the plan.

The plan is gate 3's TOML file (``docs/plans/{instance}_plan.toml``). Each ``[[tasks]]`` entry
becomes the task ``EXEC_<instance>_<plan id>`` with the plan's title, priority, estimate and
retry budget (its ``retries``, else the plan's ``retry_budget``); its ``depends_on`` name the
generated tasks, so ``task claim`` holds a task back until those are completed. Tasks are
queued in dependency order. A plan the plan check finds wrong generates nothing: the same
problems that make gate 3 insufficient stop the generation, with the file named.
"""

from __future__ import annotations

import graphlib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from phasegate import tomlfile
from phasegate.errors import UsageError
from phasegate.gates.checks.plan import PlanDocument, PlanOptions, PlanTask, plan_problems
from phasegate.model.workflow import Priority
from phasegate.settings import describe_errors
from phasegate.workflow.queue import TASK_ID

__all__ = ["PlannedTask", "execute_task_id", "planned_tasks", "read_plan"]


@dataclass(frozen=True)
class PlannedTask:
    """A handoff-queue task as the plan describes it."""

    id: str
    plan_task: str
    title: str
    priority: Priority
    estimate_min: float
    max_retries: int | None
    depends_on: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def read_plan(path: Path, shown: str) -> PlanDocument:
    """Read a plan file; a usage error naming the file when it is missing or malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"there is no plan at {shown}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{shown} cannot be read: {exc}") from exc
    try:
        return PlanDocument.model_validate(tomlfile.loads(text))
    except tomlfile.TOMLDecodeError as exc:
        raise UsageError(f"{shown}: not valid TOML: {exc}") from exc
    except ValidationError as exc:
        raise UsageError(describe_errors(exc, model=PlanDocument, where=shown, table="")) from exc


def execute_task_id(instance: str, plan_task: str) -> str:
    """``EXEC_<instance>_<plan id>``, or a usage error when that is no valid task id."""
    candidate = f"EXEC_{instance}_{plan_task}"
    if not TASK_ID.match(candidate):
        raise UsageError(
            f"the plan's task {plan_task!r} of {instance} gives the task id {candidate!r}, "
            "which is not allowed: a task id has 1 to 64 letters, digits, '-' and '_'; "
            "shorten the plan's task id"
        )
    return candidate


def planned_tasks(
    plan: PlanDocument, instance: str, shown: str, options: PlanOptions | None = None
) -> list[PlannedTask]:
    """The plan's tasks as queue tasks, dependencies first; refused if the plan is wrong."""
    problems = plan_problems(plan, options or PlanOptions())
    if problems:
        listed = "; ".join(message for _rule, message in problems[:5])
        raise UsageError(f"{shown} cannot be turned into tasks: {listed}")
    by_id = {task.id: task for task in plan.tasks}
    order = graphlib.TopologicalSorter({t.id: t.depends_on for t in plan.tasks}).static_order()
    return [_queue_task(by_id[plan_id], instance, plan.retry_budget) for plan_id in order]


def _queue_task(task: PlanTask, instance: str, retry_budget: int | None) -> PlannedTask:
    """One task of the plan as the queue task of ``instance`` (the plan's retry budget
    unless the task names its own)."""
    return PlannedTask(
        id=execute_task_id(instance, task.id),
        plan_task=task.id,
        title=task.title or task.id,
        priority=Priority(task.priority),
        estimate_min=task.estimate_min,
        max_retries=task.retries if task.retries is not None else retry_budget,
        depends_on=[execute_task_id(instance, d) for d in task.depends_on],
        files=list(task.files),
    )
