"""Helpers for auto-debug's engine tests: raise a real exception in a small project."""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.patterns import BUILTIN_PATTERNS, Pattern, classify_exception
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.settings import DEFAULT_TEST_FILES
from phasegate.autodebug.source import ast_equal
from phasegate.model.autodebug import SuspiciousFunction


def write_project(root: Path, files: dict[str, str]) -> None:
    """Write ``{relative path: source}`` (dedented) under ``root``."""
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def classify_in(
    root: Path,
    files: dict[str, str],
    code: str,
    monkeypatch: pytest.MonkeyPatch,
    patterns: Sequence[Pattern] = BUILTIN_PATTERNS,
) -> Diagnosis:
    """Write the project, run ``code`` with it importable, and classify what it raised.

    The exception is classified while it is live, as in pytest: before the modules the
    code imported are forgotten again.
    """
    write_project(root, files)
    monkeypatch.syspath_prepend(str(root))
    tops = {Path(relpath).parts[0].removesuffix(".py") for relpath in files}
    already_imported = set(sys.modules)
    try:
        exec(compile(textwrap.dedent(code), "<test>", "exec"), {})  # noqa: S102 - test input
    except BaseException as exc:  # noqa: BLE001 - the exception is what the test is about
        return classify_exception(exc, root, patterns)
    finally:
        # Forget only what the code imported: never a module of the suite running this test.
        imported = [m for m in sys.modules if m not in already_imported]
        for name in [m for m in imported if m.split(".")[0] in tops]:
            del sys.modules[name]
    raise AssertionError(f"{code!r} raised nothing")


def diagnose(
    root: Path, files: dict[str, str], code: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Diagnosis, list[Candidate], Project]:
    """The diagnosis of what ``code`` raises, and its pattern's candidates, best first."""
    diagnosis = classify_in(root, files, code, monkeypatch)
    project = Project(root, TestFiles(DEFAULT_TEST_FILES), index_backend="auto")
    pattern = {p.name: p for p in BUILTIN_PATTERNS}.get(diagnosis.pattern)
    candidates = pattern.propose(diagnosis, project) if pattern else []
    return diagnosis, sorted(candidates, key=lambda c: -c.score), project


def explain(diagnosis: Diagnosis, candidate: Candidate | None) -> str:
    """The pattern's one-line explanation."""
    pattern = {p.name: p for p in BUILTIN_PATTERNS}[diagnosis.pattern]
    return pattern.explain(diagnosis, candidate)


def restores(candidate: Candidate, original: str) -> bool:
    """Whether the candidate's only edit has the syntax tree of ``original``."""
    (edit,) = candidate.edits
    return ast_equal(edit.text, textwrap.dedent(original).lstrip("\n"))


class SameRuns:
    """A runner whose every re-run of ``test_file`` reports the same outcomes."""

    def __init__(self, result: RunResult, scratch: Path, test_file: str) -> None:
        self.result = result
        self.base_args: list[str] = [test_file]
        self.cwd = scratch
        self.scratch = scratch
        self.runs = 0

    def run(self, selection: object = None, **_: object) -> RunResult:
        self.runs += 1
        return self.result


def suspects_in(
    root: Path, text: str, name: str, copies: int = 1
) -> tuple[Project, list[SuspiciousFunction]]:
    """A project of one module ``mod.py`` (``text``) and an empty ``tests/`` folder, with the
    function or class ``name`` as the suspect, ``copies`` times over."""
    (root / "mod.py").write_text(text)
    (root / "tests").mkdir()
    line = next(n.lineno for n in ast.walk(ast.parse(text)) if getattr(n, "name", None) == name)
    suspect = SuspiciousFunction(
        path="mod.py", function=name, line=line, score=0.9, failed_covering=1, passed_covering=0
    )
    return Project(root, TestFiles(["tests/*"])), [suspect] * copies
