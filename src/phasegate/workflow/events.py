"""Events ``workflow.{name}.{id}.{event}``: appended to ``events.jsonl`` and handed to observers.

Observers are phasegate plugins implementing ``phasegate_on_event(event)`` (see
:mod:`phasegate.hookspecs`), registered under the ``phasegate`` entry-point group or listed in
``plugins`` of ``[tool.phasegate]``. The file is written first, so an observer that raises
cannot lose an event; its error is reported as a store notice, and the action stands.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import pluggy

from phasegate.model.workflow import WorkflowEvent, WorkflowInstance
from phasegate.store import Store
from phasegate.workflow.machine import Emitted

__all__ = ["EVENTS_FILE", "EventLog", "event_name"]

#: Where events are appended, inside the artifacts folder.
EVENTS_FILE = "events.jsonl"


def event_name(workflow: str, instance_id: str, event: str) -> str:
    """``workflow.{workflow}.{instance_id}.{event}``."""
    return f"workflow.{workflow}.{instance_id}.{event}"


class EventLog:
    """Writes events and tells the observers."""

    def __init__(self, store: Store, extensions: pluggy.PluginManager | None) -> None:
        self._store = store
        self._extensions = extensions

    def emit(
        self,
        inst: WorkflowInstance,
        emitted: Iterable[Emitted],
        now: datetime,
        by: str = "",
    ) -> list[WorkflowEvent]:
        """Append one event per item (one locked append), then call the observers."""
        events = [
            WorkflowEvent(
                name=event_name(inst.workflow, inst.id, item.event),
                workflow=inst.workflow,
                instance_id=inst.id,
                event=item.event,
                phase=inst.phase,
                state=inst.state,
                at=now,
                by=by,
                data=item.data,
            )
            for item in emitted
        ]
        if not events:
            return events
        self._store.append_jsonl(EVENTS_FILE, list(events))
        if self._extensions is not None:
            hook = self._extensions.hook.phasegate_on_event
            for event in events:
                try:
                    hook(event=event)
                except Exception as exc:  # noqa: BLE001 - an observer must not undo an action
                    self._store.notice(
                        f"an observer of {event.name} raised {type(exc).__name__}: {exc}; "
                        f"the event is in {EVENTS_FILE}"
                    )
        return events
