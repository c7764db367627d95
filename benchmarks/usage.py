"""What a run cost the kernel as well as the program: user and system CPU apart, page faults,
context switches, and the programs and tasks it started.

Instruction counts (``benchmarks/instructions.py``) see user space only; CPU seconds also hold
the kernel's work for the run: starting processes, mapping the pages of what they import, the
pipes and files between them, threads waiting for each other. The kernel keeps most of it per
process and adds a child's into its parent's as the parent reaps it, so the difference of
``getrusage(RUSAGE_CHILDREN)`` before and after a run holds the run's whole tree of processes
(:func:`usage_between`).

What ``getrusage`` does not keep is how many processes a run started. :func:`count_starts` runs
the command once under ``perf stat`` with two of the kernel's tracepoints: programs exec'd
(every interpreter, git, ruff) and tasks created (processes and threads; the kernel's
tracepoint counts both and a filter to tell them apart needs more than root in a container).
The counts do not move with the machine's load, so one run is enough; it is taken apart from
the timed runs because ``perf`` is itself a process whose CPU time would land in theirs. Without
``perf``, or without the right to read tracepoints, it says so and returns nothing.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Protocol

__all__ = ["ResourceUsage", "Starts", "Usage", "count_starts", "parse_perf", "usage_between"]


class ResourceUsage(Protocol):
    """The fields of ``resource.struct_rusage`` read here."""

    @property
    def ru_utime(self) -> float: ...
    @property
    def ru_stime(self) -> float: ...
    @property
    def ru_minflt(self) -> int: ...
    @property
    def ru_majflt(self) -> int: ...
    @property
    def ru_nvcsw(self) -> int: ...
    @property
    def ru_nivcsw(self) -> int: ...


@dataclass(frozen=True)
class Usage:
    """User and system CPU seconds, page faults and context switches of one run's processes.

    Minor faults are pages mapped without reading the disk (an import's code and data, memory
    a process touches first); major faults read it. A voluntary switch is a process giving up
    the core to wait (a pipe, a lock, a child); an involuntary one is the scheduler taking it.
    """

    user: float = 0.0
    system: float = 0.0
    minor_faults: float = 0
    major_faults: float = 0
    voluntary_switches: float = 0
    involuntary_switches: float = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Usage)))

    @classmethod
    def total(cls, usages: Iterable[Usage]) -> Usage:
        return sum(usages, cls())

    @classmethod
    def median(cls, usages: Sequence[Usage]) -> Usage:
        """Each figure's median over ``usages`` (figure by figure, as the timings' medians)."""
        return cls(*(statistics.median(getattr(u, f.name) for u in usages) for f in fields(cls)))


def usage_between(before: ResourceUsage, after: ResourceUsage) -> Usage:
    """What was used between two readings of ``getrusage`` (of the same ``who``)."""
    return Usage(
        user=after.ru_utime - before.ru_utime,
        system=after.ru_stime - before.ru_stime,
        minor_faults=after.ru_minflt - before.ru_minflt,
        major_faults=after.ru_majflt - before.ru_majflt,
        voluntary_switches=after.ru_nvcsw - before.ru_nvcsw,
        involuntary_switches=after.ru_nivcsw - before.ru_nivcsw,
    )


@dataclass(frozen=True)
class Starts:
    """Programs a run exec'd and tasks (processes and threads) it created."""

    programs: int
    tasks: int

    def __add__(self, other: Starts) -> Starts:
        return Starts(self.programs + other.programs, self.tasks + other.tasks)


#: The kernel's tracepoints counted: a program exec'd, a task (process or thread) created.
EXEC, NEW_TASK = "sched:sched_process_exec", "task:task_newtask"


def parse_perf(text: str) -> Starts | None:
    """``perf stat -x,``'s lines (count, unit, event, ...) read into :class:`Starts`.

    ``None`` when either event was not counted (``<not supported>``, ``<not counted>``, absent).
    """
    counted: dict[str, int] = {}
    for line in text.splitlines():
        cells = line.split(",")
        if len(cells) > 2 and cells[2] in (EXEC, NEW_TASK) and cells[0].isdigit():
            counted[cells[2]] = int(cells[0])
    if EXEC not in counted or NEW_TASK not in counted:
        return None
    return Starts(programs=counted[EXEC], tasks=counted[NEW_TASK])


def count_starts(
    command: Sequence[str], cwd: Path, env: Mapping[str, str], ok: Sequence[int] = (0, 1)
) -> Starts | None:
    """The programs and tasks ``command`` starts, ``None`` without ``perf`` or its tracepoints.

    The command's own exec counts as one program, as each tool's start by hand does.
    """
    perf = shutil.which("perf")
    if perf is None:
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".csv") as counts:
        done = subprocess.run(
            [perf, "stat", "-x,", "-o", counts.name, "-e", EXEC, "-e", NEW_TASK, "--", *command],
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            check=False,
        )
        if done.returncode not in ok:
            return None
        return parse_perf(counts.read())
