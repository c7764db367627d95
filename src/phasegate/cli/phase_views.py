"""What ``phasegate phase status`` shows: an instance as lines a person reads, or as JSON."""

from __future__ import annotations

from typing import Any

from phasegate.workflow.engine import Status
from phasegate.workflow.roles import UNASSIGNED

__all__ = ["role_lines", "status_json", "status_lines"]


def role_lines(roles: dict[str, list[str]], indent: str = "  ") -> list[str]:
    """One line per role and who holds it."""
    return [
        f"{indent}{role}: {', '.join(members) or UNASSIGNED}" for role, members in roles.items()
    ]


def status_lines(status: Status) -> list[str]:
    """Where the instance stands, what it waits for, and what it kept."""
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
    lines += ["  roles:", *role_lines(inst.roles, indent="    ")]
    if inst.state.value in ("RUNNING", "BLOCKED"):
        lines += _next_gate(status)
    if inst.diagnosis:
        lines += ["  last halt:", *(f"    - {line}" for line in inst.diagnosis)]
    due = [r for r in inst.rework if r.resolved_at is None]
    if due:
        lines.append("  rework due:")
        lines += [
            f"    - {item.phase} (cycle {item.cycle}, {item.reviewer}): "
            f"{item.note or 'changes requested'}"
            for item in due
        ]
    lines += _kept(status)
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
    for gate in inst.gate_results[-3:]:
        verdict = "sufficient" if gate.sufficient else "insufficient"
        lines.append(
            f"  gate {gate.gate} in {gate.phase} (run {gate.attempt}): {verdict} "
            f"({gate.verdict_path or 'no verdict'})"
        )
    if inst.tasks:
        lines.append(f"  tasks: {', '.join(inst.tasks)}")
    if inst.memory_queue:
        lines.append(f"  queued updates: {len(inst.memory_queue)}")
    lines += [f"  child {child}: {state}" for child, state in status.children.items()]
    return lines


def status_json(status: Status) -> dict[str, Any]:
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
