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
import stat
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
    ``into``, the artifacts aside.

    Few system calls a file: one ``lstat`` says what it is, each folder is made once, and the
    artifacts are told by their name under the top folder. Each system call lets the other
    checks' threads take the interpreter lock, which this thread then waits to get back.
    """
    artifacts = _name_under(store.root, toplevel)
    folders: set[Path] = set()
    for name in names:
        if name and not _inside(name, artifacts):
            _copy_file(toplevel / name, into / name, folders)


def _name_under(folder: Path, toplevel: Path) -> str | None:
    """``folder``'s name relative to ``toplevel`` as git spells the files it lists (``/``
    between parts), both resolved; None when it is not inside it."""
    relative = Path(os.path.relpath(folder.resolve(), toplevel.resolve())).as_posix()
    return None if relative == ".." or relative.startswith("../") else relative


def _inside(name: str, folder: str | None) -> bool:
    """Whether git's ``name`` is ``folder`` or inside it (``.`` holds every name)."""
    if folder is None:
        return False
    return folder == "." or name == folder or name.startswith(folder + "/")


def _copy_file(source: Path, target: Path, folders: set[Path]) -> None:
    try:
        mode = source.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # a tracked file deleted in the work tree
        return
    if stat.S_ISDIR(mode):  # a submodule
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    elif stat.S_ISLNK(mode) or stat.S_ISREG(mode):
        _make_folder(target.parent, folders)
        _copy_entry(source, target, link=stat.S_ISLNK(mode))


def _make_folder(folder: Path, made: set[Path]) -> None:
    """``folder`` and its parents, once for the whole copy."""
    if folder not in made:
        folder.mkdir(parents=True, exist_ok=True)
        made.add(folder)


def _copy_entry(source: Path, target: Path, *, link: bool) -> None:
    """A symbolic link as a link, a file with its contents, mode and times."""
    if link:
        target.symlink_to(os.readlink(source))
    else:
        shutil.copy2(source, target)
