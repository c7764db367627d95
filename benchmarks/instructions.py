"""Count the instructions a command executes, with valgrind's callgrind tool.

Wall and CPU time on a shared machine move by 10-20% from one run to the next, more than the
few percent the overhead benchmarks look for. An instruction count is repeatable: the same
program on the same input executes the same instructions whatever else the machine is doing.
It leaves out what instructions do not show (waiting for the disk, cache misses), so the
benchmarks print it beside the timings, not instead of them.

Child processes are followed (``--trace-children=yes``) and their counts added, so a run that
calls git is charged for it. ``PYTHONHASHSEED`` is fixed so that string hashing, and with it
the order of set iteration, is the same in every run. Under callgrind a Python program runs
about 50 times slower.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["available", "count_instructions"]

_TOTAL = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def available() -> bool:
    """Whether valgrind is on the PATH."""
    return shutil.which("valgrind") is not None


def count_instructions(command: Sequence[str], cwd: Path, env: Mapping[str, str]) -> int:
    """Instructions executed by ``command`` and every process it starts.

    Raises SystemExit with the command's output when it fails.
    """
    with tempfile.TemporaryDirectory(prefix="phasegate-callgrind-") as tmp:
        out = Path(tmp)
        completed = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=yes",
                f"--callgrind-out-file={out}/callgrind.%p",
                *command,
            ],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            env={**env, "PYTHONHASHSEED": "0"},
        )
        if completed.returncode != 0:
            raise SystemExit(
                f"under callgrind, {' '.join(command)} failed:\n"
                f"{completed.stdout}\n{completed.stderr[-4000:]}"
            )
        total = 0
        for path in out.glob("callgrind.*"):
            match = _TOTAL.search(path.read_text(errors="replace"))
            if match is None:
                raise SystemExit(f"no instruction total in callgrind's output {path.name}")
            total += int(match.group(1))
    if total == 0:
        raise SystemExit("callgrind counted no instructions")
    return total
