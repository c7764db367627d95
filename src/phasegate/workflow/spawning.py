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
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from phasegate.errors import UsageError
from phasegate.gates.checks.plan import PlanDocument
from phasegate.model.workflow import ChildLink, Transition, WorkflowInstance
from phasegate.tdd.complexity import require_radon
from phasegate.workflow.children import Subtask, SubtaskRequest
from phasegate.workflow.machine import Emitted, TransitionError
from phasegate.workflow.phase_facts import project_file

__all__ = ["file_complexity", "link_children", "measure", "plan_requests", "require_primus"]


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
    return sum(int(b.complexity) for b in blocks if type(b).__name__ == "Function")


def measure(root: Path, requests: Sequence[SubtaskRequest]) -> list[Subtask]:
    """Each subtask with its measured complexity."""
    names = [request.name for request in requests]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"subtask(s) named twice: {', '.join(twice)}")
    cache: dict[str, int] = {}
    measured = []
    for request in requests:
        total = 0
        for relpath in request.files:
            if relpath not in cache:
                cache[relpath] = file_complexity(root, relpath)
            total += cache[relpath]
        measured.append(Subtask(request.name, total, request.files))
    return measured


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
