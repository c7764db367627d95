"""The workflow state machine: what each action does to an instance, and nothing else.

States: ``CREATED -> RUNNING <-> BLOCKED``, ending ``COMPLETE`` or ``FAILED``. Actions and
where they are allowed:

=============  ====================  =====================================================
action         from                  effect
=============  ====================  =====================================================
start          CREATED               first phase, roles assigned
advance        RUNNING               next phase (roles reassessed), or COMPLETE after the last
halt           RUNNING               a failed exit gate: one retry spent, backoff set; past
                                     ``max_retries``: FAILED, or BLOCKED (``on_max_retries``)
wait           RUNNING               prerequisites not met yet (a review, children, the
                                     phase's outputs, its design or plan loop): no retry
                                     spent, the diagnosis kept
review         RUNNING               approved: outcome kept; changes_requested: kept, rework
                                     due next cycle; rejected: discarded, loop back to
                                     ``on_reject`` (FAILED past ``max_rejections``)
rewind         RUNNING, BLOCKED      back to an earlier phase, with who and why (at most
                                     ``max_rewinds``)
escalate       CREATED, RUNNING      BLOCKED with the reason (FAILED past ``max_escalations``)
resume         BLOCKED               RUNNING, with a fresh retry budget (refused while the
                                     context does not match the phase's inputs)
fail           any but terminal      FAILED with the reason
=============  ====================  =====================================================

Entering a phase checks the context against the phase's declared ``inputs``; a mismatch
escalates the instance (BLOCKED, event ``context.invalid``). The crash sweep, heartbeats and
context outputs are in :mod:`phasegate.workflow.liveness` and
:mod:`phasegate.workflow.contracts`; the design and plan loops' rules in
:mod:`phasegate.workflow.design_loop` and :mod:`phasegate.workflow.plan_loop`.

COMPLETE and FAILED are terminal: every action on them is refused. Every loop is bounded
(retries per phase entry, rejections per phase, rewinds and escalations per instance), so an
instance always ends; ``tests/workflow/test_machine_properties.py`` drives random action
sequences to show it.

The machine is hand-written rather than taken from a state-machine library: it has five states
and a table of ten actions, its state must round-trip through the pydantic instance file
unchanged, and its guards (bounds, backoff, review cycles) are most of its code either way.
It does no I/O: :mod:`phasegate.workflow.engine` runs gates, writes files and emits events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from pydantic import JsonValue

from phasegate.errors import UsageError
from phasegate.model.loops import DesignLoop, PlanLoop
from phasegate.model.review import OUTCOMES, ReviewStatus
from phasegate.model.workflow import (
    InstanceState,
    MemoryUpdate,
    PhaseAcceptance,
    ReworkItem,
    RoleAssignment,
    Transition,
    WorkflowInstance,
)
from phasegate.workflow.contracts import mismatches
from phasegate.workflow.definition import WorkflowDefinition
from phasegate.workflow.roles import assign_roles
from phasegate.workflow.settings import RetryPolicy

__all__ = ["TERMINAL", "Emitted", "Machine", "RetryLater", "TransitionError"]

#: States no action leaves.
TERMINAL = frozenset({InstanceState.COMPLETE, InstanceState.FAILED})

_ENTRIES = frozenset({"start", "advance", "rewind", "repeat"})


class TransitionError(UsageError):
    """The action is not allowed in the instance's state (exit code 4)."""


class RetryLater(TransitionError):
    """The retry policy's backoff has not elapsed: no new attempt before ``not_before``."""

    def __init__(self, message: str, not_before: datetime) -> None:
        super().__init__(message)
        self.not_before = not_before


@dataclass(frozen=True)
class Emitted:
    """An event the action caused: ``event`` is the last part of its dotted name."""

    event: str
    #: Free-form JSON, as ``WorkflowEvent.data`` is: a reader narrows what it reads.
    data: dict[str, object] = field(default_factory=dict)


@dataclass
class Machine:
    """The actions of one workflow definition under one retry policy."""

    definition: WorkflowDefinition
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    roles: Sequence[str] = ()
    expertise: Mapping[str, Sequence[str]] = field(default_factory=dict)
    max_crash_retries: int = 2

    # -- creating and starting -------------------------------------------------------------

    def create(
        self,
        instance_id: str,
        now: datetime,
        *,
        title: str = "",
        members: Sequence[str] = (),
        source: str = "",
        parent: str | None = None,
        subtask: str = "",
    ) -> WorkflowInstance:
        """A new instance in CREATED."""
        return WorkflowInstance(
            id=instance_id,
            workflow=self.definition.name,
            definition_source=source,
            title=title,
            created_at=now,
            updated_at=now,
            members=list(members),
            parent=parent,
            subtask=subtask,
            roles={role: [] for role in self.role_names()},
        )

    def start(self, inst: WorkflowInstance, now: datetime, by: str) -> list[Emitted]:
        """CREATED -> RUNNING in the first phase."""
        self.require(inst, "start", {InstanceState.CREATED})
        inst.state = InstanceState.RUNNING
        inst.owner = inst.owner or by
        first = self.definition.phases[0]
        events = [Emitted("started", {"phase": first})]
        events += self._enter(inst, first, now, action="start", by=by)
        return events

    # -- advancing -------------------------------------------------------------------------

    def check_backoff(self, inst: WorkflowInstance, now: datetime) -> None:
        """Raise :class:`RetryLater` while the retry policy's backoff runs."""
        self.require(inst, "advance", {InstanceState.RUNNING})
        if inst.retry_not_before is not None and now < inst.retry_not_before:
            wait = (inst.retry_not_before - now).total_seconds()
            raise RetryLater(
                f"{inst.id}: attempt {inst.attempts + 1} of the exit gate of {inst.phase} is "
                f"not allowed before {inst.retry_not_before:%Y-%m-%d %H:%M:%S} UTC "
                f"({wait:.1f}s from now; retry policy backoff)",
                inst.retry_not_before,
            )

    def waiting_for(self, inst: WorkflowInstance) -> list[str]:
        """Prerequisites other than the gate still missing: a review, children to integrate."""
        phase = self._phase(inst)
        spec = self.definition.spec(phase)
        missing: list[str] = []
        if spec.review and self.acceptance(inst) is None:
            missing.append(
                f"{phase} needs a peer review that keeps its outcome (approved or "
                f"changes_requested) in cycle {inst.cycle}; record one with `phasegate review "
                f"record --instance {inst.id} --subject {inst.id} --status approved "
                f"--reviewer NAME`"
            )
        missing += [
            f"{phase} must produce {problem} (phasegate phase output {inst.id} KEY=VALUE)"
            for problem in mismatches(inst.context, spec.outputs)
        ]
        missing += self._loop_waiting(inst, phase)
        if spec.integrates_children:
            missing += _children_waiting(inst)
        return missing

    def _loop_waiting(self, inst: WorkflowInstance, phase: str) -> list[str]:
        loop = self.definition.spec(phase).loop
        if loop is None:
            return []
        from phasegate.workflow import design_loop, plan_loop

        if loop.kind == "design":
            design = _this_cycle(inst.design_loops.get(phase), inst.cycle)
            return design_loop.waiting(design, phase, inst.id)
        plan = _this_cycle(inst.plan_loops.get(phase), inst.cycle)
        return plan_loop.waiting(plan, phase, inst.id)

    def acceptance(self, inst: WorkflowInstance) -> PhaseAcceptance | None:
        """The review that kept the current phase's outcome in this cycle, if any."""
        for item in reversed(inst.accepted):
            if item.phase == inst.phase and item.cycle == inst.cycle:
                return item
        return None

    def advance(self, inst: WorkflowInstance, now: datetime, by: str) -> list[Emitted]:
        """Every prerequisite passed: on to the next phase, or COMPLETE after the last."""
        self.require(inst, "advance", {InstanceState.RUNNING})
        phase = self._phase(inst)
        inst.diagnosis = []
        events = [Emitted("phase.completed", {"phase": phase, "cycle": inst.cycle})]
        index = self.definition.index(phase)
        if index + 1 == len(self.definition.phases):
            inst.state = InstanceState.COMPLETE
            inst.attempts = 0
            inst.retry_not_before = None
            inst.updated_at = now
            self.record(inst, now, "complete", by, phase)
            events.append(Emitted("complete", {"phase": phase}))
            return events
        events += self._enter(inst, self.definition.phases[index + 1], now, action="advance", by=by)
        return events

    def halt(
        self, inst: WorkflowInstance, now: datetime, by: str, reasons: Sequence[str]
    ) -> list[Emitted]:
        """The exit gate was insufficient: spend a retry, back off, or give up."""
        self.require(inst, "halt", {InstanceState.RUNNING})
        phase = self._phase(inst)
        inst.attempts += 1
        inst.diagnosis = list(reasons)
        inst.updated_at = now
        self.record(
            inst,
            now,
            "halt",
            by,
            phase,
            reason=f"exit gate attempt {inst.attempts} insufficient",
            details=list(reasons),
        )
        events = [Emitted("halted", {"phase": phase, "attempt": inst.attempts, "reasons": reasons})]
        policy = self.policy
        if inst.attempts > policy.max_retries:
            inst.retry_not_before = None
            why = (
                f"the exit gate of {phase} was insufficient {inst.attempts} times "
                f"(max_retries = {policy.max_retries})"
            )
            if policy.on_max_retries == "escalate":
                events += self.escalate(inst, now, by, why)
            else:
                events += self.fail(inst, now, by, why)
            return events
        delay = policy.retry_delay_s * policy.backoff_multiplier ** (inst.attempts - 1)
        inst.retry_not_before = now + timedelta(seconds=delay)
        events.append(
            Emitted(
                "retry.scheduled",
                {"attempt": inst.attempts + 1, "not_before": inst.retry_not_before.isoformat()},
            )
        )
        return events

    def wait(
        self, inst: WorkflowInstance, now: datetime, by: str, reasons: Sequence[str]
    ) -> list[Emitted]:
        """The gate passed but a review or a child is still missing: no retry is spent."""
        self.require(inst, "wait", {InstanceState.RUNNING})
        inst.diagnosis = list(reasons)
        inst.updated_at = now
        self.record(
            inst, now, "wait", by, inst.phase, reason="prerequisites missing", details=list(reasons)
        )
        return [Emitted("waiting", {"phase": inst.phase, "reasons": list(reasons)})]

    # -- reviews ---------------------------------------------------------------------------

    def review(
        self,
        inst: WorkflowInstance,
        now: datetime,
        *,
        status: ReviewStatus,
        reviewer: str,
        note: str = "",
        commit: str | None = None,
    ) -> list[Emitted]:
        """Apply a peer-review outcome to the current phase."""
        self.require(inst, "review", {InstanceState.RUNNING})
        phase = self._phase(inst)
        outcome = OUTCOMES[status]
        inst.updated_at = now
        self.record(
            inst,
            now,
            "review",
            reviewer,
            phase,
            reason=f"{status.value} -> {outcome}" + (f": {note}" if note else ""),
        )
        events = [
            Emitted(
                f"review.{status.value}",
                {"phase": phase, "reviewer": reviewer, "outcome": outcome, "note": note},
            )
        ]
        if status is ReviewStatus.REJECTED:
            return events + self._reject(inst, now, phase, reviewer, note)
        inst.accepted.append(
            PhaseAcceptance(
                phase=phase,
                cycle=inst.cycle,
                status="approved" if status is ReviewStatus.APPROVED else "changes_requested",
                reviewer=reviewer,
                recorded_at=now,
                commit=commit,
            )
        )
        if status is ReviewStatus.APPROVED:
            _resolve_rework(inst, phase, now)
        else:
            inst.rework.append(
                ReworkItem(
                    phase=phase, reviewer=reviewer, note=note, recorded_at=now, cycle=inst.cycle
                )
            )
        return events

    def _reject(
        self, inst: WorkflowInstance, now: datetime, phase: str, reviewer: str, note: str
    ) -> list[Emitted]:
        count = inst.rejections.get(phase, 0) + 1
        inst.rejections[phase] = count
        inst.accepted = [
            a for a in inst.accepted if not (a.phase == phase and a.cycle == inst.cycle)
        ]
        limit = self.definition.max_rejections
        if count > limit:
            why = (
                f"{phase} was rejected {count} times; a rejection loops back at most {limit} times"
            )
            maxed = Emitted("review.rejected_max", {"phase": phase, "rejections": count})
            return [maxed, *self.fail(inst, now, reviewer, why)]
        discarded = _discard_updates(inst, phase)
        target = self.definition.reject_target(phase)
        reason = f"review rejected by {reviewer} ({count} of {limit} loop-backs)" + (
            f": {note}" if note else ""
        )
        events = [
            Emitted(
                "phase.repeated",
                {"phase": phase, "to": target, "rejections": count, "discarded": len(discarded)},
            )
        ]
        return events + self._enter(inst, target, now, action="repeat", by=reviewer, reason=reason)

    # -- human actions ---------------------------------------------------------------------

    def rewind(
        self, inst: WorkflowInstance, now: datetime, *, to: str, by: str, reason: str
    ) -> list[Emitted]:
        """Go back to an earlier phase, explicitly, recording who and why."""
        self.require(inst, "rewind", {InstanceState.RUNNING, InstanceState.BLOCKED})
        phase = self._phase(inst)
        if not by.strip() or not reason.strip():
            raise TransitionError(f"{inst.id}: a rewind needs who (--by) and why (--reason)")
        self._require_earlier(inst.id, phase, to)
        if inst.rewinds >= self.definition.max_rewinds:
            raise TransitionError(
                f"{inst.id}: it was rewound {inst.rewinds} times already, the most "
                f"{self.definition.name} allows (max_rewinds); escalate or fail it instead"
            )
        inst.rewinds += 1
        inst.state = InstanceState.RUNNING
        inst.blocked_reason = ""
        events = [Emitted("rewound", {"from": phase, "to": to, "by": by, "reason": reason})]
        return events + self._enter(inst, to, now, action="rewind", by=by, reason=reason)

    def _require_earlier(self, instance_id: str, phase: str, to: str) -> None:
        """A rewind goes to a phase of the workflow before the current one."""
        if to not in self.definition.phases:
            raise TransitionError(
                f"{instance_id}: cannot rewind to {to!r}: no such phase in "
                f"{self.definition.name}; the phases are: {', '.join(self.definition.phases)}"
            )
        if self.definition.index(to) >= self.definition.index(phase):
            earlier = self.definition.phases[: self.definition.index(phase)]
            raise TransitionError(
                f"{instance_id}: cannot rewind from {phase} to {to!r}: a rewind goes to an "
                f"earlier phase ({', '.join(earlier) or 'there is none'}); phases move forward "
                "only by `phase advance`"
            )

    def escalate(
        self, inst: WorkflowInstance, now: datetime, by: str, reason: str
    ) -> list[Emitted]:
        """Hand the instance to a person: BLOCKED with the reason."""
        self.require(inst, "escalate", {InstanceState.CREATED, InstanceState.RUNNING})
        if not reason.strip():
            raise TransitionError(f"{inst.id}: an escalation needs a reason (--reason)")
        inst.escalations += 1
        limit = self.definition.max_escalations
        if inst.escalations > limit:
            return self.fail(
                inst,
                now,
                by,
                f"escalated {inst.escalations} times (max_escalations = {limit}): {reason}",
            )
        inst.state = InstanceState.BLOCKED
        inst.blocked_reason = reason
        inst.updated_at = now
        self.record(inst, now, "escalate", by, inst.phase, reason=reason)
        return [
            Emitted(
                "escalation.required",
                {"reason": reason, "suggested_action": "review_and_resume"},
            )
        ]

    def resume(self, inst: WorkflowInstance, now: datetime, by: str, note: str) -> list[Emitted]:
        """BLOCKED -> RUNNING (or CREATED if it never started), with a fresh retry budget."""
        self.require(inst, "resume", {InstanceState.BLOCKED})
        if inst.phase is not None:
            invalid = mismatches(inst.context, self.definition.spec(inst.phase).inputs)
            if invalid:
                raise TransitionError(
                    f"{inst.id}: the context still does not match the inputs of {inst.phase}: "
                    f"{'; '.join(invalid)}; add them first (phasegate phase output {inst.id} "
                    "KEY=VALUE)"
                )
        inst.state = InstanceState.RUNNING if inst.phase is not None else InstanceState.CREATED
        inst.blocked_reason = ""
        inst.attempts = 0
        inst.retry_not_before = None
        inst.updated_at = now
        self.record(inst, now, "resume", by, inst.phase, reason=note)
        return [Emitted("resumed", {"note": note})]

    def fail(self, inst: WorkflowInstance, now: datetime, by: str, reason: str) -> list[Emitted]:
        """Mark the instance FAILED with the reason."""
        self.require(
            inst,
            "fail",
            {InstanceState.CREATED, InstanceState.RUNNING, InstanceState.BLOCKED},
        )
        inst.state = InstanceState.FAILED
        inst.failure_reason = reason
        inst.blocked_reason = ""  # kept in the history's escalate entry
        inst.retry_not_before = None
        inst.updated_at = now
        self.record(inst, now, "fail", by, inst.phase, reason=reason)
        return [Emitted("failed", {"reason": reason})]

    # -- memory ----------------------------------------------------------------------------

    def queue_update(
        self, inst: WorkflowInstance, now: datetime, *, key: str, value: JsonValue, by: str
    ) -> MemoryUpdate:
        """Queue an update during the current phase."""
        self.require(inst, "queue", {InstanceState.RUNNING, InstanceState.BLOCKED})
        update = MemoryUpdate(key=key, value=value, phase=self._phase(inst), queued_at=now, by=by)
        inst.memory_queue.append(update)
        inst.updated_at = now
        return update

    # -- internals -------------------------------------------------------------------------

    def _enter(
        self,
        inst: WorkflowInstance,
        phase: str,
        now: datetime,
        *,
        action: str,
        by: str,
        reason: str = "",
    ) -> list[Emitted]:
        previous = inst.phase
        inst.phase = phase
        inst.phase_index = self.definition.index(phase)
        inst.attempts = 0
        inst.retry_not_before = None
        inst.diagnosis = []
        inst.updated_at = now
        self.record(inst, now, action, by, previous, to_phase=phase, reason=reason)
        inst.cycle = sum(
            1 for entry in inst.history if entry.action in _ENTRIES and entry.to_phase == phase
        )
        self._assign_roles(inst, phase, now)
        due = [r for r in inst.rework if r.phase == phase and r.resolved_at is None]
        events = [
            Emitted(
                "phase.entered",
                {"phase": phase, "from": previous, "cycle": inst.cycle, "rework_due": len(due)},
            ),
            Emitted("roles.assigned", {"phase": phase, "roles": inst.roles}),
        ]
        return events + self._check_inputs(inst, phase, now, by)

    def _assign_roles(self, inst: WorkflowInstance, phase: str, now: datetime) -> None:
        """The roles of the phase entered, rotated by how many phases were entered before."""
        boundary = len(inst.role_history)
        inst.roles = assign_roles(
            self.role_names(), inst.members, phase=phase, boundary=boundary,
            expertise=self.expertise,
        )  # fmt: skip
        inst.role_history.append(RoleAssignment(phase=phase, at=now, roles=inst.roles))

    def _check_inputs(
        self, inst: WorkflowInstance, phase: str, now: datetime, by: str
    ) -> list[Emitted]:
        """A phase entered with a context that lacks its declared inputs is escalated."""
        invalid = mismatches(inst.context, self.definition.spec(phase).inputs)
        if not invalid:
            return []
        return [
            Emitted("context.invalid", {"phase": phase, "problems": invalid}),
            *self.escalate(inst, now, by, f"invalid context for {phase}: {'; '.join(invalid)}"),
        ]

    def role_names(self) -> list[str]:
        """The roles handed out at each boundary; the first one leads."""
        return list(self.roles) or list(self.definition.roles)

    def _phase(self, inst: WorkflowInstance) -> str:
        if inst.phase is None:
            raise TransitionError(f"{inst.id} has not started; start it with `phase advance`")
        return inst.phase

    @staticmethod
    def record(
        inst: WorkflowInstance,
        now: datetime,
        action: str,
        by: str,
        from_phase: str | None,
        *,
        to_phase: str | None = None,
        reason: str = "",
        details: Sequence[str] = (),
    ) -> None:
        """Append a transition to the instance's history, in the state it is in now."""
        inst.history.append(
            Transition(
                at=now,
                action=action,
                by=by,
                from_phase=from_phase,
                to_phase=to_phase,
                state=inst.state,
                reason=reason,
                details=list(details),
            )
        )

    @staticmethod
    def require(inst: WorkflowInstance, action: str, allowed: set[InstanceState]) -> None:
        """Refuse ``action`` unless the instance is in one of the ``allowed`` states."""
        if inst.state in allowed:
            return
        names = ", ".join(sorted(state.value for state in allowed))
        detail = ""
        if inst.state is InstanceState.BLOCKED:
            detail = f" (blocked: {inst.blocked_reason}; `phase resume` first)"
        elif inst.state is InstanceState.FAILED:
            detail = f" (failed: {inst.failure_reason})"
        raise TransitionError(
            f"{inst.id} is {inst.state.value}{detail}; {action} is allowed only when it is {names}"
        )


_LoopT = TypeVar("_LoopT", DesignLoop, PlanLoop)


def _this_cycle(loop: _LoopT | None, cycle: int) -> _LoopT | None:
    """A phase's loop if it runs in this cycle of the instance (a rework starts a new one)."""
    return loop if loop is not None and loop.cycle == cycle else None


def _children_waiting(inst: WorkflowInstance) -> list[str]:
    """The children spawned and not settled yet."""
    return [
        f"child {child.instance_id} ({child.subtask}) is not integrated yet: it "
        "must be COMPLETE with an approved review, or FAILED (it then falls "
        "back to this instance)"
        for child in inst.children
        if child.status == "spawned"
    ]


def _discard_updates(inst: WorkflowInstance, phase: str) -> list[MemoryUpdate]:
    """A rejected phase's queued updates are discarded (kept aside, never flushed)."""
    discarded = [u for u in inst.memory_queue if u.phase == phase]
    inst.discarded_updates += discarded
    inst.memory_queue = [u for u in inst.memory_queue if u.phase != phase]
    return discarded


def _resolve_rework(inst: WorkflowInstance, phase: str, now: datetime) -> None:
    """An approval resolves the phase's rework asked for in earlier cycles."""
    for item in inst.rework:
        if item.phase == phase and item.resolved_at is None and item.cycle < inst.cycle:
            item.resolved_at = now
