"""A git tree (a commit's, or a tree id) written out into a folder, to run something at it.

The perf check runs the base commit's perf tests in such a copy, and ``phasegate tdd verify``
replays a recorded red in the tree recorded for it. The copy is the project's part of the tree
(the project may sit in a sub-folder of its repository), taken with ``git archive`` and
unpacked with the standard library's ``tarfile`` under its ``data`` filter (no absolute paths,
no links out of the folder, no device files). It is a plain folder, not a second work tree
registered with the repository, so nothing is left behind in ``.git`` when the run is killed
midway.

Fail closed: a git that fails or hangs, an archive that cannot be read, or one that holds
nothing is a :class:`~phasegate.gates.protocol.CheckError`.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

from phasegate.gates.git import GIT_TIMEOUT_S, git_bytes, git_text
from phasegate.gates.helper_env import helper_environment
from phasegate.gates.protocol import CheckError

__all__ = ["environment_for", "write_tree"]


def write_tree(root: Path, treeish: str, dest: Path, *, timeout_s: float = GIT_TIMEOUT_S) -> Path:
    """Write the files ``treeish`` holds for the project at ``root`` into ``dest``; return it.

    ``treeish`` is a commit or a tree id of ``root``'s repository; ``dest`` must be empty or
    absent.
    """
    prefix = git_text(root, ["rev-parse", "--show-prefix"], timeout_s=timeout_s)
    spec = f"{treeish}:{prefix.rstrip('/')}" if prefix else treeish
    archive = git_bytes(
        root,
        ["archive", "--format=tar", spec],
        timeout_s=timeout_s,
        fix=f"check that {treeish} exists in the repository (a shallow clone may lack it: "
        "fetch with fetch-depth: 0)",
    )
    if not archive:
        raise CheckError(f"git archive {spec} printed nothing where a tar archive was expected")
    _unpack(archive, dest, spec)
    return dest


def _unpack(archive: bytes, dest: Path, spec: str) -> None:
    """Unpack the tar archive git made of ``spec`` into ``dest``, safely (tarfile's data
    filter); an archive without a file, or one that cannot be unpacked, is a CheckError."""
    if not hasattr(tarfile, "data_filter"):  # Python 3.10 before 3.10.12
        raise CheckError(
            "this Python's tarfile cannot unpack an archive safely (no data filter)",
            fix="use Python 3.10.12 or later",
        )
    dest.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
            members = tar.getmembers()
            if not any(member.isfile() for member in members):
                raise CheckError(f"the tree {spec} holds no file")
            tar.extractall(dest, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise CheckError(f"the archive git made of {spec} cannot be unpacked: {exc}") from exc


def environment_for(copy: Path) -> dict[str, str]:
    """The environment to run a copy's tests in: the copy's own code first on the import path.

    An editable install of the project would otherwise import the work tree's code. phasegate's
    own variables (a shard, a workflow instance) and pytest-xdist's describe the outer run,
    not this one, and are left out.
    """
    env = {
        name: value
        for name, value in helper_environment().items()
        if not name.startswith(("PHASEGATE_", "PYTEST_XDIST_"))
    }
    first = [str(copy / "src")] if (copy / "src").is_dir() else []
    first.append(str(copy))
    if env.get("PYTHONPATH"):
        first.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(first)
    return env
