"""The git tree of the work tree at a run, kept reachable, so the run can be replayed elsewhere.

A ledger entry that names the tree its run saw can be checked in CI: ``phasegate tdd verify``
writes that tree out and runs the red again (:mod:`phasegate.tdd.verify`). The tree is what a
commit of everything would hold, untracked files that git does not ignore included: a copy of
the repository's index in a temporary file takes every file (``git add -A``), and ``git
write-tree`` stores it, leaving the real index and the branch untouched. A ref,
``refs/phasegate/tdd/<run id>``, keeps the tree from git's garbage collection; push those refs
with the branch (``git push origin 'refs/phasegate/tdd/*'``) for CI to have them.

Outside a git work tree there is no tree, and the answer is ``None`` with the reason.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from phasegate.gates.git import git_environment
from phasegate.processes import GroupTimeout, run_in_group

__all__ = ["NOT_IN_GIT", "TREE_REF_PREFIX", "WorkTreeId", "record_work_tree"]

#: The reason there is no tree outside git (not worth a note on the run).
NOT_IN_GIT = "not in a git work tree"

#: Where the refs that keep the runs' trees live.
TREE_REF_PREFIX = "refs/phasegate/tdd/"
_TIMEOUT_S = 60.0
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_REF_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class WorkTreeId:
    """The tree id, or why there is none."""

    def __init__(self, tree: str | None, problem: str | None = None) -> None:
        self.tree = tree
        self.problem = problem


def record_work_tree(root: Path, run_id: str) -> WorkTreeId:
    """Store the work tree of ``root``'s repository as a git tree and keep it by a ref."""
    git_dir = _git(root, ["rev-parse", "--git-path", "index"])
    if git_dir is None:
        return WorkTreeId(None, NOT_IN_GIT)
    with tempfile.TemporaryDirectory(prefix="phasegate-tree-") as folder:
        index = Path(folder) / "index"
        real_index = root / git_dir  # relative to root, or absolute (then the join keeps it)
        if real_index.is_file():
            shutil.copyfile(real_index, index)  # its stat cache spares hashing unchanged files
        env = {"GIT_INDEX_FILE": str(index)}
        if _git(root, ["add", "-A"], env) is None:
            return WorkTreeId(None, "git add -A into a temporary index failed")
        tree = _git(root, ["write-tree"], env)
    if tree is None or not _SHA.match(tree):
        return WorkTreeId(None, f"git write-tree gave no tree id ({tree!r})")
    ref = TREE_REF_PREFIX + _REF_SAFE.sub("-", run_id)
    if _git(root, ["update-ref", ref, tree]) is None:
        return WorkTreeId(tree, f"the tree {tree[:12]} could not be kept by {ref}")
    return WorkTreeId(tree)


def _git(root: Path, args: list[str], env: dict[str, str] | None = None) -> str | None:
    """What git printed (stripped), or ``None`` when it failed, hung or could not start."""
    try:
        finished = run_in_group(
            ["git", *args], cwd=root, timeout_s=_TIMEOUT_S, env={**git_environment(), **(env or {})}
        )
    except (GroupTimeout, OSError):
        return None
    if finished.returncode != 0:
        return None
    return finished.stdout.decode("utf-8", errors="replace").strip()
