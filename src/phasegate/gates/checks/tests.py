"""tests: the run's own result. No failures or errors, at least one test, nothing missing.

Its sentence tells the whole collection, not only what passed: tests skipped (a module skipped
while collected, as by a module-level ``pytest.importorskip``, counts as one skip, as pytest
counts it), xfailed, xpassed and deselected, so a run that passes by not running tests says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.model.run import CollectionError, Outcome, RunReport, TestRecord

__all__ = ["TestsCheck"]


class TestsCheck:
    """Reads the finished run: any failure, error, missing result or empty run fails it."""

    __test__ = False  # not a pytest test class, despite the name

    id: ClassVar[str] = "tests"
    title: ClassVar[str] = "the test run"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("collected", "tests selected to run"),
        MetricSpec("passed", "tests that passed"),
        MetricSpec("failed", "tests that failed"),
        MetricSpec("errors", "tests whose setup or teardown failed"),
        MetricSpec("skipped", "tests skipped, and modules skipped while collected (one each)"),
        MetricSpec("xfailed", "tests that failed as expected"),
        MetricSpec("xpassed", "tests marked xfail that passed"),
        MetricSpec("deselected", "tests collected and then deselected (-k, -m, --deselect)"),
        MetricSpec("collection_errors", "files that could not be collected"),
        MetricSpec("skipped_at_collection", "files or collectors skipped while collected"),
        MetricSpec("pass_rate", "passed / (passed + failed + errors)", "rate"),
        MetricSpec("incomplete", "the results do not cover exactly the collected tests", "bool"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="failed", op=">", value=0),
        ConditionSpec(metric="errors", op=">", value=0),
        ConditionSpec(metric="collection_errors", op=">", value=0),
        ConditionSpec(metric="collected", op="<", value=1),
        ConditionSpec(metric="incomplete", op="==", value=True),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        return None  # it reads this run

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        if ctx.session is None:
            raise CheckError("the tests check needs a test run, and none was given")
        run = ctx.session.run
        counts = run.counts
        judged = counts.passed + counts.failed + counts.errors
        pass_rate = counts.passed / judged if judged else None
        metrics: dict[str, MetricValue] = {
            **counts.model_dump(),
            "skipped": counts.skipped + counts.skipped_at_collection,
            "pass_rate": None if pass_rate is None else round(pass_rate, 4),
            "incomplete": run.incomplete,
        }
        return Measurement(
            summary=_summary(run),
            score=pass_rate if pass_rate is not None else 0.0,
            metrics=metrics,
            new_code_metrics=dict(metrics),  # a run is not split by lines
            findings=self._findings(ctx, run),
        )

    @classmethod
    def _findings(cls, ctx: CheckContext, run: RunReport) -> list[Finding]:
        """A finding per test that failed or errored, and per collection error."""
        failed = (Outcome.FAILED, Outcome.ERROR)
        findings = [cls._finding(ctx, record) for record in run.tests if record.outcome in failed]
        return findings + [_collection_finding(ctx, error) for error in run.collection_errors]

    @staticmethod
    def _finding(ctx: CheckContext, record: TestRecord) -> Finding:
        failure = record.failure
        path, line = record.location.path, record.location.line
        if failure is not None and failure.path and not failure.path.startswith("/"):
            path, line = failure.path, failure.line  # the raising frame, when in the project
        detail = f"{failure.exc_type}: {failure.message}" if failure else (record.reason or "")
        return locate(
            ctx.project,
            ctx.new_code,
            rule="test-error" if record.outcome is Outcome.ERROR else "test-failed",
            severity=Severity.HIGH,
            message=f"{record.nodeid}: {detail}".strip(),
            path=ctx.project.root / path,
            line=line,
        )


def _collection_finding(ctx: CheckContext, error: CollectionError) -> Finding:
    """A file that could not be collected: its tests never ran."""
    return locate(
        ctx.project,
        ctx.new_code,
        rule="collection-error",
        severity=Severity.CRITICAL,
        message=f"{error.nodeid}: {error.failure.exc_type}: {error.failure.message}",
        path=error.failure.path,
        line=error.failure.line,
    )


def _summary(run: RunReport) -> str:
    counts = run.counts
    if run.incomplete:
        return f"the run is incomplete: {'; '.join(run.incomplete_reasons[:2])}"
    if counts.collected == 0:
        return "no test was collected: a gate cannot pass an empty run"
    problems = counts.failed + counts.errors
    if problems:
        first = next(t for t in run.tests if t.outcome in (Outcome.FAILED, Outcome.ERROR))
        head = f"{problems} of {counts.collected} tests failed or erred, first {first.nodeid}"
    elif counts.passed == counts.collected:
        head = f"all {counts.passed} tests passed"
    else:
        head = f"{counts.passed} of {counts.collected} tests passed"
    return f"{head} ({_the_rest(run)})"


def _the_rest(run: RunReport) -> str:
    """What else the collection held: skips (with a module's reason), xfails, deselections."""
    counts = run.counts
    skipped = counts.skipped + counts.skipped_at_collection
    parts = [f"{skipped} skipped"]
    if run.collection_skips:
        first = run.collection_skips[0]
        whole = f"{len(run.collection_skips)} whole module" + (
            "s" if len(run.collection_skips) > 1 else ""
        )
        parts[0] += f", {whole} at collection, first {first.nodeid}: {first.reason}"
    parts += [
        f"{value} {name}"
        for name, value in (
            ("xfailed", counts.xfailed),
            ("xpassed", counts.xpassed),
            ("deselected", counts.deselected),
        )
        if value
    ]
    return "; ".join(parts)
