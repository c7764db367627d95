"""Advance a refinement loop by one round: moving average, feedback, status.

The rules (DS-STAR's refinement loop, made deterministic):

* the quality score of a round is the gate's score; its moving average is
  ``ema = alpha * score + (1 - alpha) * previous ema`` (the first round's is its score);
* a sufficient verdict whose moving average reaches ``early_stop`` ends the loop as
  ``early_stopped``; else a sufficient verdict whose score reaches ``threshold`` ends it as
  ``passed``; else the round numbered ``max_rounds`` ends it as ``escalated``;
* feedback accumulates: each problem of a round (a failing required check, a failing test, a
  collection error) is added or counted again, and each open problem the round no longer has
  is marked resolved in that round;
* the next round after a loop ended, or a round for another task, starts a new loop (the loop
  left open for another task is closed as ``abandoned``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from phasegate.failures import first_line
from phasegate.model.gate import CheckResult, CheckStatus, GateVerdict
from phasegate.model.refine import (
    FeedbackItem,
    LoopSettings,
    LoopStatus,
    RefinementState,
    RoundRecord,
)
from phasegate.model.run import CollectionError, Outcome, RunReport, TestRecord

__all__ = [
    "FAILING_TESTS_KEPT",
    "MAX_FEEDBACK",
    "Advance",
    "advance",
    "collection_line",
    "failed_tests",
    "failing_checks",
    "failure_line",
    "moving_average",
    "problems",
]

#: Feedback items kept per loop; past this, new problems are only counted.
MAX_FEEDBACK = 2000
#: Failing test ids kept per round (all are counted).
FAILING_TESTS_KEPT = 20


@dataclass(frozen=True)
class Advance:
    """The loop after a round, and the loop it replaced, if one was left open."""

    state: RefinementState
    closed: RefinementState | None = None


def moving_average(previous: float | None, score: float, alpha: float) -> float:
    """The exponential moving average after ``score``."""
    if previous is None:
        return round(score, 4)
    return round(alpha * score + (1 - alpha) * previous, 4)


def problems(verdict: GateVerdict, run: RunReport | None) -> dict[str, str]:
    """``{feedback key: description}`` of everything that failed in this round."""
    found = {
        f"check:{check.id}": f"{check.id}: {check.reasoning}" for check in failing_checks(verdict)
    }
    if run is not None:
        found.update({f"test:{test.nodeid}": failure_line(test) for test in failed_tests(run)})
        found.update({f"collect:{e.nodeid}": collection_line(e) for e in run.collection_errors})
    return found


_FAILED_CHECK = (CheckStatus.FAILED, CheckStatus.ERROR)


def failing_checks(verdict: GateVerdict) -> list[CheckResult]:
    """The checks the gate requires that failed or could not run."""
    return [c for c in verdict.checks if c.requirement == "required" and c.status in _FAILED_CHECK]


def failed_tests(run: RunReport) -> list[TestRecord]:
    """The run's tests that failed or erred."""
    return [test for test in run.tests if test.outcome in (Outcome.FAILED, Outcome.ERROR)]


def failure_line(test: TestRecord) -> str:
    """``nodeid: ExcType: first line of the message`` (or the outcome, with no failure)."""
    if test.failure is None:
        return f"{test.nodeid}: {test.outcome.value}"
    return f"{test.nodeid}: {test.failure.exc_type}: {first_line(test.failure.message)}"


def collection_line(error: CollectionError) -> str:
    """``nodeid: ExcType: first line of the message`` of a collection error."""
    return f"{error.nodeid}: {error.failure.exc_type}: {first_line(error.failure.message)}"


def advance(
    state: RefinementState | None,
    verdict: GateVerdict,
    run: RunReport | None,
    *,
    task: str,
    settings: LoopSettings,
    now: datetime,
) -> Advance:
    """The loop after this round (the router's decision is added by the caller)."""
    if state is not None and state.task == task and state.status is LoopStatus.REFINING:
        current = state.model_copy(deep=True)
        current.settings = settings
        closed = None
    else:
        current, closed = _new_loop(state, verdict, task=task, settings=settings, now=now)
    number = len(current.rounds) + 1
    ema = moving_average(current.ema, verdict.score, settings.alpha)
    found = problems(verdict, run)
    _accumulate(current, found, number)
    current.rounds.append(_round_record(number, verdict, ema, found, now))
    current.ema = ema
    current.gate = verdict.gate
    current.updated_at = now
    current.status = _status(verdict, ema, number, settings)
    return Advance(current, closed)


def _new_loop(
    state: RefinementState | None,
    verdict: GateVerdict,
    *,
    task: str,
    settings: LoopSettings,
    now: datetime,
) -> tuple[RefinementState, RefinementState | None]:
    """A loop started afresh: the next loop of the same task, or the first of another task
    (which abandons the other task's loop still refining)."""
    same_task = state is not None and state.task == task
    closed: RefinementState | None = None
    if state is not None and not same_task and state.status is LoopStatus.REFINING:
        closed = state.model_copy(update={"status": LoopStatus.ABANDONED, "updated_at": now})
    started = RefinementState(
        task=task,
        gate=verdict.gate,
        loop=state.loop + 1 if state is not None and same_task else 1,
        settings=settings,
        started_at=now,
        updated_at=now,
    )
    return started, closed


def _round_record(
    number: int, verdict: GateVerdict, ema: float, found: dict[str, str], now: datetime
) -> RoundRecord:
    """What one round leaves in the loop: its verdict, scores and what failed."""
    required = [c for c in verdict.checks if c.requirement == "required"]
    failing_tests = _named(found, "test:")
    return RoundRecord(
        round=number,
        run_id=verdict.run_id,
        commit=verdict.commit,
        recorded_at=now,
        verdict=verdict.verdict,
        score=verdict.score,
        ema=ema,
        checks_run=len(required),
        checks_passed=sum(1 for c in required if c.status is CheckStatus.PASSED),
        failing_checks=_named(found, "check:"),
        failing_tests=failing_tests[:FAILING_TESTS_KEPT],
        failing_tests_total=len(failing_tests),
        reasons=list(verdict.reasons),
    )


def _named(found: dict[str, str], kind: str) -> list[str]:
    """What the problems of one kind (``test:``, ``check:``) name: node ids, check ids."""
    return [key.removeprefix(kind) for key in found if key.startswith(kind)]


def _status(verdict: GateVerdict, ema: float, number: int, settings: LoopSettings) -> LoopStatus:
    sufficient = verdict.verdict == "sufficient"
    if sufficient and ema >= settings.early_stop:
        return LoopStatus.EARLY_STOPPED
    if sufficient and verdict.score >= settings.threshold:
        return LoopStatus.PASSED
    if number >= settings.max_rounds:
        return LoopStatus.ESCALATED
    return LoopStatus.REFINING


def _accumulate(state: RefinementState, found: dict[str, str], number: int) -> None:
    """Round ``number``'s problems into the loop's feedback: each one seen again or new (up to
    :data:`MAX_FEEDBACK`, then counted as dropped); an open one not found again is resolved."""
    by_key = {item.key: item for item in state.feedback}
    for key, text in found.items():
        item = by_key.get(key)
        if item is not None:
            _seen_again(item, text, number)
        elif len(state.feedback) >= MAX_FEEDBACK:
            state.feedback_dropped += 1
        else:
            item = FeedbackItem(key=key, text=text, first_round=number, last_round=number)
            state.feedback.append(item)
            by_key[key] = item
    for item in state.feedback:
        if item.resolved_round is None and item.key not in found:
            item.resolved_round = number


def _seen_again(item: FeedbackItem, text: str, number: int) -> None:
    """A problem found again in round ``number``: open until a round no longer has it."""
    item.text = text
    item.last_round = number
    item.rounds_seen += 1
    item.resolved_round = None
