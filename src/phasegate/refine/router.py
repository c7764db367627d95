"""The router: the next action after a gate run, with its reason. Deterministic rules only.

In order, the first rule that applies decides:

1. ``escalate``: the loop used its last round without passing;
2. ``proceed``: the verdict is sufficient and the loop passed or stopped early;
3. ``truncate_from``: the score fell by at least :data:`REGRESSION_DROP` below the best earlier
   round and checks that passed then fail now: the work since that round went wrong, so
   continue from it (the target names the first round after it, and its commit);
4. ``route_to_debug``: tests fail, error, or cannot be collected, or a file does not parse;
5. ``add_step``: something is missing rather than wrong: a required check could not run or was
   skipped, new code is not covered, no review approved it, public names lack docstrings, or no
   test was collected;
6. ``retry_with_feedback``: anything else that failed, or a sufficient verdict whose score is
   still below the threshold; the reason carries the accumulated feedback still open.
"""

from __future__ import annotations

from phasegate.model.gate import CheckResult, CheckStatus, GateVerdict
from phasegate.model.refine import (
    FeedbackItem,
    LoopStatus,
    RefinementState,
    RoundRecord,
    RouterAction,
    RouterDecision,
)
from phasegate.model.run import RunReport
from phasegate.refine.loop import collection_line, failed_tests, failing_checks, failure_line

__all__ = ["MISSING_STEP_CHECKS", "REGRESSION_DROP", "decide"]

#: How far the score must fall below the best earlier round to call it a regression.
REGRESSION_DROP = 0.1
#: Checks whose failure means a step is missing (tests to write, a review to get, docs).
MISSING_STEP_CHECKS = frozenset({"coverage", "review", "docs"})
_DEBUG_CHECKS = frozenset({"tests", "syntax"})
_SHOWN = 5


def decide(state: RefinementState, verdict: GateVerdict, run: RunReport | None) -> RouterDecision:
    """The next action for the loop as it stands after its latest round."""
    if state.status is LoopStatus.ESCALATED:
        return _escalate(state)
    if state.status in (LoopStatus.PASSED, LoopStatus.EARLY_STOPPED):
        return _proceed(state, verdict)
    failing = failing_checks(verdict)
    return (
        _regression(state, verdict)
        or _debug(failing, run)
        or _missing_step(verdict, failing)
        or _retry(state, verdict, failing)
    )


def _escalate(state: RefinementState) -> RouterDecision:
    best = max(state.rounds, key=lambda r: r.score)
    return RouterDecision(
        action=RouterAction.ESCALATE,
        reason=f"{len(state.rounds)} rounds without passing (threshold "
        f"{state.settings.threshold:.2f}; best score {best.score:.2f} in round {best.round}): "
        "a person should take over",
        target=f"round {best.round}",
        details=[item.text for item in _open(state.feedback)[:_SHOWN]],
    )


def _proceed(state: RefinementState, verdict: GateVerdict) -> RouterDecision:
    settings = state.settings
    how = (
        f"moving average {state.ema:.2f} reached the early stop at {settings.early_stop:.2f}"
        if state.status is LoopStatus.EARLY_STOPPED
        else f"score {verdict.score:.2f} reached the threshold {settings.threshold:.2f}"
    )
    return RouterDecision(
        action=RouterAction.PROCEED,
        reason=f"the gate {verdict.gate} is sufficient and the {how} in round "
        f"{state.rounds[-1].round}",
    )


def _regression(state: RefinementState, verdict: GateVerdict) -> RouterDecision | None:
    found = _regressed_from(state, verdict)
    if found is None:
        return None
    best, broke = found
    after = next((r for r in state.rounds if r.round == best.round + 1), state.rounds[-1])
    commit = f" (commit {after.commit[:12]})" if after.commit else ""
    return RouterDecision(
        action=RouterAction.TRUNCATE_FROM,
        reason=f"the score fell from {best.score:.2f} in round {best.round} to "
        f"{verdict.score:.2f}, and {', '.join(broke)} passed then but fail now: drop the "
        f"changes from round {after.round}{commit} on and continue from round {best.round}",
        target=f"round {after.round}{commit}",
        details=[f"{c.id}: {c.reasoning}" for c in verdict.checks if c.id in broke],
    )


def _regressed_from(
    state: RefinementState, verdict: GateVerdict
) -> tuple[RoundRecord, list[str]] | None:
    """The best earlier round, when the score fell from it by :data:`REGRESSION_DROP` or more
    and checks that passed then fail now (those checks); else None."""
    earlier = state.rounds[:-1]
    if not earlier:
        return None
    best = max(earlier, key=lambda r: (r.score, r.round))
    if best.score - verdict.score < REGRESSION_DROP:
        return None
    broke = sorted(set(state.rounds[-1].failing_checks) - set(best.failing_checks))
    return (best, broke) if broke else None


def _debug(failing: list[CheckResult], run: RunReport | None) -> RouterDecision | None:
    """Failing tests (when the tests check fails) or code that does not parse: debug them."""
    broken_tests = _broken_tests(run)
    if broken_tests and any(c.id == "tests" for c in failing):
        first = broken_tests[0].split(": ", 1)[0]
        return RouterDecision(
            action=RouterAction.ROUTE_TO_DEBUG,
            reason=f"{len(broken_tests)} test(s) fail, error or cannot be collected; "
            f"debug them, starting with {first}",
            target=first,
            details=broken_tests[:_SHOWN],
        )
    return _does_not_parse(failing)


def _does_not_parse(failing: list[CheckResult]) -> RouterDecision | None:
    """The syntax check failed (not erred): debug the code that does not parse."""
    syntax = next((c for c in failing if c.id == "syntax"), None)
    if syntax is None or syntax.status is not CheckStatus.FAILED:
        return None
    where = syntax.findings[0].path if syntax.findings else None
    return RouterDecision(
        action=RouterAction.ROUTE_TO_DEBUG,
        reason=f"code does not parse: {syntax.reasoning}",
        target=where or "syntax",
        details=_finding_lines(syntax),
    )


def _finding_lines(check: CheckResult) -> list[str]:
    """The first findings of a check, one ``path:line: message`` each."""
    return [f"{f.path}:{f.line}: {f.message}" for f in check.findings[:_SHOWN]]


def _broken_tests(run: RunReport | None) -> list[str]:
    """Each test that failed or erred, then each collection error, with its first line."""
    if run is None:
        return []
    return [
        *(failure_line(test) for test in failed_tests(run)),
        *(collection_line(error) for error in run.collection_errors),
    ]


#: What to add for a failing check that a missing step explains ("tests": none collected).
_STEP_TO_ADD = {
    "coverage": "write tests for the new code that no test runs",
    "review": "get the change reviewed and record the review",
    "docs": "document the public names that have no docstring",
    "tests": "add tests: the run collected none",
}


def _missing_step(verdict: GateVerdict, failing: list[CheckResult]) -> RouterDecision | None:
    """A check that could not run, one the gate requires but skipped, or a missing step."""
    return _could_not_run(failing) or _skipped_required(verdict) or _step_to_add(failing)


def _step_to_add(failing: list[CheckResult]) -> RouterDecision | None:
    """The first failing check a missing step explains: what to add for it."""
    check = next((c for c in failing if _is_missing_step(c)), None)
    if check is None:
        return None
    return RouterDecision(
        action=RouterAction.ADD_STEP,
        reason=f"{_STEP_TO_ADD[check.id]} ({check.id}: {check.reasoning})",
        target=check.id,
        details=_finding_lines(check),
    )


def _skipped_required(verdict: GateVerdict) -> RouterDecision | None:
    """A check the gate requires that did not apply to this run: add what makes it apply."""
    skipped = [
        reason for reason in verdict.reasons if ": skipped, but the gate requires it" in reason
    ]
    if not skipped:
        return None
    target = skipped[0].split(":", 1)[0]
    return RouterDecision(
        action=RouterAction.ADD_STEP,
        reason=f"the gate requires {target}, which did not apply to this run: {skipped[0]}",
        target=target,
        details=skipped[:_SHOWN],
    )


def _could_not_run(failing: list[CheckResult]) -> RouterDecision | None:
    """The first check that could not run (erred): what it needs to run."""
    erred = [c for c in failing if c.status is CheckStatus.ERROR]
    if not erred:
        return None
    first = erred[0]
    fix = f"; {first.fix}" if first.fix else ""
    return RouterDecision(
        action=RouterAction.ADD_STEP,
        reason=f"the check {first.id} could not run: {first.reasoning}{fix}",
        target=first.id,
        details=[f"{c.id}: {c.reasoning}" for c in erred[:_SHOWN]],
    )


def _is_missing_step(check: CheckResult) -> bool:
    """A failing coverage, review or docs check, or a tests check that collected nothing."""
    if check.id == "tests":
        return check.metrics.get("collected") == 0
    return check.id in MISSING_STEP_CHECKS


def _retry(
    state: RefinementState, verdict: GateVerdict, failing: list[CheckResult]
) -> RouterDecision:
    open_items = _open(state.feedback)
    repeated = [item for item in open_items if item.rounds_seen > 1]
    if failing:
        names = ", ".join(c.id for c in failing)
        reason = f"fix what {names} found and run the gate again"
        target: str | None = failing[0].id
    else:
        reason, target = _below_threshold(state, verdict)
    if repeated:
        reason += f"; {len(repeated)} problem(s) came back or stayed over several rounds"
    return RouterDecision(
        action=RouterAction.RETRY_WITH_FEEDBACK,
        reason=reason,
        target=target,
        details=list(dict.fromkeys(item.text for item in repeated + open_items))[:_SHOWN],
    )


def _below_threshold(state: RefinementState, verdict: GateVerdict) -> tuple[str, str | None]:
    """A sufficient gate whose score is below the loop's threshold: the lowest checks."""
    low = sorted((c for c in verdict.checks if c.requirement == "required"), key=lambda c: c.score)
    lowest = ", ".join(f"{c.id} {c.score:.2f}" for c in low[:3])
    reason = (
        f"the gate is sufficient, but the score {verdict.score:.2f} is below the "
        f"refinement threshold {state.settings.threshold:.2f} (lowest: {lowest})"
    )
    return reason, low[0].id if low else None


def _open(feedback: list[FeedbackItem]) -> list[FeedbackItem]:
    items = [item for item in feedback if item.resolved_round is None]
    return sorted(items, key=lambda item: (-item.rounds_seen, item.first_round))
