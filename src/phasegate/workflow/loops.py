"""The design and plan loops' commands: read the documents, apply the rules, keep the state.

``phasegate design`` and ``phasegate plan`` (and the BDD steps) call :class:`LoopCommands`.
Each command reads what it needs from the project (a draft's bytes and hash, the modules the
architecture names, the plan and what the plan check finds wrong with it), then applies the
pure rules of :mod:`phasegate.workflow.design_loop` or :mod:`phasegate.workflow.plan_loop`
to the instance under its lock. A rule's escalation or failure goes through the state
machine, and every statement is an event ``workflow.{name}.{id}.design.*`` or ``plan.*``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from phasegate.errors import UsageError
from phasegate.gates.checks.plan import plan_problems
from phasegate.model.loops import DesignLoop, DesignVerdict, PlanLoop
from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.workflow import design_loop, plan_loop
from phasegate.workflow.definition import LoopSpec, PhaseSpec
from phasegate.workflow.design_loop import LoopOutcome
from phasegate.workflow.engine import WorkflowEngine
from phasegate.workflow.handoff import Generated
from phasegate.workflow.machine import Emitted, Machine, TransitionError
from phasegate.workflow.phase_facts import draft_of, fill, project_file
from phasegate.workflow.plan_tasks import read_plan

__all__ = ["LoopCommands", "module_names"]

_MODULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def module_names(items: list[str], path: str) -> list[str]:
    """The module each list item of ``## Modules`` names: its first word (`code` or plain)."""
    names = []
    for text in items:
        first = text.strip().split()[0] if text.strip() else ""
        name = first.strip("`*").rstrip(":,.").strip("`*")
        if not _MODULE.match(name):
            raise UsageError(
                f"{path}: the module list item {text!r} does not start with a module name "
                "(letters, digits, '_', '-', '.'), e.g. '- parser: reads the input'"
            )
        names.append(name)
    return names


class LoopCommands:
    """The loops of one project's instances."""

    def __init__(self, engine: WorkflowEngine) -> None:
        self.engine = engine
        self.root = engine.loaded.project_root

    # -- design ----------------------------------------------------------------------------

    def design_submit(
        self, instance_id: str, *, by: str, item: str | None = None, file: str | None = None,
        note: str = "",
    ) -> WorkflowInstance:  # fmt: skip
        """The designer submits the current item's draft (or ``item``'s, changed since)."""
        inst, spec = self._loop_phase(instance_id, "design")
        name = item or self._due(inst)
        relpath = file or fill(spec.documents, instance_id, name)
        now = self.engine.clock()
        draft = draft_of(self.root, relpath, by, now, "the design document")
        if draft is None:
            raise UsageError(f"{instance_id}: there is no design document at {relpath}")
        modules = self._modules(relpath) if name == "architecture" else []

        def rule(inst: WorkflowInstance, at: datetime) -> LoopOutcome:
            loop = _current_loop(inst, inst.design_loops, design_loop.new_design_loop)
            return design_loop.submit(loop, spec, draft=draft, now=at, item=item,
                                      modules=modules, note=note)  # fmt: skip

        return self._apply(instance_id, by, "design", rule, f"submitted {name}")

    def design_verdict(
        self, instance_id: str, decision: DesignVerdict, *, by: str, note: str = ""
    ) -> WorkflowInstance:
        """The critic's ACCEPT, REVISE or REJECT of the draft awaiting a verdict."""
        _, spec = self._loop_phase(instance_id, "design")

        def rule(inst: WorkflowInstance, at: datetime) -> LoopOutcome:
            loop = _current_loop(inst, inst.design_loops, design_loop.new_design_loop)
            return design_loop.verdict(loop, spec, decision=decision, by=by, now=at, note=note)

        return self._apply(instance_id, by, "design", rule, decision)

    # -- plan ------------------------------------------------------------------------------

    def plan_say(self, instance_id: str, code: str, *, by: str, note: str = "") -> WorkflowInstance:
        """One code of the spec agent (PC, PR, DG) or of the critic (NR, PA, EN, DA)."""
        _, spec = self._loop_phase(instance_id, "plan")
        relpath = fill(spec.plan, instance_id)
        now = self.engine.clock()
        plan = draft_of(self.root, relpath, by, now, "the plan")
        problems: list[str] = []
        if code == "PA" and plan is not None:
            problems = self._plan_problems(relpath)

        def rule(inst: WorkflowInstance, at: datetime) -> LoopOutcome:
            loop = _current_loop(inst, inst.plan_loops, plan_loop.new_plan_loop)
            return plan_loop.say(loop, spec, code=code, by=by, now=at, plan=plan,
                                 problems=problems, note=note)  # fmt: skip

        return self._apply(instance_id, by, "plan", rule, code)

    def plan_tasks(self, instance_id: str, *, by: str, plan: str | None = None) -> Generated:
        """Queue the instance's plan tasks by hand (re-planning adds the new ones)."""
        inst = self.engine.load(instance_id)
        definition, _ = self.engine.definition(inst.workflow)
        pattern = plan or next(
            (definition.spec(p).generates_tasks for p in definition.phases
             if definition.spec(p).generates_tasks), None,
        )  # fmt: skip
        if not pattern:
            raise UsageError(
                f"{instance_id}: the {definition.name} workflow names no plan to take tasks from "
                "(generates_tasks); give one with --plan PATH"
            )
        box: list[Generated] = []

        def act(m: Machine, current: WorkflowInstance, now: datetime) -> list[Emitted]:
            emitted = self.engine.facts.generate_tasks(current, definition, by, plan=pattern)
            box.append(Generated(_task_ids(emitted[0], "added"), _task_ids(emitted[0], "existing")))
            current.updated_at = now
            return emitted

        self.engine.act(instance_id, by, act)
        return box[0]

    # -- internals -------------------------------------------------------------------------

    def _loop_phase(self, instance_id: str, kind: str) -> tuple[WorkflowInstance, LoopSpec]:
        inst = self.engine.load(instance_id)
        definition, _ = self.engine.definition(inst.workflow)
        spec = definition.spec(inst.phase).loop if inst.phase else None
        if spec is None or spec.kind != kind:
            holding = [p for p in definition.phases if _has_loop(definition.spec(p), kind)]
            raise TransitionError(
                f"{instance_id} is in {inst.phase or 'no phase'}, which has no {kind} loop; "
                f"{definition.name} has one in: {', '.join(holding) or 'no phase'}"
            )
        return inst, spec

    def _due(self, inst: WorkflowInstance) -> str:
        loop = inst.design_loops.get(inst.phase or "")
        if loop is None or loop.cycle != inst.cycle:
            return "architecture"
        due = design_loop.awaiting(loop) or design_loop.current_item(loop)
        return due.name if due else "architecture"

    def _modules(self, relpath: str) -> list[str]:
        from phasegate.gates.documents import find_section, read_sections

        path = project_file(self.root, relpath, "the design document")
        section = find_section(read_sections(path), ["Modules"])
        return module_names(section.items, relpath) if section else []

    def _plan_problems(self, relpath: str) -> list[str]:
        path = project_file(self.root, relpath, "the plan")
        try:
            document = read_plan(path, relpath)
        except UsageError as exc:
            return [str(exc)]
        options = self.engine.facts.plan_options()
        return [message for _rule, message in plan_problems(document, options)]

    def _apply(
        self,
        instance_id: str,
        by: str,
        kind: str,
        rule: Callable[[WorkflowInstance, datetime], LoopOutcome],
        what: str,
    ) -> WorkflowInstance:
        if not by.strip():
            raise UsageError(f"{instance_id}: say who speaks (--by)")

        def act(m: Machine, inst: WorkflowInstance, now: datetime) -> list[Emitted]:
            m.require(inst, kind, {InstanceState.RUNNING})
            outcome = rule(inst, now)
            inst.updated_at = now
            m.record(inst, now, kind, by, inst.phase, reason=what)
            emitted = list(outcome.events)
            if outcome.fail:
                emitted += m.fail(inst, now, by, outcome.fail)
            elif outcome.escalate:
                emitted += m.escalate(inst, now, by, outcome.escalate)
            return emitted

        return self.engine.act(instance_id, by, act)


Loop = TypeVar("Loop", DesignLoop, PlanLoop)


def _current_loop(
    inst: WorkflowInstance, loops: dict[str, Loop], new_loop: Callable[[str, str, int], Loop]
) -> Loop:
    """The loop of the current pass through the phase (a new one on a new pass)."""
    phase = inst.phase or ""
    loop = loops.get(phase)
    if loop is None or loop.cycle != inst.cycle:
        loop = new_loop(inst.id, phase, inst.cycle)
        loops[phase] = loop
    return loop


def _has_loop(spec: PhaseSpec, kind: str) -> bool:
    return spec.loop is not None and spec.loop.kind == kind


def _task_ids(event: Emitted, key: str) -> list[str]:
    """The task ids a ``tasks.generated`` event lists under ``key`` (its data is free-form)."""
    ids = event.data.get(key)
    if not isinstance(ids, list) or not all(isinstance(task, str) for task in ids):
        raise TypeError(f"the {event.event} event's {key} is {ids!r}, not a list of task ids")
    return ids
