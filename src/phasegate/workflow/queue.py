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

Every transition (claim, review, complete, reject, fail) goes the same way, with no lock to
leave behind if a worker dies:

1. the worker *takes* the task: it renames the file from its folder into ``.transit/`` under a
   name of its own. ``os.rename`` of one source succeeds for exactly one caller; every other
   caller finds the source gone (a claim tries the next task, a move says someone else moved
   it), so no two workers ever hold the same task;
2. it appends the transition to the task's history while it holds the task, so the history
   lists transitions in the order they happened;
3. it writes the updated record (claimant, retries, feedback) over its private copy, whole,
   and *lands* the task: one rename of that complete file into the destination folder.

So a task file in any status folder is always complete and final: a task sent back to
``queue/`` by ``fail`` is claimable only once it says how many retries it spent, and never
while it is still being rewritten. A task is in exactly one folder, or in ``.transit/`` while a
worker holds it (a worker killed in between leaves it there, not lost). Before a task is taken
it is read: a file of a newer major schema is refused (:class:`SchemaVersionError`) and left
where it is; an unreadable one is moved aside where it is.

A task rejected or failed more than its retry budget (its own ``max_retries``, from its plan,
else ``max_task_retries``) moves to ``failed/``. A task is claimed only when every task it
depends on is in ``completed/`` (:mod:`phasegate.workflow.dependencies`).
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, overload

from phasegate.errors import SchemaVersionError, StoreError, UsageError
from phasegate.model.workflow import (
    Priority,
    TaskHistory,
    TaskRecord,
    TaskStatus,
    TaskTransition,
)
from phasegate.store import Store, write_atomically
from phasegate.versioning import check_version
from phasegate.workflow.dependencies import (
    claim_refusal,
    unknown_dependencies,
    unmet_dependencies,
)

__all__ = ["CLAIMABLE", "TASK_ID", "TRANSIT", "HandoffQueue", "TaskFile", "parse_priority"]

#: The folder a task is in while one worker rewrites it between two folders.
TRANSIT = ".transit"

#: Folders a worker claims from, in this order of preference at equal priority and age.
CLAIMABLE = (TaskStatus.QUEUE, TaskStatus.REJECTED)

#: What a task id may look like (it becomes part of file names).
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_FILE = re.compile(
    r"^(CRITICAL|HIGH|MEDIUM|LOW)_(\d{8}T\d{12}Z)_([A-Za-z0-9][A-Za-z0-9_-]*)\.json$"
)
_HELD = re.compile(r"^(?P<name>.+\.json)\.held-[A-Za-z0-9-]+$")


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
        self.store = Store(self.root)
        self.max_retries = max_retries
        self.clock = clock or _now

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
        new_id = self._vetted_id(title, task_id, depends_on)
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
            # The history first: once the file is in queue/, a worker may claim it at once.
            self._history(task, None, TaskStatus.QUEUE, by, "added")
            self.store.write_model(f"{TaskStatus.QUEUE.value}/{name}", task)
        return task

    def _vetted_id(self, title: str, task_id: str | None, depends_on: Sequence[str]) -> str:
        """The new task's id (``task_id``, or a fresh one), once its title, its id and its
        dependencies are known to be allowed; a UsageError saying what is not."""
        if not title.strip():
            raise UsageError("a task needs a title")
        new_id = task_id or f"t-{secrets.token_hex(4)}"
        if not TASK_ID.match(new_id):
            raise UsageError(
                f"task id {new_id!r} is not allowed: use 1 to 64 letters, digits, '-' and '_', "
                "starting with a letter or digit"
            )
        if depends_on:
            problem = unknown_dependencies(depends_on, list(self.statuses()), new_id)
            if problem:
                raise UsageError(problem)
        return new_id

    # -- claiming --------------------------------------------------------------------------

    def claim(self, worker: str, task_id: str | None = None) -> TaskRecord | None:
        """Claim the first task in pickup order whose dependencies are done (or ``task_id``).

        ``None`` when no task is ready; a named task that is not claimable, or whose
        dependencies are not all completed, is a usage error saying why.
        """
        if not worker.strip():
            raise UsageError("a claim needs the worker's name (--worker)")
        where: dict[str, TaskStatus] | None = None
        for candidate in self._candidates(task_id):
            self._peek(candidate)
            waiting_task = self._waiting(candidate)
            if waiting_task is None:
                continue  # another worker claimed it meanwhile
            if waiting_task.depends_on:
                where = self.statuses() if where is None else where
                if not _dependencies_met(waiting_task, where, named=task_id is not None):
                    continue
            held = self._take(candidate)
            if held is not None:  # else another worker claimed it first
                return self._hand_to(worker, held, candidate)
        return None

    def _hand_to(self, worker: str, held: Path, candidate: TaskFile) -> TaskRecord:
        """Land a taken task in ``running/``, claimed by ``worker``."""
        task = self._read_held(held, candidate).model_copy(
            update={"claimed_by": worker, "claimed_at": self.clock()}
        )
        self._history(task, candidate.status, TaskStatus.RUNNING, worker, "claimed")
        self._land(held, task, TaskStatus.RUNNING, candidate.path.name)
        return task

    def _candidates(self, task_id: str | None) -> list[TaskFile]:
        """The claimable tasks in pickup order (only ``task_id``'s, if given, or a refusal)."""
        candidates = self._claimable()
        if task_id is None:
            return candidates
        candidates = [c for c in candidates if c.task_id == task_id]
        if not candidates:
            folder = self.find(task_id).status.value
            raise UsageError(
                f"task {task_id} is in {folder}/; a task is claimed from queue/ or rejected/"
            )
        return candidates

    def blocked(self) -> list[tuple[TaskRecord, list[tuple[str, TaskStatus | None]]]]:
        """Claimable tasks held back by dependencies not completed, with those dependencies."""
        where = self.statuses()
        held = []
        for candidate in self._claimable():
            task = self._waiting(candidate)
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
        return self._move(
            task_id, {TaskStatus.REVIEW}, TaskStatus.REJECTED, by, feedback, retry=True
        )

    def fail(self, task_id: str, *, by: str, error: str) -> TaskRecord:
        """running -> queue again (one retry spent), or failed past the limit."""
        if not error.strip():
            raise UsageError(f"failing {task_id} needs the error (--error)")
        return self._move(task_id, {TaskStatus.RUNNING}, TaskStatus.QUEUE, by, error, retry=True)

    # -- reading ---------------------------------------------------------------------------

    @overload
    def find(self, task_id: str, *, missing_ok: Literal[False] = False) -> TaskFile: ...

    @overload
    def find(self, task_id: str, *, missing_ok: bool) -> TaskFile | None: ...

    def find(self, task_id: str, *, missing_ok: bool = False) -> TaskFile | None:
        """Where a task is; a usage error if nowhere (unless ``missing_ok``)."""
        for status in TaskStatus:
            for found in self._files(status):
                if found.task_id == task_id:
                    return found
        if self._in_transit(task_id):
            raise UsageError(
                f"task {task_id} is being moved by another worker right now (it is in "
                f"{self.root / TRANSIT}); try again. A worker killed while moving it leaves "
                "it there"
            )
        if missing_ok:
            return None
        raise UsageError(f"no task {task_id!r} in {self.root}")

    def show(self, task_id: str) -> tuple[TaskRecord, TaskStatus, TaskHistory | None]:
        """A task, its status and its history."""
        found = self.find(task_id)
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

    def _peek(self, found: TaskFile) -> None:
        """Refuse a task of a newer schema before anything moves it (it is left in place)."""
        try:
            data = json.loads(found.path.read_bytes())
        except FileNotFoundError:
            return  # taken meanwhile: the take finds out
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            self._read(found.path)  # moves it aside where it is, and says why
            return
        check_version(found.path, data)

    def _waiting(self, candidate: TaskFile) -> TaskRecord | None:
        """A claimable task's record; ``None`` if it is gone (claimed by another worker)."""
        return self.store.read_model(candidate.path.relative_to(self.root), TaskRecord)

    def _take(self, found: TaskFile) -> Path | None:
        """Move the task file into :data:`TRANSIT` under a private name; None if it is gone."""
        transit = self.root / TRANSIT
        transit.mkdir(parents=True, exist_ok=True)
        held = transit / f"{found.path.name}.held-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            os.rename(found.path, held)
        except FileNotFoundError:
            return None
        return held

    def _read_held(self, held: Path, found: TaskFile) -> TaskRecord:
        """The record of a taken task; on any problem it goes back where it was taken from.

        A record that names another task than its file does is set aside there, as corrupt.
        """
        try:
            data = json.loads(held.read_bytes())
            check_version(held, data)
            task = TaskRecord.model_validate(data)
        except (OSError, ValueError, UnicodeDecodeError, SchemaVersionError):
            os.rename(held, found.path)
            self._read(found.path)  # raises, after moving a corrupt file aside in place
            raise  # it read well just now: the error above stands
        if task.id != found.task_id:
            os.rename(held, found.path)
            aside = self.store.move_aside(found.path, f"it holds task {task.id!r}")
            raise StoreError(
                f"the task file {found.path.name} holds the task {task.id!r}, not "
                f"{found.task_id!r}; it was moved aside as {aside.name}"
            )
        return task

    def _land(self, held: Path, task: TaskRecord, to: TaskStatus, name: str) -> Path:
        """Write the complete record over the private copy, then rename it into ``to``."""
        try:
            write_atomically(held, (task.model_dump_json(indent=2) + "\n").encode("utf-8"))
            target = self.root / to.value / name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(held, target)
        except OSError as exc:
            raise StoreError(
                f"task {task.id} could not be moved to {to.value}/: {exc.strerror or exc}; it "
                f"is kept as {held}"
            ) from exc
        return target

    def _in_transit(self, task_id: str) -> bool:
        try:
            names = os.listdir(self.root / TRANSIT)
        except FileNotFoundError:
            return False
        for name in names:
            held = _HELD.match(name)
            found = _FILE.match(held.group("name")) if held else None
            if found is not None and found.group(3) == task_id:
                return True
        return False

    def _move(
        self,
        task_id: str,
        allowed: set[TaskStatus],
        to: TaskStatus,
        by: str,
        note: str,
        *,
        retry: bool = False,
    ) -> TaskRecord:
        """Take the task from an allowed folder, update it, and land it in ``to``.

        With ``retry``, one retry is spent: past the limit the task lands in ``failed/``, and
        ``note`` becomes its feedback.
        """
        found = self.find(task_id)
        if found.status not in allowed:
            names = " or ".join(sorted(s.value for s in allowed))
            raise UsageError(
                f"task {task_id} is in {found.status.value}/; this move needs it in {names}/"
            )
        self._peek(found)
        held = self._take(found)
        if held is None:
            raise UsageError(
                f"task {task_id} was moved by someone else meanwhile; run `phasegate task show "
                f"{task_id}`"
            )
        task = self._read_held(held, found)
        if retry:
            task, to, note = self._spend_retry(task, to, note)
        # Recorded while the task is held: no other transition of it can come in between, so
        # the history lists the transitions in the order they happened.
        self._history(task, found.status, to, by, note)
        self._land(held, task, to, found.path.name)
        return task

    def _spend_retry(
        self, task: TaskRecord, to: TaskStatus, note: str
    ) -> tuple[TaskRecord, TaskStatus, str]:
        """One retry spent: past the task's limit it goes to ``failed/`` instead of ``to``."""
        retries = task.retries + 1
        limit = self.max_retries if task.max_retries is None else task.max_retries
        if retries > limit:
            to = TaskStatus.FAILED
            note = f"{note} (retry {retries} > {limit}: failed, for a person)"
        spent = task.model_copy(update={"retries": retries, "feedback": note, "claimed_by": None})
        return spent, to, note

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


def _dependencies_met(task: TaskRecord, where: dict[str, TaskStatus], *, named: bool) -> bool:
    """Whether every dependency is done; a task claimed by name is refused, saying which not."""
    unmet = unmet_dependencies(task, where)
    if unmet and named:
        raise UsageError(claim_refusal(task, unmet))
    return not unmet
