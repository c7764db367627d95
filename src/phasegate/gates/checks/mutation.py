"""mutation: proves the tests of new code would notice a bug in it (diff-based mutation testing).

In the manner of diff-based mutation testing at Google and of mutmut 3 / Mull's incremental
mode: mutants (:mod:`phasegate.gates.mutants`) are made only on the lines of the package the
change adds or modifies (:mod:`phasegate.gates.newcode`), at most ``per_line`` a line and
``budget`` in all, chosen reproducibly by ``seed``. The project is copied to a temporary folder
(:mod:`phasegate.gates.mutation_copy`); the user's tree is never written. In the copy the tests
that passed in this run are run once, unmutated, with per-test coverage contexts; then each
mutant is run against only the tests that ran its line, in parallel (one copy per worker,
bounded by the cores), each run with a timeout (:mod:`phasegate.gates.mutation_runs`).

A mutant is *killed* when a test fails (or the run times out: an endless loop is noticed too,
and the finding says so) and *survives* when every test that ran its line still passes, or
when no test runs it. Each survivor is a finding at its file and line with the one-line diff.
``mutation_score_new`` is killed / mutants. A mutant whose run cannot start, crashes or reports
something that does not add up makes the check an error, never "killed". Without a base, or
with no changed line of the package to mutate, the check is skipped and says so.

A line run only while modules were imported (a module constant, a ``def`` line) is run by no
test in particular; its mutants run against every test that ran any line of that file.

Written here rather than wrapping a library: mutmut 3 mutates inside functions only through
its own trampolines in a ``mutants/`` folder, needs ``fork`` and has no diff scope; Cosmic Ray
filters by git diff but runs one test command for every mutant, without selecting tests by
coverage; mutatest has had no release since 2022. None selects the tests of each mutant from
per-test coverage on the changed lines, which is the point of this check.
"""

from __future__ import annotations

import os
import queue
import shutil
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from phasegate import clock
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.mutants import Mutant, choose_mutants, generate_mutants
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
from phasegate.gates.protocol import (
    CheckContext,
    CheckError,
    Measurement,
    MetricSpec,
    SessionData,
)
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.model.outcome import Outcome
from phasegate.settings import Section

__all__ = ["MutationCheck", "MutationOptions"]

#: Seconds every mutant run gets beyond its tests' own time (pytest starting, importing).
_STARTUP_S = 10.0
#: A mutant run may take this many times its tests' baseline time before it counts as hung.
_SLOWDOWN = 3.0


class MutationOptions(Section):
    """Options of the mutation check."""

    budget: int = Field(default=25, ge=1, le=1000, description="most mutants run in all")
    per_line: int = Field(default=2, ge=1, le=20, description="most mutants on one line")
    seed: int = Field(default=0, description="seed of the reproducible choice of mutants")
    workers: int = Field(
        default=0, ge=0, description="mutants run at once; 0: one per available core"
    )
    mutant_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="seconds a mutant's run may take; unset: 10 + 3 x its tests' baseline time",
    )


@dataclass(frozen=True)
class _Outcome:
    mutant: Mutant
    status: Literal["killed", "timeout", "survived", "not-covered", "error", "not-run"]
    tests: int
    reason: str = ""


class MutationCheck:
    """Fails by default when fewer than 80% of the mutants of the changed lines are killed."""

    id: ClassVar[str] = "mutation"
    title: ClassVar[str] = "mutation testing of the changed lines"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[MutationOptions]] = MutationOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("mutation_score_new", "mutants killed / mutants run", "rate"),
        MetricSpec("mutants", "mutants of the changed lines"),
        MetricSpec("killed", "mutants some test noticed"),
        MetricSpec("timed_out", "mutants killed because their run hung"),
        MetricSpec("survived", "mutants no test noticed"),
        MetricSpec("not_covered", "surviving mutants on lines no test runs"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="mutation_score_new", scope="new", op="<", value=0.8),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: MutationOptions) -> Sequence[Path] | None:
        return None  # it reads this run

    def measure(self, ctx: CheckContext, options: MutationOptions) -> Measurement:
        if ctx.new_code.all_new:
            return Measurement(
                summary="no base to compare with",
                skipped=f"{ctx.new_code.base.note}; mutation testing needs the lines a change "
                "adds (give --base, or run in a pull request)",
            )
        targets = _changed_package_files(ctx)
        if not targets:
            return Measurement(
                summary="no line of the package changed",
                skipped=f"no line of the package changed against {ctx.new_code.base.ref}",
            )
        candidates: list[Mutant] = []
        for relpath, lines in sorted(targets.items()):
            source = (ctx.project.root / relpath).read_text(encoding="utf-8", errors="replace")
            candidates.extend(generate_mutants(relpath, source, lines))
        if not candidates:
            return Measurement(
                summary="nothing to mutate",
                skipped=f"the changed lines of {len(targets)} package files hold no condition, "
                "comparison, constant, return or statement to mutate",
            )
        if ctx.session is None:
            raise CheckError(
                "the mutation check needs this run's tests, and no test run was given",
                fix="run the gate from pytest: pytest --gate=...",
            )
        chosen = choose_mutants(
            candidates, per_line=options.per_line, budget=options.budget, seed=options.seed
        )
        outcomes = _MutationRun(ctx, ctx.session, options, chosen).run()
        return _measurement(ctx, outcomes, len(candidates))


def _changed_package_files(ctx: CheckContext) -> dict[str, frozenset[int] | None]:
    """The package's Python files with changed lines (``None``: the whole file is new)."""
    found: dict[str, frozenset[int] | None] = {}
    for path in ctx.project.source_files:
        if path.name == "conftest.py" or path.name.startswith("test_"):
            continue
        relpath = ctx.project.relative(path)
        lines = ctx.new_code.lines_of(relpath)
        if lines is None or lines:
            found[relpath] = lines
    return found


class _MutationRun:
    """One check's copies, baseline run and mutant runs."""

    def __init__(
        self,
        ctx: CheckContext,
        session: SessionData,
        options: MutationOptions,
        mutants: list[Mutant],
    ) -> None:
        self.ctx = ctx
        self.session = session
        self.options = options
        self.mutants = mutants
        self.root = ctx.project.root.resolve()
        self.deadline = clock.monotonic() + 0.9 * ctx.timeout_s
        self.command = default_command()

    def run(self) -> list[_Outcome]:
        session = self.session
        passed = sorted(t.nodeid for t in session.run.tests if t.outcome is Outcome.PASSED)
        rootdir = Path(session.run.invocation.rootdir).resolve()
        if rootdir != self.root and self.root not in rootdir.parents:
            raise CheckError(
                f"the tests ran from {rootdir}, outside the project root {self.root}",
                fix="run pytest from the project root",
            )
        scratch = Path(tempfile.mkdtemp(prefix="phasegate-mutation-runs-"))
        copies: list[ProjectCopy] = []
        try:
            first = copy_project(self.root, listed_files(self.root), scratch)
            copies.append(first)
            for index in range(1, self._workers()):
                clone = ProjectCopy(scratch / f"copy-{index}" / "project")
                shutil.copytree(first.root, clone.root, symlinks=True)
                copies.append(clone)
            offset = rootdir.relative_to(self.root)
            for copy in copies:
                self._check_imports(copy)
            files = sorted({nodeid.split("::", 1)[0] for nodeid in passed})
            if not files:
                return [_Outcome(m, "not-covered", 0) for m in self.mutants]
            baseline = self._baseline(first, offset, files, scratch / "baseline")
            lines = read_contexts(scratch / "baseline" / "contexts.coverage", first.root)
            plans = [self._select(mutant, lines, baseline) for mutant in self.mutants]
            return self._run_all(plans, copies, offset, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _workers(self) -> int:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        limit = self.options.workers or cores or 1
        return max(1, min(limit, cores or 1, len(self.mutants)))

    def _dirs(self) -> list[Path]:
        """The package folders (or modules) holding a mutant."""
        mutated = {(self.root / mutant.path).resolve() for mutant in self.mutants}
        return [
            folder
            for folder in self.ctx.project.package_dirs
            if any(path == folder.resolve() or folder.resolve() in path.parents for path in mutated)
        ]

    def _env(self, copy: ProjectCopy) -> dict[str, str]:
        """The environment of the runs in ``copy``: its own code first on the import path."""
        return run_environment([copy.root / _import_root(d, self.root) for d in self._dirs()])

    def _check_imports(self, copy: ProjectCopy) -> None:
        names = sorted({d.stem if d.suffix == ".py" else d.name for d in self._dirs()})
        origins = import_origins(names, cwd=copy.root, env=self._env(copy))
        for name, origin in origins.items():
            where = Path(origin).resolve() if origin else None
            if where is None or copy.root.resolve() not in where.parents:
                raise CheckError(
                    f"in the copy of the project, {name!r} is imported from "
                    f"{origin or 'nowhere'}, not from the copy, so mutants would not be tested",
                    fix="make the package importable from its folder (a src/ layout or a "
                    "top-level package), or name it in [tool.phasegate] packages",
                )

    def _baseline(
        self, copy: ProjectCopy, offset: Path, files: list[str], scratch: Path
    ) -> TestRun:
        measured = [copy.root / mutant.path for mutant in self.mutants]
        baseline = run_tests(
            self.command,
            cwd=copy.root / offset,
            selection=files,
            scratch=scratch,
            timeout_s=max(1.0, self.deadline - clock.monotonic()),
            env=self._env(copy),
            contexts_of=sorted(set(measured)),
        )
        if baseline.verdict in ("error", "timeout") or not baseline.complete:
            raise CheckError(
                f"the tests could not be run in a copy of the project, without any mutant: "
                f"{baseline.reason or 'the run was incomplete'}",
                fix="run the same tests with pytest in a fresh checkout to see why",
            )
        if not (scratch / "contexts.coverage").is_file():
            raise CheckError("the baseline run in the copy wrote no per-test coverage data")
        return baseline

    def _select(
        self, mutant: Mutant, lines: dict[str, dict[int, frozenset[str]]], baseline: TestRun
    ) -> tuple[Mutant, list[str], float]:
        tests = covering_tests(lines.get(mutant.path, {}), mutant.line)
        if not tests:
            return mutant, [], 0.0
        passing = sorted(t for t in tests if baseline.outcomes.get(t) is Outcome.PASSED)
        if not passing:
            raise CheckError(
                f"every test that runs {mutant.path}:{mutant.line} fails in the copy of the "
                f"project without any mutant (for example {sorted(tests)[0]})",
                fix="run that test in a fresh checkout to see why",
            )
        seconds = sum(baseline.durations.get(t, 0.0) for t in passing)
        timeout = self.options.mutant_timeout_s or _STARTUP_S + _SLOWDOWN * seconds
        return mutant, passing, timeout

    def _run_all(
        self,
        plans: list[tuple[Mutant, list[str], float]],
        copies: list[ProjectCopy],
        offset: Path,
        scratch: Path,
    ) -> list[_Outcome]:
        free: queue.Queue[tuple[int, ProjectCopy]] = queue.Queue()
        for index, copy in enumerate(copies):
            free.put((index, copy))

        def one(number: int, plan: tuple[Mutant, list[str], float]) -> _Outcome:
            mutant, tests, timeout = plan
            if not tests:
                return _Outcome(mutant, "not-covered", 0)
            left = self.deadline - clock.monotonic()
            if left <= 0:
                return _Outcome(mutant, "not-run", len(tests), "the check ran out of time")
            index, copy = free.get()
            original = (copy.root / mutant.path).read_bytes()
            try:
                copy.write(mutant.path, mutant.text)
                run = run_tests(
                    self.command,
                    cwd=copy.root / offset,
                    selection=tests,
                    scratch=scratch / f"mutant-{number}",
                    timeout_s=min(timeout, left),
                    env=self._env(copy),
                    stop_at_first=True,
                )
            finally:
                copy.write_bytes(mutant.path, original)
                free.put((index, copy))
            return _classify(mutant, tests, run, timeout)

        with ThreadPoolExecutor(len(copies), thread_name_prefix="phasegate-mutant") as pool:
            return list(pool.map(one, range(len(plans)), plans))


def _classify(mutant: Mutant, tests: list[str], run: TestRun, timeout: float) -> _Outcome:
    if run.verdict == "failed":
        return _Outcome(mutant, "killed", len(tests), run.failing[0])
    if run.verdict == "passed":
        return _Outcome(mutant, "survived", len(tests))
    if run.verdict == "timeout":
        if run.duration_s + 1.0 < timeout:
            return _Outcome(mutant, "not-run", len(tests), "the check ran out of time")
        return _Outcome(mutant, "timeout", len(tests), run.reason)
    return _Outcome(mutant, "error", len(tests), run.reason)


def _import_root(package: Path, root: Path) -> Path:
    """The folder to put on the import path for ``package``, relative to the project root."""
    parent = package.resolve().parent
    if parent != root and root not in parent.parents:
        raise CheckError(
            f"the package {package} is outside the project root {root}",
            fix="name packages inside the project in [tool.phasegate] packages",
        )
    return parent.relative_to(root)


def _measurement(ctx: CheckContext, outcomes: list[_Outcome], candidates: int) -> Measurement:
    errors = [o for o in outcomes if o.status == "error"]
    if errors:
        first = errors[0]
        raise CheckError(
            f"{len(errors)} of {len(outcomes)} mutant runs could not be judged; "
            f"{first.mutant.path}:{first.mutant.line}: {first.reason}",
            fix="run the tests of that line with pytest in a fresh checkout to see why",
        )
    unrun = [o for o in outcomes if o.status == "not-run"]
    if unrun:
        raise CheckError(
            f"the check ran out of time with {len(unrun)} of {len(outcomes)} mutants not run",
            fix="raise the check's timeout_s, or lower its budget option",
        )
    killed = sum(o.status in ("killed", "timeout") for o in outcomes)
    timed_out = sum(o.status == "timeout" for o in outcomes)
    not_covered = sum(o.status == "not-covered" for o in outcomes)
    survived = len(outcomes) - killed
    score = round(killed / len(outcomes), 4)
    metrics: dict[str, MetricValue] = {
        "mutation_score_new": score,
        "mutants": len(outcomes),
        "killed": killed,
        "timed_out": timed_out,
        "survived": survived,
        "not_covered": not_covered,
    }
    findings = [_finding(ctx, o) for o in outcomes if o.status in ("survived", "not-covered")]
    timeouts = f" ({timed_out} by timeout: the mutant's run hung)" if timed_out else ""
    chosen = f" (of {candidates} possible)" if candidates > len(outcomes) else ""
    return Measurement(
        summary=f"{len(outcomes)} mutants of the changed lines{chosen}: {killed} killed"
        f"{timeouts}, {survived} survived; mutation score {score:.2f}",
        score=score,
        metrics=metrics,
        new_code_metrics=dict(metrics),
        findings=findings,
    )


def _finding(ctx: CheckContext, outcome: _Outcome) -> Finding:
    mutant = outcome.mutant
    if outcome.status == "not-covered":
        why = "no test runs this line"
    else:
        plural = "s" if outcome.tests != 1 else ""
        why = f"the {outcome.tests} test{plural} that run this line still pass"
    return locate(
        ctx.project,
        ctx.new_code,
        rule=f"mutant-{mutant.operator}",
        severity=Severity.MEDIUM,
        message=f"mutant survived ({mutant.operator}): {mutant.diff}; {why}",
        path=ctx.project.root / mutant.path,
        line=mutant.line,
    )
