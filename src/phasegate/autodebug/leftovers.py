"""Processes a stopped re-run leaves behind: those its tests started in a session of their own.

A re-run that takes too long is stopped with its whole process group; a process a test
started with ``start_new_session=True`` (a daemonised helper server) is in a group of its own,
and outlives it. Every re-run's environment carries a mark of its own (:data:`RUN_MARK_ENV`)
that each process it starts inherits; after a stop, the processes whose environment, as they
were started (``/proc/<pid>/environ``), holds that mark are stopped too, and named in the
re-run's reason. A process that dropped the mark from its environment when it was started
(``env={...}``) is not found.

Linux only: where there is no ``/proc`` nothing is found. Hand-written over the standard
library, as the one other way (psutil) is not among phasegate's dependencies.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from pathlib import Path

__all__ = ["RUN_MARK_ENV", "new_mark", "stop_leftovers"]

#: Set in each re-run to a mark of its own (:func:`new_mark`).
RUN_MARK_ENV = "PHASEGATE_AUTODEBUG_RUN"
_PROC = Path("/proc")


def new_mark() -> str:
    """A mark no other re-run has."""
    return secrets.token_hex(8)


def stop_leftovers(mark: str) -> list[str]:
    """Stop every process started with ``mark`` in its environment; each as ``pid command``.

    Looked for twice, so that one started by a leftover while the first were stopped is
    stopped too.
    """
    marker = f"{RUN_MARK_ENV}={mark}".encode()
    stopped: dict[str, str] = {}
    for _round in range(2):
        for pid in _carrying(marker):
            stopped.setdefault(pid, _stop(pid))
    return list(stopped.values())


def _carrying(marker: bytes) -> list[str]:
    """The processes whose environment holds ``marker`` as one of its entries."""
    return [pid for pid in _pids() if marker in _environment(pid)]


def _pids() -> list[str]:
    try:
        return [entry.name for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _environment(pid: str) -> list[bytes]:
    """The environment ``pid`` was started with (empty for a process ended or not ours)."""
    try:
        return (_PROC / pid / "environ").read_bytes().split(b"\0")
    except OSError:
        return []


def _stop(pid: str) -> str:
    """Kill ``pid``; what it was, for the reason the re-run gives."""
    try:
        command = (_PROC / pid / "cmdline").read_bytes().replace(b"\0", b" ").strip()
    except OSError:
        command = b"?"
    with contextlib.suppress(OSError):
        os.kill(int(pid), signal.SIGKILL)
    return f"{pid} {command.decode('utf-8', errors='replace')[:80]}"
