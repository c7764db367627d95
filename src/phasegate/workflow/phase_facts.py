"""What leaving a phase needs from disk, and the plan-to-tasks step when it is left.

The state machine's rules read only the instance; these read the project for it:

* a design or plan loop's accepted documents must still be what was accepted (a document
  changed after its ACCEPT or PA is audited again before the phase is left);
* a phase with ``requires_tasks`` waits until every task generated for the instance is in
  ``completed/``;
* a phase with ``generates_tasks`` queues the plan's tasks when it is left (a plan that
  cannot be read or that the plan check finds wrong stops the advance, with the reason).

Every path read here comes from a definition or an instance file, and is confined to the
project root.
"""

from __future__ import annotations

import hashlib
import os
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from phasegate.config import LoadedConfig
from phasegate.errors import UsageError
from phasegate.gates.checks.plan import PlanOptions
from phasegate.model.loops import DesignLoop, Draft
from phasegate.model.workflow import TaskStatus, WorkflowInstance
from phasegate.workflow import design_loop, plan_loop
from phasegate.workflow.definition import WorkflowDefinition
from phasegate.workflow.dependencies import tasks_waiting
from phasegate.workflow.handoff import Handoff
from phasegate.workflow.machine import Emitted
from phasegate.workflow.plan_tasks import planned_tasks, read_plan

__all__ = ["PhaseFacts", "fill", "project_file"]


def fill(pattern: str, instance_id: str, item: str = "") -> str:
    """A path pattern with ``{instance}`` (and ``{item}``) filled in."""
    return pattern.replace("{instance}", instance_id).replace("{item}", item)


def project_file(root: Path, relpath: str, what: str) -> Path:
    """``relpath`` under the project root; a usage error naming ``what`` if it leaves it."""
    candidate = Path(os.path.abspath(root / relpath))
    resolved = candidate.resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise UsageError(f"{what} {relpath!r} is outside the project root {root}")
    return candidate


def sha256_of(path: Path) -> str | None:
    """The SHA-256 of a file's bytes, or ``None`` when there is no such file."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"{path} cannot be read: {exc.strerror or exc}") from exc


def draft_of(root: Path, relpath: str, by: str, now: datetime, what: str) -> Draft | None:
    """The document at ``relpath`` as a draft put forward by ``by``; ``None`` if missing."""
    path = project_file(root, relpath, what)
    sha = sha256_of(path)
    if sha is None:
        return None
    return Draft(path=relpath, sha256=sha, by=by, at=now)


class PhaseFacts:
    """The project-side prerequisites of one project's phases."""

    def __init__(self, loaded: LoadedConfig, handoff: Handoff) -> None:
        self.root = loaded.project_root
        self.loaded = loaded
        self.handoff = handoff

    def waiting(self, inst: WorkflowInstance, definition: WorkflowDefinition) -> list[str]:
        """What the current phase still needs from the project before it may be left."""
        phase = inst.phase
        if phase is None:
            return []
        missing = self._loop_documents(inst, phase)
        if definition.spec(phase).requires_tasks:
            statuses = self.handoff.queue.statuses()
            where: dict[str, TaskStatus | None] = {t: statuses.get(t) for t in inst.tasks}
            missing += tasks_waiting(inst.id, where)
        return missing

    def _loop_documents(self, inst: WorkflowInstance, phase: str) -> list[str]:
        """Documents a loop of this pass accepted that are no longer what was accepted."""
        changed: list[str] = []
        design = inst.design_loops.get(phase)
        if design is not None and design.cycle == inst.cycle:
            changed += self._designs_changed(design, inst.id)
        plan = inst.plan_loops.get(phase)
        if plan is not None and plan.cycle == inst.cycle and plan.accepted is not None:
            path = project_file(self.root, plan.accepted.path, "the plan")
            changed += plan_loop.changed_since_accepted(plan, sha256_of(path), inst.id)
        return changed

    def _designs_changed(self, design: DesignLoop, instance_id: str) -> list[str]:
        """The design loop's accepted documents that changed since."""
        paths = [item.accepted.path for item in design.items() if item.accepted is not None]
        now = {path: sha256_of(project_file(self.root, path, "a design")) for path in paths}
        return design_loop.changed_since_accepted(design, now, instance_id)

    def generate_tasks(
        self, inst: WorkflowInstance, definition: WorkflowDefinition, by: str, *, plan: str = ""
    ) -> list[Emitted]:
        """Queue the tasks of the instance's plan (the phase's ``generates_tasks``, or ``plan``)."""
        pattern = plan or (definition.spec(inst.phase).generates_tasks if inst.phase else None)
        if not pattern:
            return []
        relpath = fill(pattern, inst.id)
        path = project_file(self.root, relpath, "the plan")
        planned = planned_tasks(read_plan(path, relpath), inst.id, relpath, self.plan_options())
        result = self.handoff.generate(inst.id, planned, by=by)
        for task in planned:
            if task.id not in inst.tasks:
                inst.tasks.append(task.id)
        return [
            Emitted(
                "tasks.generated",
                {"plan": relpath, "added": result.added, "existing": result.existing},
            )
        ]

    def plan_options(self) -> PlanOptions:
        """The plan check's options as the project sets them (``[tool.phasegate.checks.plan]``)."""
        override = self.loaded.config.checks.get("plan")
        options = getattr(override, "options", None) or {}
        try:
            return PlanOptions.model_validate(options)
        except ValidationError as exc:
            raise UsageError(f"[tool.phasegate.checks.plan] options are not valid: {exc}") from exc
