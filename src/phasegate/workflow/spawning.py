"""Who may spawn subagents, and how complex a subtask is: measured, not claimed.

The seeds have the Primus role spawn subagents while it decomposes the task in EXPAND, when a
subtask's complexity passes a threshold. Here:

* only a member holding the workflow's leading role (the first of its ``roles``: ``primus``
  in EDRR) at that phase boundary may spawn; with nobody holding it (no team), nobody may;
* a subtask names the files it touches (``NAME=FILE[,FILE...]``, or a plan task's ``files``),
  and its complexity is the total cyclomatic complexity of the functions and methods in those
  files, as radon measures it (``cc_visit``, as the TDD refactor rule does). A file that does
  not exist yet adds nothing; a file that is not Python, or does not parse, is refused,
  because its complexity cannot be measured.

So the caller cannot declare a subtask simple (or complex) to choose whether it is spawned.
:func:`spawn_children` starts the children (``phase spawn``); :func:`settle_children` takes
them back in the integrating phase (:mod:`phasegate.workflow.children` has the rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.errors import PhasegateError, UsageError
from phasegate.gates.checks.plan import PlanDocument
from phasegate.model.review import REVIEWS_FILE, ReviewRecord
from phasegate.model.workflow import ChildLink, InstanceState, Transition, WorkflowInstance
from phasegate.tdd.complexity import require_radon
from phasegate.workflow.children import (
    Subtask,
    SubtaskRequest,
    child_id,
    settle,
    split_subtasks,
)
from phasegate.workflow.machine import Emitted, TransitionError
from phasegate.workflow.phase_facts import project_file

if TYPE_CHECKING:
    from phasegate.workflow.definition import WorkflowDefinition
    from phasegate.workflow.engine import WorkflowEngine

__all__ = [
    "Spawned",
    "file_complexity",
    "link_children",
    "measure",
    "plan_requests",
    "require_primus",
    "settle_children",
    "spawn_children",
]


@dataclass
class Spawned:
    """What ``phase spawn`` did with each subtask."""

    children: list[WorkflowInstance]
    kept: list[Subtask]


def require_primus(inst: WorkflowInstance, leader: str, by: str) -> None:
    """Refuse unless ``by`` holds the leading role of the instance's current phase."""
    holders = inst.roles.get(leader, [])
    if by in holders:
        return
    if not holders:
        raise TransitionError(
            f"{inst.id}: nobody holds the {leader} role in {inst.phase} (the team is empty), "
            f"so nobody may spawn subagents; name the team (phase start --member, or members "
            "in [tool.phasegate.workflow])"
        )
    raise TransitionError(
        f"{inst.id}: {by} may not spawn subagents: only the {leader} role decomposes the task, "
        f"and in {inst.phase} it is held by {', '.join(holders)}"
    )


def file_complexity(root: Path, relpath: str) -> int:
    """The total radon cyclomatic complexity of a project file's functions (0 if it is new)."""
    path = project_file(root, relpath, "a subtask's file")
    if path.suffix != ".py":
        raise UsageError(
            f"{relpath} is not a Python file: its complexity cannot be measured; name the "
            "Python files the subtask touches"
        )
    if not path.exists():
        return 0
    radon = require_radon()
    try:
        blocks = radon.cc_visit(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{relpath} cannot be measured: it does not parse ({exc})") from exc
    except OSError as exc:  # a folder named like a module, no permission
        raise UsageError(
            f"{relpath} cannot be measured: it cannot be read ({exc.strerror or exc}); name "
            "the Python files the subtask touches"
        ) from exc
    return sum(int(b.complexity) for b in blocks if type(b).__name__ == "Function")


def measure(root: Path, requests: Sequence[SubtaskRequest]) -> list[Subtask]:
    """Each subtask with its measured complexity (a file named twice counts once)."""
    names = [request.name for request in requests]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"subtask(s) named twice: {', '.join(twice)}")
    cache: dict[Path, int] = {}
    return [
        Subtask(request.name, _complexity_of(root, request, cache), request.files)
        for request in requests
    ]


def _complexity_of(root: Path, request: SubtaskRequest, cache: dict[Path, int]) -> int:
    """The complexity of the files a subtask touches, each file once (``cache`` by path)."""
    counted: set[Path] = set()
    for relpath in request.files:
        where = project_file(root, relpath, "a subtask's file").resolve()
        if where not in cache:
            cache[where] = file_complexity(root, relpath)
        counted.add(where)
    return sum(cache[where] for where in counted)


def plan_requests(plan: PlanDocument) -> list[SubtaskRequest]:
    """The plan's tasks as subtasks, each touching its ``files``."""
    return [SubtaskRequest(task.id, tuple(task.files)) for task in plan.tasks]


def link_children(
    parent: WorkflowInstance,
    now: datetime,
    by: str,
    children: Sequence[WorkflowInstance],
    spawned: Sequence[Subtask],
    kept: Sequence[Subtask],
) -> list[Emitted]:
    """Record the children in the parent, and the subtasks it keeps in its context."""
    emitted: list[Emitted] = []
    for child, subtask in zip(children, spawned, strict=True):
        parent.children.append(
            ChildLink(instance_id=child.id, subtask=subtask.name,
                      complexity=subtask.complexity, files=list(subtask.files))
        )  # fmt: skip
        emitted.append(
            Emitted("child.spawned", {"child": child.id, "subtask": subtask.name,
                                      "complexity": subtask.complexity})
        )  # fmt: skip
    kept_list = parent.context.setdefault("subtasks", [])
    if isinstance(kept_list, list):
        kept_list.extend(
            {"name": s.name, "complexity": s.complexity, "files": list(s.files)} for s in kept
        )
    parent.history.append(
        Transition(
            at=now,
            action="spawn",
            by=by,
            from_phase=parent.phase,
            state=parent.state,
            reason=f"{len(spawned)} child instance(s), {len(kept)} subtask(s) kept",
        )
    )
    return emitted


def spawn_children(
    engine: WorkflowEngine, instance_id: str, requests: Sequence[SubtaskRequest], *, by: str
) -> Spawned:
    """As the primus: give each subtask whose measured complexity is above the threshold
    a child instance; the others stay with the parent."""
    inst = engine.instances.load(instance_id)
    definition, _ = engine.definition(inst.workflow)
    _require_spawning_phase(instance_id, inst, definition)
    require_primus(inst, engine.machine(definition).role_names()[0], by)
    subtasks = measure(engine.loaded.project_root, requests)
    spawn, keep = split_subtasks(subtasks, engine.settings.complexity_threshold)
    child_workflow = definition.child_workflow or definition.name
    children: list[WorkflowInstance] = []
    taken = set(engine.instances.ids())
    for subtask in spawn:
        new_id = child_id(inst, sorted(taken))
        taken.add(new_id)
        child = engine.start(
            child_workflow, instance_id=new_id, title=subtask.name, members=inst.members,
            by=by, create_only=True, parent=instance_id, subtask=subtask.name,
        )  # fmt: skip
        children.append(child)
    engine.act(
        instance_id,
        by,
        lambda m, current, now: link_children(current, now, by, children, spawn, keep),
    )
    return Spawned(children, keep)


def _require_spawning_phase(
    instance_id: str, inst: WorkflowInstance, definition: WorkflowDefinition
) -> None:
    """Children are spawned by a running instance, in a phase that spawns them."""
    if inst.state is not InstanceState.RUNNING or inst.phase is None:
        raise TransitionError(f"{instance_id} is {inst.state.value}; spawn needs RUNNING")
    if not definition.spec(inst.phase).spawns_children:
        spawning = [p for p in definition.phases if definition.spec(p).spawns_children]
        raise TransitionError(
            f"{instance_id} is in {inst.phase}, where {definition.name} spawns no children; "
            f"children are spawned in: {', '.join(spawning) or 'no phase of this workflow'}"
        )


def settle_children(
    engine: WorkflowEngine, inst: WorkflowInstance, now: datetime, actor: str
) -> list[Emitted]:
    """Integrate the children that came back (approved), fall back from those that failed."""
    reviews = engine.store.read_jsonl(REVIEWS_FILE, ReviewRecord).entries
    emitted: list[Emitted] = []
    for index, link in enumerate(inst.children):
        if link.status != "spawned":
            continue
        try:
            child = engine.instances.load(link.instance_id)
        except PhasegateError as exc:
            inst.diagnosis.append(f"child {link.instance_id}: {exc}")
            continue
        settled = settle(link, child, reviews)
        if settled.status != link.status:
            inst.children[index] = settled
            emitted.append(_record_settled(inst, link, settled, now, actor))
    return emitted


def _keep_subtask(inst: WorkflowInstance, link: ChildLink, settled: ChildLink) -> None:
    """A child that failed: its subtask goes back to the parent's list, naming why."""
    kept = inst.context.setdefault("subtasks", [])
    if isinstance(kept, list):
        kept.append(
            {"name": link.subtask, "complexity": link.complexity,
             "fallback_from": link.instance_id, "error": settled.error}
        )  # fmt: skip


def _record_settled(
    inst: WorkflowInstance, link: ChildLink, settled: ChildLink, now: datetime, actor: str
) -> Emitted:
    """The parent's history of a child settled; a fallen-back child's subtask is kept to do
    in the parent."""
    integrated = settled.status == "integrated"
    inst.history.append(
        Transition(
            at=now,
            action="integrate" if integrated else "fallback",
            by=actor,
            from_phase=inst.phase,
            state=inst.state,
            reason=f"{link.instance_id} ({link.subtask})"
            + (f": {settled.error}" if settled.error else ""),
        )
    )
    if settled.status == "fallen_back":
        _keep_subtask(inst, link, settled)
    return Emitted(
        f"child.{'integrated' if integrated else 'fallback'}",
        {"child": link.instance_id, "error": settled.error},
    )
