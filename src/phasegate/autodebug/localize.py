"""Which functions most likely hold the fault of a failure auto-debug cannot repair.

Spectrum-based localization: the suite is re-run once under coverage.py with one dynamic
context per test (the ``phasegate.plugin.contexts`` plugin switches it), so each line knows
the tests that ran it. A function is scored with the Ochiai coefficient

    ef / sqrt((ef + nf) * (ef + ep))

where ``ef`` and ``ep`` are the failing and passing tests that run it and ``nf`` the failing
tests that do not. coverage's ``sysmon`` core records no contexts, so the ``ctrace`` core is
pinned for this run. Test files are measured but never ranked.
"""

from __future__ import annotations

import ast
import contextlib
import math
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from phasegate.autodebug.project import Project
from phasegate.autodebug.runner import RunResult, TestRunner
from phasegate.model.autodebug import SuspiciousFunction

__all__ = [
    "CONTEXTS_DATA_ENV",
    "CONTEXTS_INCLUDE_ENV",
    "CONTEXTS_SOURCE_ENV",
    "Spectrum",
    "collect_spectrum",
    "function_spans",
    "ochiai",
    "rank_functions",
]

#: Where the contexts plugin writes its coverage data, and what it measures.
CONTEXTS_DATA_ENV = "PHASEGATE_CONTEXTS_DATA"
CONTEXTS_SOURCE_ENV = "PHASEGATE_CONTEXTS_SOURCE"
#: Instead of a folder, the files to measure (joined by ``os.pathsep``): only they are traced.
CONTEXTS_INCLUDE_ENV = "PHASEGATE_CONTEXTS_INCLUDE"


def ochiai(ef: int, ep: int, nf: int) -> float:
    """The Ochiai suspiciousness of an element run by ``ef`` failing and ``ep`` passing tests,
    and not run by ``nf`` failing tests."""
    denominator = math.sqrt((ef + nf) * (ef + ep))
    return ef / denominator if denominator else 0.0


@dataclass
class Spectrum:
    """For each project file, the tests that ran each function; and how each test ended."""

    covered: dict[tuple[str, str, int], set[str]]  # (path, qualname, line) -> test node ids
    outcomes: dict[str, str]
    error: str | None = None


def function_spans(tree: ast.Module) -> list[tuple[str, int, int]]:
    """``(qualified name, first line, last line)`` of every function, nested ones included."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.append((name, child.lineno, child.end_lineno or child.lineno))
                visit(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def collect_spectrum(
    runner: TestRunner, project: Project, scratch: Path, extra_args: Iterable[str] = ()
) -> Spectrum:
    """Re-run the suite once with per-test coverage contexts and read the result."""
    data_file = scratch / f"contexts-{runner.runs + 1}.coverage"
    scratch.mkdir(parents=True, exist_ok=True)
    run = runner.run(
        None,
        extra_args=["-p", "phasegate.plugin.contexts", *extra_args],
        env={CONTEXTS_DATA_ENV: str(data_file), CONTEXTS_SOURCE_ENV: str(project.root)},
    )
    try:
        return _read_spectrum(data_file, project, run)
    finally:
        for leftover in scratch.glob(f"{data_file.name}*"):
            leftover.unlink()


def _read_spectrum(data_file: Path, project: Project, run: RunResult) -> Spectrum:
    """The spectrum of ``run``, or its error: the run's own, or its coverage data that cannot
    be read (a torn file), which must not stop auto-debug's end-of-run withdrawals."""
    if run.error is not None:
        return Spectrum({}, run.outcomes, run.error)
    from coverage.exceptions import CoverageException

    try:
        return Spectrum(_functions_run(data_file, project), run.outcomes)
    except (CoverageException, sqlite3.Error, OSError) as exc:
        return Spectrum({}, run.outcomes, f"its per-test coverage data could not be read: {exc}")


def _functions_run(data_file: Path, project: Project) -> dict[tuple[str, str, int], set[str]]:
    """For each ranked function of the project, the tests ``data_file`` saw run it."""
    from coverage import CoverageData

    covered: dict[tuple[str, str, int], set[str]] = {}
    with contextlib.closing(CoverageData(basename=str(data_file))) as data:  # closed if read fails
        data.read()
        for filename in data.measured_files():
            source = _ranked_source(project, filename)
            if source is None:
                continue
            relpath, tree = source
            by_line = data.contexts_by_lineno(filename)
            for name, first, last in function_spans(tree):
                tests = _tests_running(by_line, first, last)
                if tests:
                    covered[(relpath, name, first)] = tests
    return covered


def _ranked_source(project: Project, filename: str) -> tuple[str, ast.Module] | None:
    """A measured file's path in the project and its syntax tree, when it is a project file
    whose functions are ranked (not a test file) and it parses."""
    relpath = project.relpath(filename)
    if relpath is None or relpath in project.test_files:
        return None
    try:
        return relpath, ast.parse(project.read(relpath) or "")
    except (SyntaxError, ValueError):
        return None


def _tests_running(by_line: Mapping[int, Iterable[str]], first: int, last: int) -> set[str]:
    """The tests (coverage's contexts) that ran any of the lines ``first`` to ``last``."""
    return {
        context for line in range(first, last + 1) for context in by_line.get(line, ()) if context
    }


def rank_functions(
    spectrum: Spectrum, failing: Collection[str], *, top: int
) -> list[SuspiciousFunction]:
    """The ``top`` functions most suspicious for the ``failing`` tests, best first.

    Passing tests are those the spectrum run saw pass; failing tests of other failures are
    left out, so each failure gets its own ranking.
    """
    failing_set = set(failing)
    passing = {nodeid for nodeid, outcome in spectrum.outcomes.items() if outcome == "passed"}
    ranked: list[SuspiciousFunction] = []
    for (path, name, line), tests in spectrum.covered.items():
        ef = len(tests & failing_set)
        if not ef:
            continue
        ep = len(tests & passing)
        score = ochiai(ef, ep, len(failing_set) - ef)
        ranked.append(
            SuspiciousFunction(
                path=path,
                function=name,
                line=line,
                score=round(score, 4),
                failed_covering=ef,
                passed_covering=ep,
            )
        )
    ranked.sort(key=lambda s: (-s.score, s.passed_covering, s.path, s.line))
    return ranked[:top]
