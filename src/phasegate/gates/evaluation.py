"""Judge measurements: conditions become passed/failed, checks become results, results a verdict.

The rules, in one place:

* a condition fails when ``actual <op> threshold`` holds; a metric the check did not report is
  an error (fail closed), and a metric with no value (``None``: nothing to measure, such as
  coverage of new code when no executable line changed) does not fail;
* a check is ``error`` when it could not run, ``skipped`` when it did not apply (with its
  reason), ``failed`` when a condition failed, else ``passed``;
* the verdict is ``insufficient`` when a required check failed, erred, or was skipped without
  the gate allowing it. ``in-pull-request`` checks are required only in a pull request. The
  ``integrity`` check counts, required or not, when it fails on a change to the gate itself that
  no review allowed: the gate that made it optional may be the one the change wrote;
* the score follows :mod:`phasegate.gates.score`: an insufficient verdict always scores below
  the pass threshold.

:func:`contradiction` reads a written verdict by the same rules, in a process the tests' code
never ran in (``phasegate report github``): code in the tests' process can replace
:func:`verdict_of` itself (review s17r).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from phasegate.gates.definition import CheckSpec, ConditionSpec
from phasegate.gates.protocol import AnyCheck, CheckError, Measurement
from phasegate.gates.score import DEFAULT_PASS_THRESHOLD, gate_score
from phasegate.model.gate import (
    CheckResult,
    CheckStatus,
    ConditionResult,
    Finding,
    GateVerdict,
    MetricValue,
    Requirement,
    Verdict,
)

__all__ = [
    "MAX_FINDINGS",
    "Judgement",
    "contradiction",
    "error_result",
    "judge",
    "requirement_of",
    "verdict_of",
]

#: Findings kept per check in the artifact; ``findings_total`` counts them all.
MAX_FINDINGS = 500

#: A metric's value against a condition's threshold; a ``TypeError`` when they do not compare.
_OPERATORS: dict[str, Callable[[float | str, float | str], object]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


@dataclass(frozen=True)
class Judgement:
    """A check's result and its evaluated conditions."""

    result: CheckResult
    conditions: list[ConditionResult]


def requirement_of(spec: CheckSpec, *, in_pull_request: bool) -> Requirement:
    """What the gate requires of the check in this run."""
    if spec.required == "in-pull-request":
        return "required" if in_pull_request else "optional"
    return "required" if spec.required else "optional"


def judge(
    check: AnyCheck,
    spec: CheckSpec,
    measurement: Measurement,
    *,
    requirement: Requirement,
    duration_s: float,
    cached: bool = False,
) -> Judgement:
    """Evaluate the gate's conditions on a measurement."""
    findings = sorted(measurement.findings, key=_finding_order)
    base = {
        "id": check.id,
        "title": check.title,
        "requirement": requirement,
        "findings": findings[:MAX_FINDINGS],
        "findings_total": len(findings),
        "metrics": measurement.metrics,
        "new_code_metrics": measurement.new_code_metrics,
        "duration_s": duration_s,
        "tool": measurement.tool,
        "cached": cached,
        "skip_allowed": spec.skip_allowed,
        "baseline_accepted": measurement.baseline_accepted,
    }
    if measurement.skipped is not None:
        result = CheckResult(
            **base,
            status=CheckStatus.SKIPPED,
            score=measurement.score,
            reasoning=measurement.skipped,
        )
        return Judgement(result, [])
    conditions = [
        _condition(check.id, condition, measurement)
        for condition in (
            spec.fail_when if spec.fail_when is not None else check.default_conditions
        )
    ]
    status, reasoning = _status_of(conditions, measurement.summary)
    score = measurement.score if status is not CheckStatus.ERROR else 0.0
    result = CheckResult(**base, status=status, score=score, reasoning=reasoning)
    return Judgement(result, conditions)


def _status_of(conditions: list[ConditionResult], summary: str) -> tuple[CheckStatus, str]:
    """error when a condition could not be evaluated, else failed when one failed, else passed;
    and the sentence that says why."""
    erred = [c for c in conditions if c.status == "error"]
    if erred:
        return CheckStatus.ERROR, erred[0].message
    failed = [c for c in conditions if c.status == "failed"]
    if failed:
        return CheckStatus.FAILED, "; ".join(c.message for c in failed[:3]) + f". {summary}"
    return CheckStatus.PASSED, summary


def error_result(
    check_id: str,
    title: str,
    error: CheckError,
    *,
    requirement: Requirement,
    duration_s: float,
) -> CheckResult:
    """The result of a check that could not run."""
    return CheckResult(
        id=check_id,
        title=title,
        status=CheckStatus.ERROR,
        requirement=requirement,
        score=0.0,
        reasoning=error.reason,
        fix=error.fix,
        duration_s=duration_s,
    )


def verdict_of(
    results: Sequence[CheckResult],
    specs: dict[str, CheckSpec],
    *,
    pass_threshold: float = DEFAULT_PASS_THRESHOLD,
) -> tuple[Verdict, float, list[str]]:
    """The verdict, the score and the reasons of an insufficient verdict.

    An insufficient verdict scores below ``pass_threshold`` (the refinement loop's threshold).
    """
    reasons: list[str] = []
    scores: list[float] = []
    for result in results:
        if result.requirement != "required" and not _gate_changed(result):
            continue
        score, reason = _required_share(result, specs[result.id])
        if score is not None:
            scores.append(score)
        if reason is not None:
            reasons.append(reason)
    verdict: Verdict = "insufficient" if reasons else "sufficient"
    score = gate_score(scores, sufficient=not reasons, pass_threshold=pass_threshold)
    return verdict, score, reasons


#: The integrity check's rules for a change to the gate itself (gate files, ``[tool.phasegate]``,
#: the baseline), the tricks an approved review may allow.
GATE_CHANGE_RULES = frozenset({"gate-loosened", "baseline-grown"})


def contradiction(verdict: GateVerdict) -> str | None:
    """Why a sufficient ``verdict`` contradicts its own checks, read again by :func:`verdict_of`
    (a required check failed, in error or skipped where the gate allows no skip; integrity
    failed on a change to the gate); ``None`` when it does not.

    The one rule set, not a copy: a second, partial one passed a required check skipped against
    the gate (review s17d, 14). Each result carries its gate's ``skip_allowed``.
    """
    if verdict.verdict != "sufficient":
        return None
    specs = {result.id: CheckSpec(skip_allowed=result.skip_allowed) for result in verdict.checks}
    _again, _score, reasons = verdict_of(verdict.checks, specs)
    if not reasons:
        return None
    return (
        f"the verdict of gate {verdict.gate} says sufficient, but phasegate's rules make it "
        f"insufficient ({reasons[0]}): it was not reached by them (code in the tests' process "
        "can replace them)"
    )


def _gate_changed(result: CheckResult) -> bool:
    """Whether ``result`` is the integrity check failing on a change to the gate itself."""
    changes = [finding for finding in result.findings if finding.rule in GATE_CHANGE_RULES]
    return result.id == "integrity" and result.status is CheckStatus.FAILED and bool(changes)


def _required_share(result: CheckResult, spec: CheckSpec) -> tuple[float | None, str | None]:
    """A required check's part in the verdict: its score (None for a skip the gate allows;
    0 for one it does not, and for an error) and the reason it makes the gate insufficient."""
    if result.status is CheckStatus.SKIPPED:
        if spec.skip_allowed:
            return None, None
        return 0.0, f"{result.id}: skipped, but the gate requires it: {result.reasoning}"
    if result.status is CheckStatus.ERROR:
        fix = f" (fix: {result.fix})" if result.fix else ""
        return 0.0, f"{result.id}: could not run: {result.reasoning}{fix}"
    if result.status is CheckStatus.FAILED:
        return result.score, f"{result.id}: {result.reasoning}"
    return result.score, None


def _condition(
    check_id: str, condition: ConditionSpec, measurement: Measurement
) -> ConditionResult:
    metrics = measurement.metrics if condition.scope == "overall" else measurement.new_code_metrics
    where = "on new code" if condition.scope == "new" else ""
    rule = f"fails when {condition.op} {condition.value}"
    common = {
        "check": check_id,
        "metric": condition.metric,
        "comparator": condition.op,
        "threshold": condition.value,
        "scope": condition.scope,
    }
    if condition.metric not in metrics:
        return ConditionResult(
            **common,
            status="error",
            message=f"{check_id} reported no {condition.metric} {where}".rstrip()
            + ", so the condition "
            f"'{condition.metric} {condition.op} {condition.value}' cannot be evaluated",
        )
    actual: MetricValue = metrics[condition.metric]
    if actual is None:
        return ConditionResult(
            **common,
            actual=None,
            status="passed",
            message=f"{_named(condition.metric, where)}: nothing to measure ({rule})",
        )
    try:
        fails = _OPERATORS[condition.op](actual, condition.value)
    except TypeError:
        return ConditionResult(
            **common,
            actual=actual,
            status="error",
            message=f"{_named(condition.metric, where)} is {actual!r}, which cannot be compared "
            f"with {condition.value!r}",
        )
    shown = _show(actual)
    if fails:
        message = f"{_named(condition.metric, where)} is {shown}, {rule}"
    else:
        message = f"{_named(condition.metric, where)} is {shown} ({rule})"
    return ConditionResult(
        **common, actual=actual, status="failed" if fails else "passed", message=message
    )


def _named(metric: str, where: str) -> str:
    return f"{metric} {where}" if where else metric


def _show(value: MetricValue) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def _finding_order(finding: Finding) -> tuple[bool, bool, str, int]:
    """A change to the gate first (it decides the verdict even of an optional integrity check,
    and only the first :data:`MAX_FINDINGS` are kept: 505 ``noqa`` lines in ``aaa.py`` pushed
    ``gate-loosened`` past the cut, review s17d, 8), then new code's findings, by place."""
    gate_change = finding.rule in GATE_CHANGE_RULES
    return (not gate_change, not finding.new, finding.path or "", finding.line or 0)
