"""Where a run happened: interpreter, platform, plugin versions and the git commit.

Also the environment variables through which ``phasegate phase advance`` tells the gate run it
starts which workflow instance and phase it runs for (:data:`INSTANCE_ENV`, :data:`PHASE_ENV`).

Returns dicts shaped like :class:`phasegate.model.Environment` and
:class:`phasegate.model.GitInfo`, because this runs inside the test run (see
:mod:`phasegate.recording`).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from phasegate import __version__
from phasegate.documents import EnvironmentDocument, GitDocument

__all__ = [
    "GIT_TIMEOUT_S",
    "INSTANCE_ENV",
    "PHASE_ENV",
    "GitQuery",
    "describe_environment",
    "parse_git_status",
]

#: git answers in milliseconds; this only guards against a hung repository or filesystem.
GIT_TIMEOUT_S = 10.0

#: The workflow instance a gate runs for; the request, spec and plan checks fill
#: ``{instance}`` with it.
INSTANCE_ENV = "PHASEGATE_WORKFLOW_INSTANCE"
#: The workflow phase a gate runs for: the refinement round (and so the task metrics)
#: records it.
PHASE_ENV = "PHASEGATE_WORKFLOW_PHASE"


def describe_environment(pytest_version: str, plugins: Mapping[str, str]) -> EnvironmentDocument:
    """The interpreter, platform and the versions that shaped the run."""
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(terse=True),
        "pytest": pytest_version,
        "phasegate": __version__,
        "plugins": dict(sorted(plugins.items())),
    }


class GitQuery:
    """``git status`` started now and read when its answer is needed.

    A run starts it when the session starts and reads it at the end, so the run never waits
    for git, and no thread is needed to wait on it. :meth:`close` reaps a query whose answer
    was never read; :meth:`reap` collects git's exit status early, so that a test that
    looks at its process's children does not find it there as a zombie.
    """

    def __init__(self, root: Path) -> None:
        try:
            self._process: subprocess.Popen[str] | None = subprocess.Popen(
                ["git", "status", "--porcelain=v2", "--branch", "--untracked-files=normal"],
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            self._process = None
        self._answer: GitDocument | None = None

    def result(self) -> GitDocument | None:
        """The commit, branch and dirtiness of the work tree; ``None`` outside git.

        Waits at most :data:`GIT_TIMEOUT_S` for git.
        """
        process, self._process = self._process, None
        if process is None:
            return self._answer
        try:
            stdout, _stderr = process.communicate(timeout=GIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return None
        if process.returncode == 0:
            self._answer = parse_git_status(stdout)
        return self._answer

    def reap(self) -> None:
        """Collect git's exit status if it has ended, so it is not left a zombie meanwhile.

        Its output stays in the pipe for :meth:`result`.
        """
        if self._process is not None:
            self._process.poll()

    def close(self) -> None:
        """Stop git if it still runs and nobody read its answer; reap it either way."""
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.kill()
            process.communicate()


def parse_git_status(text: str) -> GitDocument:
    """The commit, branch and dirtiness that ``git status --porcelain=v2 --branch`` printed.

    A changed tracked file makes the tree dirty, and so does an untracked file git does not
    ignore: a new test or module not yet added is part of what the run tested, and a run of it
    must not pass for a run of the clean commit (the TDD ledger's ``dirty`` flag tells the gate
    which runs belong to a change). Python's bytecode caches (``__pycache__/``, ``*.pyc``) do
    not count: the run itself writes them, in a repository that does not ignore them, while
    git looks.
    """
    sha: str | None = None
    branch: str | None = None
    dirty = False
    for line in text.splitlines():
        if line.startswith("# branch.oid "):
            value = line.removeprefix("# branch.oid ")
            sha = None if value == "(initial)" else value
        elif line.startswith("# branch.head "):
            value = line.removeprefix("# branch.head ")
            branch = None if value == "(detached)" else value
        elif line.startswith("? "):
            dirty = dirty or not _bytecode_cache(line.removeprefix("? "))
        elif line and not line.startswith("#"):
            dirty = True
    return {"sha": sha, "branch": branch, "dirty": dirty}


def _bytecode_cache(path: str) -> bool:
    parts = path.rstrip("/").split("/")
    return "__pycache__" in parts or parts[-1].endswith((".pyc", ".pyo"))
