"""mutation: proves the tests of new code would notice a bug in it (diff-based mutation testing).

In the manner of diff-based mutation testing at Google and of mutmut 3 / Mull's incremental
mode: mutants (:mod:`phasegate.gates.mutants`) are made only on the lines of the package the
change adds or modifies (:mod:`phasegate.gates.newcode`), at most ``per_line`` a line and
``budget`` in all, chosen reproducibly by ``seed``. The project is copied to a temporary folder
(:mod:`phasegate.gates.mutation_copy`); the user's tree is never written. Each mutant runs in a
copy against only the tests that ran its line, known from the per-test coverage contexts the
gate's own run recorded (or, without them, from a traced run in the copy), in parallel (one
copy per worker, bounded by the cores), each run with a timeout
(:mod:`phasegate.gates.mutation_runner`, :mod:`phasegate.gates.mutation_runs`).

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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.newcode import changed_package_files
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.settings import Section

if TYPE_CHECKING:
    from phasegate.gates.mutants import Mutant
    from phasegate.gates.mutation_runner import MutantResult

__all__ = ["MutationCheck", "MutationOptions"]


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
        description="seconds a mutant's run may take; unset: 10 + 3 x its tests' control time",
    )


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
        targets = changed_package_files(ctx.project, ctx.new_code)
        if not targets:
            return Measurement(
                summary="no line of the package changed",
                skipped=f"no line of the package changed against {ctx.new_code.base.ref}",
            )
        candidates = _candidates(ctx, targets)
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
        from phasegate.gates.mutants import choose_mutants

        chosen = choose_mutants(
            candidates, per_line=options.per_line, budget=options.budget, seed=options.seed
        )
        # Imported here: planning the gate and a run without mutants need none of the runner
        # (and of the localization it ranks tests with).
        from phasegate.gates.mutation_runner import MutationRunner

        runner = MutationRunner(
            ctx.project,
            ctx.session.run,
            chosen,
            timeout_s=ctx.timeout_s,
            workers=options.workers,
            mutant_timeout_s=options.mutant_timeout_s,
            line_contexts=ctx.session.line_contexts,
        )
        outcomes = runner.run()
        return _measurement(ctx, outcomes, len(candidates), traced=not runner.contexts_from_run)


def _candidates(ctx: CheckContext, targets: Mapping[str, frozenset[int] | None]) -> list[Mutant]:
    """Every mutant the changed lines of each package file allow, file by file."""
    # Imported here: a run without a base (or a changed line) makes no mutant.
    from phasegate.gates.mutants import generate_mutants

    candidates: list[Mutant] = []
    for relpath, lines in sorted(targets.items()):
        source = (ctx.project.root / relpath).read_text(encoding="utf-8", errors="replace")
        candidates.extend(generate_mutants(relpath, source, lines))
    return candidates


def _refuse_unjudged(outcomes: list[MutantResult]) -> None:
    """A CheckError when a mutant's run could not be judged, or was never run."""
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


def _measurement(
    ctx: CheckContext, outcomes: list[MutantResult], candidates: int, *, traced: bool = False
) -> Measurement:
    _refuse_unjudged(outcomes)
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
    return Measurement(
        summary=_summary(
            mutants=len(outcomes),
            killed=killed,
            timed_out=timed_out,
            score=score,
            candidates=candidates,
            traced=traced,
        ),
        score=score,
        metrics=metrics,
        new_code_metrics=dict(metrics),
        findings=findings,
    )


def _summary(
    *, mutants: int, killed: int, timed_out: int, score: float, candidates: int, traced: bool
) -> str:
    """The check's sentence: how many mutants of how many possible, killed (some by timeout)
    and survived, the score, and how each mutant's tests were chosen."""
    how = "a traced run in a copy" if traced else "this run's coverage contexts"
    timeouts = f" ({timed_out} by timeout: the mutant's run hung)" if timed_out else ""
    chosen = f" (of {candidates} possible)" if candidates > mutants else ""
    return (
        f"{mutants} mutants of the changed lines{chosen}: {killed} killed{timeouts}, "
        f"{mutants - killed} survived; mutation score {score:.2f} (each run against the "
        f"tests that ran its line, per {how})"
    )


def _finding(ctx: CheckContext, outcome: MutantResult) -> Finding:
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
