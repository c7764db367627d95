"""Run the chosen mutants in copies of the project, each against the tests that run its line.

Which tests run each line comes from per-test coverage contexts: those the gate's own test run
recorded (``pytest --gate`` records them when its gate has the mutation check and a base), or,
when the run has none (pytest-cov measured it, or the gate has no coverage), from a run of this
check's own in the copy with the ``phasegate.plugin.contexts`` plugin. Either way the tests
chosen are first run once in the copy without any mutant (the control): a test that fails
there is never taken as the one that killed a mutant.

One copy per worker (bounded by the cores), each mutant written into a free copy, run, and the
original bytes put back. A run's timeout is 10 s plus 3 times what the control took for those
tests, start-up included; a run past it is run once more with three times as long before it
counts as hung (a loaded machine is not a killed mutant).
"""

from __future__ import annotations

import os
import queue
import shutil
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from phasegate import clock
from phasegate.gates.api import package_name
from phasegate.gates.mutants import Mutant
from phasegate.gates.mutation_copy import ProjectCopy, copy_project, listed_files
from phasegate.gates.mutation_runs import (
    TestRun,
    covering_tests,
    default_command,
    import_origins,
    read_contexts,
    run_environment,
    run_tests,
)
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckError
from phasegate.model.outcome import Outcome
from phasegate.model.run import RunReport

__all__ = ["MutantResult", "MutationRunner", "classify"]

#: Seconds every mutant run gets beyond its tests' own time.
_STARTUP_S = 10.0
#: A mutant run may take this many times its tests' control time before it counts as hung.
_SLOWDOWN = 3.0

LineContexts = Mapping[str, Mapping[int, frozenset[str]]]


@dataclass(frozen=True)
class MutantResult:
    """What became of one mutant, and how many tests it was run against."""

    mutant: Mutant
    status: Literal["killed", "timeout", "survived", "not-covered", "error", "not-run"]
    tests: int
    reason: str = ""


@dataclass(frozen=True)
class _Plan:
    mutant: Mutant
    tests: list[str]
    timeout_s: float = 0.0


class MutationRunner:
    """One check's copies, control run and mutant runs."""

    def __init__(
        self,
        project: GateProject,
        run: RunReport,
        mutants: list[Mutant],
        *,
        timeout_s: float,
        workers: int = 0,
        mutant_timeout_s: float | None = None,
        line_contexts: LineContexts | None = None,
    ) -> None:
        self.project = project
        self.report = run
        self.mutants = mutants
        self.root = project.root.resolve()
        self.deadline = clock.monotonic() + 0.9 * timeout_s
        self.workers = workers
        self.mutant_timeout_s = mutant_timeout_s
        self.line_contexts = line_contexts
        self.command = default_command()
        #: Whether the contexts were the gate run's (else this check traced a run itself).
        self.contexts_from_run = False

    def run(self) -> list[MutantResult]:
        """Run every mutant; each result says what became of it."""
        passed = {t.nodeid for t in self.report.tests if t.outcome is Outcome.PASSED}
        rootdir = self._rootdir()
        if not passed:
            return [MutantResult(m, "not-covered", 0) for m in self.mutants]
        scratch = Path(tempfile.mkdtemp(prefix="phasegate-mutation-runs-"))
        try:
            copies = self._copies(scratch)
            offset = rootdir.relative_to(self.root)
            plans = self._plans(copies[0], offset, passed, scratch)
            return self._run_all(plans, copies, offset, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _rootdir(self) -> Path:
        """Where the tests ran from, which must be inside the project."""
        rootdir = Path(self.report.invocation.rootdir).resolve()
        if not rootdir.is_relative_to(self.root):
            raise CheckError(
                f"the tests ran from {rootdir}, outside the project root {self.root}",
                fix="run pytest from the project root",
            )
        return rootdir

    def _plans(
        self, copy: ProjectCopy, offset: Path, passed: set[str], scratch: Path
    ) -> list[_Plan]:
        """Each mutant with the passing tests that run its line, timed by a run without it."""
        lines = self._lines(copy, offset, passed, scratch / "traced")
        wanted = {m: sorted(self._tests_of(m, lines) & passed) for m in self.mutants}
        union = sorted({test for tests in wanted.values() for test in tests})
        control = self._control(copy, offset, union, scratch / "control")
        return [self._plan(mutant, tests, control) for mutant, tests in wanted.items()]

    # -- preparing -------------------------------------------------------------------------

    def _copies(self, scratch: Path) -> list[ProjectCopy]:
        first = copy_project(self.root, listed_files(self.root), scratch)
        copies = [first]
        for index in range(1, self._worker_count()):
            clone = ProjectCopy(scratch / f"copy-{index}" / "project")
            shutil.copytree(first.root, clone.root, symlinks=True)
            copies.append(clone)
        for copy in copies:
            self._check_imports(copy)
        return copies

    def _worker_count(self) -> int:
        if hasattr(os, "sched_getaffinity"):
            cores = len(os.sched_getaffinity(0))
        else:  # pragma: no cover - not Linux
            cores = os.cpu_count() or 1
        limit = self.workers or cores
        return max(1, min(limit, cores, len(self.mutants)))

    def _dirs(self) -> list[Path]:
        """The package folders (or modules) holding a mutant."""
        mutated = {(self.root / mutant.path).resolve() for mutant in self.mutants}
        return [
            folder
            for folder in self.project.package_dirs
            if any(path.is_relative_to(folder.resolve()) for path in mutated)
        ]

    def _env(self, copy: ProjectCopy) -> dict[str, str]:
        """The environment of the runs in ``copy``: its own code first on the import path."""
        return run_environment([copy.root / _import_root(d, self.root) for d in self._dirs()])

    def _check_imports(self, copy: ProjectCopy) -> None:
        names = sorted({package_name(folder) for folder in self._dirs()})
        for name, origin in import_origins(names, cwd=copy.root, env=self._env(copy)).items():
            where = Path(origin).resolve() if origin else None
            if where is None or copy.root.resolve() not in where.parents:
                raise CheckError(
                    f"in the copy of the project, {name!r} is imported from "
                    f"{origin or 'nowhere'}, not from the copy, so mutants would not be tested",
                    fix="make the package importable from its folder (a src/ layout or a "
                    "top-level package), or name it in [tool.phasegate] packages",
                )

    def _lines(
        self, copy: ProjectCopy, offset: Path, passed: set[str], scratch: Path
    ) -> LineContexts:
        """Which tests ran each line: the gate run's contexts, else a traced run in the copy."""
        if self.line_contexts is not None and _records_tests(self.line_contexts):
            self.contexts_from_run = True
            return self.line_contexts
        return self._traced(copy, offset, passed, scratch)

    def _traced(
        self, copy: ProjectCopy, offset: Path, passed: set[str], scratch: Path
    ) -> LineContexts:
        """Which passing tests ran each line, from a run of the passed tests' files in the copy
        that records per-test coverage of the mutated files."""
        files = sorted({nodeid.split("::", 1)[0] for nodeid in passed})
        measured = sorted({copy.root / mutant.path for mutant in self.mutants})
        traced = self._run_unmutated(copy, offset, files, scratch, contexts_of=measured)
        if not (scratch / "contexts.coverage").is_file():
            raise CheckError("the traced run in the copy wrote no per-test coverage data")
        found = read_contexts(scratch / "contexts.coverage", copy.root)
        passing = {t for t, outcome in traced.outcomes.items() if outcome is Outcome.PASSED}
        return _only_passing(found, passing)

    def _control(self, copy: ProjectCopy, offset: Path, tests: list[str], scratch: Path) -> TestRun:
        """The chosen tests, once, without a mutant: what they take, and which pass."""
        if not tests:
            return TestRun("passed", complete=True)
        return self._run_unmutated(copy, offset, tests, scratch)

    def _run_unmutated(
        self,
        copy: ProjectCopy,
        offset: Path,
        selection: list[str],
        scratch: Path,
        contexts_of: list[Path] | None = None,
    ) -> TestRun:
        run = run_tests(
            self.command,
            cwd=copy.root / offset,
            selection=selection,
            scratch=scratch,
            timeout_s=max(1.0, self.deadline - clock.monotonic()),
            env=self._env(copy),
            contexts_of=contexts_of or (),
        )
        if run.verdict in ("error", "timeout") or not run.complete:
            raise CheckError(
                f"the tests could not be run in a copy of the project, without any mutant: "
                f"{run.reason or 'the run was incomplete'}",
                fix="run the same tests with pytest in a fresh checkout to see why",
            )
        return run

    def _tests_of(self, mutant: Mutant, lines: LineContexts) -> set[str]:
        return covering_tests(lines.get(mutant.path, {}), mutant.line)

    def _plan(self, mutant: Mutant, tests: list[str], control: TestRun) -> _Plan:
        if not tests:
            return _Plan(mutant, [])
        passing = [t for t in tests if control.outcomes.get(t) is Outcome.PASSED]
        if not passing:
            raise CheckError(
                f"every test that runs {mutant.path}:{mutant.line} fails in the copy of the "
                f"project without any mutant (for example {tests[0]})",
                fix="run that test in a fresh checkout to see why",
            )
        own = sum(control.durations.get(t, 0.0) for t in passing)
        start_up = max(0.0, control.duration_s - sum(control.durations.values()))
        timeout = self.mutant_timeout_s or _STARTUP_S + _SLOWDOWN * (start_up + own)
        return _Plan(mutant, passing, timeout)

    # -- running ---------------------------------------------------------------------------

    def _run_all(
        self, plans: list[_Plan], copies: list[ProjectCopy], offset: Path, scratch: Path
    ) -> list[MutantResult]:
        free: queue.Queue[ProjectCopy] = queue.Queue()
        for copy in copies:
            free.put(copy)

        def one(number: int, plan: _Plan) -> MutantResult:
            if not plan.tests:
                return MutantResult(plan.mutant, "not-covered", 0)
            copy = free.get()
            try:
                return self._run_one(plan, copy, offset, scratch / f"mutant-{number}")
            finally:
                free.put(copy)

        with ThreadPoolExecutor(len(copies), thread_name_prefix="phasegate-mutant") as pool:
            return list(pool.map(one, range(len(plans)), plans))

    def _run_one(self, plan: _Plan, copy: ProjectCopy, offset: Path, scratch: Path) -> MutantResult:
        mutant = plan.mutant
        original = (copy.root / mutant.path).read_bytes()
        try:
            copy.write(mutant.path, mutant.text)
            timeout = plan.timeout_s
            for attempt in range(2):
                left = self.deadline - clock.monotonic()
                if left <= 0:
                    return MutantResult(mutant, "not-run", len(plan.tests), "out of time")
                run = run_tests(
                    self.command,
                    cwd=copy.root / offset,
                    selection=plan.tests,
                    scratch=scratch / str(attempt),
                    timeout_s=min(timeout, left),
                    env=self._env(copy),
                    stop_at_first=True,
                )
                result = classify(mutant, plan.tests, run, timeout)
                if result.status != "timeout" or attempt:
                    return result
                timeout *= _SLOWDOWN  # hung, or only slowed by a busy machine? once more
            return result
        finally:
            copy.write_bytes(mutant.path, original)


def classify(mutant: Mutant, tests: list[str], run: TestRun, timeout_s: float) -> MutantResult:
    """A mutant's fate from its run: a failing test kills it; a run past its own timeout
    counts as killed by the timeout; a run cut short by the check's deadline is not run; a run
    that cannot be judged is an error, never killed."""
    if run.verdict == "failed":
        return MutantResult(mutant, "killed", len(tests), run.failing[0])
    if run.verdict == "passed":
        return MutantResult(mutant, "survived", len(tests))
    if run.verdict == "timeout":
        if run.duration_s + 1.0 < timeout_s:
            return MutantResult(mutant, "not-run", len(tests), "the check ran out of time")
        return MutantResult(mutant, "timeout", len(tests), run.reason)
    return MutantResult(mutant, "error", len(tests), run.reason)


def _records_tests(contexts: LineContexts) -> bool:
    """Whether any line was recorded under a test's context (coverage's ``sysmon`` core and
    pytest-cov record none)."""
    return any(name for lines in contexts.values() for names in lines.values() for name in names)


def _import_root(package: Path, root: Path) -> Path:
    """The folder to put on the import path for ``package``, relative to the project root."""
    parent = package.resolve().parent
    if not parent.is_relative_to(root):
        raise CheckError(
            f"the package {package} is outside the project root {root}",
            fix="name packages inside the project in [tool.phasegate] packages",
        )
    return parent.relative_to(root)


def _only_passing(found: LineContexts, passing: set[str]) -> LineContexts:
    """The contexts without the tests that failed in the copy: only a test that passed there
    too can be asked to kill a mutant (the import-time context ``""`` stays)."""
    return {
        path: {line: frozenset(names & passing | (names & {""})) for line, names in lines.items()}
        for path, lines in found.items()
    }
