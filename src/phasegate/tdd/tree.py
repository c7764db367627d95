"""Which of the project's Python files are tests and which are source, and what they hold.

The files come from :class:`phasegate.gates.project.GateProject` (git's view of the work
tree, or a walk outside git). A file matching ``test_globs`` is a test file; source is what
``source_globs`` names, or else the project's packages, or else (a flat project of modules
without a package) every other Python file. Anything else (scripts, docs) is neither, and no
rule looks at it.

Content is identified by SHA-256 of the bytes, so "byte-identical" means exactly that.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from phasegate.gates.project import GateProject
from phasegate.model.tdd import FileHashes
from phasegate.tdd.config import TddConfig

__all__ = [
    "FileChange",
    "TreeLayout",
    "changes",
    "content_hash",
    "hash_bytes",
    "hash_tree",
    "nodeid_path",
]

Role = Literal["test", "source"]


def hash_bytes(data: bytes) -> str:
    """The SHA-256 hex digest the ledger uses for file content."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class TreeLayout:
    """How the project's Python files divide into tests and source."""

    root: Path
    test_globs: Sequence[str]
    source_globs: Sequence[str] = ()
    excluded: Sequence[Path] = ()

    @classmethod
    def from_config(
        cls, root: Path, config: TddConfig, excluded: Sequence[Path] = ()
    ) -> TreeLayout:
        """The layout ``[tool.phasegate.tdd]`` describes."""
        return cls(root, tuple(config.test_globs), tuple(config.source_globs), tuple(excluded))

    def is_test(self, relpath: str) -> bool:
        """Whether ``relpath`` (relative to the root, ``/`` separators) is a test file."""
        return any(fnmatch.fnmatchcase(relpath, pattern) for pattern in self.test_globs)

    def files(self) -> dict[str, Role]:
        """Every test and source file, by path relative to the root."""
        project = GateProject(self.root, excluded=tuple(self.excluded))
        is_source = self._source_rule(project)
        roles: dict[str, Role] = {}
        for path in project.python_files:
            relpath = project.relative(path)
            if self.is_test(relpath):
                roles[relpath] = "test"
            elif is_source(relpath):
                roles[relpath] = "source"
        return roles

    def _source_rule(self, project: GateProject) -> Callable[[str], bool]:
        """Which files are source: those ``source_globs`` match; without globs, the project's
        packages; in a flat project (modules next to the tests, no package), every other file."""
        if self.source_globs:
            globs = self.source_globs
            return lambda relpath: any(fnmatch.fnmatchcase(relpath, g) for g in globs)
        source_set = {project.relative(path) for path in project.source_files}
        if not source_set:
            return lambda relpath: True
        return source_set.__contains__


def hash_tree(layout: TreeLayout) -> FileHashes:
    """The hash of every test and source file as it is now.

    A file that vanishes between listing and reading is left out, as if it had not been
    listed; a file that cannot be read for another reason is an error naming it.
    """
    source: dict[str, str] = {}
    tests: dict[str, str] = {}
    for relpath, role in sorted(layout.files().items()):
        try:
            data = (layout.root / relpath).read_bytes()
        except FileNotFoundError:
            continue
        (tests if role == "test" else source)[relpath] = hash_bytes(data)
    return FileHashes(source=source, tests=tests)


def content_hash(files: FileHashes) -> str:
    """One hash over every file's role, path and hash: equal trees, equal hashes."""
    digest = hashlib.sha256()
    for role, table in (("source", files.source), ("test", files.tests)):
        for path in sorted(table):
            digest.update(f"{role}\0{path}\0{table[path]}\n".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class FileChange:
    """How one file differs between two states."""

    path: str
    change: Literal["added", "removed", "changed"]

    def __str__(self) -> str:
        return f"{self.path} ({self.change})"


def changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[FileChange]:
    """The files added, removed or changed from ``before`` to ``after``, by path."""
    found: list[FileChange] = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        kind: Literal["added", "removed", "changed"]
        kind = "added" if old is None else "removed" if new is None else "changed"
        found.append(FileChange(path, kind))
    return found


def nodeid_path(nodeid: str, rootdir_prefix: str = "") -> str:
    """The file of a test node id, relative to the project root.

    ``rootdir_prefix`` is pytest's rootdir relative to the project root (usually empty).
    """
    path = nodeid.split("::", 1)[0]
    if not rootdir_prefix:
        return path
    return os.path.normpath(os.path.join(rootdir_prefix, path)).replace(os.sep, "/")
