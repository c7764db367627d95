"""The handoff queue: task files in folders that several workers share on one file system.

::

    tasks/
      queue/      waiting to be claimed          running/    claimed by one worker
      review/     submitted for review           completed/  approved
      rejected/   sent back with feedback        failed/     out of retries: for a person
      history/    <id>.json, the lineage of every task

A task file is named ``<PRIORITY>_<created>_<id>.json``, so a listing of ``queue/`` sorts
by priority (CRITICAL, HIGH, MEDIUM, LOW) and then by age without opening a file. The folder
a file is in is the task's status.

Claiming is atomic: a worker renames the task file from ``queue/`` (or ``rejected/``) into
``running/``. ``os.rename`` of one source succeeds for exactly one caller; every other caller
finds the source gone and tries the next task, so no two workers ever hold the same task, with
no lock to leave behind if a worker dies. Every other move is a rename too, so a task is always
in exactly one folder. The claimant then rewrites the file in ``running/`` (atomically, through
the store) and appends to its history under the task's lock.

A task rejected or failed more than its retry budget (its own ``max_retries``, from its plan,
else ``max_task_retries``) moves to ``failed/``. A task is claimed only when every task it
depends on is in ``completed/`` (:mod:`phasegate.workflow.dependencies`).
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from phasegate.errors import StoreError, UsageError
from phasegate.model.workflow import (
    Priority,
    TaskHistory,
    TaskRecord,
    TaskStatus,
    TaskTransition,
)
from phasegate.store import Store
from phasegate.workflow.dependencies import (
    claim_refusal,
    unknown_dependencies,
    unmet_dependencies,
)

__all__ = ["CLAIMABLE", "HandoffQueue", "TaskFile", "parse_priority"]

#: Folders a worker claims from, in this order of preference at equal priority and age.
CLAIMABLE = (TaskStatus.QUEUE, TaskStatus.REJECTED)

_TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_FILE = re.compile(
    r"^(CRITICAL|HIGH|MEDIUM|LOW)_(\d{8}T\d{12}Z)_([A-Za-z0-9][A-Za-z0-9_-]*)\.json$"
)


def parse_priority(value: str) -> Priority:
    """The priority named by ``value`` (any case), or a usage error listing the allowed ones."""
    try:
        return Priority(value.upper())
    except ValueError:
        allowed = ", ".join(p.value for p in Priority)
        raise UsageError(f"unknown priority {value!r}; allowed: {allowed}") from None


@dataclass(frozen=True)
class TaskFile:
    """A task file found in one of the folders."""

    path: Path
    status: TaskStatus
    priority: Priority
    stamp: str
    task_id: str

    @property
    def order(self) -> tuple[int, str, str]:
        """Pickup order: priority, then age, then id."""
        return (self.priority.rank, self.stamp, self.task_id)


class HandoffQueue:
    """One queue folder."""

    def __init__(
        self, root: Path, *, max_retries: int = 3, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.clock = clock or _now
        self.store = Store(self.root)
        self.max_retries = max_retries

    # -- adding ----------------------------------------------------------------------------

    def add(
        self,
        title: str,
        *,
        priority: Priority = Priority.MEDIUM,
        task_id: str | None = None,
        parent: str | None = None,
        body: str = "",
        by: str = "",
        depends_on: Sequence[str] = (),
        instance: str | None = None,
        plan_task: str | None = None,
        max_retries: int | None = None,
        estimate_min: float | None = None,
    ) -> TaskRecord:
        """Put a new task in ``queue/``; the tasks it depends on must exist already."""
        if not title.strip():
            raise UsageError("a task needs a title")
        new_id = task_id or f"t-{secrets.token_hex(4)}"
        if not _TASK_ID.match(new_id):
            raise UsageError(
                f"task id {new_id!r} is not allowed: use 1 to 64 letters, digits, '-' and '_', "
                "starting with a letter or digit"
            )
        if depends_on:
            problem = unknown_dependencies(depends_on, list(self.statuses()), new_id)
            if problem:
                raise UsageError(problem)
        now = self.clock()
        task = TaskRecord(
            id=new_id, title=title, priority=priority, created_at=now, parent=parent, body=body,
            depends_on=list(depends_on), instance=instance, plan_task=plan_task,
            max_retries=max_retries, estimate_min=estimate_min,
        )  # fmt: skip
        with self.store.lock(f"task-{new_id}"):
            existing = self.find(new_id, missing_ok=True)
            if existing is not None:
                raise UsageError(
                    f"a task {new_id!r} exists already, in {existing.status.value}/ "
                    f"({existing.path}); choose another --id"
                )
            name = f"{priority.value}_{now.strftime('%Y%m%dT%H%M%S%f')}Z_{new_id}.json"
            self.store.write_model(f"{TaskStatus.QUEUE.value}/{name}", task)
            self._history(task, None, TaskStatus.QUEUE, by, "added")
        return task

    # -- claiming --------------------------------------------------------------------------

    def claim(self, worker: str, task_id: str | None = None) -> TaskRecord | None:
        """Claim the first task in pickup order whose dependencies are done (or ``task_id``).

        ``None`` when no task is ready; a named task that is not claimable, or whose
        dependencies are not all completed, is a usage error saying why.
        """
        if not worker.strip():
            raise UsageError("a claim needs the worker's name (--worker)")
        running = self.store.path(TaskStatus.RUNNING.value)
        running.mkdir(parents=True, exist_ok=True)
        candidates = self._candidates(task_id)
        where: dict[str, TaskStatus] | None = None
        for candidate in candidates:
            waiting_task = self._peek(candidate)
            if waiting_task is None:
                continue  # another worker claimed it meanwhile
            if waiting_task.depends_on:
                where = self.statuses() if where is None else where
                unmet = unmet_dependencies(waiting_task, where)
                if unmet and task_id is not None:
                    raise UsageError(claim_refusal(waiting_task, unmet))
                if unmet:
                    continue
            target = running / candidate.path.name
            try:
                os.rename(candidate.path, target)
            except FileNotFoundError:
                continue  # another worker claimed it first
            task = self._read(target)
            task = task.model_copy(update={"claimed_by": worker, "claimed_at": self.clock()})
            self.store.write_model(target.relative_to(self.root), task)
            self._history(task, candidate.status, TaskStatus.RUNNING, worker, "claimed")
            return task
        return None

    def _candidates(self, task_id: str | None) -> list[TaskFile]:
        """The claimable tasks in pickup order (only ``task_id``'s, if given, or a refusal)."""
        candidates = self._claimable()
        if task_id is None:
            return candidates
        candidates = [c for c in candidates if c.task_id == task_id]
        if not candidates:
            found = self.find(task_id)
            folder = found.status.value if found else "?"
            raise UsageError(
                f"task {task_id} is in {folder}/; a task is claimed from queue/ or rejected/"
            )
        return candidates

    def blocked(self) -> list[tuple[TaskRecord, list[tuple[str, TaskStatus | None]]]]:
        """Claimable tasks held back by dependencies not completed, with those dependencies."""
        where = self.statuses()
        held = []
        for candidate in self._claimable():
            task = self._peek(candidate)
            waiting = unmet_dependencies(task, where) if task is not None else []
            if task is not None and waiting:
                held.append((task, waiting))
        return held

    def statuses(self) -> dict[str, TaskStatus]:
        """Where every task is: its id -> its folder."""
        return {found.task_id: status for status in TaskStatus for found in self._files(status)}

    # -- moving ----------------------------------------------------------------------------

    def submit(self, task_id: str, *, by: str, note: str = "") -> TaskRecord:
        """running -> review."""
        return self._move(task_id, {TaskStatus.RUNNING}, TaskStatus.REVIEW, by, note or "submitted")

    def complete(self, task_id: str, *, by: str, note: str = "") -> TaskRecord:
        """review (or running) -> completed."""
        return self._move(
            task_id,
            {TaskStatus.REVIEW, TaskStatus.RUNNING},
            TaskStatus.COMPLETED,
            by,
            note or "completed",
        )

    def reject(self, task_id: str, *, by: str, feedback: str) -> TaskRecord:
        """review -> rejected with feedback (one retry spent), or failed past the limit."""
        if not feedback.strip():
            raise UsageError(f"rejecting {task_id} needs feedback (--feedback)")
        return self._retry(task_id, {TaskStatus.REVIEW}, TaskStatus.REJECTED, by, feedback)

    def fail(self, task_id: str, *, by: str, error: str) -> TaskRecord:
        """running -> queue again (one retry spent), or failed past the limit."""
        if not error.strip():
            raise UsageError(f"failing {task_id} needs the error (--error)")
        return self._retry(task_id, {TaskStatus.RUNNING}, TaskStatus.QUEUE, by, error)

    # -- reading ---------------------------------------------------------------------------

    def find(self, task_id: str, *, missing_ok: bool = False) -> TaskFile | None:
        """Where a task is; a usage error if nowhere (unless ``missing_ok``)."""
        for status in TaskStatus:
            for found in self._files(status):
                if found.task_id == task_id:
                    return found
        if missing_ok:
            return None
        raise UsageError(f"no task {task_id!r} in {self.root}")

    def show(self, task_id: str) -> tuple[TaskRecord, TaskStatus, TaskHistory | None]:
        """A task, its status and its history."""
        found = self.find(task_id)
        if found is None:  # pragma: no cover - find raises
            raise UsageError(f"no task {task_id!r}")
        history = self.store.read_model(f"history/{task_id}.json", TaskHistory)
        return self._read(found.path), found.status, history

    def tasks(self, status: TaskStatus | None = None) -> list[tuple[TaskStatus, TaskRecord]]:
        """Every task (in one status, or all), in pickup order within each folder."""
        result: list[tuple[TaskStatus, TaskRecord]] = []
        for folder in [status] if status else list(TaskStatus):
            for found in sorted(self._files(folder), key=lambda f: f.order):
                result.append((folder, self._read(found.path)))
        return result

    def update_history(self, task_id: str, change: Callable[[TaskHistory], None]) -> TaskHistory:
        """Change a task's history under its lock (a heartbeat, a gate result)."""
        relpath = f"history/{task_id}.json"
        with self.store.lock(f"task-history-{task_id}"):
            history = self.store.read_model(relpath, TaskHistory)
            if history is None:
                raise UsageError(f"task {task_id} has no history in {self.root / 'history'}")
            change(history)
            self.store.write_model(relpath, history)
        return history

    # -- internals -------------------------------------------------------------------------

    def _claimable(self) -> list[TaskFile]:
        found = [f for status in CLAIMABLE for f in self._files(status)]
        return sorted(found, key=lambda f: (*f.order, CLAIMABLE.index(f.status)))

    def _peek(self, candidate: TaskFile) -> TaskRecord | None:
        """A claimable task's record; ``None`` if it is gone (claimed by another worker)."""
        return self.store.read_model(candidate.path.relative_to(self.root), TaskRecord)

    def _files(self, status: TaskStatus) -> list[TaskFile]:
        folder = self.root / status.value
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return []
        files = []
        for name in names:
            match = _FILE.match(name)
            if match:
                files.append(
                    TaskFile(
                        folder / name,
                        status,
                        Priority(match.group(1)),
                        match.group(2),
                        match.group(3),
                    )
                )
        return files

    def _read(self, path: Path) -> TaskRecord:
        task = self.store.read_model(path.relative_to(self.root), TaskRecord)
        if task is None:
            raise StoreError(
                f"the task file {path} could not be read and was moved aside (see the "
                "warning above); nothing was overwritten"
            )
        return task

    def _move(
        self,
        task_id: str,
        allowed: set[TaskStatus],
        to: TaskStatus,
        by: str,
        note: str,
        **changes: object,
    ) -> TaskRecord:
        found = self.find(task_id)
        if found is None:  # pragma: no cover - find raises
            raise UsageError(f"no task {task_id!r}")
        if found.status not in allowed:
            names = " or ".join(sorted(s.value for s in allowed))
            raise UsageError(
                f"task {task_id} is in {found.status.value}/; this move needs it in {names}/"
            )
        target = self.root / to.value / found.path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(found.path, target)
        except FileNotFoundError:
            raise UsageError(
                f"task {task_id} was moved by someone else meanwhile; run `phasegate task show "
                f"{task_id}`"
            ) from None
        task = self._read(target)
        if changes:
            task = task.model_copy(update=changes)
            self.store.write_model(target.relative_to(self.root), task)
        self._history(task, found.status, to, by, note)
        return task

    def _retry(
        self, task_id: str, allowed: set[TaskStatus], to: TaskStatus, by: str, reason: str
    ) -> TaskRecord:
        found = self.find(task_id)
        if found is None:  # pragma: no cover - find raises
            raise UsageError(f"no task {task_id!r}")
        task = self._read(found.path)
        retries = task.retries + 1
        limit = self.max_retries if task.max_retries is None else task.max_retries
        if retries > limit:
            to = TaskStatus.FAILED
            reason = f"{reason} (retry {retries} > {limit}: failed, for a person)"
        return self._move(
            task_id, allowed, to, by, reason, retries=retries, feedback=reason, claimed_by=None
        )

    def _history(
        self,
        task: TaskRecord,
        from_status: TaskStatus | None,
        to: TaskStatus,
        by: str,
        note: str,
    ) -> None:
        relpath = f"history/{task.id}.json"
        with self.store.lock(f"task-history-{task.id}"):
            history = self.store.read_model(relpath, TaskHistory) or TaskHistory(
                id=task.id, parent=task.parent, status=to
            )
            history.transitions.append(
                TaskTransition(
                    at=self.clock(), from_status=from_status, to_status=to, by=by, note=note
                )
            )
            history.status = to
            history.retries = task.retries
            self.store.write_model(relpath, history)


def _now() -> datetime:
    return datetime.now(timezone.utc)
