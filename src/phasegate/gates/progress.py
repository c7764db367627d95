"""Progress events for live displays: ``phasegate gate run`` tails them from a file.

When ``PHASEGATE_PROGRESS_FILE`` is set, the process running the checks (pytest, or the child
that runs the static checks) appends one JSON line per event to it: a check that started or
ended (``{"check": ...}``), or how far the tests are (``{"tests": {"collected": ..., "done":
..., "failed": ...}}``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from phasegate.gates.runner import ProgressEvent

__all__ = [
    "PROGRESS_ENV",
    "append_event",
    "progress_writer",
    "progress_writer_from_environment",
    "tests_event",
]

#: The environment variable naming the file progress events are appended to.
PROGRESS_ENV = "PHASEGATE_PROGRESS_FILE"


def append_event(path: Path, event: Mapping[str, object]) -> None:
    """Append one event to ``path`` as a JSON line."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(event) + "\n")


def tests_event(collected: int, done: int, failed: int) -> dict[str, object]:
    """How far the tests are: ``done`` of ``collected`` ended, ``failed`` of them failed."""
    return {"tests": {"collected": collected, "done": done, "failed": failed}}


def progress_writer(path: Path) -> Callable[[ProgressEvent], None]:
    """A callback that appends each check event to ``path`` as one JSON line."""

    def write(event: ProgressEvent) -> None:
        append_event(
            path,
            {
                "check": event.check,
                "state": event.state,
                "status": event.status,
                "duration_s": event.duration_s,
                "cached": event.cached,
            },
        )

    return write


def progress_writer_from_environment() -> Callable[[ProgressEvent], None] | None:
    """The writer for ``PHASEGATE_PROGRESS_FILE``, when it is set."""
    target = os.environ.get(PROGRESS_ENV)
    return progress_writer(Path(target)) if target else None
