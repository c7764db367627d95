"""The rules of each phase: a run and the ledger's state in, a judged ledger entry out.

Each rule is a clear pass or fail with the reason (a :class:`~phasegate.model.tdd.Violation`
with a stable ``rule`` id and a message that says what to do). The rules read the past only
through :class:`~phasegate.model.tdd.TddState` and file content only through
:class:`Workspace`, so they are tested without pytest or a real project.

"The last green state" is the last run whose verdict passed in a phase where everything runs
(green, refactor, phase 0, or the starting point). "The last accepted state" is the last run
whose verdict passed in any phase (a red, too): RED compares source files with it, GREEN and
phase 0 compare test files with it.
"""

from __future__ import annotations

from collections.abc import Callable

from phasegate.model.tdd import RunEntry, TddPhase, TddState
from phasegate.tdd.config import TddConfig
from phasegate.tdd.rules.auto import infer
from phasegate.tdd.rules.green import judge_green
from phasegate.tdd.rules.judgement import (
    INTEGRITY_RULES,
    PHASE_NAMES,
    TEST_ISSUE_RULES,
    Judgement,
    RunFacts,
    Workspace,
)
from phasegate.tdd.rules.phase0 import judge_phase0
from phasegate.tdd.rules.red import judge_red, next_cycle_id
from phasegate.tdd.rules.refactor import judge_refactor
from phasegate.tdd.tree import content_hash

__all__ = [
    "INTEGRITY_RULES",
    "TEST_ISSUE_RULES",
    "RunFacts",
    "Workspace",
    "expected_failures",
    "judge",
    "next_cycle_id",
]

_PHASES: dict[TddPhase, Callable[[Judgement], None]] = {
    "red": judge_red,
    "green": judge_green,
    "refactor": judge_refactor,
    "phase0": judge_phase0,
}


def judge(facts: RunFacts, state: TddState, config: TddConfig, workspace: Workspace) -> RunEntry:
    """Judge one run against the state; the entry says what happened and why."""
    j = Judgement(facts, state, config, workspace)
    phase = _phase_of(j)
    if facts.interrupted:
        j.violate("interrupted", "the run was interrupted, so its results are partial")
    _PHASES[phase](j)
    verdict = "failed" if j.violations else "passed"
    _settle(j, failed=bool(j.violations))
    return RunEntry(
        run_id=facts.run_id,
        time=facts.time,
        requested=facts.requested,
        phase=phase,
        starting_point=j.starting_point,
        cycles=j.cycles,
        cycle_tests=j.cycle_tests,
        closes=j.closes,
        command=facts.command,
        actor=facts.actor,
        git=facts.git,
        content_hash=content_hash(facts.files),
        files=facts.files,
        tests=list(facts.tests.values()),
        collection_errors=facts.collection_errors,
        verdict=verdict,
        status=j.status,
        violations=j.violations,
        notes=j.notes,
        complexity=j.complexity,
    )


def _phase_of(j: Judgement) -> TddPhase:
    """The phase asked for, or (``--tdd=auto``) the one inferred, noted with why."""
    if j.facts.requested != "auto":
        return j.facts.requested
    phase, why = infer(j)
    j.notes.append(f"auto: judged as {PHASE_NAMES[phase]} because {why}")
    return phase


def _settle(j: Judgement, *, failed: bool) -> None:
    """A failed run closes no cycle (and is TI when the tests are at fault)."""
    if failed:
        j.closes = []
        j.status = ["TI"] if any(v.rule in TEST_ISSUE_RULES for v in j.violations) else []
    elif j.closes:
        j.notes.append(f"cycle(s) {', '.join(j.closes)} closed: a new cycle started")


def expected_failures(entry: RunEntry, state_after: TddState) -> set[str]:
    """Failing tests the run expected: right-reason reds of cycles that are red now."""
    red_tests = {
        nodeid
        for cycle in state_after.cycles.values()
        if cycle.status == "red"
        for nodeid in cycle.tests
    }
    return {test.nodeid for test in entry.tests if test.nodeid in red_tests and test.right_reason}
