"""The project as auto-debug sees it: its files, which of them it may edit, its modules.

A file may be edited only if it is a Python file inside the project root, outside virtual
environments and tool folders, and not a test file: not matched by a ``test_files`` glob and
not a file pytest collected tests from. The path is resolved first, following symbolic links:
a file reached through a link (into ``tests/``, out of the root, into a virtual environment or
anywhere else) is never written, nor a file in a folder that holds a ``pyvenv.cfg`` (a virtual
environment of any name).
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from phasegate.autodebug.live import EXCLUDED_PARTS, project_path
from phasegate.errors import ConfigError

if TYPE_CHECKING:
    from phasegate.autodebug.context_index import Definition, RecordingIndex

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["Project", "TestFiles"]

_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


class TestFiles:
    """Which files are test files: the configured globs, plus files known to hold tests.

    A glob is matched against the path relative to the project root (``*`` also matches
    ``/``); a glob without ``/`` is matched against the file name too.
    """

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self, globs: Iterable[str], known: Iterable[str] = ()) -> None:
        self.globs = tuple(globs)
        self.known = set(known)

    def add(self, relpath: str) -> None:
        """Protect one more file (a file pytest collected tests from)."""
        self.known.add(relpath)

    def __contains__(self, relpath: object) -> bool:
        if not isinstance(relpath, str):
            return False
        if relpath in self.known:
            return True
        name = PurePosixPath(relpath).name
        return any(
            fnmatch.fnmatchcase(relpath, glob)
            or ("/" not in glob and fnmatch.fnmatchcase(name, glob))
            for glob in self.globs
        )


class Project:
    """One project root: reading files, the edit policy, module names, the symbol index."""

    def __init__(self, root: Path, test_files: TestFiles, *, index_backend: str = "auto") -> None:
        self.root = Path(os.path.abspath(root))
        self.test_files = test_files
        self.index_backend = index_backend
        self._texts: dict[str, str | None] = {}

    # -- files ------------------------------------------------------------------------------

    def relpath(self, path: str | os.PathLike[str]) -> str | None:
        """``path`` relative to the root if it is a project file, else None."""
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        return project_path(candidate, self.root)

    def abspath(self, relpath: str) -> Path:
        """The absolute path of a project file; refuses anything outside the project."""
        resolved = (self.root / relpath).resolve()
        if project_path(resolved, self.root.resolve()) is None:
            raise ConfigError(f"{relpath} is outside the project root {self.root}")
        return resolved

    def read(self, relpath: str) -> str | None:
        """The current text of a project file (not cached: files change as repairs are kept)."""
        try:
            with open(self.abspath(relpath), encoding="utf-8", newline="") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError, ConfigError):
            return None

    def read_editable(self, relpath: str | None) -> str | None:
        """The text of ``relpath`` if auto-debug may rewrite it, else None."""
        return self.read(relpath) if relpath is not None and self.editable(relpath) else None

    def editable(self, relpath: str | None) -> bool:
        """Whether auto-debug may rewrite ``relpath``."""
        if relpath is None or not relpath.endswith(".py") or relpath in self.test_files:
            return False
        if self.relpath(relpath) != relpath:
            return False
        return self._real_file(relpath)

    def _real_file(self, relpath: str) -> bool:
        """Whether ``relpath`` is a plain file, reached through no link, outside environments."""
        real_root = self.root.resolve()
        target = (self.root / relpath).resolve()
        if project_path(target, real_root) != relpath or not target.is_file():
            return False  # a link (or a part of the path that is one) leads elsewhere
        folder = target.parent
        while folder != real_root and real_root in folder.parents:
            if (folder / "pyvenv.cfg").exists():
                return False
            folder = folder.parent
        return True

    def why_not_editable(self, relpath: str | None) -> str:
        """One sentence on why :meth:`editable` said no."""
        if relpath is None:
            return "the fault is outside the project (in the standard library or a package)"
        if relpath in self.test_files:
            return f"the fault is in the test file {relpath}, which auto-debug never edits"
        if not relpath.endswith(".py"):
            return f"{relpath} is not a Python file"
        if self.relpath(relpath) == relpath and (self.root / relpath).is_file():
            return (
                f"{relpath} is reached through a symbolic link or lies in a virtual "
                "environment, which auto-debug never writes"
            )
        return f"{relpath} is not a file of the project that may be edited"

    @cached_property
    def python_files(self) -> list[str]:
        """Every Python file of the project (test files included), sorted."""
        found: list[str] = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_PARTS and not d.startswith("."))
            for name in sorted(files):
                if name.endswith(".py"):
                    relpath = self.relpath(Path(folder) / name)
                    if relpath is not None:
                        found.append(relpath)
        return found

    @cached_property
    def source_files(self) -> list[str]:
        """The Python files that are not test files."""
        return [path for path in self.python_files if path not in self.test_files]

    # -- modules ----------------------------------------------------------------------------

    def module_name(self, relpath: str) -> str | None:
        """The dotted name ``relpath`` is imported under, following ``__init__.py`` upwards."""
        path = PurePosixPath(relpath)
        if path.suffix != ".py":
            return None
        parts = [] if path.stem == "__init__" else [path.stem]
        folder = path.parent
        while str(folder) not in ("", ".") and (self.root / folder / "__init__.py").is_file():
            parts.insert(0, folder.name)
            folder = folder.parent
        return ".".join(parts) or None

    @cached_property
    def modules(self) -> dict[str, str]:
        """``{dotted name: file}`` for every project file."""
        names: dict[str, str] = {}
        for relpath in self.python_files:
            name = self.module_name(relpath)
            if name is not None:
                names.setdefault(name, relpath)
        return names

    def package_of(self, relpath: str) -> str:
        """The package a file's relative imports start from (``''`` for a top-level file)."""
        name = self.module_name(relpath) or ""
        if relpath.endswith("__init__.py"):
            return name
        return name.rpartition(".")[0]

    @cached_property
    def imported_modules(self) -> Counter[str]:
        """How many project files import each module: the project's own habits."""
        return self._import_habits[0]

    @cached_property
    def relative_imports(self) -> bool:
        """Whether the project's modules (``__init__.py`` aside) import their own package
        relatively, mostly."""
        relative, absolute = self._import_habits[1]
        return relative > absolute

    @cached_property
    def _import_habits(self) -> tuple[Counter[str], tuple[int, int]]:
        counts: Counter[str] = Counter()
        relative = absolute = 0
        own = {name.split(".")[0] for name in self.modules}
        for relpath in self.python_files:
            text = self.read(relpath)
            if text is None:
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            seen: set[str] = set()
            # A package's __init__ re-exports relatively even where the modules import
            # absolutely: it says nothing of the project's habit.
            source = relpath not in self.test_files and not relpath.endswith("__init__.py")
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    seen.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    seen.add(node.module)
                    absolute += source and node.module.split(".")[0] in own
                elif isinstance(node, ast.ImportFrom) and node.level:
                    relative += source
            counts.update(seen)
        return counts, (relative, absolute)

    @cached_property
    def test_vocabulary(self) -> Counter[str]:
        """How often each identifier occurs in the test files: the spelling the tests expect."""
        counts: Counter[str] = Counter()
        for relpath in self.python_files:
            if relpath in self.test_files:
                counts.update(_IDENTIFIER.findall(self.read(relpath) or ""))
        return counts

    # -- spellings --------------------------------------------------------------------------

    def spelling_counts(
        self, names: Iterable[str], *, skip: tuple[str, int, int] | None = None
    ) -> Counter[str]:
        """How often each identifier occurs in the project's Python files (tests included)
        and its documentation, leaving out the lines ``skip`` = ``(path, first, last)``."""
        from phasegate.autodebug.source import count_names

        wanted = list(dict.fromkeys(names))
        counts: Counter[str] = Counter(dict.fromkeys(wanted, 0))
        for relpath in self.python_files:
            text = self.read(relpath)
            if text is None:
                continue
            for name in wanted:
                if name not in text:
                    continue
                counts[name] += count_names(text, name)
                if skip is not None and relpath == skip[0]:
                    counts[name] -= count_names(text, name, first_line=skip[1], last_line=skip[2])
        for relpath in self.documents:
            text = self.read(relpath) or ""
            for name in wanted:
                counts[name] += len(re.findall(rf"\b{re.escape(name)}\b", text))
        return counts

    @cached_property
    def documents(self) -> list[str]:
        """The project's prose: README and the files of ``docs/`` (Markdown, reST, text)."""
        found = [p.name for p in sorted(self.root.glob("README*")) if p.is_file()]
        docs = self.root / "docs"
        if docs.is_dir():
            for path in sorted(docs.rglob("*")):
                if path.suffix in (".md", ".rst", ".txt") and path.is_file():
                    relpath = self.relpath(path)
                    if relpath is not None:
                        found.append(relpath)
        return found

    # -- dependencies -----------------------------------------------------------------------

    @cached_property
    def declared_dependencies(self) -> set[str]:
        """Normalized names of the distributions ``pyproject.toml`` declares, in any group."""
        from packaging.requirements import InvalidRequirement, Requirement
        from packaging.utils import canonicalize_name

        try:
            document = tomllib.loads((self.root / "pyproject.toml").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return set()
        texts: list[Any] = []
        project = document.get("project", {})
        texts.extend(project.get("dependencies", []))
        for group in project.get("optional-dependencies", {}).values():
            texts.extend(group)
        for group in document.get("dependency-groups", {}).values():
            texts.extend(group)
        names: set[str] = set()
        for text in texts:
            if not isinstance(text, str):
                continue  # {include-group = ...} tables of dependency groups
            try:
                names.add(canonicalize_name(Requirement(text).name))
            except InvalidRequirement:
                continue
        poetry = document.get("tool", {}).get("poetry", {}).get("dependencies", {})
        names.update(canonicalize_name(name) for name in poetry if name != "python")
        return names

    # -- symbols ----------------------------------------------------------------------------

    @cached_property
    def definitions(self) -> list[Definition]:
        """The top-level definitions of the project's source files (not its tests)."""
        from phasegate.autodebug.context_index import extract_definitions

        found: list[Definition] = []
        for relpath in self.source_files:
            module = self.module_name(relpath)
            text = self.read(relpath)
            if module is not None and text is not None:
                found.extend(extract_definitions(text, module=module, path=relpath))
        return found

    @cached_property
    def index(self) -> RecordingIndex:
        """The context index over :attr:`definitions` (TF-IDF, or keywords without sklearn),
        recording each query for the run's context-analysis figures."""
        from phasegate.autodebug.context_index import RecordingIndex, build_index

        return RecordingIndex(build_index(self.definitions, backend=self.index_backend))
