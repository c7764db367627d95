"""The files a change touches, read at the base commit and in the work tree.

The base is read with ``git show <base>:./<path>`` and the change's files are listed with
``git diff --name-only <base>`` (the work tree against the base, so uncommitted edits count)
plus the files git does not track yet. Everything runs in the project root, so paths are
relative to it. Fail closed: git failing in any other way than "this path did not exist at
the base" is a :class:`~phasegate.gates.protocol.CheckError`; an engine that saw no files
would report no tricks.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

from phasegate.gates.git import git_bytes, git_text
from phasegate.gates.protocol import CheckError

__all__ = ["ChangedSources"]

#: How ``git show <rev>:<path>`` says the path did not exist at that revision.
_NO_PATH = ("does not exist in", "exists on disk, but not in")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class ChangedSources:
    """The files changed between ``base`` (a commit id) and the work tree of ``root``."""

    def __init__(
        self,
        root: Path,
        base: str,
        *,
        timeout_s: float,
        exclude_patterns: Sequence[str] = (),
        excluded: Sequence[Path] = (),
    ) -> None:
        if not _SHA.fullmatch(base):
            raise CheckError(f"the base {base!r:.80} is not a commit id")
        self.root = root
        self.base = base
        self._timeout_s = timeout_s
        self._exclude_patterns = tuple(exclude_patterns)
        self._excluded = tuple(path.resolve() for path in excluded)
        self._base_texts: dict[str, str | None] = {}

    @cached_property
    def paths(self) -> list[str]:
        """Every file the change adds, edits or deletes, relative to the root, sorted; files the
        project leaves out of every check (and the artifacts folder) left out."""
        names = {*self._tracked, *self._untracked}
        return sorted(name for name in names if not self.is_excluded(name))

    def tracked_paths_inside(self, folder: str) -> list[str]:
        """The files git tracks that the change adds, edits or deletes in ``folder`` (relative
        to the root), excluded or not: what a clone of the change holds there."""
        prefix = folder.rstrip("/") + "/"
        return [name for name in self._tracked if name.startswith(prefix)]

    @cached_property
    def _tracked(self) -> list[str]:
        """The tracked files that differ between the base and the work tree, sorted."""
        tracked = git_text(
            self.root,
            ["diff", "--name-only", "-z", "--no-renames", "--relative", self.base, "--"],
            timeout_s=self._timeout_s,
            strip=False,
            fix="check that the base commit is fetched (actions/checkout with fetch-depth: 0)",
        )
        return sorted(name for name in tracked.split("\0") if name)

    @cached_property
    def _untracked(self) -> list[str]:
        """The files git does not track (and does not ignore)."""
        untracked = git_text(
            self.root,
            ["ls-files", "-z", "--others", "--exclude-standard"],
            timeout_s=self._timeout_s,
            strip=False,
        )
        return [name for name in untracked.split("\0") if name]

    def check_listed(self) -> None:
        """A CheckError unless every listed path exists at the base or in the work tree.

        git's answer is recognized, not trusted: a name that is in neither is not a file the
        change touched, and a list holding one cannot be judged.
        """
        for name in self.paths:
            if self.head_text(name) is None and self.base_text(name) is None:
                raise CheckError(
                    f"git diff listed {name!r:.120} as changed, but it exists neither in the "
                    f"work tree nor at the base ({self.base[:12]}): git's answer is not "
                    "recognized"
                )

    def python_paths(self) -> list[str]:
        """The changed Python files."""
        return [name for name in self.paths if name.endswith(".py")]

    @cached_property
    def conftest_paths(self) -> list[str]:
        """Every conftest.py file git tracks, changed or not, and the untracked ones; those
        the project leaves out of every check left out."""
        tracked = git_text(
            self.root,
            ["ls-files", "-z", "--", "conftest.py", "*/conftest.py"],
            timeout_s=self._timeout_s,
            strip=False,
        )
        names = {*tracked.split("\0"), *self._untracked}
        return sorted(
            name
            for name in names
            if name.rsplit("/", 1)[-1] == "conftest.py" and not self.is_excluded(name)
        )

    def base_text(self, path: str) -> str | None:
        """``path`` as it was at the base; ``None`` when it did not exist there."""
        if path not in self._base_texts:
            shown = git_bytes(
                self.root,
                ["show", f"{self.base}:./{path}"],
                timeout_s=self._timeout_s,
                none_when=_NO_PATH,
            )
            self._base_texts[path] = (
                None if shown is None else shown.decode("utf-8", errors="replace")
            )
        return self._base_texts[path]

    def head_text(self, path: str) -> str | None:
        """``path`` as the work tree holds it; ``None`` when the change deleted it.

        A path that leaves the root (through a symbolic link) is a CheckError.
        """
        root = self.root.resolve()
        full = (root / path).resolve()
        if root not in full.parents:
            raise CheckError(f"{path} resolves to {full}, outside the project root {root}")
        if not full.is_file():
            return None
        try:
            return full.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise CheckError(f"{path} cannot be read: {exc}") from exc

    def is_excluded(self, name: str) -> bool:
        """Whether the project leaves ``name`` (relative to the root) out of every check."""
        full = (self.root / name).resolve()
        if any(full.is_relative_to(folder) for folder in self._excluded):
            return True
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self._exclude_patterns)
