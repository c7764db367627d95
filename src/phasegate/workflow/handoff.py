"""The handoff between supervisor and workers: the queue, its inboxes, gates, plans, crashes.

:class:`~phasegate.workflow.queue.HandoffQueue` moves task files between folders; this module
adds what each move means to the other side, so ``phasegate task`` and the BDD steps drive the
same code:

=================  ============================================  ===========================
action             queue move                                    message (inbox)
=================  ============================================  ===========================
claim              queue|rejected -> running (dependencies done) TASK_ASSIGNED (worker)
submit             running -> review                             TASK_SUBMITTED (supervisor)
complete           review -> completed                           TASK_APPROVED (worker)
reject             review -> rejected (or failed)                TASK_REJECTED (worker)
ask                none                                          CLARIFICATION_REQUEST
                                                                 (supervisor)
gate               review -> completed, or rejected with the     TASK_APPROVED or
                   gate's reasons; the verdict is kept per task  TASK_REJECTED (worker)
sweep              running -> queue (or failed) for a worker     none
                   silent past the crash timeout
=================  ============================================  ===========================

``generate`` queues the tasks of an approved plan (:mod:`phasegate.workflow.plan_tasks`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from phasegate.config import LoadedConfig
from phasegate.errors import UsageError
from phasegate.model.workflow import TaskHistory, TaskRecord, TaskStatus
from phasegate.workflow.gate_records import keep_verdict
from phasegate.workflow.gating import GateOutcome
from phasegate.workflow.inbox import Inbox
from phasegate.workflow.plan_tasks import PlannedTask
from phasegate.workflow.queue import HandoffQueue

__all__ = ["Generated", "Handoff", "SweptTask", "tasks_root"]

Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def tasks_root(loaded: LoadedConfig) -> Path:
    """The handoff folder of a project: ``tasks_dir``, else ``tasks/`` in the artifacts."""
    settings = loaded.config.workflow
    if settings.tasks_dir:
        return loaded.inside("workflow.tasks_dir", settings.tasks_dir)
    return loaded.artifacts_path / "tasks"


@dataclass(frozen=True)
class Generated:
    """What ``generate`` did: the tasks it queued and those that existed already."""

    added: list[str]
    existing: list[str]


@dataclass(frozen=True)
class SweptTask:
    """A running task whose worker was silent past the crash timeout, and where it went."""

    task: str
    worker: str
    idle_s: float
    status: TaskStatus


class Handoff:
    """The handoff folder of one project."""

    def __init__(self, root: Path, *, max_retries: int = 3, clock: Clock = _utc_now) -> None:
        self.queue = HandoffQueue(root, max_retries=max_retries, clock=clock)
        self.inbox = Inbox(root)
        self.clock = clock

    @classmethod
    def for_project(cls, loaded: LoadedConfig, *, clock: Clock = _utc_now) -> Handoff:
        """The handoff of a project, as its settings say."""
        return cls(
            tasks_root(loaded), max_retries=loaded.config.workflow.max_task_retries, clock=clock
        )

    # -- the worker's side -----------------------------------------------------------------

    def claim(self, worker: str, task_id: str | None = None) -> TaskRecord | None:
        """Claim a task whose dependencies are done, and tell the worker it is theirs."""
        task = self.queue.claim(worker, task_id)
        if task is not None:
            self.inbox.send("TASK_ASSIGNED", task=task.id, sender="queue", to=worker,
                            body=task.title, now=self.clock())  # fmt: skip
        return task

    def submit(self, task_id: str, *, by: str, note: str = "") -> TaskRecord:
        """running -> review, and the supervisor hears of it."""
        task = self.queue.submit(task_id, by=by, note=note)
        self.inbox.send("TASK_SUBMITTED", task=task_id, sender=by, body=note or task.title,
                        now=self.clock())  # fmt: skip
        return task

    def ask(self, task_id: str, *, by: str, question: str) -> None:
        """A question about a task, for the supervisor."""
        if not question.strip():
            raise UsageError(f"a clarification request about {task_id} needs the question")
        self.queue.find(task_id)
        self.inbox.send("CLARIFICATION_REQUEST", task=task_id, sender=by, body=question,
                        now=self.clock())  # fmt: skip

    def heartbeat(self, task_id: str, *, worker: str) -> TaskHistory:
        """The worker holding a running task is alive."""
        record, status, _ = self.queue.show(task_id)
        if status is not TaskStatus.RUNNING or record.claimed_by != worker:
            holder = f" (held by {record.claimed_by})" if record.claimed_by else ""
            raise UsageError(
                f"task {task_id} is in {status.value}/{holder}; only the worker holding a "
                "running task sends its heartbeat"
            )
        now = self.clock()

        def beat(history: TaskHistory) -> None:
            history.heartbeat_at = now
            history.heartbeat_by = worker

        return self.queue.update_history(task_id, beat)

    # -- the supervisor's side -------------------------------------------------------------

    def complete(self, task_id: str, *, by: str, note: str = "") -> TaskRecord:
        """Approve: -> completed, and the worker hears of it."""
        worker = self._holder(task_id)
        task = self.queue.complete(task_id, by=by, note=note)
        self.inbox.send("TASK_APPROVED", task=task_id, sender=by, to=worker, body=note,
                        now=self.clock())  # fmt: skip
        return task

    def reject(self, task_id: str, *, by: str, feedback: str) -> TaskRecord:
        """Send it back with feedback (a retry spent), and the worker hears why."""
        worker = self._holder(task_id)
        task = self.queue.reject(task_id, by=by, feedback=feedback)
        self.inbox.send("TASK_REJECTED", task=task_id, sender=by, to=worker, body=feedback,
                        now=self.clock())  # fmt: skip
        return task

    def gate(
        self, task_id: str, gate: str, run: Callable[[str], GateOutcome], *, by: str
    ) -> tuple[TaskRecord, GateOutcome]:
        """Run ``gate`` for a task in review, keep the verdict, and approve or reject by it."""
        record, status, _ = self.queue.show(task_id)
        if status is not TaskStatus.REVIEW:
            raise UsageError(
                f"task {task_id} is in {status.value}/; its gate is run when it is in review/ "
                f"(phasegate task review {task_id})"
            )
        outcome = run(record.instance or task_id)

        def keep(history: TaskHistory) -> None:
            # Numbered under the history's lock: a gate run meanwhile keeps its own file.
            runs = history.gate_results
            runs.append(
                keep_verdict(
                    outcome,
                    self.queue.store,
                    f"gates/{task_id}",
                    number=len(runs) + 1,
                    attempt=sum(1 for r in runs if r.gate == outcome.gate) + 1,
                    at=self.clock(),
                )
            )

        self.queue.update_history(task_id, keep)
        if outcome.sufficient:
            return self.complete(task_id, by=by, note=f"gate {gate} is sufficient"), outcome
        reasons = "; ".join(outcome.reasons) or "the gate is insufficient"
        return self.reject(task_id, by=by, feedback=f"gate {gate}: {reasons}"), outcome

    def generate(self, instance: str, planned: Sequence[PlannedTask], *, by: str) -> Generated:
        """Queue the plan's tasks (dependencies first); tasks that exist already are kept."""
        added: list[str] = []
        existing: list[str] = []
        for task in planned:
            if self.queue.find(task.id, missing_ok=True) is not None:
                existing.append(task.id)
                continue
            body = f"files: {', '.join(task.files)}" if task.files else ""
            self.queue.add(
                task.title, priority=task.priority, task_id=task.id, parent=instance, body=body,
                by=by, depends_on=task.depends_on, instance=instance, plan_task=task.plan_task,
                max_retries=task.max_retries, estimate_min=task.estimate_min,
            )  # fmt: skip
            added.append(task.id)
        return Generated(added, existing)

    def sweep(self, *, timeout_min: float, by: str = "sweep") -> list[SweptTask]:
        """Give back every running task whose worker was silent past the crash timeout."""
        now = self.clock()
        swept: list[SweptTask] = []
        for status, task in self.queue.tasks(TaskStatus.RUNNING):
            last = self._last_sign_of_life(task)
            if last is not None and now - last > timedelta(minutes=timeout_min):
                swept += self._give_back(
                    task, status, (now - last).total_seconds(), timeout_min, by
                )
        return swept

    def _give_back(
        self, task: TaskRecord, status: TaskStatus, idle: float, timeout_min: float, by: str
    ) -> list[SweptTask]:
        """Fail a silent task back to the queue (or to ``failed/`` past its retries)."""
        worker = task.claimed_by or "its worker"
        try:
            moved = self.queue.fail(
                task.id,
                by=by,
                error=f"no sign of life from {worker} for {idle / 60:.0f} min (crash "
                f"timeout {timeout_min:g} min)",
            )
        except UsageError:
            return []  # it left running/ meanwhile (submitted): its worker is alive
        where = self.queue.find(moved.id, missing_ok=True)
        return [SweptTask(task.id, worker, round(idle, 1), where.status if where else status)]

    def _last_sign_of_life(self, task: TaskRecord) -> datetime | None:
        """The latest of the claim, the worker's heartbeat and the task's last move."""
        _, _, history = self.queue.show(task.id)
        seen = [task.claimed_at, history.heartbeat_at if history else None]
        if history and history.transitions:
            seen.append(history.transitions[-1].at)
        return max((moment for moment in seen if moment is not None), default=None)

    def _holder(self, task_id: str) -> str:
        record, _, _ = self.queue.show(task_id)
        return record.claimed_by or ""
