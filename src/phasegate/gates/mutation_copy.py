"""A temporary copy of the project for mutants to live in, never the user's tree.

The copy holds what a commit would hold: the files git lists (tracked, plus untracked files
that are not ignored) as they are in the work tree now, byte for byte, with their permission
bits. Nothing outside the project root is copied: a symbolic link is copied as the file it
points to only when that file is inside the root, and left out otherwise (with a note). The
copy lives in a fresh temporary folder outside the project and is deleted when the check ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from phasegate.gates.git import git_text
from phasegate.gates.protocol import CheckError

__all__ = ["ProjectCopy", "copy_project", "listed_files"]

_LIST = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]


@dataclass
class ProjectCopy:
    """One copy: its folder and what was left out of it."""

    root: Path
    left_out: list[str] = field(default_factory=list)

    def write(self, relpath: str, text: str) -> None:
        """Write ``text`` to the copy's ``relpath`` (which must already be in the copy)."""
        target = self._inside(relpath)
        target.write_bytes(text.encode("utf-8"))

    def write_bytes(self, relpath: str, data: bytes) -> None:
        """Put ``data`` back as the copy's ``relpath``."""
        self._inside(relpath).write_bytes(data)

    def remove(self) -> None:
        """Delete the copy and the temporary folder it is in."""
        shutil.rmtree(self.root.parent, ignore_errors=True)

    def _inside(self, relpath: str) -> Path:
        target = (self.root / relpath).resolve()
        if self.root.resolve() not in target.parents:
            raise CheckError(f"{relpath!r} is not a file inside the copy of the project")
        return target


def listed_files(root: Path) -> list[str]:
    """The files of the project as git lists them, relative to ``root`` (a CheckError when git
    fails: a copy missing files would make tests fail for the wrong reason)."""
    listed = git_text(root, _LIST)
    return sorted({name for name in listed.split("\0") if name})


def copy_project(root: Path, files: list[str], scratch: Path | None = None) -> ProjectCopy:
    """Copy ``files`` (relative to ``root``) into a new temporary folder."""
    real_root = root.resolve()
    folder = Path(tempfile.mkdtemp(prefix="phasegate-mutation-", dir=scratch))
    copy = ProjectCopy(folder / "project")
    copy.root.mkdir()
    try:
        for relpath in files:
            _copy_file(real_root, root / relpath, relpath, copy)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise CheckError(f"the project could not be copied for mutation testing: {exc}") from exc
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return copy


def _copy_file(real_root: Path, source: Path, relpath: str, copy: ProjectCopy) -> None:
    """Copy one listed file with its permission bits; one whose content or place in the copy
    is outside the project is left out (and noted)."""
    if not source.exists() and not source.is_symlink():
        return  # tracked but deleted in the work tree: a commit would not hold it
    real = source.resolve()
    target = (copy.root / relpath).resolve()
    if (
        real_root not in real.parents
        or not real.is_file()
        or copy.root.resolve() not in target.parents
    ):
        copy.left_out.append(relpath)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(real, target)
    os.chmod(target, real.stat().st_mode & 0o777)
