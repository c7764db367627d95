"""Count the instructions a command executes, with valgrind's callgrind tool, per process.

Wall and CPU time on a shared machine move by 10-20% from one run to the next, more than the
few percent the overhead benchmarks look for. An instruction count is repeatable: the same
program on the same input executes the same instructions whatever else the machine is doing.
It leaves out what instructions do not show (waiting for the disk, cache misses), so the
benchmarks print it beside the timings, not instead of them.

Child processes are followed (``--trace-children=yes``), so a run that calls git is charged for
it, and :func:`count_processes` says which process executed what (:func:`process_path` names each
by its command and its ancestors'; valgrind's log of each process names its parent). Two things
would otherwise go uncounted or be counted twice, so callgrind writes its counts (and starts
again from zero) before every call of the C library's ``fork``, ``posix_spawn`` and ``exec``
functions: a process that replaces itself by another program (``python -m ruff`` runs the ruff
binary in its place, after about 75 million instructions of its own) would lose what it executed
before, and a forked child would start with its parent's counts. Each process then leaves
several files, whose counts add up. One case is not covered: a program that was exec'd and
then itself starts or execs another writes its parts under the names its predecessor used
(callgrind numbers them again from one); none of the tools measured here does (ruff starts
nothing). valgrind's own messages go to the logs, not to the programs' stderr, which the
programs under count may read.
``PYTHONHASHSEED`` is fixed so that string hashing, and with it the order of set iteration, is
the same in every run. Under callgrind a Python program runs about 50 times slower.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ProcessCount",
    "available",
    "count_instructions",
    "count_processes",
    "process_name",
    "process_path",
]

_TOTAL = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)
_PID = re.compile(r"^pid:\s+(\d+)", re.MULTILINE)
_CMD = re.compile(r"^cmd:\s+(.*)$", re.MULTILINE)
_LOG_PID = re.compile(r"^==(\d+)== ", re.MULTILINE)
_PARENT = re.compile(r"^==\d+== Parent PID: (\d+)", re.MULTILINE)
#: The C library's functions that start a process or replace one: callgrind writes its counts
#: before each (names matched exactly: ``*fork*`` would also match ``pthread_atfork``).
#: ``__spawni`` is glibc's own spawn behind ``posix_spawn``: Python 3.13's subprocess spawns
#: there without callgrind seeing ``posix_spawn`` called, so the child carried its parent's count.
_STARTS = (
    "fork",
    "vfork",
    "posix_spawn",
    "posix_spawnp",
    "__spawni",
    "execve",
    "execv",
    "execvp",
    "execvpe",
)
#: Modules whose next word is a sub-command worth naming (``coverage run``, ``pip check``).
_SUBCOMMANDS = {"coverage", "pip", "griffe", "phasegate", "ruff"}


@dataclass(frozen=True)
class ProcessCount:
    """A process of a counted run, or a part of one (see the module's docstring): its id, its
    parent's, its command line, its count."""

    pid: int
    parent: int
    command: str
    instructions: int
    #: Whether this is the count callgrind wrote as the process ended (not one of its parts).
    last: bool = False


def available() -> bool:
    """Whether valgrind is on the PATH."""
    return shutil.which("valgrind") is not None


def count_instructions(command: Sequence[str], cwd: Path, env: Mapping[str, str]) -> int:
    """Instructions executed by ``command`` and every process it starts.

    Raises SystemExit with the command's output when it fails.
    """
    processes, _output = count_processes(command, cwd, env)
    return sum(process.instructions for process in processes)


def count_processes(
    command: Sequence[str], cwd: Path, env: Mapping[str, str], ok: tuple[int, ...] = (0,)
) -> tuple[list[ProcessCount], str]:
    """Every process ``command`` ran, with its instructions; and what the command printed.

    Raises SystemExit with the command's output when it exits with a code outside ``ok``, or
    when a process's count cannot be read.
    """
    with tempfile.TemporaryDirectory(prefix="phasegate-callgrind-") as tmp:
        out = Path(tmp)
        completed = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=yes",
                *(f"--dump-before={function}" for function in _STARTS),
                f"--callgrind-out-file={out}/callgrind.%p.%n",
                f"--log-file={out}/valgrind.%p.%n",
                *command,
            ],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            env={**env, "PYTHONHASHSEED": "0"},
        )
        if completed.returncode not in ok:
            raise SystemExit(
                f"under callgrind, {' '.join(command)} exited {completed.returncode}:\n"
                f"{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}"
            )
        parents = _parents(out)
        processes = [
            _read_process(path, parents)
            for path in sorted(out.glob("callgrind.*"))
            if path.stat().st_size  # the empty file an exec'd image leaves beside its parts
        ]
    if not processes or sum(process.instructions for process in processes) == 0:
        raise SystemExit("callgrind counted no instructions")
    return processes, completed.stdout


def _parents(folder: Path) -> dict[int, int]:
    """Each process's parent, from valgrind's logs (several per process that exec'd)."""
    parents: dict[int, int] = {}
    for log in folder.glob("valgrind.*"):
        text = log.read_text(errors="replace")
        pid, parent = _LOG_PID.search(text), _PARENT.search(text)
        if pid and parent:
            parents[int(pid.group(1))] = int(parent.group(1))
    return parents


def _read_process(path: Path, parents: dict[int, int]) -> ProcessCount:
    """One of callgrind's files: a process's count since its start or its last dump."""
    text = path.read_text(errors="replace")
    total, pid, cmd = _TOTAL.search(text), _PID.search(text), _CMD.search(text)
    if total is None or pid is None or cmd is None:
        raise SystemExit(f"no instruction total, pid or command in callgrind's output {path.name}")
    return ProcessCount(
        pid=int(pid.group(1)),
        parent=parents.get(int(pid.group(1)), 0),
        command=cmd.group(1).strip(),
        instructions=int(total.group(1)),
        last="Trigger: Program termination" in text,
    )


def process_name(command: str) -> str:
    """A short name for a command line: ``pytest``, ``coverage run``, ``git log``, ``ruff``.

    A Python process is named by its ``-m`` module (with the sub-command of the few tools that
    have one) or its script's file name, any other program by its file name, git by its
    sub-command.
    """
    words = command.split()
    program = Path(words[0]).name if words else "?"
    if program.startswith("python"):
        return _python_name(words[1:])
    if program == "git":
        rest = iter(words[1:])
        for word in rest:
            if word in ("-C", "-c"):
                next(rest, None)
            elif not word.startswith("-"):
                return f"git {word}"
        return "git"
    return program


def _python_name(arguments: list[str]) -> str:
    for index, word in enumerate(arguments):
        if word == "-m" and index + 1 < len(arguments):
            module = arguments[index + 1]
            after = arguments[index + 2 : index + 3]
            if module in _SUBCOMMANDS and after and not after[0].startswith("-"):
                return f"{module} {after[0]}"
            return module
        if word == "-c":
            return _named_after_code(arguments[index + 1 :])
        if not word.startswith("-"):  # a script, with its sub-command if it has one
            after = arguments[index + 1 : index + 2]
            if after and after[0].isidentifier():
                return f"{Path(word).name} {after[0]}"
            return Path(word).name
    return "python"


def _named_after_code(rest: list[str]) -> str:
    """``python -c CODE SCRIPT.py ARGS`` (the build check starts each PEP 517 hook so, with the
    collector off; callgrind writes the code's newlines as ``\\n``, so it is words here) is
    named by its script; any other ``-c`` is "python -c"."""
    scripts = [index for index, word in enumerate(rest) if word.endswith(".py")]
    return _python_name(rest[scripts[0] :]) if scripts else "python -c"


def process_path(process: ProcessCount, processes: Sequence[ProcessCount]) -> str:
    """The process's name after its ancestors' in the run: ``pytest/static_process/bandit``.

    A process is named by the program it ended as: its parts before an exec carry the command
    it was started with (``python -m ruff`` for the ruff binary), or its parent's when it was
    forked, and count as that program's.
    """
    by_pid = {other.pid: other for other in sorted(processes, key=lambda other: other.last)}
    names: list[str] = []
    seen: set[int] = set()
    current: ProcessCount | None = by_pid[process.pid]
    while current is not None and current.pid not in seen:
        names.append(process_name(current.command))
        seen.add(current.pid)
        current = by_pid.get(current.parent)
    return "/".join(reversed(names))
