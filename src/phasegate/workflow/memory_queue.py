"""Updates queued during a phase and flushed to the memory store when the phase completes.

:func:`flush_memory_queue` writes every queued update to the store and returns them, so a
caller may roll back by handing them to :func:`restore_memory_queue`, which puts them back in
front of anything queued since, in their original order. When there is no store, or the store
fails, the queue is left as it was and :class:`MemoryFlushError` says why; the coordinator then
calls the final sync hook with ``None`` so that observers are not left waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from phasegate.errors import PhasegateError
from phasegate.model.base import Model
from phasegate.model.workflow import MemoryUpdate
from phasegate.store import Store

__all__ = [
    "MEMORY_FILE",
    "JsonlMemoryStore",
    "MemoryFlushError",
    "MemoryLine",
    "MemoryStore",
    "flush_memory_queue",
    "restore_memory_queue",
]

#: Where flushed updates go, inside the artifacts folder.
MEMORY_FILE = "workflows/memory.jsonl"


class MemoryLine(Model):
    """One line of the memory store."""

    instance_id: str
    update: MemoryUpdate


class MemoryFlushError(PhasegateError):
    """The queued updates could not be written; they are still queued."""


class MemoryStore(Protocol):
    """Where flushed updates are kept."""

    def write(self, instance_id: str, updates: Sequence[MemoryUpdate]) -> None:
        """Keep ``updates`` (all or none); raise on failure."""


class JsonlMemoryStore:
    """Flushed updates as lines of ``.phasegate/workflows/memory.jsonl``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def write(self, instance_id: str, updates: Sequence[MemoryUpdate]) -> None:
        """Append the updates, tagged with their instance, in one locked append."""
        self._store.append_jsonl(
            MEMORY_FILE, [MemoryLine(instance_id=instance_id, update=update) for update in updates]
        )


def flush_memory_queue(
    queue: list[MemoryUpdate], store: MemoryStore | None, instance_id: str
) -> list[MemoryUpdate]:
    """Write every queued update to ``store``; return them (the queue is left empty).

    Raises :class:`MemoryFlushError` with the queue unchanged when there is no store or the
    store fails.
    """
    items = list(queue)
    queue.clear()
    if not items:
        return []
    if store is None:
        restore_memory_queue(queue, items)
        raise MemoryFlushError(
            f"no memory store is configured ([tool.phasegate.workflow] memory_store = false); "
            f"{len(items)} update(s) stay queued"
        )
    try:
        store.write(instance_id, items)
    except (PhasegateError, OSError) as exc:
        restore_memory_queue(queue, items)
        raise MemoryFlushError(
            f"the memory store failed ({exc}); {len(items)} update(s) stay queued"
        ) from exc
    return items


def restore_memory_queue(queue: list[MemoryUpdate], items: Sequence[MemoryUpdate]) -> None:
    """Put ``items`` back in front of the queue, in their original order."""
    queue[:0] = list(items)
