"""What ``phasegate phase`` shows: an instance's status, a spawn, a sweep, as lines or JSON."""

from __future__ import annotations

from collections.abc import Sequence

from phasegate.model.workflow import ChildLink, GateRecord, ReworkItem
from phasegate.workflow.engine import Status, Swept
from phasegate.workflow.roles import UNASSIGNED
from phasegate.workflow.settings import WorkflowSettings
from phasegate.workflow.spawning import Spawned

__all__ = [
    "role_lines",
    "spawn_json",
    "spawn_lines",
    "status_json",
    "status_lines",
    "sweep_json",
    "sweep_lines",
]


def role_lines(roles: dict[str, list[str]], indent: str = "  ") -> list[str]:
    """One line per role and who holds it."""
    return [
        f"{indent}{role}: {', '.join(members) or UNASSIGNED}" for role, members in roles.items()
    ]


def status_lines(status: Status) -> list[str]:
    """Where the instance stands, what it waits for, and what it kept."""
    inst = status.instance
    lines = [*_header(status), "  roles:", *role_lines(inst.roles, indent="    ")]
    if inst.state.value in ("RUNNING", "BLOCKED"):
        lines += _next_gate(status)
    if inst.diagnosis:
        lines += ["  last halt:", *(f"    - {line}" for line in inst.diagnosis)]
    lines += _rework_due(inst.rework)
    lines += _kept(status)
    return lines


def _rework_due(rework: Sequence[ReworkItem]) -> list[str]:
    """The rework reviews asked for that is not resolved yet."""
    due = [item for item in rework if item.resolved_at is None]
    if not due:
        return []
    return [
        "  rework due:",
        *(
            f"    - {item.phase} (cycle {item.cycle}, {item.reviewer}): "
            f"{item.note or 'changes requested'}"
            for item in due
        ),
    ]


def _header(status: Status) -> list[str]:
    inst = status.instance
    title = f" — {inst.title}" if inst.title else ""
    order = " -> ".join(f"[{p}]" if p == inst.phase else p for p in status.definition.phases)
    stale = "  (STALE: no activity for a while)" if status.stale else ""
    lines = [f"{inst.id}: {inst.workflow}{title}", f"  state:  {inst.state.value}{stale}"]
    lines.append(f"  phases: {order}")
    if inst.phase:
        lines.append(f"  phase:  {inst.phase} (cycle {inst.cycle})")
    if inst.blocked_reason:
        lines.append(f"  blocked: {inst.blocked_reason}")
    if inst.failure_reason:
        lines.append(f"  failed: {inst.failure_reason}")
    return lines


def _next_gate(status: Status) -> list[str]:
    inst = status.instance
    lines = ["  next gate:"]
    if status.next_gate:
        lines.append(
            f"    exit gate {status.next_gate} must be sufficient "
            f"(see: phasegate gate explain {status.next_gate})"
        )
    else:
        lines.append("    no exit gate")
    if status.needs_review:
        lines.append("    a peer review must keep the outcome (approved or changes_requested)")
    lines += [f"    waiting: {missing}" for missing in status.waiting_for]
    if inst.retry_not_before is not None:
        lines.append(
            f"    retry not before {inst.retry_not_before:%Y-%m-%d %H:%M:%S} UTC "
            f"(attempt {inst.attempts + 1})"
        )
    return lines


def _kept(status: Status) -> list[str]:
    inst = status.instance
    lines = []
    if inst.owner:
        retries = f" (crash retries {inst.crash_retries})" if inst.crash_retries else ""
        lines.append(f"  owner:  {inst.owner}{retries}")
    lines += [_gate_line(gate) for gate in inst.gate_results[-3:]]
    if inst.tasks:
        lines.append(f"  tasks: {', '.join(inst.tasks)}")
    if inst.memory_queue:
        lines.append(f"  queued updates: {len(inst.memory_queue)}")
    lines += [f"  child {child}: {state}" for child, state in status.children.items()]
    return lines


def _gate_line(gate: GateRecord) -> str:
    verdict = "sufficient" if gate.sufficient else "insufficient"
    return (
        f"  gate {gate.gate} in {gate.phase} (run {gate.attempt}): {verdict} "
        f"({gate.verdict_path or 'no verdict'})"
    )


def status_json(status: Status) -> dict[str, object]:
    """What ``phase status --json`` prints."""
    return {
        "instance": status.instance.model_dump(mode="json"),
        "phases": status.definition.phases,
        "next_gate": status.next_gate,
        "needs_review": status.needs_review,
        "waiting_for": status.waiting_for,
        "stale": status.stale,
        "children": status.children,
    }


def spawn_lines(
    instance_id: str, spawned: Spawned, links: Sequence[ChildLink], settings: WorkflowSettings
) -> list[str]:
    """Each child spawned and each subtask kept, with its measured complexity."""
    threshold = settings.complexity_threshold
    measured = {link.instance_id: link.complexity for link in links}
    lines = [
        f"{instance_id}: child {child.id} for {child.subtask!r} ({child.workflow}; "
        f"complexity {measured.get(child.id, '?')} > {threshold})"
        for child in spawned.children
    ]
    lines += [
        f"{instance_id}: keeps {kept.name!r} (complexity {kept.complexity} <= {threshold})"
        for kept in spawned.kept
    ]
    return lines


def spawn_json(spawned: Spawned) -> dict[str, object]:
    """What ``phase spawn --json`` prints."""
    return {
        "children": [{"id": c.id, "subtask": c.subtask} for c in spawned.children],
        "kept": [{"name": s.name, "complexity": s.complexity} for s in spawned.kept],
    }


def sweep_lines(swept: Swept, settings: WorkflowSettings) -> list[str]:
    """What the sweep retried, failed and gave back."""
    if not (swept.retried or swept.failed or swept.tasks):
        return [f"nothing idle past the crash timeout ({settings.crash_timeout_min:g} min)"]
    limit = settings.max_crash_retries
    lines = [
        f"{inst.id}: crashed in {inst.phase}; retried ({inst.crash_retries} of {limit})"
        for inst in swept.retried
    ]
    lines += [f"{inst.id}: FAILED: {inst.failure_reason}" for inst in swept.failed]
    lines += [
        f"task {task.task}: {task.worker} gone; now in {task.status.value}/" for task in swept.tasks
    ]
    return lines


def sweep_json(swept: Swept) -> dict[str, object]:
    """What ``phase sweep --json`` prints."""
    return {
        "retried": [i.id for i in swept.retried],
        "failed": [i.id for i in swept.failed],
        "tasks": [
            {"task": t.task, "worker": t.worker, "status": t.status.value} for t in swept.tasks
        ],
    }
