"""The refinement loop: moving average, thresholds, escalation, feedback, resumption."""

from __future__ import annotations

from datetime import timedelta

import pytest

from phasegate.model.gate import CheckStatus
from phasegate.model.refine import LoopSettings, LoopStatus, RefinementState
from phasegate.model.run import Outcome
from phasegate.refine.loop import advance, moving_average, problems
from tests.factories import T0, check, record, run_report, verdict

SETTINGS = LoopSettings(threshold=0.85, alpha=0.3, early_stop=0.95, max_rounds=20)


def failing_round(score: float = 0.5) -> tuple[object, object]:
    run = run_report([record("tests/test_a.py::test_a", Outcome.FAILED)])
    gate = verdict([check("tests", CheckStatus.FAILED, score=score)], score=score)
    return gate, run


def step(state: RefinementState | None, gate: object, run: object, n: int = 0, **kw: object):
    return advance(
        state,
        gate,  # type: ignore[arg-type]
        run,  # type: ignore[arg-type]
        task=str(kw.get("task", "default@feature")),
        settings=kw.get("settings", SETTINGS),  # type: ignore[arg-type]
        now=T0 + timedelta(minutes=n),
    )


def test_moving_average_uses_alpha_and_starts_at_the_first_score() -> None:
    assert moving_average(None, 0.5, 0.3) == 0.5
    assert moving_average(0.5, 1.0, 0.3) == pytest.approx(0.65)
    assert moving_average(0.65, 1.0, 0.3) == pytest.approx(0.755)


def test_a_perfect_first_round_stops_early() -> None:
    gate = verdict([check("tests"), check("lint")])
    state = step(None, gate, run_report([record("t.py::test")])).state
    assert state.status is LoopStatus.EARLY_STOPPED
    assert state.rounds[0].ema == 1.0


def test_passing_the_threshold_without_the_early_stop_ends_as_passed() -> None:
    gate, run = failing_round(0.5)
    state = step(None, gate, run).state
    assert state.status is LoopStatus.REFINING
    good = verdict([check("tests", score=0.9)], score=0.9)
    state = step(state, good, run_report([record("tests/test_a.py::test_a")]), 1).state
    # ema = 0.3 * 0.9 + 0.7 * 0.5 = 0.62: below the early stop, but the score passes.
    assert state.rounds[-1].ema == pytest.approx(0.62)
    assert state.status is LoopStatus.PASSED


def test_a_sufficient_verdict_below_the_threshold_keeps_refining() -> None:
    gate = verdict([check("tests", score=0.8), check("lint", score=0.8)])
    state = step(None, gate, run_report([record("t.py::test")])).state
    assert gate.verdict == "sufficient"
    assert state.status is LoopStatus.REFINING


def test_the_last_round_escalates() -> None:
    settings = LoopSettings(threshold=0.85, alpha=0.3, early_stop=0.95, max_rounds=3)
    state = None
    for n in range(3):
        gate, run = failing_round()
        state = step(state, gate, run, n, settings=settings).state
    assert state is not None
    assert [r.round for r in state.rounds] == [1, 2, 3]
    assert state.status is LoopStatus.ESCALATED


def test_a_round_after_an_ended_loop_starts_the_next_loop() -> None:
    good = verdict([check("tests")])
    first = step(None, good, run_report([record("t.py::test")])).state
    second = step(first, good, run_report([record("t.py::test")]), 1).state
    assert (second.loop, len(second.rounds)) == (2, 1)


def test_another_task_abandons_the_open_loop() -> None:
    gate, run = failing_round()
    state = step(None, gate, run).state
    moved = step(state, gate, run, 1, task="default@other")
    assert moved.closed is not None
    assert moved.closed.status is LoopStatus.ABANDONED
    assert moved.state.task == "default@other"
    assert moved.state.loop == 1


def test_feedback_accumulates_and_marks_what_was_resolved() -> None:
    run1 = run_report(
        [record("t.py::test_a", Outcome.FAILED), record("t.py::test_b", Outcome.FAILED)]
    )
    gate1 = verdict([check("tests", CheckStatus.FAILED), check("lint", CheckStatus.FAILED)])
    state = step(None, gate1, run1).state
    run2 = run_report([record("t.py::test_a", Outcome.FAILED), record("t.py::test_b")])
    gate2 = verdict([check("tests", CheckStatus.FAILED), check("lint")])
    state = step(state, gate2, run2, 1).state
    items = {item.key: item for item in state.feedback}
    assert items["test:t.py::test_a"].rounds_seen == 2
    assert items["test:t.py::test_a"].resolved_round is None
    assert items["test:t.py::test_b"].resolved_round == 2
    assert items["check:lint"].resolved_round == 2
    assert items["check:tests"].text == "tests: tests failed"


def test_problems_name_checks_tests_and_collection_errors() -> None:
    run = run_report([record("t.py::test_a", Outcome.ERROR, exc_type="OSError", message="x\ny")])
    gate = verdict(
        [
            check("tests", CheckStatus.FAILED),
            check("docs", CheckStatus.FAILED, requirement="optional"),
        ]
    )
    found = problems(gate, run)
    assert found == {
        "check:tests": "tests: tests failed",
        "test:t.py::test_a": "t.py::test_a: OSError: x",
    }
