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
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, NamedTuple, TypeVar, cast

from phasegate.autodebug.live import EXCLUDED_PARTS, project_path
from phasegate.autodebug.source import parse
from phasegate.errors import ConfigError
from phasegate.tomlfile import TOMLDecodeError, loads, table_in

if TYPE_CHECKING:
    from packaging.requirements import Requirement

    from phasegate.autodebug.context_index import Definition, RecordingIndex

__all__ = ["EditableSource", "Project", "TestFiles"]

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
        return relpath in self.known or any(_glob_matches(glob, relpath) for glob in self.globs)


class EditableSource(NamedTuple):
    """A project file auto-debug may rewrite and that parses: its path, text and tree."""

    path: str
    text: str
    tree: ast.Module


def _glob_matches(glob: str, relpath: str) -> bool:
    """Whether ``glob`` matches the path, or the file name if the glob has no ``/``."""
    if fnmatch.fnmatchcase(relpath, glob):
        return True
    return "/" not in glob and fnmatch.fnmatchcase(PurePosixPath(relpath).name, glob)


_T = TypeVar("_T")


class Project:
    """One project root: reading files, the edit policy, module names, the symbol index."""

    def __init__(self, root: Path, test_files: TestFiles, *, index_backend: str = "auto") -> None:
        self.root = Path(os.path.abspath(root))
        self.test_files = test_files
        self.index_backend = index_backend
        self._texts: dict[str, str | None] = {}
        self._worked_out: dict[tuple[str, Callable[[str], object]], tuple[str, object]] = {}

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

    def parsed_naming(self, name: str, relpaths: Iterable[str]) -> Iterator[tuple[str, ast.Module]]:
        """Each of ``relpaths`` whose text holds ``name``, parsed (a file that does not parse is
        left out): the files worth a look for a name, without parsing every one."""
        for relpath in relpaths:
            text = self.read(relpath)
            tree = parse(text) if text is not None and name in text else None
            if tree is not None:
                yield relpath, tree

    def parsed_once(self, relpath: str, text: str, work_out: Callable[[str], _T]) -> _T:
        """``work_out(text)`` for ``text``, the current text of ``relpath``: worked out once
        per text of each file and kept until the file's text changes, as the lost-guard search
        asks for the namesakes of many suspects across the project."""
        kept = self._worked_out.get((relpath, work_out))
        if kept is None or kept[0] != text:
            kept = (text, work_out(text))
            self._worked_out[relpath, work_out] = kept
        return cast("_T", kept[1])

    def read_editable(self, relpath: str | None) -> str | None:
        """The text of ``relpath`` if auto-debug may rewrite it, else None."""
        return self.read(relpath) if relpath is not None and self.editable(relpath) else None

    def editable_source(self, relpath: str | None) -> EditableSource | None:
        """``relpath`` read and parsed if auto-debug may rewrite it and it parses, else None."""
        text = self.read_editable(relpath)
        tree = parse(text) if text is not None else None
        if relpath is None or text is None or tree is None:
            return None
        return EditableSource(relpath, text, tree)

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
        return not _in_environment(target, real_root)

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

    def _project_files(self, paths: Iterable[Path]) -> list[str]:
        """The relative paths of those of ``paths`` that are project files."""
        return [relpath for path in paths if (relpath := self.relpath(path)) is not None]

    @cached_property
    def python_files(self) -> list[str]:
        """Every Python file of the project (test files included), sorted."""
        found: list[str] = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_PARTS and not d.startswith("."))
            python = (Path(folder) / name for name in sorted(files) if name.endswith(".py"))
            found.extend(self._project_files(python))
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
        from phasegate.autodebug.source import parse

        relative = absolute = 0
        own = {name.split(".")[0] for name in self.modules}
        for relpath in self.python_files:
            tree = parse(self.read(relpath) or "")
            if tree is None:
                continue
            imports = _file_imports(tree, own)
            counts.update(imports.modules)
            # A package's __init__ re-exports relatively even where the modules import
            # absolutely: it says nothing of the project's habit.
            if relpath not in self.test_files and not relpath.endswith("__init__.py"):
                relative += imports.relative
                absolute += imports.absolute_own
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
        wanted = list(dict.fromkeys(names))
        counts: Counter[str] = Counter(dict.fromkeys(wanted, 0))
        for relpath in self.python_files:
            skipped = skip[1:] if skip is not None and skip[0] == relpath else None
            counts.update(_names_in_code(self.read(relpath) or "", wanted, skipped))
        for relpath in self.documents:
            counts.update(_names_in_prose(self.read(relpath) or "", wanted))
        return counts

    @cached_property
    def documents(self) -> list[str]:
        """The project's prose: README and the files of ``docs/`` (Markdown, reST, text)."""
        found = [p.name for p in sorted(self.root.glob("README*")) if p.is_file()]
        docs = self.root / "docs"
        if docs.is_dir():
            prose = (p for p in sorted(docs.rglob("*")) if p.suffix in _PROSE and p.is_file())
            found.extend(self._project_files(prose))
        return found

    # -- dependencies -----------------------------------------------------------------------

    @cached_property
    def declared_dependencies(self) -> set[str]:
        """Normalized names of the distributions ``pyproject.toml`` declares, in any group."""
        from packaging.utils import canonicalize_name

        try:
            document = loads((self.root / "pyproject.toml").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, TOMLDecodeError):
            return set()
        names: set[str] = {
            canonicalize_name(requirement.name)
            for text in _requirement_texts(document)
            if (requirement := _requirement(text)) is not None
        }
        poetry = table_in(document, "tool", "poetry", "dependencies")
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


_PROSE = (".md", ".rst", ".txt")


def _in_environment(target: Path, real_root: Path) -> bool:
    """Whether a folder between ``target`` and the root holds a ``pyvenv.cfg``."""
    folder = target.parent
    while folder != real_root and real_root in folder.parents:
        if (folder / "pyvenv.cfg").exists():
            return True
        folder = folder.parent
    return False


class _FileImports(NamedTuple):
    """What one file imports: its modules, and its own package's imports by kind."""

    modules: set[str]
    relative: int
    absolute_own: int


def _file_imports(tree: ast.Module, own: set[str]) -> _FileImports:
    """The imports of a file; ``own`` are the project's top-level packages, for counting
    the absolute imports of them."""
    modules: set[str] = set()
    relative = absolute_own = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level:
            relative += 1
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            absolute_own += node.module.split(".")[0] in own
    return _FileImports(modules, relative, absolute_own)


def _names_in_code(text: str, wanted: list[str], skipped: tuple[int, int] | None) -> Counter[str]:
    """How often each of ``wanted`` occurs as a token of ``text``, outside the lines
    ``skipped`` = ``(first, last)``."""
    from phasegate.autodebug.source import count_names

    counts: Counter[str] = Counter()
    for name in (name for name in wanted if name in text):
        counts[name] = count_names(text, name)
        if skipped is not None:
            counts[name] -= count_names(text, name, first_line=skipped[0], last_line=skipped[1])
    return counts


def _names_in_prose(text: str, wanted: list[str]) -> Counter[str]:
    """How often each of ``wanted`` occurs as a word of ``text``."""
    return Counter({name: len(re.findall(rf"\b{re.escape(name)}\b", text)) for name in wanted})


def _requirement_texts(document: Mapping[str, object]) -> list[object]:
    """The requirement strings of ``[project]`` (``dependencies``, every optional group)
    and of ``[dependency-groups]``; the groups may hold ``{include-group = ...}`` tables."""
    project = table_in(document, "project")
    groups = [
        project.get("dependencies", []),
        *table_in(project, "optional-dependencies").values(),
        *table_in(document, "dependency-groups").values(),
    ]
    return [text for group in groups if isinstance(group, list) for text in group]


def _requirement(text: object) -> Requirement | None:
    """``text`` as a requirement, or None if it is not a valid requirement string."""
    from packaging.requirements import InvalidRequirement, Requirement

    if not isinstance(text, str):
        return None
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None
