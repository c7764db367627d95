"""GREEN: the cycle's tests pass, nothing else broke, and the tests were not touched."""

from __future__ import annotations

from collections.abc import Mapping

from phasegate.model.outcome import Outcome
from phasegate.model.tdd import CycleState, LedgerTest
from phasegate.tdd.rules.judgement import FAILING, TEST_ISSUE_CLASSES, Judgement, count, details

__all__ = ["judge_green"]


def judge_green(j: Judgement) -> None:
    """The red cycles' tests pass, the last green state's tests still pass, tests unchanged."""
    targets = _green_targets(j)
    if not targets:
        _nothing_to_make_green(j)
        return
    j.cycles = [cycle.id for cycle in targets]
    for cycle in targets:
        _judge_cycle(j, cycle)
    waiting = j.tests_of(c for c in j.red_cycles() if c not in targets)
    j.must_still_pass(j.green_passed - waiting, "green-broke-tests")
    j.tests_unchanged("green-changed-tests", "A green may change source files only")
    j.never_red()
    j.collection_errors("every test must be collected to prove nothing else broke")
    if j.state.green is None:
        j.notes.append("no earlier green state: tests outside the cycle are taken as they are")
    if not j.violations:
        _record_green(j, targets)


def _nothing_to_make_green(j: Judgement) -> None:
    """No red cycle to judge: the ledger's starting point, or a green without a red.

    A cycle named with ``--tdd-cycle`` that is not red was reported by :func:`_green_targets`.
    """
    if j.facts.cycle is not None:
        return
    if j.state.green is None:
        _starting_point(j)
        return
    j.violate(
        "green-no-red-cycle",
        "no cycle is red, so there is nothing to make green: write a failing test "
        "and prove it with pytest --tdd=red first",
    )


def _judge_cycle(j: Judgement, cycle: CycleState) -> None:
    """One red cycle's tests: all run, all pass; a test that did not get to run is a TI."""
    tests = j.facts.tests
    missing = [nodeid for nodeid in cycle.tests if nodeid not in tests]
    if missing:
        j.not_run(missing, f"cycle {cycle.id}'s tests")
    still, issues = _not_passing(cycle, tests)
    if still:
        j.violate(
            "green-still-failing",
            f"cycle {cycle.id} is not green yet: {details(still, tests)}. Change the "
            "source until its tests pass",
            tests=still,
        )
    if issues:
        j.violate(
            "green-test-error",
            f"cycle {cycle.id}'s tests did not get to run: {details(issues, tests)}. "
            "This is a test issue (TI): the test must run and pass as written at red",
            tests=issues,
        )


def _not_passing(cycle: CycleState, tests: Mapping[str, LedgerTest]) -> tuple[list[str], list[str]]:
    """The cycle's tests that ran and did not pass: failing still, and test issues (TI)."""
    failing = [n for n in cycle.tests if n in tests and tests[n].outcome != Outcome.PASSED]
    issues = [n for n in failing if tests[n].failure_class in TEST_ISSUE_CLASSES]
    return [n for n in failing if n not in issues], issues


def _record_green(j: Judgement, targets: list[CycleState]) -> None:
    j.status = ["GC"]
    own = sum(len(cycle.tests) for cycle in targets)
    j.notes.append(
        f"{'cycle' if len(targets) == 1 else 'cycles'} {', '.join(j.cycles)} green: "
        f"{count(own, 'cycle test')} and the {count(len(j.green_passed), 'test')} "
        "of the last green state pass; next: pytest --tdd=refactor, or the next red"
    )


def _green_targets(j: Judgement) -> list[CycleState]:
    """The cycles this green is for: the one named, else (auto) the red ones whose tests all
    pass now, else every red cycle."""
    red = j.red_cycles()
    name = j.facts.cycle
    if name is not None:
        return _named_target(j, name, red)
    if j.facts.requested == "auto":
        return _passing_cycles(j, red) or red
    return red


def _named_target(j: Judgement, name: str, red: list[CycleState]) -> list[CycleState]:
    """The cycle named with ``--tdd-cycle``, when it is red; else a violation and none."""
    cycle = j.state.cycles.get(name)
    if cycle is not None and cycle.status == "red":
        return [cycle]
    red_ids = ", ".join(c.id for c in red) or "none"
    j.violate(
        "cycle-not-red",
        f"cycle {name} cannot turn green: {j.named_cycle_status(name)} (red cycles: {red_ids})",
    )
    return []


def _passing_cycles(j: Judgement, red: list[CycleState]) -> list[CycleState]:
    tests = j.facts.tests
    return [
        cycle
        for cycle in red
        if all(n in tests and tests[n].outcome == Outcome.PASSED for n in cycle.tests)
    ]


def _starting_point(j: Judgement) -> None:
    j.starting_point = True
    failing = [n for n in j.not_passed if j.facts.tests[n].outcome in FAILING]
    if failing:
        j.violate(
            "start-not-green",
            f"the ledger starts from a passing suite, and {count(failing, 'test')} fail: "
            f"{details(failing, j.facts.tests)}. Make them pass (or deselect them) and "
            "run pytest --tdd=green again",
            tests=failing,
        )
    j.collection_errors("the starting point must collect every test")
    if not j.violations:
        passed = len(j.passed_now)
        j.notes.append(
            f"starting point recorded: {count(passed, 'test')} pass; tests written "
            "from now on must be seen red before they pass"
        )
