"""Instance files: ``.phasegate/workflows/<id>.json``, one :class:`WorkflowInstance` each.

Every change is a read-modify-write under the instance's lock (``workflow-<id>``), written
atomically through the store, so two commands acting on one instance at once never lose each
other's change. A file that cannot be read is moved aside (``<id>.json.corrupt-<time>``),
never overwritten, and the command stops with an error naming both files.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import ValidationError

from phasegate.errors import StoreError, UsageError
from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.store import Store, first_error
from phasegate.versioning import check_version

__all__ = [
    "INSTANCE_ID",
    "WORKFLOWS_DIR",
    "CorruptInstanceError",
    "InstanceStore",
    "ListedInstance",
    "check_id",
    "is_stale",
]

#: The folder of instance files, inside the artifacts folder.
WORKFLOWS_DIR = "workflows"

#: What an instance id may look like (it becomes a file name and part of event names).
INSTANCE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class CorruptInstanceError(StoreError):
    """An instance file could not be read; it was moved aside."""


@dataclass(frozen=True)
class ListedInstance:
    """An instance file, read, or the error that kept it from being read."""

    path: Path
    instance: WorkflowInstance | None
    error: str = ""


def is_stale(inst: WorkflowInstance, now: datetime, stale_after_h: float) -> bool:
    """Whether an unfinished instance has seen no activity for ``stale_after_h`` hours."""
    if inst.state in (InstanceState.COMPLETE, InstanceState.FAILED):
        return False
    return now - inst.updated_at > timedelta(hours=stale_after_h)


class InstanceStore:
    """The instance files of one artifacts folder."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def relpath(self, instance_id: str) -> str:
        """The file of an instance, relative to the artifacts folder."""
        check_id(instance_id)
        return f"{WORKFLOWS_DIR}/{instance_id}.json"

    def exists(self, instance_id: str) -> bool:
        """Whether the instance has a file."""
        return self.store.path(self.relpath(instance_id)).exists()

    def load(self, instance_id: str) -> WorkflowInstance:
        """Read an instance; a usage error when there is none, a clear one when corrupt."""
        path = self.store.path(self.relpath(instance_id))
        raw = self._read(path, instance_id)
        try:
            data = json.loads(raw)
            check_version(path, data)  # a newer major is refused and left as it is
            inst = WorkflowInstance.model_validate(data)
        except (ValueError, UnicodeDecodeError) as exc:
            why = _why(exc)
            aside = self.store.move_aside(path, why)
            raise CorruptInstanceError(
                f"{path} could not be read ({why}); it was moved aside to {aside.name}, "
                "untouched, so nothing is lost. Repair it and move it back, or start a new "
                "instance"
            ) from exc
        if inst.id != instance_id:
            raise CorruptInstanceError(
                f"{path} holds the instance {inst.id!r}, not {instance_id!r}; rename the file "
                "back to its id"
            )
        return inst

    def _read(self, path: Path, instance_id: str) -> bytes:
        """An instance file's bytes; a usage error naming the known ones when it is missing."""
        try:
            return path.read_bytes()
        except FileNotFoundError:
            known = ", ".join(self.ids()[:20]) or "none yet"
            raise UsageError(
                f"no workflow instance {instance_id!r} in {path.parent}; known: {known}"
            ) from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from exc

    def create(self, inst: WorkflowInstance) -> Path:
        """Write a new instance; refuse an id already taken."""
        with self.store.lock(f"workflow-{inst.id}"):
            if self.exists(inst.id):
                raise UsageError(
                    f"a workflow instance {inst.id!r} exists already "
                    f"({self.store.path(self.relpath(inst.id))}); choose another --id"
                )
            return self.store.write_model(self.relpath(inst.id), inst)

    @contextlib.contextmanager
    def editing(self, instance_id: str) -> Iterator[WorkflowInstance]:
        """Hold the instance's lock, hand it out, and write it back if the block succeeds."""
        check_id(instance_id)  # before the lock, whose file is named by it
        with self.store.lock(f"workflow-{instance_id}"):
            inst = self.load(instance_id)
            yield inst
            self.save(inst)

    def save(self, inst: WorkflowInstance) -> Path:
        """Write an instance atomically (call under its lock)."""
        return self.store.write_model(self.relpath(inst.id), inst)

    def ids(self) -> list[str]:
        """The ids of every instance file, sorted."""
        folder = self.store.path(WORKFLOWS_DIR)
        return sorted(path.stem for path in folder.glob("*.json")) if folder.is_dir() else []

    def read_all(self) -> list[ListedInstance]:
        """Every instance; a corrupt file is moved aside and listed with its error."""
        listed: list[ListedInstance] = []
        for instance_id in self.ids():
            path = self.store.path(self.relpath(instance_id))
            try:
                listed.append(ListedInstance(path, self.load(instance_id)))
            except CorruptInstanceError as exc:
                listed.append(ListedInstance(path, None, str(exc)))
        return listed


def check_id(instance_id: str) -> str:
    """Refuse an id that cannot be a file name and an event-name part."""
    if not INSTANCE_ID.match(instance_id):
        raise UsageError(
            f"instance id {instance_id!r} is not allowed: use 1 to 64 letters, digits, '-' "
            "and '_', starting with a letter or digit"
        )
    return instance_id


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return f"it does not match the schema ({first_error(exc)})"
    return f"it is not valid JSON ({exc})"
