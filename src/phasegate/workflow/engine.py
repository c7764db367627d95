"""The coordinator: the state machine plus gates, files, memory, reviews, children and events.

Every command of ``phasegate phase`` and ``phasegate review`` is a method here, so the CLI and
the BDD step library drive the same code. Each action reads the instance, applies the
machine's action under the instance's lock, writes it atomically, and only then appends the
events and calls the observers. An exit gate runs *outside* the lock (a test run may take
minutes); the result is applied only if the instance did not move meanwhile.
"""

from __future__ import annotations

import getpass
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pluggy
from pydantic import JsonValue

from phasegate.config import LoadedConfig
from phasegate.errors import PhasegateError, UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.model.review import ReviewRecord, ReviewStatus
from phasegate.model.workflow import (
    GateRecord,
    InstanceState,
    MemoryUpdate,
    WorkflowEvent,
    WorkflowInstance,
)
from phasegate.store import Store
from phasegate.workflow.children import SubtaskRequest
from phasegate.workflow.contracts import put_outputs
from phasegate.workflow.definition import WorkflowDefinition, load_workflow
from phasegate.workflow.events import EventLog
from phasegate.workflow.gate_records import keep_verdict
from phasegate.workflow.gating import GateOutcome, run_exit_gate
from phasegate.workflow.handoff import Handoff, SweptTask
from phasegate.workflow.instances import InstanceStore, ListedInstance, check_id, is_stale
from phasegate.workflow.liveness import crash, heartbeat, is_crashed
from phasegate.workflow.machine import Emitted, Machine, TransitionError
from phasegate.workflow.memory_queue import (
    JsonlMemoryStore,
    MemoryFlushError,
    MemoryStore,
    flush_memory_queue,
)
from phasegate.workflow.phase_facts import PhaseFacts
from phasegate.workflow.reviews import record_review
from phasegate.workflow.spawning import Spawned, settle_children, spawn_children

__all__ = [
    "AdvanceResult",
    "Clock",
    "Spawned",
    "Status",
    "Swept",
    "WorkflowEngine",
    "default_actor",
]

Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def default_actor() -> str:
    """Who acts when ``--by`` is not given: the login name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user database entry (some containers)
        return "unknown"


@dataclass
class AdvanceResult:
    """What ``phase advance`` did."""

    instance: WorkflowInstance
    moved: bool
    from_phase: str | None
    gate: GateOutcome | None = None
    diagnosis: list[str] = field(default_factory=list)
    events: list[WorkflowEvent] = field(default_factory=list)


@dataclass
class Status:
    """Where an instance stands, and what its next gate needs."""

    instance: WorkflowInstance
    definition: WorkflowDefinition
    next_gate: str | None
    needs_review: bool
    waiting_for: list[str]
    stale: bool
    children: dict[str, str]


@dataclass
class Swept:
    """What ``phase sweep`` did: crashed instances retried or failed, running tasks given back."""

    retried: list[WorkflowInstance]
    failed: list[WorkflowInstance]
    tasks: list[SweptTask]


@dataclass
class _Sync:
    instance_id: str
    phase: str
    items: list[MemoryUpdate] | None


class WorkflowEngine:
    """Runs workflow instances of one project."""

    def __init__(
        self,
        loaded: LoadedConfig,
        *,
        store: Store | None = None,
        extensions: pluggy.PluginManager | None = None,
        clock: Clock = _utc_now,
        memory: MemoryStore | None = None,
    ) -> None:
        self.loaded = loaded
        self.settings = loaded.config.workflow
        self.store = store or Store(loaded.artifacts_path)
        self.store.ensure_writable()
        self.extensions = (
            extensions if extensions is not None else make_plugin_manager(loaded.config.plugins)
        )
        self.instances = InstanceStore(self.store)
        self.events = EventLog(self.store, self.extensions)
        self.clock = clock
        if memory is not None:
            self.memory: MemoryStore | None = memory
        else:
            self.memory = JsonlMemoryStore(self.store) if self.settings.memory_store else None
        self.handoff = Handoff.for_project(loaded, clock=clock)
        self.facts = PhaseFacts(loaded, self.handoff)

    # -- definitions -----------------------------------------------------------------------

    def definition(self, name: str) -> tuple[WorkflowDefinition, str]:
        """A workflow definition and the path it was read from."""
        definition, source = load_workflow(name, self.loaded.project_root, self.settings.paths)
        return definition, str(source.path)

    def machine(self, definition: WorkflowDefinition) -> Machine:
        """The state machine of a definition under this project's settings."""
        return Machine(
            definition,
            self.settings.retry,
            roles=self.settings.roles,
            expertise=self.settings.expertise,
            max_crash_retries=self.settings.max_crash_retries,
        )

    # -- lifecycle -------------------------------------------------------------------------

    def start(
        self,
        workflow: str,
        *,
        instance_id: str | None = None,
        title: str = "",
        members: Sequence[str] = (),
        by: str | None = None,
        create_only: bool = False,
        parent: str | None = None,
        subtask: str = "",
        context: Mapping[str, JsonValue] | None = None,
    ) -> WorkflowInstance:
        """Create an instance (and start it, unless ``create_only``) with an initial context."""
        definition, source = self.definition(workflow)
        self._check_gates(definition)
        actor = by or default_actor()
        now = self.clock()
        new_id = check_id(instance_id) if instance_id else self._new_id(definition.name)
        machine = self.machine(definition)
        inst = machine.create(
            new_id,
            now,
            title=title,
            members=list(members) or self.settings.members,
            source=source,
            parent=parent,
            subtask=subtask,
        )
        inst.context.update(context or {})
        emitted = [Emitted("created", {"title": title, "parent": parent})]
        if not create_only:
            emitted += machine.start(inst, now, actor)
        self.instances.create(inst)
        self.events.emit(inst, emitted, now, actor)
        return inst

    def load(self, instance_id: str) -> WorkflowInstance:
        """Read an instance."""
        return self.instances.load(instance_id)

    def status(self, instance_id: str) -> Status:
        """Where the instance stands and what its next gate needs."""
        inst = self.instances.load(instance_id)
        definition, _ = self.definition(inst.workflow)
        spec = definition.spec(inst.phase) if inst.phase else None
        machine = self.machine(definition)
        waiting = (
            machine.waiting_for(inst) + self.facts.waiting(inst, definition)
            if inst.state is InstanceState.RUNNING
            else []
        )
        children = {link.instance_id: self._child_state(link.instance_id) for link in inst.children}
        return Status(
            instance=inst,
            definition=definition,
            next_gate=spec.exit_gate if spec else None,
            needs_review=bool(spec and spec.review),
            waiting_for=waiting,
            stale=is_stale(inst, self.clock(), self.settings.stale_after_h),
            children=children,
        )

    def _child_state(self, instance_id: str) -> str:
        """A child's state, or why it cannot be read."""
        try:
            return self.instances.load(instance_id).state.value
        except PhasegateError as exc:
            return f"unreadable: {exc}"

    def list_instances(self) -> list[tuple[ListedInstance, bool]]:
        """Every instance with whether it is stale."""
        now = self.clock()
        return [
            (item, item.instance is not None and is_stale(
                item.instance, now, self.settings.stale_after_h
            ))
            for item in self.instances.read_all()
        ]  # fmt: skip

    # -- advancing -------------------------------------------------------------------------

    def advance(self, instance_id: str, *, by: str | None = None) -> AdvanceResult:
        """Run the exit gate and either move on or halt with the diagnosis."""
        actor = by or default_actor()
        inst = self.instances.load(instance_id)
        definition, _ = self.definition(inst.workflow)
        machine = self.machine(definition)
        if inst.state is InstanceState.CREATED:
            return self._apply(
                instance_id, inst, lambda i, now: machine.start(i, now, actor), actor, moved=True
            )
        machine.check_backoff(inst, self.clock())
        phase = inst.phase
        if phase is None:  # pragma: no cover - RUNNING always has a phase
            raise TransitionError(f"{instance_id} is RUNNING without a phase")
        spec = definition.spec(phase)
        outcome: GateOutcome | None = None
        if spec.exit_gate:
            outcome = run_exit_gate(
                spec.exit_gate,
                self.loaded,
                self.store,
                self.extensions,
                instance_id=instance_id,
                phase=phase,
            )
        cycle = inst.cycle

        def act(current: WorkflowInstance, now: datetime) -> list[Emitted]:
            if (current.state, current.phase, current.cycle) != (
                InstanceState.RUNNING,
                phase,
                cycle,
            ):
                raise TransitionError(
                    f"{instance_id} changed while its exit gate ran (now {current.state.value} "
                    f"in {current.phase}); run `phase advance` again"
                )
            emitted: list[Emitted] = []
            if outcome is not None:
                emitted.append(
                    Emitted(
                        "gate.evaluated",
                        {
                            "gate": outcome.gate,
                            "sufficient": outcome.sufficient,
                            "verdict_path": outcome.verdict_path,
                        },
                    )
                )
            if outcome is not None:
                current.gate_results.append(self._keep(current, outcome, now))
            if definition.spec(phase).integrates_children:
                emitted += settle_children(self, current, now, actor)
            waiting = machine.waiting_for(current) + self.facts.waiting(current, definition)
            if outcome is not None and not outcome.sufficient:
                reasons = [f"gate {outcome.gate}: {reason}" for reason in outcome.reasons]
                return emitted + machine.halt(current, now, actor, reasons + waiting)
            if waiting:
                return emitted + machine.wait(current, now, actor, waiting)
            try:
                emitted += self.facts.generate_tasks(current, definition, actor)
            except UsageError as exc:
                return emitted + machine.halt(current, now, actor, [f"tasks: {exc}"])
            return emitted + machine.advance(current, now, actor)

        result = self._apply(instance_id, inst, act, actor, moved=False)
        result.gate = outcome
        return result

    def _apply(
        self,
        instance_id: str,
        before: WorkflowInstance,
        act: Callable[[WorkflowInstance, datetime], list[Emitted]],
        actor: str,
        *,
        moved: bool,
    ) -> AdvanceResult:
        syncs: list[_Sync] = []
        with self.instances.editing(instance_id) as inst:
            now = self.clock()
            from_phase = inst.phase
            from_state = inst.state
            emitted = act(inst, now)
            completed = [i for i, e in enumerate(emitted) if e.event == "phase.completed"]
            if completed and from_state is InstanceState.RUNNING and from_phase is not None:
                # Flushed before anything is reported of the next phase or of completion.
                at = completed[0] + 1
                emitted[at:at] = self._flush(inst, from_phase, syncs)
        moved = moved or bool(completed)
        events = self._publish(inst, emitted, now, actor, syncs)
        return AdvanceResult(
            instance=inst,
            moved=moved,
            from_phase=from_phase,
            diagnosis=list(inst.diagnosis),
            events=events,
        )

    # -- other actions ---------------------------------------------------------------------

    def rewind(self, instance_id: str, *, to: str, by: str, reason: str) -> WorkflowInstance:
        """Back to an earlier phase, recorded with who and why."""
        return self.act(
            instance_id, by, lambda m, i, now: m.rewind(i, now, to=to, by=by, reason=reason)
        )

    def escalate(self, instance_id: str, *, by: str, reason: str) -> WorkflowInstance:
        """BLOCKED with the reason."""
        return self.act(instance_id, by, lambda m, i, now: m.escalate(i, now, by, reason))

    def resume(self, instance_id: str, *, by: str, note: str = "") -> WorkflowInstance:
        """RUNNING again, with a fresh retry budget."""
        return self.act(instance_id, by, lambda m, i, now: m.resume(i, now, by, note))

    def fail(self, instance_id: str, *, by: str, reason: str) -> WorkflowInstance:
        """FAILED with the reason."""
        if not reason.strip():
            raise UsageError(f"{instance_id}: failing an instance needs a reason (--reason)")
        return self.act(instance_id, by, lambda m, i, now: m.fail(i, now, by, reason))

    def heartbeat(self, instance_id: str, *, by: str) -> WorkflowInstance:
        """The owner is alive (``by`` becomes the owner)."""
        if not by.strip():
            raise UsageError(f"{instance_id}: a heartbeat needs who sends it (--by)")
        return self.act(instance_id, by, lambda m, i, now: heartbeat(m, i, now, by))

    def put_outputs(
        self, instance_id: str, values: Mapping[str, JsonValue], *, by: str
    ) -> WorkflowInstance:
        """Merge outputs into the instance's context."""
        return self.act(instance_id, by, lambda m, i, now: put_outputs(i, now, by, values))

    def sweep(self, *, by: str = "sweep") -> Swept:
        """Retry or fail every RUNNING instance idle past the crash timeout; give back tasks."""
        timeout = self.settings.crash_timeout_min
        retried: list[WorkflowInstance] = []
        failed: list[WorkflowInstance] = []
        for item in self.instances.read_all():
            if item.instance is None or not is_crashed(item.instance, self.clock(), timeout):
                continue

            def act(m: Machine, current: WorkflowInstance, now: datetime) -> list[Emitted]:
                if not is_crashed(current, now, timeout):
                    return []  # it showed a sign of life meanwhile
                return crash(m, current, now, by, timeout)

            before = item.instance.crash_retries
            after = self.act(item.instance.id, by, act)
            if after.state is InstanceState.FAILED:
                failed.append(after)
            elif after.crash_retries > before:
                retried.append(after)
        return Swept(retried, failed, self.handoff.sweep(timeout_min=timeout, by=by))

    def queue_update(
        self, instance_id: str, *, key: str, value: JsonValue, by: str
    ) -> WorkflowInstance:
        """Queue a memory update in the current phase."""

        def act(m: Machine, inst: WorkflowInstance, now: datetime) -> list[Emitted]:
            update = m.queue_update(inst, now, key=key, value=value, by=by)
            return [Emitted("memory.queued", {"key": update.key, "phase": update.phase})]

        return self.act(instance_id, by, act)

    def review(
        self,
        *,
        subject: str,
        status: ReviewStatus,
        reviewer: str,
        note: str = "",
        commit: str | None = None,
        instance_id: str | None = None,
        source: str = "cli",
        recorded_at: datetime | None = None,
        pull_request: int | None = None,
        url: str | None = None,
    ) -> tuple[ReviewRecord, WorkflowInstance | None]:
        """Record a review; with an instance, apply its outcome to the current phase."""
        now = self.clock()
        record = ReviewRecord(
            subject=subject,
            commit=commit,
            reviewer=reviewer,
            status=status,
            recorded_at=recorded_at or now,
            note=note,
            source=source,
            pull_request=pull_request,
            url=url,
        )
        if instance_id is None:
            return record_review(self.store, record), None
        box: list[ReviewRecord] = []

        def act(m: Machine, inst: WorkflowInstance, at: datetime) -> list[Emitted]:
            phase = inst.phase
            emitted = m.review(inst, at, status=status, reviewer=reviewer, note=note, commit=commit)
            box.append(
                record_review(
                    self.store, record.model_copy(update={"instance": inst.id, "phase": phase})
                )
            )
            return emitted

        inst = self.act(instance_id, reviewer, act)
        return box[0], inst

    def spawn(self, instance_id: str, requests: Sequence[SubtaskRequest], *, by: str) -> Spawned:
        """As the primus: a child instance for each subtask whose measured complexity is
        above the threshold; the others stay with the parent."""
        return spawn_children(self, instance_id, requests, by=by)

    def _keep(self, inst: WorkflowInstance, outcome: GateOutcome, now: datetime) -> GateRecord:
        """Keep this exit gate's verdict for the instance (its own copy, never overwritten)."""
        return keep_verdict(
            outcome,
            self.store,
            f"workflows/{inst.id}/gates",
            number=len(inst.gate_results) + 1,
            attempt=sum(1 for r in inst.gate_results if r.gate == outcome.gate) + 1,
            at=now,
            phase=inst.phase,
            cycle=inst.cycle,
        )

    def run_gate(self, gate: str, for_id: str) -> GateOutcome:
        """Run a gate as an exit gate runs, for an instance or a task (``{instance}``)."""
        return run_exit_gate(gate, self.loaded, self.store, self.extensions, instance_id=for_id)

    # -- internals -------------------------------------------------------------------------

    def act(
        self,
        instance_id: str,
        actor: str,
        act: Callable[[Machine, WorkflowInstance, datetime], list[Emitted]],
    ) -> WorkflowInstance:
        """Apply ``act`` to the instance under its lock, write it, then publish the events."""
        with self.instances.editing(instance_id) as inst:
            definition, _ = self.definition(inst.workflow)
            now = self.clock()
            emitted = act(self.machine(definition), inst, now)
        self._publish(inst, emitted, now, actor, [])
        return inst

    def _publish(
        self,
        inst: WorkflowInstance,
        emitted: list[Emitted],
        now: datetime,
        actor: str,
        syncs: list[_Sync],
    ) -> list[WorkflowEvent]:
        events = self.events.emit(inst, emitted, now, actor)
        for sync in syncs:
            self.extensions.hook.phasegate_on_memory_sync(
                instance_id=sync.instance_id, phase=sync.phase, items=sync.items
            )
        return events

    def _flush(self, inst: WorkflowInstance, phase: str, syncs: list[_Sync]) -> list[Emitted]:
        """Flush the completed phase's updates; everything left when the work is done."""
        definition, _ = self.definition(inst.workflow)
        everything = inst.state is InstanceState.COMPLETE or definition.spec(phase).retrospective
        selected, rest = _partition(inst.memory_queue, phase, everything=everything)
        queue = list(selected)
        try:
            items = flush_memory_queue(queue, self.memory, inst.id)
        except MemoryFlushError as exc:
            inst.memory_queue = selected + rest
            syncs.append(_Sync(inst.id, phase, None))
            return [Emitted("memory.flush_failed", {"phase": phase, "reason": str(exc)})]
        inst.memory_queue = queue + rest
        syncs.append(_Sync(inst.id, phase, items))
        return [
            Emitted(
                "memory.flushed",
                {"phase": phase, "count": len(items), "retrospective": everything},
            )
        ]

    def _check_gates(self, definition: WorkflowDefinition) -> None:
        """Every exit gate must exist before an instance starts (fail early, not in EXECUTE)."""
        from phasegate.gates.definition import find_gates

        known = find_gates(self.loaded.project_root, self.loaded.config.gate_paths)
        for phase in definition.phases:
            gate = definition.spec(phase).exit_gate
            if gate and not gate.endswith(".toml") and gate not in known:
                raise UsageError(
                    f"workflow {definition.name}: key phase.{phase}.exit_gate = {gate!r} names "
                    f"no gate; known gates: {', '.join(sorted(known))}"
                )

    def _new_id(self, workflow: str) -> str:
        return f"{workflow[:40]}-{secrets.token_hex(4)}"


def _partition(
    queue: list[MemoryUpdate], phase: str, *, everything: bool
) -> tuple[list[MemoryUpdate], list[MemoryUpdate]]:
    """The queued updates to flush now (the phase's, or all of them) and those left queued."""
    if everything:
        return list(queue), []
    return [u for u in queue if u.phase == phase], [u for u in queue if u.phase != phase]
