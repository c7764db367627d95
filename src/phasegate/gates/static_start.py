"""Starting the static checks' process: its command line, its own folder, its pipes.

Apart from :mod:`phasegate.gates.static_process` (which waits for the child and reads its
judgements) so that starting the child imports only the standard library and phasegate's
process helpers: ``pytest --gate`` starts the child as soon as pytest has read its options, and
only then imports what reading the judgements needs (pydantic and the gate's models, about
0.1 s of the pytest process's start on a quiet machine), while the child starts beside it.
The child is on the gate's critical path; those imports are not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from phasegate import clock
from phasegate.gates.helper_env import helper_environment
from phasegate.processes import start_in_group

__all__ = ["JUDGEMENTS_FILE", "STDERR_FILE", "StartedChild", "start_child"]

#: The file in the child's folder its judgements are written to.
JUDGEMENTS_FILE = "judgements.json"
#: The file in the child's folder its standard error goes to.
STDERR_FILE = "stderr.txt"


@dataclass(frozen=True)
class StartedChild:
    """A static checks' process just started, with its folder and when it started."""

    process: subprocess.Popen[bytes]
    folder: tempfile.TemporaryDirectory[str]
    started: float


def start_child(
    *,
    root: Path,
    gate: str,
    artifacts_dir: Path | None,
    base: str | None,
    environment: Mapping[str, str] | None = None,
) -> StartedChild:
    """Start ``python -m phasegate.gates.static_process`` for ``gate`` in ``root``, in
    ``environment`` (default: this process's) without coverage's subprocess hook.

    ``pytest --gate`` hands it the environment the run began with: the child reads which pull
    request it judges there (``GITHUB_BASE_REF``), which a conftest.py could have changed since.
    """
    folder = tempfile.TemporaryDirectory(prefix="phasegate-static-")
    command = [
        sys.executable,
        "-m",
        "phasegate.gates.static_process",
        "--root",
        str(root),
        "--gate",
        gate,
        "--out",
        str(Path(folder.name) / JUDGEMENTS_FILE),
        "--parent",  # it ends with this process, even one killed without its cleanup
        str(os.getpid()),
    ]
    if artifacts_dir is not None:
        command += ["--artifacts", str(artifacts_dir)]
    if base:
        command += ["--base", base]
    command.append("--share-coverage")
    started = clock.monotonic()
    try:
        with open(Path(folder.name) / STDERR_FILE, "wb") as log:
            process = start_in_group(
                command,
                cwd=root,
                stdin=subprocess.PIPE,  # a request to analyse part of the coverage, or nothing
                stdout=subprocess.PIPE,  # it says there when its judgements are written
                stderr=log.fileno(),
                env=helper_environment(environment),  # not measured by the project's coverage
            )
    except BaseException:
        folder.cleanup()
        raise
    return StartedChild(process, folder, started)
