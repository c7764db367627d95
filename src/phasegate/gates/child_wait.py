"""Waiting for a child process's end, or for its word on a pipe, without polling where the
system can wake the waiter (Linux: a pidfd and ``poll``).

The pytest process waits for the static checks' process on the gate's critical path
(:mod:`phasegate.gates.static_process`): for its judgements, which it says on its standard
output are written, and, at the run's end, for its exit.
"""

from __future__ import annotations

import math
import os
import select
import subprocess

from phasegate import clock

__all__ = ["ended_by", "said_descriptor"]


def ended_by(process: subprocess.Popen[bytes], deadline: float, said: int | None = None) -> bool:
    """Whether ``process`` ends before ``deadline`` (a monotonic time); the wait also ends
    early, with False, when the descriptor ``said`` becomes readable (see :func:`said_descriptor`).

    Woken by its end where the system can say so (a pidfd, Linux 5.3 and later): the parent
    waits for the child on the gate's critical path, and ``Popen.wait`` with a time limit
    polls, noticing an end up to 50 ms late (about 30 ms in the timelines); elsewhere it polls.
    """
    if process.poll() is not None:
        return True
    remaining = max(0.0, deadline - clock.monotonic())
    ended = _end_of(process) if hasattr(select, "poll") else None
    if ended is None and said is None:
        return _waited(process, remaining)
    try:
        _until_readable([fd for fd in (ended, said) if fd is not None], remaining)
    finally:
        if ended is not None:
            os.close(ended)
    return process.poll() is not None


def _waited(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether ``process`` ends within ``seconds`` (``Popen.wait``, which polls)."""
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def _until_readable(descriptors: list[int], seconds: float) -> None:
    """Wait until one of ``descriptors`` is readable, for ``seconds`` at most."""
    waiting = select.poll()  # not select.select: a descriptor past 1023 is refused there
    for descriptor in descriptors:
        waiting.register(descriptor, select.POLLIN)
    waiting.poll(math.ceil(seconds * 1000))


def said_descriptor(process: subprocess.Popen[bytes]) -> int | None:
    """The descriptor of the child's standard output while it may still say something (the
    static checks' process says there that its judgements are written), what it said so far
    read; None once it has said something or closed it (a child that ended), or where the
    system cannot wait on it.

    The judgements are read as soon as they are written, while the child goes on removing the
    checks' temporary folders: waiting for its end would not notice them, and looking for the
    file every 0.1 s noticed them 0.05 s late on average.
    """
    stream = process.stdout
    if stream is None or stream.closed or not hasattr(select, "poll"):
        return None
    descriptor = stream.fileno()
    os.set_blocking(descriptor, False)
    try:
        said = os.read(descriptor, 4096)
    except BlockingIOError:
        return descriptor  # nothing said yet
    except OSError:
        said = b""
    if said:
        return None  # it has said so: the file is there (or the child ended)
    stream.close()  # the child closed it without a word: it ended, or is ending
    return None


def _end_of(process: subprocess.Popen[bytes]) -> int | None:
    """A file descriptor that becomes readable when the unreaped ``process`` ends; None where
    the system has none."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return None
    try:
        descriptor: int = pidfd_open(process.pid)
    except OSError:  # a kernel before 5.3, or a sandbox that refuses it
        return None
    return descriptor
