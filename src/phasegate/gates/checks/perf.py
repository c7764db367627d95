"""perf: tests marked ``perf`` (and pytest-benchmark results) against the base's measures.

The measure of a marked test is the duration of its call phase; of a pytest-benchmark
benchmark, its median, read from the JSON pytest-benchmark writes (``--benchmark-json``;
point the ``benchmark_json`` option at it). A measure regresses when it is slower than its
baseline by more than ``tolerance`` (a fraction) *and* by more than ``min_delta_s`` seconds,
so the noise of very short tests does not fail a gate.

The baseline is the base's (:mod:`phasegate.gates.perf_baseline`): a base run's artifact, a
baseline file as committed at the base, or the base's perf tests run now in a copy of the base
commit. Nothing is read from or written to the git-ignored artifacts folder, so a fresh CI
checkout compares exactly as a developer's machine does. With no base and no artifact there is
nothing to compare with, and the check says so: skipped, or an error (option ``no_baseline``),
never "passed".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.perf_baseline import (
    PERF_MARKER,
    BaseMeasures,
    from_artifact,
    from_committed_file,
    measures_of_run,
    read_benchmarks,
    run_at_base,
)
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.model.run import RunReport
from phasegate.settings import Section

__all__ = ["PERF_MARKER", "PerfCheck", "PerfOptions"]


class PerfOptions(Section):
    """Options of the perf check."""

    baseline: str | None = Field(
        default=None,
        description="a baseline file committed in the repository, relative to the project "
        "root, read as it is at the base commit (a perf baseline or a run report)",
    )
    baseline_artifact: str | None = Field(
        default=None,
        description="the run report (report.json) of a run at the base, relative to the "
        "project root; used before anything else",
    )
    run_base: bool = Field(
        default=True,
        description="with a base and no baseline file at it, run the base's perf tests in a "
        "temporary copy of the base commit",
    )
    no_baseline: Literal["skip", "error"] = Field(
        default="skip",
        description="what the check is when there is no baseline to compare with (no base and "
        "no artifact, or no measure at the base): skipped (the gate's skip_allowed decides) "
        "or an error",
    )
    tolerance: float = Field(
        default=0.5, ge=0, description="allowed slowdown as a fraction of the baseline"
    )
    min_delta_s: float = Field(
        default=0.05, ge=0, description="slowdowns smaller than this many seconds never count"
    )
    benchmark_json: str | None = Field(
        default=None, description="pytest-benchmark's --benchmark-json file to read"
    )


class PerfCheck:
    """Compares this run's measures with the base's."""

    id: ClassVar[str] = "perf"
    title: ClassVar[str] = "performance against the base"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[PerfOptions]] = PerfOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("measured", "tests and benchmarks measured"),
        MetricSpec("compared", "measures that have a baseline at the base"),
        MetricSpec("regressions", "measures slower than the baseline allows"),
        MetricSpec("worst_ratio", "the largest measure / baseline ratio", "number"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="regressions", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: PerfOptions) -> Sequence[Path] | None:
        return None  # it reads this run

    def measure(self, ctx: CheckContext, options: PerfOptions) -> Measurement:
        if ctx.session is None:
            raise CheckError("the perf check needs a test run, and none was given")
        current = _current_measures(ctx.session.run, ctx.project, options)
        if not current:
            return Measurement(
                summary="nothing to measure",
                skipped=f"no test is marked @pytest.mark.{PERF_MARKER} and no pytest-benchmark "
                "results were given (option benchmark_json)",
            )
        base = _baseline(ctx, options)
        if base is None:
            return _no_baseline(
                options,
                "there is no base to compare with (give --base, or run in a pull request) and "
                "no baseline_artifact",
            )
        ratios, findings = self._compared(ctx, current, base, options)
        if not ratios:
            return _no_baseline(
                options,
                f"none of the {len(current)} measures has a baseline in {base.source} "
                "(new tests, or tests renamed since the base)",
            )
        metrics: dict[str, MetricValue] = {
            "measured": len(current),
            "compared": len(ratios),
            "regressions": len(findings),
            "worst_ratio": round(max(ratios), 3),
        }
        new = len(current) - len(ratios)
        against = f"against {base.source}" + (f"; {new} new without a baseline" if new else "")
        return Measurement(
            summary=_summary(len(findings), len(ratios), against, options),
            score=1.0 - len(findings) / len(ratios),
            metrics=metrics,
            new_code_metrics=dict(metrics),
            findings=findings,
        )

    def _compared(
        self,
        ctx: CheckContext,
        current: Mapping[str, float],
        base: BaseMeasures,
        options: PerfOptions,
    ) -> tuple[list[float], list[Finding]]:
        """The ratio to its baseline of each measure that has one, and the regressions."""
        ratios: list[float] = []
        findings: list[Finding] = []
        for nodeid, seconds in current.items():
            before = base.measures.get(nodeid)
            if before is None or before <= 0:
                continue
            ratios.append(seconds / before)
            if _regressed(seconds, before, options):
                findings.append(self._finding(ctx, nodeid, seconds, before))
        return ratios, findings

    @staticmethod
    def _finding(ctx: CheckContext, nodeid: str, seconds: float, before: float) -> Finding:
        path = nodeid.split("::", 1)[0]
        return locate(
            ctx.project,
            ctx.new_code,
            rule="perf-regression",
            severity=Severity.MEDIUM,
            message=f"{nodeid} took {seconds:.3f}s against a baseline of {before:.3f}s "
            f"(x{seconds / before:.2f})",
            path=ctx.project.root / path,
        )


def _baseline(ctx: CheckContext, options: PerfOptions) -> BaseMeasures | None:
    """The base's measures, from the first source that has them; ``None`` with no base."""
    root = ctx.project.root
    base_sha = ctx.new_code.base.sha if not ctx.new_code.all_new else None
    if options.baseline:  # read from git, but a path out of the project is refused all the same
        ctx.project.inside(options.baseline, "the perf option baseline")
    if options.baseline_artifact:
        path = ctx.project.inside(options.baseline_artifact, "the perf option baseline_artifact")
        return from_artifact(path, options.baseline_artifact, root, base_sha)
    if base_sha is None:
        return None
    return _at_base(ctx, options, base_sha)


def _at_base(ctx: CheckContext, options: PerfOptions, base_sha: str) -> BaseMeasures:
    """The base commit's measures: its committed baseline file, else its perf tests run now
    (when ``run_base`` allows it)."""
    root = ctx.project.root
    if options.baseline:
        committed = from_committed_file(root, base_sha, options.baseline)
        if committed is not None:
            return committed
    if not options.run_base:
        return _no_source(options, base_sha)
    return run_at_base(
        root, base_sha, timeout_s=ctx.timeout_s, benchmark_json=bool(options.benchmark_json)
    )


def _no_source(options: PerfOptions, base_sha: str) -> BaseMeasures:
    missing = (
        f"{options.baseline} is not committed at it" if options.baseline else "no baseline file"
    )
    raise CheckError(
        f"the perf check has no baseline for the base {base_sha[:12]}: {missing}, and "
        "run_base is off",
        fix="commit a baseline file, name a base run's report in baseline_artifact, or turn "
        "run_base on",
    )


def _no_baseline(options: PerfOptions, why: str) -> Measurement:
    if options.no_baseline == "error":
        raise CheckError(
            f"no perf baseline: {why}",
            fix="run with --base (or in a pull request), or name a base run's report in "
            "baseline_artifact",
        )
    return Measurement(summary="no baseline", skipped=f"no perf baseline: {why}")


def _current_measures(
    run: RunReport, project: GateProject, options: PerfOptions
) -> dict[str, float]:
    measures = measures_of_run(run)
    if options.benchmark_json:
        path = project.inside(options.benchmark_json, "the perf option benchmark_json")
        measures.update(read_benchmarks(path, str(path)))
    return measures


def _regressed(seconds: float, before: float, options: PerfOptions) -> bool:
    """Slower by more than ``min_delta_s`` and by more than the tolerance."""
    return seconds - before > options.min_delta_s and seconds > before * (1 + options.tolerance)


def _summary(regressions: int, compared: int, against: str, options: PerfOptions) -> str:
    if regressions:
        return (
            f"{regressions} of {compared} measures regressed beyond "
            f"{options.tolerance:.0%} (and {options.min_delta_s}s) {against}"
        )
    return f"{compared} measures within {options.tolerance:.0%} {against}"
