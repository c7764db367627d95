"""Crashed work: an owner that stopped showing signs of life is retried, then given up.

An instance's owner (who started it, or the last ``phase heartbeat``) shows it is alive by
acting on it or by a heartbeat. ``phasegate phase sweep`` looks at every RUNNING instance:
one idle for longer than ``crash_timeout_min`` is taken as crashed. The first
``max_crash_retries`` times it is *retried*: the owner is cleared so another worker may take
it, the retry budget of the phase is fresh, and the events ``stale`` and ``retried`` tell the
orchestrator to dispatch the step again. The next time it is FAILED (``stale``, ``failed``).
BLOCKED instances wait for a person and are left alone; COMPLETE and FAILED ones are done.

The same rule holds for tasks of the handoff queue: a task in ``running/`` whose worker shows
no sign of life (``task heartbeat``, or the claim) past the timeout is given back to the queue
with one retry spent, or moved to ``failed/`` when its retries are spent
(:meth:`phasegate.workflow.handoff.Handoff.sweep`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.workflow.machine import Emitted, Machine

__all__ = ["crash", "heartbeat", "idle_for", "is_crashed", "last_sign_of_life"]


def last_sign_of_life(inst: WorkflowInstance) -> datetime:
    """The later of the last action on the instance and its owner's last heartbeat."""
    if inst.heartbeat_at is not None and inst.heartbeat_at > inst.updated_at:
        return inst.heartbeat_at
    return inst.updated_at


def idle_for(inst: WorkflowInstance, now: datetime) -> timedelta:
    """How long the instance has shown no sign of life."""
    return now - last_sign_of_life(inst)


def is_crashed(inst: WorkflowInstance, now: datetime, timeout_min: float) -> bool:
    """Whether a RUNNING instance has been idle for longer than the crash timeout."""
    return inst.state is InstanceState.RUNNING and idle_for(inst, now) > timedelta(
        minutes=timeout_min
    )


def crash(
    machine: Machine, inst: WorkflowInstance, now: datetime, by: str, timeout_min: float
) -> list[Emitted]:
    """Retry a crashed instance, or fail it once its crash retries are spent."""
    machine.require(inst, "sweep", {InstanceState.RUNNING})
    idle = idle_for(inst, now)
    owner = inst.owner
    idle_text = _duration(idle.total_seconds())
    events = [
        Emitted(
            "stale",
            {
                "idle_s": round(idle.total_seconds(), 1),
                "owner": owner,
                "phase": inst.phase,
                "crash_timeout_min": timeout_min,
            },
        )
    ]
    limit = machine.max_crash_retries
    if inst.crash_retries >= limit:
        why = (
            f"no sign of life for {idle_text} (crash timeout {timeout_min:g} min) in "
            f"{inst.phase}, after {inst.crash_retries} crash retr"
            f"{'y' if inst.crash_retries == 1 else 'ies'} (max_crash_retries = {limit})"
        )
        return events + machine.fail(inst, now, by, why)
    inst.crash_retries += 1
    inst.owner = ""
    inst.heartbeat_at = None
    inst.attempts = 0
    inst.retry_not_before = None
    inst.updated_at = now
    machine.record(
        inst,
        now,
        "crash-retry",
        by,
        inst.phase,
        reason=f"no sign of life from {owner or 'its owner'} for {idle_text}: retry "
        f"{inst.crash_retries} of {limit}",
    )
    events.append(
        Emitted(
            "retried",
            {
                "retry": inst.crash_retries,
                "max_crash_retries": limit,
                "previous_owner": owner,
                "phase": inst.phase,
            },
        )
    )
    return events


def heartbeat(machine: Machine, inst: WorkflowInstance, now: datetime, by: str) -> list[Emitted]:
    """The owner is alive (and, if it was someone else or nobody, ``by`` owns it now)."""
    machine.require(inst, "heartbeat", {InstanceState.CREATED, InstanceState.RUNNING})
    if not by.strip():
        raise ValueError("a heartbeat needs who sends it")
    inst.heartbeat_at = now
    if inst.owner == by:
        return []
    previous = inst.owner
    inst.owner = by
    return [Emitted("owner.changed", {"owner": by, "previous": previous})]


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
