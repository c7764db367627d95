"""The router's next action: one rule at a time, each with a reason a person can act on."""

from __future__ import annotations

from datetime import timedelta

from phasegate.model.gate import CheckStatus, GateVerdict
from phasegate.model.refine import LoopSettings, RefinementState, RouterAction, RouterDecision
from phasegate.model.run import Outcome, RunReport
from phasegate.refine.loop import advance
from phasegate.refine.router import decide
from tests.factories import T0, check, finding, record, run_report, verdict

SETTINGS = LoopSettings(threshold=0.85, alpha=0.3, early_stop=0.95, max_rounds=20)
PASSING_RUN = run_report([record("t.py::test_a")])


def rounds(
    *pairs: tuple[GateVerdict, RunReport], settings: LoopSettings = SETTINGS
) -> RouterDecision:
    state: RefinementState | None = None
    for n, (gate, run) in enumerate(pairs):
        state = advance(state, gate, run, task="t", settings=settings, now=T0 + timedelta(n)).state
    assert state is not None
    return decide(state, pairs[-1][0], pairs[-1][1])


def test_proceed_when_the_gate_passes() -> None:
    decision = rounds((verdict([check("tests"), check("lint")]), PASSING_RUN))
    assert decision.action is RouterAction.PROCEED
    assert "sufficient" in decision.reason
    assert "early stop at 0.95" in decision.reason


def test_failing_tests_route_to_debug_naming_the_first() -> None:
    run = run_report(
        [
            record("t.py::test_a", Outcome.FAILED, exc_type="KeyError", message="'id'"),
            record("t.py::test_b"),
        ]
    )
    decision = rounds((verdict([check("tests", CheckStatus.FAILED), check("lint")]), run))
    assert decision.action is RouterAction.ROUTE_TO_DEBUG
    assert decision.target == "t.py::test_a"
    assert decision.details == ["t.py::test_a: KeyError: 'id'"]


def test_a_check_that_cannot_run_adds_a_step_with_its_fix() -> None:
    gate = verdict(
        [
            check("tests"),
            check(
                "security",
                CheckStatus.ERROR,
                reasoning="bandit is not installed",
                fix="pip install 'pytest-phasegate[gate]'",
            ),
        ]
    )
    decision = rounds((gate, PASSING_RUN))
    assert decision.action is RouterAction.ADD_STEP
    assert decision.target == "security"
    assert "pip install" in decision.reason


def test_uncovered_new_code_adds_a_step() -> None:
    coverage = check(
        "coverage",
        CheckStatus.FAILED,
        reasoning="line_rate on new code is 0.5, fails when < 0.8",
        findings=[finding("uncovered", "src/app/core.py", 7, message="line 7 never ran")],
    )
    decision = rounds((verdict([check("tests"), coverage]), PASSING_RUN))
    assert decision.action is RouterAction.ADD_STEP
    assert decision.reason.startswith("write tests for the new code")
    assert decision.details == ["src/app/core.py:7: line 7 never ran"]


def test_lint_findings_retry_with_the_feedback() -> None:
    lint = check("lint", CheckStatus.FAILED, reasoning="violations on new code is 2")
    decision = rounds((verdict([check("tests"), lint]), PASSING_RUN))
    assert decision.action is RouterAction.RETRY_WITH_FEEDBACK
    assert decision.target == "lint"
    assert decision.details == ["lint: violations on new code is 2"]


def test_a_sufficient_gate_below_the_threshold_retries_naming_the_lowest_checks() -> None:
    gate = verdict([check("tests", score=0.9), check("lint", score=0.7)])
    decision = rounds((gate, PASSING_RUN))
    assert decision.action is RouterAction.RETRY_WITH_FEEDBACK
    assert "below the refinement threshold 0.85 (lowest: lint 0.70, tests 0.90)" in decision.reason


def test_a_regression_truncates_from_the_round_after_the_best() -> None:
    good = verdict([check("tests", score=0.8), check("lint", score=0.8)], commit="c1" * 20)
    worse = verdict(
        [check("tests", score=0.8), check("lint", CheckStatus.FAILED, score=0.2)], commit="c2" * 20
    )
    decision = rounds((good, PASSING_RUN), (worse, PASSING_RUN))
    assert decision.action is RouterAction.TRUNCATE_FROM
    assert decision.target == "round 2 (commit c2c2c2c2c2c2)"
    assert "lint passed then but fail now" in decision.reason


def test_the_last_round_escalates() -> None:
    settings = LoopSettings(threshold=0.85, alpha=0.3, early_stop=0.95, max_rounds=2)
    lint = verdict([check("lint", CheckStatus.FAILED, score=0.4)])
    decision = rounds((lint, PASSING_RUN), (lint, PASSING_RUN), settings=settings)
    assert decision.action is RouterAction.ESCALATE
    assert decision.reason.startswith("2 rounds without passing")
    assert decision.details == ["lint: lint failed"]
