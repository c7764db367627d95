"""Progress events for live displays: ``phasegate gate run`` tails them from a file.

When ``PHASEGATE_PROGRESS_FILE`` is set, the process running the checks (pytest, or the child
that runs the static checks) appends one JSON line per event to it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from phasegate.gates.runner import ProgressEvent

__all__ = ["PROGRESS_ENV", "progress_writer", "progress_writer_from_environment"]

#: The environment variable naming the file progress events are appended to.
PROGRESS_ENV = "PHASEGATE_PROGRESS_FILE"


def progress_writer(path: Path) -> Callable[[ProgressEvent], None]:
    """A callback that appends each event to ``path`` as one JSON line."""

    def write(event: ProgressEvent) -> None:
        line = json.dumps(
            {
                "check": event.check,
                "state": event.state,
                "status": event.status,
                "duration_s": event.duration_s,
                "cached": event.cached,
            }
        )
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    return write


def progress_writer_from_environment() -> Callable[[ProgressEvent], None] | None:
    """The writer for ``PHASEGATE_PROGRESS_FILE``, when it is set."""
    target = os.environ.get(PROGRESS_ENV)
    return progress_writer(Path(target)) if target else None
