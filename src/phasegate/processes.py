"""Child processes in a process group of their own, killed whole at a timeout or an interrupt.

``subprocess.run(timeout=...)`` kills only the child it started. A tool's own children (a PEP
517 build backend, git's helpers, a test run's workers) live on, keep the output pipes open,
and ``run`` then waits for them: a hung build backend outlives the check's timeout by as long as
it hangs. Here each child starts a session of its own (POSIX; a new process group on Windows),
and at a timeout, on Ctrl-C or on any other exception the whole group is killed before the
pipes are read to their end.

Groups still running are remembered with the thread that started them, so that a process
told to stop (the static checks' process on SIGTERM) kills them all first, and a check past its
timeout has the groups its thread started killed at once: :func:`kill_running_groups`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Finished",
    "GroupTimeout",
    "kill_group",
    "kill_running_groups",
    "run_in_group",
    "start_in_group",
]

#: Seconds to wait for the pipes to close once the group was killed.
_DRAIN_S = 10.0

#: Each running group's leader, and the thread that started it.
_running: dict[subprocess.Popen[bytes], int] = {}
#: Re-entrant: the static process's SIGTERM handler (:func:`kill_running_groups`) runs on the
#: main thread, which may hold it already, in :func:`start_in_group` or :func:`_forget`.
_running_lock = threading.RLock()


@dataclass(frozen=True)
class Finished:
    """How a child exited and what it printed."""

    returncode: int
    stdout: bytes
    stderr: bytes


class GroupTimeout(Exception):
    """The child did not finish in time; its whole process group was killed."""

    def __init__(self, timeout_s: float, stdout: bytes, stderr: bytes) -> None:
        super().__init__(f"did not finish within {timeout_s:g}s")
        self.timeout_s = timeout_s
        self.stdout = stdout
        self.stderr = stderr


def start_in_group(
    command: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    stdout: int | None = subprocess.PIPE,
    stderr: int | None = subprocess.PIPE,
) -> subprocess.Popen[bytes]:
    """Start ``command`` as the leader of a new process group (remembered until reaped)."""
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        # POSIX: a session of its own; Windows: a process group of its own.
        start_new_session=sys.platform != "win32",
        creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
    )
    with _running_lock:
        _running[process] = threading.get_ident()
    return process


def run_in_group(
    command: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> Finished:
    """Run ``command`` to its end; :class:`GroupTimeout` after ``timeout_s`` (group killed).

    ``OSError`` when it cannot be started. Ctrl-C (or any exception) kills the group too and
    is raised again.
    """
    process = start_in_group(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
    )
    try:
        stdout, stderr = process.communicate(input=input, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        stdout, stderr = kill_group(process)
        raise GroupTimeout(timeout_s, stdout, stderr) from None
    except BaseException:
        kill_group(process)
        raise
    _forget(process)
    return Finished(process.returncode, stdout or b"", stderr or b"")


def kill_group(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Kill the child's whole process group, reap it, and return what its pipes still held."""
    _kill(process)
    try:
        stdout, stderr = process.communicate(timeout=_DRAIN_S)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        _abandon(process)
        stdout, stderr = b"", b""
    _forget(process)
    return stdout or b"", stderr or b""


def _kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's process group (the child alone on Windows), gone already or not."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if sys.platform == "win32":  # pragma: no cover - Windows
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGKILL)


def _abandon(process: subprocess.Popen[bytes]) -> None:
    """Stop reading a killed child's pipes, which a grandchild that left the group still
    holds, and give the child a moment to be reaped."""
    for pipe in (process.stdout, process.stderr, process.stdin):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_DRAIN_S)


def kill_running_groups(thread: int | None = None) -> None:
    """Kill every process group started here that still runs, or those ``thread`` started."""
    with _running_lock:
        running = [p for p, owner in _running.items() if thread is None or owner == thread]
    for process in running:
        if process.poll() is None:
            _kill(process)
        _forget(process)


def _forget(process: subprocess.Popen[bytes]) -> None:
    with _running_lock:
        _running.pop(process, None)
