"""The handoff's inboxes: JSON messages between the supervisor and the workers.

::

    comms/worker/inbox/        TASK_ASSIGNED, TASK_REJECTED, TASK_APPROVED
    comms/supervisor/inbox/    TASK_SUBMITTED, CLARIFICATION_REQUEST
    comms/<box>/read/          messages taken out of the inbox

Each message is one file, ``<time>_<number>_<TYPE>_<task>.json`` (a :class:`HandoffMessage`),
written atomically, so a listing sorts by time and a reader never sees half a message. Taking a
message renames it into ``read/``; of two readers taking the same message, one gets it.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from phasegate.errors import StoreError, UsageError
from phasegate.model.workflow import MESSAGE_TYPES, HandoffMessage, MessageType
from phasegate.store import Store

__all__ = ["BOX_OF", "Box", "Inbox"]

Box = Literal["worker", "supervisor"]

#: The inbox each message type goes to.
BOX_OF: dict[str, Box] = {
    "TASK_ASSIGNED": "worker",
    "TASK_REJECTED": "worker",
    "TASK_APPROVED": "worker",
    "TASK_SUBMITTED": "supervisor",
    "CLARIFICATION_REQUEST": "supervisor",
}

#: What a message id may look like: a file name of the inbox without ``.json``, no path.
_MESSAGE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class Inbox:
    """The two inboxes of one handoff folder."""

    def __init__(self, root: Path) -> None:
        self.store = Store(Path(os.path.abspath(root)))

    def send(
        self,
        kind: MessageType,
        *,
        task: str,
        sender: str,
        to: str = "",
        body: str = "",
        now: datetime | None = None,
    ) -> HandoffMessage:
        """Write a message into the inbox its type goes to."""
        if kind not in MESSAGE_TYPES:
            raise UsageError(f"unknown message type {kind!r}; allowed: {', '.join(MESSAGE_TYPES)}")
        at = now or datetime.now(timezone.utc)
        box = BOX_OF[kind]
        # Time, then the box's message count, so that messages of one instant keep their order.
        number = sum(len(os.listdir(folder)) for folder in self._folders(box))
        message_id = f"{at.strftime('%Y%m%dT%H%M%S%f')}Z_{number:06d}_{kind}_{task}"
        message = HandoffMessage(
            id=message_id, type=kind, box=box, task=task, sender=sender, to=to, at=at, body=body
        )
        self.store.write_model(f"comms/{box}/inbox/{message_id}.json", message)
        return message

    def _folders(self, box: Box) -> list[Path]:
        folders = [self.store.path(f"comms/{box}/inbox"), self.store.path(f"comms/{box}/read")]
        return [folder for folder in folders if folder.is_dir()]

    def messages(self, box: Box, *, read: bool = False) -> list[HandoffMessage]:
        """The messages of a box, oldest first (``read``: those taken out already)."""
        folder = self.store.path(f"comms/{box}/{'read' if read else 'inbox'}")
        if not folder.is_dir():
            return []
        found = []
        for path in sorted(folder.glob("*.json")):
            message = self.store.read_model(path.relative_to(self.store.root), HandoffMessage)
            if message is not None:
                found.append(message)
        return found

    def take(self, box: Box, message_id: str) -> HandoffMessage:
        """Take a message out of the inbox (it moves to ``read/``)."""
        if not _MESSAGE_ID.match(message_id):
            raise UsageError(
                f"message id {message_id!r} is not allowed: a message id is made of letters, "
                f"digits, '-' and '_', as `phasegate task inbox {box}` lists it"
            )
        source = self.store.path(f"comms/{box}/inbox/{message_id}.json")
        target = self.store.path(f"comms/{box}/read/{message_id}.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(source, target)
        except FileNotFoundError:
            raise UsageError(
                f"no message {message_id!r} in the {box} inbox ({source.parent}); it may have "
                "been taken already"
            ) from None
        except OSError as exc:
            raise StoreError(f"cannot move {source} to {target}: {exc.strerror or exc}") from exc
        message = self.store.read_model(target.relative_to(self.store.root), HandoffMessage)
        if message is None:
            raise StoreError(f"the message {target} could not be read and was moved aside")
        return message
