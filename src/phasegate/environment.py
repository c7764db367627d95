"""Where a run happened: interpreter, platform, plugin versions and the git commit.

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
from typing import Any

from phasegate import __version__

__all__ = ["GIT_TIMEOUT_S", "describe_environment", "read_git"]

#: git answers in milliseconds; this only guards against a hung repository or filesystem.
GIT_TIMEOUT_S = 10.0


def describe_environment(pytest_version: str, plugins: Mapping[str, str]) -> dict[str, Any]:
    """The interpreter, platform and the versions that shaped the run."""
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(terse=True),
        "pytest": pytest_version,
        "phasegate": __version__,
        "plugins": dict(sorted(plugins.items())),
    }


def read_git(root: Path) -> dict[str, Any] | None:
    """The commit, branch and dirtiness of the work tree at ``root``; ``None`` outside git.

    One ``git status --porcelain=v2 --branch`` call gives all three. Untracked files do not
    make the tree dirty, as with ``git describe --dirty``.
    """
    try:
        completed = subprocess.run(
            ["git", "status", "--porcelain=v2", "--branch", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if completed.returncode != 0:
        return None
    sha: str | None = None
    branch: str | None = None
    dirty = False
    for line in completed.stdout.splitlines():
        if line.startswith("# branch.oid "):
            value = line.removeprefix("# branch.oid ")
            sha = None if value == "(initial)" else value
        elif line.startswith("# branch.head "):
            value = line.removeprefix("# branch.head ")
            branch = None if value == "(detached)" else value
        elif line and not line.startswith("#"):
            dirty = True
    return {"sha": sha, "branch": branch, "dirty": dirty}
