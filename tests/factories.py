"""Build run reports and verdicts in code, for the engines' unit tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from phasegate.model.gate import (
    BaseInfo,
    CheckResult,
    CheckStatus,
    Finding,
    GateVerdict,
    Severity,
)
from phasegate.model.run import (
    Counts,
    Environment,
    Failure,
    GitInfo,
    Invocation,
    Location,
    Outcome,
    PhaseResult,
    RunReport,
    TestRecord,
)

T0 = datetime(2026, 11, 22, 10, 0, tzinfo=timezone.utc)


def record(
    nodeid: str,
    outcome: Outcome = Outcome.PASSED,
    *,
    duration: float = 0.01,
    message: str = "assert 1 == 2",
    exc_type: str = "AssertionError",
    markers: list[str] | None = None,
    line: int = 3,
) -> TestRecord:
    path = nodeid.split("::", 1)[0]
    failed = outcome in (Outcome.FAILED, Outcome.ERROR)
    phase = "setup" if outcome is Outcome.ERROR else "call"
    failure = (
        Failure(
            phase=phase,
            exc_type=exc_type,
            message=message,
            path=path,
            line=line + 1,
            traceback=f"    def test():\n>       {message}\nE       {exc_type}: {message}\n",
        )
        if failed
        else None
    )
    return TestRecord(
        nodeid=nodeid,
        outcome=outcome,
        phases={"call": PhaseResult(outcome="failed" if failed else "passed", duration_s=duration)},
        duration_s=duration,
        location=Location(path=path, line=line, domain=nodeid.split("::")[-1]),
        markers=markers or [],
        failure=failure,
    )


def run_report(tests: list[TestRecord], *, run_id: str = "run-1", **extra: Any) -> RunReport:
    tally = {o: sum(1 for t in tests if t.outcome is o) for o in Outcome}
    return RunReport(
        run_id=run_id,
        started_at=T0,
        finished_at=T0 + timedelta(seconds=5),
        duration_s=5.0,
        environment=Environment(
            python="3.12.0", implementation="cpython", platform="Linux", pytest="9", phasegate="0"
        ),
        git=GitInfo(sha="a" * 40, branch="feature", dirty=False),
        invocation=Invocation(args=["--gate"], invocation_dir="/p", rootdir="/p"),
        exit_status=1 if tally[Outcome.FAILED] or tally[Outcome.ERROR] else 0,
        counts=Counts(
            collected=len(tests),
            passed=tally[Outcome.PASSED],
            failed=tally[Outcome.FAILED],
            errors=tally[Outcome.ERROR],
            skipped=tally[Outcome.SKIPPED],
            xfailed=tally[Outcome.XFAILED],
            xpassed=tally[Outcome.XPASSED],
        ),
        incomplete=False,
        tests=tests,
        **extra,
    )


def finding(
    rule: str = "F401",
    path: str | None = "src/app/core.py",
    line: int | None = 1,
    *,
    severity: Severity = Severity.MEDIUM,
    message: str = "`os` imported but unused",
    new: bool = True,
) -> Finding:
    return Finding(rule=rule, severity=severity, message=message, path=path, line=line, new=new)


def check(
    check_id: str,
    status: CheckStatus = CheckStatus.PASSED,
    *,
    score: float | None = None,
    reasoning: str | None = None,
    findings: list[Finding] | None = None,
    metrics: dict[str, Any] | None = None,
    new_code_metrics: dict[str, Any] | None = None,
    requirement: str = "required",
    fix: str | None = None,
) -> CheckResult:
    passed = status is CheckStatus.PASSED
    return CheckResult(
        id=check_id,
        title=check_id,
        status=status,
        requirement=requirement,  # type: ignore[arg-type]
        score=score if score is not None else (1.0 if passed else 0.5),
        reasoning=reasoning or (f"{check_id} is fine" if passed else f"{check_id} failed"),
        findings=findings or [],
        findings_total=len(findings or []),
        metrics=metrics or {},
        new_code_metrics=new_code_metrics or {},
        duration_s=0.1,
        fix=fix,
    )


def verdict(
    checks: list[CheckResult],
    *,
    gate: str = "default",
    run_id: str = "run-1",
    commit: str | None = "a" * 40,
    score: float | None = None,
) -> GateVerdict:
    required = [c for c in checks if c.requirement == "required"]
    bad = [c for c in required if c.status in (CheckStatus.FAILED, CheckStatus.ERROR)]
    mean = sum(c.score for c in required) / len(required) if required else 1.0
    return GateVerdict(
        gate=gate,
        source=f"gates/{gate}.toml",
        verdict="insufficient" if bad else "sufficient",
        score=round(score if score is not None else mean, 4),
        reasons=[f"{c.id}: {c.reasoning}" for c in bad],
        checks=checks,
        base=BaseInfo(
            ref="origin/main",
            sha="b" * 40,
            available=True,
            changed_files=2,
            changed_lines=30,
            note="new code: lines changed since the merge base",
        ),
        run_id=run_id,
        commit=commit,
        started_at=T0,
        finished_at=T0 + timedelta(seconds=6),
        duration_s=6.0,
    )
