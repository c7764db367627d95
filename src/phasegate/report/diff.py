"""``phasegate report diff BASE HEAD``: what changed between two runs of the gate.

Tests are matched by node id, findings by check, rule, path and message (not by line, so that
code moving down a file does not make old findings look new). Durations are compared for tests
that passed in both runs; a change counts when it exceeds both a ratio and an absolute floor,
as the perf check does, so the noise of very short tests stays out.
"""

from __future__ import annotations

from pydantic import Field

from phasegate.failures import first_line
from phasegate.model.base import Model
from phasegate.model.gate import Finding, GateVerdict
from phasegate.model.run import Outcome, RunReport, TestRecord
from phasegate.report.bundle import Bundle

__all__ = ["FindingChange", "PerfChange", "ReportDiff", "TestChange", "diff_bundles"]

_BAD = (Outcome.FAILED, Outcome.ERROR)
#: A duration change must exceed this ratio and this many seconds to be reported.
PERF_RATIO = 1.5
PERF_MIN_DELTA_S = 0.05


class TestChange(Model):
    """A test whose state changed."""

    __test__ = False  # not a pytest test class, despite the name

    nodeid: str
    before: str | None = Field(description="outcome in the base run; null when absent")
    after: str | None = Field(description="outcome in the head run; null when absent")
    detail: str = ""


class FindingChange(Model):
    """A finding of the head run that the base run did not have."""

    check: str
    finding: Finding


class PerfChange(Model):
    """A test that got markedly slower or faster."""

    nodeid: str
    before_s: float
    after_s: float
    ratio: float


class ReportDiff(Model):
    """The differences between a base run and a head run."""

    base: str
    head: str
    verdict_before: str | None = None
    verdict_after: str | None = None
    score_before: float | None = None
    score_after: float | None = None
    score_delta: float | None = None
    tests_before: int = 0
    tests_after: int = 0
    new_failures: list[TestChange] = Field(default_factory=list)
    fixed_failures: list[TestChange] = Field(default_factory=list)
    still_failing: int = 0
    added_tests: int = 0
    removed_tests: list[str] = Field(default_factory=list)
    coverage: dict[str, list[float | None]] = Field(
        default_factory=dict, description="metric -> [before, after]"
    )
    new_findings: list[FindingChange] = Field(default_factory=list)
    fixed_findings: int = 0
    slower: list[PerfChange] = Field(default_factory=list)
    faster: list[PerfChange] = Field(default_factory=list)
    duration_before_s: float | None = None
    duration_after_s: float | None = None


def diff_bundles(base: Bundle, head: Bundle) -> ReportDiff:
    """Compare two bundles (either may lack a verdict or a run report)."""
    result = ReportDiff(base=str(base.source), head=str(head.source))
    if base.verdict is not None and head.verdict is not None:
        _verdicts(result, base.verdict, head.verdict)
    elif head.verdict is not None:
        result.verdict_after, result.score_after = head.verdict.verdict, head.verdict.score
    if base.run is not None and head.run is not None:
        _runs(result, base.run, head.run)
    return result


def _verdicts(result: ReportDiff, base: GateVerdict, head: GateVerdict) -> None:
    result.verdict_before, result.verdict_after = base.verdict, head.verdict
    result.score_before, result.score_after = base.score, head.score
    result.score_delta = round(head.score - base.score, 4)
    _coverage_changes(result, base, head)
    _finding_changes(result, base, head)


def _coverage_changes(result: ReportDiff, base: GateVerdict, head: GateVerdict) -> None:
    for scope, name in (("overall", "metrics"), ("new", "new_code_metrics")):
        before = _coverage_rate(base, name)
        after = _coverage_rate(head, name)
        if before is not None or after is not None:
            result.coverage[f"line_rate_{scope}"] = [before, after]


def _finding_changes(result: ReportDiff, base: GateVerdict, head: GateVerdict) -> None:
    """The findings new in ``head`` (those on new code first), and how many were fixed."""
    seen = {(check.id, f.rule, f.path, f.message) for check in base.checks for f in check.findings}
    current: set[tuple[str, str, str | None, str]] = set()
    for check in head.checks:
        for found in check.findings:
            key = (check.id, found.rule, found.path, found.message)
            current.add(key)
            if key not in seen:
                result.new_findings.append(FindingChange(check=check.id, finding=found))
    result.new_findings.sort(key=lambda change: (not change.finding.new, change.check))
    result.fixed_findings = len(seen - current)


def _coverage_rate(verdict: GateVerdict, field: str) -> float | None:
    for check in verdict.checks:
        if check.id == "coverage":
            value = getattr(check, field).get("line_rate")
            return float(value) if isinstance(value, (int, float)) else None
    return None


def _runs(result: ReportDiff, base: RunReport, head: RunReport) -> None:
    before = {test.nodeid: test for test in base.tests}
    after = {test.nodeid: test for test in head.tests}
    result.tests_before, result.tests_after = len(before), len(after)
    result.duration_before_s, result.duration_after_s = base.duration_s, head.duration_s
    for nodeid, test in after.items():
        old = before.get(nodeid)
        if old is None:
            result.added_tests += 1
        _outcome_change(result, old, test)
        _perf(result, old, test)
    result.removed_tests = [nodeid for nodeid in before if nodeid not in after]
    result.slower.sort(key=lambda change: -change.ratio)
    result.faster.sort(key=lambda change: change.ratio)


def _outcome_change(result: ReportDiff, old: TestRecord | None, test: TestRecord) -> None:
    """Count the test as one still failing or fixed (when it failed before), or a new failure."""
    if old is not None and old.outcome in _BAD:
        if test.outcome in _BAD:
            result.still_failing += 1
        else:
            result.fixed_failures.append(
                TestChange(nodeid=test.nodeid, before=old.outcome.value, after=test.outcome.value)
            )
    elif test.outcome in _BAD:
        result.new_failures.append(
            TestChange(
                nodeid=test.nodeid,
                before=old.outcome.value if old else None,
                after=test.outcome.value,
                detail=_detail(test),
            )
        )


def _perf(result: ReportDiff, old: TestRecord | None, test: TestRecord) -> None:
    """Count the test as slower or faster, if it passed in both runs and its time changed."""
    if old is None or old.outcome is not Outcome.PASSED or test.outcome is not Outcome.PASSED:
        return
    before, after = old.duration_s, test.duration_s
    if before <= 0 or abs(after - before) <= PERF_MIN_DELTA_S:
        return
    ratio = after / before
    change = PerfChange(nodeid=test.nodeid, before_s=before, after_s=after, ratio=round(ratio, 3))
    if ratio >= PERF_RATIO:
        result.slower.append(change)
    elif ratio <= 1 / PERF_RATIO:
        result.faster.append(change)


def _detail(test: TestRecord) -> str:
    if test.failure is None:
        return test.reason or ""
    return f"{test.failure.exc_type}: {first_line(test.failure.message)}"
