"""The project under check: its root, its Python files, its packages and its pyproject.

Files come from git (tracked, plus untracked files that are not ignored) so that a gate sees
what a commit would hold; outside a git work tree the folder is walked, skipping virtual
environments, caches and build output. The importable code ("packages") is what
``[tool.phasegate] packages`` names, else a ``src/`` layout, else top-level packages. Files
matching ``[tool.phasegate] exclude`` (fnmatch patterns on the path relative to the root, where
``*`` also matches ``/``) are left out of every list, for example sample projects with
deliberate faults.

In a git work tree, git failing to list the files (a corrupt index, say) is a
:class:`~phasegate.gates.protocol.CheckError`, never "no files": a check that sees no files
would pass. Without git installed, a folder with no ``.git`` above it is walked; one with a
``.git`` is an error, since what a commit would hold cannot be told.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from phasegate import tomlfile
from phasegate.failures import relative_path
from phasegate.gates.git import NO_SUCH_REVISION, git_text, git_work_tree
from phasegate.gates.parsed import SyntaxTrees
from phasegate.gates.protocol import CheckError

__all__ = ["NOT_PACKAGES", "SKIPPED_DIRS", "GateProject"]

#: Folders never walked for source files outside git.
SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", "env", ".tox", ".nox", "build", "dist",
        "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
        ".eggs", ".phasegate", "site-packages",
    }
)  # fmt: skip

#: Top-level folders that hold Python files but are not the project's importable code.
NOT_PACKAGES = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "benchmarks", "fixtures", "scripts"}
)

_GIT_TIMEOUT_S = 30.0
_LIST_ALL = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]


@dataclass
class GateProject:
    """The project a gate checks: its files, packages and pyproject, computed once on first use.

    (Auto-debug's :class:`phasegate.autodebug.project.Project` is another thing: the files a
    repair may read and edit.)
    """

    root: Path
    packages_setting: Sequence[str] = ()
    excluded: Sequence[Path] = field(default_factory=tuple)
    exclude_patterns: Sequence[str] = ()
    #: Each file parsed once for every check that reads syntax trees.
    trees: SyntaxTrees = field(default_factory=SyntaxTrees, compare=False, repr=False)

    def relative(self, path: str | os.PathLike[str]) -> str:
        """``path`` relative to the root, with ``/`` separators."""
        return relative_path(path, self.root)

    def inside(self, relpath: str, what: str) -> Path:
        """``relpath`` (from a setting: ``what`` names it) resolved inside the root.

        A path that leaves the root, through ``..`` or a symbolic link, is a CheckError:
        nothing read from a file is trusted as a path.
        """
        root = self.root.resolve()
        path = (root / relpath).resolve()
        if not path.is_relative_to(root):
            raise CheckError(
                f"{what} = {relpath!r} resolves to {path}, outside the project root {root}",
                fix=f"name a file inside the project for {what}",
            )
        return path

    @cached_property
    def _work_tree(self) -> Path | None:
        """The top folder of the git work tree the root is in (``None`` outside one): one git
        question for :attr:`in_git` and :attr:`git_toplevel`, asked once per run; a
        CheckError when git cannot tell."""
        try:
            return git_work_tree(self.root, timeout_s=_GIT_TIMEOUT_S)
        except CheckError:
            if not _git_installed() and not any(
                (folder / ".git").exists() for folder in (self.root, *self.root.parents)
            ):
                return None  # no git and no repository: walk the folder
            raise

    @property
    def in_git(self) -> bool:
        """Whether the root is inside a git work tree (a CheckError when git cannot tell)."""
        return self._work_tree is not None

    @property
    def git_toplevel(self) -> Path | None:
        """The top folder of the git work tree (``None`` outside one), asked once per run."""
        return self._work_tree

    @cached_property
    def head(self) -> str | None:
        """The commit HEAD names; ``None`` outside git, or before the first commit."""
        if not self.in_git:
            return None
        return git_text(
            self.root,
            ["rev-parse", "--verify", "HEAD"],
            timeout_s=_GIT_TIMEOUT_S,
            none_when=NO_SUCH_REVISION,
        )

    @cached_property
    def python_files(self) -> list[Path]:
        """Every Python file of the project, sorted (in git: of :attr:`all_files`)."""
        if not self.in_git:
            walked = self._walk()
            return sorted({p for p in walked if p.is_file() and not self._is_excluded(p)})
        files = [path for path in self.all_files if path.name.endswith(".py")]
        if not files:
            self._refuse_unlisted(".py")  # git listed files, but no Python file
        return files

    @cached_property
    def all_files(self) -> list[Path]:
        """Every file of the project, of any kind, as :attr:`python_files` lists them."""
        if self.in_git:
            candidates: Iterable[Path] = [self.root / name for name in self.git_listing]
        else:
            candidates = self._walk(suffix="")
        return sorted(
            {path for path in candidates if path.is_file() and not self._is_excluded(path)}
        )

    @cached_property
    def package_dirs(self) -> list[Path]:
        """The folders (or single modules) of the project's importable code."""
        if self.packages_setting:
            return [(self.root / entry).resolve() for entry in self.packages_setting]
        return _src_layout(self.root / "src") or _top_level_packages(self.root)

    @cached_property
    def source_files(self) -> list[Path]:
        """The Python files of the packages."""
        roots = self.package_dirs
        return [
            path for path in self.python_files if any(path.is_relative_to(root) for root in roots)
        ]

    @cached_property
    def pyproject(self) -> dict[str, object]:
        """``pyproject.toml`` as data (empty when there is none or it cannot be read); free-form,
        each reader narrows what it reads (:func:`phasegate.tomlfile.table_in`)."""
        path = self.root / "pyproject.toml"
        try:
            return tomlfile.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomlfile.TOMLDecodeError):
            return {}

    @property
    def top_level_names(self) -> set[str]:
        """The import names the project's own code defines (first-party)."""
        return {path.stem if path.suffix == ".py" else path.name for path in self.package_dirs}

    def _walk(self, suffix: str = ".py") -> Iterable[Path]:
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [
                name
                for name in dirs
                if name not in SKIPPED_DIRS and not (Path(folder) / name / "pyvenv.cfg").exists()
            ]
            for name in files:
                if name.endswith(suffix):
                    yield Path(folder) / name

    def _is_excluded(self, path: Path) -> bool:
        if any(path.is_relative_to(root) for root in self.excluded):
            return True
        if not self.exclude_patterns:
            return False
        relative = self.relative(path)
        return any(fnmatch.fnmatchcase(relative, pattern) for pattern in self.exclude_patterns)

    @cached_property
    def git_listing(self) -> list[str]:
        """What git lists at the root (tracked files, and untracked ones it does not ignore),
        relative to the root; a CheckError when git fails (never an empty list for it).

        Asked once per run, for the file lists and the build's copy of the project. An empty
        list is believed only if git also says it ignores every file the folder holds: real
        git lists untracked files too, so "nothing" beside files on disk means the answer was
        not git's.
        """
        listed = git_text(self.root, _LIST_ALL, timeout_s=_GIT_TIMEOUT_S)
        names = [name for name in listed.split("\0") if name]
        if not names:
            self._refuse_unlisted("")
        return names

    def _refuse_unlisted(self, suffix: str) -> None:
        on_disk = [self.relative(path) for path in itertools.islice(self._walk(suffix), 50)]
        if not on_disk:
            return
        said = git_text(
            self.root,
            ["check-ignore", "-z", "--stdin"],
            timeout_s=_GIT_TIMEOUT_S,
            stdin="\0".join(on_disk),
            ok_codes=(0, 1),
        )
        ignored = {name for name in said.split("\0") if name}
        unexplained = [name for name in on_disk if name not in ignored]
        if unexplained:
            raise CheckError(
                f"git listed no file, yet {unexplained[0]} is in the work tree and git does not "
                "say it ignores it; the file list cannot be trusted",
                fix="run `git ls-files --cached --others --exclude-standard` to see why",
            )


def _src_layout(src: Path) -> list[Path]:
    """The packages and modules directly in ``src/``, if there is one."""
    if not src.is_dir():
        return []
    return [
        child
        for child in sorted(src.iterdir())
        if (child / "__init__.py").is_file() or (child.suffix == ".py" and child.is_file())
    ]


def _top_level_packages(root: Path) -> list[Path]:
    """The packages at the root, but for tests, docs, tools (NOT_PACKAGES) and hidden ones."""
    return [
        child
        for child in sorted(root.iterdir())
        if child.is_dir()
        and child.name not in NOT_PACKAGES
        and not child.name.startswith(".")
        and (child / "__init__.py").is_file()
    ]


def _git_installed() -> bool:
    import shutil

    return shutil.which("git") is not None
