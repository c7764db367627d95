"""perf: tests marked ``perf`` (and pytest-benchmark results) against a stored baseline.

The measure of a marked test is the duration of its call phase; of a pytest-benchmark
benchmark, its median, read from the JSON pytest-benchmark writes (``--benchmark-json``;
point the ``benchmark_json`` option at it). A measure regresses when it is slower than its
baseline by more than ``tolerance`` (a fraction) *and* by more than ``min_delta_s`` seconds,
so the noise of very short tests does not fail a gate. With no baseline file, this run's
measures become the baseline and the check says so; a baseline meant to be shared is a file
in the repository (the ``baseline`` option). Measures of tests that are new are added to it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field, ValidationError

from phasegate import clock
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.project import Project
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.model.base import ArtifactModel
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.model.run import Outcome, RunReport
from phasegate.settings import Section

__all__ = ["PERF_MARKER", "PerfBaseline", "PerfCheck", "PerfOptions"]

#: The marker that puts a test's duration under the perf check.
PERF_MARKER = "perf"


class PerfOptions(Section):
    """Options of the perf check."""

    baseline: str = Field(
        default=".phasegate/perf/baseline.json",
        description="baseline file, relative to the project root (commit it to share it)",
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


class PerfBaseline(ArtifactModel):
    """Stored measures: node id -> seconds."""

    recorded_at: datetime
    measures: dict[str, float]


class PerfCheck:
    """Compares this run's measures with the baseline."""

    id: ClassVar[str] = "perf"
    title: ClassVar[str] = "performance against the baseline"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[PerfOptions]] = PerfOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("measured", "tests and benchmarks measured"),
        MetricSpec("regressions", "measures slower than the baseline allows"),
        MetricSpec("worst_ratio", "the largest measure / baseline ratio", "number"),
        MetricSpec("baseline_recorded", "this run recorded the baseline", "bool"),
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
        baseline_path = ctx.project.inside(options.baseline, "the perf option baseline")
        baseline = _read_baseline(baseline_path)
        if baseline is None:
            _write_baseline(baseline_path, current)
            metrics: dict[str, MetricValue] = {
                "measured": len(current),
                "regressions": 0,
                "worst_ratio": None,
                "baseline_recorded": True,
            }
            return Measurement(
                summary=f"no baseline yet: recorded {len(current)} measures as the baseline "
                f"in {options.baseline}",
                metrics=metrics,
                new_code_metrics=dict(metrics),
            )
        findings: list[Finding] = []
        ratios: list[float] = []
        for nodeid, seconds in current.items():
            before = baseline.measures.get(nodeid)
            if before is None or before <= 0:
                continue
            ratios.append(seconds / before)
            slower = seconds - before
            if slower > options.min_delta_s and seconds > before * (1 + options.tolerance):
                findings.append(self._finding(ctx, nodeid, seconds, before))
        added = {k: v for k, v in current.items() if k not in baseline.measures}
        if added:
            _write_baseline(baseline_path, {**baseline.measures, **added})
        metrics = {
            "measured": len(current),
            "regressions": len(findings),
            "worst_ratio": round(max(ratios), 3) if ratios else None,
            "baseline_recorded": False,
        }
        summary = (
            f"{len(findings)} of {len(current)} measures regressed beyond "
            f"{options.tolerance:.0%} (and {options.min_delta_s}s)"
            if findings
            else f"{len(current)} measures within {options.tolerance:.0%} of the baseline"
        )
        return Measurement(
            summary=summary,
            score=1.0 - len(findings) / len(current),
            metrics=metrics,
            new_code_metrics=dict(metrics),
            findings=findings,
        )

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


def _current_measures(run: RunReport, project: Project, options: PerfOptions) -> dict[str, float]:
    measures = {
        test.nodeid: test.phases["call"].duration_s
        for test in run.tests
        if PERF_MARKER in test.markers and test.outcome is Outcome.PASSED and "call" in test.phases
    }
    if options.benchmark_json:
        path = project.inside(options.benchmark_json, "the perf option benchmark_json")
        measures.update(_benchmarks(path))
    return measures


def _benchmarks(path: Path) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CheckError(
            f"cannot read pytest-benchmark results {path}: {exc}",
            fix="run pytest with --benchmark-json pointing at that file, or unset benchmark_json",
        ) from exc
    try:
        return {entry["fullname"]: float(entry["stats"]["median"]) for entry in data["benchmarks"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckError(f"{path} is not pytest-benchmark JSON output: missing {exc}") from exc


def _read_baseline(path: Path) -> PerfBaseline | None:
    try:
        return PerfBaseline.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValidationError, ValueError) as exc:
        raise CheckError(
            f"the perf baseline {path} cannot be read: {exc}",
            fix="fix the file, or move it away to record a new baseline",
        ) from exc


def _write_baseline(path: Path, measures: dict[str, float]) -> None:
    from phasegate.store import Store

    model = PerfBaseline(recorded_at=clock.utc_now(), measures=dict(sorted(measures.items())))
    Store(path.parent).write_text(path.name, model.model_dump_json(indent=2) + "\n")
