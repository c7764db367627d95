"""A copy of the project in a temporary folder, for work that must not touch the project.

Build backends write into the tree they build (``build/``, ``*.egg-info``...), so the build
check works on a copy. In a git work tree the copy is a ``git clone --shared`` of the
repository (it borrows the objects, so it is quick and writes nothing into the original) at
HEAD, with the work tree's files copied over: the files a commit would hold (tracked, and
untracked ones git does not ignore), uncommitted changes included. The clone takes nothing
from git's template folder (``--template=``): no sample hooks to write, and no ``info/exclude``
of the user's template to hide files from the backends' git. Tags and history come
along, so versions derived from git (setuptools-scm, hatch-vcs) are the same as in the
project. Outside git the folder is copied, without virtual environments, caches, build output
and the artifacts folder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from phasegate.gates.git import git_text
from phasegate.gates.project import SKIPPED_DIRS, GateProject
from phasegate.store import Store

__all__ = ["copy_project"]


def copy_project(project: GateProject, store: Store, into: Path, timeout_s: float) -> Path:
    """Copy the project to ``into`` (which must not exist); its root inside the copy."""
    root = project.root
    toplevel, head = project.git_toplevel, project.head  # asked once for every check
    if toplevel is None or head is None:
        skipped = {*SKIPPED_DIRS, store.root.name}
        shutil.copytree(
            root, into, symlinks=True, ignore=lambda _folder, names: skipped & set(names)
        )
        return into
    _clone_at(toplevel, head, into, timeout_s)
    _copy_work_tree(toplevel, _listed_at_top(project, toplevel, timeout_s), into, store)
    return into / os.path.relpath(root.resolve(), toplevel.resolve())


def _clone_at(toplevel: Path, head: str, into: Path, timeout_s: float) -> None:
    """A shared clone of the repository at ``into``, its index at ``head``, nothing checked out."""
    fix = f"run `git clone --shared --no-checkout {toplevel} /tmp/x` to see why"
    git_text(
        into.parent,
        ["clone", "--quiet", "--shared", "--no-checkout", "--template=", str(toplevel), str(into)],
        timeout_s=timeout_s,
        fix=fix,
    )
    git_text(into, ["reset", "--quiet", "--mixed", head], timeout_s=timeout_s, fix=fix)


def _listed_at_top(project: GateProject, toplevel: Path, timeout_s: float) -> list[str]:
    """The files a commit would hold, relative to ``toplevel``: the project's own listing
    when its root is the top folder (asked once per run), else git's at the top folder."""
    if project.root.resolve() == toplevel.resolve():
        return project.git_listing
    listed = git_text(
        toplevel,
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        timeout_s=timeout_s,
    )
    return listed.split("\0")


def _copy_work_tree(toplevel: Path, names: list[str], into: Path, store: Store) -> None:
    """The files ``names`` (relative to ``toplevel``), as they are in the work tree, into
    ``into``, the artifacts aside."""
    artifacts = store.root.resolve()
    for name in names:
        source = toplevel / name
        if name and artifacts not in source.resolve().parents:
            _copy_file(source, into / name)


def _copy_file(source: Path, target: Path) -> None:
    if source.is_symlink():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(os.readlink(source))
    elif source.is_dir():  # a submodule
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    elif source.is_file():  # a tracked file deleted in the work tree is left out
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
